/*
 * A program that never runs its run loop (or is stuck for a long time) must not make
 * the library's callback queue grow without bound. While undelivered, notifications
 * of one property coalesce (the newest value wins), route changes merge (Previous of
 * the earliest, Current and reason of the newest), and an interruption Begin or End
 * coalesces with a pending one of its kind.
 *
 * One million events (volume changes, headset plugs and unplugs, interruptions) with
 * no delivery: the heap grows by less than 1 MiB; one drain then runs a handful of
 * callbacks, which report the final state, and the heap comes back to where it was.
 * "Heap in use" is glibc's mallinfo2(): uordblks (arena chunks) plus hblkhd (chunks
 * big enough to be mmapped on their own, such as one large array).
 *
 * Runs in every configuration of world.h. On the card each plug and volume change is a
 * `vcard` run the session takes in, so the flood there is 576 events; with
 * audiosessiond the interruptions are left out of it (world.h says why).
 */
#include <AudioToolbox/AudioToolbox.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "world.h"

enum { EVENTS = 1000000, MAX_CALLBACKS = 64 };
/* On the card: 9 blocks of 64 (an odd number, so the headset ends plugged), after 2. */
enum { CARD_EVENTS = 64 * 9, CARD_WARMUP = 64 * 2 };
#define MAX_GROWTH 1048576L
#define MAX_LEFTOVER (256L * 1024L)

static long heapInUse(void)
{
    struct mallinfo2 info = mallinfo2();
    return (long)(info.uordblks + info.hblkhd);
}

/* ---- what the callbacks saw ------------------------------------------------------ */

static int callbacks, routeCalls, volumeCalls, interruptionCalls;
static CFDictionaryRef firstPrevious, lastCurrent; /* retained */
static Float32 lastVolume = -1;
static UInt32 lastInterruption;

static void listener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData;
    callbacks++;
    if (id == kAudioSessionProperty_AudioRouteChange) {
        CFDictionaryRef change = data;
        if (routeCalls++ == 0) {
            CFDictionaryRef previous = CFDictionaryGetValue(change, kAudioSession_AudioRouteChangeKey_PreviousRouteDescription);
            firstPrevious = previous ? CFRetain(previous) : NULL;
        }
        if (lastCurrent) CFRelease(lastCurrent);
        CFDictionaryRef current = CFDictionaryGetValue(change, kAudioSession_AudioRouteChangeKey_CurrentRouteDescription);
        lastCurrent = current ? CFRetain(current) : NULL;
    } else if (id == kAudioSessionProperty_CurrentHardwareOutputVolume && size == sizeof(Float32)) {
        volumeCalls++;
        memcpy(&lastVolume, data, sizeof lastVolume);
    }
}

static void interruptionListener(void *clientData, UInt32 state)
{
    (void)clientData;
    callbacks++;
    interruptionCalls++;
    lastInterruption = state;
}

static void resetSeen(void)
{
    callbacks = routeCalls = volumeCalls = interruptionCalls = 0;
    if (firstPrevious) CFRelease(firstPrevious);
    if (lastCurrent) CFRelease(lastCurrent);
    firstPrevious = lastCurrent = NULL;
    lastVolume = -1;
}

/* ---- the flood --------------------------------------------------------------------- */

/* Events come in blocks of 64: a headset plug or unplug, a volume change (alternating
 * between two values) and an interruption step (Begin, or End followed by a
 * reactivation) in turn, and a last interruption step. Per block 21 plugs and 22
 * interruption steps, so over 15,625 blocks the headset ends plugged (the route differs
 * from the one before) and the interruptions end with an End. Each is taken in by the
 * session before the next, with nothing delivered. */
static int interruptionsLeftOut;

static void event(long i)
{
    static int volumeToggle, headsetPlugged, interrupted;
    int j = (int)(i % 64), kind = j == 63 ? 2 : j % 3;
    if (kind == 0) {
        worldPlug(kAudioSessionVirtualPort_Headset, !headsetPlugged);
        headsetPlugged = !headsetPlugged;
    } else if (kind == 1) {
        Float32 expected, tolerance;
        worldSetOutputVolume(volumeToggle ? 0.75f : 0.25f, &expected, &tolerance);
        volumeToggle = !volumeToggle;
    } else if (!interruptionsLeftOut) {
        if (worldInterruptionNow(!interrupted, 1) == WORLD_CANNOT) {
            worldSkip("interruptions in the flood");
            interruptionsLeftOut = 1;
            return;
        }
        if (interrupted) AudioSessionSetActive(true);
        interrupted = !interrupted;
    }
}

