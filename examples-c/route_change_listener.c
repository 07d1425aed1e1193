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

static void runLoopUntilIdle(void)
{
    while (CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) == kCFRunLoopRunHandledSource) {}
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, routeChangeListener, NULL);
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionSetActive(true);

    /* A real program runs its loop between these events. (Route changes that pile up
       undelivered merge into one, from the first previous route to the last current.) */
    AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones);
    runLoopUntilIdle();
    category = kAudioSessionCategory_AmbientSound;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    runLoopUntilIdle();
    AudioSessionVirtualDeviceDisconnectPort(kAudioSessionVirtualPort_Headphones);
    runLoopUntilIdle();
    printf("playing: %d\n", playing);
    return 0;
}
