/*
 * The time and pitch units: AUNewTimePitch and AUiPodTime (format converters, 'aufc'),
 * called as speed-changer and music-practice apps call them.
 *
 * Offline (GenericOutput <- the unit <- a 440 Hz sine), for a table of rates and pitch
 * shifts: the unit pulls its input at the rate asked (frames pulled over frames made,
 * measured between two points of a long run, so the lead it pulls at first drops out),
 * the tone comes out at the pitch asked (440 Hz times two to the cents over 1200,
 * from the zero crossings), at the level it went in. Each pull is stamped with the
 * input's own sample time, one after the other. Bypassed, the input passes unchanged.
 * Parameters change while it plays; ClassInfo saves and restores them; bad inputs answer
 * with codes and change nothing.
 *
 * Live, as apps join one to a file player: RemoteIO <- AUNewTimePitch <- AUAudioFilePlayer
 * at rate 2: the card hears the file's 440 Hz, for half the file's length.
 *
 * Compiled as iPhone code (the -ios module): AUiPodTime is an iPhone-only name.
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

enum { RATE = 44100, SLICE = 512, FILE_RATE = 44100 };

#define CONVERTER(subtype) {kAudioUnitType_FormatConverter, subtype, kAudioUnitManufacturer_Apple, 0, 0}
static const AudioComponentDescription timePitchDescription = CONVERTER(kAudioUnitSubType_NewTimePitch);
static const AudioComponentDescription iPodTimeDescription = CONVERTER(kAudioUnitSubType_AUiPodTime);
static const AudioComponentDescription iPodTimeOtherDescription = CONVERTER(kAudioUnitSubType_AUiPodTimeOther);
static const AudioComponentDescription genericDescription = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                                             kAudioUnitManufacturer_Apple, 0, 0};
static const AudioStreamBasicDescription floatFormat = {RATE, kAudioFormatLinearPCM,
                                                        kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                                        4, 1, 4, 2, 32, 0};

/* The input: a sine of amplitude 0.5, counting the frames pulled and checking that each
 * pull's sample time follows the one before. */
static struct {
    double hz, phase;
    long pulled, pulls, timeJumps;
    double nextTime;
    int timed, failNext;
} input;

static OSStatus sine(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus, UInt32 frames,
                     AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)bus;
    if (input.failNext) {
        input.failNext = 0;
        return kAudioUnitErr_InvalidPropertyValue;
    }
    if (!(ts->mFlags & kAudioTimeStampSampleTimeValid)) input.timeJumps++;
    if (input.timed && ts->mSampleTime != input.nextTime) input.timeJumps++;
    input.timed = 1;
    input.nextTime = ts->mSampleTime + frames;
    for (UInt32 i = 0; i < frames; i++) {
        Float32 v = (Float32)(0.5 * sin(input.phase));
        input.phase += 2 * M_PI * input.hz / RATE;
        for (UInt32 b = 0; b < data->mNumberBuffers; b++) ((Float32 *)data->mBuffers[b].mData)[i] = v;
    }
    input.pulled += frames;
    input.pulls++;
    return noErr;
}

static AUGraph graph;
static AudioUnit generic, unit;
static Float32 left[4 * RATE + SLICE], right[4 * RATE + SLICE];
static double sampleTime;

/* `frames` (a whole number of slices) into left/right from `at`. */
static OSStatus render(long at, long frames)
{
    for (long done = 0; done < frames; done += SLICE) {
        struct { UInt32 count; AudioBuffer b[2]; } list = {2, {{1, SLICE * 4, left + at + done}, {1, SLICE * 4, right + at + done}}};
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

/* GenericOutput <- the unit <- the sine, as an AUGraph. */
static void buildGraph(const AudioComponentDescription *kind)
{
    AUNode out = 0, node = 0;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &genericDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, kind, &node), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, node, NULL, &unit), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, out, NULL, &generic), noErr);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &floatFormat,
                                      sizeof floatFormat), noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floatFormat,
                                      sizeof floatFormat), noErr);
    AURenderCallbackStruct feed = {sine, NULL};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, node, 0, &feed), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
    sampleTime = 0;
}

static void closeGraph(void)
{
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
    graph = NULL;
}

static void restart(double hz)
{
    memset(&input, 0, sizeof input);
    input.hz = hz;
    CHECK_STATUS(AudioUnitReset(unit, kAudioUnitScope_Global, 0), noErr);
}

