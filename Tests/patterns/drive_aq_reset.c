/*
 * Drives the looping player (aq_reset.c) through the queue life rules of SPEC section
 * 12, each with the callbacks on the queue's own thread (NULL run loop) and on this
 * thread's run loop, which is NOT run while the call is made. The file is a 2 s 440 Hz
 * 16-bit WAVE (sox); each of the three buffers holds about 0.37 s, so none has played
 * when the call comes right after the start.
 *
 *  1. Stop(queue, true) with three buffers pending: the callback has been called for
 *     each when the call returns, its enqueues got kAudioQueueErr_EnqueueDuringReset,
 *     IsRunning reads 0; no callback comes over 0.3 s of run loop afterwards.
 *  2. Reset: the same three callbacks during the call and refused enqueues; IsRunning
 *     still 1; the player primes again (a seek) and the queue plays on: a buffer comes
 *     back played, and the callback's enqueue is taken.
 *  3. Dispose(queue, true) with three buffers pending: three callbacks during the call,
 *     refused enqueues, none after it returns (0.3 s of run loop).
 *  4. Dispose(queue, false) of a queue never started, three buffers enqueued; and of one
 *     stopped with Stop(true) and given three buffers again: no callback after it
 *     returns.
 *  5. On the virtual ALSA card, what is heard: three 0.5 s buffers of 440 Hz enqueued and
 *     started, Reset once the first came back, then one 0.5 s buffer of 880 Hz (a seek to
 *     other music). The card must hear 880 Hz after at most the one 440 Hz buffer (and
 *     the device's latency): the two old buffers Reset dropped are never heard, and no
 *     440 Hz follows the 880. (Before the queue's life was one state machine, the old
 *     buffers were still heard after Reset.)
 */
#include "patterns.h"
#include "aq_reset.h"
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char folder[] = "/tmp/aq-reset.XXXXXX";
static char path[256];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* 0.3 s in which the run loop runs (when it has nothing to run, the time passes anyway):
 * a callback the queue still had queued would arrive here. */
static void runLoopFor(double seconds)
{
    double end = now() + seconds;
    while (now() < end) {
        if (CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, false) == kCFRunLoopRunFinished) usleep(10000);
    }
}

static void openPlayer(const char *label, int useRunLoop)
{
    watchdogName = label;
    alarm(20);
    long status = aq_reset_open(path, useRunLoop);
    CHECK(status == 0, "%s: the player opens the file and makes its queue (%s)", label, statusText((OSStatus)status));
    aq_reset_prime();
    CHECK(aq_reset_enqueues_accepted() == 3, "%s: three buffers primed (%ld enqueues taken)", label,
          aq_reset_enqueues_accepted());
}

static void startPlayer(const char *label)
{
    long status = aq_reset_start();
    CHECK(status == 0, "%s: AudioQueueStart returned %s", label, statusText((OSStatus)status));
    CHECK(aq_reset_is_running() == 1, "%s: IsRunning 1 after the start", label);
}

/* The three pending buffers came back during `call` (callbacks before, after). */
static void handedBackDuring(const char *label, const char *call, long before, long after)
{
    CHECK(before == 0, "%s: no buffer had come back before %s (%ld)", label, call, before);
    CHECK(after - before == 3, "%s: %s called the callback for the three pending buffers before returning (%ld)", label,
          call, after - before);
    CHECK(aq_reset_enqueues_during_reset() == 3,
          "%s: the callback's enqueues during %s got kAudioQueueErr_EnqueueDuringReset (%ld of 3; %ld taken, %ld refused "
          "with %s)",
          label, call, aq_reset_enqueues_during_reset(), aq_reset_enqueues_accepted() - 3,
          aq_reset_enqueues_refused_otherwise(), statusText((OSStatus)aq_reset_last_other_refusal()));
}

static void noneAfter(const char *label, const char *call, long after)
{
    runLoopFor(0.3);
    CHECK(aq_reset_callbacks() == after, "%s: no callback after %s returned (%ld then %ld over 0.3 s)", label, call,
          after, aq_reset_callbacks());
}

static void stopImmediately(int useRunLoop)
{
    char label[96];
    snprintf(label, sizeof label, "Stop(true), %s", useRunLoop ? "run loop not run" : "queue's thread");
    openPlayer(label, useRunLoop);
    startPlayer(label);
    long before = aq_reset_callbacks();
    long status = aq_reset_stop(1);
    long after = aq_reset_callbacks();
    CHECK(status == 0, "%s: AudioQueueStop(true) returned %s", label, statusText((OSStatus)status));
    handedBackDuring(label, "Stop(true)", before, after);
    CHECK(aq_reset_is_running() == 0, "%s: IsRunning 0 when Stop(true) returns", label);
    noneAfter(label, "Stop(true)", after);
    CHECK_STATUS((OSStatus)aq_reset_dispose(1), noErr);
    printf("%s: %ld callbacks\n", label, aq_reset_callbacks());
    alarm(0);
}

