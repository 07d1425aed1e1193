/*
 * Jacks from other control devices: on a sound-server system ALSA's default control
 * device has a mixer but no jacks, and the jacks are on the hardware cards. Run with
 * AUDIOTOOLBOX_ALSA_CTL=vcardmixer (the virtual card's mixer without jacks) and
 * AUDIOTOOLBOX_ALSA_JACK_CTLS=vcard (the card itself): plugging headphones must still
 * be a route change, and the volume still comes from the session's device.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>
#include "../c/check.h"

#include "route_listener.h"

int main(void)
{
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones), kAudioServicesNoHardwareError);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, routeListener, NULL), noErr);
    CHECK(system("vcard plug headphones") == 0, "vcard plug headphones");
    /* Bounded only so that a lost event cannot hang the suite. */
    for (int i = 0; i < 2000 && routeChanges == 0; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(routeChanges == 1 && lastReason == kAudioSessionRouteChangeReason_NewDeviceAvailable,
          "headphones on the jack device: NewDeviceAvailable (%d changes, reason %d)", routeChanges, (int)lastReason);
    CFStringRef route = NULL;
    UInt32 size = sizeof route;
    char name[64] = "";
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_AudioRoute, &size, &route), noErr);
    CFStringGetCString(route, name, sizeof name, kCFStringEncodingUTF8);
    CFRelease(route);
    CHECK(strcmp(name, "Headphone") == 0, "route is Headphone (got %s)", name);
    CHECK(system("vcard unplug headphones") == 0, "vcard unplug headphones");
    for (int i = 0; i < 2000 && routeChanges == 1; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(routeChanges == 2 && lastReason == kAudioSessionRouteChangeReason_OldDeviceUnavailable,
          "unplugged: OldDeviceUnavailable (%d changes)", routeChanges);
    return finish("jacks from another control device");
}
