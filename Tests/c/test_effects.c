/*
 * The effect units provided so far (AULowpass, AUHipass, AUBandpass, the two shelves,
 * AUParametricEQ), called as programs call them.
 *
 * Found as music apps and audio frameworks find them (AudioComponentFindNext by type
 * and subtype, and every 'aufx' by a zero subtype), described as a parameter-list UI
 * reads them (ParameterList, ParameterInfo), and rendered offline in a graph
 * (GenericOutput <- effect <- a tone), where the measured response is held to the
 * resonant two-pole filter's within 1 dB: unity in the passband, the resonance at the
 * cutoff, 12 dB an octave beyond. Bypassed, the input passes bit for bit. Joined without
 * a graph (kAudioUnitProperty_MakeConnection, as an openFrameworks addon joins units).
 * Bad inputs answer with Apple's codes and change nothing. Three channels of three tones
 * through the low-pass and the delay (which work on channels in pairs) come out each
 * with its own tone only.
 *
 * Live (RemoteIO <- LowPass <- a tone of two frequencies, on the virtual device and the
 * card, with either arbiter): the card hears the low tone and not the high one.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "tone_level.h"
#include "world.h"

static const AudioComponentDescription genericDescription = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                                             kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription rioDescription = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO,
                                                         kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription lowPassDescription = {kAudioUnitType_Effect, kAudioUnitSubType_LowPassFilter,
                                                             kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription highPassDescription = {kAudioUnitType_Effect, kAudioUnitSubType_HighPassFilter,
                                                              kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription bandPassDescription = {kAudioUnitType_Effect, kAudioUnitSubType_BandPassFilter,
                                                              kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription highShelfDescription = {kAudioUnitType_Effect, kAudioUnitSubType_HighShelfFilter,
                                                               kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription lowShelfDescription = {kAudioUnitType_Effect, kAudioUnitSubType_LowShelfFilter,
                                                              kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription parametricDescription = {kAudioUnitType_Effect, kAudioUnitSubType_ParametricEQ,
                                                                kAudioUnitManufacturer_Apple, 0, 0};

enum { RATE = 44100, SLICE = 512 };

/* The effects' format: Float32, non-interleaved, stereo. */
static const AudioStreamBasicDescription floatFormat = {RATE, kAudioFormatLinearPCM,
                                                        kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                                        4, 1, 4, 2, 32, 0};

/* A sum of up to two sines, into every buffer it is given (Float32 non-interleaved). */
typedef struct {
    double phase[2], hz[2], amplitude[2];
    volatile long frames;
} Tone;

static OSStatus tone(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus, UInt32 frames,
                     AudioBufferList *data)
{
    (void)flags; (void)ts; (void)bus;
    Tone *t = refCon;
    for (UInt32 i = 0; i < frames; i++) {
        double v = 0;
        for (int k = 0; k < 2; k++) {
            v += t->amplitude[k] * sin(t->phase[k]);
            t->phase[k] += 2 * M_PI * t->hz[k] / RATE;
        }
        for (UInt32 b = 0; b < data->mNumberBuffers; b++) ((Float32 *)data->mBuffers[b].mData)[i] = (Float32)v;
    }
    __atomic_add_fetch(&t->frames, frames, __ATOMIC_RELAXED);
    return noErr;
}

/* The analogue two-pole filter's gain in dB at `hz` (cutoff fc, resonance in dB = the
 * gain at the cutoff, so Q = 10^(resonance/20)): what the units are held to. */
static double expectedDecibels(int highPass, double hz, double fc, double resonance)
{
    double x = hz / fc, q = pow(10, resonance / 20);
    double denominator = sqrt((1 - x * x) * (1 - x * x) + (x / q) * (x / q));
    return 20 * log10((highPass ? x * x : 1) / denominator);
}

/* ---- offline ------------------------------------------------------------------------- */

static AUGraph graph;
static AudioUnit generic, effect;
static Tone source;
static Float32 left[RATE], right[RATE];
static double sampleTime;

/* Renders `frames` (a multiple of SLICE) of the graph's output into left/right. */
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

/* GenericOutput <- `kind` <- the tone, in a graph, initialized. */
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
    AURenderCallbackStruct feed = {tone, &source};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, node, 0, &feed), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
}

/* The gain in dB of one sine at `hz` through the effect, after the filter settles. */
static double measuredDecibels(double hz)
{
    memset(&source, 0, sizeof source);
    source.hz[0] = hz;
    source.amplitude[0] = 0.1;
    AudioUnitReset(effect, kAudioUnitScope_Global, 0);
    long n = RATE / 2;
    n -= n % SLICE;
    if (render(generic, n) != noErr) return -999;
    long settle = RATE / 10;
    double a = amplitudeAt(left + settle, n - settle, hz, RATE);
    return 20 * log10(a / 0.1);
}

