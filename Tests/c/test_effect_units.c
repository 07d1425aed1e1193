/*
 * The effects beyond the two-pole filters: AUPeakLimiter, AUDynamicsProcessor, AUDelay,
 * AUDistortion, AUReverb2, AUNBandEQ and AUiPodEQ, called as music apps and game engines
 * call them.
 *
 * Each is rendered offline in a graph (GenericOutput <- effect <- a source) and measured
 * against what its documentation promises: the limiter's output never above full scale;
 * the compressor's output level on the documented curve; the delay's echo at the delay
 * time with the feedback's ratio; the distortion's cubic term's third harmonic and the
 * ring modulator's sidebands; the reverb's decay time (-60 dB) from its tail, and longer
 * for a cathedral than for a small room (factory presets by kAudioUnitProperty_
 * PresentPreset); the N-band EQ's bands (a peak, a Butterworth high-pass) within 1 dB.
 * State is saved and restored by kAudioUnitProperty_ClassInfo, and an .aupreset file
 * written as Apple's tools write one is read into the reverb. Bad inputs answer with
 * codes and change nothing.
 *
 * Live (RemoteIO <- Delay <- a tone burst, as music apps join an effect to the output):
 * the card hears the burst, and its echo the delay time later.
 *
 * Compiled as iPhone code (the -ios module): AUReverb2 is an iPhone-only name.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "tone_level.h"
#include "world.h"

#define EFFECT(subtype) {kAudioUnitType_Effect, subtype, kAudioUnitManufacturer_Apple, 0, 0}
static const AudioComponentDescription genericDescription = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                                             kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription rioDescription = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO,
                                                         kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription limiterDescription = EFFECT(kAudioUnitSubType_PeakLimiter);
static const AudioComponentDescription dynamicsDescription = EFFECT(kAudioUnitSubType_DynamicsProcessor);
static const AudioComponentDescription delayDescription = EFFECT(kAudioUnitSubType_Delay);
static const AudioComponentDescription distortionDescription = EFFECT(kAudioUnitSubType_Distortion);
static const AudioComponentDescription reverbDescription = EFFECT(kAudioUnitSubType_Reverb2);
static const AudioComponentDescription bandEQDescription = EFFECT(kAudioUnitSubType_NBandEQ);
static const AudioComponentDescription iPodEQDescription = EFFECT(kAudioUnitSubType_AUiPodEQ);

enum { RATE = 44100, SLICE = 512, LONGEST = 4 * RATE };

static const AudioStreamBasicDescription floatFormat = {RATE, kAudioFormatLinearPCM,
                                                        kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                                        4, 1, 4, 2, 32, 0};

/* What the source plays: a sine, one impulse, or a burst of noise, each starting at frame 0
 * and (burst, sine with `until`) stopping. */
typedef struct {
    enum { SINE, IMPULSE, NOISE } shape;
    double hz, amplitude, phase;
    long until; /* frames of sound, then silence (0: forever) */
    long at;
    unsigned seed;
    volatile long frames;
} Source;

static OSStatus play(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus, UInt32 frames,
                     AudioBufferList *data)
{
    (void)flags; (void)ts; (void)bus;
    Source *s = refCon;
    for (UInt32 i = 0; i < frames; i++, s->at++) {
        double v = 0;
        int sounding = s->until == 0 || s->at < s->until;
        if (s->shape == SINE && sounding) v = s->amplitude * sin(s->phase);
        if (s->shape == IMPULSE) v = s->at == 0 ? s->amplitude : 0;
        if (s->shape == NOISE && sounding) {
            s->seed = s->seed * 1664525u + 1013904223u;
            v = s->amplitude * ((double)(s->seed >> 8) / (1 << 24) * 2 - 1);
        }
        s->phase += 2 * M_PI * s->hz / RATE;
        for (UInt32 b = 0; b < data->mNumberBuffers; b++) ((Float32 *)data->mBuffers[b].mData)[i] = (Float32)v;
    }
    __atomic_add_fetch(&s->frames, frames, __ATOMIC_RELAXED);
    return noErr;
}

/* ---- offline ------------------------------------------------------------------------- */

static AUGraph graph;
static AudioUnit generic, effect;
static Source source;
static Float32 left[LONGEST + SLICE], right[LONGEST + SLICE]; /* a run rounds up to a whole slice */
static double sampleTime;

static OSStatus render(AudioUnit unit, long frames)
{
    for (long done = 0; done < frames; done += SLICE) {
        struct { UInt32 count; AudioBuffer b[2]; } list = {2, {{1, SLICE * 4, left + done}, {1, SLICE * 4, right + done}}};
        AudioTimeStamp ts;
        memset(&ts, 0, sizeof ts);
        ts.mSampleTime = sampleTime;
        ts.mFlags = kAudioTimeStampSampleTimeValid;
        AudioUnitRenderActionFlags flags = 0;
        OSStatus status = AudioUnitRender(unit, &flags, &ts, 0, SLICE, (AudioBufferList *)&list);
        if (status != noErr) return status;
        sampleTime += SLICE;
    }
    return noErr;
}

static void buildGraph(const AudioComponentDescription *kind)
{
    AUNode out = 0, node = 0;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &genericDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, kind, &node), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, node, NULL, &effect), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, out, NULL, &generic), noErr);
    CHECK_STATUS(AudioUnitSetProperty(effect, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &floatFormat,
                                      sizeof floatFormat), noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floatFormat,
                                      sizeof floatFormat), noErr);
    AURenderCallbackStruct feed = {play, &source};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, node, 0, &feed), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
}

