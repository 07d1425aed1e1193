/*
 * AUMatrixMixer, set up as Apple's matrix mixer sample and audio frameworks set it up:
 * the input and output bus counts by kAudioUnitProperty_ElementCount, each bus's format,
 * a render callback per input bus, then every gain by kMatrixMixerParam_Volume with its
 * element encoding (a crosspoint: input channel << 16 | output channel; the master gain:
 * 0xFFFFFFFF; an input or output channel's gain in its scope).
 *
 * Offline: two input buses (mono 440 Hz; stereo 660 Hz left, 880 Hz right), two output
 * buses (stereo; mono), output 0 pulled through a graph's GenericOutput and output 1 by
 * AudioUnitRender at the same time stamp. Measured: silence while every gain is at its
 * start (0); each crosspoint routes its tone to its output alone, at the product of the
 * crosspoint, input, output and master gains; the inputs are pulled once for both
 * outputs; Enable silences a bus (an input bus disabled is not pulled); MatrixLevels and
 * MatrixDimensions read back in their documented layout; levels in dB with metering on.
 * Bad inputs answer with codes and change nothing.
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

enum { RATE = 44100, SLICE = 512, FRAMES = 16 * SLICE };

static const AudioComponentDescription matrixDescription = {kAudioUnitType_Mixer, kAudioUnitSubType_MatrixMixer,
                                                            kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription genericDescription = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                                             kAudioUnitManufacturer_Apple, 0, 0};

static AudioStreamBasicDescription floats(UInt32 channels)
{
    AudioStreamBasicDescription d = {RATE, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                     4, 1, 4, channels, 32, 0};
    return d;
}

/* Input bus 0: 440 Hz; bus 1: 660 Hz left, 880 Hz right. All at 0.5. */
static double phases[3];
static volatile long pulls[2];
static const double tones[3] = {440, 660, 880};

static OSStatus feed(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus, UInt32 frames,
                     AudioBufferList *data)
{
    (void)flags; (void)ts;
    int first = (int)(intptr_t)refCon;
    pulls[bus]++;
    for (UInt32 b = 0; b < data->mNumberBuffers; b++) {
        Float32 *out = data->mBuffers[b].mData;
        for (UInt32 i = 0; i < frames; i++) {
            out[i] = (Float32)(0.5 * sin(phases[first + b]));
            phases[first + b] += 2 * M_PI * tones[first + b] / RATE;
        }
    }
    return noErr;
}

static AUGraph graph;
static AudioUnit matrix, generic;
static Float32 out0[2][FRAMES], out1[FRAMES];
static double sampleTime;

/* FRAMES frames of output 0 (through the graph) and output 1 (AudioUnitRender on the
 * mixer), slice by slice at the same time stamps. */
static OSStatus render(void)
{
    for (long done = 0; done < FRAMES; done += SLICE) {
        AudioTimeStamp ts;
        memset(&ts, 0, sizeof ts);
        ts.mSampleTime = sampleTime;
        ts.mFlags = kAudioTimeStampSampleTimeValid;
        struct { UInt32 count; AudioBuffer b[2]; } stereo = {2, {{1, SLICE * 4, out0[0] + done}, {1, SLICE * 4, out0[1] + done}}};
        AudioBufferList mono = {1, {{1, SLICE * 4, out1 + done}}};
        AudioUnitRenderActionFlags flags = 0;
        OSStatus status = AudioUnitRender(generic, &flags, &ts, 0, SLICE, (AudioBufferList *)&stereo);
        if (status == noErr) status = AudioUnitRender(matrix, &flags, &ts, 1, SLICE, &mono);
        if (status != noErr) return status;
        sampleTime += SLICE;
    }
    return noErr;
}

static void buildGraph(void)
{
    AUNode out = 0, node = 0;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &genericDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &matrixDescription, &node), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, node, NULL, &matrix), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, out, NULL, &generic), noErr);
    UInt32 two = 2;
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &two, sizeof two), noErr);
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_ElementCount, kAudioUnitScope_Output, 0, &two, sizeof two), noErr);
    AudioStreamBasicDescription mono = floats(1), stereo = floats(2);
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &mono, sizeof mono), noErr);
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 1, &stereo, sizeof stereo),
                 noErr);
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &stereo, sizeof stereo),
                 noErr);
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1, &mono, sizeof mono),
                 noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &stereo, sizeof stereo),
                 noErr);
    AURenderCallbackStruct first = {feed, (void *)(intptr_t)0}, second = {feed, (void *)(intptr_t)1};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, node, 0, &first), noErr);
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, node, 1, &second), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
}

static void volume(AudioUnitScope scope, AudioUnitElement element, Float32 value)
{
    CHECK_STATUS(AudioUnitSetParameter(matrix, kMatrixMixerParam_Volume, scope, element, value, 0), noErr);
}

