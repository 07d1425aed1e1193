/*
 * AU3DMixerEmbedded, called as the phone's OpenAL and game sound engines call it: many
 * input buses of mono 16-bit sound, each fed by a render callback, placed every frame by
 * k3DMixerParam_Azimuth, _Elevation, _Distance and _Gain in the input scope (iOS's
 * numbering).
 *
 * Offline (GenericOutput <- the 3D mixer <- a 440 Hz tone on bus 0, a 660 Hz one on bus
 * 1), a table of placements, each measured at the two sides against the laws the API
 * documents: equal-power panning across the azimuth's sine times the elevation's cosine
 * (in front -3 dB a side, at 90 degrees all on the right, behind mirrors in front,
 * overhead in the middle), a level falling as 1/distance
 * beyond one metre, the gain in dB, the distance's gain held between MinGain and
 * MaxGain, Enable, and the output's gain; then the distance curves and limits that
 * kAudioUnitProperty_3DMixerAttenuationCurve and _3DMixerDistanceParams choose. Values out of range are held to the range; bad
 * ones answer with codes and change nothing.
 *
 * Live (RemoteIO <- the 3D mixer): a source at 90 degrees is heard on the card's right
 * side only.
 *
 * Compiled as iPhone code (the -ios module): the 3D mixer and its parameters are
 * iPhone-only names.
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

enum { RATE = 44100, SLICE = 512, FRAMES = 16 * SLICE, BUSES = 2 };

static const AudioComponentDescription mixerDescription = {kAudioUnitType_Mixer, kAudioUnitSubType_AU3DMixerEmbedded,
                                                           kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription genericDescription = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                                             kAudioUnitManufacturer_Apple, 0, 0};
static const AudioStreamBasicDescription monoInt16 = {RATE, kAudioFormatLinearPCM,
                                                      kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 2, 1, 2, 1,
                                                      16, 0};
static const AudioStreamBasicDescription stereoFloat = {RATE, kAudioFormatLinearPCM,
                                                        kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                                        4, 1, 4, 2, 32, 0};

/* A source: a tone at half of full scale. */
typedef struct {
    double hz, phase;
} Source;
static Source sources[BUSES] = {{440, 0}, {660, 0}};

static OSStatus tone(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus, UInt32 frames,
                     AudioBufferList *data)
{
    (void)flags; (void)ts; (void)bus;
    Source *s = refCon;
    SInt16 *out = data->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++) {
        out[i] = (SInt16)lrint(16384 * sin(s->phase));
        s->phase += 2 * M_PI * s->hz / RATE;
    }
    return noErr;
}

static AUGraph graph;
static AudioUnit mixer, generic;
static Float32 left[FRAMES], right[FRAMES];
static double sampleTime;

static OSStatus render(void)
{
    for (long done = 0; done < FRAMES; done += SLICE) {
        struct { UInt32 count; AudioBuffer b[2]; } list = {2, {{1, SLICE * 4, left + done}, {1, SLICE * 4, right + done}}};
        AudioTimeStamp ts;
        memset(&ts, 0, sizeof ts);
        ts.mSampleTime = sampleTime;
        ts.mFlags = kAudioTimeStampSampleTimeValid;
        AudioUnitRenderActionFlags flags = 0;
        OSStatus status = AudioUnitRender(generic, &flags, &ts, 0, SLICE, (AudioBufferList *)&list);
        if (status != noErr) return status;
        sampleTime += SLICE;
    }
    return noErr;
}

/* The mixer set up as OpenAL sets it up: the bus count, each bus's format and callback,
 * the spatialization algorithm (whose result such code ignores). */
static void setUpBuses(AudioUnit m)
{
    UInt32 buses = BUSES;
    CHECK_STATUS(AudioUnitSetProperty(m, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &buses, sizeof buses), noErr);
    for (UInt32 b = 0; b < BUSES; b++) {
        CHECK_STATUS(AudioUnitSetProperty(m, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, b, &monoInt16,
                                          sizeof monoInt16), noErr);
        AURenderCallbackStruct feed = {tone, &sources[b]};
        CHECK_STATUS(AudioUnitSetProperty(m, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, b, &feed, sizeof feed),
                     noErr);
        UInt32 algorithm = kSpatializationAlgorithm_EqualPowerPanning;
        (void)AudioUnitSetProperty(m, kAudioUnitProperty_SpatializationAlgorithm, kAudioUnitScope_Input, b, &algorithm,
                                   sizeof algorithm);
    }
}

