/* Recipe: follow the hardware output volume, as a volume slider in the UI would. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static void volumeChanged(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)id;
    int *changes = clientData;
    if (size == sizeof(Float32)) {
        (*changes)++;
        printf("listener: volume %.2f\n", *(const Float32 *)data);
    }
}

int main(void)
{
    static int changes;
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    AudioSessionSetActive(true);
    Float32 volume = 0;
    UInt32 size = sizeof volume;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume);
    printf("volume: %.2f\n", volume);

    AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeChanged, &changes);
    /* The user presses volume down twice (on Linux: the mixer's playback volume moves),
       and the program's run loop runs in between. Changes made while the loop does not
       run coalesce: the listener then hears only the newest volume. */
    AudioSessionVirtualDeviceSetOutputVolume(0.5f);
    while (CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) == kCFRunLoopRunHandledSource) {}
    AudioSessionVirtualDeviceSetOutputVolume(0.25f);
    while (CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) == kCFRunLoopRunHandledSource) {}
    printf("changes seen: %d\n", changes);
    AudioSessionRemovePropertyListenerWithUserData(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeChanged,
                                                   &changes);
    return 0;
}