static void discovery(void)
{
    const AudioComponentDescription kinds[] = {lowPassDescription, highPassDescription, bandPassDescription,
                                               highShelfDescription, lowShelfDescription, parametricDescription};
    for (int i = 0; i < 6; i++) {
        AudioComponent c = AudioComponentFindNext(NULL, &kinds[i]);
        CHECK(c != NULL, "AudioComponentFindNext finds effect %d", i);
        CFStringRef name = NULL;
        if (c) CHECK_STATUS(AudioComponentCopyName(c, &name), noErr);
        CHECK(name && CFStringGetLength(name) > 0, "and it has a name");
        if (name) CFRelease(name);
    }
    /* Every effect, as a host's menu lists them: type 'aufx', subtype 0. */
    AudioComponentDescription any = {kAudioUnitType_Effect, 0, 0, 0, 0};
    int effects = 0, lowPass = 0, highPass = 0, others = 0;
    for (AudioComponent c = AudioComponentFindNext(NULL, &any); c; c = AudioComponentFindNext(c, &any)) {
        AudioComponentDescription d;
        CHECK_STATUS(AudioComponentGetDescription(c, &d), noErr);
        CHECK(d.componentType == kAudioUnitType_Effect, "the search by type finds only effects");
        lowPass += d.componentSubType == kAudioUnitSubType_LowPassFilter;
        highPass += d.componentSubType == kAudioUnitSubType_HighPassFilter;
        others += d.componentSubType == kAudioUnitSubType_BandPassFilter || d.componentSubType == kAudioUnitSubType_HighShelfFilter
                  || d.componentSubType == kAudioUnitSubType_LowShelfFilter || d.componentSubType == kAudioUnitSubType_ParametricEQ;
        effects++;
    }
    CHECK(lowPass == 1 && highPass == 1 && others == 4, "every effect listed once (%d effects)", effects);
}

static void parameters(void)
{
    AudioUnit u = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &lowPassDescription), &u), noErr);
    UInt32 size = 0;
    Boolean writable = true;
    CHECK_STATUS(AudioUnitGetPropertyInfo(u, kAudioUnitProperty_ParameterList, kAudioUnitScope_Global, 0, &size, &writable),
                 noErr);
    CHECK(size == 2 * sizeof(AudioUnitParameterID) && !writable, "ParameterList: two IDs, read only (%u bytes)", (unsigned)size);
    AudioUnitParameterID ids[4] = {99, 99, 99, 99};
    size = sizeof ids;
    CHECK_STATUS(AudioUnitGetProperty(u, kAudioUnitProperty_ParameterList, kAudioUnitScope_Global, 0, ids, &size), noErr);
    CHECK(size == 8 && ids[0] == kLowPassParam_CutoffFrequency && ids[1] == kLowPassParam_Resonance,
          "the cutoff and the resonance (%u, %u)", (unsigned)ids[0], (unsigned)ids[1]);
    CHECK_STATUS(AudioUnitGetPropertyInfo(u, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Global,
                                          kLowPassParam_CutoffFrequency, &size, NULL), noErr);
    CHECK(size == sizeof(AudioUnitParameterInfo), "ParameterInfo is sizeof(AudioUnitParameterInfo) (%u, %zu)", (unsigned)size,
          sizeof(AudioUnitParameterInfo));
    AudioUnitParameterInfo info;
    memset(&info, 0xAB, sizeof info);
    size = sizeof info;
    CHECK_STATUS(AudioUnitGetProperty(u, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Global,
                                      kLowPassParam_CutoffFrequency, &info, &size), noErr);
    /* AULowpass's documented cutoff: Hz, 10 to half the sample rate, 6900. */
    CHECK(info.unit == kAudioUnitParameterUnit_Hertz && info.minValue == 10 && info.maxValue == RATE / 2 &&
              info.defaultValue == 6900, "cutoff: unit %u, %g..%g, default %g", (unsigned)info.unit, info.minValue,
          info.maxValue, info.defaultValue);
    CHECK((info.flags & kAudioUnitParameterFlag_IsReadable) && (info.flags & kAudioUnitParameterFlag_IsWritable) &&
              info.cfNameString == NULL && strlen(info.name) > 0 && strlen(info.name) < sizeof info.name,
          "readable, writable, named \"%s\"", info.name);
    CHECK_STATUS(AudioUnitGetProperty(u, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Global, kLowPassParam_Resonance,
                                      &info, &size), noErr);
    CHECK(info.unit == kAudioUnitParameterUnit_Decibels && info.minValue == -20 && info.maxValue == 40 && info.defaultValue == 0,
          "resonance: dB, -20..40, 0 (unit %u, %g..%g, %g)", (unsigned)info.unit, info.minValue, info.maxValue, info.defaultValue);
    Float32 cutoff = 0, resonance = 99;
    CHECK_STATUS(AudioUnitGetParameter(u, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, &cutoff), noErr);
    CHECK_STATUS(AudioUnitGetParameter(u, kLowPassParam_Resonance, kAudioUnitScope_Global, 0, &resonance), noErr);
    CHECK(cutoff == 6900 && resonance == 0, "a new unit's values are the defaults (%g, %g)", cutoff, resonance);
    AudioStreamBasicDescription d;
    size = sizeof d;
    CHECK_STATUS(AudioUnitGetProperty(u, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &d, &size), noErr);
    CHECK(d.mFormatID == kAudioFormatLinearPCM && (d.mFormatFlags & kAudioFormatFlagIsFloat) &&
              (d.mFormatFlags & kAudioFormatFlagIsNonInterleaved) && d.mChannelsPerFrame == 2 && d.mBitsPerChannel == 32,
          "its format is Float32 non-interleaved stereo (flags 0x%x, %u channels)", (unsigned)d.mFormatFlags,
          (unsigned)d.mChannelsPerFrame);
    CHECK_STATUS(AudioComponentInstanceDispose(u), noErr);
}

