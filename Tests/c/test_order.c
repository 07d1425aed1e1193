/*
 * Callbacks arrive in the order of the state changes they report, whatever the
 * concurrency (the world driven from other threads while the main thread delivers):
 *
 *  1. Two threads move the volume and two plug and unplug ports while the main thread
 *     delivers, first through its run loop, then through the pollable descriptor. Each
 *     route change's PreviousRouteDescription is the CurrentRouteDescription of the one
 *     before it; each volume thread's values arrive in the order it set them; after the
 *     threads stop and the queue is drained, the last value each listener saw is what
 *     AudioSessionGetProperty reads. Whenever the producers pause, the descriptor is
 *     readable exactly while callbacks are pending. On the card, which world.h drives
 *     one action at a time, one thread does it all, its volumes rising.
 *  2. Begin and End of an interruption raced from two threads through the in-process
 *     arbiter's own functions: afterwards activation is refused exactly when the
 *     arbiter still has an interruption in progress, and the interruption listener
 *     heard Begin then End.
 *  3. A callback that calls AudioSessionDispatchPendingCallbacks continues the same
 *     queue, in order; a drain from another thread meanwhile returns at once with 0.
 *
 * Runs in every configuration of world.h. Loops are bounded by counts; the alarm only
 * turns a hang into a failure.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "world.h"

/* Each producer makes 20,000 changes, in 20 segments. On the card each change is a
   `vcard` run the session takes in: there one producer makes 2 steps a segment, each a
   volume and a plug. */
enum { SEGMENTS = 20, SEGMENT_STEPS = 1000, CARD_SEGMENT_STEPS = 2, TRIALS = 40, RACE_CALLS = 4000 };

static pthread_t mainThread;

static void drainEverything(void)
{
    runPendingCallbacks();
    AudioSessionDispatchPendingCallbacks(NULL);
}

static Float32 currentVolume(void)
{
    Float32 volume = -1;
    UInt32 size = sizeof volume;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume), noErr);
    return volume;
}

/* ---- 1. ordered delivery under concurrency ----------------------------------------- */

/* Volume thread t sets (2i + t + 1) / 2^17 at its step i: all distinct, exact in a
 * Float32, and the thread and step can be read back from the value. */
static Float32 volumeFor(int thread, int step) { return (Float32)(2 * step + thread + 1) / 131072.0f; }

/* The card's one producer: step i sets a rising level (one round spans 0.20 to 0.98). */
static Float32 cardVolumeFor(int step) { return 0.20f + 0.02f * (Float32)step; }

static int oneProducer; /* the card: one thread makes every change */
static CFDictionaryRef expectedPrevious; /* the Current of the last route change seen */
static int routeCalls, chainBreaks, volumeCalls, volumeOrderBreaks, offMainThread;
static int lastStep[2];
static Float32 lastVolume;
static atomic_int workersDone;

static void routeListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    CFDictionaryRef change = data;
    CFDictionaryRef previous = CFDictionaryGetValue(change, kAudioSession_AudioRouteChangeKey_PreviousRouteDescription);
    CFDictionaryRef current = CFDictionaryGetValue(change, kAudioSession_AudioRouteChangeKey_CurrentRouteDescription);
    routeCalls++;
    if (!pthread_equal(pthread_self(), mainThread)) offMainThread++;
    if (!previous || !current || !expectedPrevious || !CFEqual(previous, expectedPrevious)) {
        if (chainBreaks++ < 3)
            fprintf(stderr, "  route change %d: its Previous is not the Current of the change before it\n", routeCalls);
    }
    if (expectedPrevious) CFRelease(expectedPrevious);
    expectedPrevious = current ? CFRetain(current) : NULL;
}

static void volumeListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    Float32 volume;
    memcpy(&volume, data, sizeof volume);
    volumeCalls++;
    if (!pthread_equal(pthread_self(), mainThread)) offMainThread++;
    Float32 previous = lastVolume;
    lastVolume = volume;
    if (oneProducer) {
        /* One producer, rising levels: each value heard is above the one before. */
        if (!(volume > previous) && volumeOrderBreaks++ < 3)
            fprintf(stderr, "  volume %.4f arrived after %.4f\n", volume, previous);
        return;
    }
    int code = (int)(volume * 131072.0f) - 1;
    int thread = code % 2, step = code / 2;
    if (code < 0 || step <= lastStep[thread]) {
        if (volumeOrderBreaks++ < 3)
            fprintf(stderr, "  volume %.7f (thread %d step %d) arrived after step %d of that thread\n", volume, thread,
                    step, lastStep[thread >= 0 ? thread : 0]);
    } else {
        lastStep[thread] = step;
    }
}

