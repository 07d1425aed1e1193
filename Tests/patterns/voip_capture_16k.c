/*
 * A VoIP stack's 16 kHz iPhone sound device, in the calls and the order its authors made
 * them (our own code; the stacks' queues, pools and threads replaced by plain C):
 *
 *   VC_MS2_INPUT_CALLBACK: BelledonneCommunications/mediastreamer2, src/msiounit.c at
 *     commit 8246ab7a (2012-04-02, the last C version; msiounit.m/.mm keep the same unit
 *     calls, HEAD 62d456a1 included). au_init: AudioSessionInitialize(NULL...). The read
 *     filter's preprocess: SetActive(true), category PlayAndRecord, a VoiceProcessingIO
 *     instance, PreferredHardwareIOBufferDuration 15 ms, SetInputCallback on the INPUT
 *     scope of element 0 (as mediastreamer2 has always done). The write filter's
 *     preprocess: CurrentHardwareSampleRate (PreferredHardwareSampleRate = 16000 when it
 *     differs), EnableIO output 0 and input 1, StreamFormat output 1 and input 0 (16 kHz
 *     mono SInt16, mReserved left unset), ShouldAllocateBuffer(output, 0) = 0, the render
 *     callback. Start: AudioUnitInitialize, Latency, RenderQuality, the hardware's
 *     latencies, IO buffer and rate, AudioOutputUnitStart. Its read callback renders into
 *     a buffer of its own with its own copy of the time stamp. Stop: Uninitialize, THEN
 *     AudioOutputUnitStop, the callbacks removed, Dispose, SetActive(false).
 *   VC_MS2_RENDER_CALLBACK: the same unit set up the same way, but no input callback:
 *     the render callback calls AudioUnitRender(unit, flags, ts, 1, frames, list) first
 *     (the play-through shape of the iPhone sample code) and then plays the far end.
 *   VC_PJ_INPUT_CALLBACK: pjsip/pjproject, pjmedia/src/pjmedia-audiodev/coreaudio_dev.c
 *     at commit ecca2c271 (2013-09, the last .c with the Audio Session API). Factory:
 *     FindNext(RemoteIO), AudioSessionInitialize(interruption listener). Stream (16 kHz,
 *     320 samples a frame, EC off: RemoteIO): category PlayAndRecord, InstanceNew, EnableIO
 *     input 1 and output 0, StreamFormat output 1 and input 0, render callback, input
 *     callback (global, element 0), AudioUnitInitialize; start: SetActive(true),
 *     AudioOutputUnitStart. Its input callback renders with mData NULL (the unit's
 *     buffer) and mDataByteSize = frames * channels, as pjproject wrote it.
 */
#include "voip_capture_16k.h"
#include <string.h>

static vc_status st;
static int variant;
static unsigned clock_rate;
static AudioUnit io_unit;
static short capture[VC_CAPTURE_MAX];
static int read_started;

static OSStatus logged(const char *call, OSStatus result)
{
    if (st.calls < VC_MAX_CALLS) {
        st.call[st.calls] = call;
        st.result[st.calls] = result;
        st.calls++;
    }
    return result;
}

static void deliver(const short *samples, UInt32 count)
{
    for (UInt32 i = 0; i < count; i++) {
        long n = st.captured_frames + (long)i;
        if (n < VC_CAPTURE_MAX) capture[n] = samples[i];
    }
    st.captured_frames += count;
}

static void render_failed(OSStatus err)
{
    if (st.render_errors++ == 0) st.first_render_error = err;
}

static void note_render_frames(UInt32 frames)
{
    if (st.min_render_frames == 0 || frames < st.min_render_frames) st.min_render_frames = frames;
    if (frames > st.max_render_frames) st.max_render_frames = frames;
}

/* ---- mediastreamer2 msiounit.c ------------------------------------------------------- */

static AudioUnitElement inputBus = 1;
static AudioUnitElement outputBus = 0;
static AudioTimeStamp readTimeStamp;
static unsigned card_bits = 16, card_nchannels = 1;

