/* The effects against the same algorithms as bare C loops (make bench): 30 s of stereo
 * noise at 44.1 kHz in slices of 512 frames, through GenericOutput <- effect <- a render
 * callback, and through a loop over the same samples doing the same arithmetic (the
 * designs docs/API.md gives). Each prints the unit's time, the loop's and their ratio
 * (goal: at most 1.2): the fastest of 7 alternated runs of each, as the cost without
 * interference (on a virtual machine a median of 5 still moved by 15% between runs). */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "bench_common.h"

enum { RATE = 44100, SLICE = 512, SECONDS = 30, FRAMES = RATE * SECONDS, RUNS = 7 };

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

/* Two peaking sections in a row (AUNBandEQ's parametric bands, the width in octaves). */
static double bareBandEQ(void)
{
    const double hz[2] = {250, 4000}, gain[2] = {6, -6}, octaves = 1;
    double c[2][5], z[2][4] = {{0}};
    for (int b = 0; b < 2; b++) {
        double w0 = 2 * M_PI * hz[b] / RATE, a = pow(10, gain[b] / 40), cs = cos(w0);
        double alpha = sin(w0) * sinh(log(2) / 2 * octaves * w0 / sin(w0)), a0 = 1 + alpha / a;
        c[b][0] = (1 + alpha * a) / a0;
        c[b][1] = -2 * cs / a0;
        c[b][2] = (1 - alpha * a) / a0;
        c[b][3] = -2 * cs / a0;
        c[b][4] = (1 - alpha / a) / a0;
    }
    seed = 1;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        fill();
        Float32 *ch[2] = {left, right};
        for (int b = 0; b < 2; b++) {
            for (int k = 0; k < 2; k++) {
                double z1 = z[b][2 * k], z2 = z[b][2 * k + 1];
                for (int i = 0; i < SLICE; i++) {
                    double x = ch[k][i], y = c[b][0] * x + z1;
                    z1 = c[b][1] * x - c[b][3] * y + z2;
                    z2 = c[b][2] * x - c[b][4] * y;
                    ch[k][i] = (Float32)y;
                }
                z[b][2 * k] = z1;
                z[b][2 * k + 1] = z2;
            }
        }
        sink += left[0];
    }
    return nowNanoseconds() - start;
}

/* The limiter: the input (after the pre-gain) delayed by the attack, the gain what the
 * window's loudest sample allows (a falling queue of candidates), rising with the decay. */
static double bareLimiter(void)
{
    enum { LONGEST = (int)(0.03 * RATE) + 2, CAPACITY = LONGEST + 1 };
    static float delayed[LONGEST * 2], levels[CAPACITY];
    static long positions[CAPACITY];
    memset(delayed, 0, sizeof delayed);
    int window = (int)(0.012 * RATE), head = 0, count = 0;
    long now = 0;
    float rise = (float)(1 - exp(-1 / (0.024 * RATE))), pre = (float)pow(10, 6 / 20.0), gain = 1;
    seed = 1;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        fill();
        Float32 *ch[2] = {left, right};
        for (int i = 0; i < SLICE; i++) {
            float peak = 0;
            long slot = now % LONGEST;
            for (int c = 0; c < 2; c++) {
                float x = ch[c][i] * pre;
                delayed[slot * 2 + c] = x;
                if (fabsf(x) > peak) peak = fabsf(x);
            }
            while (count > 0 && levels[(head + count - 1) % CAPACITY] <= peak) count--;
            positions[(head + count) % CAPACITY] = now;
            levels[(head + count) % CAPACITY] = peak;
            count++;
            while (positions[head] < now - window) { head = (head + 1) % CAPACITY; count--; }
            float target = levels[head] > 1 ? 1 / levels[head] : 1;
            gain = target < gain ? target : gain + (target - gain) * rise;
            long out = ((now - window) % LONGEST + LONGEST) % LONGEST;
            for (int c = 0; c < 2; c++) {
                float y = now >= window ? delayed[out * 2 + c] * gain : 0;
                ch[c][i] = y > 1 ? 1 : y < -1 ? -1 : y;
            }
            now++;
        }
        sink += left[0];
    }
    return nowNanoseconds() - start;
}

/* The distortion at its defaults: a short echo, a sample-and-hold rounded to 16 bits, the
 * polynomial (linear only), no ring modulation, a soft clip, each mixed half in. */
static double bareDistortion(void)
{
    enum { LENGTH = (int)(0.5 * RATE) + 4 };
    static float lines[2][LENGTH];
    memset(lines, 0, sizeof lines);
    int delay = (int)(0.1 / 1000 * RATE), write = 0;
    if (delay < 1) delay = 1;
    float feedback = 0.5f, step = 1 - 0.99f * 0.5f, levels = 32768, m = 0.5f, drive = (float)pow(10, -6 / 20.0);
    float held[2] = {0, 0}, holding[2] = {1, 1};
    seed = 1;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        fill();
        Float32 *ch[2] = {left, right};
        for (int c = 0; c < 2; c++) {
            float *line = lines[c], hold = held[c], phase = holding[c];
            int at = write;
            for (int i = 0; i < SLICE; i++) {
                float x = ch[c][i];
                int back = at - delay;
                if (back < 0) back += LENGTH;
                float echo = line[back];
                line[at] = x + feedback * echo;
                if (++at == LENGTH) at = 0;
                float s1 = x + (echo - x) * m;
                phase += step;
                if (phase >= 1) { phase -= 1; hold = roundf(s1 * levels) / levels; }
                float s2 = s1 + (hold - s1) * m;
                float s3 = s2 + (s2 * (1 + s2 * (0 + s2 * 0)) - s2) * m;
                float s5 = tanhf(s3 * drive);
                ch[c][i] = x + (s5 - x) * m;
            }
            held[c] = hold;
            holding[c] = phase;
        }
        write = (write + SLICE) % LENGTH;
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
    double u = percentile(unit, RUNS, 0), l = percentile(loop, RUNS, 0);
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
    const AudioUnitParameterID eq[] = {kAUNBandEQParam_BypassBand, kAUNBandEQParam_BypassBand + 1,
                                       kAUNBandEQParam_Frequency, kAUNBandEQParam_Frequency + 1, kAUNBandEQParam_Gain,
                                       kAUNBandEQParam_Gain + 1, kAUNBandEQParam_Bandwidth, kAUNBandEQParam_Bandwidth + 1};
    const Float32 eqv[] = {0, 0, 250, 4000, 6, -6, 1, 1};
    compare("AUNBandEQ", kAudioUnitSubType_NBandEQ, eq, eqv, 8, bareBandEQ);
    const AudioUnitParameterID lm[] = {kLimiterParam_PreGain};
    const Float32 lmv[] = {6};
    compare("AUPeakLimiter", kAudioUnitSubType_PeakLimiter, lm, lmv, 1, bareLimiter);
    compare("AUDistortion", kAudioUnitSubType_Distortion, NULL, NULL, 0, bareDistortion);
    return 0;
}