/* The producers run in segments of SEGMENT_STEPS steps; `segment` is the one running. */
static int segment;

static void *volumeWorker(void *argument)
{
    int thread = (int)(intptr_t)argument;
    Float32 expected, tolerance;
    for (int i = segment * SEGMENT_STEPS; i < (segment + 1) * SEGMENT_STEPS; i++)
        worldSetOutputVolume(volumeFor(thread, i), &expected, &tolerance);
    atomic_fetch_add(&workersDone, 1);
    return NULL;
}

static void *headphonesWorker(void *argument)
{
    (void)argument;
    for (int i = segment * SEGMENT_STEPS; i < (segment + 1) * SEGMENT_STEPS; i++)
        worldPlug(kAudioSessionVirtualPort_Headphones, i % 2 == 0);
    atomic_fetch_add(&workersDone, 1);
    return NULL;
}

static void *headsetWorker(void *argument)
{
    (void)argument;
    for (int i = segment * SEGMENT_STEPS; i < (segment + 1) * SEGMENT_STEPS; i++) {
        switch (i % 4) {
        case 0: worldPlug(kAudioSessionVirtualPort_Headset, 1); break;
        case 1: worldPlug(kAudioSessionVirtualPort_LineOut, 1); break;
        case 2: worldPlug(kAudioSessionVirtualPort_Headset, 0); break;
        default: worldPlug(kAudioSessionVirtualPort_LineOut, 0); break;
        }
    }
    atomic_fetch_add(&workersDone, 1);
    return NULL;
}

/* The card's one producer: a rising volume, then headphones or line out plugged or
   unplugged (each plug takes the route from the speaker, each unplug back). */
static void *cardWorker(void *argument)
{
    (void)argument;
    Float32 expected, tolerance;
    for (int i = segment * CARD_SEGMENT_STEPS; i < (segment + 1) * CARD_SEGMENT_STEPS; i++) {
        worldSetOutputVolume(cardVolumeFor(i), &expected, &tolerance);
        worldPlug(i / 2 % 2 == 0 ? kAudioSessionVirtualPort_Headphones : kAudioSessionVirtualPort_LineOut, i % 2 == 0);
    }
    atomic_fetch_add(&workersDone, 1);
    return NULL;
}

/* One round: four producers (on the card, one), the main thread delivering through the
 * run loop or through the descriptor until they are done, then the final comparison.
 * The producers stop at the end of each segment; with nothing moving, the descriptor
 * must be readable exactly when callbacks are pending (a drain there tells), and not
 * once they are drained. */
