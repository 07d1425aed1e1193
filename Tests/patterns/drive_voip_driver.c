/*
 * Drives the old VoIP driver (voip_driver.c): the '!cat' pitfall of its first release
 * (overrides before the category: the speaker and Bluetooth requests are lost) against
 * the corrected order, the hardware figures it reads, deactivation inside Begin with End
 * still arriving (virtual device only), the headset rule of its route listener, and a
 * call with no microphone.
 */
#include "patterns.h"
#include "voip_driver.h"

static void reopenAsNextLaunch(void)
{
    voip_driver_close();
    /* A new launch starts from the default category (which also clears the overrides). */
    CHECK_STATUS(setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_SoloAmbientSound), noErr);
}

static void overridesBeforeCategory(const struct voip_audio_info *info)
{
    char text[64];
    CFIndex count;

    /* Release 1 with nothing plugged: the overrides fail in SoloAmbient, ignored. */
    CHECK(voip_driver_open_v1() == 0, "release 1 opens (activation %s)", statusText(info->activate_err));
    harnessAttach();
    CHECK_STATUS(info->override_err, kAudioSessionIncompatibleCategory);
    CHECK_STATUS(info->bluetooth_err, kAudioSessionIncompatibleCategory);
    CHECK_STATUS(info->category_err, noErr);
    CHECK(getU32(kAudioSessionProperty_OverrideCategoryEnableBluetoothInput) == 0, "Bluetooth input request lost");

    /* Release 1 with headphones in: its speaker request is lost too. */
    reopenAsNextLaunch();
    plug("headphones");
    CHECK(voip_driver_open_v1() == 0, "release 1 opens again (activation %s)", statusText(info->activate_err));
    CHECK_STATUS(info->override_err, kAudioSessionIncompatibleCategory);
    CHECK(info->loudspeaker == 1, "the driver believes it is on the loudspeaker");
    CHECK(strcmp(routeName(text, sizeof text), "HeadphonesAndMicrophone") == 0, "speaker override not in effect (%s)",
          text);
    routePort(kAudioSession_AudioRouteKey_Outputs, text, sizeof text, &count);
    CHECK(isPort(text, kAudioSessionOutputRoute_Headphones), "still playing on the headphones (%s)", text);

    /* The corrected order. */
    reopenAsNextLaunch();
    CHECK(voip_driver_open() == 0, "corrected driver opens (activation %s)", statusText(info->activate_err));
    CHECK_STATUS(info->category_err, noErr);
    CHECK_STATUS(info->override_err, noErr);
    CHECK_STATUS(info->bluetooth_err, noErr);
    CHECK(strcmp(info->route, "HeadphonesAndMicrophone") == 0, "decided on the PlayAndRecord route (%s)", info->route);
    CHECK(strcmp(routeName(text, sizeof text), "SpeakerAndMicrophone") == 0, "speaker override in effect (%s)", text);
    routePort(kAudioSession_AudioRouteKey_Outputs, text, sizeof text, &count);
    CHECK(isPort(text, kAudioSessionOutputRoute_BuiltInSpeaker), "playing on the speaker (%s)", text);
    CHECK(getU32(kAudioSessionProperty_OverrideCategoryEnableBluetoothInput) == 1, "Bluetooth input enabled");
}

static void hardwareFigures(const struct voip_audio_info *info)
{
    CHECK(info->io_buffer > 0.0185f && info->io_buffer < 0.0215f, "IO buffer near the 20 ms asked for (%f)",
          (double)info->io_buffer);
    CHECK(info->output_latency > 0 && info->output_latency < 1, "output latency (%f)", (double)info->output_latency);
    CHECK(info->input_latency > 0 && info->input_latency < 1, "input latency (%f)", (double)info->input_latency);
    Float32 volume = getF32(kAudioSessionProperty_CurrentHardwareOutputVolume);
    CHECK(info->output_volume >= 0 && info->output_volume <= 1 && info->output_volume == volume,
          "output volume read (%f, now %f)", (double)info->output_volume, (double)volume);
}

static void interruptions(const struct voip_audio_info *info)
{
    char text[64];
    beginInterruption();
    CHECK(info->begin_count == 1 && info->running == 0, "Begin stops the stream");
    CHECK_STATUS(info->deactivate_in_begin_err, noErr);
    CHECK(!sessionActive(), "inactive after Begin");
    endInterruption(true);
    CHECK(info->end_count == 1, "End arrives although the driver deactivated in Begin (%d)", info->end_count);
    CHECK_STATUS(info->type_err, noErr);
    CHECK(info->end_type == kAudioSessionInterruptionType_ShouldResume, "InterruptionType ShouldResume inside End");
    CHECK_STATUS(info->reactivate_err, noErr);
    CHECK(info->running == 1 && sessionActive(), "restarted and active after End");
    CHECK(strcmp(routeName(text, sizeof text), "SpeakerAndMicrophone") == 0,
          "speaker override applied again after the interruption (%s)", text);

    beginInterruption();
    endInterruption(false);
    CHECK(info->begin_count == 2 && info->end_count == 2, "second interruption delivered (%d, %d)", info->begin_count,
          info->end_count);
    CHECK(info->end_type == kAudioSessionInterruptionType_ShouldNotResume, "InterruptionType ShouldNotResume");
    CHECK(info->running == 0 && !sessionActive(), "not restarted without ShouldResume");
    CHECK(voip_driver_open() == 0, "the user restarts the call (activation %s)", statusText(info->activate_err));
}

static void headsetRule(const struct voip_audio_info *info)
{
    char text[64];
    unplug("headphones");
    CHECK(info->loudspeaker == 1 && strcmp(routeName(text, sizeof text), "SpeakerAndMicrophone") == 0,
          "headphones out: loudspeaker (%s)", text);
    plug("headset");
    CHECK(strcmp(info->route, "HeadsetInOut") == 0, "the driver saw HeadsetInOut (%s)", info->route);
    CHECK(info->loudspeaker == 0, "a headset gets no loudspeaker override");
    CHECK(strcmp(routeName(text, sizeof text), "HeadsetInOut") == 0, "the call stays on the headset (%s)", text);
    unplug("headset");
    CHECK(info->loudspeaker == 1 && strcmp(routeName(text, sizeof text), "SpeakerAndMicrophone") == 0,
          "headset out: loudspeaker again (%s)", text);
}

/* SPEC.md 9: a call starts with no microphone, on output alone. */
static void noMicrophone(const struct voip_audio_info *info)
{
    char text[64];
    CFIndex count;
    reopenAsNextLaunch();
    unplug("mic");
    CHECK(voip_driver_open() == 0, "opens with no microphone (activation %s)", statusText(info->activate_err));
    CHECK_STATUS(info->category_err, noErr);
    CHECK_STATUS(info->activate_err, noErr);
    CHECK(info->running == 1, "stream running for output");
    CHECK(getU32(kAudioSessionProperty_CurrentHardwareInputNumberChannels) == 0, "no input channels");
    routePort(kAudioSession_AudioRouteKey_Inputs, text, sizeof text, &count);
    CHECK(count == 0, "no input in the route (%s)", text);
    voip_driver_close();
    plug("mic");
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "voip driver");
    const struct voip_audio_info *info = voip_driver_info();
    overridesBeforeCategory(info);
    hardwareFigures(info);
    if (!onALSA) interruptions(info); /* interruptions: virtual device only, for now */
    headsetRule(info);
    noMicrophone(info);
    return finish(onALSA ? "voip driver (alsa)" : "voip driver (virtual)");
}
