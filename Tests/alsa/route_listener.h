/* The route-change listener two ALSA suites share: counts the changes and keeps the
 * last reason. */
#ifndef ROUTE_LISTENER_H
#define ROUTE_LISTENER_H
#include <AudioToolbox/AudioToolbox.h>

static int routeChanges;
static SInt32 lastReason;

static void routeListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    routeChanges++;
    CFNumberGetValue(CFDictionaryGetValue((CFDictionaryRef)data, kAudioSession_RouteChangeKey_Reason),
                     kCFNumberSInt32Type, &lastReason);
}
#endif
