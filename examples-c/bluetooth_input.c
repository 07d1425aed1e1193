/* Recipe: allow a Bluetooth headset microphone as input for a recording app. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    UInt32 category = kAudioSessionCategory_RecordAudio;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    UInt32 allow = 1;
    OSStatus status = AudioSessionSetProperty(kAudioSessionProperty_OverrideCategoryEnableBluetoothInput,
                                              sizeof allow, &allow);
    printf("EnableBluetoothInput in RecordAudio: %d\n", (int)status);
    UInt32 value = 0, size = sizeof value;
    AudioSessionGetProperty(kAudioSessionProperty_OverrideCategoryEnableBluetoothInput, &size, &value);
    printf("EnableBluetoothInput reads %u\n", (unsigned)value);

    /* Overrides belong to a category: changing it resets them. */
    category = kAudioSessionCategory_PlayAndRecord;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionGetProperty(kAudioSessionProperty_OverrideCategoryEnableBluetoothInput, &size, &value);
    printf("after switching to PlayAndRecord it reads %u\n", (unsigned)value);

    /* The VoiceChat mode turns it on by itself. */
    UInt32 mode = kAudioSessionMode_VoiceChat;
    status = AudioSessionSetProperty(kAudioSessionProperty_Mode, sizeof mode, &mode);
    AudioSessionGetProperty(kAudioSessionProperty_OverrideCategoryEnableBluetoothInput, &size, &value);
    printf("VoiceChat mode (%d): EnableBluetoothInput reads %u\n", (int)status, (unsigned)value);
    return 0;
}