static double level(const Float32 *s, double hz) { return amplitudeAt(s + SLICE, FRAMES - SLICE, hz, RATE); }

/* What each output channel holds of each tone. */
typedef struct { double a[3][3]; } Heard;
static Heard heard(void)
{
    Heard h;
    const Float32 *channels[3] = {out0[0], out0[1], out1};
    for (int o = 0; o < 3; o++)
        for (int t = 0; t < 3; t++) h.a[o][t] = level(channels[o], tones[t]);
    return h;
}

/* Every output channel holds the tone its gains give it, and no other (within 1%). */
static void expectRouting(const char *what, const double expected[3][3])
{
    Heard h = heard();
    int good = 1;
    for (int o = 0; o < 3; o++)
        for (int t = 0; t < 3; t++)
            if (fabs(h.a[o][t] - expected[o][t]) > 0.005 + 0.01 * expected[o][t]) good = 0;
    printf("measured: %s: out0 %.3f %.3f %.3f | out1 %.3f %.3f %.3f | out2 %.3f %.3f %.3f (440, 660, 880 Hz)\n", what,
           h.a[0][0], h.a[0][1], h.a[0][2], h.a[1][0], h.a[1][1], h.a[1][2], h.a[2][0], h.a[2][1], h.a[2][2]);
    CHECK(good, "%s: each output channel holds what its gains give it", what);
}

