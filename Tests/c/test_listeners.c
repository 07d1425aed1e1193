/*
 * Listeners and interruptions through the installed library, on the main run loop
 * (AudioSessionInitialize with NULL run loop and mode), and through the pollable
 * descriptor: SPEC.md sections 3 and 6. Runs in every configuration of world.h.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include "check.h"
#include "world.h"

/* ---- recording what the callbacks saw ------------------------------------------- */

enum { MAX_CALLS = 64 };
typedef struct {
    int tag;                    /* which procedure */
    void *clientData;
    AudioSessionPropertyID id;
    UInt32 size;
    Float32 floatValue;
    UInt32 uintValue;
    SInt32 reason;
    char oldRoute[64];
    CFStringRef previousOutput, currentOutput;   /* retained */
    int onMainThread;
} Call;

static Call calls[MAX_CALLS];
static int callCount;
static pthread_t mainThread;

static void resetCalls(void)
{
    for (int i = 0; i < callCount; i++) {
        if (calls[i].previousOutput) CFRelease(calls[i].previousOutput);
        if (calls[i].currentOutput) CFRelease(calls[i].currentOutput);
    }
    memset(calls, 0, sizeof calls);
    callCount = 0;
}

static CFStringRef firstOutputType(CFDictionaryRef description)
{
    if (!description) return NULL;
    CFArrayRef outputs = CFDictionaryGetValue(description, kAudioSession_AudioRouteKey_Outputs);
    if (!outputs || CFArrayGetCount(outputs) == 0) return NULL;
    CFDictionaryRef port = CFArrayGetValueAtIndex(outputs, 0);
    CFStringRef type = CFDictionaryGetValue(port, kAudioSession_AudioRouteKey_Type);
    return type ? CFRetain(type) : NULL;
}

static Call *record(int tag, void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    if (callCount == MAX_CALLS) return NULL;
    Call *call = &calls[callCount++];
    call->tag = tag;
    call->clientData = clientData;
    call->id = id;
    call->size = size;
    call->onMainThread = pthread_equal(pthread_self(), mainThread);
    if (id == kAudioSessionProperty_AudioRouteChange) {
        CFDictionaryRef change = (CFDictionaryRef)data;
        CFNumberRef reason = CFDictionaryGetValue(change, CFSTR(kAudioSession_AudioRouteChangeKey_Reason));
        if (reason) CFNumberGetValue(reason, kCFNumberSInt32Type, &call->reason);
        CHECK(CFDictionaryGetValue(change, kAudioSession_RouteChangeKey_Reason) == reason,
              "the CFString Reason key finds the same number");
        CFStringRef old = CFDictionaryGetValue(change, CFSTR(kAudioSession_AudioRouteChangeKey_OldRoute));
        if (old) CFStringGetCString(old, call->oldRoute, sizeof call->oldRoute, kCFStringEncodingUTF8);
        call->previousOutput = firstOutputType(
            CFDictionaryGetValue(change, kAudioSession_AudioRouteChangeKey_PreviousRouteDescription));
        call->currentOutput = firstOutputType(
            CFDictionaryGetValue(change, kAudioSession_AudioRouteChangeKey_CurrentRouteDescription));
    } else if (size == sizeof(Float32) && id == kAudioSessionProperty_CurrentHardwareOutputVolume) {
        memcpy(&call->floatValue, data, sizeof(Float32));
    } else if (size == sizeof(UInt32)) {
        memcpy(&call->uintValue, data, sizeof(UInt32));
    }
    return call;
}

static void listenerA(void *c, AudioSessionPropertyID id, UInt32 size, const void *data) { record('A', c, id, size, data); }
static void listenerB(void *c, AudioSessionPropertyID id, UInt32 size, const void *data) { record('B', c, id, size, data); }

static UInt32 interruptionStates[8];
static int interruptionCount;
static OSStatus typeStatusInEnd;
static UInt32 typeInEnd;
static int activeCallInBegin;
static OSStatus reactivateInEnd = 1;

static void interruptionListener(void *clientData, UInt32 state)
{
    CHECK(clientData == (void *)&interruptionCount, "interruption client data passed through");
    CHECK(pthread_equal(pthread_self(), mainThread), "interruption listener runs on the main run loop's thread");
    if (interruptionCount < 8) interruptionStates[interruptionCount++] = state;
    if (state == kAudioSessionBeginInterruption) {
        /* Begin arrives after the session was made inactive: deactivating again is a no-op
           and a new activation is refused while the interruption lasts. */
        activeCallInBegin = (int)AudioSessionSetActive(true);
    } else {
        UInt32 size = sizeof typeInEnd;
        typeStatusInEnd = AudioSessionGetProperty(kAudioSessionProperty_InterruptionType, &size, &typeInEnd);
        reactivateInEnd = AudioSessionSetActive(true);
    }
}

