/*
 * AUDIOTOOLBOX_BACKEND=alsa insists on ALSA: with a control device that does not exist
 * (run with AUDIOTOOLBOX_ALSA_CTL=no_such_card) AudioSessionInitialize fails with
 * kAudioSessionInitializationError instead of falling back to the virtual device, the
 * session stays uninitialised, and a failed initialisation can be retried: with the
 * virtual device chosen, the next AudioSessionInitialize succeeds.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>
#include "../c/check.h"

static int interruptionCalls;
static void interruptionListener(void *clientData, UInt32 state)
{
    (void)clientData; (void)state;
    interruptionCalls++;
}

int main(void)
{
    const char *backend = getenv("AUDIOTOOLBOX_BACKEND");
    CHECK(backend && strcmp(backend, "alsa") == 0, "run with AUDIOTOOLBOX_BACKEND=alsa");

    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, NULL), kAudioSessionInitializationError);
    /* Nothing was set up: every call reports the missing session. */
    Float64 rate = 0;
    UInt32 size = sizeof rate;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate),
                 kAudioSessionNotInitialized);
    CHECK_STATUS(AudioSessionSetActive(true), kAudioSessionNotInitialized);
    int fd = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&fd), kAudioSessionNotInitialized);
    CHECK_STATUS(AudioSessionVirtualDeviceBeginInterruption(), kAudioSessionNotInitialized);
    /* Insisting again fails again, the same way. */
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, NULL), kAudioSessionInitializationError);

    /* The program changes its mind: the virtual device. */
    setenv("AUDIOTOOLBOX_BACKEND", "virtual", 1);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, NULL), noErr);
    size = sizeof rate;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate), noErr);
    CHECK(rate == 44100, "the virtual device's rate (got %.0f)", rate);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK_STATUS(AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones), noErr);
    /* The interruption listener given to the successful call is the one used. */
    CHECK_STATUS(AudioSessionVirtualDeviceBeginInterruption(), noErr);
    runPendingCallbacks();
    CHECK(interruptionCalls == 1, "the interruption listener heard Begin (%d)", interruptionCalls);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), kAudioSessionAlreadyInitialized);
    return finish("alsa backend forced, no card");
}