static void routing(void)
{
    buildGraph();
    UInt32 dims[2] = {0, 0}, size = sizeof dims;
    CHECK_STATUS(AudioUnitGetProperty(matrix, kAudioUnitProperty_MatrixDimensions, kAudioUnitScope_Global, 0, dims, &size), noErr);
    CHECK(dims[0] == 3 && dims[1] == 3, "MatrixDimensions: 3 input and 3 output channels (%u, %u)", (unsigned)dims[0],
          (unsigned)dims[1]);
    static const double none[3][3] = {{0}};
    CHECK_STATUS(render(), noErr);
    expectRouting("every gain at its start (0)", none);
    CHECK(pulls[0] == FRAMES / SLICE && pulls[1] == FRAMES / SLICE,
          "each input pulled once a slice for both outputs (%ld, %ld for %d slices)", pulls[0], pulls[1], FRAMES / SLICE);

    /* The sample's set-up: master, inputs and outputs at 1, then the crosspoints. */
    volume(kAudioUnitScope_Global, 0xFFFFFFFF, 1);
    for (UInt32 c = 0; c < 3; c++) {
        volume(kAudioUnitScope_Input, c, 1);
        volume(kAudioUnitScope_Output, c, 1);
    }
    volume(kAudioUnitScope_Global, (0 << 16) | 0, 1);     /* 440 -> out 0 */
    volume(kAudioUnitScope_Global, (1 << 16) | 1, 0.5f);  /* 660 -> out 1 */
    volume(kAudioUnitScope_Global, (2 << 16) | 2, 0.25f); /* 880 -> out 2 (bus 1 of the outputs) */
    volume(kAudioUnitScope_Global, (0 << 16) | 2, 0.5f);  /* 440 -> out 2 as well */
    CHECK_STATUS(render(), noErr);
    const double routed[3][3] = {{0.5, 0, 0}, {0, 0.25, 0}, {0.25, 0, 0.125}};
    expectRouting("crosspoints", routed);

    volume(kAudioUnitScope_Input, 0, 0.5f);
    volume(kAudioUnitScope_Output, 1, 0.5f);
    volume(kAudioUnitScope_Global, 0xFFFFFFFF, 0.5f);
    CHECK_STATUS(render(), noErr);
    const double scaled[3][3] = {{0.125, 0, 0}, {0, 0.0625, 0}, {0.0625, 0, 0.0625}};
    expectRouting("input 0 at 0.5, output 1 at 0.5, master 0.5", scaled);

    /* MatrixLevels: (inputs + 1) rows of (outputs + 1). */
    Float32 levels[16];
    size = sizeof levels;
    CHECK_STATUS(AudioUnitGetProperty(matrix, kAudioUnitProperty_MatrixLevels, kAudioUnitScope_Global, 0, levels, &size), noErr);
    CHECK(size == sizeof levels && levels[0 * 4 + 0] == 1 && levels[1 * 4 + 1] == 0.5f && levels[2 * 4 + 2] == 0.25f &&
              levels[0 * 4 + 2] == 0.5f && levels[0 * 4 + 3] == 0.5f && levels[1 * 4 + 3] == 1 && levels[3 * 4 + 1] == 0.5f &&
              levels[3 * 4 + 0] == 1 && levels[3 * 4 + 3] == 0.5f && levels[1 * 4 + 0] == 0,
          "MatrixLevels reads the gains in their places (%u bytes)", (unsigned)size);

    /* Enable: an input bus off is not pulled; an output bus off is silent. */
    volume(kAudioUnitScope_Global, 0xFFFFFFFF, 1);
    volume(kAudioUnitScope_Input, 0, 1);
    volume(kAudioUnitScope_Output, 1, 1);
    CHECK_STATUS(AudioUnitSetParameter(matrix, kMatrixMixerParam_Enable, kAudioUnitScope_Input, 1, 0, 0), noErr);
    long before = pulls[1];
    CHECK_STATUS(render(), noErr);
    const double inputOff[3][3] = {{0.5, 0, 0}, {0, 0, 0}, {0.25, 0, 0}};
    expectRouting("input bus 1 disabled", inputOff);
    CHECK(pulls[1] == before, "a disabled input bus is not pulled (%ld pulls)", pulls[1] - before);
    CHECK_STATUS(AudioUnitSetParameter(matrix, kMatrixMixerParam_Enable, kAudioUnitScope_Input, 1, 1, 0), noErr);
    CHECK_STATUS(AudioUnitSetParameter(matrix, kMatrixMixerParam_Enable, kAudioUnitScope_Output, 1, 0, 0), noErr);
    CHECK_STATUS(render(), noErr);
    const double outputOff[3][3] = {{0.5, 0, 0}, {0, 0.25, 0}, {0, 0, 0}};
    expectRouting("output bus 1 disabled", outputOff);
    CHECK_STATUS(AudioUnitSetParameter(matrix, kMatrixMixerParam_Enable, kAudioUnitScope_Output, 1, 1, 0), noErr);

    /* Levels with metering on: input channel 0 before its gains, output channel 0 after. */
    UInt32 on = 1;
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_MeteringMode, kAudioUnitScope_Input, 0, &on, sizeof on), noErr);
    volume(kAudioUnitScope_Input, 0, 0.5f);
    CHECK_STATUS(render(), noErr);
    Float32 prePeak = 0, postAverage = 0, postLinear = 0;
    AudioUnitGetParameter(matrix, kMatrixMixerParam_PrePeakHoldLevel, kAudioUnitScope_Input, 0, &prePeak);
    AudioUnitGetParameter(matrix, kMatrixMixerParam_PostAveragePower, kAudioUnitScope_Output, 0, &postAverage);
    AudioUnitGetParameter(matrix, kMatrixMixerParam_PostAveragePowerLinear, kAudioUnitScope_Output, 0, &postLinear);
    double expectedPost = 20 * log10(0.25 / sqrt(2));
    printf("measured: levels: input 0 peak %.2f dB, output 0 average %.2f dB (%.4f linear)\n", prePeak, postAverage, postLinear);
    CHECK(fabs(prePeak - 20 * log10(0.5)) < 0.1 && fabs(postAverage - expectedPost) < 0.2 &&
              fabs(postLinear - 0.25 / sqrt(2)) < 0.005,
          "levels: input peak %.2f dB (-6.02), output average %.2f dB (%.2f)", prePeak, postAverage, expectedPost);
    /* Before a channel's gain and after it: input 0 at 0.5, output 0 at 0.5. */
    volume(kAudioUnitScope_Output, 0, 0.5f);
    CHECK_STATUS(render(), noErr);
    Float32 inPre = 0, inPost = 0, outPre = 0, outPost = 0;
    AudioUnitGetParameter(matrix, kMatrixMixerParam_PrePeakHoldLevel, kAudioUnitScope_Input, 0, &inPre);
    AudioUnitGetParameter(matrix, kMatrixMixerParam_PostPeakHoldLevel, kAudioUnitScope_Input, 0, &inPost);
    AudioUnitGetParameter(matrix, kMatrixMixerParam_PrePeakHoldLevel, kAudioUnitScope_Output, 0, &outPre);
    AudioUnitGetParameter(matrix, kMatrixMixerParam_PostPeakHoldLevel, kAudioUnitScope_Output, 0, &outPost);
    printf("measured: peaks before and after the gains: input 0 %.2f / %.2f dB, output 0 %.2f / %.2f dB\n", inPre, inPost,
           outPre, outPost);
    CHECK(fabs(inPre + 6.02) < 0.1 && fabs(inPost + 12.04) < 0.1 && fabs(outPre + 12.04) < 0.1 && fabs(outPost + 18.06) < 0.1,
          "peaks before and after the gains: input %.2f / %.2f (-6.02 / -12.04), output %.2f / %.2f (-12.04 / -18.06)", inPre,
          inPost, outPre, outPost);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
}

/* ---- bad inputs -------------------------------------------------------------------------- */

