/*
 * baresip's "audiounit" sound driver for iOS, rewritten here in the calls and the order
 * baresip makes them (our own code; baresip's mem/list/mutex helpers replaced by libc):
 *
 *   baresip/baresip, modules/audiounit/{audiounit.c,sess.c,player.c,recorder.c} at commit
 *   55914b0cd128c439a75a09afa9bf1e8521b17187 (2024-07, the last one with the iOS Audio
 *   Session handling; the unit calls are the same at HEAD 044dd4e3), and for
 *   bau_recorder_v060_alloc, modules/audiounit/recorder.c at tag v0.6.0
 *   (0e81ae980922d3f030b34867434565888ce56702), the recorder before the AUConverter
 *   resampler was added (43d17f56, 2019).
 *
 * What the order is:
 *   module_init: AudioSessionInitialize(interruption listener), FindNext(VoiceProcessingIO),
 *     CopyName, FindNext(FormatConverter/AUConverter), CopyName; a missing one: ENOENT.
 *   audiosess_alloc (per player/recorder): category PlayAndRecord; the first one also
 *     SetActive(true) and a route-change listener.
 *   player: InstanceNew, EnableIO(output, 0)=1, AudioUnitInitialize, THEN
 *     StreamFormat(input, 0), SetRenderCallback(input, 0), AudioOutputUnitStart,
 *     GetProperty(SampleRate, output, 0).
 *   recorder: InstanceNew, EnableIO(input, 1)=1, StreamFormat(output, 1) at the call's rate
 *     (on iOS the "hardware" rate is taken to be the call's), AudioUnitInitialize,
 *     SetInputCallback(global, 1), InstanceNew(AUConverter), its formats and render
 *     callback, its Initialize, AudioOutputUnitStart(io unit). Its input callback renders
 *     element 1 into a buffer of its own, then pulls the converter.
 *   recorder 0.6.0: the same io unit calls, no converter, then GetProperty(SampleRate,
 *     input, 1); its input callback renders element 1 with mData NULL (the unit's buffer).
 */
#include <AudioUnit/AudioUnit.h>
#include <AudioToolbox/AudioToolbox.h>
#include <TargetConditionals.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "baresip_audiounit.h"

#define MAX_NB_FRAMES 4096
#define AUDIO_TIMEBASE 1000000U

static struct bau_log lg;

static void warning(const char *call, OSStatus ret)
{
    lg.last_ret = ret;
    lg.last_call = call;
}

/* ---- audiounit.c ----------------------------------------------------------------- */

static AudioComponent audiounit_comp_io;
static AudioComponent audiounit_comp_conv;

/* The recorder's double buffer between the io unit and the converter. */
struct conv_buf {
    void *mem[2];
    uint8_t mem_idx;
    uint32_t nb_frames;
};

static int conv_buf_alloc(struct conv_buf **bufp, size_t framesz)
{
    struct conv_buf *buf = (struct conv_buf *)calloc(1, sizeof(*buf));
    if (!buf) return ENOMEM;
    buf->mem[0] = malloc(MAX_NB_FRAMES * framesz);
    buf->mem[1] = malloc(MAX_NB_FRAMES * framesz);
    *bufp = buf;
    return 0;
}

static void conv_buf_free(struct conv_buf *buf)
{
    if (!buf) return;
    free(buf->mem[0]);
    free(buf->mem[1]);
    free(buf);
}

/* Where the next nb_frames go: appended after what the buffer holds. */
static OSStatus init_data_write(struct conv_buf *buf, void **data, size_t framesz, uint32_t nb_frames)
{
    if (buf->nb_frames + nb_frames > MAX_NB_FRAMES) return kAudioUnitErr_TooManyFramesToProcess;
    *data = (uint8_t *)buf->mem[buf->mem_idx] + buf->nb_frames * framesz;
    buf->nb_frames += nb_frames;
    return noErr;
}

/* The oldest nb_frames; the rest moves to the other half, which becomes current. */
static OSStatus init_data_read(struct conv_buf *buf, void **data, size_t framesz, uint32_t nb_frames)
{
    uint8_t idx = buf->mem_idx;
    if (buf->nb_frames < nb_frames) return kAudioUnitErr_TooManyFramesToProcess;
    *data = buf->mem[idx];
    uint32_t rest = buf->nb_frames - nb_frames;
    memcpy(buf->mem[(idx + 1) % 2], (uint8_t *)buf->mem[idx] + nb_frames * framesz, rest * framesz);
    buf->mem_idx = (uint8_t)((idx + 1) % 2);
    buf->nb_frames = rest;
    return noErr;
}

