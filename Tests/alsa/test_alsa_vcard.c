/*
 * The ALSA backend through the virtual ALSA card (SPEC.md section 9): a program using
 * only the legacy API, while this test drives the card with the `vcard` command. The
 * library takes its production ALSA path: control events, jack controls, mixer, PCM
 * negotiation.
 *
 * Needs VCARD_DIR and ALSA_CONFIG_PATH from `vcard setup`, and `vcard` on PATH.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "../c/check.h"
#include "../../vcard/vcard_state.h"
#include "amixer_reference.h"

enum { MAX_CALLS = 32 };
static struct { AudioSessionPropertyID id; SInt32 reason; char oldRoute[64]; char current[64]; Float32 f; UInt32 u; } calls[MAX_CALLS];
static int callCount;

static void listener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData;
    if (callCount == MAX_CALLS) return;
    int i = callCount++;
    memset(&calls[i], 0, sizeof calls[i]);
    calls[i].id = id;
    if (id == kAudioSessionProperty_AudioRouteChange) {
        CFDictionaryRef change = data;
        CFNumberGetValue(CFDictionaryGetValue(change, kAudioSession_RouteChangeKey_Reason), kCFNumberSInt32Type,
                         &calls[i].reason);
        CFStringGetCString(CFDictionaryGetValue(change, CFSTR(kAudioSession_AudioRouteChangeKey_OldRoute)),
                           calls[i].oldRoute, sizeof calls[i].oldRoute, kCFStringEncodingUTF8);
        CFDictionaryRef current = CFDictionaryGetValue(change, kAudioSession_AudioRouteChangeKey_CurrentRouteDescription);
        CFArrayRef outputs = CFDictionaryGetValue(current, kAudioSession_AudioRouteKey_Outputs);
        if (CFArrayGetCount(outputs) > 0) {
            CFStringRef type = CFDictionaryGetValue(CFArrayGetValueAtIndex(outputs, 0), kAudioSession_AudioRouteKey_Type);
            CFStringGetCString(type, calls[i].current, sizeof calls[i].current, kCFStringEncodingUTF8);
        }
    } else if (size == 4 && (id == kAudioSessionProperty_CurrentHardwareOutputVolume ||
                             id == kAudioSessionProperty_InputGainScalar)) {
        memcpy(&calls[i].f, data, 4);
    } else if (size == 4) {
        memcpy(&calls[i].u, data, 4);
    }
}

static void vcard(const char *arguments)
{
    char command[256];
    snprintf(command, sizeof command, "vcard %s", arguments);
    CHECK(system(command) == 0, "%s", command);
}

/* Runs the run loop until `count` callbacks have arrived. The bound only keeps a lost
 * event from hanging the suite; nothing here measures time. */
static void waitForCalls(int count)
{
    for (int i = 0; i < 2000 && callCount < count; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    runPendingCallbacks();
}

static void setU32(AudioSessionPropertyID id, UInt32 value) { CHECK_STATUS(AudioSessionSetProperty(id, 4, &value), noErr); }

static void routeName(char *out, size_t size)
{
    CFStringRef route = NULL;
    UInt32 s = sizeof route;
    out[0] = 0;
    if (AudioSessionGetProperty(kAudioSessionProperty_AudioRoute, &s, &route) == noErr) {
        CFStringGetCString(route, out, (CFIndex)size, kCFStringEncodingUTF8);
        CFRelease(route);
    }
}

/* The InputSources ID whose description is `description`, or -1. */
static SInt32 inputSourceID(const char *description)
{
    CFArrayRef sources = NULL;
    UInt32 size = sizeof sources;
    SInt32 found = -1;
    if (AudioSessionGetProperty(kAudioSessionProperty_InputSources, &size, &sources) != noErr) return -1;
    for (CFIndex i = 0; i < CFArrayGetCount(sources); i++) {
        CFDictionaryRef source = CFArrayGetValueAtIndex(sources, i);
        char text[64] = "";
        CFStringGetCString(CFDictionaryGetValue(source, kAudioSession_InputSourceKey_Description), text, sizeof text,
                           kCFStringEncodingUTF8);
        if (strcmp(text, description) == 0)
            CFNumberGetValue(CFDictionaryGetValue(source, kAudioSession_InputSourceKey_ID), kCFNumberSInt32Type, &found);
    }
    CFRelease(sources);
    return found;
}

/* The capture source the card itself reports (its state file). */
static int cardCaptureSource(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/state", getenv("VCARD_DIR"));
    FILE *file = fopen(path, "rb");
    VCardState state = {0};
    if (file) {
        if (fread(&state, sizeof state, 1, file) != 1) state.captureSource = 99;
        fclose(file);
    }
    return (int)state.captureSource;
}

static void selectInput(SInt32 id)
{
    CFNumberRef number = CFNumberCreate(NULL, kCFNumberSInt32Type, &id);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_InputSource, sizeof number, &number), noErr);
    CFRelease(number);
}