static void buildGraph(void)
{
    AUNode out = 0, node = 0;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &genericDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &mixerDescription, &node), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, node, NULL, &mixer), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, out, NULL, &generic), noErr);
    setUpBuses(mixer);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &stereoFloat,
                                      sizeof stereoFloat), noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &stereoFloat,
                                      sizeof stereoFloat), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
}

static void setBus(AudioUnitParameterID id, UInt32 bus, Float32 value)
{
    CHECK_STATUS(AudioUnitSetParameter(mixer, id, kAudioUnitScope_Input, bus, value, 0), noErr);
}

static double decibels(double amplitude) { return 20 * log10(amplitude > 1e-9 ? amplitude : 1e-9); }

/* The level of `hz` on each side relative to the source's own amplitude (0.5). */
static void levels(double hz, double *l, double *r)
{
    *l = decibels(amplitudeAt(left + SLICE, FRAMES - SLICE, hz, RATE) / 0.5);
    *r = decibels(amplitudeAt(right + SLICE, FRAMES - SLICE, hz, RATE) / 0.5);
}

/* ---- placements -------------------------------------------------------------------------- */

typedef struct {
    const char *what;
    Float32 azimuth, distance, gain, minGain, maxGain, elevation;
} Placement;

/* What the documented laws give: equal power across the direction's left-right part
 * (the azimuth's sine times the elevation's cosine); 1/distance beyond a metre, held
 * between the gains; the gain in dB. */
static void expected(const Placement *p, double *l, double *r)
{
    double position = sin(p->azimuth * M_PI / 180) * cos(p->elevation * M_PI / 180), angle = (position + 1) * M_PI / 4;
    double distance = p->distance > 1 ? 1 / p->distance : 1;
    if (distance < p->minGain) distance = p->minGain;
    if (distance > p->maxGain) distance = p->maxGain;
    double gain = pow(10, p->gain / 20) * distance;
    *l = decibels(gain * cos(angle));
    *r = decibels(gain * sin(angle));
}

