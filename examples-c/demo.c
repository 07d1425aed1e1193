/*
 * demo: what a ported program sees on this machine.
 *
 * Reads the session's category, route, sample rate and volume, then uses the virtual
 * device to plug in headphones and to start and end an interruption, printing every
 * callback as the run loop delivers it.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static void printCFString(const char *label, CFStringRef text)
{
    char buffer[128] = "";
    CFStringGetCString(text, buffer, sizeof buffer, kCFStringEncodingUTF8);
    printf("%s%s\n", label, buffer);
}

static void interruptionListener(void *clientData, UInt32 state)
{
    (void)clientData;
    if (state == kAudioSessionBeginInterruption) {
        printf("  callback: interruption began (session is now inactive)\n");
        return;
    }
    UInt32 type = 0, size = sizeof type;
    AudioSessionGetProperty(kAudioSessionProperty_InterruptionType, &size, &type);
    printf("  callback: interruption ended, %s\n",
           type == kAudioSessionInterruptionType_ShouldResume ? "should resume" : "should not resume");
    AudioSessionSetActive(true);
}

static void routeChanged(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    CFDictionaryRef change = (CFDictionaryRef)data;
    CFNumberRef reasonNumber = CFDictionaryGetValue(change, CFSTR(kAudioSession_AudioRouteChangeKey_Reason));
    SInt32 reason = 0;
    CFNumberGetValue(reasonNumber, kCFNumberSInt32Type, &reason);
    printf("  callback: route changed, reason %d", (int)reason);
    printCFString(", old route ", CFDictionaryGetValue(change, CFSTR(kAudioSession_AudioRouteChangeKey_OldRoute)));
}

static void printRoute(void)
{
    CFStringRef route = NULL;
    UInt32 size = sizeof route;
    if (AudioSessionGetProperty(kAudioSessionProperty_AudioRoute, &size, &route) == noErr) {
        printCFString("route:       ", route);
        CFRelease(route);
    }
}

static void deliverCallbacks(void)
{
    while (CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) == kCFRunLoopRunHandledSource) {}
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, interruptionListener, NULL);
    AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, routeChanged, NULL);

    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionSetActive(true);

    UInt32 size = sizeof category;
    AudioSessionGetProperty(kAudioSessionProperty_AudioCategory, &size, &category);
    printf("category:    '%c%c%c%c'\n", (char)(category >> 24), (char)(category >> 16),
           (char)(category >> 8), (char)category);
    printRoute();
    Float64 rate = 0;
    size = sizeof rate;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate);
    printf("sample rate: %.0f Hz\n", rate);
    Float32 volume = 0;
    size = sizeof volume;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume);
    printf("volume:      %.2f\n", volume);

    printf("plugging in headphones\n");
    AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones);
    deliverCallbacks();
    printRoute();

    printf("an incoming call begins\n");
    AudioSessionVirtualDeviceBeginInterruption();
    deliverCallbacks();
    printf("the call ends\n");
    AudioSessionVirtualDeviceEndInterruption(true);
    deliverCallbacks();
    return 0;
}
