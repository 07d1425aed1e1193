/*
 * VoiceProcessingIO cancels its own echo (SPEC 10): on the virtual ALSA card, whose
 * microphone hears a delayed, scaled copy of what the card played (an echo) and a
 * near-end talker (a 440 Hz tone), a VoiceProcessingIO unit plays a noise-like far end
 * and records. Compared with the same unit bypassed (kAUVoiceIOProperty_Bypass-
 * VoiceProcessing), once the canceller has learned the echo path the echo is at least
 * 20 dB lower, and a talker comes through within 6 dB, alone and over the echo (double
 * talk). Then gain control: a quiet talker comes out louder with
 * kAUVoiceIOProperty_VoiceProcessingEnableAGC on than off.
 * The virtual device's microphone hears nothing: there the suite says why it cannot apply.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "world.h"

enum { SECONDS = 60, MAX_RATE = 48000 };
static AudioUnit unit;
static Float32 recorded[SECONDS * MAX_RATE];
static volatile long recordedFrames;
static volatile int farEndOn = 1;
/* Set by the main thread to start the far end inside the next period, this many thirds
 * of the way into it (0, 1 or 2); -1 once done. */
static volatile int farEndStartThird = -1;
static UInt32 seed = 12345;
static Float32 smooth;

/* The far end: noise, gently low-passed so it sounds like a voice band. */
static OSStatus farEnd(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                       UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    Float32 *out = data->mBuffers[0].mData;
    UInt32 startAt = 0;
    if (farEndStartThird >= 0) {
        startAt = frames * (UInt32)farEndStartThird / 3;
        farEndStartThird = -1;
        farEndOn = 1;
    }
    for (UInt32 i = 0; i < frames; i++) {
        seed = seed * 1664525u + 1013904223u;
        Float32 white = (Float32)((int32_t)seed) / 2147483648.0f;
        smooth = 0.7f * smooth + 0.3f * white;
        out[i] = farEndOn && i >= startAt ? 0.5f * smooth : 0;
    }
    return noErr;
}

static OSStatus nearEnd(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                        UInt32 frames, AudioBufferList *unused)
{
    (void)refCon; (void)unused;
    Float32 samples[4096];
    AudioBufferList list = {1, {{1, sizeof samples, samples}}};
    if (frames > 4096 || AudioUnitRender(unit, flags, ts, bus, frames, &list) != noErr) return noErr;
    for (UInt32 i = 0; i < frames && recordedFrames < SECONDS * MAX_RATE; i++) recorded[recordedFrames++] = samples[i];
    return noErr;
}

/* The power of the 440 Hz talker and of everything else in recorded[from, to). */
static void powers(long from, long to, double rate, double *talker, double *rest)
{
    double c = 0, s = 0, total = 0;
    for (long i = from; i < to; i++) {
        double x = recorded[i];
        c += x * cos(2 * M_PI * 440 * i / rate);
        s += x * sin(2 * M_PI * 440 * i / rate);
        total += x * x;
    }
    long n = to - from;
    double amplitude = 2 * sqrt(c * c + s * s) / (double)n;
    *talker = amplitude * amplitude / 2;
    *rest = total / (double)n - *talker;
    if (*rest < 1e-12) *rest = 1e-12;
}

static void setSwitch(AudioUnitPropertyID id, UInt32 on)
{
    CHECK_STATUS(AudioUnitSetProperty(unit, id, kAudioUnitScope_Global, 0, &on, sizeof on), noErr);
}

/* Records `seconds` more seconds; returns where they start. */
static long recordFor(double seconds, double rate)
{
    long start = recordedFrames, until = start + (long)(seconds * rate);
    while (recordedFrames < until) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    return start;
}