static void closeGraph(void)
{
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
    graph = NULL;
}

/* Plays `s` from its start through the effect for `frames` frames (rounded up to SLICE). */
static void run(Source s, long frames)
{
    source = s;
    AudioUnitReset(effect, kAudioUnitScope_Global, 0);
    frames += (SLICE - frames % SLICE) % SLICE;
    CHECK_STATUS(render(generic, frames), noErr);
}

static void set(AudioUnitParameterID id, Float32 value)
{
    CHECK_STATUS(AudioUnitSetParameter(effect, id, kAudioUnitScope_Global, 0, value, 0), noErr);
}

static Float32 get(AudioUnitParameterID id)
{
    Float32 value = NAN;
    CHECK_STATUS(AudioUnitGetParameter(effect, id, kAudioUnitScope_Global, 0, &value), noErr);
    return value;
}

static double decibels(double amplitude) { return 20 * log10(amplitude > 1e-12 ? amplitude : 1e-12); }

static double peakOf(const Float32 *s, long n)
{
    double peak = 0;
    for (long i = 0; i < n; i++) peak = fabs(s[i]) > peak ? fabs(s[i]) : peak;
    return peak;
}

/* ---- discovery and parameters ----------------------------------------------------------- */

static UInt32 parameterCount(AudioUnit u)
{
    UInt32 size = 0;
    Boolean writable = 1;
    CHECK_STATUS(AudioUnitGetPropertyInfo(u, kAudioUnitProperty_ParameterList, kAudioUnitScope_Global, 0, &size, &writable),
                 noErr);
    return size / sizeof(AudioUnitParameterID);
}

static void discovery(void)
{
    const AudioComponentDescription *kinds[] = {&limiterDescription, &dynamicsDescription, &delayDescription,
                                                &distortionDescription, &reverbDescription, &bandEQDescription};
    /* Their parameters, counted from AudioUnitParameters.h: the N-band EQ shows its global
     * gain and five parameters for each of its two first bands. */
    const UInt32 counts[] = {3, 10, 4, 16, 7, 1 + 5 * 2};
    for (int i = 0; i < 6; i++) {
        AudioComponent c = AudioComponentFindNext(NULL, kinds[i]);
        CHECK(c != NULL, "AudioComponentFindNext finds effect %d", i);
        if (!c) continue;
        AudioUnit u = NULL;
        CHECK_STATUS(AudioComponentInstanceNew(c, &u), noErr);
        CHECK(parameterCount(u) == counts[i], "effect %d lists %u parameters (want %u)", i, parameterCount(u), counts[i]);
        CHECK_STATUS(AudioComponentInstanceDispose(u), noErr);
    }
    /* A meter (the dynamics processor's input level) is readable, not writable. */
    AudioUnit u = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &dynamicsDescription), &u), noErr);
    AudioUnitParameterInfo info;
    UInt32 size = sizeof info;
    CHECK_STATUS(AudioUnitGetProperty(u, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Global,
                                      kDynamicsProcessorParam_InputAmplitude, &info, &size), noErr);
    CHECK((info.flags & kAudioUnitParameterFlag_IsReadable) && !(info.flags & kAudioUnitParameterFlag_IsWritable),
          "the input meter is read-only (flags %#x)", (unsigned)info.flags);
    CHECK_STATUS(AudioUnitGetProperty(u, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Global,
                                      kDynamicsProcessorParam_Threshold, &info, &size), noErr);
    CHECK(info.minValue == -40 && info.maxValue == 20 && info.defaultValue == -20 && info.unit == kAudioUnitParameterUnit_Decibels,
          "the threshold is -40..20 dB, -20 at first (%g..%g, %g)", info.minValue, info.maxValue, info.defaultValue);
    CHECK_STATUS(AudioComponentInstanceDispose(u), noErr);
}

/* ---- the limiter ------------------------------------------------------------------------- */

static void limiter(void)
{
    buildGraph(&limiterDescription);
    Float64 latency = -1;
    UInt32 size = sizeof latency;
    CHECK_STATUS(AudioUnitGetProperty(effect, kAudioUnitProperty_Latency, kAudioUnitScope_Global, 0, &latency, &size), noErr);
    CHECK(fabs(latency - 0.012) < 1e-6, "the limiter's latency is its attack time (%g s)", latency);
    /* A tone 12 dB above full scale after the pre-gain: never above full scale out, and
     * once the gain has settled near it. */
    set(kLimiterParam_PreGain, 12);
    run((Source){SINE, 1000, 0.5, 0, 0, 0, 1, 0}, RATE / 2);
    double peak = peakOf(left, RATE / 2), settled = amplitudeAt(left + RATE / 4, RATE / 4, 1000, RATE);
    printf("measured: limiter, a tone at +6 dBFS: peak %.4f, settled amplitude %.3f\n", peak, settled);
    CHECK(peak <= 1.0, "the limited output stays within full scale (peak %.5f)", peak);
    CHECK(settled > 0.85 && settled <= 1.0, "and sits near it (%.3f)", settled);
    /* A quiet tone passes as it was, delayed. */
    set(kLimiterParam_PreGain, 0);
    run((Source){SINE, 1000, 0.1, 0, 0, 0, 1, 0}, RATE / 2);
    double quiet = amplitudeAt(left + RATE / 4, RATE / 4, 1000, RATE);
    CHECK(fabs(decibels(quiet / 0.1)) < 0.05, "a quiet tone passes unchanged (%.3f dB)", decibels(quiet / 0.1));
    long first = -1;
    for (long i = 0; i < RATE / 2 && first < 0; i++) if (fabs(left[i]) > 1e-6) first = i;
    CHECK(labs(first - (long)(0.012 * RATE)) <= 1, "and comes out the attack time late (frame %ld)", first);
    closeGraph();
}

