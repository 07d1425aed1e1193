/* Recipe: media playback that mixes with other programs instead of silencing them. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static UInt32 otherAudio(void)
{
    UInt32 value = 0, size = sizeof value;
    AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &value);
    return value;
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    AudioSessionVirtualDeviceSetOtherAudioPlaying(true);

    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    UInt32 mix = 1;
    OSStatus status = AudioSessionSetProperty(kAudioSessionProperty_OverrideCategoryMixWithOthers, sizeof mix, &mix);
    printf("MixWithOthers on MediaPlayback: %d\n", (int)status);
    AudioSessionSetActive(true);
    printf("active and mixing; other audio still playing: %u\n", (unsigned)otherAudio());
    AudioSessionSetActive(false);

    /* Without the override, activation silences the other program... */
    mix = 0;
    AudioSessionSetProperty(kAudioSessionProperty_OverrideCategoryMixWithOthers, sizeof mix, &mix);
    AudioSessionSetActive(true);
    printf("active, not mixing; other audio still playing: %u\n", (unsigned)otherAudio());
    /* ...until we deactivate and tell it to resume. */
    AudioSessionSetActiveWithFlags(false, kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation);
    printf("deactivated with NotifyOthersOnDeactivation; other audio playing: %u\n", (unsigned)otherAudio());

    /* The override is not available for every category. */
    category = kAudioSessionCategory_SoloAmbientSound;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    mix = 1;
    status = AudioSessionSetProperty(kAudioSessionProperty_OverrideCategoryMixWithOthers, sizeof mix, &mix);
    printf("MixWithOthers on SoloAmbient: %s\n",
           status == kAudioSessionIncompatibleCategory ? "kAudioSessionIncompatibleCategory" : "unexpected");
    return 0;
}
