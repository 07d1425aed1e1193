/*
 * SPEC.md section 9: with no sound card at all the library falls back to the virtual
 * device, so programs keep working (run with an ALSA control name that does not exist).
 */
#include <AudioToolbox/AudioToolbox.h>
#include "../c/check.h"

int main(void)
{
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    /* The virtual device's controls work only when it is the session's hardware. */
    CHECK_STATUS(AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones), noErr);
    Float64 rate = 0;
    UInt32 size = sizeof rate;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate), noErr);
    CHECK(rate == 44100, "the virtual device's rate (got %.0f)", rate);
    return finish("fallback to the virtual device");
}