static OSStatus au_read_cb(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                           const AudioTimeStamp *inTimeStamp, UInt32 inBusNumber, UInt32 inNumberFrames,
                           AudioBufferList *ioData)
{
    static short rm[8192];
    OSStatus err = 0;
    AudioBufferList readAudioBufferList;
    (void)inRefCon;
    (void)ioData;
    st.input_calls++;
    if (readTimeStamp.mSampleTime < 0) readTimeStamp = *inTimeStamp;
    readAudioBufferList.mBuffers[0].mDataByteSize = inNumberFrames * card_bits / 8;
    readAudioBufferList.mNumberBuffers = 1;
    readAudioBufferList.mBuffers[0].mNumberChannels = card_nchannels;
    if (read_started) {
        if (inNumberFrames > 8192) return noErr;
        readAudioBufferList.mBuffers[0].mData = rm;
        err = AudioUnitRender(io_unit, ioActionFlags, &readTimeStamp, inBusNumber, inNumberFrames,
                              &readAudioBufferList);
        if (err == 0) {
            deliver(rm, readAudioBufferList.mBuffers[0].mDataByteSize / 2);
            readTimeStamp.mSampleTime += readAudioBufferList.mBuffers[0].mDataByteSize / (card_bits / 2);
        } else {
            render_failed(err);
        }
    }
    return err;
}

static OSStatus au_write_cb(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                            const AudioTimeStamp *inTimeStamp, UInt32 inBusNumber, UInt32 inNumberFrames,
                            AudioBufferList *ioData)
{
    (void)inRefCon;
    (void)inBusNumber;
    st.render_calls++;
    note_render_frames(inNumberFrames);
    if (variant == VC_MS2_RENDER_CALLBACK) {
        /* play-through: the microphone's frames of this period, pulled from here */
        static short mic[8192];
        AudioBufferList list;
        if (inNumberFrames <= 8192) {
            list.mNumberBuffers = 1;
            list.mBuffers[0].mNumberChannels = 1;
            list.mBuffers[0].mDataByteSize = inNumberFrames * card_bits / 8;
            list.mBuffers[0].mData = mic;
            OSStatus err = AudioUnitRender(io_unit, ioActionFlags, inTimeStamp, 1, inNumberFrames, &list);
            if (err == noErr) deliver(mic, list.mBuffers[0].mDataByteSize / 2);
            else render_failed(err);
        }
    }
    ioData->mBuffers[0].mDataByteSize = inNumberFrames * card_bits / 8;
    ioData->mNumberBuffers = 1;
    /* the bufferizer holds no far-end audio: silence */
    memset(ioData->mBuffers[0].mData, 0, ioData->mBuffers[0].mDataByteSize);
    st.lost_frames += inNumberFrames;
    st.played_frames += inNumberFrames;
    return 0;
}

static void ms2_create_io_unit(void)
{
    AudioComponentDescription au_description;
    au_description.componentType = kAudioUnitType_Output;
    au_description.componentSubType = kAudioUnitSubType_VoiceProcessingIO;
    au_description.componentManufacturer = kAudioUnitManufacturer_Apple;
    au_description.componentFlags = 0;
    au_description.componentFlagsMask = 0;
    AudioComponent foundComponent = AudioComponentFindNext(NULL, &au_description);
    logged("AudioComponentInstanceNew", AudioComponentInstanceNew(foundComponent, &io_unit));
}

static void ms2_configure_audio_session(void)
{
    UInt32 audioCategory = kAudioSessionCategory_PlayAndRecord;
    logged("AudioSessionSetActive(true)", AudioSessionSetActive(true));
    logged("AudioCategory PlayAndRecord",
           AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(audioCategory), &audioCategory));
}

