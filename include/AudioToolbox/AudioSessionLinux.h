/*
 * AudioToolbox for Linux — additions that exist only on Linux.
 *
 * Nothing here is part of Apple's API. Two groups:
 *   1. Receiving callbacks without a CFRunLoop (poll/epoll/GLib programs).
 *   2. Driving the virtual sound device: plugging ports, moving the volume, starting
 *      interruptions — what a phone's hardware and other apps would do. Tests and
 *      demos use these to exercise the real listener paths on a machine with no sound
 *      card.
 * All functions return kAudioSessionNotInitialized before AudioSessionInitialize.
 * Environment: AUDIOTOOLBOX_ALSA_PCM / AUDIOTOOLBOX_ALSA_CTL name the ALSA devices,
 * AUDIOTOOLBOX_BACKEND=virtual|alsa forces a backend, AUDIOTOOLBOX_LOG=error|debug logs.
 */
#ifndef AUDIOTOOLBOX_AUDIOSESSIONLINUX_H
#define AUDIOTOOLBOX_AUDIOSESSIONLINUX_H

#include <AudioToolbox/AudioSession.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this library the header belongs to: major * 10000 + minor * 100 +
 * patch (0.1.0 is 100). Compare it with AudioSessionGetLinuxVersion to learn which
 * library a program actually runs with. */
#define AUDIOTOOLBOX_LINUX_VERSION_NUMBER 100

/* *outVersion receives the running library's version, in the form of
 * AUDIOTOOLBOX_LINUX_VERSION_NUMBER. Works before AudioSessionInitialize. NULL
 * outVersion gives kAudioSessionUnspecifiedError. */
extern OSStatus AudioSessionGetLinuxVersion(UInt32 *outVersion);

/* ---------------------------------------------------------------------------------
 * 1. Callbacks without a CFRunLoop.
 *
 * Every callback is queued; the queue is drained either by the run loop given to
 * AudioSessionInitialize or by AudioSessionDispatchPendingCallbacks, whichever comes
 * first, so each callback runs exactly once.
 * ------------------------------------------------------------------------------- */

/* *outFD receives a file descriptor that polls readable (POLLIN) while callbacks are
 * pending. Do not read or close it; call AudioSessionDispatchPendingCallbacks instead.
 * NULL outFD gives kAudioSessionUnspecifiedError. */
extern OSStatus AudioSessionGetCallbackFileDescriptor(int *outFD);

/* Run the pending callbacks on the calling thread, one at a time and in the order of
 * the changes they report; the descriptor is readable exactly while callbacks wait.
 * *outCount (may be NULL) receives how many callbacks ran. Called from inside a
 * callback, it continues the same queue with the callbacks after the current one.
 * Called while another thread is running callbacks, it returns at once with a count
 * of 0: that thread runs the rest. While callbacks wait, a newer change of the same
 * property replaces the waiting one (route changes merge, keeping the earliest
 * previous route), so a program that dispatches rarely sees the newest values. */
extern OSStatus AudioSessionDispatchPendingCallbacks(UInt32 *outCount);

/* ---------------------------------------------------------------------------------
 * 2. The virtual sound device.
 *
 * The session uses this in-process device when no ALSA card opens, or when the
 * environment says AUDIOTOOLBOX_BACKEND=virtual. It has a built-in speaker and a
 * built-in microphone; other ports can be connected. On an ALSA card these calls
 * return kAudioServicesNoHardwareError (drive the virtual ALSA card with `vcard`).
 * ------------------------------------------------------------------------------- */