static void reset(int useRunLoop)
{
    char label[96];
    snprintf(label, sizeof label, "Reset, %s", useRunLoop ? "run loop not run" : "queue's thread");
    openPlayer(label, useRunLoop);
    startPlayer(label);
    long before = aq_reset_callbacks();
    long status = aq_reset_reset();
    long after = aq_reset_callbacks();
    CHECK(status == 0, "%s: AudioQueueReset returned %s", label, statusText((OSStatus)status));
    handedBackDuring(label, "Reset", before, after);
    CHECK(aq_reset_is_running() == 1, "%s: IsRunning still 1 after Reset", label);

    /* The seek: prime again from the new position; the queue plays on. */
    long acceptedBefore = aq_reset_enqueues_accepted();
    aq_reset_prime();
    CHECK(aq_reset_enqueues_accepted() == acceptedBefore + 3, "%s: the three buffers enqueued again after Reset (%ld)",
          label, aq_reset_enqueues_accepted() - acceptedBefore);
    while (aq_reset_callbacks() == after) runLoopFor(0.01); /* the watchdog bounds it */
    runLoopFor(0.01);
    CHECK(aq_reset_enqueues_accepted() >= acceptedBefore + 4,
          "%s: a buffer played after Reset and the callback's enqueue was taken (%ld taken since)", label,
          aq_reset_enqueues_accepted() - acceptedBefore);
    CHECK(aq_reset_is_running() == 1, "%s: still running", label);
    CHECK_STATUS((OSStatus)aq_reset_stop(1), noErr);
    CHECK_STATUS((OSStatus)aq_reset_dispose(1), noErr);
    printf("%s: %ld callbacks\n", label, aq_reset_callbacks());
    alarm(0);
}

static void disposeImmediately(int useRunLoop)
{
    char label[96];
    snprintf(label, sizeof label, "Dispose(true), %s", useRunLoop ? "run loop not run" : "queue's thread");
    openPlayer(label, useRunLoop);
    startPlayer(label);
    long before = aq_reset_callbacks();
    long status = aq_reset_dispose(1);
    long after = aq_reset_callbacks();
    CHECK(status == 0, "%s: AudioQueueDispose(true) returned %s", label, statusText((OSStatus)status));
    handedBackDuring(label, "Dispose(true)", before, after);
    noneAfter(label, "Dispose(true)", after);
    printf("%s: %ld callbacks\n", label, aq_reset_callbacks());
    alarm(0);
}

static void disposeLater(int useRunLoop, int stoppedFirst)
{
    char label[128];
    snprintf(label, sizeof label, "Dispose(false) of a queue %s, %s",
             stoppedFirst ? "stopped with Stop(true) and primed again" : "never started",
             useRunLoop ? "run loop not run" : "queue's thread");
    openPlayer(label, useRunLoop);
    if (stoppedFirst) {
        startPlayer(label);
        CHECK_STATUS((OSStatus)aq_reset_stop(1), noErr);
        long accepted = aq_reset_enqueues_accepted();
        aq_reset_prime();
        CHECK(aq_reset_enqueues_accepted() == accepted + 3, "%s: three buffers enqueued on the stopped queue (%ld)",
              label, aq_reset_enqueues_accepted() - accepted);
    }
    long before = aq_reset_callbacks();
    long status = aq_reset_dispose(0);
    long after = aq_reset_callbacks();
    CHECK(status == 0, "%s: AudioQueueDispose(false) returned %s", label, statusText((OSStatus)status));
    CHECK(after - before <= 3, "%s: at most the three pending buffers came back during the call (%ld)", label,
          after - before);
    noneAfter(label, "Dispose(false)", after);
    printf("%s: %ld callbacks during Dispose(false), enqueues from them: %ld refused during reset, %ld otherwise\n",
           label, after - before, aq_reset_enqueues_during_reset() - (stoppedFirst ? 3 : 0),
           aq_reset_enqueues_refused_otherwise());
    alarm(0);
}

/* ---- 5: old audio after Reset, as the card hears it ---------------------------------- */

static volatile long toneCallbacks;

static void countBack(void *data, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)data, (void)q, (void)b;
    toneCallbacks++;
}

static void fillTone(AudioQueueBufferRef b, double hz)
{
    SInt16 *samples = (SInt16 *)b->mAudioData;
    UInt32 frames = b->mAudioDataBytesCapacity / 4;
    for (UInt32 i = 0; i < frames; i++)
        samples[2 * i] = samples[2 * i + 1] = (SInt16)(12000 * sin(2 * M_PI * hz * i / 44100.0));
    b->mAudioDataByteSize = frames * 4;
}

