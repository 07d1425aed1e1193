/*
 * Audio queue processing taps (iOS 6), the way programs use them: a PreEffects tap that
 * fetches the queue's audio and changes it (here: halves it), a siphon that only looks,
 * a tap that makes its own sound without fetching, a PostEffects tap after the queue's
 * volume, and a tap on an input queue. Rendered offline (exact, no device), then one
 * tap on a running queue at the virtual card, which must hear the tapped sound. Bad
 * inputs are each answered with the header's code.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "world.h"

#define FRAMES 4410
static SInt16 source[FRAMES * 2];

static void fillSource(void)
{
    for (int i = 0; i < FRAMES; i++) source[2 * i] = source[2 * i + 1] = (SInt16)(16000 * sin(2 * M_PI * 441 * i / 44100.0));
}

static void refill(void *data, AudioQueueRef q, AudioQueueBufferRef b) { (void)data; (void)q; (void)b; }

typedef struct { int mode; long calls; UInt32 firstFlags; int startSeen; Float64 lastTime; OSStatus outside; } Tap;
enum { HALVE, SIPHON, OWN, POST };

static void tapCallback(void *data, AudioQueueProcessingTapRef tap, UInt32 frames, AudioTimeStamp *t, UInt32 *flags,
                        UInt32 *outFrames, AudioBufferList *io)
{
    Tap *me = data;
    me->calls++;
    if (me->calls == 1) me->firstFlags = *flags;
    if (me->mode == SIPHON) return;
    if (me->mode == OWN) {
        for (UInt32 b = 0; b < io->mNumberBuffers; b++) {
            Float32 *x = io->mBuffers[b].mData;
            for (UInt32 i = 0; i < frames; i++) x[i] = 0.25f;
        }
        *outFrames = frames;
        return;
    }
    UInt32 got = 0, sourceFlags = 0;
    OSStatus status = AudioQueueProcessingTapGetSourceAudio(tap, frames, t, &sourceFlags, &got, io);
    if (status != noErr) { *outFrames = 0; return; }
    if (sourceFlags & kAudioQueueProcessingTap_StartOfStream) me->startSeen++;
    UInt32 count = 0;
    if (AudioQueueProcessingTapGetQueueTime(tap, &me->lastTime, &count) != noErr) me->lastTime = -1;
    for (UInt32 b = 0; b < io->mNumberBuffers; b++) {
        Float32 *x = io->mBuffers[b].mData;
        for (UInt32 i = 0; i < got; i++) x[i] *= 0.5f;
    }
    *outFrames = got;
}

/* An offline queue with the source enqueued, the tap on, `frames` rendered as SInt16. */
static void renderWithTap(Tap *tap, UInt32 flags, Float32 volume, SInt16 *out, UInt32 frames)
{
    AudioStreamBasicDescription f = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                     4, 1, 4, 2, 16, 0};
    AudioQueueRef q = NULL;
    CHECK_STATUS(AudioQueueNewOutput(&f, refill, NULL, NULL, NULL, 0, &q), noErr);
    if (!q) return;
    AudioQueueBufferRef b = NULL, capture = NULL;
    CHECK_STATUS(AudioQueueAllocateBuffer(q, sizeof source, &b), noErr);
    memcpy(b->mAudioData, source, sizeof source);
    b->mAudioDataByteSize = sizeof source;
    CHECK_STATUS(AudioQueueEnqueueBuffer(q, b, 0, NULL), noErr);
    CHECK_STATUS(AudioQueueSetParameter(q, kAudioQueueParam_Volume, volume), noErr);
    CHECK_STATUS(AudioQueueSetOfflineRenderFormat(q, &f, NULL), noErr);
    UInt32 maxFrames = 0;
    AudioStreamBasicDescription format;
    memset(&format, 0, sizeof format);
    AudioQueueProcessingTapRef ref = NULL;
    CHECK_STATUS(AudioQueueProcessingTapNew(q, tapCallback, tap, flags, &maxFrames, &format, &ref), noErr);
    CHECK(maxFrames >= 512 && format.mFormatID == kAudioFormatLinearPCM && format.mSampleRate == 44100 &&
              format.mChannelsPerFrame == 2 && (format.mFormatFlags & kAudioFormatFlagIsFloat) &&
              (format.mFormatFlags & kAudioFormatFlagIsNonInterleaved) && format.mBytesPerFrame == 4,
          "the tap works in Float32 non-interleaved stereo at 44.1 kHz (max %u frames)", (unsigned)maxFrames);
    AudioQueueProcessingTapRef second = NULL;
    CHECK_STATUS(AudioQueueProcessingTapNew(q, tapCallback, tap, flags, &maxFrames, &format, &second), kAudioQueueErr_TooManyTaps);
    CHECK_STATUS(AudioQueueAllocateBuffer(q, frames * 4, &capture), noErr);
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    for (UInt32 done = 0; done < frames; done += 441) {
        CHECK_STATUS(AudioQueueOfflineRender(q, &ts, capture, 441), noErr);
        memcpy(out + 2 * done, capture->mAudioData, 441 * 4);
        ts.mSampleTime += 441;
    }
    UInt32 got = 0;
    AudioBufferList list = {1, {{2, 0, NULL}}};
    CHECK_STATUS(AudioQueueProcessingTapGetSourceAudio(ref, 64, &ts, NULL, &got, &list), kAudioQueueErr_InvalidTapContext);
    CHECK_STATUS(AudioQueueProcessingTapDispose(ref), noErr);
    CHECK_STATUS(AudioQueueProcessingTapDispose(ref), kAudio_ParamError);
    CHECK_STATUS(AudioQueueDispose(q, true), noErr);
}