static void placements(void)
{
    static const Placement table[] = {
        {"in front", 0, 1, 0, 0, 1, 0},
        {"hard left", -90, 1, 0, 0, 1, 0},
        {"hard right", 90, 1, 0, 0, 1, 0},
        {"30 degrees right", 30, 1, 0, 0, 1, 0},
        {"45 degrees left", -45, 1, 0, 0, 1, 0},
        {"behind", 180, 1, 0, 0, 1, 0},
        {"150 degrees right (behind, mirrored to 30)", 150, 1, 0, 0, 1, 0},
        {"4 m away", 0, 4, 0, 0, 1, 0},
        {"10 m away on the left", -90, 10, 0, 0, 1, 0},
        {"half a metre away", 0, 0.5f, 0, 0, 1, 0},
        {"-6 dB", 0, 1, -6, 0, 1, 0},
        {"+3 dB", 0, 1, 3, 0, 1, 0},
        {"100 m away, MinGain 0.5", 0, 100, 0, 0.5f, 1, 0},
        {"1 m away, MaxGain 0.25", 0, 1, 0, 0, 0.25f, 0},
        {"hard right, 60 degrees up", 90, 1, 0, 0, 1, 60},
        {"30 degrees left, 45 degrees down", -30, 1, 0, 0, 1, -45},
        {"hard left, overhead", -90, 1, 0, 0, 1, 90},
    };
    buildGraph();
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const Placement *p = &table[i];
        setBus(k3DMixerParam_Azimuth, 0, p->azimuth);
        setBus(k3DMixerParam_Distance, 0, p->distance);
        setBus(k3DMixerParam_Gain, 0, p->gain);
        setBus(k3DMixerParam_MinGain, 0, p->minGain);
        setBus(k3DMixerParam_MaxGain, 0, p->maxGain);
        setBus(k3DMixerParam_Elevation, 0, p->elevation);
        setBus(k3DMixerParam_Enable, 1, 0);
        CHECK_STATUS(render(), noErr);
        double l, r, el, er;
        levels(440, &l, &r);
        expected(p, &el, &er);
        printf("measured: %s: left %.2f dB, right %.2f dB (the laws give %.2f, %.2f)\n", p->what, l, r, el, er);
        /* A side the law silences is silent (below -60 dB); the others within 0.1 dB. */
        int leftOK = el < -60 ? l < -60 : fabs(l - el) < 0.1, rightOK = er < -60 ? r < -60 : fabs(r - er) < 0.1;
        CHECK(leftOK && rightOK, "%s: left %.2f dB (%.2f), right %.2f dB (%.2f)", p->what, l, el, r, er);
    }
    /* Two sources at once, apart: each on its own side. */
    setBus(k3DMixerParam_Elevation, 0, 0);
    setBus(k3DMixerParam_Enable, 1, 1);
    setBus(k3DMixerParam_Azimuth, 0, 90);
    setBus(k3DMixerParam_Distance, 0, 1);
    setBus(k3DMixerParam_MaxGain, 0, 1);
    setBus(k3DMixerParam_Azimuth, 1, -90);
    CHECK_STATUS(render(), noErr);
    double l440, r440, l660, r660;
    levels(440, &l440, &r440);
    levels(660, &l660, &r660);
    CHECK(fabs(r440) < 0.1 && l440 < -60 && fabs(l660) < 0.1 && r660 < -60,
          "two sources apart: 440 Hz right (%.2f, %.2f dB), 660 Hz left (%.2f, %.2f dB)", l440, r440, l660, r660);
    /* Enable 0 silences a bus; the output's gain lowers everything. */
    setBus(k3DMixerParam_Enable, 1, 0);
    CHECK_STATUS(AudioUnitSetParameter(mixer, k3DMixerParam_Gain, kAudioUnitScope_Output, 0, -20, 0), noErr);
    CHECK_STATUS(render(), noErr);
    levels(440, &l440, &r440);
    levels(660, &l660, &r660);
    CHECK(fabs(r440 + 20) < 0.1 && l660 < -60, "output gain -20 dB (%.2f dB) and a disabled bus (%.2f dB)", r440, l660);
    /* What it keeps without rendering it reads back. */
    setBus(k3DMixerParam_Elevation, 0, 45);
    setBus(k3DMixerParam_PlaybackRate, 0, 1.5f);
    setBus(k3DMixerParam_ReverbBlend, 0, 30);
    setBus(k3DMixerParam_OcclusionAttenuation, 0, -12);
    Float32 elevation = 0, rate = 0, blend = 0, occlusion = 0, reverb = 1;
    AudioUnitGetParameter(mixer, k3DMixerParam_Elevation, kAudioUnitScope_Input, 0, &elevation);
    AudioUnitGetParameter(mixer, k3DMixerParam_PlaybackRate, kAudioUnitScope_Input, 0, &rate);
    AudioUnitGetParameter(mixer, k3DMixerParam_ReverbBlend, kAudioUnitScope_Input, 0, &blend);
    AudioUnitGetParameter(mixer, k3DMixerParam_OcclusionAttenuation, kAudioUnitScope_Input, 0, &occlusion);
    AudioUnitGetParameter(mixer, k3DMixerParam_GlobalReverbGain, kAudioUnitScope_Global, 0, &reverb);
    CHECK(elevation == 45 && rate == 1.5f && blend == 30 && occlusion == -12 && reverb == 0,
          "elevation, rate, reverb blend and occlusion read back (%g, %g, %g, %g; global reverb %g)", elevation, rate, blend,
          occlusion, reverb);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
}

/* ---- distance curves ------------------------------------------------------------------ */

/* kAudioUnitProperty_3DMixerDistanceParams and _3DMixerAttenuationCurve, against the
 * curves API.md gives: inverse reference/d, power (reference/d)^2, exponential halving
 * each reference distance, linear from 1 at the reference to 0 at the farthest; the
 * distance held between the two, the gain never below the maximum attenuation. */
