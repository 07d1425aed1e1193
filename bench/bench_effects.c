/* The effects against the same algorithms as bare C loops (make bench): 30 s of stereo
 * noise at 44.1 kHz in slices of 512 frames, through GenericOutput <- effect <- a render
 * callback, and through a loop over the same samples doing the same arithmetic (the
 * designs docs/API.md gives). Each prints the unit's time, the loop's and their ratio
 * (goal: at most 1.2); medians of 5 alternated runs. */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "bench_common.h"

enum { RATE = 44100, SLICE = 512, SECONDS = 30, FRAMES = RATE * SECONDS, RUNS = 5 };

static unsigned seed;
static inline float noise(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (float)((double)(seed >> 8) / (1 << 24) - 0.5);
}

static OSStatus source(void *ref, AudioUnitRenderActionFlags *f, const AudioTimeStamp *t, UInt32 bus, UInt32 frames,
                       AudioBufferList *data)
{
    (void)ref; (void)f; (void)t; (void)bus;
    Float32 *l = data->mBuffers[0].mData, *r = data->mBuffers[1].mData;
    for (UInt32 i = 0; i < frames; i++) { l[i] = noise(); r[i] = noise(); }
    return noErr;
}

static Float32 left[SLICE], right[SLICE];
static volatile float sink;

/* ---- the unit ---- */

static double throughUnit(OSType subtype, const AudioUnitParameterID *ids, const Float32 *values, int count)
{
    AudioComponentDescription gd = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription ed = {kAudioUnitType_Effect, subtype, kAudioUnitManufacturer_Apple, 0, 0};
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                     4, 1, 4, 2, 32, 0};
    AUGraph g;
    AUNode out, node;
    AudioUnit generic, effect;
    NewAUGraph(&g);
    AUGraphAddNode(g, &gd, &out);
    AUGraphAddNode(g, &ed, &node);
    AUGraphOpen(g);
    AUGraphNodeInfo(g, out, NULL, &generic);
    AUGraphNodeInfo(g, node, NULL, &effect);
    AudioUnitSetProperty(effect, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f);
    AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &f, sizeof f);
    AURenderCallbackStruct cb = {source, NULL};
    AUGraphSetNodeInputCallback(g, node, 0, &cb);
    AUGraphConnectNodeInput(g, node, 0, out, 0);
    AUGraphInitialize(g);
    for (int i = 0; i < count; i++) AudioUnitSetParameter(effect, ids[i], kAudioUnitScope_Global, 0, values[i], 0);
    seed = 1;
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        struct { UInt32 n; AudioBuffer b[2]; } list = {2, {{1, SLICE * 4, left}, {1, SLICE * 4, right}}};
        AudioUnitRenderActionFlags flags = 0;
        AudioUnitRender(generic, &flags, &ts, 0, SLICE, (AudioBufferList *)&list);
        ts.mSampleTime += SLICE;
        sink += left[0];
    }
    double took = nowNanoseconds() - start;
    DisposeAUGraph(g);
    return took;
}

/* ---- the same algorithms as bare loops ---- */

static void fill(void) { for (int i = 0; i < SLICE; i++) { left[i] = noise(); right[i] = noise(); } }

/* A resonant low-pass section, transposed direct form, in double. */
static double bareLowPass(void)
{
    double w0 = 2 * M_PI * 2000 / RATE, q = pow(10, 3.0 / 20), c = cos(w0), alpha = sin(w0) / (2 * q), a0 = 1 + alpha;
    double b0 = (1 - c) / 2 / a0, b1 = (1 - c) / a0, b2 = (1 - c) / 2 / a0, a1 = -2 * c / a0, a2 = (1 - alpha) / a0;
    double z[4] = {0};
    seed = 1;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        fill();
        Float32 *ch[2] = {left, right};
        for (int k = 0; k < 2; k++) {
            double z1 = z[2 * k], z2 = z[2 * k + 1];
            for (int i = 0; i < SLICE; i++) {
                double x = ch[k][i], y = b0 * x + z1;
                z1 = b1 * x - a1 * y + z2;
                z2 = b2 * x - a2 * y;
                ch[k][i] = (Float32)y;
            }
            z[2 * k] = z1;
            z[2 * k + 1] = z2;
        }
        sink += left[0];
    }
    return nowNanoseconds() - start;
}

/* A delay line with linear interpolation, a one-pole low-pass and feedback. */
static double bareDelay(void)
{
    enum { LENGTH = 2 * RATE + 4 };
    static float lines[2][LENGTH];
    memset(lines, 0, sizeof lines);
    float low[2] = {0, 0};
    double delay = 0.25 * RATE;
    int whole = (int)delay, at = 0;
    float fraction = (float)(delay - whole), feedback = 0.5f, k = (float)(1 - exp(-2 * M_PI * 15000.0 / RATE));
    float dry = (float)cos(M_PI / 4), wet = (float)sin(M_PI / 4);
    seed = 1;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        fill();
        Float32 *ch[2] = {left, right};
        int begin = at;
        for (int c = 0; c < 2; c++) {
            float *line = lines[c], lp = low[c];
            at = begin;
            for (int i = 0; i < SLICE; i++) {
                int older = at - whole - 1, newer = at - whole;
                if (older < 0) older += LENGTH;
                if (newer < 0) newer += LENGTH;
                float back = line[newer] + (line[older] - line[newer]) * fraction;
                lp += (back - lp) * k;
                float x = ch[c][i];
                line[at] = x + feedback * lp;
                ch[c][i] = dry * x + wet * lp;
                if (++at == LENGTH) at = 0;
            }
            low[c] = lp;
        }
        sink += left[0];
    }
    return nowNanoseconds() - start;
}