static long differences(const SInt16 *got, double scale, double add)
{
    long wrong = 0;
    for (int i = 0; i < FRAMES * 2; i++) {
        double want = source[i] / 32768.0 * scale + add;
        if (fabs(got[i] / 32768.0 - want) > 2.0 / 32768) wrong++;
    }
    return wrong;
}

static Tap inputTap;
static void recorded(void *data, AudioQueueRef q, AudioQueueBufferRef b, const AudioTimeStamp *t, UInt32 n,
                     const AudioStreamPacketDescription *d)
{
    (void)data; (void)t; (void)n; (void)d;
    AudioQueueEnqueueBuffer(q, b, 0, NULL);
}

int main(void)
{
    installWatchdog("queue taps");
    alarm(120);
    fillSource();
    static SInt16 out[FRAMES * 2];

    Tap halve = {HALVE, 0, 0, 0, 0, 0};
    renderWithTap(&halve, kAudioQueueProcessingTap_PreEffects, 1, out, FRAMES);
    CHECK(halve.calls >= 10 && (halve.firstFlags & kAudioQueueProcessingTap_PreEffects), "the tap was called with its flags (%ld)",
          halve.calls);
    CHECK(halve.startSeen == 1, "StartOfStream once (%d)", halve.startSeen);
    CHECK(halve.lastTime > 0, "GetQueueTime inside the callback (%.0f)", halve.lastTime);
    CHECK(differences(out, 0.5, 0) == 0, "a PreEffects tap halving its source: the output is half (%ld wrong)",
          differences(out, 0.5, 0));

    Tap siphon = {SIPHON, 0, 0, 0, 0, 0};
    renderWithTap(&siphon, kAudioQueueProcessingTap_PreEffects | kAudioQueueProcessingTap_Siphon, 1, out, FRAMES);
    CHECK(siphon.calls >= 10, "the siphon was called (%ld)", siphon.calls);
    CHECK(differences(out, 1, 0) == 0, "a siphon changes nothing (%ld wrong)", differences(out, 1, 0));

    Tap own = {OWN, 0, 0, 0, 0, 0};
    renderWithTap(&own, kAudioQueueProcessingTap_PreEffects, 1, out, FRAMES);
    CHECK(differences(out, 0, 0.25) == 0, "a tap making its own sound is what plays (%ld wrong)", differences(out, 0, 0.25));

    /* PostEffects: after the queue's volume (0.5), so halved twice; PreEffects: the
       volume applies after the tap, so the same. */
    Tap post = {HALVE, 0, 0, 0, 0, 0};
    renderWithTap(&post, kAudioQueueProcessingTap_PostEffects, 0.5f, out, FRAMES);
    CHECK(differences(out, 0.25, 0) == 0, "a PostEffects tap works on the queue's output (%ld wrong)", differences(out, 0.25, 0));

    /* Bad inputs. */
    AudioStreamBasicDescription f = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                     4, 1, 4, 2, 16, 0};
    AudioQueueRef q = NULL;
    CHECK_STATUS(AudioQueueNewOutput(&f, refill, NULL, NULL, NULL, 0, &q), noErr);
    UInt32 maxFrames = 0;
    AudioStreamBasicDescription format;
    AudioQueueProcessingTapRef ref = NULL;
    CHECK_STATUS(AudioQueueProcessingTapNew(NULL, tapCallback, &halve, kAudioQueueProcessingTap_PreEffects, &maxFrames, &format, &ref),
                 kAudio_ParamError);
    CHECK_STATUS(AudioQueueProcessingTapNew(q, NULL, &halve, kAudioQueueProcessingTap_PreEffects, &maxFrames, &format, &ref),
                 kAudio_ParamError);
    CHECK_STATUS(AudioQueueProcessingTapNew(q, tapCallback, &halve, kAudioQueueProcessingTap_PreEffects, &maxFrames, &format, NULL),
                 kAudio_ParamError);
    CHECK_STATUS(AudioQueueProcessingTapNew(q, tapCallback, &halve, 0, &maxFrames, &format, &ref), kAudioQueueErr_InvalidParameter);
    CHECK_STATUS(AudioQueueProcessingTapNew(q, tapCallback, &halve,
                                            kAudioQueueProcessingTap_PreEffects | kAudioQueueProcessingTap_PostEffects, &maxFrames,
                                            &format, &ref), kAudioQueueErr_InvalidParameter);
    CHECK_STATUS(AudioQueueProcessingTapDispose(NULL), kAudio_ParamError);
    CHECK_STATUS(AudioQueueProcessingTapDispose((AudioQueueProcessingTapRef)&halve), kAudio_ParamError);
    Float64 time = 0;
    UInt32 count = 0;
    CHECK_STATUS(AudioQueueProcessingTapGetQueueTime((AudioQueueProcessingTapRef)&halve, &time, &count),
                 kAudioQueueErr_InvalidTapContext);

    /* On a running queue at the device: refused while it runs, heard when it is put on
       a stopped one and the queue starts. */
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    AudioQueueBufferRef buffers[3];
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(AudioQueueAllocateBuffer(q, sizeof source, &buffers[i]), noErr);
        memcpy(buffers[i]->mAudioData, source, sizeof source);
        buffers[i]->mAudioDataByteSize = sizeof source;
    }
    CHECK_STATUS(AudioQueueEnqueueBuffer(q, buffers[0], 0, NULL), noErr);
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    CHECK_STATUS(AudioQueueProcessingTapNew(q, tapCallback, &halve, kAudioQueueProcessingTap_PreEffects, &maxFrames, &format, &ref),
                 kAudioQueueErr_InvalidRunState);
    CHECK_STATUS(AudioQueueStop(q, true), noErr);
    Tap live = {HALVE, 0, 0, 0, 0, 0};
    CHECK_STATUS(AudioQueueProcessingTapNew(q, tapCallback, &live, kAudioQueueProcessingTap_PreEffects, &maxFrames, &format, &ref),
                 noErr);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    for (int i = 0; i < 3; i++) CHECK_STATUS(AudioQueueEnqueueBuffer(q, buffers[i], 0, NULL), noErr);
    CHECK_STATUS(AudioQueueStop(q, false), noErr);
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    UInt32 running = 1, size = sizeof running;
    while (running) {
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.02, true);
        AudioQueueGetProperty(q, kAudioQueueProperty_IsRunning, &running, &size);
    }
    CHECK(live.calls > 5, "the tap ran on the queue's real-time thread (%ld calls)", live.calls);
    CHECK_STATUS(AudioQueueProcessingTapDispose(ref), noErr);
    if (worldOnCard()) {
        long frames = 0, peak = 0;
        short *heard = worldCardRecording(&frames);
        for (long i = 0; i < frames * 2; i++) if (labs((long)heard[i]) > peak) peak = labs((long)heard[i]);
        free(heard);
        printf("measured: the card heard %ld frames, peak %ld (source peak 16000, tap halves it)\n", frames, peak);
        CHECK(frames > 3 * FRAMES * 9 / 10 && peak > 6000 && peak < 10000, "the card hears the tapped (halved) tone (%ld frames, peak %ld)",
              frames, peak);
    } else {
        worldCannot("the virtual device has no ears: the card's part checks what is heard");
        worldSkip("the tapped tone at the card");
    }

    /* An input queue's siphon sees what is recorded. */
    AudioStreamBasicDescription mono = {16000, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                        2, 1, 2, 1, 16, 0};
    AudioQueueRef in = NULL;
    CHECK_STATUS(AudioQueueNewInput(&mono, recorded, NULL, NULL, NULL, 0, &in), noErr);
    inputTap.mode = SIPHON;
    CHECK_STATUS(AudioQueueProcessingTapNew(in, tapCallback, &inputTap, kAudioQueueProcessingTap_PreEffects |
                                            kAudioQueueProcessingTap_Siphon, &maxFrames, &format, &ref), noErr);
    CHECK(format.mSampleRate == 16000 && format.mChannelsPerFrame == 1, "the input tap's format is the queue's rate and channels");
    for (int i = 0; i < 3; i++) {
        AudioQueueBufferRef b;
        CHECK_STATUS(AudioQueueAllocateBuffer(in, 3200, &b), noErr);
        CHECK_STATUS(AudioQueueEnqueueBuffer(in, b, 0, NULL), noErr);
    }
    CHECK_STATUS(AudioQueueStart(in, NULL), noErr);
    while (inputTap.calls < 10) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.02, true);
    CHECK(inputTap.calls >= 10, "the input queue's tap runs (%ld)", inputTap.calls);
    CHECK_STATUS(AudioQueueDispose(in, true), noErr);
    CHECK_STATUS(AudioQueueProcessingTapDispose(ref), kAudio_ParamError);
    CHECK_STATUS(AudioQueueDispose(q, true), noErr);
    return worldFinish("test_queue_tap");
}