typedef UInt32 AudioSessionVirtualPort;
enum {
    /* Headphones without a microphone. */
    kAudioSessionVirtualPort_Headphones  = AT_FOURCC('h','d','p','h'),
    /* Headphones with a microphone (a headset). */
    kAudioSessionVirtualPort_Headset     = AT_FOURCC('h','d','s','t'),
    /* The built-in microphone; disconnect it to make input unavailable. */
    kAudioSessionVirtualPort_BuiltInMic  = AT_FOURCC('b','m','i','c'),
    kAudioSessionVirtualPort_LineOut     = AT_FOURCC('l','o','u','t'),
    kAudioSessionVirtualPort_LineIn      = AT_FOURCC('l','i','n','i'),
    /* A USB sound card with an input and an output. */
    kAudioSessionVirtualPort_USBAudio    = AT_FOURCC('u','s','b','a'),
    kAudioSessionVirtualPort_HDMI        = AT_FOURCC('h','d','m','i')
};

/* Connect a port: a route change with reason NewDeviceAvailable follows if the
 * session's route changes. Connecting a connected port does nothing. An unknown port
 * gives kAudioSessionUnsupportedPropertyError. */
extern OSStatus AudioSessionVirtualDeviceConnectPort(AudioSessionVirtualPort inPort);

/* Disconnect a port: reason OldDeviceUnavailable (or NoSuitableRouteForCategory when
 * the category is left without a usable device). */
extern OSStatus AudioSessionVirtualDeviceDisconnectPort(AudioSessionVirtualPort inPort);

/* Move the output volume (0..1; outside values give kAudioSessionUnsupportedPropertyError);
 * kAudioSessionProperty_CurrentHardwareOutputVolume listeners are called. */
extern OSStatus AudioSessionVirtualDeviceSetOutputVolume(Float32 inVolume);

/* Say whether the input gain of the device can be set
 * (kAudioSessionProperty_InputGainAvailable). */
extern OSStatus AudioSessionVirtualDeviceSetInputGainSettable(Boolean inSettable);

/* Set the sample rates the device supports (1 to 16 rates, each 8000..384000 Hz).
 * Takes effect at the next activation. */
extern OSStatus AudioSessionVirtualDeviceSetSampleRates(const Float64 *inRates, UInt32 inCount);

/* The rest of the simulated world: another program, calls and alarms, the media
 * server. These act on the in-process arbiter, which arbitrates a program when
 * AUDIOTOOLBOX_BACKEND=virtual or AUDIOTOOLBOX_ARBITER=local, or when audiosessiond
 * cannot be reached; while audiosessiond arbitrates they return
 * kAudioServicesNoHardwareError (use `audiosession call start` and real programs). */

/* Pretend another program, one that does not mix, starts (or stops) playing sound: it
 * activates its session, which interrupts this one if this one is active and does not
 * mix (Begin), or deactivates it with NotifyOthersOnDeactivation (End). This session
 * interrupts it by activating a category that does not mix (OtherAudioIsPlaying then
 * reads 0) and lets it resume by deactivating with
 * kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation. The rules are those of
 * audiosessiond, applied by the same engine. */
extern OSStatus AudioSessionVirtualDeviceSetOtherAudioPlaying(Boolean inPlaying);

/* Begin a system interruption (an incoming call, an alarm): the phone always wins, so
 * an active session is deactivated and receives kAudioSessionBeginInterruption
 * whatever its category (Ambient and MixWithOthers too); until it ends, every
 * activation fails with kAudioSessionUnspecifiedError. Beginning twice gives
 * kAudioSessionUnspecifiedError. */
extern OSStatus AudioSessionVirtualDeviceBeginInterruption(void);

/* End the system interruption. An interrupted session receives
 * kAudioSessionEndInterruption, with kAudioSessionProperty_InterruptionType reading
 * ShouldResume if inShouldResume is true. Without an interruption in progress:
 * kAudioSessionUnspecifiedError. */
extern OSStatus AudioSessionVirtualDeviceEndInterruption(Boolean inShouldResume);

/* Pretend the sound server died and came back: the session becomes inactive and
 * kAudioSessionProperty_ServerDied listeners are called. */
extern OSStatus AudioSessionVirtualDeviceServerDied(void);

#ifdef __cplusplus
}
#endif

#endif /* AUDIOTOOLBOX_AUDIOSESSIONLINUX_H */
