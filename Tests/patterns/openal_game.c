/*
 * A game's OpenAL sound code as iPhone games wrote it: the sound loader every OpenAL
 * sample and engine copied (Extended Audio File: open, read the file's format, ask for
 * 16-bit native-endian PCM at the file's rate and channels, read the whole length into
 * one buffer, hand it to alBufferData), and the interruption listener that clears the
 * OpenAL context in Begin and reactivates the session and restores it after End. The
 * only Linux lines are under !TARGET_OS_IPHONE-style guards: OpenAL Soft is not stopped
 * by the session, so the port also pauses its device (ALC_SOFT_pause_device).
 */
#include <TargetConditionals.h>
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>
#ifdef __APPLE__
#include <OpenAL/al.h>
#include <OpenAL/alc.h>
#else
#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#endif
#include "openal_game.h"

static ALCdevice *device;
static ALCcontext *context;
static ALuint buffer, source;
static int interrupted, begins, ends;
static long loaded_bytes;
static int loaded_stereo16, loaded_rate;
static short *loaded_copy;
#ifndef __APPLE__
static LPALCDEVICEPAUSESOFT pause_device;
static LPALCDEVICERESUMESOFT resume_device;
#endif

static void *MyGetOpenALAudioData(CFURLRef inFileURL, ALsizei *outDataSize, ALenum *outDataFormat, ALsizei *outSampleRate)
{
    OSStatus err = noErr;
    SInt64 theFileLengthInFrames = 0;
    AudioStreamBasicDescription theFileFormat;
    UInt32 thePropertySize = sizeof(theFileFormat);
    ExtAudioFileRef extRef = NULL;
    void *theData = NULL;
    AudioStreamBasicDescription theOutputFormat;

    err = ExtAudioFileOpenURL(inFileURL, &extRef);
    if (err) goto Exit;
    err = ExtAudioFileGetProperty(extRef, kExtAudioFileProperty_FileDataFormat, &thePropertySize, &theFileFormat);
    if (err) goto Exit;
    if (theFileFormat.mChannelsPerFrame > 2) goto Exit;

    theOutputFormat.mSampleRate = theFileFormat.mSampleRate;
    theOutputFormat.mChannelsPerFrame = theFileFormat.mChannelsPerFrame;
    theOutputFormat.mFormatID = kAudioFormatLinearPCM;
    theOutputFormat.mBytesPerPacket = 2 * theOutputFormat.mChannelsPerFrame;
    theOutputFormat.mFramesPerPacket = 1;
    theOutputFormat.mBytesPerFrame = 2 * theOutputFormat.mChannelsPerFrame;
    theOutputFormat.mBitsPerChannel = 16;
    theOutputFormat.mFormatFlags = kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked | kAudioFormatFlagIsSignedInteger;
    theOutputFormat.mReserved = 0;
    err = ExtAudioFileSetProperty(extRef, kExtAudioFileProperty_ClientDataFormat, sizeof(theOutputFormat), &theOutputFormat);
    if (err) goto Exit;

    thePropertySize = sizeof(theFileLengthInFrames);
    err = ExtAudioFileGetProperty(extRef, kExtAudioFileProperty_FileLengthFrames, &thePropertySize, &theFileLengthInFrames);
    if (err) goto Exit;

    {
        UInt32 dataSize = (UInt32)theFileLengthInFrames * theOutputFormat.mBytesPerFrame;
        theData = malloc(dataSize);
        if (theData) {
            AudioBufferList theDataBuffer;
            theDataBuffer.mNumberBuffers = 1;
            theDataBuffer.mBuffers[0].mDataByteSize = dataSize;
            theDataBuffer.mBuffers[0].mNumberChannels = theOutputFormat.mChannelsPerFrame;
            theDataBuffer.mBuffers[0].mData = theData;
            err = ExtAudioFileRead(extRef, (UInt32 *)&theFileLengthInFrames, &theDataBuffer);
            if (err == noErr) {
                *outDataSize = (ALsizei)(theFileLengthInFrames * theOutputFormat.mBytesPerFrame);
                *outDataFormat = (theOutputFormat.mChannelsPerFrame > 1) ? AL_FORMAT_STEREO16 : AL_FORMAT_MONO16;
                *outSampleRate = (ALsizei)theOutputFormat.mSampleRate;
            } else {
                free(theData);
                theData = NULL;
            }
        }
    }

Exit:
    if (extRef) ExtAudioFileDispose(extRef);
    return theData;
}