int main(void)
{
    installWatchdog("test_voice_processing");
    alarm(120);
    if (!worldOnCard()) {
        worldCannot("the virtual device's microphone hears nothing, so there is no echo to cancel; the virtual ALSA "
                    "card's microphone hears what it played");
        worldSkip("echo cancellation");
        return worldFinish("test_voice_processing");
    }
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    UInt32 category = kAudioSessionCategory_PlayAndRecord, mode = kAudioSessionMode_VoiceChat;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_Mode, sizeof mode, &mode), noErr);
    Float32 duration = 0.01f;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, sizeof duration, &duration);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    Float64 rate = 0;
    UInt32 size = sizeof rate;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate), noErr);

    AudioComponentDescription d = {kAudioUnitType_Output, kAudioUnitSubType_VoiceProcessingIO,
                                   kAudioUnitManufacturer_Apple, 0, 0};
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &d), &unit), noErr);
    UInt32 on = 1;
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &on, sizeof on),
                 noErr);
    AudioStreamBasicDescription mono = {rate, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked, 4, 1, 4, 1, 32,
                                        0};
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &mono,
                                      sizeof mono), noErr);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1, &mono,
                                      sizeof mono), noErr);
    AURenderCallbackStruct renderCallback = {farEnd, NULL}, inputCallback = {nearEnd, NULL};
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0,
                                      &renderCallback, sizeof renderCallback), noErr);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioOutputUnitProperty_SetInputCallback, kAudioUnitScope_Global, 1,
                                      &inputCallback, sizeof inputCallback), noErr);
    setSwitch(kAUVoiceIOProperty_VoiceProcessingEnableAGC, 0);
    setSwitch(kAUVoiceIOProperty_BypassVoiceProcessing, 1);
    UInt32 bypass = 0;
    size = sizeof bypass;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAUVoiceIOProperty_BypassVoiceProcessing, kAudioUnitScope_Global, 0, &bypass,
                                      &size), noErr);
    CHECK(bypass == 1, "the bypass property reads back");
    CHECK_STATUS(AudioUnitInitialize(unit), noErr);

    /* The echo alone: the far end 30 ms later at half level. */
    worldRun("vcard %s", "capture-signal echo 30 0.5");
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    recordFor(0.5, rate);
    long raw = recordFor(2, rate);
    setSwitch(kAUVoiceIOProperty_BypassVoiceProcessing, 0);
    recordFor(6, rate); /* the canceller learns the echo path */
    long processed = recordFor(3, rate);
    double rawTalker, rawEcho, talker, echo;
    powers(raw, raw + 2 * (long)rate, rate, &rawTalker, &rawEcho);
    powers(processed, processed + 3 * (long)rate, rate, &talker, &echo);
    double attenuation = 10 * log10(rawEcho / echo);
    printf("measured: echo alone %.1f dB lower (%.2e -> %.2e) at %.0f Hz\n", attenuation, rawEcho, echo, rate);
    CHECK(rawEcho > 1e-3, "bypassed, the microphone hears the echo (%.2e)", rawEcho);
    CHECK(attenuation >= 20, "the echo is at least 20 dB lower (%.1f dB)", attenuation);
    double bypassedEcho = rawEcho;

    /* The talker alone (the far end silent). */
    farEndOn = 0;
    worldRun("vcard %s", "capture-signal echo 30 0.5 440 0.1");
    setSwitch(kAUVoiceIOProperty_BypassVoiceProcessing, 1);
    recordFor(0.5, rate);
    raw = recordFor(1.5, rate);
    setSwitch(kAUVoiceIOProperty_BypassVoiceProcessing, 0);
    recordFor(1, rate);
    processed = recordFor(1.5, rate);
    powers(raw, raw + 3 * (long)rate / 2, rate, &rawTalker, &rawEcho);
    powers(processed, processed + 3 * (long)rate / 2, rate, &talker, &echo);
    double talkerChange = 10 * log10(talker / rawTalker);
    printf("measured: talker alone %+.1f dB (%.2e -> %.2e)\n", talkerChange, rawTalker, talker);
    CHECK(rawTalker > 1e-3, "bypassed, the microphone hears the talker (%.2e)", rawTalker);
    CHECK(fabs(talkerChange) <= 6, "the talker comes through within 6 dB (%+.1f dB)", talkerChange);

    /* Both at once (double talk): the talker speaks over the echo. The echo must still be
     * at least 20 dB below the bypassed echo, and the talker come through within 6 dB. */
    farEndOn = 1;
    recordFor(3, rate);
    processed = recordFor(2, rate);
    powers(processed, processed + 2 * (long)rate, rate, &talker, &echo);
    double doubleTalkEcho = 10 * log10(bypassedEcho / echo), doubleTalkTalker = 10 * log10(talker / rawTalker);
    printf("measured: double talk: echo %.2e (%.1f dB below the bypassed echo), talker %+.1f dB\n", echo,
           doubleTalkEcho, doubleTalkTalker);
    CHECK(doubleTalkEcho >= 20, "in double talk the echo is at least 20 dB lower (%.1f dB)", doubleTalkEcho);
    CHECK(fabs(doubleTalkTalker) <= 6, "in double talk the talker comes through within 6 dB (%+.1f dB)",
          doubleTalkTalker);

    /* Double talk starting at several places in the device's period: the talker alone,
     * then the far end from a third or two thirds into a period, or at its start. */
    for (int third = 0; third < 3; third++) {
        farEndOn = 0;
        recordFor(1, rate);
        farEndStartThird = third;
        recordFor(1.5, rate);
        processed = recordFor(1.5, rate);
        powers(processed, processed + 3 * (long)rate / 2, rate, &talker, &echo);
        double below = 10 * log10(bypassedEcho / echo), change = 10 * log10(talker / rawTalker);
        printf("measured: double talk from %d/3 into a period: echo %.1f dB below the bypassed echo, talker %+.1f dB\n", third,
               below, change);
        CHECK(below >= 20 && fabs(change) <= 6, "double talk from %d/3 into a period: echo %.1f dB lower, talker %+.1f dB", third,
              below, change);
    }

    /* Gain control: a quiet talker alone, gain control off then on. */
    farEndOn = 0;
    worldRun("vcard %s", "capture-signal tone 440 0.02");
    recordFor(1, rate);
    long quiet = recordFor(2, rate);
    setSwitch(kAUVoiceIOProperty_VoiceProcessingEnableAGC, 1);
    recordFor(4, rate);
    long levelled = recordFor(2, rate);
    double quietTalker, levelledTalker, ignored;
    powers(quiet, quiet + 2 * (long)rate, rate, &quietTalker, &ignored);
    powers(levelled, levelled + 2 * (long)rate, rate, &levelledTalker, &ignored);
    double boost = 10 * log10(levelledTalker / quietTalker);
    printf("measured: gain control lifts the quiet talker by %+.1f dB\n", boost);
    CHECK(boost >= 3, "gain control lifts a quiet talker (%+.1f dB)", boost);
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
    return worldFinish("test_voice_processing");
}