/* The frequency of the tone in s[0..n), from its rising zero crossings (interpolated). */
static double frequencyOf(const Float32 *s, long n)
{
    double first = -1, last = -1;
    long crossings = 0;
    for (long i = 1; i < n; i++) {
        if (s[i - 1] < 0 && s[i] >= 0) {
            double at = (double)(i - 1) + s[i - 1] / (double)(s[i - 1] - s[i]);
            if (first < 0) first = at;
            last = at;
            crossings++;
        }
    }
    return crossings > 1 ? (double)(crossings - 1) * RATE / (last - first) : 0;
}

static double rmsOf(const Float32 *s, long n)
{
    double sum = 0;
    for (long i = 0; i < n; i++) sum += (double)s[i] * s[i];
    return sqrt(sum / (double)n);
}

/* ---- the table of rates and pitches -------------------------------------------------- */

typedef struct {
    const char *unit;
    const AudioComponentDescription *kind;
    Float32 rate, cents; /* cents: AUNewTimePitch only */
} Case;

static void rates(void)
{
    static const Case cases[] = {
        {"AUNewTimePitch", &timePitchDescription, 1, 0},
        {"AUNewTimePitch", &timePitchDescription, 2, 0},
        {"AUNewTimePitch", &timePitchDescription, 0.5f, 0},
        {"AUNewTimePitch", &timePitchDescription, 1, 1200},
        {"AUNewTimePitch", &timePitchDescription, 1, -700},
        {"AUNewTimePitch", &timePitchDescription, 1.5f, 500},
        {"AUNewTimePitch", &timePitchDescription, 3, -1200},
        {"AUiPodTime", &iPodTimeDescription, 2, 0},
        {"AUiPodTime", &iPodTimeDescription, 0.75f, 0},
        {"AUiPodTimeOther", &iPodTimeOtherDescription, 1.25f, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const Case *c = &cases[i];
        buildGraph(c->kind);
        CHECK_STATUS(AudioUnitSetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, c->rate, 0), noErr);
        if (c->cents != 0)
            CHECK_STATUS(AudioUnitSetParameter(unit, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, c->cents, 0), noErr);
        restart(440);
        /* One second, then two more: the rate is what was pulled in those two. */
        CHECK_STATUS(render(0, RATE + (SLICE - RATE % SLICE)), noErr);
        long before = input.pulled, made = 2 * RATE - (2 * RATE) % SLICE;
        CHECK_STATUS(render(0, made), noErr);
        double pulledRate = (double)(input.pulled - before) / (double)made;
        double expectedHz = 440 * pow(2, c->cents / 1200.0);
        double hz = frequencyOf(left, made);
        double level = 20 * log10(rmsOf(left + RATE / 2, RATE) / (0.5 / sqrt(2)));
        printf("measured %s rate %.2f pitch %+.0f cents: pulled %.4f input frames per frame, tone %.2f Hz (asked %.2f), "
               "level %+.2f dB, %ld pulls\n", c->unit, c->rate, c->cents, pulledRate, hz, expectedHz, level, input.pulls);
        CHECK(fabs(pulledRate / c->rate - 1) < 0.02, "%s at rate %.2f pulls %.4f frames a frame", c->unit, c->rate, pulledRate);
        CHECK(fabs(hz / expectedHz - 1) < 0.01, "%s at %+.0f cents plays %.2f Hz (%.2f asked)", c->unit, c->cents, hz,
              expectedHz);
        CHECK(fabs(level) < 2, "%s keeps the level (%+.2f dB)", c->unit, level);
        CHECK(input.timeJumps == 0, "%s stamps each pull with the input's own time (%ld jumps)", c->unit, input.timeJumps);
        CHECK(memcmp(left, right, sizeof(Float32) * (size_t)made) == 0, "%s treats both channels alike", c->unit);
        closeGraph();
    }
}

/* ---- discovery, bypass, changes while playing, saved state ---------------------------- */

