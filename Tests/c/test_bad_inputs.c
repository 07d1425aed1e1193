/*
 * Every bad input of SPEC.md section 2, as a table: each row is one call with its
 * expected result code. For every row the test also checks that the call crashed
 * nothing and changed no observable state (every readable property compared before
 * and after). Runs in every configuration of world.h.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <string.h>
#include "check.h"
#include "world.h"

/* ---- observable state -------------------------------------------------------- */

typedef struct {
    UInt32 category, mode, mix, speaker, bluetooth, duck, inputAvailable, other;
    Float64 preferredRate, currentRate;
    Float32 preferredDuration, currentDuration, gain, volume;
    char route[64];
} Snapshot;

static void readU32(AudioSessionPropertyID id, UInt32 *out)
{
    UInt32 size = sizeof *out;
    *out = 0xDEADBEEF;
    AudioSessionGetProperty(id, &size, out);
}

static Snapshot snapshot(void)
{
    Snapshot s;
    memset(&s, 0, sizeof s);
    readU32(kAudioSessionProperty_AudioCategory, &s.category);
    readU32(kAudioSessionProperty_Mode, &s.mode);
    readU32(kAudioSessionProperty_OverrideCategoryMixWithOthers, &s.mix);
    readU32(kAudioSessionProperty_OverrideCategoryDefaultToSpeaker, &s.speaker);
    readU32(kAudioSessionProperty_OverrideCategoryEnableBluetoothInput, &s.bluetooth);
    readU32(kAudioSessionProperty_OtherMixableAudioShouldDuck, &s.duck);
    readU32(kAudioSessionProperty_AudioInputAvailable, &s.inputAvailable);
    readU32(kAudioSessionProperty_OtherAudioIsPlaying, &s.other);
    UInt32 size = sizeof(Float64);
    AudioSessionGetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, &size, &s.preferredRate);
    size = sizeof(Float64);
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &s.currentRate);
    size = sizeof(Float32);
    AudioSessionGetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, &size, &s.preferredDuration);
    size = sizeof(Float32);
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareIOBufferDuration, &size, &s.currentDuration);
    size = sizeof(Float32);
    AudioSessionGetProperty(kAudioSessionProperty_InputGainScalar, &size, &s.gain);
    size = sizeof(Float32);
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &s.volume);
    CFStringRef route = NULL;
    size = sizeof route;
    if (AudioSessionGetProperty(kAudioSessionProperty_AudioRoute, &size, &route) == noErr) {
        CFStringGetCString(route, s.route, sizeof s.route, kCFStringEncodingUTF8);
        CFRelease(route);
    }
    return s;
}

static int sameSnapshot(const Snapshot *a, const Snapshot *b)
{
    return a->category == b->category && a->mode == b->mode && a->mix == b->mix && a->speaker == b->speaker &&
           a->bluetooth == b->bluetooth && a->duck == b->duck && a->inputAvailable == b->inputAvailable &&
           a->other == b->other && a->preferredRate == b->preferredRate && a->currentRate == b->currentRate &&
           a->preferredDuration == b->preferredDuration && a->currentDuration == b->currentDuration &&
           a->gain == b->gain && a->volume == b->volume && strcmp(a->route, b->route) == 0;
}

/* ---- helpers used by the rows -------------------------------------------------- */

static void listener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size; (void)data;
}

static UInt32 interruptionStates[4];
static int interruptionCount;

static void interruptionListener(void *clientData, UInt32 state)
{
    (void)clientData;
    if (interruptionCount < 4) interruptionStates[interruptionCount] = state;
    interruptionCount++;
}

static OSStatus getWithSize(AudioSessionPropertyID id, UInt32 size)
{
    unsigned char buffer[64];
    return AudioSessionGetProperty(id, &size, buffer);
}

static OSStatus setU32(AudioSessionPropertyID id, UInt32 value)
{
    return AudioSessionSetProperty(id, sizeof value, &value);
}

