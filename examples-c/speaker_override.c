/* Recipe: a voice app in PlayAndRecord that routes to the speaker, once with the
 * route override (lasts until the next route change) and once with DefaultToSpeaker
 * (lasts for the category). */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static void printRoute(const char *when)
{
    CFStringRef route = NULL;
    UInt32 size = sizeof route;
    char name[64] = "?";
    if (AudioSessionGetProperty(kAudioSessionProperty_AudioRoute, &size, &route) == noErr) {
        CFStringGetCString(route, name, sizeof name, kCFStringEncodingUTF8);
        CFRelease(route);
    }
    printf("%-34s route %s\n", when, name);
}

static void setU32(AudioSessionPropertyID id, UInt32 value)
{
    OSStatus status = AudioSessionSetProperty(id, sizeof value, &value);
    if (status != noErr) printf("set failed: %d\n", (int)status);
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_PlayAndRecord);
    AudioSessionSetActive(true);
    AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headset);
    printRoute("headset plugged in:");

    setU32(kAudioSessionProperty_OverrideAudioRoute, kAudioSessionOverrideAudioRoute_Speaker);
    printRoute("override to speaker:");
    AudioSessionVirtualDeviceDisconnectPort(kAudioSessionVirtualPort_Headset);
    AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headset);
    printRoute("after replugging (override gone):");

    setU32(kAudioSessionProperty_OverrideCategoryDefaultToSpeaker, 1);
    AudioSessionVirtualDeviceDisconnectPort(kAudioSessionVirtualPort_Headset);
    UInt32 defaultToSpeaker = 0, size = sizeof defaultToSpeaker;
    AudioSessionGetProperty(kAudioSessionProperty_OverrideCategoryDefaultToSpeaker, &size, &defaultToSpeaker);
    printRoute("headset out, DefaultToSpeaker:");
    printf("DefaultToSpeaker still set after the route change: %u\n", (unsigned)defaultToSpeaker);
    return 0;
}