static void curves(void)
{
    static const struct {
        const char *what;
        UInt32 curve;
        MixerDistanceParams params;
        Float32 distance;
        double gain;
    } table[] = {
        {"inverse, reference 2 m, at 8 m", k3DMixerAttenuationCurve_Inverse, {2, 100, 120}, 8, 0.25},
        {"power, at 2 m", k3DMixerAttenuationCurve_Power, {1, 100, 120}, 2, 0.25},
        {"exponential, at 3 m", k3DMixerAttenuationCurve_Exponential, {1, 100, 120}, 3, 0.25},
        {"linear 2 to 8 m, at 5 m", k3DMixerAttenuationCurve_Linear, {2, 8, 120}, 5, 0.5},
        {"linear 2 to 8 m, at 20 m, at most 12 dB down", k3DMixerAttenuationCurve_Linear, {2, 8, 12}, 20, 0.251188643},
        {"inverse, within the reference", k3DMixerAttenuationCurve_Inverse, {5, 100, 120}, 3, 1},
        {"inverse, beyond the farthest", k3DMixerAttenuationCurve_Inverse, {1, 4, 120}, 50, 0.25},
    };
    buildGraph();
    setBus(k3DMixerParam_Enable, 1, 0);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_3DMixerAttenuationCurve, kAudioUnitScope_Input, 0,
                                          &table[i].curve, sizeof(UInt32)), noErr);
        CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_3DMixerDistanceParams, kAudioUnitScope_Input, 0,
                                          &table[i].params, sizeof(MixerDistanceParams)), noErr);
        setBus(k3DMixerParam_Distance, 0, table[i].distance);
        CHECK_STATUS(render(), noErr);
        double l, r, expectedDB = decibels(table[i].gain * cos(M_PI / 4));
        levels(440, &l, &r);
        printf("measured: %s: %.2f dB a side (the curve gives %.2f)\n", table[i].what, l, expectedDB);
        CHECK(fabs(l - expectedDB) < 0.1 && fabs(r - expectedDB) < 0.1, "%s: %.2f and %.2f dB (%.2f)", table[i].what, l, r,
              expectedDB);
    }
    /* Read back, and refused values change nothing. */
    MixerDistanceParams params = {0, 0, 0}, good = {1, 100, 40};
    UInt32 size = sizeof params, curve = 99, algorithm = kSpatializationAlgorithm_HRTF;
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_3DMixerDistanceParams, kAudioUnitScope_Input, 0, &good,
                                      sizeof good), noErr);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_SpatializationAlgorithm, kAudioUnitScope_Input, 0, &algorithm,
                                      sizeof algorithm), noErr);
    static const struct {
        const char *what;
        MixerDistanceParams params;
    } badParams[] = {
        {"a reference of 0", {0, 10, 10}},
        {"the farthest nearer than the reference", {5, 2, 10}},
        {"a negative attenuation", {1, 10, -3}},
        {"a distance that is not a number", {NAN, 10, 10}},
    };
    for (size_t i = 0; i < sizeof badParams / sizeof badParams[0]; i++)
        CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_3DMixerDistanceParams, kAudioUnitScope_Input, 0,
                                          &badParams[i].params, sizeof(MixerDistanceParams)), kAudioUnitErr_InvalidPropertyValue);
    UInt32 bad = 9;
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_3DMixerAttenuationCurve, kAudioUnitScope_Input, 0, &bad,
                                      sizeof bad), kAudioUnitErr_InvalidPropertyValue);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_SpatializationAlgorithm, kAudioUnitScope_Input, 0, &bad,
                                      sizeof bad), kAudioUnitErr_InvalidPropertyValue);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_SpatializationAlgorithm, kAudioUnitScope_Global, 0, &algorithm,
                                      sizeof algorithm), kAudioUnitErr_InvalidScope);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_SpatializationAlgorithm, kAudioUnitScope_Input, 9, &algorithm,
                                      sizeof algorithm), kAudioUnitErr_InvalidElement);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_SpatializationAlgorithm, kAudioUnitScope_Input, 0, &algorithm,
                                      2), kAudioUnitErr_InvalidPropertyValue);
    CHECK_STATUS(AudioUnitGetProperty(mixer, kAudioUnitProperty_3DMixerDistanceParams, kAudioUnitScope_Input, 0, &params, &size),
                 noErr);
    size = sizeof curve;
    CHECK_STATUS(AudioUnitGetProperty(mixer, kAudioUnitProperty_3DMixerAttenuationCurve, kAudioUnitScope_Input, 0, &curve,
                                      &size), noErr);
    UInt32 readAlgorithm = 99;
    size = sizeof readAlgorithm;
    CHECK_STATUS(AudioUnitGetProperty(mixer, kAudioUnitProperty_SpatializationAlgorithm, kAudioUnitScope_Input, 0,
                                      &readAlgorithm, &size), noErr);
    CHECK(params.mReferenceDistance == 1 && params.mMaxDistance == 100 && params.mMaxAttenuation == 40 &&
              curve == k3DMixerAttenuationCurve_Inverse && readAlgorithm == kSpatializationAlgorithm_HRTF,
          "the properties read back as last taken ({%g, %g, %g}, curve %u, algorithm %u)", params.mReferenceDistance,
          params.mMaxDistance, params.mMaxAttenuation, (unsigned)curve, (unsigned)readAlgorithm);
    /* What this mixer lacks, and the multichannel mixer, which has none of them. */
    UInt32 on = 1;
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_DopplerShift, kAudioUnitScope_Input, 0, &on, sizeof on),
                 kAudioUnitErr_InvalidProperty);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
    AudioComponentDescription mcmx = {kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer, kAudioUnitManufacturer_Apple,
                                      0, 0};
    AudioUnit plain = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &mcmx), &plain), noErr);
    CHECK_STATUS(AudioUnitSetProperty(plain, kAudioUnitProperty_SpatializationAlgorithm, kAudioUnitScope_Input, 0, &algorithm,
                                      sizeof algorithm), kAudioUnitErr_InvalidProperty);
    AudioComponentInstanceDispose(plain);
}