static OSStatus setF64(AudioSessionPropertyID id, Float64 value)
{
    return AudioSessionSetProperty(id, sizeof value, &value);
}

static OSStatus setF32(AudioSessionPropertyID id, Float32 value)
{
    return AudioSessionSetProperty(id, sizeof value, &value);
}

static OSStatus setObject(AudioSessionPropertyID id, CFTypeRef object)
{
    return AudioSessionSetProperty(id, sizeof object, &object);
}

static OSStatus setNumber(AudioSessionPropertyID id, SInt32 value)
{
    CFNumberRef number = CFNumberCreate(NULL, kCFNumberSInt32Type, &value);
    OSStatus status = setObject(id, number);
    CFRelease(number);
    return status;
}

/* ---- the table ------------------------------------------------------------------ */

#define UNKNOWN_ID AT_FOURCC('z','z','z','z')

/* What a row's call needs besides the session (see bad_inputs.def). */
enum { NEEDS_SESSION, NEEDS_DEVICE, NEEDS_ARBITER };

typedef struct {
    const char *name;
    OSStatus (*call)(void);
    OSStatus expected;
    int needs;
} Row;

#define ROW(expected, name, ...) \
    static OSStatus name(void) { return __VA_ARGS__; }
#define DEVICE_ROW(...) ROW(__VA_ARGS__)
#define ARBITER_ROW(...) ROW(__VA_ARGS__)
#include "bad_inputs.def"
#undef ROW
#undef DEVICE_ROW
#undef ARBITER_ROW

static const Row afterInit[] = {
#define ROW(expected, name, ...) {#name, name, (OSStatus)(expected), NEEDS_SESSION},
#define DEVICE_ROW(expected, name, ...) {#name, name, (OSStatus)(expected), NEEDS_DEVICE},
#define ARBITER_ROW(expected, name, ...) {#name, name, (OSStatus)(expected), NEEDS_ARBITER},
#include "bad_inputs.def"
#undef ROW
#undef DEVICE_ROW
#undef ARBITER_ROW
};

/* A row's result here: without the virtual device (on the card) or the in-process
 * arbiter (with audiosessiond) their functions return kAudioServicesNoHardwareError
 * (AudioSessionLinux.h). */
static OSStatus expectedHere(const Row *row)
{
    if ((row->needs == NEEDS_DEVICE && worldOnCard()) || (row->needs == NEEDS_ARBITER && worldWithDaemon()))
        return kAudioServicesNoHardwareError;
    return row->expected;
}

/* Calls made before AudioSessionInitialize: all must report NotInitialized. */
static OSStatus beforeGet(void) { return getWithSize(kAudioSessionProperty_AudioCategory, 4); }
static OSStatus beforeSet(void) { return setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_AmbientSound); }
static OSStatus beforeSize(void) { UInt32 s; return AudioSessionGetPropertySize(kAudioSessionProperty_AudioCategory, &s); }
static OSStatus beforeActive(void) { return AudioSessionSetActive(true); }
static OSStatus beforeActiveFlags(void) { return AudioSessionSetActiveWithFlags(false, 1); }
static OSStatus beforeAdd(void) { return AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, listener, NULL); }
static OSStatus beforeRemove(void) { return AudioSessionRemovePropertyListener(kAudioSessionProperty_AudioRouteChange); }
static OSStatus beforeRemoveUser(void) { return AudioSessionRemovePropertyListenerWithUserData(kAudioSessionProperty_AudioRouteChange, listener, NULL); }
static OSStatus beforeFD(void) { int fd; return AudioSessionGetCallbackFileDescriptor(&fd); }
static OSStatus beforeDispatch(void) { return AudioSessionDispatchPendingCallbacks(NULL); }
static OSStatus beforePlug(void) { return AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones); }
static OSStatus beforeInterrupt(void) { return AudioSessionVirtualDeviceBeginInterruption(); }

