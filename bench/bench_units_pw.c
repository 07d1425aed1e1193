/*
 * The I/O unit on PipeWire against a bare pw_stream client of the same server, rate and
 * latency, in the same run: CPU per second of audio at 48 kHz, 256 frames (the
 * process's CPU time over the steady part of each run, medians of five alternating
 * runs), and the ratio (goal: at most 1.2); and the latency from the render to the
 * sink, for impulses written every quarter second, as a recorder of the sink's monitor
 * in the same process receives them (the recorder's own delay is in both), p50 and p99
 * and their ratios (goal: at most 1.1). Run inside a private PipeWire stack
 * (scripts/pw-stack.sh), with AUDIOTOOLBOX_ARBITER=local.
 */
#include <AudioToolbox/AudioToolbox.h>
#include "bench_common.h"
#include <pipewire/pipewire.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_pipewire.h"

enum { RATE = PW_RATE, PERIOD = PW_PERIOD };

static long calls;

/* Quiet noise-free silence with an impulse every 47th buffer: each impulse's send time kept. */
static void fill(SInt16 *samples, UInt32 frames)
{
    memset(samples, 0, frames * 4);
    if (++calls % 47 == 0 && sentCount < MAX_MARKS) {
        sent[sentCount++] = benchNow();
        samples[0] = samples[1] = 20000;
    }
}

static void fillFrames(SInt16 *samples, uint32_t frames) { fill(samples, frames); }

/* ---- the unit ---- */
static AudioUnit unit;
static OSStatus render(void *r, AudioUnitRenderActionFlags *f, const AudioTimeStamp *t, UInt32 b, UInt32 n,
                       AudioBufferList *d)
{
    (void)r; (void)f; (void)t; (void)b;
    fill(d->mBuffers[0].mData, n);
    return noErr;
}

static void unitStart(void)
{
    AudioComponentDescription c = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0,
                                   0};
    AudioComponentInstanceNew(AudioComponentFindNext(NULL, &c), &unit);
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM,
                                     kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f);
    AURenderCallbackStruct cb = {render, NULL};
    AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &cb, sizeof cb);
    AudioUnitInitialize(unit);
    if (AudioOutputUnitStart(unit) != noErr) { fprintf(stderr, "the unit did not start on PipeWire\n"); exit(2); }
}

static void unitStop(void)
{
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
}

typedef struct { double cpu, p50, p99; int marks; } Run;

static Run measure(void (*start)(void), void (*stop)(void), double seconds)
{
    bareProduce = fillFrames;
    start();
    usleep(500000);
    sentCount = receivedCount = 0;
    long long cpu0 = cpuNow();
    usleep((useconds_t)(seconds * 1e6));
    long long cpu = cpuNow() - cpu0;
    stop();
    /* Pair each impulse with the first arrival after it was sent. */
    static double latency[MAX_MARKS];
    int n = pairedLatencies(latency);
    Run run = {(double)cpu / 1e6 / seconds, n ? latency[n / 2] : 0, n ? latency[(int)(n * 0.99)] : 0, n};
    return run;
}


int main(void)
{
    benchSessionOnPipeWire();
    double bare[5], units[5], bareP50[5], bareP99[5], unitP50[5], unitP99[5];
    int marks = 0;
    for (int i = 0; i < 5; i++) {
        Run b = measure(bareStart, bareStop, 4), u = measure(unitStart, unitStop, 4);
        bare[i] = b.cpu; bareP50[i] = b.p50; bareP99[i] = b.p99;
        units[i] = u.cpu; unitP50[i] = u.p50; unitP99[i] = u.p99;
        marks = u.marks;
    }
    if (marks == 0) {
        fprintf(stderr, "units on PipeWire: the recorder heard none of the unit's impulses: it did not play through "
                        "PipeWire (a session on a virtual device asked for?)\n");
        return 1;
    }
    qsort(bare, 5, sizeof(double), compareDoubles); qsort(units, 5, sizeof(double), compareDoubles);
    qsort(bareP50, 5, sizeof(double), compareDoubles); qsort(bareP99, 5, sizeof(double), compareDoubles);
    qsort(unitP50, 5, sizeof(double), compareDoubles); qsort(unitP99, 5, sizeof(double), compareDoubles);
    printf("units on PipeWire: CPU per second of audio (48 kHz, %d-frame latency): RemoteIO %.2f ms (%.2f..%.2f), "
           "bare pw_stream %.2f ms (%.2f..%.2f): ratio %.3f (goal <= 1.2)\n", PERIOD, units[2], units[0], units[4],
           bare[2], bare[0], bare[4], units[2] / bare[2]);
    printf("units on PipeWire: latency render -> the sink's monitor (medians of 5 runs, %d impulses): RemoteIO p50 "
           "%.2f ms p99 %.2f ms, bare pw_stream p50 %.2f ms p99 %.2f ms: ratio p50 %.3f, p99 %.3f (goal <= 1.1)\n",
           marks, unitP50[2], unitP99[2], bareP50[2], bareP99[2], unitP50[2] / bareP50[2], unitP99[2] / bareP99[2]);
    return 0;
}