static uint32_t aufmt_to_formatflags(int fmt)
{
    switch (fmt) {
    case BAU_AUFMT_S16LE: return kLinearPCMFormatFlagIsSignedInteger;
    case BAU_AUFMT_FLOAT: return kLinearPCMFormatFlagIsFloat;
    default: return 0;
    }
}

static size_t aufmt_sample_size(int fmt)
{
    return fmt == BAU_AUFMT_S16LE ? 2 : fmt == BAU_AUFMT_FLOAT ? 4 : 0;
}

static void audiosess_interrupt(bool interrupted);

static void interruptionListener(void *data, UInt32 inInterruptionState)
{
    (void)data;
    if (inInterruptionState == kAudioSessionBeginInterruption) {
        lg.interruptions_begin++;
        audiosess_interrupt(true);
    } else if (inInterruptionState == kAudioSessionEndInterruption) {
        lg.interruptions_end++;
        audiosess_interrupt(false);
    }
}

static void copy_name(AudioComponent comp, char *out, size_t size)
{
    CFStringRef name = NULL;
    if (AudioComponentCopyName(comp, &name) == 0 && name) {
        const char *text = CFStringGetCStringPtr(name, kCFStringEncodingUTF8);
        if (text) snprintf(out, size, "%s", text);
        else CFStringGetCString(name, out, (CFIndex)size, kCFStringEncodingUTF8);
        CFRelease(name);
    }
}

int bau_module_init(void)
{
    AudioComponentDescription desc;
    OSStatus ret;

    ret = AudioSessionInitialize(NULL, NULL, interruptionListener, 0);
    if (ret && ret != kAudioSessionAlreadyInitialized) {
        warning("AudioSessionInitialize", ret);
        return ENODEV;
    }

    desc.componentType = kAudioUnitType_Output;
    desc.componentSubType = kAudioUnitSubType_VoiceProcessingIO;
    desc.componentManufacturer = kAudioUnitManufacturer_Apple;
    desc.componentFlags = 0;
    desc.componentFlagsMask = 0;
    audiounit_comp_io = AudioComponentFindNext(NULL, &desc);
    lg.io_found = audiounit_comp_io != NULL;
    if (!audiounit_comp_io) return ENOENT; /* "Voice Processing I/O not found" */
    copy_name(audiounit_comp_io, lg.io_name, sizeof lg.io_name);

    desc.componentType = kAudioUnitType_FormatConverter;
    desc.componentSubType = kAudioUnitSubType_AUConverter;
    desc.componentManufacturer = kAudioUnitManufacturer_Apple;
    desc.componentFlags = 0;
    desc.componentFlagsMask = 0;
    audiounit_comp_conv = AudioComponentFindNext(NULL, &desc);
    lg.conv_found = audiounit_comp_conv != NULL;
    if (!audiounit_comp_conv) return ENOENT; /* "AU Converter not found" */
    copy_name(audiounit_comp_conv, lg.conv_name, sizeof lg.conv_name);

    /* auplay_register / ausrc_register */
    return 0;
}

void bau_module_close(void) {}

const struct bau_log *bau_get_log(void) { return &lg; }

/* ---- sess.c ---------------------------------------------------------------------- */

typedef void(audiosess_int_h)(bool interrupted, void *arg);

struct audiosess_st {
    struct audiosess_st *next;
    audiosess_int_h *inth;
    void *arg;
};

static struct audiosess {
    int refs;
    struct audiosess_st *sessl;
} *gas;

static void propListener(void *inClientData, AudioSessionPropertyID inID, UInt32 inDataSize, const void *inData)
{
    CFDictionaryRef dref = (CFDictionaryRef)inData;
    SInt32 reason = 0;
    (void)inClientData;
    (void)inDataSize;
    if (kAudioSessionProperty_AudioRouteChange != inID) return;
    CFNumberRef nref = (CFNumberRef)CFDictionaryGetValue(dref, CFSTR(kAudioSession_AudioRouteChangeKey_Reason));
    CFNumberGetValue(nref, kCFNumberSInt32Type, &reason);
    lg.route_changes++; /* "AudioRouteChange - reason %d" */
}