static void badInputs(void)
{
    buildGraph();
    volume(kAudioUnitScope_Global, (1 << 16) | 2, 0.75f);
    static const struct {
        const char *what;
        AudioUnitParameterID id;
        AudioUnitScope scope;
        AudioUnitElement element;
        Float32 value;
        OSStatus expected;
    } table[] = {
        {"a gain that is not a number", kMatrixMixerParam_Volume, kAudioUnitScope_Global, (1 << 16) | 2, NAN,
         kAudioUnitErr_InvalidParameter},
        {"a negative gain", kMatrixMixerParam_Volume, kAudioUnitScope_Global, (1 << 16) | 2, -1, kAudioUnitErr_InvalidParameter},
        {"a crosspoint past the inputs", kMatrixMixerParam_Volume, kAudioUnitScope_Global, (3 << 16) | 0, 1,
         kAudioUnitErr_InvalidElement},
        {"a crosspoint past the outputs", kMatrixMixerParam_Volume, kAudioUnitScope_Global, (0 << 16) | 3, 1,
         kAudioUnitErr_InvalidElement},
        {"an input channel it lacks", kMatrixMixerParam_Volume, kAudioUnitScope_Input, 3, 1, kAudioUnitErr_InvalidElement},
        {"Enable in the global scope", kMatrixMixerParam_Enable, kAudioUnitScope_Global, 0, 0, kAudioUnitErr_InvalidScope},
        {"Enable of a bus it lacks", kMatrixMixerParam_Enable, kAudioUnitScope_Output, 2, 0, kAudioUnitErr_InvalidElement},
        {"a level (read-only)", kMatrixMixerParam_PostAveragePower, kAudioUnitScope_Output, 0, 0,
         kAudioUnitErr_InvalidParameter},
        {"a parameter it lacks (2)", 2, kAudioUnitScope_Global, 0, 0, kAudioUnitErr_InvalidParameter},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        OSStatus status = AudioUnitSetParameter(matrix, table[i].id, table[i].scope, table[i].element, table[i].value, 0);
        Float32 kept = 0;
        AudioUnitGetParameter(matrix, kMatrixMixerParam_Volume, kAudioUnitScope_Global, (1 << 16) | 2, &kept);
        CHECK(status == table[i].expected && kept == 0.75f, "%s: %d (expected %d), the crosspoint still 0.75 (%g)",
              table[i].what, (int)status, (int)table[i].expected, kept);
    }
    UInt32 three = 3, zero = 0;
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_ElementCount, kAudioUnitScope_Output, 0, &three, sizeof three),
                 kAudioUnitErr_Initialized);
    AudioStreamBasicDescription integer = {RATE, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                           2, 1, 2, 1, 16, 0};
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &integer, sizeof integer),
                 kAudioUnitErr_FormatNotSupported);
    Float32 levels[16];
    UInt32 size = sizeof levels;
    CHECK_STATUS(AudioUnitGetProperty(matrix, kAudioUnitProperty_MatrixLevels, kAudioUnitScope_Input, 0, levels, &size),
                 kAudioUnitErr_InvalidScope);
    AudioUnitUninitialize(matrix);
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_ElementCount, kAudioUnitScope_Output, 0, &zero, sizeof zero),
                 kAudioUnitErr_InvalidPropertyValue);
    /* A bus taken away forgets its Enable: with one input, initialized and rendered, then
     * two again, the second is on. */
    UInt32 one = 1, two = 2;
    CHECK_STATUS(AudioUnitSetParameter(matrix, kMatrixMixerParam_Enable, kAudioUnitScope_Input, 1, 0, 0), noErr);
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &one, sizeof one),
                 noErr);
    CHECK_STATUS(AudioUnitInitialize(matrix), noErr);
    AudioBufferList monoList = {1, {{1, SLICE * 4, out1}}};
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    AudioUnitRenderActionFlags flags = 0;
    CHECK_STATUS(AudioUnitRender(matrix, &flags, &ts, 1, SLICE, &monoList), noErr);
    AudioUnitUninitialize(matrix);
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &two, sizeof two),
                 noErr);
    Float32 enabled = 0;
    AudioUnitGetParameter(matrix, kMatrixMixerParam_Enable, kAudioUnitScope_Input, 1, &enabled);
    CHECK(enabled == 1, "a bus added again starts enabled (%g)", enabled);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
    AudioComponentDescription mcmx = {kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer, kAudioUnitManufacturer_Apple,
                                      0, 0};
    AudioUnit plain = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &mcmx), &plain), noErr);
    UInt32 dims[2];
    size = sizeof dims;
    CHECK_STATUS(AudioUnitGetProperty(plain, kAudioUnitProperty_MatrixDimensions, kAudioUnitScope_Global, 0, dims, &size),
                 kAudioUnitErr_InvalidProperty);
    AudioComponentInstanceDispose(plain);
}

int main(void)
{
    installWatchdog("matrix mixer");
    alarm(120);
    routing();
    badInputs();
    return worldFinish("test_matrix_mixer");
}