static void ms2_read_preprocess(void)
{
    ms2_configure_audio_session();
    if (!io_unit) ms2_create_io_unit();
    Float32 preferredBufferSize = clock_rate == 11025 || clock_rate == 22050 ? .020f : .015f;
    logged("PreferredHardwareIOBufferDuration",
           AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration,
                                   sizeof(preferredBufferSize), &preferredBufferSize));
    if (variant == VC_MS2_RENDER_CALLBACK) return; /* the play-through shape has no input callback */
    AURenderCallbackStruct renderCallbackStruct;
    renderCallbackStruct.inputProc = au_read_cb;
    renderCallbackStruct.inputProcRefCon = NULL;
    logged("SetInputCallback(input scope, element 0)",
           AudioUnitSetProperty(io_unit, kAudioOutputUnitProperty_SetInputCallback, kAudioUnitScope_Input, outputBus,
                                &renderCallbackStruct, sizeof(renderCallbackStruct)));
}

static void ms2_write_preprocess(void)
{
    AudioStreamBasicDescription audioFormat; /* mReserved is not set, as in msiounit */
    UInt32 doNotSetProperty = 0, doSetProperty = 1;
    Float64 hwsamplerate;
    UInt32 hwsamplerateSize = sizeof(hwsamplerate);

    audioFormat.mSampleRate = clock_rate;
    audioFormat.mFormatID = kAudioFormatLinearPCM;
    audioFormat.mFormatFlags = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked;
    audioFormat.mFramesPerPacket = 1;
    audioFormat.mChannelsPerFrame = card_nchannels;
    audioFormat.mBitsPerChannel = card_bits;
    audioFormat.mBytesPerPacket = card_bits / 8;
    audioFormat.mBytesPerFrame = card_nchannels * card_bits / 8;

    logged("Get CurrentHardwareSampleRate",
           AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &hwsamplerateSize, &hwsamplerate));
    if (hwsamplerate != clock_rate) {
        hwsamplerate = clock_rate;
        logged("PreferredHardwareSampleRate",
               AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof(hwsamplerate),
                                       &hwsamplerate));
    }
    logged("EnableIO(output, 0)", AudioUnitSetProperty(io_unit, kAudioOutputUnitProperty_EnableIO,
                                                       kAudioUnitScope_Output, outputBus, &doSetProperty,
                                                       sizeof(doSetProperty)));
    logged("EnableIO(input, 1)", AudioUnitSetProperty(io_unit, kAudioOutputUnitProperty_EnableIO,
                                                      kAudioUnitScope_Input, inputBus, &doSetProperty,
                                                      sizeof(doSetProperty)));
    logged("StreamFormat(output, 1)", AudioUnitSetProperty(io_unit, kAudioUnitProperty_StreamFormat,
                                                           kAudioUnitScope_Output, inputBus, &audioFormat,
                                                           sizeof(audioFormat)));
    logged("StreamFormat(input, 0)", AudioUnitSetProperty(io_unit, kAudioUnitProperty_StreamFormat,
                                                          kAudioUnitScope_Input, outputBus, &audioFormat,
                                                          sizeof(audioFormat)));
    logged("ShouldAllocateBuffer(output, 0)", AudioUnitSetProperty(io_unit, kAudioUnitProperty_ShouldAllocateBuffer,
                                                                   kAudioUnitScope_Output, outputBus,
                                                                   &doNotSetProperty, sizeof(doNotSetProperty)));
    AURenderCallbackStruct renderCallbackStruct;
    renderCallbackStruct.inputProc = au_write_cb;
    renderCallbackStruct.inputProcRefCon = NULL;
    logged("SetRenderCallback(input, 0)", AudioUnitSetProperty(io_unit, kAudioUnitProperty_SetRenderCallback,
                                                               kAudioUnitScope_Input, outputBus,
                                                               &renderCallbackStruct, sizeof(renderCallbackStruct)));
}

