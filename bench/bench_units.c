/*
 * The I/O unit's cost against a bare ALSA client of the same device, period and buffer,
 * measured in the same run on the virtual ALSA card (whose clock plays each frame at a
 * known instant: <state>.playback.origin gives when the stream's first frame played):
 *
 *   - output latency: from the render callback (the bare client: from computing its
 *     period) to the frame at the device, for impulses written every quarter second;
 *     p50 and p99, and their ratios (goal: at most 1.1);
 *   - CPU per second of audio at 48 kHz, 256 frames (the process's CPU time over the
 *     steady part of each run, the card's own work included for both), and the ratio
 *     (goal: at most 1.2);
 *   - underruns over XRUN_SECONDS (default 60) at a 5 ms period while two CPU-bound
 *     processes run: counted by the card's restarts (<state>.playback.starts);
 *   - an interruption to the unit's last callback: how long after the session is
 *     interrupted the unit's last period ends (p50, p99 over 20 interruptions).
 *
 * With the argument `mixer`, instead: a MultiChannelMixer graph of four buses into RemoteIO
 * against the same four sources mixed by hand in a bare RemoteIO render callback (CPU
 * per second of audio, goal at most 1.2; latency from bus 0's callback to the card, goal
 * at most 1.1).
 *
 * Run with VCARD_DIR and ALSA_CONFIG_PATH from `vcard setup` and AUDIOTOOLBOX_ARBITER=local.
 */
#include <AudioToolbox/AudioToolbox.h>
#include "bench_common.h"
#include <alsa/asoundlib.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { RATE = 48000, PERIOD = 256, MARK_EVERY = 47, MAX_MARKS = 256 };

static long long now(void) { return (long long)nowNanoseconds(); }

static long long cpuNow(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void vcard(const char *arguments)
{
    char command[256];
    snprintf(command, sizeof command, "vcard %s", arguments);
    if (system(command) != 0) { fprintf(stderr, "%s failed\n", command); exit(2); }
}

static char *cardPath(const char *suffix)
{
    static char paths[4][4096];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, 4096, "%s/state%s", getenv("VCARD_DIR"), suffix);
    return path;
}

/* ---- the two players: one period each call; an impulse every MARK_EVERY periods ------- */

static long long marks[MAX_MARKS];
/* The CPU clock of the thread that exchanges periods with the card (the unit's I/O
 * thread, seen from its callback; the bare client's own). */
static clockid_t audioClock;
static volatile int audioClockKnown;

static void noteAudioThread(void)
{
    if (!audioClockKnown && pthread_getcpuclockid(pthread_self(), &audioClock) == 0) audioClockKnown = 1;
}

static long long audioCPU(void)
{
    struct timespec t;
    if (!audioClockKnown || clock_gettime(audioClock, &t) != 0) return 0;
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
static volatile int markCount;
static volatile long periods;

static void fillPeriod(SInt16 *samples, UInt32 frames)
{
    memset(samples, 0, frames * 4);
    if (periods % MARK_EVERY == MARK_EVERY - 1 && markCount < MAX_MARKS) {
        marks[markCount++] = now();
        samples[0] = samples[1] = 20000;
    }
    periods++;
}

static long long lastCallbackEnd;
static OSStatus render(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                       UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    noteAudioThread();
    fillPeriod(data->mBuffers[0].mData, frames);
    lastCallbackEnd = now();
    return noErr;
}

static AudioUnit unit;
static long long stoppedAt;

/* Told on the unit's thread once it has stopped and let the device go. */
static void running(void *refCon, AudioUnit u, AudioUnitPropertyID id, AudioUnitScope scope, AudioUnitElement element)
{
    (void)refCon; (void)scope; (void)element;
    UInt32 value = 1, size = sizeof value;
    AudioUnitGetProperty(u, id, kAudioUnitScope_Global, 0, &value, &size);
    if (value == 0) stoppedAt = now();
}

static void unitStart(void)
{
    AudioComponentDescription d = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0,
                                   0};
    AudioComponentInstanceNew(AudioComponentFindNext(NULL, &d), &unit);
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM,
                                     kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f);
    AURenderCallbackStruct cb = {render, NULL};
    AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &cb, sizeof cb);
    AudioUnitAddPropertyListener(unit, kAudioOutputUnitProperty_IsRunning, running, NULL);
    AudioUnitInitialize(unit);
    if (AudioOutputUnitStart(unit) != noErr) { fprintf(stderr, "the unit did not start\n"); exit(2); }
}

