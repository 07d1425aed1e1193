/*
 * Drives the SIP client's audio-session module (sip_audio_session.c) through a call:
 * headset in and out mid-call, a GSM call interrupting it (virtual device only), a call
 * with no microphone (SPEC.md 9; on the ALSA card also a card without capture), and the
 * module's teardown, after which its route listener must stay silent while the
 * harness's own still hears the changes.
 */
#include "patterns.h"
#include "sip_audio_session.h"

static void checkRouteChange(const sip_audio_status *s, int expectedCount, SInt32 reason, const char *what)
{
    CHECK(s->route_changes == expectedCount, "%s: one route change for the module (%d, expected %d)", what,
          s->route_changes, expectedCount);
    CHECK(s->last_reason == reason, "%s: reason %d, expected %d", what, (int)s->last_reason, (int)reason);
}

static void callWithHeadset(const sip_audio_status *s)
{
    char text[64];
    CHECK(sip_audio_start_call() == 0, "call starts (activation %s)", statusText(s->activate_result));
    CHECK(strcmp(routeName(text, sizeof text), "SpeakerAndMicrophone") == 0, "call on the speaker and mic (%s)", text);

    int before = s->route_changes;
    plug("headset");
    checkRouteChange(s, before + 1, kAudioSessionRouteChangeReason_NewDeviceAvailable, "headset in");
    CHECK(strcmp(s->old_route, "SpeakerAndMicrophone") == 0, "OldRoute key names the old route (%s)", s->old_route);
    CHECK(isPort(s->previous_input, kAudioSessionInputRoute_BuiltInMic) &&
          isPort(s->previous_output, kAudioSessionOutputRoute_BuiltInSpeaker),
          "PreviousRouteDescription: built-in mic and speaker (%s, %s)", s->previous_input, s->previous_output);
    CHECK(isPort(s->current_input, kAudioSessionInputRoute_HeadsetMic) &&
          isPort(s->current_output, kAudioSessionOutputRoute_Headphones),
          "CurrentRouteDescription: headset mic and headphones (%s, %s)", s->current_input, s->current_output);

    unplug("headset");
    checkRouteChange(s, before + 2, kAudioSessionRouteChangeReason_OldDeviceUnavailable, "headset out");
    CHECK(strcmp(s->old_route, "HeadsetInOut") == 0, "old route HeadsetInOut (%s)", s->old_route);
    CHECK(isPort(s->previous_output, kAudioSessionOutputRoute_Headphones), "previous output headphones (%s)",
          s->previous_output);
    CHECK(isPort(s->current_input, kAudioSessionInputRoute_BuiltInMic) &&
          isPort(s->current_output, kAudioSessionOutputRoute_BuiltInSpeaker),
          "back on the built-in mic and speaker (%s, %s)", s->current_input, s->current_output);
}

static void callInterrupted(const sip_audio_status *s)
{
    beginInterruption();
    CHECK(s->interruptions == 1 && s->call_on_hold == 1, "Begin puts the call on hold (%d, %d)", s->interruptions,
          s->call_on_hold);
    CHECK(!sessionActive(), "the session is inactive when Begin arrives");
    endInterruption(true);
    CHECK(s->resumes == 1, "End delivered (%d)", s->resumes);
    CHECK_STATUS(s->resume_result, noErr);
    CHECK(s->call_on_hold == 0 && sessionActive(), "End resumes the call and the session");
}

/* SPEC.md 9: PlayAndRecord is a policy, so a call starts with output alone; the input
 * joins when a headset arrives and its loss is NoSuitableRouteForCategory. */