static void response(const AudioComponentDescription *kind, int highPass)
{
    buildGraph(kind);
    const struct { double cutoff, resonance; double hz[4]; } cases[] = {
        {1000, 0, {250, 1000, 2000, 4000}},
        {1200, 12, {300, 1200, 2400, 4800}},
        {500, -6, {125, 500, 1000, 2000}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        CHECK_STATUS(AudioUnitSetParameter(effect, 0, kAudioUnitScope_Global, 0, (Float32)cases[c].cutoff, 0), noErr);
        CHECK_STATUS(AudioUnitSetParameter(effect, 1, kAudioUnitScope_Global, 0, (Float32)cases[c].resonance, 0), noErr);
        for (int k = 0; k < 4; k++) {
            double hz = cases[c].hz[k];
            double got = measuredDecibels(hz), want = expectedDecibels(highPass, hz, cases[c].cutoff, cases[c].resonance);
            printf("measured: %s cutoff %.0f Hz resonance %+.0f dB at %.0f Hz: %+.2f dB (filter %+.2f dB)\n",
                   highPass ? "high-pass" : "low-pass", cases[c].cutoff, cases[c].resonance, hz, got, want);
            CHECK(fabs(got - want) <= 1, "%s, cutoff %.0f, resonance %+.0f, %.0f Hz: %+.2f dB, within 1 dB of %+.2f",
                  highPass ? "high-pass" : "low-pass", cases[c].cutoff, cases[c].resonance, hz, got, want);
        }
    }
    /* Bypassed, the input passes unchanged, sample for sample. */
    UInt32 on = 1, size = sizeof on;
    CHECK_STATUS(AudioUnitSetProperty(effect, kAudioUnitProperty_BypassEffect, kAudioUnitScope_Global, 0, &on, sizeof on),
                 noErr);
    UInt32 read = 0;
    CHECK_STATUS(AudioUnitGetProperty(effect, kAudioUnitProperty_BypassEffect, kAudioUnitScope_Global, 0, &read, &size), noErr);
    CHECK(read == 1, "BypassEffect reads back 1");
    memset(&source, 0, sizeof source);
    source.hz[0] = 3000;
    source.amplitude[0] = 0.5;
    CHECK_STATUS(render(generic, SLICE * 4), noErr);
    Tone again = {{0, 0}, {3000, 0}, {0.5, 0}, 0};
    int same = 1;
    for (long i = 0; i < SLICE * 4; i++) {
        double v = 0.5 * sin(again.phase[0]);
        again.phase[0] += 2 * M_PI * 3000 / RATE;
        if (left[i] != (Float32)v || right[i] != (Float32)v) same = 0;
    }
    CHECK(same, "bypassed, the %s passes its input bit for bit", highPass ? "high-pass" : "low-pass");
    on = 0;
    CHECK_STATUS(AudioUnitSetProperty(effect, kAudioUnitProperty_BypassEffect, kAudioUnitScope_Global, 0, &on, sizeof on),
                 noErr);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
}

/* The analogue sections the other filters transform (s = j·x, x the frequency over the
 * cutoff or centre), read at the frequency the bilinear transform maps `hz` to: their
 * response at `hz` once digital. A = 10^(gain/40); the shelves have slope 1 (1/Q = √2). */
static double warped(double hz, double f0) { return tan(M_PI * hz / RATE) / tan(M_PI * f0 / RATE); }

static double shelfDecibels(int high, double hz, double f0, double gain)
{
    double complex s = I * warped(hz, f0);
    double a = pow(10, gain / 40), k = sqrt(a) * sqrt(2.0);
    double complex h = high ? a * (a * s * s + k * s + 1) / (s * s + k * s + a)
                            : a * (s * s + k * s + a) / (a * s * s + k * s + 1);
    return 20 * log10(cabs(h));
}

static double peakDecibels(double hz, double f0, double q, double gain)
{
    double complex s = I * warped(hz, f0);
    double a = pow(10, gain / 40);
    return 20 * log10(cabs((s * s + s * a / q + 1) / (s * s + s / (a * q) + 1)));
}

/* Band-pass, the shelves and the parametric EQ, each at its documented points: the
 * band-pass unity at its centre and -3 dB at the band's edges; the shelves the full gain
 * far on their side, half of it at the cutoff; the EQ its gain at the centre. */
static void otherFilters(void)
{
    /* Band-pass: centre 1000 Hz, one octave (1200 cents): -3 dB at 707 and 1414 Hz. */
    buildGraph(&bandPassDescription);
    CHECK_STATUS(AudioUnitSetParameter(effect, kBandpassParam_CenterFrequency, kAudioUnitScope_Global, 0, 1000, 0), noErr);
    CHECK_STATUS(AudioUnitSetParameter(effect, kBandpassParam_Bandwidth, kAudioUnitScope_Global, 0, 1200, 0), noErr);
    double centre = measuredDecibels(1000), lower = measuredDecibels(1000 / sqrt(2)), upper = measuredDecibels(1000 * sqrt(2));
    double far = measuredDecibels(62.5);
    printf("measured: band-pass 1000 Hz, 1200 cents: centre %+.2f dB, edges %+.2f / %+.2f dB, 4 octaves down %+.2f dB\n", centre,
           lower, upper, far);
    CHECK(fabs(centre) <= 0.2 && fabs(lower + 3.01) <= 0.5 && fabs(upper + 3.01) <= 0.5 && far < -20,
          "band-pass: unity at the centre (%+.2f), -3 dB at the octave's edges (%+.2f, %+.2f), %+.2f dB 4 octaves away", centre,
          lower, upper, far);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);

    const struct { const AudioComponentDescription *kind; const char *name; int high; double f0, gain, hz[3]; } shelves[] = {
        {&lowShelfDescription, "low shelf", 0, 100, 12, {25, 100, 2000}},
        {&lowShelfDescription, "low shelf", 0, 200, -18, {40, 200, 3000}},
        {&highShelfDescription, "high shelf", 1, 10000, -12, {1000, 10000, 18000}},
    };
    for (size_t i = 0; i < sizeof shelves / sizeof *shelves; i++) {
        buildGraph(shelves[i].kind);
        CHECK_STATUS(AudioUnitSetParameter(effect, 0, kAudioUnitScope_Global, 0, (Float32)shelves[i].f0, 0), noErr);
        CHECK_STATUS(AudioUnitSetParameter(effect, 1, kAudioUnitScope_Global, 0, (Float32)shelves[i].gain, 0), noErr);
        for (int k = 0; k < 3; k++) {
            double hz = shelves[i].hz[k], got = measuredDecibels(hz);
            double want = shelfDecibels(shelves[i].high, hz, shelves[i].f0, shelves[i].gain);
            printf("measured: %s %.0f Hz %+.0f dB at %.0f Hz: %+.2f dB (filter %+.2f dB)\n", shelves[i].name, shelves[i].f0,
                   shelves[i].gain, hz, got, want);
            CHECK(fabs(got - want) <= 0.5, "%s %.0f Hz %+.0f dB at %.0f Hz: %+.2f dB, within 0.5 dB of %+.2f", shelves[i].name,
                  shelves[i].f0, shelves[i].gain, hz, got, want);
        }
        /* At the cutoff a shelf gives half its gain. */
        double half = measuredDecibels(shelves[i].f0);
        CHECK(fabs(half - shelves[i].gain / 2) <= 0.5, "%s: %+.2f dB at the cutoff, half of %+.0f", shelves[i].name, half,
              shelves[i].gain);
        CHECK_STATUS(DisposeAUGraph(graph), noErr);
    }

    buildGraph(&parametricDescription);
    const struct { double f0, q, gain, hz[3]; } peaks[] = {{1000, 1, 12, {250, 1000, 3000}}, {3000, 4, -15, {1500, 3000, 3500}}};
    for (size_t i = 0; i < sizeof peaks / sizeof *peaks; i++) {
        CHECK_STATUS(AudioUnitSetParameter(effect, kParametricEQParam_CenterFreq, kAudioUnitScope_Global, 0, (Float32)peaks[i].f0, 0),
                     noErr);
        CHECK_STATUS(AudioUnitSetParameter(effect, kParametricEQParam_Q, kAudioUnitScope_Global, 0, (Float32)peaks[i].q, 0), noErr);
        CHECK_STATUS(AudioUnitSetParameter(effect, kParametricEQParam_Gain, kAudioUnitScope_Global, 0, (Float32)peaks[i].gain, 0),
                     noErr);
        for (int k = 0; k < 3; k++) {
            double hz = peaks[i].hz[k], got = measuredDecibels(hz), want = peakDecibels(hz, peaks[i].f0, peaks[i].q, peaks[i].gain);
            printf("measured: parametric EQ %.0f Hz Q %.1f %+.0f dB at %.0f Hz: %+.2f dB (filter %+.2f dB)\n", peaks[i].f0,
                   peaks[i].q, peaks[i].gain, hz, got, want);
            CHECK(fabs(got - want) <= 0.5, "parametric EQ %.0f Hz Q %.1f %+.0f dB at %.0f Hz: %+.2f dB, within 0.5 dB of %+.2f",
                  peaks[i].f0, peaks[i].q, peaks[i].gain, hz, got, want);
        }
    }
    /* The EQ's three parameters and their documented defaults. */
    AudioUnit fresh = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &parametricDescription), &fresh), noErr);
    Float32 f = 0, q = 0, g = 99;
    AudioUnitGetParameter(fresh, kParametricEQParam_CenterFreq, kAudioUnitScope_Global, 0, &f);
    AudioUnitGetParameter(fresh, kParametricEQParam_Q, kAudioUnitScope_Global, 0, &q);
    AudioUnitGetParameter(fresh, kParametricEQParam_Gain, kAudioUnitScope_Global, 0, &g);
    CHECK(f == 2000 && q == 1 && g == 0, "a new parametric EQ: 2000 Hz, Q 1, 0 dB (%g, %g, %g)", f, q, g);
    UInt32 size = 0;
    CHECK_STATUS(AudioUnitGetPropertyInfo(fresh, kAudioUnitProperty_ParameterList, kAudioUnitScope_Global, 0, &size, NULL), noErr);
    CHECK(size == 3 * sizeof(AudioUnitParameterID), "its ParameterList has three IDs (%u bytes)", (unsigned)size);
    /* A scope with no parameters lists none, read with a size of 0. */
    AudioUnitParameterID none[1];
    size = 0;
    CHECK_STATUS(AudioUnitGetProperty(fresh, kAudioUnitProperty_ParameterList, kAudioUnitScope_Input, 0, none, &size), noErr);
    CHECK(size == 0, "the input scope lists no parameters (%u bytes)", (unsigned)size);
    CHECK_STATUS(AudioComponentInstanceDispose(fresh), noErr);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
}

