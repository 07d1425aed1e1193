/* Recipe: set the category and read it back. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static void printCategory(void)
{
    UInt32 category = 0, size = sizeof category;
    OSStatus status = AudioSessionGetProperty(kAudioSessionProperty_AudioCategory, &size, &category);
    printf("category: '%c%c%c%c' (status %d, %u bytes)\n", (char)(category >> 24), (char)(category >> 16),
           (char)(category >> 8), (char)category, (int)status, (unsigned)size);
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    printCategory();   /* the default: SoloAmbientSound */

    UInt32 category = kAudioSessionCategory_AmbientSound;
    OSStatus status = AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    printf("set AmbientSound: %d\n", (int)status);
    printCategory();

    category = 0x12345678;   /* not a category */
    status = AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    printf("set an unknown category: %s\n",
           status == kAudioSessionUnsupportedPropertyError ? "kAudioSessionUnsupportedPropertyError" : "unexpected");
    printCategory();   /* unchanged */
    return 0;
}