static void callWithoutMicrophone(const sip_audio_status *s)
{
    char text[64];
    CFIndex count;
    unplug("mic");
    CHECK(s->mic_available == 0, "AudioInputAvailable listener reports 0 (%d)", s->mic_available);
    /* The ringtone plays in SoloAmbient; answering switches to PlayAndRecord while active. */
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_SoloAmbientSound), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    int ringing = s->route_changes;
    sip_audio_start_call();
    settle();
    CHECK_STATUS(s->category_result, noErr); /* SPEC.md 9: a category is a policy */
    CHECK_STATUS(s->activate_result, noErr);
    checkRouteChange(s, ringing + 1, kAudioSessionRouteChangeReason_CategoryChange, "answering");
    sip_audio_end_call();

    /* A call started from inactive: activation for output alone. */
    sip_audio_start_call();
    CHECK_STATUS(s->category_result, noErr);
    CHECK_STATUS(s->activate_result, noErr);
    CHECK(getU32(kAudioSessionProperty_AudioInputAvailable) == 0, "AudioInputAvailable 0 without a mic");
    UInt32 channels = getU32(kAudioSessionProperty_CurrentHardwareInputNumberChannels);
    CHECK(channels == 0, "no input channels without a mic (%u)", (unsigned)channels);
    routePort(kAudioSession_AudioRouteKey_Inputs, text, sizeof text, &count);
    CHECK(count == 0, "the route has no input (%ld: %s)", (long)count, text);
    routePort(kAudioSession_AudioRouteKey_Outputs, text, sizeof text, &count);
    CHECK(count == 1 && isPort(text, kAudioSessionOutputRoute_BuiltInSpeaker), "the route plays on the speaker (%s)",
          text);

    int before = s->route_changes;
    plug("headset");
    checkRouteChange(s, before + 1, kAudioSessionRouteChangeReason_NewDeviceAvailable, "headset in without a mic");
    CHECK(isPort(s->current_input, kAudioSessionInputRoute_HeadsetMic), "the headset mic joins the route (%s)",
          s->current_input);
    CHECK(s->mic_available == 1, "AudioInputAvailable listener reports 1 (%d)", s->mic_available);
    channels = getU32(kAudioSessionProperty_CurrentHardwareInputNumberChannels);
    CHECK(channels >= 1, "input channels once the headset mic joined (%u)", (unsigned)channels);

    unplug("headset");
    checkRouteChange(s, before + 2, kAudioSessionRouteChangeReason_NoSuitableRouteForCategory,
                     "last input lost during the call");
    CHECK(s->current_input[0] == 0, "no input left in the route (%s)", s->current_input);
    CHECK(s->mic_available == 0, "AudioInputAvailable listener reports 0 again (%d)", s->mic_available);
    sip_audio_end_call();

    /* Recording alone cannot activate without an input. */
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_RecordAudio), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), kAudioServicesNoHardwareError);
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_PlayAndRecord), noErr);
    plug("mic");
    CHECK(s->mic_available == 1, "microphone back (%d)", s->mic_available);
}

/* ALSA only: a card with no capture device at all is "no input" too (SPEC.md 9). */
static void cardWithoutCapture(const sip_audio_status *s)
{
    char text[64];
    CFIndex count;
    vcard("capture off");
    settle();
    CHECK(getU32(kAudioSessionProperty_AudioInputAvailable) == 0, "no input on a card without capture");
    CHECK(sip_audio_start_call() == 0, "a call starts on a card without capture (%s)", statusText(s->activate_result));
    CHECK(getU32(kAudioSessionProperty_CurrentHardwareInputNumberChannels) == 0, "no input channels");
    routePort(kAudioSession_AudioRouteKey_Inputs, text, sizeof text, &count);
    CHECK(count == 0, "no input in the route (%s)", text);
    sip_audio_end_call();
    /* A headset jack does not give the card a capture device: still output alone. (The
     * same happens with jacks read from another card than the session's.) */
    plug("headset");
    CHECK(getU32(kAudioSessionProperty_AudioInputAvailable) == 0, "no input from a headset on a card without capture");
    CHECK(sip_audio_start_call() == 0, "a call starts with a headset on a card without capture (%s)",
          statusText(s->activate_result));
    sip_audio_end_call();
    unplug("headset");
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_RecordAudio), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), kAudioServicesNoHardwareError);
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_PlayAndRecord), noErr);
    vcard("capture on");
    settle();
    CHECK(getU32(kAudioSessionProperty_AudioInputAvailable) == 1, "input back with the capture device");
}

static void teardown(const sip_audio_status *s)
{
    sip_audio_shutdown();
    /* Active, so that the route changes are the session's own for certain. */
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    int moduleChanges = s->route_changes, micChanges = s->mic_changes, harnessChanges = harnessRouteChanges;
    plug("headset");
    unplug("headset");
    CHECK(harnessRouteChanges == harnessChanges + 2, "the route did change twice (%d)",
          harnessRouteChanges - harnessChanges);
    CHECK(s->route_changes == moduleChanges, "removed route listener not called (%d calls)",
          s->route_changes - moduleChanges);
    CHECK(s->mic_changes == micChanges, "removed input listener not called");
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "sip audio session");
    CHECK(sip_audio_init() == 0, "module initialises");
    harnessAttach();
    const sip_audio_status *s = sip_audio_get_status();
    CHECK_STATUS(s->category_result, noErr);
    CHECK(getU32(kAudioSessionProperty_AudioCategory) == kAudioSessionCategory_PlayAndRecord, "category PlayAndRecord");

    callWithHeadset(s);
    if (!onALSA) callInterrupted(s); /* interruptions: virtual device only, for now */
    sip_audio_end_call();
    callWithoutMicrophone(s);
    if (onALSA) cardWithoutCapture(s);
    teardown(s);
    return finish(onALSA ? "sip audio session (alsa)" : "sip audio session (virtual)");
}
