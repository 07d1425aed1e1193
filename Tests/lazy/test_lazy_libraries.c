/* The libraries a program pays for only when it uses them: FFmpeg (audio files and
 * codecs), the WebRTC audio processing library (VoiceProcessingIO), libsamplerate
 * (a program's rate other than the device's) and libpipewire (a sound server's
 * streams) are loaded on first use, never at start.
 *
 *   test_lazy_libraries session          a session-only program maps none of them
 *   test_lazy_libraries files WAV        AudioFileOpenURL loads FFmpeg, and only it
 *   test_lazy_libraries missing WAV      run where FFmpeg, WebRTC and libsamplerate are
 *                                        hidden (run-tests.sh hides them in a private
 *                                        mount namespace): the calls that need them
 *                                        fail with their documented codes, the rest
 *                                        keeps working
 *
 * Runs on the virtual device (AUDIOTOOLBOX_BACKEND=virtual, in-process arbiter), where a
 * unit's stream is the clock at the session's rate. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../c/check.h"

/* Which of the lazily loaded libraries /proc/self/maps shows. */
typedef struct { int ffmpeg, webrtc, samplerate, pipewire; } Mapped;

static Mapped mapped(void)
{
    Mapped m = {0, 0, 0, 0};
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    while (maps && fgets(line, sizeof line, maps)) {
        if (strstr(line, "/libavformat.so") || strstr(line, "/libavcodec.so") || strstr(line, "/libavutil.so")) m.ffmpeg = 1;
        if (strstr(line, "/libwebrtc_audio_processing.so")) m.webrtc = 1;
        if (strstr(line, "/libsamplerate.so")) m.samplerate = 1;
        if (strstr(line, "/libpipewire-0.3.so")) m.pipewire = 1;
    }
    if (maps) fclose(maps);
    return m;
}

static OSStatus openFile(const char *path, AudioFileID *file)
{
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    OSStatus status = AudioFileOpenURL(url, kAudioFileReadPermission, 0, file);
    CFRelease(url);
    return status;
}

static OSStatus renderSilence(void *data, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *stamp, UInt32 bus,
                              UInt32 frames, AudioBufferList *list)
{
    (void)data; (void)flags; (void)stamp; (void)bus; (void)frames;
    for (UInt32 i = 0; i < list->mNumberBuffers; i++) memset(list->mBuffers[i].mData, 0, list->mBuffers[i].mDataByteSize);
    return noErr;
}

/* Starts an I/O unit of `subtype` rendering at `rate`; returns Start's result (the unit
 * is stopped and disposed of again). */
static OSStatus startUnit(OSType subtype, Float64 rate)
{
    AudioComponentDescription description = {kAudioUnitType_Output, subtype, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponent component = AudioComponentFindNext(NULL, &description);
    AudioUnit unit = NULL;
    if (AudioComponentInstanceNew(component, &unit) != noErr) return -1;
    if (subtype == kAudioUnitSubType_VoiceProcessingIO) {
        UInt32 on = 1;
        AudioUnitSetProperty(unit, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &on, sizeof on);
    }
    AudioStreamBasicDescription format = {rate, kAudioFormatLinearPCM,
                                          kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &format, sizeof format);
    /* What the unit records comes at the same rate: only `rate` decides whether the
     * resampler is needed. */
    AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1, &format, sizeof format);
    AURenderCallbackStruct callback = {renderSilence, NULL};
    AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback, sizeof callback);
    AudioUnitInitialize(unit);
    OSStatus started = AudioOutputUnitStart(unit);
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
    return started;
}

static void queueOutput(void *data, AudioQueueRef queue, AudioQueueBufferRef buffer)
{
    (void)data; (void)queue; (void)buffer;
}

