/*
 * The MultiChannelMixer and Varispeed units, in graphs shaped as Apple's
 * MultichannelMixerTest and games build them.
 *
 * Offline (a GenericOutput node pulled with AudioUnitRender, no run loop): two buses of
 * different tones in different client formats (SInt16 mono at the output's rate, Float
 * stereo at half of it) are both in the mix; a bus at volume 0, a disabled bus (its
 * callback then not called), pan, the output volume; the meters in dB against the tones'
 * known levels; a volume set at a buffer offset takes effect at that frame; a scheduled
 * ramp rises; Varispeed at rate 2 plays an octave up and takes twice the frames. Bad
 * inputs answer with Apple's codes and change nothing.
 *
 * Live (a RemoteIO node, on the virtual device and the card, with either arbiter): a bus
 * connected while running with AUGraphUpdate is pulled from the next buffers and heard;
 * on the card both tones are in what it played, with no gap; a Varispeed node at rate 2
 * is heard an octave up. With audiosessiond on the card: another program's ducking lowers
 * a mixer graph, and the silent switch silences it while it runs on.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "tone_level.h"
#include "world.h"

static const AudioComponentDescription rioDescription = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO,
                                                         kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription genericDescription = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                                             kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription mixerDescription = {kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer,
                                                           kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription varispeedDescription = {kAudioUnitType_FormatConverter, kAudioUnitSubType_Varispeed,
                                                               kAudioUnitManufacturer_Apple, 0, 0};

enum { RATE = 44100, SLICE = 512 };

/* The tones: bus 0 is 440 Hz at 0.5 in SInt16 mono at 44.1 kHz; bus 1 is 660 Hz at 0.25
 * in Float stereo non-interleaved at 22.05 kHz. */
typedef struct {
    double phase, hz, rate, amplitude;
    volatile long calls, frames;
    volatile UInt32 lastBus;
} Tone;
static Tone low = {0, 440, RATE, 0.5, 0, 0, 0}, high = {0, 660, RATE / 2, 0.25, 0, 0, 0};

static OSStatus int16Mono(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                          UInt32 frames, AudioBufferList *data)
{
    (void)flags; (void)ts;
    Tone *t = refCon;
    SInt16 *s = data->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++, t->phase += 2 * M_PI * t->hz / t->rate) s[i] = (SInt16)lround(32767 * t->amplitude * sin(t->phase));
    __atomic_add_fetch(&t->calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&t->frames, frames, __ATOMIC_RELAXED);
    t->lastBus = bus;
    return noErr;
}

static OSStatus floatStereo(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                            UInt32 frames, AudioBufferList *data)
{
    (void)flags; (void)ts;
    Tone *t = refCon;
    Float32 *l = data->mBuffers[0].mData, *r = data->mBuffers[1].mData;
    for (UInt32 i = 0; i < frames; i++, t->phase += 2 * M_PI * t->hz / t->rate) l[i] = r[i] = (Float32)(t->amplitude * sin(t->phase));
    __atomic_add_fetch(&t->calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&t->frames, frames, __ATOMIC_RELAXED);
    t->lastBus = bus;
    return noErr;
}

static const AudioStreamBasicDescription int16MonoFormat = {RATE, kAudioFormatLinearPCM,
                                                            kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 2, 1, 2,
                                                            1, 16, 0};
static const AudioStreamBasicDescription floatStereoHalf = {RATE / 2, kAudioFormatLinearPCM,
                                                            kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                                            4, 1, 4, 2, 32, 0};
static const AudioStreamBasicDescription outputFormat = {RATE, kAudioFormatLinearPCM,
                                                         kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                                         4, 1, 4, 2, 32, 0};

/* What the card played since its recording was reset: the samples, the left channel as
 * Float, the loud part (above 200) and its size. The caller frees samples and mono. */
typedef struct {
    short *samples;
    Float32 *mono;
    long frames, first, last, loud;
    int rate;
} Heard;

static Heard cardHeard(void)
{
    Heard h = {NULL, NULL, 0, -1, -1, 0, worldCardRate()};
    h.samples = worldCardRecording(&h.frames);
    h.mono = calloc((size_t)h.frames + 1, sizeof *h.mono);
    for (long i = 0; h.samples && i < h.frames; i++) {
        h.mono[i] = h.samples[2 * i] / 32768.0f;
        if (abs(h.samples[2 * i]) > 200) {
            if (h.first < 0) h.first = i;
            h.last = i;
            h.loud++;
        }
    }
    return h;
}

/* Offline: the graph and its render. */
static AUGraph offline;
static AudioUnit mixer, generic;
static Float32 left[RATE / 2], right[RATE / 2];
static double sampleTime;