static Float64 currentRate(void)
{
    Float64 rate = 0;
    UInt32 size = sizeof rate;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate);
    return rate;
}

int main(void)
{
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    /* The session is on ALSA, not on the in-process virtual device. */
    CHECK_STATUS(AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones), kAudioServicesNoHardwareError);

    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_MediaPlayback);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    char route[64];
    routeName(route, sizeof route);
    CHECK(strcmp(route, "Speaker") == 0, "starts on the speaker (got %s)", route);

    Float32 volume = 0;
    UInt32 size = sizeof volume;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume), noErr);
    double expected = amixerMappedVolume();
    CHECK(expected >= 0 && fabs(volume - expected) < AMIXER_TOLERANCE,
          "volume from the mixer's dB scale: %f, alsamixer shows %f", volume, expected);

    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, listener, NULL), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, listener, NULL), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_AudioInputAvailable, listener, NULL), noErr);

    /* Plugging and unplugging headphones: reasons and payloads, in order. */
    vcard("plug headphones");
    waitForCalls(1);
    vcard("unplug headphones");
    waitForCalls(2);
    CHECK(callCount == 2, "two route changes (got %d)", callCount);
    CHECK(calls[0].id == kAudioSessionProperty_AudioRouteChange && calls[0].reason == kAudioSessionRouteChangeReason_NewDeviceAvailable,
          "plug: NewDeviceAvailable (got %d)", (int)calls[0].reason);
    CHECK(strcmp(calls[0].oldRoute, "Speaker") == 0 && strcmp(calls[0].current, "Headphones") == 0,
          "plug: Speaker -> Headphones (got %s -> %s)", calls[0].oldRoute, calls[0].current);
    CHECK(calls[1].reason == kAudioSessionRouteChangeReason_OldDeviceUnavailable && strcmp(calls[1].oldRoute, "Headphone") == 0,
          "unplug: OldDeviceUnavailable from Headphone (got %d, %s)", (int)calls[1].reason, calls[1].oldRoute);
    callCount = 0;

    /* Volume changes reach the listener with the new value. */
    vcard("volume 0.3");
    waitForCalls(1);
    CHECK(callCount == 1 && calls[0].id == kAudioSessionProperty_CurrentHardwareOutputVolume, "one volume callback (%d)", callCount);
    CHECK(fabs(calls[0].f - 0.3) < 0.02, "volume listener sees about 0.3 (got %f)", calls[0].f);
    double shown = amixerMappedVolume();
    CHECK(shown >= 0 && fabs(calls[0].f - shown) < AMIXER_TOLERANCE, "the listener's value is what alsamixer shows (%f, %f)",
          calls[0].f, shown);
    callCount = 0;

    /* Input gain: the capture volume, settable and clamped. */
    UInt32 gainAvailable = 0;
    size = sizeof gainAvailable;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_InputGainAvailable, &size, &gainAvailable), noErr);
    CHECK(gainAvailable == 1, "the card's capture volume makes gain available");
    Float32 gain = 0.8f;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_InputGainScalar, 4, &gain), noErr);
    size = sizeof gain;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_InputGainScalar, &size, &gain), noErr);
    CHECK(fabs(gain - 0.8) < 0.02, "gain reads back about 0.8 (got %f)", gain);
    gain = 7;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_InputGainScalar, 4, &gain), noErr);
    size = sizeof gain;
    AudioSessionGetProperty(kAudioSessionProperty_InputGainScalar, &size, &gain);
    CHECK(gain == 1.0f, "gain clamped to 1 (got %f)", gain);
    runPendingCallbacks();
    callCount = 0;
    /* A gain change made outside the program (the mixer) reaches InputGainScalar listeners. */
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_InputGainScalar, listener, NULL), noErr);
    vcard("capture-volume 0.2");
    waitForCalls(1);
    CHECK(callCount == 1 && calls[0].id == kAudioSessionProperty_InputGainScalar, "one gain callback (%d)", callCount);
    CHECK(fabs(calls[0].f - 0.2) < 0.02, "gain listener sees about 0.2 (got %f)", calls[0].f);
    CHECK_STATUS(AudioSessionRemovePropertyListener(kAudioSessionProperty_InputGainScalar), noErr);
    callCount = 0;

    /* OverrideAudioRoute reverts on the route change. */
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_PlayAndRecord);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    vcard("plug headset");
    waitForCalls(1);
    setU32(kAudioSessionProperty_OverrideAudioRoute, kAudioSessionOverrideAudioRoute_Speaker);
    routeName(route, sizeof route);
    CHECK(strcmp(route, "SpeakerAndMicrophone") == 0, "override to the speaker (got %s)", route);
    vcard("plug lineout");
    waitForCalls(3);
    routeName(route, sizeof route);
    CHECK(strcmp(route, "HeadsetInOut") == 0, "override reverted by the route change (got %s)", route);
    vcard("unplug headset");
    vcard("unplug lineout");
    waitForCalls(5);
    callCount = 0;

    /* Removing the microphone: AudioInputAvailable, then recording cannot activate. */
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
    vcard("unplug mic");
    for (int i = 0; i < 2000 && !(callCount > 0 && calls[callCount - 1].id == kAudioSessionProperty_AudioInputAvailable); i++)
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(callCount > 0 && calls[callCount - 1].id == kAudioSessionProperty_AudioInputAvailable && calls[callCount - 1].u == 0,
          "AudioInputAvailable listener called with 0");
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_RecordAudio);
    CHECK_STATUS(AudioSessionSetActive(true), kAudioServicesNoHardwareError);
    vcard("plug mic");
    waitForCalls(callCount + 1);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK_STATUS(AudioSessionSetActive(false), noErr);

    /* Input sources: selecting one points the card's "Capture Source" control at it. */
    vcard("plug linein");
    waitForCalls(callCount + 1);
    SInt32 line = inputSourceID("Line In"), builtIn = inputSourceID("Built-In Microphone");
    CHECK(line > 0 && builtIn > 0, "InputSources lists the line input and the microphone (%d, %d)", (int)line, (int)builtIn);
    selectInput(line);
    CHECK(cardCaptureSource() == 1, "the card captures from \"Line\" (item %d)", cardCaptureSource());
    selectInput(builtIn);
    CHECK(cardCaptureSource() == 0, "the card captures from \"Internal Mic\" (item %d)", cardCaptureSource());
    vcard("unplug linein");
    waitForCalls(callCount + 1);
    runPendingCallbacks();

    /* Rates: a card offering only 44100 and 48000 turns 22050 into a rate it granted. */
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_MediaPlayback);
    vcard("rates 44100,48000");
    Float64 preferred = 22050;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, 8, &preferred), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK(currentRate() == 44100, "22050 preferred on a 44100/48000 card gives 44100 (got %.0f)", currentRate());
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
    vcard("rates 48000");
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK(currentRate() == 48000, "a 48000-only card gives 48000 (got %.0f)", currentRate());
    CHECK_STATUS(AudioSessionSetActive(false), noErr);

    /* A preferred IO buffer duration of 0.005 s yields the period the card granted. */
    vcard("rates 44100");
    vcard("periods 256,4096");
    Float32 duration = 0.005f;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, 4, &duration), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    Float32 current = 0;
    size = sizeof current;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareIOBufferDuration, &size, &current);
    CHECK(fabsf(current - 256.0f / 44100.0f) < 1e-6f, "0.005 s on a card whose periods start at 256 frames: %f s", current);
    CHECK_STATUS(AudioSessionSetActive(false), noErr);

    /* Hot-unplug of the whole card: no suitable route; plugging it back restores it. */
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_MediaPlayback);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    runPendingCallbacks();
    callCount = 0;
    vcard("remove");
    waitForCalls(1);
    CHECK(callCount >= 1 && calls[0].id == kAudioSessionProperty_AudioRouteChange &&
          calls[0].reason == kAudioSessionRouteChangeReason_NoSuitableRouteForCategory && calls[0].current[0] == 0,
          "card removed: NoSuitableRouteForCategory, no output (got %d calls, reason %d)", callCount, (int)calls[0].reason);
    int seen = callCount;
    vcard("insert");
    for (int i = 0; i < 2000; i++) {
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
        if (callCount > seen && calls[callCount - 1].id == kAudioSessionProperty_AudioRouteChange) break;
        int found = 0;
        for (int k = seen; k < callCount; k++) found |= calls[k].id == kAudioSessionProperty_AudioRouteChange;
        if (found) break;
    }
    int back = -1;
    for (int k = seen; k < callCount; k++) if (calls[k].id == kAudioSessionProperty_AudioRouteChange) { back = k; break; }
    CHECK(back >= 0 && calls[back].reason == kAudioSessionRouteChangeReason_NewDeviceAvailable &&
          strcmp(calls[back].current, "Speaker") == 0, "card back: NewDeviceAvailable to the speaker");
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
    runPendingCallbacks();
    callCount = 0;

    /* A card without capture: recording reports 'nohw'. */
    vcard("capture off");
    waitForCalls(callCount + 1);
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_RecordAudio);
    CHECK_STATUS(AudioSessionSetActive(true), kAudioServicesNoHardwareError);
    vcard("capture on");
    return finish("alsa through the virtual card");
}