static void discovery(void)
{
    const AudioComponentDescription *kinds[] = {&timePitchDescription, &iPodTimeDescription, &iPodTimeOtherDescription};
    const UInt32 counts[] = {4, 1, 1};
    for (int k = 0; k < 3; k++) {
        AudioComponent found = AudioComponentFindNext(NULL, kinds[k]);
        CHECK(found != NULL, "AudioComponentFindNext finds the time unit %d", k);
        if (!found) continue;
        AudioUnit u = NULL;
        CHECK_STATUS(AudioComponentInstanceNew(found, &u), noErr);
        UInt32 size = 0;
        Boolean writable = 0;
        CHECK_STATUS(AudioUnitGetPropertyInfo(u, kAudioUnitProperty_ParameterList, kAudioUnitScope_Global, 0, &size,
                                              &writable), noErr);
        CHECK(size == counts[k] * sizeof(AudioUnitParameterID), "time unit %d lists %u parameters (%u bytes)", k,
              (unsigned)counts[k], (unsigned)size);
        AudioUnitParameterInfo info;
        size = sizeof info;
        CHECK_STATUS(AudioUnitGetProperty(u, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Global, kNewTimePitchParam_Rate,
                                          &info, &size), noErr);
        if (k == 0) {
            CHECK(info.minValue == 1.0f / 32 && info.maxValue == 32 && info.defaultValue == 1 &&
                  info.unit == kAudioUnitParameterUnit_Rate, "AUNewTimePitch's rate: 1/32 to 32, 1 (%g..%g, %g)",
                  info.minValue, info.maxValue, info.defaultValue);
            size = sizeof info;
            CHECK_STATUS(AudioUnitGetProperty(u, kAudioUnitProperty_ParameterInfo, kAudioUnitScope_Global,
                                              kNewTimePitchParam_Pitch, &info, &size), noErr);
            CHECK(info.minValue == -2400 && info.maxValue == 2400 && info.defaultValue == 0 &&
                  info.unit == kAudioUnitParameterUnit_Cents, "AUNewTimePitch's pitch: -2400 to 2400 cents, 0");
            Float32 overlap = 0, locking = 0;
            AudioUnitGetParameter(u, kNewTimePitchParam_Overlap, kAudioUnitScope_Global, 0, &overlap);
            AudioUnitGetParameter(u, kNewTimePitchParam_EnablePeakLocking, kAudioUnitScope_Global, 0, &locking);
            CHECK(overlap == 8 && locking == 1, "overlap 8 and peak locking on at first (%g, %g)", overlap, locking);
        } else {
            CHECK(info.minValue == 0.5f && info.maxValue == 2 && info.defaultValue == 1,
                  "AUiPodTime's rate: 0.5 to 2, 1 (%g..%g, %g)", info.minValue, info.maxValue, info.defaultValue);
        }
        CHECK_STATUS(AudioComponentInstanceDispose(u), noErr);
    }
}

static void bypass(void)
{
    buildGraph(&timePitchDescription);
    AudioUnitSetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, 2, 0);
    UInt32 on = 1;
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_BypassEffect, kAudioUnitScope_Global, 0, &on, sizeof on), noErr);
    restart(440);
    CHECK_STATUS(render(0, 8 * SLICE), noErr);
    long differ = 0;
    double phase = 0;
    for (long i = 0; i < 8 * SLICE; i++) {
        if (left[i] != (Float32)(0.5 * sin(phase))) differ++;
        phase += 2 * M_PI * 440 / RATE;
    }
    CHECK(differ == 0 && input.pulled == 8 * SLICE, "bypassed, the input passes unchanged (%ld differ, %ld pulled)", differ,
          input.pulled);
    closeGraph();
}

/* A practice app's slider: rate and pitch moved between every render. Nothing fails, the
 * output stays finite and within full scale, and the input keeps its own time. */
static void changes(void)
{
    buildGraph(&timePitchDescription);
    restart(440);
    long bad = 0;
    Float32 peak = 0;
    for (int i = 0; i < 400; i++) {
        AudioUnitSetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, 0.25f + (float)(i % 16) * 0.25f, 0);
        AudioUnitSetParameter(unit, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, (float)(i % 9 - 4) * 300, 0);
        if (render(0, SLICE) != noErr) bad++;
        for (long f = 0; f < SLICE; f++) {
            if (!isfinite(left[f])) bad++;
            if (fabsf(left[f]) > peak) peak = fabsf(left[f]);
        }
    }
    printf("measured: 400 slices with the rate and pitch moved each time: peak %.3f, %ld pulls\n", peak, input.pulls);
    CHECK(bad == 0 && peak <= 1.0f && peak > 0.1f, "rate and pitch move while playing (%ld bad, peak %.3f)", bad, peak);
    CHECK(input.timeJumps == 0, "the input's time runs on through the changes (%ld jumps)", input.timeJumps);
    closeGraph();
}