/* ---- bad inputs -------------------------------------------------------------------------- */

static void badInputs(void)
{
    buildGraph();
    setBus(k3DMixerParam_Azimuth, 0, 30);
    static const struct {
        const char *what;
        AudioUnitParameterID id;
        AudioUnitScope scope;
        AudioUnitElement element;
        Float32 value;
        OSStatus expected;
    } table[] = {
        {"an azimuth that is not a number", k3DMixerParam_Azimuth, kAudioUnitScope_Input, 0, NAN, kAudioUnitErr_InvalidParameter},
        {"an infinite azimuth", k3DMixerParam_Azimuth, kAudioUnitScope_Input, 0, -INFINITY, kAudioUnitErr_InvalidParameter},
        {"the azimuth of a bus it lacks", k3DMixerParam_Azimuth, kAudioUnitScope_Input, 9, 10, kAudioUnitErr_InvalidElement},
        {"the azimuth in the global scope", k3DMixerParam_Azimuth, kAudioUnitScope_Global, 0, 10, kAudioUnitErr_InvalidScope},
        {"the azimuth of the output", k3DMixerParam_Azimuth, kAudioUnitScope_Output, 0, 10, kAudioUnitErr_InvalidScope},
        {"a parameter it lacks (12)", 12, kAudioUnitScope_Input, 0, 1, kAudioUnitErr_InvalidParameter},
        {"a level (read-only)", 1000, kAudioUnitScope_Input, 0, 1, kAudioUnitErr_InvalidParameter},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        OSStatus status = AudioUnitSetParameter(mixer, table[i].id, table[i].scope, table[i].element, table[i].value, 0);
        Float32 azimuth = 0;
        AudioUnitGetParameter(mixer, k3DMixerParam_Azimuth, kAudioUnitScope_Input, 0, &azimuth);
        CHECK(status == table[i].expected && azimuth == 30, "%s: %d (expected %d), the azimuth still 30 (%g)", table[i].what,
              (int)status, (int)table[i].expected, azimuth);
    }
    Float32 value = 0;
    CHECK_STATUS(AudioUnitGetParameter(mixer, k3DMixerParam_Azimuth, kAudioUnitScope_Input, 9, &value),
                 kAudioUnitErr_InvalidElement);
    /* Out of range: held to the range. */
    setBus(k3DMixerParam_Azimuth, 0, 400);
    setBus(k3DMixerParam_Distance, 0, -5);
    setBus(k3DMixerParam_MaxGain, 0, 3);
    Float32 azimuth = 0, distance = 1, maxGain = 0;
    AudioUnitGetParameter(mixer, k3DMixerParam_Azimuth, kAudioUnitScope_Input, 0, &azimuth);
    AudioUnitGetParameter(mixer, k3DMixerParam_Distance, kAudioUnitScope_Input, 0, &distance);
    AudioUnitGetParameter(mixer, k3DMixerParam_MaxGain, kAudioUnitScope_Input, 0, &maxGain);
    CHECK(azimuth == 180 && distance == 0 && maxGain == 1, "out of range is held to the range (%g, %g, %g)", azimuth,
          distance, maxGain);
    /* Fewer buses: the placement of a bus taken away goes with it. */
    UInt32 one = 1, two = 2;
    setBus(k3DMixerParam_Azimuth, 1, -60);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &one, sizeof one), noErr);
    CHECK_STATUS(AudioUnitGetParameter(mixer, k3DMixerParam_Azimuth, kAudioUnitScope_Input, 1, &value),
                 kAudioUnitErr_InvalidElement);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &two, sizeof two), noErr);
    value = 1;
    AudioUnitGetParameter(mixer, k3DMixerParam_Azimuth, kAudioUnitScope_Input, 1, &value);
    CHECK(value == 0, "a bus added again starts in front (%g)", value);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
}