static const AudioSessionPropertyID listened[] = {
    kAudioSessionProperty_AudioRouteChange,
    kAudioSessionProperty_CurrentHardwareOutputVolume,
    kAudioSessionProperty_AudioInputAvailable,
    kAudioSessionProperty_InputSources,
    kAudioSessionProperty_OutputDestinations,
    kAudioSessionProperty_CurrentHardwareInputNumberChannels,
    kAudioSessionProperty_CurrentHardwareOutputNumberChannels,
};

int main(void)
{
    installWatchdog("queue bound");
    alarm(300);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, NULL), noErr);
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    for (size_t i = 0; i < sizeof listened / sizeof listened[0]; i++)
        CHECK_STATUS(AudioSessionAddPropertyListener(listened[i], listener, NULL), noErr);
    int fd = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&fd), noErr);

    /* A first small round, delivered, so that whatever the library and CF allocate
       once is allocated before the measurement. */
    long events = worldOnCard() ? CARD_EVENTS : EVENTS, warmup = worldOnCard() ? CARD_WARMUP : 64 * 20;
    for (long i = 0; i < warmup; i++) event(i);
    AudioSessionDispatchPendingCallbacks(NULL);
    Float32 expected = 0, tolerance = 0;
    worldSetOutputVolume(0.5f, &expected, &tolerance);
    AudioSessionDispatchPendingCallbacks(NULL);
    resetSeen();

    CFDictionaryRef routeBefore = currentRoute();
    long heapBefore = heapInUse();
    for (long i = 0; i < events; i++) event(i);
    long heapFlooded = heapInUse();
    CHECK(heapFlooded - heapBefore < MAX_GROWTH, "%ld undelivered events grew the heap by %ld bytes (limit %ld)", events,
          heapFlooded - heapBefore, MAX_GROWTH);
    CHECK(callbacks == 0, "nothing was delivered while nobody drained (%d)", callbacks);
    CHECK(fdReadable(fd), "the descriptor is readable while callbacks are pending");

    UInt32 ran = 0;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    printf("  %ld events: heap +%ld bytes undelivered; the drain ran %u callbacks (%d route, %d volume, %d interruption)\n",
           events, heapFlooded - heapBefore, (unsigned)ran, routeCalls, volumeCalls, interruptionCalls);
    CHECK(ran <= MAX_CALLBACKS, "the drain ran %u callbacks (at most %d expected)", (unsigned)ran, MAX_CALLBACKS);
    CHECK(callbacks == (int)ran, "the count matches the callbacks that ran (%d, %u)", callbacks, (unsigned)ran);
    CHECK(!fdReadable(fd), "drained: the descriptor is not readable");

    /* The route changes merged, at most one per reason (SPEC 6: none lost), and their
     * chain spans the whole flood. */
    CFDictionaryRef routeAfter = currentRoute();
    CHECK(routeCalls >= 1 && routeCalls <= 8, "the route changes merged into 1 to 8 calls (%d)", routeCalls);
    CHECK(routeBefore && firstPrevious && CFEqual(firstPrevious, routeBefore),
          "the first route change's Previous is the route before the flood");
    CHECK(routeAfter && lastCurrent && CFEqual(lastCurrent, routeAfter),
          "the last route change's Current is the route after the flood");
    CHECK(routeBefore && routeAfter && !CFEqual(routeBefore, routeAfter), "the flood left another route (headset plugged)");

    /* The volume coalesced to its newest value. */
    Float32 volume = -1;
    UInt32 size = sizeof volume;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume), noErr);
    CHECK(volumeCalls == 1 && lastVolume == volume, "one volume callback with the newest value (%d calls, %.2f, Get %.2f)",
          volumeCalls, lastVolume, volume);
    if (!interruptionsLeftOut)
        CHECK(interruptionCalls <= 2 && (interruptionCalls == 0 || lastInterruption == kAudioSessionEndInterruption),
              "interruptions coalesced, ending with End (%d calls)", interruptionCalls);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);

    long heapDrained = heapInUse();
    CHECK(heapDrained - heapBefore < MAX_LEFTOVER, "after the drain the heap is %ld bytes above its size before the flood",
          heapDrained - heapBefore);

    /* The queue still works normally afterwards. */
    resetSeen();
    worldSetOutputVolume(0.3f, &expected, &tolerance);
    CHECK(fdReadable(fd), "a new callback makes the descriptor readable again");
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    CHECK(ran == 1 && volumeCalls == 1 && fabsf(lastVolume - expected) <= tolerance,
          "one more volume callback afterwards (%u)", (unsigned)ran);
    CHECK(!fdReadable(fd), "and the descriptor is quiet again");

    if (routeBefore) CFRelease(routeBefore);
    if (routeAfter) CFRelease(routeAfter);
    resetSeen();
    alarm(0);
    return worldFinish("queue bound");
}