static void unitStop(void)
{
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
}

/* The bare client: what a program writing to ALSA itself does, with the same period,
 * two periods of buffer, silence queued ahead and a real-time thread where granted. */
static volatile int bareStop;
static void *bareThread(void *unused)
{
    (void)unused;
    struct sched_param p = {.sched_priority = 10};
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
    snd_pcm_t *pcm;
    if (snd_pcm_open(&pcm, "default", SND_PCM_STREAM_PLAYBACK, 0) < 0) { fprintf(stderr, "bare open\n"); exit(2); }
    snd_pcm_hw_params_t *hw;
    snd_pcm_hw_params_alloca(&hw);
    snd_pcm_hw_params_any(pcm, hw);
    snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED);
    snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE);
    snd_pcm_hw_params_set_channels(pcm, hw, 2);
    unsigned rate = RATE;
    snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, NULL);
    snd_pcm_uframes_t period = PERIOD;
    unsigned periodsCount = 2;
    snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, NULL);
    snd_pcm_hw_params_set_periods_near(pcm, hw, &periodsCount, NULL);
    snd_pcm_hw_params(pcm, hw);
    snd_pcm_uframes_t buffer;
    snd_pcm_hw_params_get_buffer_size(hw, &buffer);
    snd_pcm_sw_params_t *sw;
    snd_pcm_sw_params_alloca(&sw);
    snd_pcm_sw_params_current(pcm, sw);
    snd_pcm_sw_params_set_start_threshold(pcm, sw, period);
    snd_pcm_sw_params_set_avail_min(pcm, sw, period);
    snd_pcm_sw_params(pcm, sw);
    snd_pcm_prepare(pcm);
    static SInt16 samples[8192 * 2];
    memset(samples, 0, sizeof samples);
    snd_pcm_writei(pcm, samples, buffer - period);
    noteAudioThread();
    while (!bareStop) {
        fillPeriod(samples, (UInt32)period);
        snd_pcm_sframes_t n = snd_pcm_writei(pcm, samples, period);
        if (n < 0) snd_pcm_recover(pcm, (int)n, 1);
    }
    snd_pcm_drop(pcm);
    snd_pcm_close(pcm);
    return NULL;
}

static pthread_t bare;
static void bareStart(void) { bareStop = 0; pthread_create(&bare, NULL, bareThread, NULL); }
static void bareStopNow(void) { bareStop = 1; pthread_join(bare, NULL); }

/* ---- measuring ------------------------------------------------------------------------ */


/* Latencies (ms) of the marks, from the recording and the stream's starts (a stream
 * that ran dry starts again: each frame is timed from the start it belongs to). */
static int latencies(double *out)
{
    static long long startNs[64];
    static unsigned long long firstFrame[64];
    int startCount = 0;
    FILE *f = fopen(cardPath(".playback.starts"), "r");
    while (f && startCount < 64 && fscanf(f, "%lld %llu", &startNs[startCount], &firstFrame[startCount]) == 2)
        startCount++;
    if (f) fclose(f);
    unsigned rate = 0;
    f = fopen(cardPath(".playback.rate"), "r");
    if (!f || fscanf(f, "%u", &rate) != 1 || startCount == 0) { fprintf(stderr, "no starts or rate\n"); exit(2); }
    fclose(f);
    f = fopen(cardPath(".playback.raw"), "rb");
    if (!f) exit(2);
    int found = 0, start = 0;
    SInt16 frame[2];
    for (unsigned long long index = 0; fread(frame, 4, 1, f) == 1 && found < markCount; index++) {
        while (start + 1 < startCount && firstFrame[start + 1] <= index) start++;
        if (frame[0] > 10000) {
            long long played = startNs[start] + (long long)((double)(index - firstFrame[start]) * 1e9 / rate);
            out[found] = (double)(played - marks[found]) / 1e6;
            found++;
        }
    }
    fclose(f);
    qsort(out, (size_t)found, sizeof *out, compareDoubles);
    return found;
}

