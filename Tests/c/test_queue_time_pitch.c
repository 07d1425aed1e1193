/*
 * Audio queue time/pitch (kAudioQueueProperty_EnableTimePitch, the algorithms, PlayRate,
 * Pitch, bypass), heard: one second of a 441 Hz tone is played through an offline queue
 * to its end (Stop(false), then renders until IsRunning reads 0), and what came out is
 * measured: its length (first to last loud frame) and its pitch (zero crossings).
 * Expected from the settings, not from the code: a tempo of 2 halves the length and keeps
 * 441 Hz; a pitch of +1200 cents keeps the length and doubles the pitch; Varispeed at 0.5
 * doubles the length and halves the pitch; without EnableTimePitch, or bypassed, the
 * rate changes nothing (as on the phone). Then a running queue at the virtual card.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "world.h"

#define RATE 44100
#define TONE 441.0
static SInt16 source[RATE * 2];
static SInt16 rendered[RATE * 5 * 2];

static void ignoreOutput(void *d, AudioQueueRef q, AudioQueueBufferRef b) { (void)d; (void)q; (void)b; }
static void ignoreInput(void *d, AudioQueueRef q, AudioQueueBufferRef b, const AudioTimeStamp *t, UInt32 n,
                        const AudioStreamPacketDescription *p)
{
    (void)d; (void)q; (void)b; (void)t; (void)n; (void)p;
}

/* Length (frames from the first to the last loud one) and pitch of the left channel. */
static long measure(const SInt16 *s, long frames, double *hz)
{
    long first = -1, last = -1;
    for (long i = 0; i < frames; i++) if (abs(s[2 * i]) > 2000) { if (first < 0) first = i; last = i; }
    *hz = 0;
    if (first < 0) return 0;
    long from = first + (last - first) / 5, to = last - (last - first) / 5, crossings = 0, a = -1, b = -1;
    for (long i = from + 1; i < to; i++)
        if (s[2 * (i - 1)] < 0 && s[2 * i] >= 0) { crossings++; if (a < 0) a = i; b = i; }
    if (crossings > 2) *hz = (crossings - 1) * (double)RATE / (double)(b - a);
    return last - first + 1;
}

/* One second of the tone through an offline queue with these settings; returns the
 * frames rendered until the queue stopped. */
static long playOffline(UInt32 enable, UInt32 algorithm, UInt32 bypass, Float32 playRate, Float32 pitch)
{
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                     4, 1, 4, 2, 16, 0};
    AudioQueueRef q = NULL;
    CHECK_STATUS(AudioQueueNewOutput(&f, ignoreOutput, NULL, NULL, NULL, 0, &q), noErr);
    if (!q) return 0;
    CHECK_STATUS(AudioQueueSetProperty(q, kAudioQueueProperty_EnableTimePitch, &enable, sizeof enable), noErr);
    CHECK_STATUS(AudioQueueSetProperty(q, kAudioQueueProperty_TimePitchAlgorithm, &algorithm, sizeof algorithm), noErr);
    CHECK_STATUS(AudioQueueSetProperty(q, kAudioQueueProperty_TimePitchBypass, &bypass, sizeof bypass), noErr);
    CHECK_STATUS(AudioQueueSetParameter(q, kAudioQueueParam_PlayRate, playRate), noErr);
    CHECK_STATUS(AudioQueueSetParameter(q, kAudioQueueParam_Pitch, pitch), noErr);
    for (int i = 0; i < 4; i++) {
        AudioQueueBufferRef b;
        CHECK_STATUS(AudioQueueAllocateBuffer(q, sizeof source / 4, &b), noErr);
        memcpy(b->mAudioData, (char *)source + i * sizeof source / 4, sizeof source / 4);
        b->mAudioDataByteSize = sizeof source / 4;
        CHECK_STATUS(AudioQueueEnqueueBuffer(q, b, 0, NULL), noErr);
    }
    CHECK_STATUS(AudioQueueSetOfflineRenderFormat(q, &f, NULL), noErr);
    AudioQueueBufferRef capture;
    CHECK_STATUS(AudioQueueAllocateBuffer(q, 1024 * 4, &capture), noErr);
    CHECK_STATUS(AudioQueueStop(q, false), noErr);
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    long done = 0;
    UInt32 running = 1, size = sizeof running;
    while (running && done + 1024 <= RATE * 5) {
        if (AudioQueueOfflineRender(q, &ts, capture, 1024) != noErr) break;
        memcpy(rendered + 2 * done, capture->mAudioData, 1024 * 4);
        done += 1024;
        ts.mSampleTime += 1024;
        AudioQueueGetProperty(q, kAudioQueueProperty_IsRunning, &running, &size);
    }
    CHECK(!running, "the queue stopped after what was enqueued (%ld frames rendered)", done);
    CHECK_STATUS(AudioQueueDispose(q, true), noErr);
    return done;
}