/* Joined without a graph, as an openFrameworks addon joins units: GenericOutput's input
 * connected to the low-pass with kAudioUnitProperty_MakeConnection, the low-pass fed
 * by a render callback, GenericOutput pulled. */
static void connectedWithoutGraph(void)
{
    AudioUnit out = NULL, lp = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &genericDescription), &out), noErr);
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &lowPassDescription), &lp), noErr);
    AURenderCallbackStruct feed = {tone, &source};
    CHECK_STATUS(AudioUnitSetProperty(lp, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &feed, sizeof feed),
                 noErr);
    AudioUnitConnection link = {lp, 0, 0};
    CHECK_STATUS(AudioUnitSetProperty(out, kAudioUnitProperty_MakeConnection, kAudioUnitScope_Input, 0, &link, sizeof link), noErr);
    CHECK_STATUS(AudioUnitSetProperty(out, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floatFormat,
                                      sizeof floatFormat), noErr);
    CHECK_STATUS(AudioUnitSetParameter(lp, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, 400, 0), noErr);
    CHECK_STATUS(AudioUnitInitialize(lp), noErr);
    CHECK_STATUS(AudioUnitInitialize(out), noErr);
    memset(&source, 0, sizeof source);
    source.hz[0] = 200;
    source.hz[1] = 6400;
    source.amplitude[0] = source.amplitude[1] = 0.3;
    long n = RATE / 2;
    n -= n % SLICE;
    CHECK_STATUS(render(out, n), noErr);
    double low = amplitudeAt(left + RATE / 10, n - RATE / 10, 200, RATE);
    double high = amplitudeAt(left + RATE / 10, n - RATE / 10, 6400, RATE);
    printf("measured: connected without a graph, 200 Hz %.3f, 6400 Hz %.5f\n", low, high);
    CHECK(low > 0.25 && high < 0.003, "the connected low-pass keeps 200 Hz (%.3f) and takes 6400 Hz away (%.5f)", low, high);
    CHECK_STATUS(AudioComponentInstanceDispose(out), noErr);
    CHECK_STATUS(AudioComponentInstanceDispose(lp), noErr);
}