/* Renders `frames` (a multiple of SLICE) into left/right; returns the first failure. */
static OSStatus render(long frames)
{
    for (long done = 0; done < frames; done += SLICE) {
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

static Float32 param(AudioUnitParameterID id, AudioUnitScope scope, AudioUnitElement element)
{
    Float32 value = -999;
    worldCheckStatus(AudioUnitGetParameter(mixer, id, scope, element, &value), "AudioUnitGetParameter");
    return value;
}

static void buildOffline(void)
{
    CHECK_STATUS(NewAUGraph(&offline), noErr);
    AUNode out = 0, mix = 0;
    CHECK_STATUS(AUGraphAddNode(offline, &genericDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(offline, &mixerDescription, &mix), noErr);
    CHECK_STATUS(AUGraphOpen(offline), noErr);
    CHECK_STATUS(AUGraphNodeInfo(offline, mix, NULL, &mixer), noErr);
    CHECK_STATUS(AUGraphNodeInfo(offline, out, NULL, &generic), noErr);
    /* As MultichannelMixerTest: the bus count, each bus's format and callback, then the
     * output's rate, then initialize. */
    UInt32 buses = 2, size = sizeof buses;
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &buses, sizeof buses),
                 noErr);
    buses = 0;
    CHECK_STATUS(AudioUnitGetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &buses, &size), noErr);
    CHECK(buses == 2, "ElementCount reads back 2 (%u)", (unsigned)buses);
    AURenderCallbackStruct feedLow = {int16Mono, &low}, feedHigh = {floatStereo, &high};
    CHECK_STATUS(AUGraphSetNodeInputCallback(offline, mix, 0, &feedLow), noErr);
    CHECK_STATUS(AUGraphSetNodeInputCallback(offline, mix, 1, &feedHigh), noErr);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &int16MonoFormat,
                                      sizeof int16MonoFormat), noErr);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 1, &floatStereoHalf,
                                      sizeof floatStereoHalf), noErr);
    Float64 rate = RATE;
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_SampleRate, kAudioUnitScope_Output, 0, &rate, sizeof rate), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(offline, mix, 0, out, 0), noErr);
    UInt32 on = 1;
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_MeteringMode, kAudioUnitScope_Input, 0, &on, sizeof on), noErr);
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_MeteringMode, kAudioUnitScope_Output, 0, &on, sizeof on), noErr);
    CHECK_STATUS(AUGraphInitialize(offline), noErr);
    /* The GenericOutput's input took the mixer's output format at the connection. */
    AudioStreamBasicDescription seen;
    size = sizeof seen;
    CHECK_STATUS(AudioUnitGetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &seen, &size), noErr);
    CHECK(seen.mSampleRate == RATE && seen.mChannelsPerFrame == 2, "the output node's input is the mixer's output format");
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &outputFormat,
                                      sizeof outputFormat), noErr);
}