/* Every configuration: no session, no device or arbiter to look at yet. */
static const Row beforeInit[] = {
    {"get", beforeGet, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"set", beforeSet, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"size", beforeSize, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"setActive", beforeActive, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"setActiveWithFlags", beforeActiveFlags, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"addListener", beforeAdd, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"removeListener", beforeRemove, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"removeListenerWithUserData", beforeRemoveUser, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"callbackFD", beforeFD, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"dispatch", beforeDispatch, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"virtualPlug", beforePlug, kAudioSessionNotInitialized, NEEDS_SESSION},
    {"virtualInterrupt", beforeInterrupt, kAudioSessionNotInitialized, NEEDS_SESSION},
};

static void runRows(const Row *rows, size_t count, int compareState)
{
    for (size_t i = 0; i < count; i++) {
        Snapshot before = compareState ? snapshot() : (Snapshot){0};
        OSStatus got = rows[i].call(), expected = expectedHere(&rows[i]);
        char a[16], b[16];
        CHECK(got == expected, "%s: returned %s, expected %s", rows[i].name, fourcc(got, a), fourcc(expected, b));
        if (compareState) {
            Snapshot after = snapshot();
            CHECK(sameSnapshot(&before, &after), "%s: changed the session's state", rows[i].name);
        }
    }
}

int main(void)
{
    runRows(beforeInit, sizeof beforeInit / sizeof beforeInit[0], 0);

    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, NULL), noErr);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), kAudioSessionAlreadyInitialized);

    runRows(afterInit, sizeof afterInit / sizeof afterInit[0], 1);

    /* The same rows while active in PlayAndRecord, where more is legal. */
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_PlayAndRecord), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    Snapshot before = snapshot();
    CHECK_STATUS(setU32(kAudioSessionProperty_Mode, kAudioSessionMode_VoiceChat), kAudioSessionUnspecifiedError);
    CHECK_STATUS(setF64(kAudioSessionProperty_PreferredHardwareSampleRate, NAN), kAudioSessionUnsupportedPropertyError);
    CHECK_STATUS(setU32(kAudioSessionProperty_OverrideAudioRoute, 1), kAudioSessionUnsupportedPropertyError);
    Snapshot after = snapshot();
    CHECK(sameSnapshot(&before, &after), "failed calls while active changed the state");

    /* Activation without input hardware fails and leaves the session inactive. */
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_RecordAudio), noErr);
    worldPlug(kAudioSessionVirtualPort_BuiltInMic, 0);
    before = snapshot();
    CHECK_STATUS(AudioSessionSetActive(true), kAudioServicesNoHardwareError);
    after = snapshot();
    CHECK(sameSnapshot(&before, &after), "failed activation changed the state");
    /* Inactive: a mode change (legal only while inactive) now succeeds. */
    CHECK_STATUS(setU32(kAudioSessionProperty_Mode, kAudioSessionMode_VideoRecording), noErr);

    /* Activation during a system interruption fails. */
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_MediaPlayback), noErr);
    if (worldInterruptionNow(1, 0) == WORLD_DONE) {
        CHECK_STATUS(AudioSessionSetActive(true), kAudioSessionUnspecifiedError);
        worldInterruptionNow(0, 0);
    } else {
        /* The same rule for a session the call interrupts: its Begin says when the
           session knows of the call. */
        worldSkip("a call while the session is inactive");
        CHECK_STATUS(AudioSessionSetActive(true), noErr);
        worldBeginInterruption();
        runPendingCallbacks();
        CHECK_STATUS(AudioSessionSetActive(true), kAudioSessionUnspecifiedError);
        if (worldEndInterruption(0) == WORLD_CANNOT) {
            worldSkip("End with ShouldNotResume");
            worldEndInterruption(1);
        }
        runPendingCallbacks();
        CHECK(interruptionCount == 2 && interruptionStates[0] == kAudioSessionBeginInterruption &&
              interruptionStates[1] == kAudioSessionEndInterruption,
              "the call's Begin and End reached the interruption listener (%d calls)", interruptionCount);
    }
    CHECK_STATUS(AudioSessionSetActive(true), noErr);

    return worldFinish("bad inputs");
}