static int starts(void)
{
    FILE *f = fopen(cardPath(".playback.starts"), "r");
    if (!f) return 0;
    int lines = 0;
    for (int c; (c = fgetc(f)) != EOF;) lines += c == '\n';
    fclose(f);
    return lines;
}

typedef struct { double p50, p99, cpuPerSecond, threadPerSecond; int marks; } Run;

static Run measure(void (*start)(void), void (*stop)(void), double seconds)
{
    vcard("record-reset");
    markCount = 0;
    periods = 0;
    audioClockKnown = 0;
    start();
    /* Steady state only: opening and closing the device are not the cost per second. */
    usleep(500000);
    long long cpu0 = cpuNow(), thread0 = audioCPU();
    usleep((useconds_t)(seconds * 1e6));
    long long cpu = cpuNow() - cpu0, thread = audioCPU() - thread0;
    stop();
    static double values[MAX_MARKS];
    Run run = {0};
    run.marks = latencies(values);
    if (run.marks > 0) {
        run.p50 = values[run.marks / 2];
        run.p99 = values[(int)(run.marks * 0.99)];
    }
    run.cpuPerSecond = (double)cpu / 1e6 / seconds;
    run.threadPerSecond = (double)thread / 1e6 / seconds;
    return run;
}

/* ---- a mixer graph against the same mix by hand ----------------------------------------- */

enum { BUSES = 4, TABLE = 64 };
static Float32 wave[TABLE];
static unsigned busPhase[BUSES];
static const Float32 busGain = 0.8f;

/* Bus `bus`'s source, as a game's voice would be: a quiet tone from a table (cheap, so
 * the mixing is what is compared); bus 0 carries the impulses latency is measured by. */
static void fillBus(int bus, Float32 *out, UInt32 frames)
{
    unsigned phase = busPhase[bus];
    for (UInt32 i = 0; i < frames; i++, phase += (unsigned)bus + 1) out[i] = wave[phase % TABLE];
    busPhase[bus] = phase;
    if (bus == 0) {
        if (periods % MARK_EVERY == MARK_EVERY - 1 && markCount < MAX_MARKS) {
            marks[markCount++] = now();
            out[0] = 0.7f;
        }
        periods++;
    }
}

static AudioStreamBasicDescription floats(UInt32 channels)
{
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM,
                                     kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved, 4, 1, 4, channels,
                                     32, 0};
    return f;
}

static OSStatus busRender(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                          UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts;
    if (bus == 0) noteAudioThread();
    fillBus((int)bus, data->mBuffers[0].mData, frames);
    return noErr;
}

static AUGraph graph;
static void graphStart(void)
{
    AudioComponentDescription io = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription mix = {kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer, kAudioUnitManufacturer_Apple,
                                     0, 0};
    AUNode ioNode, mixNode;
    AudioUnit mixer;
    NewAUGraph(&graph);
    AUGraphAddNode(graph, &io, &ioNode);
    AUGraphAddNode(graph, &mix, &mixNode);
    AUGraphOpen(graph);
    AUGraphNodeInfo(graph, mixNode, NULL, &mixer);
    UInt32 buses = BUSES;
    AudioUnitSetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &buses, sizeof buses);
    AudioStreamBasicDescription mono = floats(1), stereo = floats(2);
    AURenderCallbackStruct cb = {busRender, NULL};
    for (UInt32 bus = 0; bus < BUSES; bus++) {
        AudioUnitSetProperty(mixer, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, bus, &mono, sizeof mono);
        AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, bus, busGain, 0);
        AUGraphSetNodeInputCallback(graph, mixNode, bus, &cb);
    }
    AudioUnitSetProperty(mixer, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &stereo, sizeof stereo);
    AUGraphConnectNodeInput(graph, mixNode, 0, ioNode, 0);
    AUGraphInitialize(graph);
    if (AUGraphStart(graph) != noErr) { fprintf(stderr, "the graph did not start\n"); exit(2); }
}

static void graphStop(void)
{
    AUGraphStop(graph);
    DisposeAUGraph(graph);
}

