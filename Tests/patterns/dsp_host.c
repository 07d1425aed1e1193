/* The play-through pattern of the iPhone's sample code: RemoteIO with input enabled,
 * the render callback pulling element 1 into its own output buffers and processing
 * them in place as AudioUnitSampleType (8.24 under the iPhone SDK). */
#include "dsp_host.h"
#include <AudioToolbox/AudioToolbox.h>
#include <string.h>

static AudioUnit rio;
static dsp_status st;
static SInt32 gain_q24;

static void route_changed(void *data, AudioSessionPropertyID id, UInt32 size, const void *value)
{
    Float64 rate = 0;
    UInt32 rate_size = sizeof rate;
    (void)data; (void)size; (void)value;
    if (id != kAudioSessionProperty_AudioRouteChange) return;
    st.route_changes++;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &rate_size, &rate);
    st.hardware_rate = rate;
}

static OSStatus perform_thru(void *ref, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                             UInt32 frames, AudioBufferList *io)
{
    (void)ref; (void)bus;
    OSStatus err = AudioUnitRender(rio, flags, ts, 1, frames, io);
    if (err) { st.pull_errors++; return err; }
    for (UInt32 b = 0; b < io->mNumberBuffers; b++) {
        AudioUnitSampleType *samples = (AudioUnitSampleType *)io->mBuffers[b].mData;
        for (UInt32 i = 0; i < frames; i++)
            samples[i] = (AudioUnitSampleType)(((long long)samples[i] * gain_q24) >> 24);
    }
    st.renders++;
    return noErr;
}

int dsp_start(float gain)
{
    UInt32 category = kAudioSessionCategory_PlayAndRecord, one = 1, size = sizeof(Float64);
    Float64 rate = 0;
    AudioComponentDescription desc;
    AudioStreamBasicDescription fmt;
    AURenderCallbackStruct thru = {perform_thru, NULL};
    OSStatus err;

    gain_q24 = (SInt32)(gain * (1 << 24));
    err = AudioSessionInitialize(NULL, NULL, NULL, NULL);
    if (err) return (int)err;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, route_changed, NULL);
    AudioSessionSetActive(true);
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate);
    st.hardware_rate = rate;

    memset(&desc, 0, sizeof desc);
    desc.componentType = kAudioUnitType_Output;
    desc.componentSubType = kAudioUnitSubType_RemoteIO;
    desc.componentManufacturer = kAudioUnitManufacturer_Apple;
    err = AudioComponentInstanceNew(AudioComponentFindNext(NULL, &desc), &rio);
    if (err) return (int)err;
    err = AudioUnitSetProperty(rio, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &one, sizeof one);
    if (err) return (int)err;
    err = AudioUnitSetProperty(rio, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &thru,
                               sizeof thru);
    if (err) return (int)err;

    /* The canonical audio unit format: 8.24 fixed point, one buffer per channel. */
    memset(&fmt, 0, sizeof fmt);
    fmt.mSampleRate = rate;
    fmt.mFormatID = kAudioFormatLinearPCM;
    fmt.mFormatFlags = kAudioFormatFlagsAudioUnitCanonical;
    fmt.mBytesPerPacket = fmt.mBytesPerFrame = sizeof(AudioUnitSampleType);
    fmt.mFramesPerPacket = 1;
    fmt.mChannelsPerFrame = 2;
    fmt.mBitsPerChannel = 8 * sizeof(AudioUnitSampleType);
    err = AudioUnitSetProperty(rio, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &fmt, sizeof fmt);
    if (err) return (int)err;
    err = AudioUnitSetProperty(rio, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1, &fmt, sizeof fmt);
    if (err) return (int)err;
    err = AudioUnitInitialize(rio);
    if (err) return (int)err;
    return (int)AudioOutputUnitStart(rio);
}

void dsp_stop(void)
{
    AudioOutputUnitStop(rio);
    AudioComponentInstanceDispose(rio);
}

const dsp_status *dsp_get_status(void) { return &st; }