/* The compressor: a peak envelope, the level in dB, the curve, a gain a frame. */
static double bareDynamics(void)
{
    double t = -20, h = 5, e = -100, r = 2;
    float up = (float)(1 - exp(-1 / (0.001 * RATE))), down = (float)(1 - exp(-1 / (0.05 * RATE))), env = 0;
    seed = 1;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        fill();
        for (int i = 0; i < SLICE; i++) {
            float peak = fabsf(left[i]) > fabsf(right[i]) ? fabsf(left[i]) : fabsf(right[i]);
            env += (peak - env) * (peak > env ? up : down);
            double level = 20 * log10(env > 1e-6f ? env : 1e-6f), shaped = level;
            if (level > t) shaped = t + h * (1 - exp(-(level - t) / h));
            else if (level < e) shaped = e + (level - e) * r;
            float gain = (float)pow(10, (shaped - level) / 20);
            left[i] *= gain;
            right[i] *= gain;
        }
        sink += left[0];
    }
    return nowNanoseconds() - start;
}

/* The reverb: eight lines, a loop gain and one-pole filter each, a Householder mix. */
static double bareReverb(void)
{
    enum { N = 8, LENGTH = (int)(RATE * 1.1) + 4 };
    static float lines[N][LENGTH];
    memset(lines, 0, sizeof lines);
    int delays[N];
    float loop[N], pole[N], filtered[N] = {0};
    double energy = 0;
    for (int i = 0; i < N; i++) {
        delays[i] = (int)(0.008 * pow(0.05 / 0.008, i / 7.0) * RATE);
        double g0 = pow(10, -3.0 * delays[i] / (1.0 * RATE)), gh = pow(10, -3.0 * delays[i] / (0.5 * RATE)), q = gh / g0;
        pole[i] = (float)((1 - q) / (1 + q));
        loop[i] = (float)g0;
        energy += g0 * g0;
    }
    float scale = (float)(sqrt(1 - energy / N) / sqrt(N) * 2), in = 1 / 2.0f / sqrtf(N);
    int at = 0;
    seed = 1;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        fill();
        for (int i = 0; i < SLICE; i++) {
            float input = (left[i] + right[i]) * in, sum = 0;
            for (int k = 0; k < N; k++) {
                int from = at - delays[k];
                if (from < 0) from += LENGTH;
                float y = loop[k] * (1 - pole[k]) * lines[k][from] + pole[k] * filtered[k];
                filtered[k] = fabsf(y) < 1e-30f ? 0 : y;
                sum += y;
            }
            float reflected = sum * 2 / N;
            for (int k = 0; k < N; k++) lines[k][at] = filtered[k] - reflected + ((k & 1) == 0 ? input : -input);
            float wl = 0, wr = 0;
            for (int k = 0; k < N; k++) { wl += filtered[k]; wr += (k & 1) == 0 ? filtered[k] : -filtered[k]; }
            left[i] = wl * scale;
            right[i] = wr * scale;
            if (++at == LENGTH) at = 0;
        }
        sink += left[0];
    }
    return nowNanoseconds() - start;
}

static void compare(const char *name, OSType subtype, const AudioUnitParameterID *ids, const Float32 *values, int count,
                    double (*bare)(void))
{
    double unit[RUNS], loop[RUNS];
    for (int r = 0; r < RUNS; r++) {
        unit[r] = throughUnit(subtype, ids, values, count);
        loop[r] = bare();
    }
    double u = percentile(unit, RUNS, 50), l = percentile(loop, RUNS, 50);
    printf("effects: %-18s unit %7.1f ms, bare C loop %7.1f ms for %d s of stereo: ratio %.2f (goal <= 1.2)\n", name,
           u / 1e6, l / 1e6, SECONDS, u / l);
}

int main(void)
{
    const AudioUnitParameterID lp[] = {kLowPassParam_CutoffFrequency, kLowPassParam_Resonance};
    const Float32 lpv[] = {2000, 3};
    compare("AULowpass", kAudioUnitSubType_LowPassFilter, lp, lpv, 2, bareLowPass);
    const AudioUnitParameterID dl[] = {kDelayParam_DelayTime, kDelayParam_Feedback};
    const Float32 dlv[] = {0.25f, 50};
    compare("AUDelay", kAudioUnitSubType_Delay, dl, dlv, 2, bareDelay);
    compare("AUDynamicsProcessor", kAudioUnitSubType_DynamicsProcessor, NULL, NULL, 0, bareDynamics);
    const AudioUnitParameterID rv[] = {0};
    const Float32 rvv[] = {100};
    compare("AUReverb2", 0x72766232 /* 'rvb2' */, rv, rvv, 1, bareReverb);
    return 0;
}