/* The same four sources and gains, summed by hand in RemoteIO's own callback. */
static Float32 scratch[8192];
static OSStatus handMix(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                        UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    noteAudioThread();
    Float32 *left = data->mBuffers[0].mData, *right = data->mBuffers[1].mData;
    memset(left, 0, frames * sizeof *left);
    memset(right, 0, frames * sizeof *right);
    for (int b = 0; b < BUSES; b++) {
        fillBus(b, scratch, frames);
        for (UInt32 i = 0; i < frames; i++) {
            left[i] += scratch[i] * busGain;
            right[i] += scratch[i] * busGain;
        }
    }
    return noErr;
}

static void handStart(void)
{
    AudioComponentDescription d = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentInstanceNew(AudioComponentFindNext(NULL, &d), &unit);
    AudioStreamBasicDescription stereo = floats(2);
    AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &stereo, sizeof stereo);
    AURenderCallbackStruct cb = {handMix, NULL};
    AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &cb, sizeof cb);
    AudioUnitInitialize(unit);
    if (AudioOutputUnitStart(unit) != noErr) { fprintf(stderr, "the unit did not start\n"); exit(2); }
}

static int mixerBench(void)
{
    for (int i = 0; i < TABLE; i++) wave[i] = (Float32)(0.05 * sin(2 * M_PI * i / TABLE));
    /* Alternated, hand first and last; medians compared. */
    enum { RUNS = 5 };
    double handCPU[RUNS], graphCPU[RUNS], handP50[RUNS], graphP50[RUNS], handP99[RUNS], graphP99[RUNS];
    int handMarks = 0, graphMarks = 0;
    for (int i = 0; i < RUNS; i++) {
        Run h = measure(handStart, unitStop, 4), g = measure(graphStart, graphStop, 4);
        handCPU[i] = h.cpuPerSecond; graphCPU[i] = g.cpuPerSecond;
        handP50[i] = h.p50; graphP50[i] = g.p50; handP99[i] = h.p99; graphP99[i] = g.p99;
        handMarks = h.marks; graphMarks = g.marks;
    }
    double hc = percentile(handCPU, RUNS, 50), gc = percentile(graphCPU, RUNS, 50);
    double h50 = percentile(handP50, RUNS, 50), g50 = percentile(graphP50, RUNS, 50);
    double h99 = percentile(handP99, RUNS, 50), g99 = percentile(graphP99, RUNS, 50);
    printf("mixer: CPU per second of audio, 4 buses at 48 kHz, %d frames: AUGraph (MultiChannelMixer -> RemoteIO) %.2f ms "
           "(%.2f..%.2f), mixed by hand in a RemoteIO callback %.2f ms (%.2f..%.2f): ratio %.3f (goal <= 1.2)\n", PERIOD,
           gc, graphCPU[0], graphCPU[RUNS - 1], hc, handCPU[0], handCPU[RUNS - 1], gc / hc);
    printf("mixer: latency bus 0 callback -> the card, medians of %d runs (%d and %d impulses): graph p50 %.2f ms p99 %.2f "
           "ms; by hand p50 %.2f ms p99 %.2f ms: ratio p50 %.3f, p99 %.3f (goal <= 1.1)\n", RUNS, graphMarks, handMarks, g50,
           g99, h50, h99, g50 / h50, g99 / h99);
    return 0;
}