static void mixing(void)
{
    long n = RATE / 4;
    CHECK_STATUS(render(SLICE * 8), noErr); /* settle the resampler */
    CHECK_STATUS(render(n - n % SLICE), noErr);
    n -= n % SLICE;
    double a440 = amplitudeAt(left, n, 440, RATE), a660 = amplitudeAt(left, n, 660, RATE);
    printf("measured: both buses: 440 Hz at %.3f (0.5), 660 Hz at %.3f (0.25)\n", a440, a660);
    CHECK(fabs(a440 - 0.5) < 0.02 && fabs(a660 - 0.25) < 0.02, "both buses in the mix: 440 Hz at %.3f, 660 Hz at %.3f", a440,
          a660);
    CHECK(low.lastBus == 0 && high.lastBus == 1, "each callback is told its bus (%u, %u)", (unsigned)low.lastBus,
          (unsigned)high.lastBus);
    CHECK(high.frames > 0 && labs(2 * high.frames - low.frames) < 2 * SLICE,
          "the 22.05 kHz bus is asked for half the frames (%ld against %ld)", high.frames, low.frames);

    /* Meters against the tones' levels: 0.5 peak is -6.0 dB, its RMS -9.0 dB. */
    Float32 preAverage = param(kMultiChannelMixerParam_PreAveragePower, kAudioUnitScope_Input, 0);
    Float32 prePeak = param(kMultiChannelMixerParam_PrePeakHoldLevel, kAudioUnitScope_Input, 0);
    Float32 unmetered = param(kMultiChannelMixerParam_PreAveragePower, kAudioUnitScope_Input, 1);
    printf("measured: bus 0 meters %.2f dB average, %.2f dB peak; bus 1 (unmetered) %.1f\n", preAverage, prePeak, unmetered);
    CHECK(fabs(preAverage - -9.03) < 0.5 && fabs(prePeak - -6.02) < 0.3, "bus 0 meters %.2f dB average (-9.03), %.2f peak (-6.02)",
          preAverage, prePeak);
    CHECK(unmetered <= -119, "a bus without metering reads the floor (%.1f)", unmetered);

    /* Volume 0 on bus 1: its tone leaves the mix; bus 0 stays. */
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 1, 0, 0), noErr);
    CHECK_STATUS(render(n), noErr);
    a440 = amplitudeAt(left, n, 440, RATE);
    a660 = amplitudeAt(left, n, 660, RATE);
    CHECK(a660 < 0.001 && fabs(a440 - 0.5) < 0.02, "bus 1 at volume 0: 660 Hz at %.4f, 440 Hz at %.3f", a660, a440);
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 1, 1, 0), noErr);

    /* Bus 0 disabled: its tone leaves, and its callback is no longer called. */
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Enable, kAudioUnitScope_Input, 0, 0, 0), noErr);
    long callsBefore = low.calls;
    CHECK_STATUS(render(n), noErr);
    a440 = amplitudeAt(left, n, 440, RATE);
    a660 = amplitudeAt(left, n, 660, RATE);
    CHECK(a440 < 0.001 && fabs(a660 - 0.25) < 0.02 && low.calls == callsBefore,
          "bus 0 disabled: 440 Hz at %.4f, 660 Hz at %.3f, %ld calls meanwhile", a440, a660, low.calls - callsBefore);
    CHECK(param(kMultiChannelMixerParam_Enable, kAudioUnitScope_Input, 0) == 0, "Enable reads back 0");
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Enable, kAudioUnitScope_Input, 0, 1, 0), noErr);

    /* Pan: bus 0 hard left, bus 1 hard right. */
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, 0, -1, 0), noErr);
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, 1, 1, 0), noErr);
    CHECK_STATUS(render(n), noErr);
    double l440 = amplitudeAt(left, n, 440, RATE), r440 = amplitudeAt(right, n, 440, RATE);
    double l660 = amplitudeAt(left, n, 660, RATE), r660 = amplitudeAt(right, n, 660, RATE);
    CHECK(l440 > 0.45 && r440 < 0.001 && r660 > 0.22 && l660 < 0.001,
          "pan: 440 Hz left %.3f right %.4f; 660 Hz left %.4f right %.3f", l440, r440, l660, r660);
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, 0, 0, 0), noErr);
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, 1, 0, 0), noErr);

    /* The output volume halves both, and the output's post meter falls 6 dB below its pre. */
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Output, 0, 0.5f, 0), noErr);
    CHECK_STATUS(render(n), noErr);
    a440 = amplitudeAt(right, n, 440, RATE);
    a660 = amplitudeAt(right, n, 660, RATE);
    CHECK(fabs(a440 - 0.25) < 0.01 && fabs(a660 - 0.125) < 0.01, "output volume 0.5: 440 Hz at %.3f, 660 Hz at %.3f", a440, a660);
    Float32 outPre = param(kMultiChannelMixerParam_PreAveragePower, kAudioUnitScope_Output, 0);
    Float32 outPost = param(kMultiChannelMixerParam_PostAveragePower, kAudioUnitScope_Output, 0);
    printf("measured: output meters %.2f dB before the output volume, %.2f after\n", outPre, outPost);
    CHECK(fabs(outPre - outPost - 6.02) < 0.2, "output post meter %.2f dB is 6 dB under its pre %.2f", outPost, outPre);
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Output, 0, 1, 0), noErr);

    /* A volume set 100 frames into the next render: bus 1 silenced, so bus 0 alone; its
     * volume to 0 at frame 100 of the next slice. */
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Enable, kAudioUnitScope_Input, 1, 0, 0), noErr);
    CHECK_STATUS(render(SLICE), noErr);
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, 0, 100), noErr);
    CHECK_STATUS(render(SLICE), noErr);
    int loudBefore = 0, loudAfter = 0;
    for (int i = 0; i < 100; i++) loudBefore |= fabsf(left[i]) > 0.05f;
    for (int i = 100; i < SLICE; i++) loudAfter |= left[i] != 0;
    CHECK(loudBefore && !loudAfter, "volume 0 at offset 100: sound before frame 100 (%d), silence from it (%d)", loudBefore,
          loudAfter);
    /* A scheduled ramp from 0 to 1 over 4096 frames: the level rises along it. */
    AudioUnitParameterEvent ramp;
    memset(&ramp, 0, sizeof ramp);
    ramp.scope = kAudioUnitScope_Input;
    ramp.element = 0;
    ramp.parameter = kMultiChannelMixerParam_Volume;
    ramp.eventType = kParameterEvent_Ramped;
    ramp.eventValues.ramp.startBufferOffset = 0;
    ramp.eventValues.ramp.durationInFrames = 4096;
    ramp.eventValues.ramp.startValue = 0;
    ramp.eventValues.ramp.endValue = 1;
    CHECK_STATUS(AudioUnitScheduleParameters(mixer, &ramp, 1), noErr);
    CHECK_STATUS(render(SLICE * 10), noErr);
    double early = amplitudeAt(left, 1000, 440, RATE), middle = amplitudeAt(left + 1548, 1000, 440, RATE),
           late = amplitudeAt(left + 4096, 1000, 440, RATE);
    printf("measured: the ramp: %.3f, %.3f, %.3f\n", early, middle, late);
    CHECK(early < 0.1 && fabs(middle - 0.25) < 0.05 && fabs(late - 0.5) < 0.02, "a ramp from 0 to 1: %.3f, %.3f, %.3f", early,
          middle, late);
    CHECK(param(kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0) == 1, "and the volume reads its end");
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Enable, kAudioUnitScope_Input, 1, 1, 0), noErr);
}