static int ms2_start_audio_unit(void)
{
    UInt32 size;
    logged("AudioUnitInitialize", AudioUnitInitialize(io_unit));
    size = sizeof(st.unit_latency);
    logged("Get Latency", AudioUnitGetProperty(io_unit, kAudioUnitProperty_Latency, kAudioUnitScope_Global, 0,
                                               &st.unit_latency, &size));
    size = sizeof(st.render_quality);
    logged("Get RenderQuality", AudioUnitGetProperty(io_unit, kAudioUnitProperty_RenderQuality, kAudioUnitScope_Global,
                                                     0, &st.render_quality, &size));
    Float32 hwoutputlatency, hwinputlatency;
    size = sizeof(hwoutputlatency);
    logged("Get CurrentHardwareOutputLatency",
           AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputLatency, &size, &hwoutputlatency));
    size = sizeof(hwinputlatency);
    logged("Get CurrentHardwareInputLatency",
           AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareInputLatency, &size, &hwinputlatency));
    size = sizeof(st.io_buffer);
    logged("Get CurrentHardwareIOBufferDuration",
           AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareIOBufferDuration, &size, &st.io_buffer));
    size = sizeof(st.hardware_rate);
    logged("Get CurrentHardwareSampleRate",
           AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &st.hardware_rate));
    OSStatus auresult = logged("AudioOutputUnitStart", AudioOutputUnitStart(io_unit));
    read_started = auresult == 0; /* the read filter's next tick */
    return (int)auresult;
}

static void ms2_stop(void)
{
    AURenderCallbackStruct none = {NULL, NULL};
    read_started = 0;
    if (variant != VC_MS2_RENDER_CALLBACK)
        logged("remove the input callback", AudioUnitSetProperty(io_unit, kAudioOutputUnitProperty_SetInputCallback,
                                                                 kAudioUnitScope_Input, outputBus, &none,
                                                                 sizeof(none)));
    logged("AudioUnitUninitialize", AudioUnitUninitialize(io_unit));
    logged("AudioOutputUnitStop", AudioOutputUnitStop(io_unit));
    logged("remove the render callback", AudioUnitSetProperty(io_unit, kAudioUnitProperty_SetRenderCallback,
                                                              kAudioUnitScope_Input, outputBus, &none, sizeof(none)));
    logged("AudioComponentInstanceDispose", AudioComponentInstanceDispose(io_unit));
    io_unit = NULL;
    logged("AudioSessionSetActive(false)", AudioSessionSetActive(false));
}

/* ---- pjproject coreaudio_dev.c ------------------------------------------------------- */

#define PJ_SAMPLES_PER_FRAME 320 /* 20 ms at 16 kHz, mono */
static AudioComponent pj_io_comp;
static AudioStreamBasicDescription streamFormat;
static struct {
    UInt32 mNumberBuffers;
    AudioBuffer mBuffers[2];
} pj_audio_buf;
static short rec_buf[PJ_SAMPLES_PER_FRAME];
static unsigned rec_buf_count;

static void interruptionListener(void *inClientData, UInt32 inInterruption)
{
    (void)inClientData;
    (void)inInterruption;
}

static void rec_cb(const short *frame) { deliver(frame, PJ_SAMPLES_PER_FRAME); }

static OSStatus input_callback(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                               const AudioTimeStamp *inTimeStamp, UInt32 inBusNumber, UInt32 inNumberFrames,
                               AudioBufferList *ioData)
{
    AudioBufferList *buf = (AudioBufferList *)(void *)&pj_audio_buf;
    (void)inRefCon;
    (void)ioData;
    st.input_calls++;
    buf->mBuffers[0].mData = NULL;
    buf->mBuffers[0].mDataByteSize = inNumberFrames * streamFormat.mChannelsPerFrame;
    OSStatus ostatus = AudioUnitRender(io_unit, ioActionFlags, inTimeStamp, inBusNumber, inNumberFrames, buf);
    if (ostatus != noErr) {
        render_failed(ostatus);
        return -1;
    }
    const short *input = (const short *)buf->mBuffers[0].mData;
    unsigned nsamples = inNumberFrames * 1 + rec_buf_count;
    if (nsamples >= PJ_SAMPLES_PER_FRAME) {
        if (rec_buf_count) {
            unsigned chunk_count = PJ_SAMPLES_PER_FRAME - rec_buf_count;
            memcpy(rec_buf + rec_buf_count, input, chunk_count * sizeof(short));
            rec_cb(rec_buf);
            input += chunk_count;
            nsamples -= PJ_SAMPLES_PER_FRAME;
            rec_buf_count = 0;
        }
        while (nsamples >= PJ_SAMPLES_PER_FRAME) {
            rec_cb(input);
            input += PJ_SAMPLES_PER_FRAME;
            nsamples -= PJ_SAMPLES_PER_FRAME;
        }
        if (nsamples) {
            rec_buf_count = nsamples;
            memcpy(rec_buf, input, nsamples * sizeof(short));
        }
    } else {
        memcpy(rec_buf + rec_buf_count, input, inNumberFrames * sizeof(short));
        rec_buf_count += inNumberFrames;
    }
    return noErr;
}