static void interruptionListener(void *inClientData, UInt32 inInterruptionState)
{
    (void)inClientData;
    if (inInterruptionState == kAudioSessionBeginInterruption) {
        begins++;
        interrupted = 1;
        alcMakeContextCurrent(NULL);
#ifndef __APPLE__
        if (pause_device) pause_device(device);
#endif
    } else if (inInterruptionState == kAudioSessionEndInterruption) {
        ends++;
        AudioSessionSetActive(true);
        alcMakeContextCurrent(context);
#ifndef __APPLE__
        if (resume_device) resume_device(device);
#endif
        interrupted = 0;
    }
}

int openal_game_init(void)
{
    UInt32 category = kAudioSessionCategory_AmbientSound;
    AudioSessionInitialize(NULL, NULL, interruptionListener, NULL);
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(category), &category);
    AudioSessionSetActive(true);

    device = alcOpenDevice(NULL);
    if (!device) return 0;
    context = alcCreateContext(device, 0);
    if (!context) return 0;
    alcMakeContextCurrent(context);
#ifndef __APPLE__
    if (alcIsExtensionPresent(device, "ALC_SOFT_pause_device")) {
        pause_device = (LPALCDEVICEPAUSESOFT)alcGetProcAddress(device, "alcDevicePauseSOFT");
        resume_device = (LPALCDEVICERESUMESOFT)alcGetProcAddress(device, "alcDeviceResumeSOFT");
    }
#endif
    alGenBuffers(1, &buffer);
    alGenSources(1, &source);
    return alGetError() == AL_NO_ERROR;
}

int openal_game_play(const char *path)
{
    ALenum format = 0;
    ALsizei size = 0, freq = 0;
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(kCFAllocatorDefault, (const UInt8 *)path, (CFIndex)strlen(path), false);
    void *data = MyGetOpenALAudioData(url, &size, &format, &freq);
    CFRelease(url);
    if (!data) return 0;
    loaded_bytes = size;
    loaded_stereo16 = format == AL_FORMAT_STEREO16;
    loaded_rate = freq;
    free(loaded_copy);
    loaded_copy = (short *)malloc((size_t)size);
    if (loaded_copy) memcpy(loaded_copy, data, (size_t)size);
    alBufferData(buffer, format, data, size, freq);
    free(data);
    alSourcei(source, AL_BUFFER, (ALint)buffer);
    alSourcei(source, AL_LOOPING, AL_TRUE);
    alSourcePlay(source);
    return alGetError() == AL_NO_ERROR;
}

int openal_game_loaded(long *bytes, int *stereo16, int *rate, const short **samples)
{
    *bytes = loaded_bytes;
    *stereo16 = loaded_stereo16;
    *rate = loaded_rate;
    *samples = loaded_copy;
    return loaded_copy != NULL;
}

int openal_game_interrupted(void) { return interrupted; }
int openal_game_begins(void) { return begins; }
int openal_game_ends(void) { return ends; }

int openal_game_source_playing(void)
{
    ALint state = 0;
    alGetSourcei(source, AL_SOURCE_STATE, &state);
    return state == AL_PLAYING;
}

void openal_game_shutdown(void)
{
    alSourceStop(source);
    alDeleteSources(1, &source);
    alDeleteBuffers(1, &buffer);
    alcMakeContextCurrent(NULL);
    alcDestroyContext(context);
    alcCloseDevice(device);
    free(loaded_copy);
    loaded_copy = NULL;
}