static void savedState(void)
{
    buildGraph(&timePitchDescription);
    AudioUnitSetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, 1.7f, 0);
    AudioUnitSetParameter(unit, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, 300, 0);
    CFPropertyListRef saved = NULL;
    UInt32 size = sizeof saved;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_ClassInfo, kAudioUnitScope_Global, 0, &saved, &size), noErr);
    AudioUnitSetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, 0.5f, 0);
    AudioUnitSetParameter(unit, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, -900, 0);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_ClassInfo, kAudioUnitScope_Global, 0, &saved, sizeof saved),
                 noErr);
    Float32 rate = 0, pitch = 0;
    AudioUnitGetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, &rate);
    AudioUnitGetParameter(unit, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, &pitch);
    CHECK(rate == 1.7f && pitch == 300, "ClassInfo restores rate and pitch (%g, %g)", rate, pitch);
    if (saved) CFRelease(saved);
    closeGraph();
}

/* ---- bad inputs ------------------------------------------------------------------------ */

static void badInputs(void)
{
    buildGraph(&timePitchDescription);
    AudioUnitSetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, 1.5f, 0);
    static const struct {
        const char *what;
        AudioUnitParameterID id;
        AudioUnitScope scope;
        AudioUnitElement element;
        Float32 value;
        OSStatus expected;
    } table[] = {
        {"a rate that is not a number", kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, NAN, kAudioUnitErr_InvalidParameter},
        {"an infinite rate", kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, INFINITY, kAudioUnitErr_InvalidParameter},
        {"the rate in the input scope", kNewTimePitchParam_Rate, kAudioUnitScope_Input, 0, 2, kAudioUnitErr_InvalidScope},
        {"the rate of element 1", kNewTimePitchParam_Rate, kAudioUnitScope_Global, 1, 2, kAudioUnitErr_InvalidElement},
        {"a parameter it lacks (2)", 2, kAudioUnitScope_Global, 0, 1, kAudioUnitErr_InvalidParameter},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        OSStatus status = AudioUnitSetParameter(unit, table[i].id, table[i].scope, table[i].element, table[i].value, 0);
        Float32 rate = 0;
        AudioUnitGetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, &rate);
        CHECK(status == table[i].expected && rate == 1.5f, "%s: %d (expected %d), the rate still 1.5 (%g)", table[i].what,
              (int)status, (int)table[i].expected, rate);
    }
    /* Out of range: held to the range, as a knob stops at its end. */
    AudioUnitSetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, 100, 0);
    AudioUnitSetParameter(unit, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, -5000, 0);
    Float32 rate = 0, pitch = 0;
    AudioUnitGetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, &rate);
    AudioUnitGetParameter(unit, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, &pitch);
    CHECK(rate == 32 && pitch == -2400, "out of range is held to the range (%g, %g)", rate, pitch);
    /* Formats it does not take, while uninitialized; none while initialized. */
    AudioStreamBasicDescription interleaved = {RATE, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked, 8, 1, 8, 2, 32, 0};
    AudioStreamBasicDescription integer = {RATE, kAudioFormatLinearPCM,
                                           kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &interleaved,
                                      sizeof interleaved), kAudioUnitErr_FormatNotSupported);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &integer, sizeof integer),
                 kAudioUnitErr_FormatNotSupported);
    closeGraph();
    /* AUiPodTime has no pitch. */
    buildGraph(&iPodTimeDescription);
    CHECK_STATUS(AudioUnitSetParameter(unit, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, 100, 0),
                 kAudioUnitErr_InvalidParameter);
    closeGraph();
    /* A failing input fails the render with its code, and the next render plays on. */
    buildGraph(&timePitchDescription);
    restart(440);
    CHECK_STATUS(render(0, 4 * SLICE), noErr);
    input.failNext = 1;
    CHECK_STATUS(render(0, 40 * SLICE), kAudioUnitErr_InvalidPropertyValue);
    CHECK_STATUS(render(0, 4 * SLICE), noErr);
    closeGraph();
}

/* ---- live ------------------------------------------------------------------------------ */

static char path[300];

/* Two seconds of a 440 Hz sine, mono 16-bit. */
static void writeFile(void)
{
    FILE *f = fopen(path, "wb");
    UInt32 u32;
    UInt16 u16;
#define PUT32(v) (u32 = (v), fwrite(&u32, 4, 1, f))
#define PUT16(v) (u16 = (v), fwrite(&u16, 2, 1, f))
    fwrite("RIFF", 1, 4, f); PUT32(36 + 2 * FILE_RATE * 2); fwrite("WAVE", 1, 4, f);
    fwrite("fmt ", 1, 4, f); PUT32(16); PUT16(1); PUT16(1); PUT32(FILE_RATE); PUT32(FILE_RATE * 2); PUT16(2); PUT16(16);
    fwrite("data", 1, 4, f); PUT32(2 * FILE_RATE * 2);
    for (long i = 0; i < 2 * FILE_RATE; i++) PUT16((UInt16)(SInt16)lrint(16000 * sin(2 * M_PI * 440 * i / FILE_RATE)));
#undef PUT32
#undef PUT16
    fclose(f);
}