/* ---- the dynamics processor -------------------------------------------------------------- */

/* The documented curve: the output level in dB for an input level in dB. */
static double curve(double level, double threshold, double headroom, double expansion, double ratio)
{
    if (level > threshold) return threshold + headroom * (1 - exp(-(level - threshold) / headroom));
    if (level < expansion) return expansion + (level - expansion) * ratio;
    return level;
}

static void dynamics(void)
{
    buildGraph(&dynamicsDescription);
    set(kDynamicsProcessorParam_ReleaseTime, 0.5); /* a steady level from a sine's peaks */
    const double levels[] = {-40, -10, 0, -60};
    for (int i = 0; i < 4; i++) {
        if (levels[i] == -60) {
            set(kDynamicsProcessorParam_ExpansionThreshold, -50);
            set(kDynamicsProcessorParam_ExpansionRatio, 2);
        }
        double amplitude = pow(10, levels[i] / 20);
        run((Source){SINE, 1000, amplitude, 0, 0, 0, 1, 0}, RATE);
        double out = decibels(amplitudeAt(left + RATE / 2, RATE / 2, 1000, RATE));
        double want = curve(levels[i], -20, 5, levels[i] == -60 ? -50 : -100, 2);
        printf("measured: dynamics, a tone at %g dBFS comes out at %.2f dBFS (curve: %.2f)\n", levels[i], out, want);
        CHECK(fabs(out - want) < 1, "a tone at %g dBFS comes out on the curve (%.2f, want %.2f)", levels[i], out, want);
        if (levels[i] == 0) {
            CHECK(fabs(get(kDynamicsProcessorParam_InputAmplitude)) < 1, "the input meter reads about 0 dB (%.2f)",
                  get(kDynamicsProcessorParam_InputAmplitude));
            CHECK(fabs(get(kDynamicsProcessorParam_CompressionAmount) - (want - 0)) < 1,
                  "the compression meter reads the gain change (%.2f, want %.2f)",
                  get(kDynamicsProcessorParam_CompressionAmount), want);
        }
    }
    set(kDynamicsProcessorParam_ExpansionThreshold, -100);
    set(kDynamicsProcessorParam_OverallGain, 6);
    run((Source){SINE, 1000, 0.01, 0, 0, 0, 1, 0}, RATE);
    double lifted = decibels(amplitudeAt(left + RATE / 2, RATE / 2, 1000, RATE) / 0.01);
    CHECK(fabs(lifted - 6) < 0.5, "the overall gain lifts a tone between the thresholds by 6 dB (%.2f)", lifted);
    closeGraph();
}

/* ---- the delay --------------------------------------------------------------------------- */

static long loudestAfter(long from, long to)
{
    long at = from;
    for (long i = from; i < to; i++) if (fabs(left[i]) > fabs(left[at])) at = i;
    return at;
}

static void delay(void)
{
    buildGraph(&delayDescription);
    set(kDelayParam_DelayTime, 0.25);
    set(kDelayParam_Feedback, 0);
    set(kDelayParam_LopassCutoff, RATE / 2);
    run((Source){IMPULSE, 0, 1, 0, 0, 0, 1, 0}, RATE);
    long echo = loudestAfter(100, RATE);
    printf("measured: delay, the impulse %.3f at frame 0, its echo %.3f at frame %ld\n", left[0], left[echo], echo);
    CHECK(fabs(left[0] - cos(M_PI / 4)) < 1e-4, "the dry impulse comes out at the equal-power half (%.4f)", left[0]);
    CHECK(echo == (long)(0.25 * RATE), "the echo comes the delay time later (frame %ld)", echo);
    CHECK(left[echo] > 0.6, "at about the wet half (%.3f)", left[echo]);
    double quietAfter = peakOf(left + echo + 100, RATE - echo - 100);
    CHECK(quietAfter < 1e-3, "with no feedback there is one echo (then %.5f)", quietAfter);
    set(kDelayParam_Feedback, 50);
    run((Source){IMPULSE, 0, 1, 0, 0, 0, 1, 0}, RATE);
    long second = loudestAfter(echo + 100, RATE);
    double ratio = left[second] / left[echo];
    CHECK(second == 2 * echo && fabs(ratio - 0.5) < 0.05, "50 %% feedback: a second echo at half (frame %ld, %.3f)", second,
          ratio);
    set(kDelayParam_Feedback, -50);
    run((Source){IMPULSE, 0, 1, 0, 0, 0, 1, 0}, RATE);
    CHECK(left[2 * echo] < 0, "negative feedback inverts the repeat (%.3f)", left[2 * echo]);
    Float64 tail = 0;
    UInt32 size = sizeof tail;
    CHECK_STATUS(AudioUnitGetProperty(effect, kAudioUnitProperty_TailTime, kAudioUnitScope_Global, 0, &tail, &size), noErr);
    CHECK(tail > 2 && tail < 4, "the tail lasts until a repeat is 60 dB down (%.2f s)", tail);
    closeGraph();
}

/* ---- the distortion ---------------------------------------------------------------------- */

