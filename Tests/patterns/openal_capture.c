/*
 * OpenAL Soft's CoreAudio capture backend in its iOS branch (CAN_ENUMERATE 0), in the
 * calls and the order it makes them (our own C; its C++ ring buffer and BSinc24 sample
 * converter replaced by a plain ring and a linear interpolator):
 *
 *   kcat/openal-soft, alc/backends/coreaudio.cpp at commit
 *   2dc741b54a49fc6a7716afd1504ca1056cff7db4 (2026-08-20), CoreAudioCapture::open,
 *   ::start, ::stop, ::RecordProc, ::captureSamples, ::availableSamples.
 *
 * open(): FindNext(RemoteIO), InstanceNew, EnableIO(output, 0) = 0, EnableIO(input, 1) = 1,
 * SetInputCallback(global, 1), ShouldAllocateBuffer(output, 1) = 0, AudioUnitInitialize;
 * THEN GetProperty StreamFormat(input, 1) (the hardware's format, its size checked), and
 * SetProperty StreamFormat(output, 1): the app's sample type and channels at the
 * HARDWARE's rate (OpenAL resamples itself), then GetProperty MaximumFramesPerSlice
 * (global, 0) to size its render buffer. start(): AudioOutputUnitStart. RecordProc
 * renders element 1 into that buffer (mDataByteSize: the whole buffer) and writes the
 * frames to the ring; the app drains it through alcCaptureSamples.
 *
 * OpenAL Soft itself makes no Audio Session call; an iOS app that records sets its
 * session to record first (oac_app_session, here with the C Audio Session API).
 */
#include "openal_capture.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MaxResamplerPadding 48
static const char ca_device[] = "CoreAudio Default";

static oac_status st;
static AudioUnit mAudioUnit;
static unsigned mFrameSize;                 /* bytes per frame: mono 16-bit */
static AudioStreamBasicDescription mFormat; /* the OpenAL format as a CoreAudio ASBD */
static unsigned device_rate, device_buffer;
static short *mCaptureData;
static size_t mCaptureDataSize;             /* bytes */

/* The ring, one writer (the I/O thread) and one reader (the app). */
static short *ring;
static unsigned long ring_frames, ring_write, ring_read;

/* The converter from the hardware's rate to the app's, when they differ. */
static double conv_step, conv_frac;
static short conv_prev;

static OSStatus logged(const char *call, OSStatus result)
{
    if (st.calls < OAC_MAX_CALLS) {
        st.call[st.calls] = call;
        st.result[st.calls] = result;
        st.calls++;
    }
    return result;
}

static int fail(const char *why)
{
    st.error = why; /* al::backend_exception */
    if (mAudioUnit) AudioComponentInstanceDispose(mAudioUnit);
    mAudioUnit = NULL;
    return -1;
}

static unsigned long ring_readable(void)
{
    return __atomic_load_n(&ring_write, __ATOMIC_ACQUIRE) - __atomic_load_n(&ring_read, __ATOMIC_ACQUIRE);
}

static OSStatus RecordProc(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags, const AudioTimeStamp *inTimeStamp,
                           UInt32 inBusNumber, UInt32 inNumberFrames, AudioBufferList *ioData)
{
    AudioBufferList list;
    (void)inRefCon;
    (void)ioData;
    st.record_calls++;
    list.mNumberBuffers = 1;
    list.mBuffers[0].mNumberChannels = mFormat.mChannelsPerFrame;
    list.mBuffers[0].mData = mCaptureData;
    list.mBuffers[0].mDataByteSize = (UInt32)mCaptureDataSize;
    OSStatus err = AudioUnitRender(mAudioUnit, ioActionFlags, inTimeStamp, inBusNumber, inNumberFrames, &list);
    if (err != noErr) {
        if (st.render_errors++ == 0) st.first_render_error = err;
        return err;
    }
    /* mRing->write: what does not fit is dropped */
    unsigned long w = __atomic_load_n(&ring_write, __ATOMIC_RELAXED);
    unsigned long room = ring_frames - (w - __atomic_load_n(&ring_read, __ATOMIC_ACQUIRE));
    unsigned long n = inNumberFrames < room ? inNumberFrames : room;
    for (unsigned long i = 0; i < n; i++) ring[(w + i) % ring_frames] = mCaptureData[i];
    __atomic_store_n(&ring_write, w + n, __ATOMIC_RELEASE);
    st.recorded_frames += (long)n;
    st.dropped_frames += (long)(inNumberFrames - n);
    return noErr;
}

