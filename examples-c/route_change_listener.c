/* Recipe: pause when the headphones are pulled out, and ignore route changes caused by
 * our own category changes. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static int playing = 1;

static void routeChangeListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)size;
    if (id != kAudioSessionProperty_AudioRouteChange) return;
    CFDictionaryRef change = (CFDictionaryRef)data;
    CFNumberRef reasonNumber = CFDictionaryGetValue(change, CFSTR(kAudioSession_AudioRouteChangeKey_Reason));
    SInt32 reason = 0;
    CFNumberGetValue(reasonNumber, kCFNumberSInt32Type, &reason);
    if (reason == kAudioSessionRouteChangeReason_CategoryChange) {
        printf("route change: category change, ignored\n");
        return;
    }
    char oldRoute[64] = "";
    CFStringGetCString(CFDictionaryGetValue(change, CFSTR(kAudioSession_AudioRouteChangeKey_OldRoute)), oldRoute,
                       sizeof oldRoute, kCFStringEncodingUTF8);
    if (reason == kAudioSessionRouteChangeReason_OldDeviceUnavailable) {
        playing = 0;
        printf("route change: device gone (old route %s), pausing\n", oldRoute);
    } else {
        printf("route change: reason %d (old route %s)\n", (int)reason, oldRoute);
    }
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, routeChangeListener, NULL);
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionSetActive(true);

    AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones);
    category = kAudioSessionCategory_AmbientSound;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionVirtualDeviceDisconnectPort(kAudioSessionVirtualPort_Headphones);

    while (CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) == kCFRunLoopRunHandledSource) {}
    printf("playing: %d\n", playing);
    return 0;
}