static void orderRound(const char *how, int useDescriptor)
{
    alarm(300);
    drainEverything();
    routeCalls = chainBreaks = volumeCalls = volumeOrderBreaks = offMainThread = 0;
    lastStep[0] = lastStep[1] = -1;
    lastVolume = -1;
    if (expectedPrevious) CFRelease(expectedPrevious);
    expectedPrevious = currentRoute();
    int fd = -1;
    AudioSessionGetCallbackFileDescriptor(&fd);
    int lostWakeups = 0, spuriousWakeups = 0, notCleared = 0;

    for (segment = 0; segment < SEGMENTS; segment++) {
        atomic_store(&workersDone, 0);
        pthread_t workers[4];
        int count = oneProducer ? 1 : 4;
        if (oneProducer) {
            pthread_create(&workers[0], NULL, cardWorker, NULL);
        } else {
            pthread_create(&workers[0], NULL, volumeWorker, (void *)0);
            pthread_create(&workers[1], NULL, volumeWorker, (void *)1);
            pthread_create(&workers[2], NULL, headphonesWorker, NULL);
            pthread_create(&workers[3], NULL, headsetWorker, NULL);
        }
        while (atomic_load(&workersDone) < count) {
            if (!useDescriptor) {
                CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
            } else {
                struct pollfd p = {fd, POLLIN, 0};
                if (poll(&p, 1, 10) == 1) AudioSessionDispatchPendingCallbacks(NULL);
            }
        }
        for (int i = 0; i < count; i++) pthread_join(workers[i], NULL);
        int readable = fdReadable(fd);
        UInt32 ran = 0;
        AudioSessionDispatchPendingCallbacks(&ran);
        if (ran > 0 && !readable) lostWakeups++;
        if (ran == 0 && readable) spuriousWakeups++;
        if (fdReadable(fd)) notCleared++;
    }
    runPendingCallbacks();
    AudioSessionDispatchPendingCallbacks(NULL);

    CHECK(lostWakeups == 0, "%s: at %d of %d stops callbacks were pending but the descriptor was not readable", how,
          lostWakeups, SEGMENTS);
    CHECK(spuriousWakeups == 0, "%s: at %d of %d stops the descriptor was readable with nothing pending", how,
          spuriousWakeups, SEGMENTS);
    CHECK(notCleared == 0, "%s: at %d of %d stops the descriptor stayed readable after a drain", how, notCleared, SEGMENTS);
    CHECK(!fdReadable(fd), "%s: the descriptor is not readable once drained", how);
    CHECK(routeCalls > 0 && volumeCalls > 0, "%s: callbacks arrived (%d route, %d volume)", how, routeCalls, volumeCalls);
    CHECK(chainBreaks == 0, "%s: %d of %d route changes do not continue the one before", how, chainBreaks, routeCalls);
    CHECK(volumeOrderBreaks == 0, "%s: %d of %d volume callbacks older than one before them", how, volumeOrderBreaks,
          volumeCalls);
    CHECK(offMainThread == 0, "%s: %d callbacks off the main thread", how, offMainThread);
    Float32 volume = currentVolume();
    CHECK(lastVolume == volume, "%s: last volume heard %.7f, Get reads %.7f", how, lastVolume, volume);
    CFDictionaryRef route = currentRoute();
    CHECK(route && expectedPrevious && CFEqual(route, expectedPrevious),
          "%s: the last route change's Current is the route Get reads", how);
    if (route) CFRelease(route);
    printf("  %s: %d route changes, %d volume callbacks\n", how, routeCalls, volumeCalls);
}

/* ---- 2. Begin / End raced ------------------------------------------------------------ */

static UInt32 interruptionStates[8];
static int interruptionCount;

static void interruptionListener(void *clientData, UInt32 state)
{
    (void)clientData;
    if (interruptionCount < 8) interruptionStates[interruptionCount] = state;
    interruptionCount++;
}

/* The two racers share one budget of calls and start together at a barrier, so they
 * overlap up to their very last calls (a lone thread would leave a consistent state). */
static atomic_int raceBudget;
static pthread_barrier_t raceStart;

static void *racer(void *argument)
{
    int beginFirst = argument != NULL;
    pthread_barrier_wait(&raceStart);
    for (int i = 0; atomic_fetch_sub(&raceBudget, 1) > 0; i++) {
        if ((i % 2 == 0) == beginFirst) AudioSessionVirtualDeviceBeginInterruption();
        else AudioSessionVirtualDeviceEndInterruption(1);
    }
    return NULL;
}