int oac_app_session(void)
{
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    OSStatus init = AudioSessionInitialize(NULL, NULL, NULL, NULL);
    if (init != noErr && init != kAudioSessionAlreadyInitialized) return (int)init;
    OSStatus set = AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(category), &category);
    if (set != noErr) return (int)set;
    return (int)AudioSessionSetActive(true);
}

int oac_capture_open(const char *name, unsigned frequency, unsigned buffersize)
{
    memset((void *)&st, 0, sizeof st);
    device_rate = frequency;
    device_buffer = buffersize;
    if (!name || !*name) name = ca_device;
    else if (strcmp(name, ca_device) != 0) return fail("Device name not found");

    AudioComponentDescription desc;
    memset(&desc, 0, sizeof desc);
    desc.componentType = kAudioUnitType_Output;
    desc.componentSubType = kAudioUnitSubType_RemoteIO;
    desc.componentManufacturer = kAudioUnitManufacturer_Apple;
    desc.componentFlags = 0;
    desc.componentFlagsMask = 0;

    AudioComponent comp = AudioComponentFindNext(NULL, &desc);
    if (comp == NULL) return fail("Could not find audio component");
    OSStatus err = logged("AudioComponentInstanceNew", AudioComponentInstanceNew(comp, &mAudioUnit));
    if (err != noErr) return fail("Could not create component instance");

    UInt32 enableIO = 0;
    err = logged("EnableIO(output, 0) = 0", AudioUnitSetProperty(mAudioUnit, kAudioOutputUnitProperty_EnableIO,
                                                                 kAudioUnitScope_Output, 0, &enableIO,
                                                                 sizeof(enableIO)));
    if (err != noErr) return fail("Could not disable audio unit output property");
    enableIO = 1;
    err = logged("EnableIO(input, 1) = 1", AudioUnitSetProperty(mAudioUnit, kAudioOutputUnitProperty_EnableIO,
                                                                kAudioUnitScope_Input, 1, &enableIO,
                                                                sizeof(enableIO)));
    if (err != noErr) return fail("Could not enable audio unit input property");

    AURenderCallbackStruct input;
    memset(&input, 0, sizeof input);
    input.inputProc = RecordProc;
    input.inputProcRefCon = NULL;
    err = logged("SetInputCallback(global, 1)", AudioUnitSetProperty(mAudioUnit,
                                                                     kAudioOutputUnitProperty_SetInputCallback,
                                                                     kAudioUnitScope_Global, 1, &input,
                                                                     sizeof(AURenderCallbackStruct)));
    if (err != noErr) return fail("Could not set capture callback");

    UInt32 flag = 0;
    err = logged("ShouldAllocateBuffer(output, 1) = 0", AudioUnitSetProperty(mAudioUnit,
                                                                             kAudioUnitProperty_ShouldAllocateBuffer,
                                                                             kAudioUnitScope_Output, 1, &flag,
                                                                             sizeof(flag)));
    if (err != noErr) return fail("Could not disable buffer allocation property");

    err = logged("AudioUnitInitialize", AudioUnitInitialize(mAudioUnit));
    if (err != noErr) return fail("Could not initialize audio unit");

    AudioStreamBasicDescription hardwareFormat;
    memset(&hardwareFormat, 0, sizeof hardwareFormat);
    UInt32 propertySize = sizeof(hardwareFormat);
    err = logged("Get StreamFormat(input, 1)", AudioUnitGetProperty(mAudioUnit, kAudioUnitProperty_StreamFormat,
                                                                    kAudioUnitScope_Input, 1, &hardwareFormat,
                                                                    &propertySize));
    if (err != noErr || propertySize != sizeof(hardwareFormat)) return fail("Could not get input format");
    st.hardware_format = hardwareFormat;

    /* DevFmtShort, DevFmtMono */
    AudioStreamBasicDescription requestedFormat;
    memset(&requestedFormat, 0, sizeof requestedFormat);
    requestedFormat.mFormatFlags = kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked;
    requestedFormat.mFormatFlags |= kAudioFormatFlagIsSignedInteger;
    requestedFormat.mBitsPerChannel = 16;
    requestedFormat.mChannelsPerFrame = 1;
    requestedFormat.mBytesPerFrame = requestedFormat.mChannelsPerFrame * requestedFormat.mBitsPerChannel / 8;
    requestedFormat.mBytesPerPacket = requestedFormat.mBytesPerFrame;
    requestedFormat.mSampleRate = device_rate;
    requestedFormat.mFormatID = kAudioFormatLinearPCM;
    requestedFormat.mReserved = 0;
    requestedFormat.mFramesPerPacket = 1;

    mFormat = requestedFormat;
    mFrameSize = 2;

    /* The requested format at the hardware's rate: OpenAL converts the rate itself. */
    AudioStreamBasicDescription outputFormat = requestedFormat;
    outputFormat.mSampleRate = hardwareFormat.mSampleRate;
    st.output_format = outputFormat;
    err = logged("StreamFormat(output, 1) after AudioUnitInitialize",
                 AudioUnitSetProperty(mAudioUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1,
                                      &outputFormat, sizeof(outputFormat)));
    if (err != noErr) return fail("Could not set input format");

    /* The ring: the app's buffer at the hardware's rate, at least 100 ms. */
    double srateScale = outputFormat.mSampleRate / device_rate;
    unsigned long FrameCount64 = (unsigned long)ceil(device_buffer * srateScale);
    if (FrameCount64 < (unsigned long)outputFormat.mSampleRate / 10) FrameCount64 = (unsigned long)outputFormat.mSampleRate / 10;
    FrameCount64 += MaxResamplerPadding;

    UInt32 outputFrameCount = 0;
    propertySize = sizeof(outputFrameCount);
    err = logged("Get MaximumFramesPerSlice(global, 0)",
                 AudioUnitGetProperty(mAudioUnit, kAudioUnitProperty_MaximumFramesPerSlice, kAudioUnitScope_Global, 0,
                                      &outputFrameCount, &propertySize));
    if (err != noErr || propertySize != sizeof(outputFrameCount)) return fail("Could not get input frame count");
    st.max_frames_per_slice = outputFrameCount;

    mCaptureDataSize = (size_t)outputFrameCount * mFrameSize;
    mCaptureData = (short *)malloc(mCaptureDataSize);
    ring_frames = outputFrameCount > FrameCount64 ? outputFrameCount : FrameCount64;
    ring = (short *)malloc(ring_frames * sizeof(short));
    ring_write = ring_read = 0;

    st.converting = outputFormat.mSampleRate != device_rate;
    conv_step = outputFormat.mSampleRate / device_rate;
    conv_frac = 0;
    conv_prev = 0;
    return 0;
}

