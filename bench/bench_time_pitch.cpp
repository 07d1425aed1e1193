/* The time and pitch units against the libraries they are built on, driven directly
 * (make bench): 30 s of stereo noise at 44.1 kHz rendered in slices of 512 frames through
 * GenericOutput <- AUNewTimePitch (a fifth up, at speed 1) or AUiPodTimeOther (speed 1.5) <- a
 * render callback, and through a loop that resamples the same noise with libsamplerate
 * (SRC_SINC_FASTEST, by the pitch's ratio) and stretches it with SoundTouch at the tempo
 * that leaves the asked speed, as docs/API.md describes the units. Prints each one's time,
 * the loop's and their ratio (goal: at most 1.2), the fastest of 5 alternated runs. */
#include <AudioToolbox/AudioToolbox.h>
#include <SoundTouch.h>
#include <samplerate.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include "bench_common.h"

enum { RATE = 44100, SLICE = 512, SECONDS = 30, FRAMES = RATE * SECONDS, RUNS = 5 };

static unsigned seed;
static inline float noise()
{
    seed = seed * 1664525u + 1013904223u;
    return (float)((double)(seed >> 8) / (1 << 24) - 0.5);
}

static OSStatus source(void *, AudioUnitRenderActionFlags *, const AudioTimeStamp *, UInt32, UInt32 frames,
                       AudioBufferList *data)
{
    Float32 *l = (Float32 *)data->mBuffers[0].mData, *r = (Float32 *)data->mBuffers[1].mData;
    for (UInt32 i = 0; i < frames; i++) { l[i] = noise(); r[i] = noise(); }
    return noErr;
}

static Float32 left[SLICE], right[SLICE];
static volatile float sink;

static double throughUnit(OSType subtype, double rate, double cents)
{
    AudioComponentDescription gd = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription ed = {kAudioUnitType_FormatConverter, subtype, kAudioUnitManufacturer_Apple, 0, 0};
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                     4, 1, 4, 2, 32, 0};
    AUGraph g;
    AUNode out, node;
    AudioUnit generic, unit;
    NewAUGraph(&g);
    AUGraphAddNode(g, &gd, &out);
    AUGraphAddNode(g, &ed, &node);
    AUGraphOpen(g);
    AUGraphNodeInfo(g, out, NULL, &generic);
    AUGraphNodeInfo(g, node, NULL, &unit);
    AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f);
    AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &f, sizeof f);
    AURenderCallbackStruct cb = {source, NULL};
    AUGraphSetNodeInputCallback(g, node, 0, &cb);
    AUGraphConnectNodeInput(g, node, 0, out, 0);
    if (AUGraphInitialize(g) != noErr) { fprintf(stderr, "time-pitch bench: the graph does not initialize\n"); return 0; }
    AudioUnitSetParameter(unit, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, (Float32)rate, 0);
    if (cents != 0) AudioUnitSetParameter(unit, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, (Float32)cents, 0);
    seed = 1;
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        struct { UInt32 n; AudioBuffer b[2]; } list = {2, {{1, SLICE * 4, left}, {1, SLICE * 4, right}}};
        AudioUnitRenderActionFlags flags = 0;
        if (AudioUnitRender(generic, &flags, &ts, 0, SLICE, (AudioBufferList *)&list) != noErr) {
            fprintf(stderr, "time-pitch bench: a render failed\n");
            break;
        }
        ts.mSampleTime += SLICE;
        sink += left[0];
    }
    double took = nowNanoseconds() - start;
    DisposeAUGraph(g);
    return took;
}

/* The same: blocks of noise, resampled where the pitch moves, stretched, received. */
static double bare(double rate, double cents)
{
    double ratio = std::pow(2, cents / 1200);
    soundtouch::SoundTouch touch;
    touch.setSampleRate(RATE);
    touch.setChannels(2);
    touch.setSetting(SETTING_USE_QUICKSEEK, 0);
    touch.setSetting(SETTING_USE_AA_FILTER, 1);
    touch.setTempo(rate / ratio);
    int error = 0;
    SRC_STATE *src = cents != 0 ? src_new(SRC_SINC_FASTEST, 2, &error) : NULL;
    std::vector<float> in(2 * SLICE), resampled(2 * (4 * SLICE + 64)), out(2 * SLICE);
    seed = 1;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        while (touch.numSamples() < (unsigned)SLICE) {
            for (int i = 0; i < SLICE; i++) { in[2 * i] = noise(); in[2 * i + 1] = noise(); }
            if (!src) { touch.putSamples(in.data(), SLICE); continue; }
            SRC_DATA d;
            memset(&d, 0, sizeof d);
            d.data_in = in.data();
            d.input_frames = SLICE;
            d.data_out = resampled.data();
            d.output_frames = (long)resampled.size() / 2;
            d.src_ratio = 1 / ratio;
            src_process(src, &d);
            touch.putSamples(resampled.data(), (unsigned)d.output_frames_gen);
        }
        touch.receiveSamples(out.data(), SLICE);
        for (int i = 0; i < SLICE; i++) { left[i] = out[2 * i]; right[i] = out[2 * i + 1]; }
        sink += left[0];
    }
    double took = nowNanoseconds() - start;
    if (src) src_delete(src);
    return took;
}

static void compare(const char *name, OSType subtype, double rate, double cents)
{
    double unit[RUNS], loop[RUNS];
    for (int r = 0; r < RUNS; r++) {
        unit[r] = throughUnit(subtype, rate, cents);
        loop[r] = bare(rate, cents);
    }
    double u = percentile(unit, RUNS, 0), l = percentile(loop, RUNS, 0);
    printf("time and pitch: %-34s unit %7.1f ms, libraries directly %7.1f ms for %d s of stereo: ratio %.2f (goal <= 1.2)\n",
           name, u / 1e6, l / 1e6, SECONDS, u / l);
}

int main()
{
    compare("AUNewTimePitch, a fifth up", kAudioUnitSubType_NewTimePitch, 1, 700);
    compare("AUiPodTimeOther, speed 1.5", kAudioUnitSubType_AUiPodTimeOther, 1.5, 0);
    return 0;
}