static void badInputs(void)
{
    AudioUnit u = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &lowPassDescription), &u), noErr);
    CHECK_STATUS(AudioUnitSetParameter(u, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, 1234, 0), noErr);
    AudioStreamBasicDescription interleaved = floatFormat, int16 = {RATE, kAudioFormatLinearPCM,
                                                                    kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                                                    4, 1, 4, 2, 16, 0};
    interleaved.mFormatFlags = kAudioFormatFlagsNativeFloatPacked;
    interleaved.mBytesPerFrame = interleaved.mBytesPerPacket = 8;
    AudioUnitParameterInfo info;
    UInt32 size = sizeof info, one = 1;
    AudioUnit rio = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &rioDescription), &rio), noErr);
    struct { const char *what; OSStatus got, want; } table[] = {
        {"an unknown parameter", AudioUnitSetParameter(u, 77, kAudioUnitScope_Global, 0, 1, 0), kAudioUnitErr_InvalidParameter},
        {"the cutoff in the input scope", AudioUnitSetParameter(u, 0, kAudioUnitScope_Input, 0, 500, 0), kAudioUnitErr_InvalidScope},
        {"the cutoff on element 1", AudioUnitSetParameter(u, 0, kAudioUnitScope_Global, 1, 500, 0), kAudioUnitErr_InvalidElement},
        {"a NaN cutoff", AudioUnitSetParameter(u, 0, kAudioUnitScope_Global, 0, NAN, 0), kAudioUnitErr_InvalidParameter},
        {"an infinite resonance", AudioUnitSetParameter(u, 1, kAudioUnitScope_Global, 0, INFINITY, 0),
         kAudioUnitErr_InvalidParameter},
        {"ParameterInfo of an unknown ID", AudioUnitGetProperty(u, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Global, 9,
                                                                &info, &size), kAudioUnitErr_InvalidParameter},
        {"ParameterList set", AudioUnitSetProperty(u, kAudioUnitProperty_ParameterList, kAudioUnitScope_Global, 0, &one,
                                                   sizeof one), kAudioUnitErr_PropertyNotWritable},
        {"BypassEffect on the input scope", AudioUnitSetProperty(u, kAudioUnitProperty_BypassEffect, kAudioUnitScope_Input, 0, &one,
                                                                 sizeof one), kAudioUnitErr_InvalidScope},
        {"interleaved Float32", AudioUnitSetProperty(u, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &interleaved,
                                                     sizeof interleaved), kAudioUnitErr_FormatNotSupported},
        {"SInt16", AudioUnitSetProperty(u, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &int16, sizeof int16),
         kAudioUnitErr_FormatNotSupported},
        {"rendered uninitialized", render(u, SLICE), kAudioUnitErr_Uninitialized},
        {"an effect started", AudioOutputUnitStart(u), kAudio_UnimplementedError},
        {"BypassEffect of RemoteIO", AudioUnitSetProperty(rio, kAudioUnitProperty_BypassEffect, kAudioUnitScope_Global, 0, &one,
                                                          sizeof one), kAudioUnitErr_InvalidProperty},
        /* RemoteIO declares its one parameter (kHALOutputParam_Volume, 14): an effect's
         * cutoff ID is not one of its. */
        {"ParameterInfo of RemoteIO for an ID it lacks", AudioUnitGetProperty(rio, kAudioUnitProperty_ParameterInfo,
                                                                               kAudioUnitScope_Global, 0, &info, &size),
         kAudioUnitErr_InvalidParameter},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        CHECK(table[i].got == table[i].want, "%s: %d (want %d)", table[i].what, (int)table[i].got, (int)table[i].want);
    Float32 cutoff = 0;
    CHECK_STATUS(AudioUnitGetParameter(u, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, &cutoff), noErr);
    CHECK(cutoff == 1234, "after the refusals the cutoff is as it was (%g)", cutoff);
    CHECK_STATUS(AudioComponentInstanceDispose(rio), noErr);
    /* Past its range a value is held to the range's end, as a knob stops. */
    CHECK_STATUS(AudioUnitSetParameter(u, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, 96000, 0), noErr);
    CHECK_STATUS(AudioUnitGetParameter(u, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, &cutoff), noErr);
    CHECK(cutoff == RATE / 2, "a cutoff past half the rate is held there (%g)", cutoff);
    CHECK_STATUS(AudioUnitSetParameter(u, kLowPassParam_Resonance, kAudioUnitScope_Global, 0, -100, 0), noErr);
    Float32 resonance = 0;
    CHECK_STATUS(AudioUnitGetParameter(u, kLowPassParam_Resonance, kAudioUnitScope_Global, 0, &resonance), noErr);
    CHECK(resonance == -20, "a resonance below -20 dB is held there (%g)", resonance);
    /* Initialized: the format is fixed; rendered with nothing feeding it: NoConnection;
     * more frames than MaximumFramesPerSlice: TooManyFramesToProcess. */
    CHECK_STATUS(AudioUnitInitialize(u), noErr);
    AudioStreamBasicDescription other = floatFormat;
    other.mSampleRate = 48000;
    CHECK_STATUS(AudioUnitSetProperty(u, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &other, sizeof other),
                 kAudioUnitErr_Initialized);
    CHECK_STATUS(render(u, SLICE), kAudioUnitErr_NoConnection);
    AURenderCallbackStruct feed = {tone, &source};
    CHECK_STATUS(AudioUnitSetProperty(u, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &feed, sizeof feed),
                 noErr);
    UInt32 most = 0;
    size = sizeof most;
    CHECK_STATUS(AudioUnitGetProperty(u, kAudioUnitProperty_MaximumFramesPerSlice, kAudioUnitScope_Global, 0, &most, &size),
                 noErr);
    static Float32 big[2][65536];
    struct { UInt32 count; AudioBuffer b[2]; } list = {2, {{1, (most + 1) * 4, big[0]}, {1, (most + 1) * 4, big[1]}}};
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    AudioUnitRenderActionFlags flags = 0;
    CHECK_STATUS(AudioUnitRender(u, &flags, &ts, 0, most + 1, (AudioBufferList *)&list), kAudioUnitErr_TooManyFramesToProcess);
    CHECK_STATUS(render(u, SLICE), noErr);
    CHECK_STATUS(AudioComponentInstanceDispose(u), noErr);
}