int oac_capture_start(void)
{
    OSStatus err = logged("AudioOutputUnitStart", AudioOutputUnitStart(mAudioUnit));
    if (err != noErr) {
        st.error = "AudioOutputUnitStart failed";
        return -1;
    }
    return 0;
}

void oac_capture_stop(void) { logged("AudioOutputUnitStop", AudioOutputUnitStop(mAudioUnit)); }

void oac_capture_close(void)
{
    if (mAudioUnit) logged("AudioComponentInstanceDispose", AudioComponentInstanceDispose(mAudioUnit));
    mAudioUnit = NULL;
    free(mCaptureData);
    free(ring);
    mCaptureData = NULL;
    ring = NULL;
}

unsigned oac_capture_available(void)
{
    unsigned long in = ring_readable();
    if (!st.converting) return (unsigned)in;
    if ((double)in <= conv_frac) return 0;
    return (unsigned)ceil(((double)in - conv_frac) / conv_step);
}

void oac_capture_samples(short *out, unsigned frames)
{
    unsigned long r = __atomic_load_n(&ring_read, __ATOMIC_RELAXED);
    if (!st.converting) {
        for (unsigned i = 0; i < frames; i++) out[i] = ring[(r + i) % ring_frames];
        __atomic_store_n(&ring_read, r + frames, __ATOMIC_RELEASE);
        return;
    }
    for (unsigned i = 0; i < frames; i++) {
        double x = conv_frac;
        while (x >= 1) {
            conv_prev = ring[r++ % ring_frames];
            x -= 1;
        }
        short next = ring[r % ring_frames];
        out[i] = (short)lrint(conv_prev + (next - conv_prev) * x);
        conv_frac = x + conv_step;
    }
    __atomic_store_n(&ring_read, r, __ATOMIC_RELEASE);
}

const oac_status *oac_get_status(void) { return &st; }

AudioUnit oac_capture_unit(void) { return mAudioUnit; }
