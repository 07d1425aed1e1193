/* Recipe: ask for a short IO buffer for low latency, then read what the hardware granted. */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

static void report(const char *when)
{
    Float32 preferred = 0, current = 0;
    UInt32 size = sizeof preferred;
    AudioSessionGetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, &size, &preferred);
    size = sizeof current;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareIOBufferDuration, &size, &current);
    Float64 rate = 0;
    size = sizeof rate;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate);
    printf("%-20s preferred %.4f s, current %.4f s (%.0f frames at %.0f Hz)\n", when, preferred, current,
           current * rate, rate);
}

int main(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    report("before any request:");

    Float32 duration = 0.005f;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, sizeof duration, &duration);
    report("requested 5 ms:");
    AudioSessionSetActive(true);
    report("after activation:");

    duration = 0.001f;   /* below what the device allows: clamped */
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, sizeof duration, &duration);
    report("requested 1 ms:");
    return 0;
}