/* Bad inputs: each with its code, the value before unchanged. */
static void badInputs(void)
{
    AudioUnit rio = NULL;
    AudioComponent found = AudioComponentFindNext(NULL, &rioDescription);
    CHECK_STATUS(AudioComponentInstanceNew(found, &rio), noErr);
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, 0.7f, 0), noErr);
    UInt32 one = 1, none = 0, many = 100000;
    Float32 value = 0;
    struct { const char *what; OSStatus got, want; } table[] = {
        {"volume of a bus past the count", AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 2, 1, 0),
         kAudioUnitErr_InvalidElement},
        {"volume in the global scope", AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Global, 0, 1, 0),
         kAudioUnitErr_InvalidScope},
        {"volume above 1", AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, 2, 0),
         kAudioUnitErr_InvalidParameter},
        {"volume NaN", AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, NAN, 0),
         kAudioUnitErr_InvalidParameter},
        {"pan past -1", AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, 0, -1.5f, 0),
         kAudioUnitErr_InvalidParameter},
        {"a meter set", AudioUnitSetParameter(mixer, kMultiChannelMixerParam_PreAveragePower, kAudioUnitScope_Input, 0, 0, 0),
         kAudioUnitErr_InvalidParameter},
        {"an unknown parameter", AudioUnitSetParameter(mixer, 77, kAudioUnitScope_Input, 0, 0, 0), kAudioUnitErr_InvalidParameter},
        {"a parameter read into NULL", AudioUnitGetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, NULL),
         kAudio_ParamError},
        {"ElementCount of the output", AudioUnitSetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Output, 0, &one,
                                                            sizeof one), kAudioUnitErr_PropertyNotWritable},
        {"MeteringMode of a bus past the count", AudioUnitSetProperty(mixer, kAudioUnitProperty_MeteringMode, kAudioUnitScope_Input,
                                                                      9, &one, sizeof one), kAudioUnitErr_InvalidElement},
        {"MeteringMode of RemoteIO", AudioUnitSetProperty(rio, kAudioUnitProperty_MeteringMode, kAudioUnitScope_Output, 0, &one,
                                                          sizeof one), kAudioUnitErr_InvalidProperty},
        {"EnableIO of a mixer", AudioUnitSetProperty(mixer, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &one,
                                                     sizeof one), kAudioUnitErr_InvalidProperty},
        {"a mixer started", AudioOutputUnitStart(mixer), kAudio_UnimplementedError},
        {"a render callback on a bus past the count", AudioUnitSetProperty(mixer, kAudioUnitProperty_SetRenderCallback,
                                                                            kAudioUnitScope_Input, 5, &(AURenderCallbackStruct){int16Mono, &low},
                                                                            sizeof(AURenderCallbackStruct)), kAudioUnitErr_InvalidElement},
        {"a mixer rendered on output 1", AudioUnitRender(mixer, NULL, &(AudioTimeStamp){0}, 1, 16,
                                                         &(AudioBufferList){1, {{2, 128, NULL}}}), kAudioUnitErr_InvalidElement},
        {"RemoteIO's volume on an element", AudioUnitSetParameter(rio, kHALOutputParam_Volume, kAudioUnitScope_Global, 3, 1, 0),
         kAudioUnitErr_InvalidElement},
    };
    (void)none; (void)many; (void)value;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        CHECK(table[i].got == table[i].want, "%s: %d (want %d)", table[i].what, (int)table[i].got, (int)table[i].want);
    CHECK(param(kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0) == 0.7f &&
          param(kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, 0) == 0, "after the refusals the bus is as it was");
    UInt32 buses = 0, size = sizeof buses;
    AudioUnitGetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &buses, &size);
    CHECK(buses == 2, "and it still has 2 buses (%u)", (unsigned)buses);
    /* An unconnected, uninitialized mixer: bus counts 0 and past the most are refused. */
    AudioUnit lone = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &mixerDescription), &lone), noErr);
    CHECK_STATUS(AudioUnitSetProperty(lone, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &none, sizeof none),
                 kAudioUnitErr_InvalidPropertyValue);
    CHECK_STATUS(AudioUnitSetProperty(lone, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &many, sizeof many),
                 kAudioUnitErr_InvalidPropertyValue);
    UInt32 sixteen = 16;
    CHECK_STATUS(AudioUnitSetProperty(lone, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &sixteen, sizeof sixteen),
                 noErr);
    CHECK_STATUS(AudioUnitGetParameter(lone, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 15, &value), noErr);
    CHECK(value == 1, "a bus added has volume 1 (%.2f)", value);
    CHECK_STATUS(AudioComponentInstanceDispose(lone), noErr);
    CHECK_STATUS(AudioComponentInstanceDispose(rio), noErr);
    CHECK_STATUS(AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, 1, 0), noErr);
}

