/* Recipe: initialise the session with an interruption listener, and resume after an
 * interruption only when told to. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

typedef struct { int playing; } Player;

static void interruptionListener(void *clientData, UInt32 state)
{
    Player *player = clientData;
    if (state == kAudioSessionBeginInterruption) {
        /* The session is already inactive here: just remember that we stopped. */
        player->playing = 0;
        printf("interrupted: playback paused\n");
    } else if (state == kAudioSessionEndInterruption) {
        UInt32 type = 0, size = sizeof type;
        AudioSessionGetProperty(kAudioSessionProperty_InterruptionType, &size, &type);
        if (type == kAudioSessionInterruptionType_ShouldResume && AudioSessionSetActive(true) == noErr) {
            player->playing = 1;
            printf("interruption over: resumed\n");
        } else {
            printf("interruption over: staying paused\n");
        }
    }
}

int main(void)
{
    static Player player;
    OSStatus status = AudioSessionInitialize(NULL, NULL, interruptionListener, &player);
    printf("AudioSessionInitialize: %d\n", (int)status);
    printf("again: %s\n", AudioSessionInitialize(NULL, NULL, NULL, NULL) == kAudioSessionAlreadyInitialized
                              ? "kAudioSessionAlreadyInitialized" : "unexpected");
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    if (AudioSessionSetActive(true) == noErr) player.playing = 1;
    printf("playing: %d\n", player.playing);

    /* Simulate two phone calls on the virtual device: one that lets us resume, one that does not. */
    for (int resume = 1; resume >= 0; resume--) {
        AudioSessionVirtualDeviceBeginInterruption();
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true);
        AudioSessionVirtualDeviceEndInterruption(resume);
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true);
        printf("playing: %d\n", player.playing);
    }
    return 0;
}
