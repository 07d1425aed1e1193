/* The sound device of a SIP client, written as such clients wrote it for the iPhone:
 * VoiceProcessingIO, 16 kHz mono SInt16, no session calls in the audio path. */
#include "voice_unit.h"
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <string.h>

#define CLOCK_RATE 16000
#define FAR_END_HZ 600

static AudioComponentInstance io_unit;
static voice_status status;
static short capture_ring[16000];
static long capture_pos;
static double far_phase;

static void on_interruption(void *user_data, UInt32 state)
{
    (void)user_data;
    if (state == kAudioSessionBeginInterruption) {
        status.begins++;
        AudioOutputUnitStop(io_unit);
    } else if (state == kAudioSessionEndInterruption) {
        status.ends++;
        AudioSessionSetActive(true);
        status.restart_status = (int)AudioOutputUnitStart(io_unit);
    }
}

static OSStatus input_cb(void *ref, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                         UInt32 frames, AudioBufferList *data)
{
    short samples[2048];
    AudioBufferList list;
    (void)ref; (void)data;
    if (frames > 2048) return noErr;
    list.mNumberBuffers = 1;
    list.mBuffers[0].mNumberChannels = 1;
    list.mBuffers[0].mDataByteSize = frames * sizeof(short);
    list.mBuffers[0].mData = samples;
    status.input_calls++;
    if (AudioUnitRender(io_unit, flags, ts, bus, frames, &list) != noErr) {
        status.render_errors++;
        return noErr;
    }
    for (UInt32 i = 0; i < frames; i++) capture_ring[(capture_pos++) % 16000] = samples[i];
    status.captured_frames += frames;
    return noErr;
}

static OSStatus render_cb(void *ref, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                          UInt32 frames, AudioBufferList *data)
{
    short *out = (short *)data->mBuffers[0].mData;
    (void)ref; (void)flags; (void)ts; (void)bus;
    for (UInt32 i = 0; i < frames; i++) {
        out[i] = (short)(12000 * sin(far_phase));
        far_phase += 2 * M_PI * FAR_END_HZ / CLOCK_RATE;
    }
    status.render_calls++;
    status.played_frames += frames;
    return noErr;
}

int voice_open(void)
{
    AudioComponentDescription desc;
    AudioStreamBasicDescription fmt;
    AURenderCallbackStruct cb;
    UInt32 enable = 1, category = kAudioSessionCategory_PlayAndRecord, mode = kAudioSessionMode_VoiceChat;
    OSStatus st;

    st = AudioSessionInitialize(NULL, NULL, on_interruption, NULL);
    if (st != noErr && st != kAudioSessionAlreadyInitialized) return (int)st;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(category), &category);
    AudioSessionSetProperty(kAudioSessionProperty_Mode, sizeof(mode), &mode);

    memset(&desc, 0, sizeof(desc));
    desc.componentType = kAudioUnitType_Output;
    desc.componentSubType = kAudioUnitSubType_VoiceProcessingIO;
    desc.componentManufacturer = kAudioUnitManufacturer_Apple;
    st = AudioComponentInstanceNew(AudioComponentFindNext(NULL, &desc), &io_unit);
    if (st != noErr) return (int)st;
    st = AudioUnitSetProperty(io_unit, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &enable,
                              sizeof(enable));
    if (st != noErr) return (int)st;

    memset(&fmt, 0, sizeof(fmt));
    fmt.mSampleRate = CLOCK_RATE;
    fmt.mFormatID = kAudioFormatLinearPCM;
    fmt.mFormatFlags = kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked;
    fmt.mBitsPerChannel = 16;
    fmt.mChannelsPerFrame = 1;
    fmt.mBytesPerFrame = 2;
    fmt.mFramesPerPacket = 1;
    fmt.mBytesPerPacket = 2;
    st = AudioUnitSetProperty(io_unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1, &fmt, sizeof(fmt));
    if (st != noErr) return (int)st;
    st = AudioUnitSetProperty(io_unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &fmt, sizeof(fmt));
    if (st != noErr) return (int)st;

    cb.inputProc = input_cb;
    cb.inputProcRefCon = NULL;
    st = AudioUnitSetProperty(io_unit, kAudioOutputUnitProperty_SetInputCallback, kAudioUnitScope_Global, 1, &cb,
                              sizeof(cb));
    if (st != noErr) return (int)st;
    cb.inputProc = render_cb;
    st = AudioUnitSetProperty(io_unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &cb, sizeof(cb));
    if (st != noErr) return (int)st;
    return (int)AudioUnitInitialize(io_unit);
}

int voice_start(void)
{
    AudioSessionSetActive(true);
    return (int)AudioOutputUnitStart(io_unit);
}

void voice_stop(void) { AudioOutputUnitStop(io_unit); }

void voice_close(void)
{
    AudioOutputUnitStop(io_unit);
    AudioUnitUninitialize(io_unit);
    AudioComponentInstanceDispose(io_unit);
    io_unit = NULL;
    AudioSessionSetActive(false);
}

const voice_status *voice_get_status(void) { return &status; }

long voice_copy_capture(short *out, long count)
{
    long have = capture_pos < count ? capture_pos : count;
    for (long i = 0; i < have; i++) out[i] = capture_ring[(capture_pos - have + i) % 16000];
    return have;
}