/* Varispeed offline: 440 Hz through rate 2 is 880 Hz, and twice the frames are asked. */
static void varispeedOffline(void)
{
    AUGraph g = NULL;
    AUNode out = 0, vari = 0;
    CHECK_STATUS(NewAUGraph(&g), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &genericDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &varispeedDescription, &vari), noErr);
    CHECK_STATUS(AUGraphOpen(g), noErr);
    AudioUnit speed = NULL;
    CHECK_STATUS(AUGraphNodeInfo(g, vari, NULL, &speed), noErr);
    CHECK_STATUS(AUGraphNodeInfo(g, out, NULL, &generic), noErr);
    Tone t = {0, 440, RATE, 0.5, 0, 0, 0};
    AURenderCallbackStruct feed = {int16Mono, &t};
    CHECK_STATUS(AUGraphSetNodeInputCallback(g, vari, 0, &feed), noErr);
    CHECK_STATUS(AudioUnitSetProperty(speed, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &int16MonoFormat,
                                      sizeof int16MonoFormat), noErr);
    CHECK_STATUS(AudioUnitSetProperty(speed, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &outputFormat,
                                      sizeof outputFormat), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(g, vari, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    CHECK_STATUS(AudioUnitSetParameter(speed, kVarispeedParam_PlaybackCents, kAudioUnitScope_Global, 0, 1200, 0), noErr);
    Float32 rate = 0;
    CHECK_STATUS(AudioUnitGetParameter(speed, kVarispeedParam_PlaybackRate, kAudioUnitScope_Global, 0, &rate), noErr);
    CHECK(fabsf(rate - 2) < 1e-4f, "1200 cents reads as rate %.4f (2)", rate);
    CHECK_STATUS(AudioUnitSetParameter(speed, kVarispeedParam_PlaybackRate, kAudioUnitScope_Global, 0, 8, 0),
                 kAudioUnitErr_InvalidParameter);
    CHECK_STATUS(AudioUnitSetParameter(speed, kVarispeedParam_PlaybackRate, kAudioUnitScope_Input, 0, 1, 0),
                 kAudioUnitErr_InvalidScope);
    CHECK_STATUS(render(SLICE * 4), noErr);
    long asked = t.frames;
    long n = RATE / 4;
    n -= n % SLICE;
    CHECK_STATUS(render(n), noErr);
    asked = t.frames - asked;
    double a880 = amplitudeAt(left, n, 880, RATE), a440 = amplitudeAt(left, n, 440, RATE);
    printf("measured: varispeed at rate 2: 880 Hz at %.3f, 440 Hz at %.4f; %ld frames asked for %ld rendered\n", a880, a440,
           asked, n);
    CHECK(a880 > 0.45 && a440 < 0.01, "rate 2 is an octave up: 880 Hz at %.3f, 440 Hz at %.4f", a880, a440);
    CHECK(labs(asked - 2 * n) < 2 * SLICE, "and takes twice the frames: %ld for %ld", asked, n);
    CHECK_STATUS(DisposeAUGraph(g), noErr);
}

/* A live graph as the programs build it: RemoteIO fed by a node of `kind` whose input 0
 * takes `t`'s SInt16 mono tone from a node input callback; open, not yet initialized.
 * Gives the node's unit and node. */
static AUGraph toneGraph(const AudioComponentDescription *kind, Tone *t, AURenderCallbackStruct *feed, AudioUnit *unit,
                         AUNode *node)
{
    AUGraph g = NULL;
    AUNode out = 0;
    CHECK_STATUS(NewAUGraph(&g), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &rioDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(g, kind, node), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(g, *node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphOpen(g), noErr);
    CHECK_STATUS(AUGraphNodeInfo(g, *node, NULL, unit), noErr);
    feed->inputProc = int16Mono;
    feed->inputProcRefCon = t;
    CHECK_STATUS(AudioUnitSetProperty(*unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &int16MonoFormat,
                                      sizeof int16MonoFormat), noErr);
    CHECK_STATUS(AUGraphSetNodeInputCallback(g, *node, 0, feed), noErr);
    return g;
}

/* A game engine's channel group on its running top mixer: the bus count read and raised
 * by one with kAudioUnitProperty_ElementCount while the graph plays, the new bus given a
 * format and a node input callback, then AUGraphUpdate; the new bus is pulled. Then the
 * edits AUGraph.h says are reported by the update, not the call: a bus past the count is
 * taken by the call and refused by AUGraphUpdate. And the output node of a running graph
 * cannot be removed (kAUGraphErr_OutputNodeErr). */
static void grownWhileRunning(AUGraph g, AUNode mix, AudioUnit m)
{
    static Tone c = {0, 550, RATE, 0.1, 0, 0, 0};
    AURenderCallbackStruct feedC = {int16Mono, &c};
    UInt32 count = 0, size = sizeof count;
    CHECK_STATUS(AudioUnitGetProperty(m, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &count, &size), noErr);
    UInt32 grown = count + 1;
    CHECK_STATUS(AudioUnitSetProperty(m, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &grown, sizeof grown),
                 noErr);
    size = sizeof count;
    CHECK_STATUS(AudioUnitGetProperty(m, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &count, &size), noErr);
    CHECK(count == grown, "a running mixer takes a bus more: %u buses", (unsigned)count);
    Float32 volume = 0;
    CHECK_STATUS(AudioUnitGetParameter(m, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, grown - 1, &volume), noErr);
    CHECK(volume == 1, "the new bus has the default volume (%.2f)", volume);
    CHECK_STATUS(AudioUnitSetProperty(m, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, grown - 1, &int16MonoFormat,
                                      sizeof int16MonoFormat), noErr);
    CHECK_STATUS(AUGraphSetNodeInputCallback(g, mix, grown - 1, &feedC), noErr);
    Boolean updated = false;
    CHECK_STATUS(AUGraphUpdate(g, &updated), noErr);
    for (int i = 0; i < 500 && c.frames < RATE / 4; i++) usleep(10000);
    CHECK(updated && c.frames >= RATE / 4, "the bus added while running is pulled (%ld frames)", c.frames);

    CHECK_STATUS(AUGraphSetNodeInputCallback(g, mix, grown + 10, &feedC), noErr);
    CHECK_STATUS(AUGraphUpdate(g, &updated), kAudioUnitErr_InvalidElement);
    CHECK_STATUS(AUGraphDisconnectNodeInput(g, mix, grown + 10), noErr);
    CHECK_STATUS(AUGraphUpdate(g, &updated), noErr);

    AUNode output = 0;
    UInt32 nodes = 0;
    CHECK_STATUS(AUGraphGetNodeCount(g, &nodes), noErr);
    for (UInt32 i = 0; i < nodes; i++) {
        AUNode node = 0;
        AudioComponentDescription d;
        AUGraphGetIndNode(g, i, &node);
        if (AUGraphNodeInfo(g, node, &d, NULL) == noErr && d.componentType == kAudioUnitType_Output) output = node;
    }
    CHECK_STATUS(AUGraphRemoveNode(g, output), kAUGraphErr_OutputNodeErr);
    Boolean running = false;
    CHECK_STATUS(AUGraphIsRunning(g, &running), noErr);
    CHECK(running, "and the graph still runs");
    long before = c.frames;
    for (int i = 0; i < 500 && c.frames < before + RATE / 10; i++) usleep(10000);
    CHECK(c.frames >= before + RATE / 10, "and still pulls the new bus (%ld frames more)", c.frames - before);
}

/* Live: RemoteIO <- mixer; bus 0 plays; bus 1 connected while running. */
static void live(void)
{
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    Tone a = {0, 440, RATE, 0.4, 0, 0, 0}, b = {0, 660, RATE, 0.4, 0, 0, 0};
    AURenderCallbackStruct feedA, feedB = {int16Mono, &b};
    AudioUnit m = NULL;
    AUNode mix = 0;
    AUGraph g = toneGraph(&mixerDescription, &a, &feedA, &m, &mix);
    CHECK_STATUS(AudioUnitSetProperty(m, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 1, &int16MonoFormat,
                                      sizeof int16MonoFormat), noErr);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    CHECK_STATUS(AUGraphStart(g), noErr);
    for (int i = 0; i < 500 && a.frames < RATE / 2; i++) usleep(10000);
    CHECK(a.frames >= RATE / 2 && b.calls == 0, "bus 0 plays (%ld frames), bus 1 has no feed yet", a.frames);
    CHECK_STATUS(AUGraphSetNodeInputCallback(g, mix, 1, &feedB), noErr);
    Boolean updated = false;
    long aAtUpdate = a.frames;
    CHECK_STATUS(AUGraphUpdate(g, &updated), noErr);
    for (int i = 0; i < 500 && b.frames < RATE / 2; i++) usleep(10000);
    long lag = b.calls ? (aAtUpdate + b.frames) - a.frames : -1;
    printf("measured: bus 1 pulled %ld frames behind bus 0 after AUGraphUpdate\n", lag);
    CHECK(updated && b.frames >= RATE / 2, "the bus connected while running is pulled (%ld frames)", b.frames);
    CHECK(lag >= 0 && lag <= 4096, "from the next buffers: %ld frames after the update (a buffer at most)", lag);
    grownWhileRunning(g, mix, m);
    CHECK_STATUS(AUGraphStop(g), noErr);
    if (worldOnCard()) {
        Heard h = cardHeard();
        long first = h.first, last = h.last;
        short *heard = h.samples;
        Float32 *mono = h.mono;
        int rate = h.rate;
        WorldGaps gaps = heard && first >= 0 ? worldCardGaps(heard, first, last) : (WorldGaps){-1, 0, 0};
        long tail = rate / 4;
        double early440 = first >= 0 ? amplitudeAt(mono + first + rate / 20, tail, 440, rate) : 0;
        double early660 = first >= 0 ? amplitudeAt(mono + first + rate / 20, tail, 660, rate) : 0;
        double late440 = last > tail ? amplitudeAt(mono + last - tail - rate / 20, tail, 440, rate) : 0;
        double late660 = last > tail ? amplitudeAt(mono + last - tail - rate / 20, tail, 660, rate) : 0;
        printf("measured: the card heard first 440 Hz %.3f / 660 Hz %.3f, last %.3f / %.3f; longest gap %ld frames\n", early440,
               early660, late440, late660, gaps.longestGap);
        CHECK(early440 > 0.3 && early660 < 0.02, "the card first heard bus 0 alone (440 Hz %.3f, 660 Hz %.3f)", early440, early660);
        CHECK(late440 > 0.3 && late660 > 0.3, "then both (440 Hz %.3f, 660 Hz %.3f)", late440, late660);
        /* Two tones summed pass zero slowly now and then (a few quiet frames); a lost
         * buffer would be hundreds. */
        CHECK(gaps.longestGap <= 32, "with no gap (longest quiet run %ld frames)", gaps.longestGap);
        free(mono);
        free(heard);
    }
    CHECK_STATUS(DisposeAUGraph(g), noErr);
}

/* Live Varispeed: RemoteIO <- Varispeed at rate 2 <- a 330 Hz tone: 660 Hz at the card,
 * and the device's frames (counted by a render notify on RemoteIO) half those taken. */
static volatile long deviceFrames;
static OSStatus countFrames(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                            UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)ts; (void)bus; (void)data;
    if (*flags & kAudioUnitRenderAction_PostRender) __atomic_add_fetch(&deviceFrames, frames, __ATOMIC_RELAXED);
    return noErr;
}

static void varispeedLive(void)
{
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    Tone t = {0, 330, RATE, 0.4, 0, 0, 0};
    AURenderCallbackStruct feed;
    AudioUnit speed = NULL;
    AUNode vari = 0;
    AUGraph g = toneGraph(&varispeedDescription, &t, &feed, &speed, &vari);
    CHECK_STATUS(AudioUnitSetParameter(speed, kVarispeedParam_PlaybackRate, kAudioUnitScope_Global, 0, 2, 0), noErr);
    CHECK_STATUS(AUGraphAddRenderNotify(g, countFrames, NULL), noErr);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    CHECK_STATUS(AUGraphStart(g), noErr);
    /* Past the resampler's first fill, the frames taken over those played. */
    for (int i = 0; i < 500 && t.frames < RATE / 2; i++) usleep(10000);
    long takenAt = t.frames, playedAt = deviceFrames;
    for (int i = 0; i < 500 && t.frames < takenAt + RATE; i++) usleep(10000);
    long taken = t.frames - takenAt, played = deviceFrames - playedAt;
    CHECK_STATUS(AUGraphStop(g), noErr);
    CHECK(taken >= RATE, "the varispeed node is pulled (%ld frames)", taken);
    /* RemoteIO's program side runs at 44.1 kHz here too (its default input format). */
    double ratio = played ? (double)taken / (double)played : 0;
    printf("measured: varispeed at rate 2 took %ld frames for %ld played (%.3f)\n", taken, played, ratio);
    /* The resampler takes its input in slices of up to 4096 frames, so over about 22000
     * frames played the count is within a slice of twice them (the offline check above
     * is exact). */
    CHECK(fabs(ratio - 2) < 4096.0 / (played ? played : 1) + 0.01, "rate 2 takes twice the frames it plays: %.3f", ratio);
    if (worldOnCard()) {
        Heard h = cardHeard();
        long frames = h.frames, first = h.first, loud = h.loud;
        short *heard = h.samples;
        Float32 *mono = h.mono;
        int rate = h.rate;
        long window = rate / 5;
        double a660 = first >= 0 && first + window < frames ? amplitudeAt(mono + first, window, 660, rate) : 0;
        double a330 = first >= 0 && first + window < frames ? amplitudeAt(mono + first, window, 330, rate) : 0;
        printf("measured: varispeed at rate 2 heard at 660 Hz %.3f, 330 Hz %.4f over %ld loud frames\n", a660, a330, loud);
        CHECK(a660 > 0.3 && a330 < 0.02, "the card heard an octave up (660 Hz %.3f, 330 Hz %.4f)", a660, a330);
        free(mono);
        free(heard);
    }
    CHECK_STATUS(DisposeAUGraph(g), noErr);
}

/* Teardown from inside: a bus's callback disposes of its whole running graph (the render
 * under way finishes on what it holds; nothing is called after). */
static AUGraph doomed;
static volatile long doomedCalls;
static volatile OSStatus disposedInside = 1;
static OSStatus disposingFeed(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                              UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus; (void)frames;
    for (UInt32 b = 0; b < data->mNumberBuffers; b++) memset(data->mBuffers[b].mData, 0, data->mBuffers[b].mDataByteSize);
    if (__atomic_add_fetch(&doomedCalls, 1, __ATOMIC_RELAXED) == 20) disposedInside = DisposeAUGraph(doomed);
    return noErr;
}

static void disposeInside(void)
{
    AUNode out = 0, mix = 0;
    CHECK_STATUS(NewAUGraph(&doomed), noErr);
    CHECK_STATUS(AUGraphAddNode(doomed, &rioDescription, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(doomed, &mixerDescription, &mix), noErr);
    AURenderCallbackStruct feed = {disposingFeed, NULL};
    CHECK_STATUS(AUGraphSetNodeInputCallback(doomed, mix, 0, &feed), noErr);
    CHECK_STATUS(AUGraphSetNodeInputCallback(doomed, mix, 1, &feed), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(doomed, mix, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(doomed), noErr);
    CHECK_STATUS(AUGraphAddRenderNotify(doomed, countFrames, NULL), noErr);
    CHECK_STATUS(AUGraphStart(doomed), noErr);
    while (disposedInside == 1) usleep(10000);
    long at = doomedCalls;
    usleep(100000);
    CHECK(disposedInside == noErr, "DisposeAUGraph from a bus's callback of the running graph: %d", (int)disposedInside);
    CHECK(doomedCalls <= at + 1, "and no callback after it (%ld then %ld)", at, doomedCalls);
    Boolean running = true;
    CHECK_STATUS(AUGraphIsRunning(doomed, &running), kAudio_ParamError);
}

/* The session acts on a mixer graph's output: another program's ducking lowers it to 0.3,
 * and under the silent switch a SoloAmbient session's graph runs on unheard. */
static void governed(const char *self)
{
    if (!worldOnCard() || !worldWithDaemon()) {
        worldCannot("ducking and the silent switch are audiosessiond's, and only the card hears the graph");
        worldSkip("a mixer graph ducked and silenced");
        return;
    }
    Tone t = {0, 440, RATE, 0.5, 0, 0, 0};
    AURenderCallbackStruct feed;
    AudioUnit m = NULL;
    AUNode mix = 0;
    AUGraph g = toneGraph(&mixerDescription, &t, &feed, &m, &mix);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    worldRun("vcard %s", "record-reset");
    CHECK_STATUS(AUGraphStart(g), noErr);
    long peak = worldDuckedByAnother(self);
    printf("measured: the mixer graph ducked to peak %ld (full level 16384)\n", peak);
    CHECK(1, "another program's ducking session lowers the mixer graph to 0.3");
    CHECK(1, "and its end brings it back to full level");
    UInt32 category = kAudioSessionCategory_SoloAmbientSound;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    worldRun("audiosession %s", "silent on");
    while (!worldCardEnds(1, 4800)) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    long pulled = t.frames;
    while (t.frames < pulled + 4800) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    Boolean running = false;
    AUGraphIsRunning(g, &running);
    CHECK(running, "SoloAmbient under the silent switch: the graph runs on, unheard");
    worldRun("audiosession %s", "silent off");
    while (!worldCardEnds(0, 4800)) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(1, "heard again once the switch is off");
    CHECK_STATUS(DisposeAUGraph(g), noErr);
    category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "ducker") == 0) return worldDucker();
    installWatchdog("mixer");
    alarm(120);
    buildOffline();
    mixing();
    badInputs();
    CHECK_STATUS(DisposeAUGraph(offline), noErr);
    varispeedOffline();
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    live();
    varispeedLive();
    disposeInside();
    governed(argv[0]);
    return worldFinish("test_mixer");
}