static void interruptionRace(void)
{
    if (worldInProcessArbiter() == WORLD_CANNOT) {
        /* The race is of the in-process arbiter's own functions: with audiosessiond they
           answer kAudioServicesNoHardwareError (AudioSessionLinux.h). */
        worldSkip("Begin and End raced from two threads");
        CHECK_STATUS(AudioSessionVirtualDeviceBeginInterruption(), kAudioServicesNoHardwareError);
        CHECK_STATUS(AudioSessionVirtualDeviceEndInterruption(1), kAudioServicesNoHardwareError);
        return;
    }
    pthread_barrier_init(&raceStart, NULL, 2);
    int invariantBroken = 0, secondEndAccepted = 0, stuck = 0, badSequence = 0, stillInterrupted = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        alarm(120);
        OSStatus activated = AudioSessionSetActive(true);
        if (activated != noErr) {
            if (stuck++ < 3) {
                char c[16];
                fprintf(stderr, "  trial %d: activation before the race refused (%s)\n", trial, fourcc(activated, c));
            }
        }
        drainEverything();
        interruptionCount = 0;
        atomic_store(&raceBudget, RACE_CALLS);
        pthread_t a, b;
        pthread_create(&a, NULL, racer, (void *)1);
        pthread_create(&b, NULL, racer, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);

        OSStatus active = AudioSessionSetActive(true);
        OSStatus ended = AudioSessionVirtualDeviceEndInterruption(1);
        int inProgress = ended == noErr;
        if ((active == kAudioSessionUnspecifiedError) != inProgress || (active != noErr && active != kAudioSessionUnspecifiedError)) {
            if (invariantBroken++ < 3) {
                char c1[16], c2[16];
                fprintf(stderr, "  trial %d: SetActive(true) %s but EndInterruption %s\n", trial, fourcc(active, c1),
                        fourcc(ended, c2));
            }
        }
        if (AudioSessionVirtualDeviceEndInterruption(1) == noErr) secondEndAccepted++;
        if (AudioSessionSetActive(true) != noErr) stillInterrupted++;
        AudioSessionSetActive(false);
        drainEverything();
        /* The session was active once, so it heard exactly one Begin and then one End
           (during the race, or from the End above). */
        if (!(interruptionCount == 2 && interruptionStates[0] == kAudioSessionBeginInterruption &&
              interruptionStates[1] == kAudioSessionEndInterruption)) {
            if (badSequence++ < 3)
                fprintf(stderr, "  trial %d: interruption listener heard %d calls, first %u\n", trial, interruptionCount,
                        interruptionCount ? (unsigned)interruptionStates[0] : 0u);
        }
        /* Reset for the next trial even when the session and the device disagree:
           a Begin/End pair seen by both brings them back together. */
        if (AudioSessionSetActive(true) != noErr) {
            AudioSessionVirtualDeviceBeginInterruption();
            AudioSessionVirtualDeviceEndInterruption(0);
        }
        AudioSessionSetActive(false);
        drainEverything();
    }
    CHECK(invariantBroken == 0, "interruption race: in %d of %d trials activation disagreed with the device", invariantBroken, TRIALS);
    CHECK(secondEndAccepted == 0, "interruption race: a second End succeeded in %d trials", secondEndAccepted);
    CHECK(stillInterrupted == 0, "interruption race: activation refused after the End in %d trials", stillInterrupted);
    CHECK(stuck == 0, "interruption race: activation refused before %d trials", stuck);
    CHECK(badSequence == 0, "interruption race: %d trials did not hear exactly Begin, End", badSequence);
}

/* ---- 3. nested dispatch ------------------------------------------------------------- */

static Float32 received[64];
static int receivedCount, nestedStarted, wrongThreadCalls;
static OSStatus nestedStatus = 1, otherStatus = 1;
static UInt32 otherCount = 99;

/* The k-th volume of the nested test: increasing with k. */
static Float32 nestedVolume(int k) { return 0.10f + 0.01f * (Float32)k; }
/* What the session reads for each (world.h), within nestedTolerance. */
static Float32 nestedExpected[8], nestedTolerance;
static Float32 crossExpected, crossTolerance;

static void record(Float32 volume)
{
    if (!pthread_equal(pthread_self(), mainThread)) wrongThreadCalls++;
    if (receivedCount < 64) received[receivedCount] = volume;
    receivedCount++;
}

static void nestingListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    Float32 volume;
    memcpy(&volume, data, sizeof volume);
    record(volume);
    if (nestedStarted++) return;
    /* A porting user's listener: change the volume again and flush right here. */
    for (int k = 3; k < 8; k++) worldSetOutputVolume(nestedVolume(k), &nestedExpected[k], &nestedTolerance);
    nestedStatus = AudioSessionDispatchPendingCallbacks(NULL);
}

static void *otherThreadDrain(void *argument)
{
    (void)argument;
    otherStatus = AudioSessionDispatchPendingCallbacks(&otherCount);
    return NULL;
}

static void crossThreadListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    Float32 volume;
    memcpy(&volume, data, sizeof volume);
    record(volume);
    if (nestedStarted++) return;
    worldSetOutputVolume(0.30f, &crossExpected, &crossTolerance);
    worldSetOutputVolume(0.31f, &crossExpected, &crossTolerance);
    pthread_t other;
    pthread_create(&other, NULL, otherThreadDrain, NULL);
    pthread_join(other, NULL);
}

/* A route change in the log of received values. */
#define ROUTE_MARK (-1.0f)

static void nestedRouteListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size; (void)data;
    record(ROUTE_MARK);
}

/* The volumes received (route marks skipped) only ever increase. */
static int strictlyIncreasing(void)
{
    Float32 last = 0;
    for (int i = 0; i < receivedCount && i < 64; i++) {
        if (received[i] == ROUTE_MARK) continue;
        if (!(received[i] > last)) return 0;
        last = received[i];
    }
    return 1;
}