/* The card's recording in 10 ms windows, each called 440 Hz or 880 Hz by its rising zero
 * crossings (4.4 or 8.8 a window). Only windows the tone fills count (RMS near the
 * tone's, 8485): one that a gap cuts (the device running dry on a busy machine) holds
 * fewer crossings, as a lower tone would. */
static void heardAfterReset(long *windows440, long *windows880, long *late440)
{
    long frames = 0;
    short *s = cardRecording(&frames);
    int rate = cardPlaybackRate();
    long window = rate / 100, seen880 = 0;
    *windows440 = *windows880 = *late440 = 0;
    for (long start = 0; window > 0 && start + window <= frames; start += window) {
        long crossings = 0;
        double energy = 0;
        for (long i = start + 1; i < start + window; i++) {
            if (s[2 * (i - 1)] < 0 && s[2 * i] >= 0) crossings++;
            energy += (double)s[2 * i] * s[2 * i];
        }
        if (sqrt(energy / (window - 1)) < 7200) continue;
        if (crossings >= 3 && crossings <= 6) {
            (*windows440)++;
            if (seen880 > 2) (*late440)++;
        } else if (crossings >= 7 && crossings <= 11) {
            (*windows880)++;
            seen880++;
        }
    }
    free(s);
}

static void resetHeardOnCard(void)
{
    const char *label = "Reset heard on the card";
    watchdogName = label;
    alarm(30);
    vcard("record-reset");
    AudioStreamBasicDescription f = {44100, kAudioFormatLinearPCM,
                                     kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AudioQueueRef q = NULL;
    CHECK_STATUS(AudioQueueNewOutput(&f, countBack, NULL, NULL, NULL, 0, &q), noErr);
    if (!q) return;
    AudioQueueBufferRef b[4];
    for (int i = 0; i < 4; i++) CHECK_STATUS(AudioQueueAllocateBuffer(q, 22050 * 4, &b[i]), noErr);
    for (int i = 0; i < 3; i++) {
        fillTone(b[i], 440);
        CHECK_STATUS(AudioQueueEnqueueBuffer(q, b[i], 0, NULL), noErr);
    }
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    while (toneCallbacks < 1) usleep(1000);
    CHECK_STATUS(AudioQueueReset(q), noErr);
    long dropped = toneCallbacks - 1;
    fillTone(b[3], 880);
    CHECK_STATUS(AudioQueueEnqueueBuffer(q, b[3], 0, NULL), noErr);
    CHECK_STATUS(AudioQueueStop(q, false), noErr);
    while (toneCallbacks < 2 + dropped) usleep(1000);
    /* The asynchronous stop ends once the device played the last buffer out. */
    UInt32 running = 1, size = sizeof running;
    while (AudioQueueGetProperty(q, kAudioQueueProperty_IsRunning, &running, &size) == noErr && running) usleep(1000);
    CHECK_STATUS(AudioQueueDispose(q, true), noErr);
    long w440 = 0, w880 = 0, late = 0;
    heardAfterReset(&w440, &w880, &late);
    CHECK(dropped == 2, "%s: Reset handed back the two buffers not yet played (%ld)", label, dropped);
    CHECK(w880 >= 30, "%s: the card heard the 880 Hz buffer enqueued after Reset (%ld windows of 10 ms)", label, w880);
    CHECK(w440 >= 25 && w440 <= 90, "%s: the card heard %ld windows of 10 ms of the old 440 Hz: the played buffer and "
          "the device's latency, never the 1 s Reset dropped", label, w440);
    CHECK(late == 0, "%s: %ld windows of 440 Hz after the 880 Hz began", label, late);
    printf("%s: the card heard %.2f s of 440 Hz, then %.2f s of 880 Hz\n", label, w440 / 100.0, w880 / 100.0);
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "aq reset");
    CHECK(mkdtemp(folder) != NULL, "a scratch folder");
    snprintf(path, sizeof path, "%s/loop.wav", folder);
    char command[512];
    snprintf(command, sizeof command, "sox -n -r 44100 -b 16 -c 2 %s synth 2 sine 440 vol 0.5", path);
    CHECK(system(command) == 0, "sox makes the loop");
    CHECK(aq_reset_init(), "the player opens its session");
    harnessAttach();
    for (int useRunLoop = 0; useRunLoop <= 1; useRunLoop++) {
        stopImmediately(useRunLoop);
        reset(useRunLoop);
        disposeImmediately(useRunLoop);
        disposeLater(useRunLoop, 0);
        disposeLater(useRunLoop, 1);
    }
    if (onALSA) resetHeardOnCard();
    watchdogName = "aq reset";
    snprintf(command, sizeof command, "rm -rf %s", folder);
    CHECK(system(command) == 0, "scratch folder removed");
    return finish("aq reset");
}