static void onlyStage(AudioUnitParameterID mixOn)
{
    const AudioUnitParameterID mixes[] = {kDistortionParam_DelayMix, kDistortionParam_DecimationMix,
                                          kDistortionParam_PolynomialMix, kDistortionParam_RingModMix};
    for (int i = 0; i < 4; i++) set(mixes[i], mixes[i] == mixOn ? 100 : 0);
    set(kDistortionParam_FinalMix, 100);
    set(kDistortionParam_SoftClipGain, -80); /* tanh is linear this far down */
}

static void distortion(void)
{
    buildGraph(&distortionDescription);
    /* Final mix 0: the input, bit for bit. */
    set(kDistortionParam_FinalMix, 0);
    run((Source){SINE, 440, 0.5, 0, 0, 0, 1, 0}, RATE / 4);
    int exact = 1;
    double phase = 0;
    for (long i = 0; i < RATE / 4; i++, phase += 2 * M_PI * 440 / RATE) exact &= left[i] == (Float32)(0.5 * sin(phase));
    CHECK(exact, "with the final mix at 0 the input passes bit for bit");
    /* The cubic term alone: x³ of a sine has a third harmonic a third of its fundamental. */
    onlyStage(kDistortionParam_PolynomialMix);
    set(kDistortionParam_LinearTerm, 0);
    set(kDistortionParam_CubicTerm, 1);
    run((Source){SINE, 500, 0.8, 0, 0, 0, 1, 0}, RATE / 2);
    double h1 = amplitudeAt(left + RATE / 4, RATE / 4, 500, RATE), h3 = amplitudeAt(left + RATE / 4, RATE / 4, 1500, RATE);
    printf("measured: distortion, the cubic term: third harmonic %.2f dB below the fundamental\n", decibels(h1 / h3));
    CHECK(fabs(decibels(h3 / h1) - decibels(1.0 / 3)) < 0.5, "third harmonic at a third (%.2f dB)", decibels(h3 / h1));
    /* The ring modulator alone, both sines at 1000 Hz: 3000 Hz becomes 2000 and 4000. */
    onlyStage(kDistortionParam_RingModMix);
    set(kDistortionParam_RingModFreq1, 1000);
    set(kDistortionParam_RingModFreq2, 1000);
    run((Source){SINE, 3000, 0.5, 0, 0, 0, 1, 0}, RATE / 2);
    double a2 = amplitudeAt(left + RATE / 4, RATE / 4, 2000, RATE), a3 = amplitudeAt(left + RATE / 4, RATE / 4, 3000, RATE),
           a4 = amplitudeAt(left + RATE / 4, RATE / 4, 4000, RATE);
    CHECK(fabs(decibels(a2 / a4)) < 0.5 && decibels(a2 / a3) > 40, "ring modulation: sidebands equal (%.2f dB), carrier gone "
          "(%.1f dB down)", decibels(a2 / a4), decibels(a2 / a3));
    closeGraph();
}

/* ---- the reverb -------------------------------------------------------------------------- */

/* The decay time (to -60 dB) of what follows a burst: the slope of the level in 20 ms
 * windows from 5 to 35 dB below the first window after the burst, by least squares. */
static double decayTime(long burst, long frames)
{
    enum { WINDOW = RATE / 50 };
    double t[400], level[400];
    int n = 0;
    double top = -1e9;
    for (long at = burst; at + WINDOW <= frames && n < 400; at += WINDOW) {
        double energy = 0;
        for (long i = at; i < at + WINDOW; i++) energy += (double)left[i] * left[i] + (double)right[i] * right[i];
        double db = 10 * log10(energy / WINDOW + 1e-30);
        if (top < -1e8) top = db;
        if (db < top - 5 && db > top - 35) {
            t[n] = (double)(at - burst) / RATE;
            level[n++] = db;
        }
    }
    if (n < 3) return 0;
    double st = 0, sl = 0, stt = 0, stl = 0;
    for (int i = 0; i < n; i++) st += t[i], sl += level[i], stt += t[i] * t[i], stl += t[i] * level[i];
    double slope = (n * stl - st * sl) / (n * stt - st * st);
    return slope < 0 ? -60 / slope : 0;
}

static double reverbDecay(long frames)
{
    long burst = RATE / 20;
    run((Source){NOISE, 0, 0.5, 0, burst, 0, 12345, 0}, frames);
    return decayTime(burst, frames);
}

static void presets(void);
static void savedState(void);

static void reverb(void)
{
    buildGraph(&reverbDescription);
    set(kReverb2Param_DecayTimeAt0Hz, 1);
    set(kReverb2Param_DecayTimeAtNyquist, 1);
    double one = reverbDecay(2 * RATE);
    set(kReverb2Param_DecayTimeAt0Hz, 2);
    set(kReverb2Param_DecayTimeAtNyquist, 2);
    double two = reverbDecay(LONGEST);
    printf("measured: reverb, decay time set 1 s: %.2f s; set 2 s: %.2f s\n", one, two);
    CHECK(fabs(one - 1) < 0.2, "a 1 s decay falls 60 dB in about 1 s (%.2f)", one);
    CHECK(fabs(two - 2) < 0.4, "a 2 s decay falls 60 dB in about 2 s (%.2f)", two);
    /* Dry only: the input, bit for bit. */
    set(kReverb2Param_DryWetMix, 0);
    run((Source){SINE, 440, 0.5, 0, 0, 0, 1, 0}, RATE / 4);
    int exact = 1;
    double phase = 0;
    for (long i = 0; i < RATE / 4; i++, phase += 2 * M_PI * 440 / RATE) exact &= left[i] == (Float32)(0.5 * sin(phase));
    CHECK(exact, "all dry, the input passes bit for bit");
    set(kReverb2Param_DryWetMix, 100);
    presets();
    savedState();
    closeGraph();
}