static void live(void)
{
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription pd = {kAudioUnitType_Generator, kAudioUnitSubType_AudioFilePlayer, kAudioUnitManufacturer_Apple,
                                    0, 0};
    AUGraph g = NULL;
    AUNode out = 0, playerNode = 0, timeNode = 0;
    AudioUnit player = NULL, timePitch = NULL;
    NewAUGraph(&g);
    AUGraphAddNode(g, &rio, &out);
    AUGraphAddNode(g, &pd, &playerNode);
    AUGraphAddNode(g, &timePitchDescription, &timeNode);
    AUGraphOpen(g);
    AUGraphNodeInfo(g, playerNode, NULL, &player);
    AUGraphNodeInfo(g, timeNode, NULL, &timePitch);
    /* As such apps do: the player's output in the time unit's own format. */
    AudioStreamBasicDescription format;
    UInt32 size = sizeof format;
    CHECK_STATUS(AudioUnitGetProperty(timePitch, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &format, &size),
                 noErr);
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &format, sizeof format),
                 noErr);
    AUGraphConnectNodeInput(g, playerNode, 0, timeNode, 0);
    AUGraphConnectNodeInput(g, timeNode, 0, out, 0);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    AudioFileID file = NULL;
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file), noErr);
    CFRelease(url);
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFileIDs, kAudioUnitScope_Global, 0, &file, sizeof file),
                 noErr);
    ScheduledAudioFileRegion region;
    memset(&region, 0, sizeof region);
    region.mTimeStamp.mFlags = kAudioTimeStampSampleTimeValid;
    region.mAudioFile = file;
    region.mFramesToPlay = 2 * FILE_RATE;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFileRegion, kAudioUnitScope_Global, 0, &region,
                                      sizeof region), noErr);
    UInt32 prime = 0;
    AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFilePrime, kAudioUnitScope_Global, 0, &prime, sizeof prime);
    AudioTimeStamp start;
    memset(&start, 0, sizeof start);
    start.mFlags = kAudioTimeStampSampleTimeValid;
    start.mSampleTime = -1;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleStartTimeStamp, kAudioUnitScope_Global, 0, &start,
                                      sizeof start), noErr);
    CHECK_STATUS(AudioUnitSetParameter(timePitch, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, 2, 0), noErr);
    CHECK_STATUS(AUGraphStart(g), noErr);
    usleep(1600000);
    CHECK_STATUS(AUGraphStop(g), noErr);
    if (worldOnCard()) {
        long frames = 0;
        short *heard = worldCardRecording(&frames);
        int rate = worldCardRate();
        long first = -1, last = -1;
        for (long i = 0; heard && i < frames; i++) {
            if (abs(heard[2 * i]) > 2000) {
                if (first < 0) first = i;
                last = i;
            }
        }
        double a440 = 0, seconds = first >= 0 ? (double)(last - first) / rate : 0;
        long window = rate / 4;
        if (first >= 0 && first + rate / 8 + window < frames) {
            float *mono = calloc((size_t)window, sizeof *mono);
            for (long i = 0; i < window; i++) mono[i] = heard[2 * (first + rate / 8 + i)] / 32768.0f;
            a440 = amplitudeAt(mono, window, 440, rate);
            free(mono);
        }
        printf("measured: the card heard the two-second file at rate 2: 440 Hz %.3f, sounding %.3f s\n", a440, seconds);
        CHECK(a440 > 0.1, "the card hears the file's 440 Hz through the time unit (%.3f)", a440);
        CHECK(seconds > 0.9 && seconds < 1.1, "the two-second file sounds for one second at rate 2 (%.3f s)", seconds);
        free(heard);
    }
    DisposeAUGraph(g);
    AudioFileClose(file);
}

int main(void)
{
    installWatchdog("time pitch units");
    alarm(240);
    snprintf(path, sizeof path, "%s/timepitch-%d.wav", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    writeFile();
    discovery();
    rates();
    bypass();
    changes();
    savedState();
    badInputs();
    live();
    unlink(path);
    return worldFinish("test_time_pitch_units");
}