/* ---- re-entrant listeners ------------------------------------------------------- */

static int selfRemovingCalls, addedFromCallbackCalls, victimCalls;
static OSStatus getInsideCallback = 1, setInsideCallback = 1;

static void addedFromCallback(void *c, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)c; (void)id; (void)size; (void)data;
    addedFromCallbackCalls++;
}

static void victim(void *c, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)c; (void)id; (void)size; (void)data;
    victimCalls++;
}

static void selfRemoving(void *c, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)size; (void)data;
    selfRemovingCalls++;
    AudioSessionRemovePropertyListenerWithUserData(id, selfRemoving, c);
    AudioSessionRemovePropertyListenerWithUserData(id, victim, (void *)2);
    AudioSessionAddPropertyListener(id, addedFromCallback, (void *)3);
    Float32 volume = 0;
    UInt32 volumeSize = sizeof volume;
    getInsideCallback = AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &volumeSize, &volume);
    UInt32 category = kAudioSessionCategory_AmbientSound;
    setInsideCallback = AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
}

/* ---- helpers --------------------------------------------------------------------- */

static OSStatus setU32(AudioSessionPropertyID id, UInt32 value)
{
    return AudioSessionSetProperty(id, sizeof value, &value);
}

int main(void)
{
    mainThread = pthread_self();
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, &interruptionCount), noErr);
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_MediaPlayback), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);

    /* SPEC 6: callbacks run on the run loop, only when it runs. */
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, listenerA, (void *)1), noErr);
    Float32 expected = 0, tolerance = 0;
    worldSetOutputVolume(0.25f, &expected, &tolerance);
    CHECK(callCount == 0, "no callback before the run loop runs (got %d)", callCount);
    runPendingCallbacks();
    CHECK(callCount == 1, "one volume callback (got %d)", callCount);
    CHECK(calls[0].tag == 'A' && calls[0].clientData == (void *)1, "listener A with its client data");
    CHECK(calls[0].id == kAudioSessionProperty_CurrentHardwareOutputVolume && calls[0].size == sizeof(Float32),
          "volume listener gets the ID and a Float32");
    CHECK(fabsf(calls[0].floatValue - expected) <= tolerance, "volume listener sees the new volume (got %f, expected %f)",
          calls[0].floatValue, expected);
    CHECK(calls[0].onMainThread, "listener runs on the main thread");
    resetCalls();

    /* SPEC 3: one listener per (id, clientData): adding again replaces the procedure. */
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, listenerB, (void *)1), noErr);
    worldSetOutputVolume(0.5f, &expected, &tolerance);
    runPendingCallbacks();
    CHECK(callCount == 1 && calls[0].tag == 'B', "the same pair replaced A with B (calls %d)", callCount);
    resetCalls();

    /* Different client data gives a second listener on the same property. */
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, listenerA, (void *)2), noErr);
    worldSetOutputVolume(0.75f, &expected, &tolerance);
    runPendingCallbacks();
    CHECK(callCount == 2, "two listeners for two client data values (got %d)", callCount);
    resetCalls();

    /* RemoveWithUserData removes only the matching (proc, clientData). */
    CHECK_STATUS(AudioSessionRemovePropertyListenerWithUserData(kAudioSessionProperty_CurrentHardwareOutputVolume, listenerB, (void *)2), noErr);
    CHECK_STATUS(AudioSessionRemovePropertyListenerWithUserData(kAudioSessionProperty_CurrentHardwareOutputVolume, listenerA, (void *)2), noErr);
    worldSetOutputVolume(0.5f, &expected, &tolerance);
    runPendingCallbacks();
    CHECK(callCount == 1 && calls[0].tag == 'B' && calls[0].clientData == (void *)1,
          "only (B, 1) is left (calls %d)", callCount);
    resetCalls();

    /* The deprecated removal takes every listener of the property. */
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, listenerA, (void *)5), noErr);
    CHECK_STATUS(AudioSessionRemovePropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume), noErr);
    worldSetOutputVolume(0.6f, &expected, &tolerance);
    runPendingCallbacks();
    CHECK(callCount == 0, "no listener left after RemovePropertyListener (got %d)", callCount);

    /* SPEC 6: route change payload on plugging and unplugging headphones. */
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, listenerA, NULL), noErr);
    worldPlug(kAudioSessionVirtualPort_Headphones, 1);
    runPendingCallbacks();
    worldPlug(kAudioSessionVirtualPort_Headphones, 0);
    runPendingCallbacks();
    CHECK(callCount == 2, "two route changes (got %d)", callCount);
    CHECK(calls[0].reason == kAudioSessionRouteChangeReason_NewDeviceAvailable, "plug: NewDeviceAvailable (got %d)", (int)calls[0].reason);
    CHECK(strcmp(calls[0].oldRoute, "Speaker") == 0, "plug: old route Speaker (got %s)", calls[0].oldRoute);
    CHECK(calls[0].previousOutput && CFEqual(calls[0].previousOutput, kAudioSessionOutputRoute_BuiltInSpeaker), "plug: previous output speaker");
    CHECK(calls[0].currentOutput && CFEqual(calls[0].currentOutput, kAudioSessionOutputRoute_Headphones), "plug: current output headphones");
    CHECK(calls[1].reason == kAudioSessionRouteChangeReason_OldDeviceUnavailable, "unplug: OldDeviceUnavailable (got %d)", (int)calls[1].reason);
    CHECK(strcmp(calls[1].oldRoute, "Headphone") == 0, "unplug: old route Headphone (got %s)", calls[1].oldRoute);
    CHECK(calls[1].currentOutput && CFEqual(calls[1].currentOutput, kAudioSessionOutputRoute_BuiltInSpeaker), "unplug: back to the speaker");
    resetCalls();

    /* SPEC 6: no route change's reason is lost. Plugging and unplugging before the run
     * loop runs are two calls, in order, each Previous the preceding Current. */
    worldPlug(kAudioSessionVirtualPort_Headphones, 1);
    worldPlug(kAudioSessionVirtualPort_Headphones, 0);
    runPendingCallbacks();
    CHECK(callCount == 2, "waiting plug and unplug: two route changes (got %d)", callCount);
    CHECK(calls[0].reason == kAudioSessionRouteChangeReason_NewDeviceAvailable
          && calls[1].reason == kAudioSessionRouteChangeReason_OldDeviceUnavailable,
          "waiting: NewDeviceAvailable then OldDeviceUnavailable (got %d, %d)", (int)calls[0].reason, (int)calls[1].reason);
    CHECK(calls[0].currentOutput && calls[1].previousOutput && CFEqual(calls[0].currentOutput, calls[1].previousOutput),
          "waiting: the chain holds");
    resetCalls();

    /* The guide's own case: the headphones are pulled, and the category changes before
     * the run loop runs. A listener that pauses on OldDeviceUnavailable must see it. */
    worldPlug(kAudioSessionVirtualPort_Headphones, 1);
    runPendingCallbacks();
    resetCalls();
    worldPlug(kAudioSessionVirtualPort_Headphones, 0);
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_PlayAndRecord), noErr);
    runPendingCallbacks();
    CHECK(callCount == 2 && calls[0].reason == kAudioSessionRouteChangeReason_OldDeviceUnavailable
          && calls[1].reason == kAudioSessionRouteChangeReason_CategoryChange,
          "unplug then category change: OldDeviceUnavailable then CategoryChange (calls %d, first reason %d)",
          callCount, callCount > 0 ? (int)calls[0].reason : -1);
    resetCalls();
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_SoloAmbientSound), noErr);
    runPendingCallbacks();
    resetCalls();

    /* Bound: 40 plugs and unplugs waiting are at most 8 calls, and both reasons are there. */
    for (int i = 0; i < 40; i++) {
        worldPlug(kAudioSessionVirtualPort_Headphones, 1);
        worldPlug(kAudioSessionVirtualPort_Headphones, 0);
    }
    runPendingCallbacks();
    int plugs = 0, unplugs = 0;
    for (int i = 0; i < callCount; i++) {
        if (calls[i].reason == kAudioSessionRouteChangeReason_NewDeviceAvailable) plugs++;
        if (calls[i].reason == kAudioSessionRouteChangeReason_OldDeviceUnavailable) unplugs++;
    }
    CHECK(callCount >= 2 && callCount <= 8 && plugs > 0 && unplugs > 0,
          "80 waiting route changes: 2 to 8 calls with both reasons (got %d: %d plugs, %d unplugs)", callCount, plugs, unplugs);
    resetCalls();

    /* A category change while active is a route change with reason CategoryChange. */
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_PlayAndRecord), noErr);
    runPendingCallbacks();
    CHECK(callCount == 1 && calls[0].reason == kAudioSessionRouteChangeReason_CategoryChange,
          "category change while active: reason CategoryChange (calls %d)", callCount);
    resetCalls();

    /* SPEC 5: OverrideAudioRoute reverts to None on a route change. */
    CHECK_STATUS(setU32(kAudioSessionProperty_OverrideAudioRoute, kAudioSessionOverrideAudioRoute_Speaker), noErr);
    worldPlug(kAudioSessionVirtualPort_Headphones, 1);
    runPendingCallbacks();
    /* On Linux PlayAndRecord already plays through the speaker (no receiver), so the
       override itself changes no route; had it survived the plug, the headphones
       would not have taken over. */
    CHECK(callCount == 1, "one route change, for the plug (got %d)", callCount);
    CHECK(calls[0].reason == kAudioSessionRouteChangeReason_NewDeviceAvailable &&
          calls[0].currentOutput && CFEqual(calls[0].currentOutput, kAudioSessionOutputRoute_Headphones),
          "after the plug the override is gone and headphones play");
    resetCalls();
    worldPlug(kAudioSessionVirtualPort_Headphones, 0);
    runPendingCallbacks();
    resetCalls();

    /* SPEC 3: listeners may re-enter the API: remove themselves and others, add, get, set. */
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, selfRemoving, (void *)1), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, victim, (void *)2), noErr);
    worldSetOutputVolume(0.1f, &expected, &tolerance);
    runPendingCallbacks();
    CHECK(selfRemovingCalls == 1, "self-removing listener ran once (got %d)", selfRemovingCalls);
    CHECK(victimCalls == 0, "a listener removed by an earlier callback is not called (got %d)", victimCalls);
    CHECK(getInsideCallback == noErr && setInsideCallback == noErr, "get and set inside a callback succeed");
    worldSetOutputVolume(0.2f, &expected, &tolerance);
    runPendingCallbacks();
    CHECK(selfRemovingCalls == 1, "removed listener is not called again (got %d)", selfRemovingCalls);
    CHECK(addedFromCallbackCalls == 1, "a listener added from a callback hears the next change (got %d)", addedFromCallbackCalls);
    resetCalls();

    /* SPEC 6: interruptions. Begin after the session is inactive; End with the type. */
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_SoloAmbientSound), noErr);
    runPendingCallbacks();  /* the category change's route change */
    resetCalls();
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    worldBeginInterruption();
    CHECK(interruptionCount == 0, "no interruption callback before the run loop runs");
    runPendingCallbacks();
    CHECK(interruptionCount == 1 && interruptionStates[0] == kAudioSessionBeginInterruption, "Begin delivered");
    CHECK(activeCallInBegin == kAudioSessionUnspecifiedError, "activation refused during the interruption (got %d)", activeCallInBegin);
    worldEndInterruption(1);
    runPendingCallbacks();
    CHECK(interruptionCount == 2 && interruptionStates[1] == kAudioSessionEndInterruption, "End delivered");
    CHECK(typeStatusInEnd == noErr && typeInEnd == kAudioSessionInterruptionType_ShouldResume, "type reads ShouldResume inside End");

    CHECK(reactivateInEnd == noErr, "reactivation from the End callback succeeds");
    UInt32 type = 0, size = sizeof type;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_InterruptionType, &size, &type), kAudioSessionUnsupportedPropertyError);
    worldBeginInterruption();
    if (worldEndInterruption(0) == WORLD_CANNOT) {
        worldSkip("End with ShouldNotResume");
        worldEndInterruption(1);
        runPendingCallbacks();
    } else {
        runPendingCallbacks();
        CHECK(interruptionCount == 4 && typeInEnd == kAudioSessionInterruptionType_ShouldNotResume,
              "type reads ShouldNotResume");
    }

    /* SPEC 7: the phone always wins. A mixing session (Ambient) is interrupted by a call
     * too, and cannot activate while it lasts. */
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_AmbientSound), noErr);
    runPendingCallbacks();
    resetCalls();
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    int before = interruptionCount;
    worldBeginInterruption();
    runPendingCallbacks();
    CHECK(interruptionCount == before + 1 && interruptionStates[before] == kAudioSessionBeginInterruption,
          "an Ambient session gets Begin from a system interruption (got %d callbacks)", interruptionCount);
    CHECK_STATUS(AudioSessionSetActive(true), kAudioSessionUnspecifiedError);
    worldEndInterruption(1);
    runPendingCallbacks();
    CHECK(interruptionCount == before + 2 && interruptionStates[before + 1] == kAudioSessionEndInterruption,
          "and End after it");

    /* SPEC 6 (Linux addition): the pollable descriptor and DispatchPendingCallbacks. */
    int fd = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&fd), noErr);
    CHECK(fd >= 0, "a descriptor is given");
    CHECK(!fdReadable(fd), "nothing pending: not readable");
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_ServerDied, listenerA, (void *)9), noErr);
    worldServerDied();
    CHECK(fdReadable(fd), "pending callback: readable");
    CHECK(callCount == 0, "nothing ran yet");
    UInt32 ran = 0;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    CHECK(ran >= 1, "dispatch ran the pending callbacks (%u)", (unsigned)ran);
    CHECK(callCount == 1 && calls[0].id == kAudioSessionProperty_ServerDied && calls[0].uintValue == 1,
          "ServerDied listener called with 1");
    CHECK(!fdReadable(fd), "drained: not readable");
    runPendingCallbacks();
    CHECK(callCount == 1, "the run loop does not run it a second time (got %d)", callCount);
    resetCalls();

    return worldFinish("listeners");
}