static void presets(void)
{
    CFArrayRef list = NULL;
    UInt32 size = sizeof list;
    CHECK_STATUS(AudioUnitGetProperty(effect, kAudioUnitProperty_FactoryPresets, kAudioUnitScope_Global, 0, &list, &size),
                 noErr);
    CHECK(list && CFArrayGetCount(list) == 13, "thirteen factory presets (%ld)", list ? (long)CFArrayGetCount(list) : -1L);
    if (!list) return;
    const AUPreset *small = CFArrayGetValueAtIndex(list, 0), *cathedral = CFArrayGetValueAtIndex(list, 8);
    char name[64] = "";
    CFStringGetCString(cathedral->presetName, name, sizeof name, kCFStringEncodingUTF8);
    CHECK(small->presetNumber == 0 && cathedral->presetNumber == 8 && strcmp(name, "Cathedral") == 0,
          "in AVAudioUnitReverbPreset's order (8 is \"%s\")", name);
    /* As a reverb picker does: the preset chosen by its struct, its sound measured. */
    AUPreset chosen = *small;
    CHECK_STATUS(AudioUnitSetProperty(effect, kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0, &chosen,
                                      sizeof chosen), noErr);
    double room = reverbDecay(2 * RATE);
    chosen = *cathedral;
    CHECK_STATUS(AudioUnitSetProperty(effect, kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0, &chosen,
                                      sizeof chosen), noErr);
    double church = reverbDecay(LONGEST);
    printf("measured: reverb presets, small room %.2f s, cathedral %.2f s\n", room, church);
    CHECK(room > 0 && church > 3 * room, "a cathedral rings much longer than a small room (%.2f s, %.2f s)", church, room);
    AUPreset present = {-2, NULL};
    size = sizeof present;
    CHECK_STATUS(AudioUnitGetProperty(effect, kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0, &present, &size),
                 noErr);
    name[0] = 0;
    if (present.presetName) CFStringGetCString(present.presetName, name, sizeof name, kCFStringEncodingUTF8);
    CHECK(present.presetNumber == 8 && strcmp(name, "Cathedral") == 0, "the present preset is the cathedral (%d, %s)",
          (int)present.presetNumber, name);
    if (present.presetName) CFRelease(present.presetName);
    CFRelease(list);
}

static CFDictionaryRef classInfo(void)
{
    CFPropertyListRef state = NULL;
    UInt32 size = sizeof state;
    CHECK_STATUS(AudioUnitGetProperty(effect, kAudioUnitProperty_ClassInfo, kAudioUnitScope_Global, 0, &state, &size), noErr);
    return state;
}

static OSStatus restore(CFPropertyListRef state)
{
    return AudioUnitSetProperty(effect, kAudioUnitProperty_ClassInfo, kAudioUnitScope_Global, 0, &state, sizeof state);
}

/* An .aupreset as Apple's tools write one: a property list whose data holds blocks of
 * (scope, element, count, then ID and Float32 pairs), big-endian. */
static CFPropertyListRef aupreset(UInt32 subtype, float decay)
{
    unsigned char data[20];
    UInt32 words[5] = {0, 0, 1, kReverb2Param_DecayTimeAt0Hz, 0};
    memcpy(&words[4], &decay, 4);
    for (int w = 0; w < 5; w++)
        for (int b = 0; b < 4; b++) data[4 * w + b] = (unsigned char)(words[w] >> (24 - 8 * b));
    static const char base64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char encoded[40] = "";
    int at = 0;
    for (int i = 0; i < 20; i += 3) {
        unsigned v = data[i] << 16 | (i + 1 < 20 ? data[i + 1] << 8 : 0) | (i + 2 < 20 ? data[i + 2] : 0);
        encoded[at++] = base64[v >> 18 & 63];
        encoded[at++] = base64[v >> 12 & 63];
        encoded[at++] = i + 1 < 20 ? base64[v >> 6 & 63] : '=';
        encoded[at++] = i + 2 < 20 ? base64[v & 63] : '=';
    }
    encoded[at] = 0;
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
             "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n"
             "<key>data</key>\n<data>%s</data>\n<key>manufacturer</key>\n<integer>%u</integer>\n"
             "<key>name</key>\n<string>Long Hall</string>\n<key>subtype</key>\n<integer>%u</integer>\n"
             "<key>type</key>\n<integer>%u</integer>\n<key>version</key>\n<integer>0</integer>\n</dict>\n</plist>\n",
             encoded, (unsigned)kAudioUnitManufacturer_Apple, (unsigned)subtype, (unsigned)kAudioUnitType_Effect);
    CFDataRef bytes = CFDataCreate(NULL, (const UInt8 *)xml, (CFIndex)strlen(xml));
    CFPropertyListRef list = CFPropertyListCreateWithData(NULL, bytes, kCFPropertyListImmutable, NULL, NULL);
    CFRelease(bytes);
    return list;
}