/* ---- live ---------------------------------------------------------------------------- */

static void live(void)
{
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    AUGraph g = NULL;
    AUNode out = 0, node = 0;
    AudioUnit lp = NULL;
    CHECK_STATUS(NewAUGraph(&g), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &rioDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &lowPassDescription, &node), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(g, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphOpen(g), noErr);
    CHECK_STATUS(AUGraphNodeInfo(g, node, NULL, &lp), noErr);
    CHECK_STATUS(AudioUnitSetParameter(lp, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, 500, 0), noErr);
    Tone t = {{0, 0}, {300, 6000}, {0.3, 0.3}, 0};
    AURenderCallbackStruct feed = {tone, &t};
    CHECK_STATUS(AUGraphSetNodeInputCallback(g, node, 0, &feed), noErr);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    CHECK_STATUS(AUGraphStart(g), noErr);
    for (int i = 0; i < 500 && t.frames < RATE; i++) usleep(10000);
    CHECK_STATUS(AUGraphStop(g), noErr);
    CHECK(t.frames >= RATE, "the low-pass node is pulled (%ld frames)", t.frames);
    if (worldOnCard()) {
        long frames = 0;
        short *heard = worldCardRecording(&frames);
        int rate = worldCardRate();
        long first = -1;
        for (long i = 0; heard && i < frames; i++) if (abs(heard[2 * i]) > 200) { first = i; break; }
        long window = rate / 4;
        double a300 = 0, a6000 = 0;
        if (first >= 0 && first + rate / 10 + window < frames) {
            Float32 *mono = calloc((size_t)window, sizeof *mono);
            for (long i = 0; i < window; i++) mono[i] = heard[2 * (first + rate / 10 + i)] / 32768.0f;
            a300 = amplitudeAt(mono, window, 300, rate);
            a6000 = amplitudeAt(mono, window, 6000, rate);
            free(mono);
        }
        printf("measured: the card heard through the low-pass 300 Hz %.3f, 6000 Hz %.5f\n", a300, a6000);
        /* 300 Hz below a 500 Hz cutoff passes near unity (+2.9 dB); 6000 Hz is 43 dB down. */
        CHECK(a300 > 0.3 && a6000 < 0.01, "the card hears 300 Hz (%.3f) and not 6000 Hz (%.5f)", a300, a6000);
        free(heard);
    }
    CHECK_STATUS(DisposeAUGraph(g), noErr);
}