static OSStatus output_renderer(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                                const AudioTimeStamp *inTimeStamp, UInt32 inBusNumber, UInt32 inNumberFrames,
                                AudioBufferList *ioData)
{
    (void)inRefCon;
    (void)ioActionFlags;
    (void)inTimeStamp;
    (void)inBusNumber;
    st.render_calls++;
    note_render_frames(inNumberFrames);
    /* the conference bridge has no far end: its frames are not audio, zeroed */
    memset(ioData->mBuffers[0].mData, 0, inNumberFrames * sizeof(short));
    st.lost_frames += inNumberFrames;
    st.played_frames += inNumberFrames;
    return noErr;
}

static int pj_factory_init(void)
{
    AudioComponentDescription desc;
    desc.componentType = kAudioUnitType_Output;
    desc.componentSubType = kAudioUnitSubType_RemoteIO;
    desc.componentManufacturer = kAudioUnitManufacturer_Apple;
    desc.componentFlags = 0;
    desc.componentFlagsMask = 0;
    pj_io_comp = AudioComponentFindNext(NULL, &desc);
    if (pj_io_comp == NULL) return -1;
    /* a second factory init in one process gets AlreadyInitialized: only logged */
    OSStatus ostatus = AudioSessionInitialize(NULL, NULL, interruptionListener, NULL);
    logged("AudioSessionInitialize", ostatus == kAudioSessionAlreadyInitialized ? noErr : ostatus);
    return 0;
}

static int pj_create_stream(void)
{
    memset(&streamFormat, 0, sizeof streamFormat); /* the stream is pool-zalloc'ed */
    streamFormat.mSampleRate = clock_rate;
    streamFormat.mFormatID = kAudioFormatLinearPCM;
    streamFormat.mFormatFlags = kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked;
    streamFormat.mBitsPerChannel = 16;
    streamFormat.mChannelsPerFrame = 1;
    streamFormat.mBytesPerFrame = streamFormat.mChannelsPerFrame * 16 >> 3;
    streamFormat.mFramesPerPacket = 1;
    streamFormat.mBytesPerPacket = streamFormat.mBytesPerFrame * streamFormat.mFramesPerPacket;

    /* PJMEDIA_AUD_DEV_CAP_EC off: RemoteIO */
    AudioComponentDescription desc;
    desc.componentType = kAudioUnitType_Output;
    desc.componentSubType = kAudioUnitSubType_RemoteIO;
    desc.componentManufacturer = kAudioUnitManufacturer_Apple;
    desc.componentFlags = 0;
    desc.componentFlagsMask = 0;
    pj_io_comp = AudioComponentFindNext(NULL, &desc);

    /* create_audio_unit(PJMEDIA_DIR_CAPTURE_PLAYBACK) */
    UInt32 audioCategory = kAudioSessionCategory_PlayAndRecord;
    logged("AudioCategory PlayAndRecord",
           AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(audioCategory), &audioCategory));
    OSStatus ostatus = logged("AudioComponentInstanceNew", AudioComponentInstanceNew(pj_io_comp, &io_unit));
    if (ostatus != noErr) return (int)ostatus;
    UInt32 enable = 1;
    logged("EnableIO(input, 1)", AudioUnitSetProperty(io_unit, kAudioOutputUnitProperty_EnableIO,
                                                      kAudioUnitScope_Input, 1, &enable, sizeof(enable)));
    enable = 1;
    logged("EnableIO(output, 0)", AudioUnitSetProperty(io_unit, kAudioOutputUnitProperty_EnableIO,
                                                       kAudioUnitScope_Output, 0, &enable, sizeof(enable)));
    ostatus = logged("StreamFormat(output, 1)", AudioUnitSetProperty(io_unit, kAudioUnitProperty_StreamFormat,
                                                                     kAudioUnitScope_Output, 1, &streamFormat,
                                                                     sizeof(streamFormat)));
    if (ostatus != noErr) return (int)ostatus;
    logged("StreamFormat(input, 0)", AudioUnitSetProperty(io_unit, kAudioUnitProperty_StreamFormat,
                                                          kAudioUnitScope_Input, 0, &streamFormat,
                                                          sizeof(streamFormat)));
    AURenderCallbackStruct output_cb = {output_renderer, NULL};
    ostatus = logged("SetRenderCallback(input, 0)", AudioUnitSetProperty(io_unit, kAudioUnitProperty_SetRenderCallback,
                                                                         kAudioUnitScope_Input, 0, &output_cb,
                                                                         sizeof(output_cb)));
    if (ostatus != noErr) return (int)ostatus;
    AURenderCallbackStruct input_cb = {input_callback, NULL};
    ostatus = logged("SetInputCallback(global, 0)", AudioUnitSetProperty(io_unit,
                                                                         kAudioOutputUnitProperty_SetInputCallback,
                                                                         kAudioUnitScope_Global, 0, &input_cb,
                                                                         sizeof(input_cb)));
    if (ostatus != noErr) return (int)ostatus;
    pj_audio_buf.mNumberBuffers = 1;
    pj_audio_buf.mBuffers[0].mNumberChannels = streamFormat.mChannelsPerFrame;
    rec_buf_count = 0;
    return (int)logged("AudioUnitInitialize", AudioUnitInitialize(io_unit));
}

