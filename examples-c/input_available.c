/* Recipe: only offer recording when there is an input, and follow it as it comes and goes. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static void inputAvailabilityChanged(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    printf("listener: input available is now %u\n", (unsigned)*(const UInt32 *)data);
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    AudioSessionAddPropertyListener(kAudioSessionProperty_AudioInputAvailable, inputAvailabilityChanged, NULL);
    UInt32 available = 0, size = sizeof available;
    AudioSessionGetProperty(kAudioSessionProperty_AudioInputAvailable, &size, &available);
    printf("input available: %u\n", (unsigned)available);

    /* The built-in microphone goes away (on a desktop: the only capture device is unplugged). */
    AudioSessionVirtualDeviceDisconnectPort(kAudioSessionVirtualPort_BuiltInMic);
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true);
    UInt32 category = kAudioSessionCategory_RecordAudio;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    OSStatus status = AudioSessionSetActive(true);
    printf("recording without input: %s\n",
           status == kAudioServicesNoHardwareError ? "kAudioServicesNoHardwareError" : "unexpected");

    /* A headset brings a microphone. */
    AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headset);
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true);
    printf("recording with a headset: %d\n", (int)AudioSessionSetActive(true));
    return 0;
}