/* ---- channels kept apart ------------------------------------------------------------ */

/* Three channels, each its own sine (the filters run channels two at a time and a last one
 * alone): every output channel has its own frequency at the filter's gain, and none of the
 * others'. */
enum { APART = 3 };
static const double apartHz[APART] = {300, 1500, 700};
static double apartPhase[APART];

static OSStatus apartTones(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                           UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    for (UInt32 b = 0; b < data->mNumberBuffers && b < APART; b++) {
        Float32 *out = data->mBuffers[b].mData;
        for (UInt32 i = 0; i < frames; i++) {
            out[i] = (Float32)(0.1 * sin(apartPhase[b]));
            apartPhase[b] += 2 * M_PI * apartHz[b] / RATE;
        }
    }
    return noErr;
}

static void channelsKeptApart(const char *name, const AudioComponentDescription *kind, int lowPass)
{
    AudioStreamBasicDescription f = floatFormat;
    f.mChannelsPerFrame = APART;
    AUGraph g;
    AUNode out = 0, node = 0;
    AudioUnit gen, fx;
    CHECK_STATUS(NewAUGraph(&g), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &genericDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(g, kind, &node), noErr);
    CHECK_STATUS(AUGraphOpen(g), noErr);
    CHECK_STATUS(AUGraphNodeInfo(g, node, NULL, &fx), noErr);
    CHECK_STATUS(AUGraphNodeInfo(g, out, NULL, &gen), noErr);
    CHECK_STATUS(AudioUnitSetProperty(fx, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f), noErr);
    CHECK_STATUS(AudioUnitSetProperty(gen, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &f, sizeof f), noErr);
    AURenderCallbackStruct feed = {apartTones, NULL};
    CHECK_STATUS(AUGraphSetNodeInputCallback(g, node, 0, &feed), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(g, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    if (lowPass) {
        CHECK_STATUS(AudioUnitSetParameter(fx, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, 1000, 0), noErr);
    } else {
        CHECK_STATUS(AudioUnitSetParameter(fx, kDelayParam_DelayTime, kAudioUnitScope_Global, 0, 0.01f, 0), noErr);
        CHECK_STATUS(AudioUnitSetParameter(fx, kDelayParam_Feedback, kAudioUnitScope_Global, 0, 50, 0), noErr);
    }
    enum { N = RATE / 2 - (RATE / 2) % SLICE };
    static Float32 heard[APART][N];
    memset(apartPhase, 0, sizeof apartPhase);
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    OSStatus status = noErr;
    for (long done = 0; done < N && status == noErr; done += SLICE) {
        struct { UInt32 count; AudioBuffer b[APART]; } list = {APART, {{1, SLICE * 4, heard[0] + done},
                                                                       {1, SLICE * 4, heard[1] + done},
                                                                       {1, SLICE * 4, heard[2] + done}}};
        AudioUnitRenderActionFlags flags = 0;
        status = AudioUnitRender(gen, &flags, &ts, 0, SLICE, (AudioBufferList *)&list);
        ts.mSampleTime += SLICE;
    }
    CHECK(status == noErr, "%s: three channels render (%d)", name, (int)status);
    long settle = RATE / 10;
    for (int c = 0; c < APART; c++) {
        double own = amplitudeAt(heard[c] + settle, N - settle, apartHz[c], RATE), stray = 0;
        for (int k = 0; k < APART; k++) {
            if (k == c) continue;
            double a = amplitudeAt(heard[c] + settle, N - settle, apartHz[k], RATE);
            if (a > stray) stray = a;
        }
        printf("measured: %s channel %d: its %.0f Hz at %.4f, the others' largest %.6f\n", name, c, apartHz[c], own, stray);
        CHECK(own > 0.01 && stray < 1e-4, "%s: channel %d keeps its own tone (%.4f) and none of the others' (%.6f)", name,
              c, own, stray);
        if (lowPass) {
            double db = 20 * log10(own / 0.1), want = expectedDecibels(0, apartHz[c], 1000, 0);
            CHECK(fabs(db - want) < 1, "%s: channel %d's %.0f Hz at %.2f dB (analogue %.2f)", name, c, apartHz[c], db, want);
        }
    }
    CHECK_STATUS(DisposeAUGraph(g), noErr);
}

int main(void)
{
    installWatchdog("effects");
    alarm(120);
    discovery();
    parameters();
    response(&lowPassDescription, 0);
    response(&highPassDescription, 1);
    otherFilters();
    channelsKeptApart("low-pass", &lowPassDescription, 1);
    AudioComponentDescription delay = {kAudioUnitType_Effect, kAudioUnitSubType_Delay, kAudioUnitManufacturer_Apple, 0, 0};
    channelsKeptApart("delay", &delay, 0);
    connectedWithoutGraph();
    badInputs();
    live();
    return worldFinish("test_effects");
}