static int pj_stream_start(void)
{
    logged("AudioSessionSetActive(true)", AudioSessionSetActive(true)); /* not checked by pjproject */
    return (int)logged("AudioOutputUnitStart", AudioOutputUnitStart(io_unit));
}

static void pj_stream_destroy(void)
{
    logged("AudioOutputUnitStop", AudioOutputUnitStop(io_unit));
    logged("AudioSessionSetActive(false)", AudioSessionSetActive(false)); /* not checked by pjproject */
    logged("AudioUnitUninitialize", AudioUnitUninitialize(io_unit));
    logged("AudioComponentInstanceDispose", AudioComponentInstanceDispose(io_unit));
    io_unit = NULL;
}

/* ---- the module's interface ---------------------------------------------------------- */

int vc_open(int which, int rate)
{
    memset((void *)&st, 0, sizeof st);
    variant = which;
    clock_rate = (unsigned)rate;
    io_unit = NULL;
    read_started = 0;
    readTimeStamp.mSampleTime = -1;
    if (variant == VC_PJ_INPUT_CALLBACK) {
        if (pj_factory_init() != 0) return -1;
        return pj_create_stream();
    }
    /* au_init */
    OSStatus init = AudioSessionInitialize(NULL, NULL, NULL, NULL);
    logged("AudioSessionInitialize", init == kAudioSessionAlreadyInitialized ? noErr : init);
    ms2_read_preprocess();
    ms2_write_preprocess();
    return 0; /* msiounit logs failures and goes on */
}

int vc_start(void)
{
    if (variant == VC_PJ_INPUT_CALLBACK) return pj_stream_start();
    return ms2_start_audio_unit();
}

void vc_close(void)
{
    if (variant == VC_PJ_INPUT_CALLBACK) pj_stream_destroy();
    else ms2_stop();
}

const vc_status *vc_get_status(void) { return &st; }

long vc_copy_capture(short *out, long max)
{
    long have = st.captured_frames < VC_CAPTURE_MAX ? st.captured_frames : VC_CAPTURE_MAX;
    if (have > max) have = max;
    memcpy(out, capture, (size_t)have * sizeof(short));
    return have;
}