static void savedState(void)
{
    set(kReverb2Param_Gain, -3);
    set(kReverb2Param_RandomizeReflections, 42);
    CFDictionaryRef saved = classInfo();
    CHECK(saved && CFGetTypeID(saved) == CFDictionaryGetTypeID(), "ClassInfo is a dictionary");
    if (!saved) return;
    CFNumberRef subtype = CFDictionaryGetValue(saved, CFSTR(kAUPresetSubtypeKey));
    SInt32 value = 0;
    if (subtype) CFNumberGetValue(subtype, kCFNumberSInt32Type, &value);
    CHECK((UInt32)value == kAudioUnitSubType_Reverb2, "naming the reverb's subtype");
    set(kReverb2Param_Gain, 7);
    set(kReverb2Param_RandomizeReflections, 5);
    CHECK_STATUS(restore(saved), noErr);
    CHECK(get(kReverb2Param_Gain) == -3 && get(kReverb2Param_RandomizeReflections) == 42,
          "restored, the values are the saved ones (%g, %g)", get(kReverb2Param_Gain), get(kReverb2Param_RandomizeReflections));
    /* Another component's state, or data cut short: refused, nothing changes. */
    CFMutableDictionaryRef other = CFDictionaryCreateMutableCopy(NULL, 0, saved);
    SInt32 lowPass = (SInt32)kAudioUnitSubType_LowPassFilter;
    CFNumberRef number = CFNumberCreate(NULL, kCFNumberSInt32Type, &lowPass);
    CFDictionarySetValue(other, CFSTR(kAUPresetSubtypeKey), number);
    CFRelease(number);
    set(kReverb2Param_Gain, 7);
    CHECK_STATUS(restore(other), kAudioUnitErr_InvalidPropertyValue);
    CFDataRef data = CFDictionaryGetValue(saved, CFSTR(kAUPresetDataKey));
    CFDataRef cut = CFDataCreate(NULL, CFDataGetBytePtr(data), CFDataGetLength(data) - 3);
    CFMutableDictionaryRef shortened = CFDictionaryCreateMutableCopy(NULL, 0, saved);
    CFDictionarySetValue(shortened, CFSTR(kAUPresetDataKey), cut);
    CHECK_STATUS(restore(shortened), kAudioUnitErr_InvalidPropertyValue);
    CHECK_STATUS(restore(NULL), kAudioUnitErr_InvalidPropertyValue);
    CFStringRef notADictionary = CFSTR("a string");
    CHECK_STATUS(restore(notADictionary), kAudioUnitErr_InvalidPropertyValue);
    CHECK(get(kReverb2Param_Gain) == 7, "after the refusals the gain is as it was (%g)", get(kReverb2Param_Gain));
    CFRelease(cut);
    CFRelease(shortened);
    CFRelease(other);
    CFRelease(saved);
    /* An .aupreset file's dictionary, read as a program reads one from its bundle. */
    CFPropertyListRef file = aupreset(kAudioUnitSubType_Reverb2, 3.5f);
    CHECK(file != NULL, "the .aupreset parses");
    if (file) {
        CHECK_STATUS(restore(file), noErr);
        CHECK(get(kReverb2Param_DecayTimeAt0Hz) == 3.5f, "its decay time is taken (%g)", get(kReverb2Param_DecayTimeAt0Hz));
        AUPreset present = {0, NULL};
        UInt32 size = sizeof present;
        CHECK_STATUS(AudioUnitGetProperty(effect, kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0, &present, &size),
                     noErr);
        CHECK(present.presetNumber < 0 && present.presetName
              && CFStringCompare(present.presetName, CFSTR("Long Hall"), 0) == kCFCompareEqualTo,
              "and its name is the present preset's, a program's own (%d)", (int)present.presetNumber);
        if (present.presetName) CFRelease(present.presetName);
        CFRelease(file);
    }
}

/* ---- the N-band EQ ----------------------------------------------------------------------- */

static double warped(double hz, double f0) { return tan(M_PI * hz / RATE) / tan(M_PI * f0 / RATE); }

static double toneThrough(double hz)
{
    run((Source){SINE, hz, 0.1, 0, 0, 0, 1, 0}, RATE / 2);
    return decibels(amplitudeAt(left + RATE / 10, RATE / 2 - RATE / 10, hz, RATE) / 0.1);
}