static int audiosess_alloc(struct audiosess_st **stp, audiosess_int_h *inth, void *arg)
{
    AudioSessionPropertyID id = kAudioSessionProperty_AudioRouteChange;
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    OSStatus ret;

    /* Must be done for all modules */
    ret = AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(category), &category);
    if (ret) {
        warning("AudioSessionSetProperty(AudioCategory)", ret);
        return EINVAL;
    }
    if (!gas) {
        struct audiosess *as = (struct audiosess *)calloc(1, sizeof(*as));
        if (!as) return ENOMEM;
        ret = AudioSessionSetActive(true);
        if (ret) {
            warning("AudioSessionSetActive", ret);
            free(as);
            return ENOTSUP;
        }
        ret = AudioSessionAddPropertyListener(id, propListener, as);
        if (ret) {
            warning("AudioSessionAddPropertyListener", ret);
            free(as);
            return EINVAL;
        }
        gas = as;
    }
    struct audiosess_st *st = (struct audiosess_st *)calloc(1, sizeof(*st));
    if (!st) return ENOMEM;
    st->inth = inth;
    st->arg = arg;
    st->next = gas->sessl;
    gas->sessl = st;
    gas->refs++;
    *stp = st;
    return 0;
}

static void audiosess_free(struct audiosess_st *st)
{
    if (!st || !gas) return;
    for (struct audiosess_st **p = &gas->sessl; *p; p = &(*p)->next)
        if (*p == st) { *p = st->next; break; }
    free(st);
    if (--gas->refs == 0) {
        AudioSessionRemovePropertyListenerWithUserData(kAudioSessionProperty_AudioRouteChange, propListener, gas);
        AudioSessionSetActive(false);
        free(gas);
        gas = NULL;
    }
}

static void audiosess_interrupt(bool interrupted)
{
    if (!gas) return;
    for (struct audiosess_st *st = gas->sessl; st; st = st->next)
        if (st->inth) st->inth(interrupted, st->arg);
}

/* ---- player.c -------------------------------------------------------------------- */

struct bau_player {
    struct audiosess_st *sess;
    struct bau_prm prm;
    AudioUnit au;
    pthread_mutex_t mutex;
    uint32_t sampsz;
    bau_write_h *wh;
    void *arg;
};

static void auplay_destructor(struct bau_player *st)
{
    pthread_mutex_lock(&st->mutex);
    st->wh = NULL;
    pthread_mutex_unlock(&st->mutex);

    AudioOutputUnitStop(st->au);
    AudioUnitUninitialize(st->au);
    AudioComponentInstanceDispose(st->au);

    audiosess_free(st->sess);
    pthread_mutex_destroy(&st->mutex);
    free(st);
}

static OSStatus output_callback(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                                const AudioTimeStamp *inTimeStamp, UInt32 inBusNumber, UInt32 inNumberFrames,
                                AudioBufferList *ioData)
{
    struct bau_player *st = (struct bau_player *)inRefCon;
    bau_write_h *wh;
    void *arg;
    (void)ioActionFlags;
    (void)inBusNumber;
    (void)inNumberFrames;

    pthread_mutex_lock(&st->mutex);
    wh = st->wh;
    arg = st->arg;
    pthread_mutex_unlock(&st->mutex);
    if (!wh) return 0;

    for (UInt32 i = 0; i < ioData->mNumberBuffers; ++i) {
        AudioBuffer *ab = &ioData->mBuffers[i];
        struct bau_frame af;
        af.fmt = st->prm.fmt;
        af.sampv = ab->mData;
        af.sampc = ab->mDataByteSize / st->sampsz;
        af.srate = st->prm.srate;
        af.ch = st->prm.ch;
        af.timestamp = (uint64_t)(AUDIO_TIMEBASE * inTimeStamp->mSampleTime / st->prm.srate);
        wh(&af, arg);
    }
    return 0;
}

static void play_interrupt_handler(bool interrupted, void *arg)
{
    struct bau_player *st = (struct bau_player *)arg;
    if (interrupted) AudioOutputUnitStop(st->au);
    else AudioOutputUnitStart(st->au);
}

