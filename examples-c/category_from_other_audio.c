/* Recipe: a game that lets the user's music keep playing: pick Ambient when other
 * audio is playing, SoloAmbient (with our own soundtrack) when it is not. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static void chooseCategory(void)
{
    UInt32 otherAudioIsPlaying = 0, size = sizeof otherAudioIsPlaying;
    AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &otherAudioIsPlaying);
    UInt32 category = otherAudioIsPlaying ? kAudioSessionCategory_AmbientSound : kAudioSessionCategory_SoloAmbientSound;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    printf("other audio playing: %u -> %s\n", (unsigned)otherAudioIsPlaying,
           otherAudioIsPlaying ? "Ambient (keep their music)" : "SoloAmbient (play our soundtrack)");
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    chooseCategory();
    /* Another program starts playing music (simulated on the virtual device). */
    AudioSessionVirtualDeviceSetOtherAudioPlaying(true);
    chooseCategory();
    return 0;
}