static void bandEQ(void)
{
    AUNode out = 0, node = 0;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &genericDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &bandEQDescription, &node), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, node, NULL, &effect), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, out, NULL, &generic), noErr);
    UInt32 bands = 0, most = 0, size = sizeof bands;
    CHECK_STATUS(AudioUnitGetProperty(effect, kAUNBandEQProperty_MaxNumberOfBands, kAudioUnitScope_Global, 0, &most, &size),
                 noErr);
    bands = most + 1;
    CHECK_STATUS(AudioUnitSetProperty(effect, kAUNBandEQProperty_NumberOfBands, kAudioUnitScope_Global, 0, &bands, sizeof bands),
                 kAudioUnitErr_InvalidPropertyValue);
    /* As an equalizer screen sets it up: three bands, before initializing. */
    bands = 3;
    CHECK_STATUS(AudioUnitSetProperty(effect, kAUNBandEQProperty_NumberOfBands, kAudioUnitScope_Global, 0, &bands, sizeof bands),
                 noErr);
    CHECK(parameterCount(effect) == 1 + 5 * 3, "three bands: 16 parameters (%u)", parameterCount(effect));
    CHECK_STATUS(AudioUnitSetParameter(effect, kAUNBandEQParam_Gain + 3, kAudioUnitScope_Global, 0, 1, 0),
                 kAudioUnitErr_InvalidParameter);
    set(kAUNBandEQParam_FilterType + 0, kAUNBandEQFilterType_Parametric);
    set(kAUNBandEQParam_Frequency + 0, 1000);
    set(kAUNBandEQParam_Gain + 0, 12);
    set(kAUNBandEQParam_Bandwidth + 0, 1);
    set(kAUNBandEQParam_BypassBand + 0, 0);
    set(kAUNBandEQParam_FilterType + 1, kAUNBandEQFilterType_2ndOrderButterworthHighPass);
    set(kAUNBandEQParam_Frequency + 1, 200);
    set(kAUNBandEQParam_BypassBand + 1, 0);
    set(kAUNBandEQParam_Gain + 2, -30); /* band 2 stays bypassed */
    CHECK_STATUS(AudioUnitSetProperty(effect, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &floatFormat,
                                      sizeof floatFormat), noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floatFormat,
                                      sizeof floatFormat), noErr);
    AURenderCallbackStruct feed = {play, &source};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, node, 0, &feed), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
    CHECK_STATUS(AudioUnitSetProperty(effect, kAUNBandEQProperty_NumberOfBands, kAudioUnitScope_Global, 0, &bands, sizeof bands),
                 kAudioUnitErr_Initialized);
    /* The peak's centre, and 50 Hz through the Butterworth high-pass (|H|² = 1/(1 + x⁻⁴)). */
    double centre = toneThrough(1000);
    double x = warped(50, 200), low = toneThrough(50);
    double wantLow = -10 * log10(1 + pow(x, -4));
    printf("measured: N-band EQ, 1000 Hz %+.2f dB (want +12), 50 Hz %+.2f dB (want %+.2f)\n", centre, low, wantLow);
    CHECK(fabs(centre - 12) < 1, "the peak band lifts its centre by its gain (%.2f dB)", centre);
    CHECK(fabs(low - wantLow) < 1, "the high-pass band cuts 50 Hz as a Butterworth does (%.2f, want %.2f)", low, wantLow);
    set(kAUNBandEQParam_GlobalGain, -6);
    double lowered = toneThrough(1000);
    CHECK(fabs(lowered - 6) < 1, "the global gain applies to all (%.2f dB)", lowered);
    set(kAUNBandEQParam_BypassBand + 0, 1);
    set(kAUNBandEQParam_GlobalGain, 0);
    double flat = toneThrough(1000);
    CHECK(fabs(flat) < 0.2, "a bypassed band is left out (%.2f dB)", flat);
    UInt32 coefficientsSize = 0;
    CHECK_STATUS(AudioUnitGetPropertyInfo(effect, kAUNBandEQProperty_BiquadCoefficients, kAudioUnitScope_Global, 0,
                                          &coefficientsSize, NULL), noErr);
    CHECK(coefficientsSize == 3 * 5 * sizeof(Float64), "five coefficients a band (%u bytes)", coefficientsSize);
    closeGraph();
}

/* ---- AUiPodEQ: presets only -------------------------------------------------------------- */

static void iPodEQ(void)
{
    buildGraph(&iPodEQDescription);
    CHECK(parameterCount(effect) == 0, "AUiPodEQ shows no parameters (%u)", parameterCount(effect));
    AUPreset present = {-5, NULL};
    UInt32 size = sizeof present;
    CHECK_STATUS(AudioUnitGetProperty(effect, kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0, &present, &size),
                 noErr);
    CHECK(present.presetNumber == 0, "it starts on its first preset (%d)", (int)present.presetNumber);
    if (present.presetName) CFRelease(present.presetName);
    double flat = toneThrough(62.5);
    CHECK(fabs(flat) < 0.1, "the first preset is flat (%.2f dB)", flat);
    CFArrayRef list = NULL;
    size = sizeof list;
    CHECK_STATUS(AudioUnitGetProperty(effect, kAudioUnitProperty_FactoryPresets, kAudioUnitScope_Global, 0, &list, &size),
                 noErr);
    int found = -1;
    for (CFIndex i = 0; list && i < CFArrayGetCount(list); i++) {
        const AUPreset *p = CFArrayGetValueAtIndex(list, i);
        if (CFStringCompare(p->presetName, CFSTR("Bass Booster"), 0) == kCFCompareEqualTo) found = (int)i;
    }
    CHECK(list && CFArrayGetCount(list) >= 22 && found >= 0, "the presets include Bass Booster (%ld presets)",
          list ? (long)CFArrayGetCount(list) : -1L);
    if (found >= 0) {
        AUPreset bass = *(const AUPreset *)CFArrayGetValueAtIndex(list, found);
        CHECK_STATUS(AudioUnitSetProperty(effect, kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0, &bass,
                                          sizeof bass), noErr);
        double low = toneThrough(62.5), high = toneThrough(4000);
        printf("measured: AUiPodEQ Bass Booster: 62.5 Hz %+.2f dB, 4 kHz %+.2f dB\n", low, high);
        CHECK(low > 3 && fabs(high) < 0.5, "Bass Booster lifts the bass and leaves the treble (%.2f, %.2f dB)", low, high);
    }
    if (list) CFRelease(list);
    CHECK_STATUS(AudioUnitSetParameter(effect, 0, kAudioUnitScope_Global, 0, 3, 0), kAudioUnitErr_InvalidParameter);
    closeGraph();
}

/* ---- bad inputs -------------------------------------------------------------------------- */