/* ---- live --------------------------------------------------------------------------------- */

static void live(void)
{
    UInt32 category = kAudioSessionCategory_AmbientSound;
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AUGraph g = NULL;
    AUNode out = 0, node = 0;
    AudioUnit m = NULL;
    NewAUGraph(&g);
    AUGraphAddNode(g, &rio, &out);
    AUGraphAddNode(g, &mixerDescription, &node);
    AUGraphOpen(g);
    AUGraphNodeInfo(g, node, NULL, &m);
    setUpBuses(m);
    AUGraphConnectNodeInput(g, node, 0, out, 0);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    AudioUnitSetParameter(m, k3DMixerParam_Azimuth, kAudioUnitScope_Input, 0, 90, 0);
    AudioUnitSetParameter(m, k3DMixerParam_Enable, kAudioUnitScope_Input, 1, 0, 0);
    CHECK_STATUS(AUGraphStart(g), noErr);
    usleep(600000);
    CHECK_STATUS(AUGraphStop(g), noErr);
    if (worldOnCard()) {
        long frames = 0;
        short *heard = worldCardRecording(&frames);
        int rate = worldCardRate();
        long window = rate / 4, first = -1;
        for (long i = 0; heard && i < frames; i++) if (abs(heard[2 * i + 1]) > 2000) { first = i; break; }
        double l = 0, r = 0;
        if (first >= 0 && first + window < frames) {
            float *side = calloc((size_t)window, sizeof *side);
            for (long i = 0; i < window; i++) side[i] = heard[2 * (first + i)] / 32768.0f;
            l = amplitudeAt(side, window, 440, rate);
            for (long i = 0; i < window; i++) side[i] = heard[2 * (first + i) + 1] / 32768.0f;
            r = amplitudeAt(side, window, 440, rate);
            free(side);
        }
        printf("measured: the card heard a source at 90 degrees: left %.4f, right %.4f\n", l, r);
        CHECK(r > 0.2 && l < 0.001, "a source at 90 degrees is on the card's right only (left %.4f, right %.4f)", l, r);
        free(heard);
    }
    DisposeAUGraph(g);
}

int main(void)
{
    installWatchdog("3D mixer");
    alarm(120);
    placements();
    curves();
    badInputs();
    live();
    return worldFinish("test_3d_mixer");
}