int bau_player_alloc(struct bau_player **stp, const struct bau_prm *prm, bau_write_h *wh, void *arg)
{
    AudioStreamBasicDescription fmt;
    const AudioUnitElement outputBus = 0;
    AURenderCallbackStruct cb;
    struct bau_player *st;
    const UInt32 enable = 1;
    OSStatus ret = 0;
    Float64 hw_srate = 0.0;
    UInt32 hw_size = sizeof(hw_srate);
    int err;

    if (!stp || !prm) return EINVAL;
    st = (struct bau_player *)calloc(1, sizeof(*st));
    if (!st) return ENOMEM;
    st->wh = wh;
    st->arg = arg;
    st->prm = *prm;
    st->sampsz = (uint32_t)aufmt_sample_size(prm->fmt);
    pthread_mutex_init(&st->mutex, NULL);
    if (!st->sampsz) {
        err = ENOTSUP;
        goto out;
    }

    err = audiosess_alloc(&st->sess, play_interrupt_handler, st);
    if (err) goto out;

    ret = AudioComponentInstanceNew(audiounit_comp_io, &st->au);
    if (ret) { warning("AudioComponentInstanceNew", ret); goto out; }

    ret = AudioUnitSetProperty(st->au, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Output, outputBus, &enable,
                               sizeof(enable));
    if (ret) { warning("EnableIO(output, 0)", ret); goto out; }

    /* As baresip: mReserved is not set. */
    fmt.mSampleRate = prm->srate;
    fmt.mFormatID = kAudioFormatLinearPCM;
    fmt.mFormatFlags = aufmt_to_formatflags(prm->fmt) | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked;
    fmt.mBitsPerChannel = 8 * st->sampsz;
    fmt.mChannelsPerFrame = prm->ch;
    fmt.mBytesPerFrame = st->sampsz * prm->ch;
    fmt.mFramesPerPacket = 1;
    fmt.mBytesPerPacket = st->sampsz * prm->ch;

    ret = AudioUnitInitialize(st->au);
    if (ret) { warning("AudioUnitInitialize", ret); goto out; }

    /* The stream format after AudioUnitInitialize. */
    ret = AudioUnitSetProperty(st->au, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, outputBus, &fmt,
                               sizeof(fmt));
    if (ret) { warning("StreamFormat(input, 0) after AudioUnitInitialize", ret); goto out; }

    cb.inputProc = output_callback;
    cb.inputProcRefCon = st;
    ret = AudioUnitSetProperty(st->au, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, outputBus, &cb,
                               sizeof(cb));
    if (ret) { warning("SetRenderCallback(input, 0)", ret); goto out; }

    ret = AudioOutputUnitStart(st->au);
    if (ret) { warning("AudioOutputUnitStart", ret); goto out; }

    ret = AudioUnitGetProperty(st->au, kAudioUnitProperty_SampleRate, kAudioUnitScope_Output, outputBus, &hw_srate,
                               &hw_size);
    if (ret) { warning("GetProperty(SampleRate, output, 0)", ret); goto out; }
    lg.player_hw_srate = hw_srate;

out:
    if (ret) err = ENODEV;
    if (err) auplay_destructor(st);
    else *stp = st;
    return err;
}

void bau_player_free(struct bau_player *st)
{
    if (st) auplay_destructor(st);
}

AudioUnit bau_player_unit(const struct bau_player *st) { return st->au; }

/* ---- recorder.c ------------------------------------------------------------------ */

struct bau_recorder {
    struct audiosess_st *sess;
    AudioUnit au_in;
    AudioUnit au_conv;
    pthread_mutex_t mutex;
    struct bau_prm prm;
    uint32_t sampsz;
    double sampc_ratio;
    AudioBufferList *abl;
    bau_read_h *rh;
    struct conv_buf *buf;
    void *arg;
};

static void ausrc_destructor(struct bau_recorder *st)
{
    pthread_mutex_lock(&st->mutex);
    st->rh = NULL;
    pthread_mutex_unlock(&st->mutex);

    AudioOutputUnitStop(st->au_in);
    AudioUnitUninitialize(st->au_in);
    AudioComponentInstanceDispose(st->au_in);

    AudioOutputUnitStop(st->au_conv);
    AudioUnitUninitialize(st->au_conv);
    AudioComponentInstanceDispose(st->au_conv);

    audiosess_free(st->sess);
    conv_buf_free(st->buf);
    pthread_mutex_destroy(&st->mutex);
    free(st);
}