static void session(UInt32 category)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    Float64 rate = 48000;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof rate, &rate);
    CHECK(AudioSessionSetActive(true) == noErr, "the session activates");
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s session | files WAV | missing WAV\n", argv[0]); return 2; }
    const char *mode = argv[1];
    char code[16];
    if (strcmp(mode, "session") == 0) {
        session(kAudioSessionCategory_PlayAndRecord);
        UInt32 size = sizeof(Float64);
        Float64 rate = 0;
        CHECK(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate) == noErr && rate > 0,
              "the session reads its rate");
        Mapped m = mapped();
        CHECK(!m.ffmpeg, "a session-only program maps no FFmpeg library");
        CHECK(!m.webrtc, "a session-only program maps no WebRTC library");
        CHECK(!m.samplerate, "a session-only program maps no libsamplerate");
        CHECK(!m.pipewire, "a session-only program maps no libpipewire");
        /* A unit at the device's rate needs none of them either. */
        CHECK(startUnit(kAudioUnitSubType_RemoteIO, 48000) == noErr, "RemoteIO at the device's rate starts");
        m = mapped();
        CHECK(!m.ffmpeg && !m.webrtc && !m.samplerate, "nor does a RemoteIO at the device's rate (%d %d %d)",
              m.ffmpeg, m.webrtc, m.samplerate);
        /* Load on first use, really: the next calls map what they need. */
        CHECK(startUnit(kAudioUnitSubType_RemoteIO, 44100) == noErr, "RemoteIO at 44.1 kHz on a 48 kHz session starts");
        CHECK(mapped().samplerate, "converting the rate loaded libsamplerate");
        CHECK(startUnit(kAudioUnitSubType_VoiceProcessingIO, 48000) == noErr, "VoiceProcessingIO starts");
        CHECK(mapped().webrtc, "VoiceProcessingIO loaded the WebRTC library");
        CHECK(!mapped().ffmpeg, "still no FFmpeg");
    } else if (strcmp(mode, "files") == 0 && argc > 2) {
        AudioFileID file = NULL;
        OSStatus status = openFile(argv[2], &file);
        CHECK(status == noErr, "AudioFileOpenURL opens the WAV: %s", fourcc(status, code));
        if (file) AudioFileClose(file);
        Mapped m = mapped();
        CHECK(m.ffmpeg, "opening a file loaded FFmpeg");
        CHECK(!m.webrtc && !m.pipewire, "and nothing else (WebRTC %d, PipeWire %d)", m.webrtc, m.pipewire);
    } else if (strcmp(mode, "missing") == 0 && argc > 2) {
        session(kAudioSessionCategory_PlayAndRecord);
        AudioFileID file = NULL;
        OSStatus status = openFile(argv[2], &file);
        CHECK(status == kAudioFileUnspecifiedError,
              "without FFmpeg, AudioFileOpenURL answers kAudioFileUnspecifiedError: %s", fourcc(status, code));
        CHECK(file == NULL, "and gives no file");
        /* A compressed format needs the decoder; linear PCM conversion does not. */
        AudioStreamBasicDescription aac = {44100, kAudioFormatMPEG4AAC, 0, 0, 1024, 0, 2, 0, 0};
        AudioStreamBasicDescription pcm = {44100, kAudioFormatLinearPCM,
                                           kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
        AudioStreamBasicDescription floats = {44100, kAudioFormatLinearPCM,
                                              kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked, 8, 1, 8, 2, 32, 0};
        AudioConverterRef converter = NULL;
        status = AudioConverterNew(&aac, &pcm, &converter);
        CHECK(status == kAudioConverterErr_FormatNotSupported,
              "without FFmpeg, an AAC decoder is kAudioConverterErr_FormatNotSupported: %s", fourcc(status, code));
        status = AudioConverterNew(&pcm, &floats, &converter);
        CHECK(status == noErr && converter, "a PCM converter still works: %s", fourcc(status, code));
        if (converter) AudioConverterDispose(converter);
        converter = NULL;
        AudioStreamBasicDescription at48k = floats;
        at48k.mSampleRate = 48000;
        status = AudioConverterNew(&pcm, &at48k, &converter);
        CHECK(status == kAudioConverterErr_FormatNotSupported && !converter,
              "without libsamplerate, a converter between two rates is kAudioConverterErr_FormatNotSupported: %s",
              fourcc(status, code));
        /* A queue of compressed data needs the decoder. */
        AudioQueueRef queue = NULL;
        status = AudioQueueNewOutput(&aac, queueOutput, NULL, NULL, NULL, 0, &queue);
        CHECK(status == kAudioFormatUnsupportedDataFormatError && !queue,
              "without FFmpeg, an AAC queue is kAudioFormatUnsupportedDataFormatError at creation: %s", fourcc(status, code));
        /* A PCM system sound needs none of them: its header is read by the library. */
        CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)argv[2], (CFIndex)strlen(argv[2]), false);
        SystemSoundID sound = 0;
        status = AudioServicesCreateSystemSoundID(url, &sound);
        CFRelease(url);
        CHECK(status == noErr && sound != 0, "a WAV system sound is still made: %s", fourcc(status, code));
        if (sound) AudioServicesDisposeSystemSoundID(sound);
        /* Without libsamplerate, a PCM queue at a rate other than the device's cannot
         * start (its unit cannot convert). */
        queue = NULL;
        AudioStreamBasicDescription pcm44 = pcm;
        status = AudioQueueNewOutput(&pcm44, queueOutput, NULL, NULL, NULL, 0, &queue);
        CHECK(status == noErr && queue, "a PCM queue is made: %s", fourcc(status, code));
        if (queue) {
            AudioQueueBufferRef buffer = NULL;
            AudioQueueAllocateBuffer(queue, 4096, &buffer);
            memset(buffer->mAudioData, 0, 4096);
            buffer->mAudioDataByteSize = 4096;
            AudioQueueEnqueueBuffer(queue, buffer, 0, NULL);
            status = AudioQueueStart(queue, NULL);
            CHECK(status == kAudioQueueErr_CannotStart,
                  "without libsamplerate, a 44.1 kHz queue on a 48 kHz device is kAudioQueueErr_CannotStart: %s",
                  fourcc(status, code));
            AudioQueueDispose(queue, true);
        }
        /* Without libsamplerate, a unit whose rate is not the device's cannot start; one
         * at the device's rate plays. */
        status = startUnit(kAudioUnitSubType_RemoteIO, 44100);
        CHECK(status == kAudioUnitErr_FormatNotSupported,
              "without libsamplerate, RemoteIO at 44.1 kHz on 48 kHz is kAudioUnitErr_FormatNotSupported: %s",
              fourcc(status, code));
        CHECK(startUnit(kAudioUnitSubType_RemoteIO, 48000) == noErr, "RemoteIO at the device's rate still starts");
        status = startUnit(kAudioUnitSubType_VoiceProcessingIO, 48000);
        CHECK(status == kAudioUnitErr_FailedInitialization,
              "without WebRTC, VoiceProcessingIO is kAudioUnitErr_FailedInitialization: %s", fourcc(status, code));
        UInt32 size = sizeof(UInt32), other = 9;
        CHECK(AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &other) == noErr && other <= 1,
              "the session keeps answering");
        CHECK(AudioSessionSetActive(false) == noErr, "and deactivates");
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    printf("test_lazy_libraries %s: %d passed, %d failed\n", mode, checksPassed, checksFailed);
    return checksFailed == 0 ? 0 : 1;
}