static void expect(const char *what, long frames, double lengthFactor, double pitchFactor)
{
    double hz = 0;
    long length = measure(rendered, frames, &hz);
    printf("measured %s: %ld frames long (source %d), %.1f Hz\n", what, length, RATE, hz);
    CHECK(fabs(length - RATE * lengthFactor) < RATE * lengthFactor * 0.08, "%s: %ld frames long, about %.0f", what, length,
          RATE * lengthFactor);
    CHECK(fabs(hz - TONE * pitchFactor) < TONE * pitchFactor * 0.02, "%s: %.1f Hz, about %.1f", what, hz, TONE * pitchFactor);
}

int main(void)
{
    installWatchdog("queue time/pitch");
    alarm(120);
    for (int i = 0; i < RATE; i++) source[2 * i] = source[2 * i + 1] = (SInt16)(16000 * sin(2 * M_PI * TONE * i / RATE));

    expect("TimeDomain, PlayRate 2", playOffline(1, kAudioQueueTimePitchAlgorithm_TimeDomain, 0, 2, 0), 0.5, 1);
    expect("Spectral, PlayRate 0.5", playOffline(1, kAudioQueueTimePitchAlgorithm_Spectral, 0, 0.5f, 0), 2, 1);
    expect("Spectral, Pitch +1200", playOffline(1, kAudioQueueTimePitchAlgorithm_Spectral, 0, 1, 1200), 1, 2);
    expect("Varispeed, PlayRate 0.5", playOffline(1, kAudioQueueTimePitchAlgorithm_Varispeed, 0, 0.5f, 0), 2, 0.5);
    expect("without EnableTimePitch, PlayRate 2", playOffline(0, kAudioQueueTimePitchAlgorithm_TimeDomain, 0, 2, 0), 1, 1);
    expect("bypassed, PlayRate 2", playOffline(1, kAudioQueueTimePitchAlgorithm_TimeDomain, 1, 2, 0), 1, 1);

    /* Bad inputs. */
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                     4, 1, 4, 2, 16, 0};
    AudioQueueRef q = NULL, in = NULL;
    CHECK_STATUS(AudioQueueNewOutput(&f, ignoreOutput, NULL, NULL, NULL, 0, &q), noErr);
    UInt32 unknown = 0x78787878, on = 1, algorithm = 0;  /* 'xxxx' */
    CHECK_STATUS(AudioQueueSetProperty(q, kAudioQueueProperty_TimePitchAlgorithm, &unknown, sizeof unknown),
                 kAudioQueueErr_InvalidPropertyValue);
    UInt32 size = sizeof algorithm;
    CHECK_STATUS(AudioQueueGetProperty(q, kAudioQueueProperty_TimePitchAlgorithm, &algorithm, &size), noErr);
    CHECK(algorithm == kAudioQueueTimePitchAlgorithm_Spectral, "a refused algorithm leaves Spectral");
    CHECK_STATUS(AudioQueueSetParameter(q, kAudioQueueParam_PlayRate, 3), kAudioQueueErr_InvalidParameter);
    CHECK_STATUS(AudioQueueSetParameter(q, kAudioQueueParam_Pitch, 5000), kAudioQueueErr_InvalidParameter);
    AudioStreamBasicDescription mono = {16000, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                        2, 1, 2, 1, 16, 0};
    CHECK_STATUS(AudioQueueNewInput(&mono, ignoreInput, NULL, NULL, NULL, 0, &in), noErr);
    CHECK_STATUS(AudioQueueSetProperty(in, kAudioQueueProperty_EnableTimePitch, &on, sizeof on), kAudioQueueErr_InvalidPropertyValue);
    CHECK_STATUS(AudioQueueDispose(in, true), noErr);

    /* At the device: half a second at PlayRate 0.5 (TimeDomain) is heard a second long at
       the same pitch. */
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioQueueSetProperty(q, kAudioQueueProperty_EnableTimePitch, &on, sizeof on), noErr);
    algorithm = kAudioQueueTimePitchAlgorithm_TimeDomain;
    CHECK_STATUS(AudioQueueSetProperty(q, kAudioQueueProperty_TimePitchAlgorithm, &algorithm, sizeof algorithm), noErr);
    CHECK_STATUS(AudioQueueSetParameter(q, kAudioQueueParam_PlayRate, 0.5f), noErr);
    for (int i = 0; i < 2; i++) {
        AudioQueueBufferRef b;
        CHECK_STATUS(AudioQueueAllocateBuffer(q, sizeof source / 4, &b), noErr);
        memcpy(b->mAudioData, (char *)source + i * sizeof source / 4, sizeof source / 4);
        b->mAudioDataByteSize = sizeof source / 4;
        CHECK_STATUS(AudioQueueEnqueueBuffer(q, b, 0, NULL), noErr);
    }
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    CHECK_STATUS(AudioQueueStop(q, false), noErr);
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    /* The header allows EnableTimePitch only on a stopped queue: turned off while it
       plays, it is refused with its run-state code and stays on. */
    UInt32 off = 0, enabled = 0;
    CHECK_STATUS(AudioQueueSetProperty(q, kAudioQueueProperty_EnableTimePitch, &off, sizeof off), kAudioQueueErr_InvalidRunState);
    size = sizeof enabled;
    CHECK_STATUS(AudioQueueGetProperty(q, kAudioQueueProperty_EnableTimePitch, &enabled, &size), noErr);
    CHECK(enabled == 1, "and EnableTimePitch still reads 1 (%u)", (unsigned)enabled);
    UInt32 running = 1;
    size = sizeof running;
    while (running) {
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.02, true);
        AudioQueueGetProperty(q, kAudioQueueProperty_IsRunning, &running, &size);
    }
    CHECK_STATUS(AudioQueueDispose(q, true), noErr);
    if (worldOnCard()) {
        long frames = 0;
        short *heard = worldCardRecording(&frames);
        int rate = worldCardRate();
        long first = -1, last = -1, crossings = 0, a = -1, b = -1;
        for (long i = 0; i < frames; i++) if (abs(heard[2 * i]) > 2000) { if (first < 0) first = i; last = i; }
        for (long i = first + (last - first) / 5 + 1; first >= 0 && i < last - (last - first) / 5; i++)
            if (heard[2 * (i - 1)] < 0 && heard[2 * i] >= 0) { crossings++; if (a < 0) a = i; b = i; }
        double seconds = first < 0 ? 0 : (last - first + 1) / (double)rate;
        double hz = crossings > 2 ? (crossings - 1) * (double)rate / (double)(b - a) : 0;
        free(heard);
        printf("measured at the card: %.3f s long (0.5 s enqueued, PlayRate 0.5), %.1f Hz\n", seconds, hz);
        CHECK(fabs(seconds - 1.0) < 0.1 && fabs(hz - TONE) < TONE * 0.02, "the card hears a second at 441 Hz (%.3f s, %.1f Hz)",
              seconds, hz);
    } else {
        worldCannot("the virtual device has no ears: the card's part checks what is heard");
        worldSkip("time/pitch at the card");
    }
    return worldFinish("test_queue_time_pitch");
}