static OSStatus input_callback(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                               const AudioTimeStamp *inTimeStamp, UInt32 inBusNumber, UInt32 inNumberFrames,
                               AudioBufferList *ioData)
{
    struct bau_recorder *st = (struct bau_recorder *)inRefCon;
    AudioBufferList abl_in, abl_conv;
    uint32_t nb_frames, nb_frames_max;
    size_t framesz;
    OSStatus ret;
    bau_read_h *rh;
    void *arg;
    (void)ioData;

    pthread_mutex_lock(&st->mutex);
    rh = st->rh;
    arg = st->arg;
    pthread_mutex_unlock(&st->mutex);
    if (!rh) return 0;

    framesz = st->sampsz * st->prm.ch;
    st->abl = &abl_in;
    abl_in.mNumberBuffers = 1;
    abl_in.mBuffers[0].mNumberChannels = st->prm.ch;
    abl_in.mBuffers[0].mDataByteSize = inNumberFrames * (UInt32)framesz;
    ret = init_data_write(st->buf, &abl_in.mBuffers[0].mData, framesz, inNumberFrames);
    if (ret != noErr) return ret;

    ret = AudioUnitRender(st->au_in, ioActionFlags, inTimeStamp, inBusNumber, inNumberFrames, &abl_in);
    if (ret) return ret;

    while (1) {
        struct bau_frame af;
        nb_frames = st->buf->nb_frames;
        /* the most resampled frames the converter can deliver */
        nb_frames_max = (uint32_t)(nb_frames * st->sampc_ratio);
        if (inNumberFrames > nb_frames_max) return noErr;

        abl_conv.mNumberBuffers = 1;
        abl_conv.mBuffers[0].mNumberChannels = st->prm.ch;
        abl_conv.mBuffers[0].mData = NULL;
        abl_conv.mBuffers[0].mDataByteSize = 0; /* not set by baresip */
        ret = AudioUnitRender(st->au_conv, ioActionFlags, inTimeStamp, 0, inNumberFrames, &abl_conv);
        if (ret) return ret;

        af.fmt = st->prm.fmt;
        af.sampv = abl_conv.mBuffers[0].mData;
        af.sampc = abl_conv.mBuffers[0].mDataByteSize / st->sampsz;
        af.srate = st->prm.srate;
        af.ch = st->prm.ch;
        af.timestamp = (uint64_t)(AUDIO_TIMEBASE * inTimeStamp->mSampleTime / st->prm.srate * st->sampc_ratio);
        rh(&af, arg);
    }
    return noErr;
}

static OSStatus convert_callback(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                                 const AudioTimeStamp *inTimeStamp, UInt32 inBusNumber, UInt32 inNumberFrames,
                                 AudioBufferList *ioData)
{
    struct bau_recorder *st = (struct bau_recorder *)inRefCon;
    (void)ioActionFlags;
    (void)inTimeStamp;
    (void)inBusNumber;
    return init_data_read(st->buf, &ioData->mBuffers[0].mData, st->sampsz * st->prm.ch, inNumberFrames);
}

static void rec_interrupt_handler(bool interrupted, void *arg)
{
    struct bau_recorder *st = (struct bau_recorder *)arg;
    if (interrupted) AudioOutputUnitStop(st->au_in);
    else AudioOutputUnitStart(st->au_in);
}