static int indexOf(int (*matches)(Float32))
{
    for (int i = 0; i < receivedCount && i < 64; i++)
        if (matches(received[i])) return i;
    return -1;
}
static int isRouteMark(Float32 value) { return value == ROUTE_MARK; }
/* Above what was set last before the callback: one of the volumes set inside it. */
static int isSetInsideCallback(Float32 value) { return value > nestedExpected[2] + nestedTolerance; }

static void printReceived(const char *title)
{
    printf("  %s:", title);
    for (int i = 0; i < receivedCount && i < 64; i++) {
        if (received[i] == ROUTE_MARK) printf(" route");
        else printf(" %.2f", received[i]);
    }
    printf("\n");
}

static void nestedDispatch(void)
{
    alarm(120);
    AudioSessionRemovePropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume);
    AudioSessionRemovePropertyListener(kAudioSessionProperty_AudioRouteChange);
    Float32 expected, tolerance;
    worldSetOutputVolume(0.05f, &expected, &tolerance);
    drainEverything();

    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, nestingListener, NULL), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, nestedRouteListener, NULL), noErr);
    receivedCount = nestedStarted = wrongThreadCalls = 0;
    /* Three volumes and a route change wait in the queue; the first callback sets five
       more volumes and drains: that drain goes on with the route change (queued before
       them), then the new volumes. */
    for (int k = 0; k < 3; k++) worldSetOutputVolume(nestedVolume(k), &nestedExpected[k], &nestedTolerance);
    worldPlug(kAudioSessionVirtualPort_Headphones, 1);
    UInt32 ran = 0;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    drainEverything();
    printReceived("nested dispatch heard");
    CHECK(nestedStarted > 0 && nestedStatus == noErr, "nested dispatch ran (status %d)", (int)nestedStatus);
    CHECK(strictlyIncreasing(), "nested dispatch: volumes arrive in the order they were set");
    int route = indexOf(isRouteMark), inside = indexOf(isSetInsideCallback);
    CHECK(route >= 0 && inside >= 0 && route < inside,
          "nested dispatch: the route change queued before the callback's volumes arrives before them (%d, %d)", route,
          inside);
    Float32 volume = currentVolume();
    CHECK(receivedCount > 0 && received[(receivedCount < 64 ? receivedCount : 64) - 1] == volume &&
              fabsf(volume - nestedExpected[7]) <= nestedTolerance,
          "nested dispatch: the last value heard is the volume (%.2f)", volume);
    CHECK_STATUS(AudioSessionRemovePropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume), noErr);
    CHECK_STATUS(AudioSessionRemovePropertyListener(kAudioSessionProperty_AudioRouteChange), noErr);
    worldPlug(kAudioSessionVirtualPort_Headphones, 0);
    drainEverything();

    /* While the main thread delivers, a drain from another thread returns at once. */
    alarm(120);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, crossThreadListener, NULL), noErr);
    receivedCount = nestedStarted = wrongThreadCalls = 0;
    worldSetOutputVolume(0.20f, &expected, &tolerance);
    ran = 0;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    drainEverything();
    CHECK(otherStatus == noErr && otherCount == 0, "a drain from another thread during delivery runs nothing (status %d, count %u)",
          (int)otherStatus, (unsigned)otherCount);
    CHECK(wrongThreadCalls == 0, "%d callbacks ran on the other thread", wrongThreadCalls);
    printReceived("cross-thread drain heard");
    CHECK(receivedCount >= 2 && strictlyIncreasing() &&
              fabsf(received[(receivedCount < 64 ? receivedCount : 64) - 1] - crossExpected) <= crossTolerance,
          "the delivering thread delivered the rest, in order (%d calls)", receivedCount);
    CHECK(ran >= 2, "the outer dispatch counts the callbacks it ran after the inner one (%u)", (unsigned)ran);
    CHECK_STATUS(AudioSessionRemovePropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume), noErr);
}

int main(void)
{
    installWatchdog("order");
    mainThread = pthread_self();
    oneProducer = worldOnCard();
    CHECK_STATUS(AudioSessionInitialize(CFRunLoopGetMain(), kCFRunLoopDefaultMode, interruptionListener, NULL), noErr);
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, routeListener, NULL), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeListener, NULL), noErr);

    orderRound("run loop", 0);
    orderRound("descriptor", 1);
    if (expectedPrevious) CFRelease(expectedPrevious);
    expectedPrevious = NULL;

    category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetActive(false);
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    interruptionRace();

    nestedDispatch();
    alarm(0);
    return worldFinish("order");
}
