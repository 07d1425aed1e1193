/* A C program of the session API that interrupts whoever plays: MediaPlayback, active
 * for half a second, then inactive with NotifyOthersOnDeactivation, so the program it
 * interrupted is told it may resume. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

int main(void)
{
    OSStatus status = AudioSessionInitialize(NULL, NULL, NULL, NULL);
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    if (!status) status = AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    if (!status) status = AudioSessionSetActive(true);
    if (status) { fprintf(stderr, "c_interrupter: %d\n", (int)status); return 1; }
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.5, false);
    status = AudioSessionSetActiveWithFlags(false, kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation);
    printf("c_interrupter: deactivated (%d)\n", (int)status);
    return status ? 1 : 0;
}