int main(int argc, char **argv)
{
    if (!getenv("VCARD_DIR")) { fprintf(stderr, "run under `vcard setup`\n"); return 2; }
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    Float64 rate = RATE;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof rate, &rate);
    Float32 duration = (Float32)PERIOD / RATE;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, sizeof duration, &duration);
    AudioSessionSetActive(true);
    if (argc > 1 && strcmp(argv[1], "mixer") == 0) return mixerBench();

    /* Latency and CPU: the unit and the bare client in turn, three runs each (bare first
     * and last); the medians compared, the spread shown. */
    Run bare[3], units[3];
    for (int i = 0; i < 3; i++) {
        bare[i] = measure(bareStart, bareStopNow, 6);
        units[i] = measure(unitStart, unitStop, 6);
    }
    double bareP50[3], bareP99[3], bareCPU[3], unitP50[3], unitP99[3], unitCPU[3], bareThread[3], unitThread[3];
    for (int i = 0; i < 3; i++) {
        bareP50[i] = bare[i].p50; bareP99[i] = bare[i].p99; bareCPU[i] = bare[i].cpuPerSecond;
        unitP50[i] = units[i].p50; unitP99[i] = units[i].p99; unitCPU[i] = units[i].cpuPerSecond;
        bareThread[i] = bare[i].threadPerSecond; unitThread[i] = units[i].threadPerSecond;
    }
    qsort(bareThread, 3, sizeof(double), compareDoubles); qsort(unitThread, 3, sizeof(double), compareDoubles);
    qsort(bareP50, 3, sizeof(double), compareDoubles); qsort(bareP99, 3, sizeof(double), compareDoubles);
    qsort(bareCPU, 3, sizeof(double), compareDoubles); qsort(unitP50, 3, sizeof(double), compareDoubles);
    qsort(unitP99, 3, sizeof(double), compareDoubles); qsort(unitCPU, 3, sizeof(double), compareDoubles);
    printf("units: output latency (render -> the frame at the card), 48 kHz, %d frames, 2 periods queued, "
           "medians of 3 runs of %d impulses:\n", PERIOD, units[0].marks);
    printf("units:   RemoteIO p50 %.2f ms p99 %.2f ms; bare ALSA p50 %.2f ms p99 %.2f ms\n", unitP50[1], unitP99[1],
           bareP50[1], bareP99[1]);
    printf("units:   ratio p50 %.3f, p99 %.3f (goal <= 1.1)\n", unitP50[1] / bareP50[1], unitP99[1] / bareP99[1]);
    printf("units: CPU per second of audio: RemoteIO %.2f ms (%.2f..%.2f), bare ALSA %.2f ms (%.2f..%.2f): "
           "ratio %.3f (goal <= 1.2)\n", unitCPU[1], unitCPU[0], unitCPU[2], bareCPU[1], bareCPU[0], bareCPU[2],
           unitCPU[1] / bareCPU[1]);
    printf("units: CPU of the audio thread alone per second of audio: RemoteIO %.2f ms (%.2f..%.2f), bare ALSA %.2f ms "
           "(%.2f..%.2f): ratio %.3f\n", unitThread[1], unitThread[0], unitThread[2], bareThread[1], bareThread[0],
           bareThread[2], unitThread[1] / bareThread[1]);

    /* An interruption to the unit's last callback, and to its stream let go. */
    double stops[20], released[20];
    for (int i = 0; i < 20; i++) {
        unitStart();
        usleep(100000 + 1000 * i); /* at every phase of the period */
        stoppedAt = 0;
        long long asked = now();
        AudioSessionVirtualDeviceBeginInterruption();
        usleep(50000);
        stops[i] = (double)(lastCallbackEnd - asked) / 1e6;
        released[i] = stoppedAt ? (double)(stoppedAt - asked) / 1e6 : -1;
        AudioSessionVirtualDeviceEndInterruption(true);
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
        AudioSessionSetActive(true);
        unitStop();
    }
    qsort(stops, 20, sizeof *stops, compareDoubles);
    qsort(released, 20, sizeof *released, compareDoubles);
    printf("units: interruption -> the unit's last callback ends: p50 %.3f ms, max %.3f ms (negative: it had "
           "already ended when the interruption came; no callback starts after it)\n", stops[10], stops[19]);
    printf("units: interruption -> the unit's stream dropped (IsRunning 0 told): p50 %.3f ms, max %.3f ms "
           "(the period under way at the device ends first)\n", released[10], released[19]);

    /* Underruns under load. */
    int seconds = getenv("XRUN_SECONDS") ? atoi(getenv("XRUN_SECONDS")) : 60;
    duration = 0.005f;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, sizeof duration, &duration);
    pid_t hogs[2];
    for (int i = 0; i < 2; i++) {
        hogs[i] = fork();
        if (hogs[i] == 0) { for (volatile unsigned long x = 0;; x++) {} }
    }
    vcard("record-reset");
    unitStart();
    sleep((unsigned)seconds);
    int restarts = starts() - 1;
    unitStop();
    for (int i = 0; i < 2; i++) { kill(hogs[i], SIGKILL); waitpid(hogs[i], NULL, 0); }
    printf("units: underruns over %d s at a 5 ms period with two CPU-bound processes running: %d\n", seconds,
           restarts < 0 ? 0 : restarts);
    return 0;
}