int bau_recorder_alloc(struct bau_recorder **stp, const struct bau_prm *prm, bau_read_h *rh, void *arg)
{
    AudioStreamBasicDescription fmt, fmt_app;
    const AudioUnitElement inputBus = 1;
    const AudioUnitElement defaultBus = 0;
    AURenderCallbackStruct cb_in, cb_conv;
    struct bau_recorder *st;
    const UInt32 enable = 1;
    Float64 hw_srate = 0.0;
    size_t framesz;
    OSStatus ret = 0;
    int err;

    if (!stp || !prm) return EINVAL;
    st = (struct bau_recorder *)calloc(1, sizeof(*st));
    if (!st) return ENOMEM;
    st->rh = rh;
    st->arg = arg;
    pthread_mutex_init(&st->mutex, NULL);
    st->sampsz = (uint32_t)aufmt_sample_size(prm->fmt);
    if (!st->sampsz) {
        err = ENOTSUP;
        goto out;
    }
    st->prm = *prm;

    framesz = st->sampsz * prm->ch;
    err = conv_buf_alloc(&st->buf, framesz);
    if (err) goto out;

    err = audiosess_alloc(&st->sess, rec_interrupt_handler, st);
    if (err) goto out;

    ret = AudioComponentInstanceNew(audiounit_comp_io, &st->au_in);
    if (ret) { warning("AudioComponentInstanceNew", ret); goto out; }

    ret = AudioUnitSetProperty(st->au_in, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, inputBus, &enable,
                               sizeof(enable));
    if (ret) { warning("EnableIO(input, 1)", ret); goto out; }

    /* TARGET_OS_IPHONE: the call's rate stands for the hardware's */
    hw_srate = prm->srate;
    lg.recorder_hw_srate = hw_srate;
    st->sampc_ratio = prm->srate / hw_srate;

    fmt.mSampleRate = hw_srate;
    fmt.mFormatID = kAudioFormatLinearPCM;
    fmt.mFormatFlags = aufmt_to_formatflags(prm->fmt) | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked;
    fmt.mBitsPerChannel = 8 * st->sampsz;
    fmt.mChannelsPerFrame = prm->ch;
    fmt.mBytesPerFrame = st->sampsz * prm->ch;
    fmt.mFramesPerPacket = 1;
    fmt.mBytesPerPacket = st->sampsz * prm->ch;
    fmt.mReserved = 0;

    ret = AudioUnitSetProperty(st->au_in, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, inputBus, &fmt,
                               sizeof(fmt));
    if (ret) { warning("StreamFormat(output, 1)", ret); goto out; }

    ret = AudioUnitInitialize(st->au_in);
    if (ret) { warning("AudioUnitInitialize", ret); goto out; }

    cb_in.inputProc = input_callback;
    cb_in.inputProcRefCon = st;
    ret = AudioUnitSetProperty(st->au_in, kAudioOutputUnitProperty_SetInputCallback, kAudioUnitScope_Global, inputBus,
                               &cb_in, sizeof(cb_in));
    if (ret) { warning("SetInputCallback(global, 1)", ret); goto out; }

    fmt_app = fmt;
    fmt_app.mSampleRate = prm->srate;

    ret = AudioComponentInstanceNew(audiounit_comp_conv, &st->au_conv);
    if (ret) { warning("AudioComponentInstanceNew(AUConverter)", ret); goto out; }

    ret = AudioUnitSetProperty(st->au_conv, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, defaultBus, &fmt,
                               sizeof(fmt));
    if (ret) { warning("AUConverter StreamFormat(input, 0)", ret); goto out; }
    ret = AudioUnitSetProperty(st->au_conv, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, defaultBus,
                               &fmt_app, sizeof(fmt_app));
    if (ret) { warning("AUConverter StreamFormat(output, 0)", ret); goto out; }

    cb_conv.inputProc = convert_callback;
    cb_conv.inputProcRefCon = st;
    ret = AudioUnitSetProperty(st->au_conv, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, defaultBus,
                               &cb_conv, sizeof(cb_conv));
    if (ret) { warning("AUConverter SetRenderCallback(input, 0)", ret); goto out; }

    ret = AudioUnitInitialize(st->au_conv);
    if (ret) { warning("AUConverter AudioUnitInitialize", ret); goto out; }

    ret = AudioOutputUnitStart(st->au_in);
    if (ret) { warning("AudioOutputUnitStart", ret); goto out; }

out:
    if (ret) err = ENODEV;
    if (err) ausrc_destructor(st);
    else *stp = st;
    return err;
}