static void badInputs(void)
{
    AudioUnit dyn = NULL, rvb = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &dynamicsDescription), &dyn), noErr);
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &reverbDescription), &rvb), noErr);
    AUPreset missing = {99, NULL};
    UInt32 three = 3;
    CFArrayRef list = NULL;
    struct { const char *what; OSStatus got, want; } table[] = {
        {"a meter set", AudioUnitSetParameter(dyn, kDynamicsProcessorParam_InputAmplitude, kAudioUnitScope_Global, 0, 1, 0),
         kAudioUnitErr_InvalidParameter},
        {"a preset number the unit lacks", AudioUnitSetProperty(rvb, kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0,
                                                                &missing, sizeof missing), kAudioUnitErr_InvalidPropertyValue},
        {"an AUPreset of the wrong size", AudioUnitSetProperty(rvb, kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0,
                                                               &missing, 4), kAudioUnitErr_InvalidPropertyValue},
        {"a NULL preset", AudioUnitSetProperty(rvb, kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0, NULL, 16),
         kAudio_ParamError},
        {"FactoryPresets set", AudioUnitSetProperty(rvb, kAudioUnitProperty_FactoryPresets, kAudioUnitScope_Global, 0, &list,
                                                    sizeof list), kAudioUnitErr_PropertyNotWritable},
        {"FactoryPresets in the input scope", AudioUnitGetPropertyInfo(rvb, kAudioUnitProperty_FactoryPresets,
                                                                      kAudioUnitScope_Input, 0, NULL, NULL),
         kAudioUnitErr_InvalidScope},
        {"NumberOfBands of a reverb", AudioUnitSetProperty(rvb, kAUNBandEQProperty_NumberOfBands, kAudioUnitScope_Global, 0,
                                                           &three, sizeof three), kAudioUnitErr_InvalidProperty},
        {"a reverb parameter past the list", AudioUnitSetParameter(rvb, 7, kAudioUnitScope_Global, 0, 1, 0),
         kAudioUnitErr_InvalidParameter},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        CHECK(table[i].got == table[i].want, "%s: %d (want %d)", table[i].what, (int)table[i].got, (int)table[i].want);
    /* Past their ranges values are held at the ends. */
    CHECK_STATUS(AudioUnitSetParameter(rvb, kReverb2Param_DecayTimeAt0Hz, kAudioUnitScope_Global, 0, 1000, 0), noErr);
    Float32 decay = 0;
    CHECK_STATUS(AudioUnitGetParameter(rvb, kReverb2Param_DecayTimeAt0Hz, kAudioUnitScope_Global, 0, &decay), noErr);
    CHECK(decay == 20, "a decay time past 20 s is held there (%g)", decay);
    CHECK_STATUS(AudioComponentInstanceDispose(dyn), noErr);
    CHECK_STATUS(AudioComponentInstanceDispose(rvb), noErr);
}

/* ---- live ---------------------------------------------------------------------------- */

/* The first frame from `from` on whose left sample is louder than `level`, or -1. */
static long onset(const short *heard, long from, long frames, int level)
{
    for (long i = from; i < frames; i++) if (abs(heard[2 * i]) > level) return i;
    return -1;
}

static void live(void)
{
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    AUGraph g = NULL;
    AUNode out = 0, node = 0;
    AudioUnit unit = NULL;
    CHECK_STATUS(NewAUGraph(&g), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &rioDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &delayDescription, &node), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(g, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphOpen(g), noErr);
    CHECK_STATUS(AUGraphNodeInfo(g, node, NULL, &unit), noErr);
    CHECK_STATUS(AudioUnitSetParameter(unit, kDelayParam_DelayTime, kAudioUnitScope_Global, 0, 0.3f, 0), noErr);
    CHECK_STATUS(AudioUnitSetParameter(unit, kDelayParam_Feedback, kAudioUnitScope_Global, 0, 0, 0), noErr);
    Source burst = {SINE, 1000, 0.5, 0, 0, 0, 1, 0};
    AURenderCallbackStruct feed = {play, &burst};
    CHECK_STATUS(AUGraphSetNodeInputCallback(g, node, 0, &feed), noErr);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    Float64 rate = 0;
    AudioStreamBasicDescription format;
    UInt32 size = sizeof format;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &format, &size), noErr);
    rate = format.mSampleRate;
    burst.until = (long)(0.05 * rate);
    burst.hz = 1000 * rate / RATE; /* the source steps its phase at RATE: 1000 Hz at the unit's rate */
    CHECK_STATUS(AUGraphStart(g), noErr);
    for (int i = 0; i < 500 && burst.frames < (long)rate; i++) usleep(10000);
    CHECK_STATUS(AUGraphStop(g), noErr);
    CHECK(burst.frames >= (long)rate, "the delay node is pulled (%ld frames)", burst.frames);
    if (worldOnCard()) {
        long frames = 0;
        short *heard = worldCardRecording(&frames);
        int cardRate = worldCardRate();
        long first = heard ? onset(heard, 0, frames, 1000) : -1;
        long echo = first >= 0 ? onset(heard, first + (long)(0.1 * cardRate), frames, 1000) : -1;
        double gap = first >= 0 && echo >= 0 ? (double)(echo - first) / cardRate : -1;
        printf("measured: the card heard the burst at frame %ld and its echo %.4f s later\n", first, gap);
        CHECK(fabs(gap - 0.3) < 0.002, "the echo reaches the card the delay time after the sound (%.4f s)", gap);
        free(heard);
    }
    CHECK_STATUS(DisposeAUGraph(g), noErr);
}

int main(void)
{
    installWatchdog("effect units");
    alarm(180);
    discovery();
    limiter();
    dynamics();
    delay();
    distortion();
    reverb();
    bandEQ();
    iPodEQ();
    badInputs();
    live();
    return worldFinish("test_effect_units");
}
