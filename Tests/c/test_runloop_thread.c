/*
 * SPEC 6: callbacks run on the run loop and mode given to AudioSessionInitialize.
 * Here that is a worker thread's run loop in a custom mode: running the main run loop,
 * or the worker's in the default mode, delivers nothing; running the worker's in the
 * custom mode delivers every callback, on the worker thread. Runs in every
 * configuration of world.h.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <pthread.h>
#include <stdatomic.h>
#include "check.h"
#include "world.h"

static CFRunLoopRef workerLoop;
static pthread_t worker;
static atomic_int ready, stop;
static atomic_int volumeCalls, interruptionCalls, wrongThreadCalls;
static _Atomic float lastVolume;
static CFStringRef customMode;

static void volumeListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    if (!pthread_equal(pthread_self(), worker)) atomic_fetch_add(&wrongThreadCalls, 1);
    atomic_store(&lastVolume, *(const Float32 *)data);
    atomic_fetch_add(&volumeCalls, 1);
}

static void interruptionListener(void *clientData, UInt32 state)
{
    (void)clientData; (void)state;
    if (!pthread_equal(pthread_self(), worker)) atomic_fetch_add(&wrongThreadCalls, 1);
    atomic_fetch_add(&interruptionCalls, 1);
}

static void *workerMain(void *unused)
{
    (void)unused;
    workerLoop = CFRunLoopGetCurrent();
    CFRetain(workerLoop);
    atomic_store(&ready, 1);
    /* Wait until the main thread has initialised the session on this run loop. */
    while (atomic_load(&ready) != 2) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    while (!atomic_load(&stop)) CFRunLoopRunInMode(customMode, 0.05, true);
    return NULL;
}

int main(void)
{
    installWatchdog("run loop on a worker thread");
    alarm(120);
    customMode = CFSTR("org.example.audio-session-mode");
    pthread_create(&worker, NULL, workerMain, NULL);
    while (atomic_load(&ready) == 0) { struct timespec p = {0, 1000000}; nanosleep(&p, NULL); }

    CHECK_STATUS(AudioSessionInitialize(workerLoop, customMode, interruptionListener, NULL), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeListener, NULL), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);

    /* The main run loop is not the session's: running it delivers nothing. */
    Float32 expected = 0, tolerance = 0;
    worldSetOutputVolume(0.3f, &expected, &tolerance);
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, false);
    CHECK(atomic_load(&volumeCalls) == 0, "the main run loop delivered a callback");

    /* Queue the rest, then let the worker run its loop in the custom mode: everything
       arrives there. (Releasing the worker first would let it deliver 0.3 before 0.4
       is set, and the two would not coalesce.) The volume's callback already waits, so
       the call's Begin and End are not awaited: with audiosessiond they may reach the
       session after the worker runs, and arrive there all the same. */
    worldInterruptionSoon(1, 1);
    worldInterruptionSoon(0, 1);
    worldSetOutputVolume(0.4f, &expected, &tolerance);
    atomic_store(&ready, 2);
    /* Completion is awaited without a time limit of its own: a missing callback hangs
       the test, which the watchdog reports, rather than making a timed assertion. */
    while (fabsf(atomic_load(&lastVolume) - expected) > tolerance || atomic_load(&interruptionCalls) < 2) {
        struct timespec p = {0, 1000000};
        nanosleep(&p, NULL);
    }
    atomic_store(&stop, 1);
    CFRunLoopWakeUp(workerLoop);
    pthread_join(worker, NULL);

    /* 0.3 was still undelivered when 0.4 was set: the two coalesce into one call with
       the newest value. */
    CHECK(atomic_load(&volumeCalls) == 1, "one volume callback (got %d)", atomic_load(&volumeCalls));
    CHECK(atomic_load(&interruptionCalls) == 2, "Begin and End delivered (got %d)", atomic_load(&interruptionCalls));
    CHECK(atomic_load(&wrongThreadCalls) == 0, "every callback ran on the worker thread");
    alarm(0);
    return worldFinish("run loop on a worker thread");
}