/* baresip 0.6.0's recorder: the io unit alone. */
static OSStatus input_callback_v060(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                                    const AudioTimeStamp *inTimeStamp, UInt32 inBusNumber, UInt32 inNumberFrames,
                                    AudioBufferList *ioData)
{
    struct bau_recorder *st = (struct bau_recorder *)inRefCon;
    AudioBufferList abl;
    OSStatus ret;
    bau_read_h *rh;
    void *arg;
    (void)ioData;

    pthread_mutex_lock(&st->mutex);
    rh = st->rh;
    arg = st->arg;
    pthread_mutex_unlock(&st->mutex);
    if (!rh) return 0;

    abl.mNumberBuffers = 1;
    abl.mBuffers[0].mNumberChannels = st->prm.ch;
    abl.mBuffers[0].mData = NULL;
    abl.mBuffers[0].mDataByteSize = inNumberFrames * st->sampsz;

    ret = AudioUnitRender(st->au_in, ioActionFlags, inTimeStamp, inBusNumber, inNumberFrames, &abl);
    if (ret) return ret;

    struct bau_frame af;
    af.fmt = st->prm.fmt;
    af.sampv = abl.mBuffers[0].mData;
    af.sampc = abl.mBuffers[0].mDataByteSize / st->sampsz;
    af.srate = st->prm.srate;
    af.ch = st->prm.ch;
    af.timestamp = 0;
    rh(&af, arg);
    return 0;
}

int bau_recorder_v060_alloc(struct bau_recorder **stp, const struct bau_prm *prm, bau_read_h *rh, void *arg)
{
    AudioStreamBasicDescription fmt;
    const AudioUnitElement inputBus = 1;
    AURenderCallbackStruct cb;
    struct bau_recorder *st;
    const UInt32 enable = 1;
    Float64 hw_srate = 0.0;
    UInt32 hw_size = sizeof(hw_srate);
    OSStatus ret = 0;
    int err;

    if (!stp || !prm) return EINVAL;
    st = (struct bau_recorder *)calloc(1, sizeof(*st));
    if (!st) return ENOMEM;
    st->rh = rh;
    st->arg = arg;
    st->prm = *prm;
    pthread_mutex_init(&st->mutex, NULL);
    st->sampsz = (uint32_t)aufmt_sample_size(prm->fmt);
    if (!st->sampsz) {
        err = ENOTSUP;
        goto out;
    }

    err = audiosess_alloc(&st->sess, rec_interrupt_handler, st);
    if (err) goto out;

    ret = AudioComponentInstanceNew(audiounit_comp_io, &st->au_in);
    if (ret) { warning("AudioComponentInstanceNew", ret); goto out; }

    ret = AudioUnitSetProperty(st->au_in, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, inputBus, &enable,
                               sizeof(enable));
    if (ret) { warning("EnableIO(input, 1)", ret); goto out; }

    fmt.mSampleRate = prm->srate;
    fmt.mFormatID = kAudioFormatLinearPCM;
    fmt.mFormatFlags = aufmt_to_formatflags(prm->fmt) | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked;
    fmt.mBitsPerChannel = 8 * st->sampsz;
    fmt.mChannelsPerFrame = prm->ch;
    fmt.mBytesPerFrame = st->sampsz * prm->ch;
    fmt.mFramesPerPacket = 1;
    fmt.mBytesPerPacket = st->sampsz * prm->ch;
    fmt.mReserved = 0;

    ret = AudioUnitSetProperty(st->au_in, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, inputBus, &fmt,
                               sizeof(fmt));
    if (ret) { warning("StreamFormat(output, 1)", ret); goto out; }

    ret = AudioUnitInitialize(st->au_in);
    if (ret) { warning("AudioUnitInitialize", ret); goto out; }

    cb.inputProc = input_callback_v060;
    cb.inputProcRefCon = st;
    ret = AudioUnitSetProperty(st->au_in, kAudioOutputUnitProperty_SetInputCallback, kAudioUnitScope_Global, inputBus,
                               &cb, sizeof(cb));
    if (ret) { warning("SetInputCallback(global, 1)", ret); goto out; }

    ret = AudioOutputUnitStart(st->au_in);
    if (ret) { warning("AudioOutputUnitStart", ret); goto out; }

    ret = AudioUnitGetProperty(st->au_in, kAudioUnitProperty_SampleRate, kAudioUnitScope_Input, inputBus, &hw_srate,
                               &hw_size);
    if (ret) { warning("GetProperty(SampleRate, input, 1)", ret); goto out; }
    lg.recorder_hw_srate = hw_srate;

out:
    if (ret) err = ENODEV;
    if (err) ausrc_destructor(st);
    else *stp = st;
    return err;
}

void bau_recorder_free(struct bau_recorder *st)
{
    if (st) ausrc_destructor(st);
}

AudioUnit bau_recorder_unit(const struct bau_recorder *st) { return st->au_in; }
