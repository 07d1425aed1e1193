/*
 * Jack and element names are data (issue 16): the installed table
 * (share/audiotoolbox/alsa-controls.conf) knows a desktop's front panel, and a line in
 * the user's own file teaches a name without a new build. On the virtual card, whose
 * "Front Headphone Jack" and "Front Mic Jack" follow `vcard plug front-headphones` and
 * `vcard plug front-mic`. Run with XDG_CONFIG_HOME pointing to an empty folder the test
 * writes the user's file into (before AudioSessionInitialize reads it).
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../c/check.h"

#include "route_listener.h"

static void waitForRouteChanges(int count)
{
    /* Bounded only so that a lost event cannot hang the suite. */
    for (int i = 0; i < 2000 && routeChanges < count; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
}

static void routeName(char *name, size_t size)
{
    CFStringRef route = NULL;
    UInt32 bytes = sizeof route;
    name[0] = 0;
    if (AudioSessionGetProperty(kAudioSessionProperty_AudioRoute, &bytes, &route) == noErr && route) {
        CFStringGetCString(route, name, (CFIndex)size, kCFStringEncodingUTF8);
        CFRelease(route);
    }
}

static UInt32 inputAvailable(void)
{
    UInt32 value = 99, size = sizeof value;
    AudioSessionGetProperty(kAudioSessionProperty_AudioInputAvailable, &size, &value);
    return value;
}

static void vcard(const char *arguments)
{
    char command[128];
    snprintf(command, sizeof command, "vcard %s", arguments);
    CHECK(system(command) == 0, "%s", command);
}

int main(void)
{
    /* The user's file: their card calls its line output "Line Out Jack", and they want
     * it taken for headphones (a headphone amplifier on the line output). */
    const char *config = getenv("XDG_CONFIG_HOME");
    CHECK(config != NULL, "XDG_CONFIG_HOME is set");
    char path[512];
    snprintf(path, sizeof path, "%s/audiotoolbox", config);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/audiotoolbox/alsa-controls.conf", config);
    FILE *file = fopen(path, "w");
    CHECK(file != NULL, "write %s", path);
    if (file) {
        fputs("# a headphone amplifier on the line output\njack Line Out Jack = headphones\n", file);
        fclose(file);
    }

    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones), kAudioServicesNoHardwareError);
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, routeListener, NULL), noErr);
    char name[64];

    /* The front panel's headphone jack. */
    vcard("plug front-headphones");
    waitForRouteChanges(1);
    CHECK(routeChanges == 1 && lastReason == kAudioSessionRouteChangeReason_NewDeviceAvailable,
          "front-panel headphones: NewDeviceAvailable (%d changes, reason %d)", routeChanges, (int)lastReason);
    routeName(name, sizeof name);
    CHECK(strstr(name, "Headphone") != NULL, "route through the front-panel headphones (got %s)", name);
    vcard("unplug front-headphones");
    waitForRouteChanges(2);
    CHECK(routeChanges == 2 && lastReason == kAudioSessionRouteChangeReason_OldDeviceUnavailable,
          "front-panel headphones pulled: OldDeviceUnavailable (%d changes, reason %d)", routeChanges, (int)lastReason);

    /* The front panel's microphone jack: with the rear one empty, the card has a
     * microphone only while the front one is plugged. */
    vcard("unplug mic");
    for (int i = 0; i < 2000 && inputAvailable() != 0; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(inputAvailable() == 0, "no microphone plugged: no input (got %u)", (unsigned)inputAvailable());
    vcard("plug front-mic");
    for (int i = 0; i < 2000 && inputAvailable() != 1; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(inputAvailable() == 1, "a microphone in the front-panel jack is an input (got %u)", (unsigned)inputAvailable());
    vcard("unplug front-mic");
    vcard("plug mic");

    /* The user's line: the line output's jack means headphones now. Judged by the
     * route itself: the microphone's own route changes may still be arriving, so a
     * count of changes could be met before the line output's. */
    vcard("plug lineout");
    routeName(name, sizeof name);
    for (int i = 0; i < 2000 && !strstr(name, "Headphone"); i++) {
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
        routeName(name, sizeof name);
    }
    CHECK(strstr(name, "Headphone") != NULL, "the user's file makes Line Out Jack headphones (route %s)", name);
    int before = routeChanges;
    vcard("unplug lineout");
    waitForRouteChanges(before + 1);
    return finish("ALSA control names as data");
}
