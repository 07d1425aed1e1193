/* Recipe: prefer a sample rate, activate, and use the rate the hardware runs at. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static Float64 currentRate(void)
{
    Float64 rate = 0;
    UInt32 size = sizeof rate;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate);
    return rate;
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    printf("hardware rate before activation: %.0f Hz\n", currentRate());

    Float64 preferred = 48000;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof preferred, &preferred);
    AudioSessionSetActive(true);
    printf("preferred %.0f Hz -> current %.0f Hz\n", preferred, currentRate());

    /* A device that offers only 44100 and 48000 Hz cannot run at 22050: it picks the nearest. */
    AudioSessionSetActive(false);
    Float64 rates[] = {44100, 48000};
    AudioSessionVirtualDeviceSetSampleRates(rates, 2);
    preferred = 22050;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof preferred, &preferred);
    AudioSessionSetActive(true);
    printf("preferred %.0f Hz -> current %.0f Hz\n", preferred, currentRate());
    return 0;
}
