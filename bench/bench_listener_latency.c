/*
 * Event -> property listener latency on a CFRunLoop, against a baseline round trip of
 * a bare CFRunLoopSourceSignal + CFRunLoopWakeUp to a version-0 source on the same
 * kind of run loop. A worker thread runs the run loop; the main thread triggers and
 * spins until the callback has stamped the time. Goal: p50 and p99 ratios <= 1.5.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include "bench_common.h"

static CFRunLoopRef loop;
static atomic_int ready;
static _Atomic double stamp;
static CFRunLoopSourceRef baselineSource;

static void baselinePerform(void *info) { (void)info; atomic_store(&stamp, nowNanoseconds()); }

static void volumeListener(void *c, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)c; (void)id; (void)size; (void)data;
    atomic_store(&stamp, nowNanoseconds());
}

static void *runLoopThread(void *unused)
{
    (void)unused;
    loop = CFRunLoopGetCurrent();
    CFRunLoopSourceContext context = {0};
    context.perform = baselinePerform;
    baselineSource = CFRunLoopSourceCreate(NULL, 0, &context);
    CFRunLoopAddSource(loop, baselineSource, kCFRunLoopDefaultMode);
    atomic_store(&ready, 1);
    while (atomic_load(&ready) != 3) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.1, false);
    return NULL;
}

/* Spins without a limit: a listener that never fires hangs the benchmark visibly. */
static void waitForStamp(void) { while (atomic_load(&stamp) == 0) {} }

int main(int argc, char **argv)
{
    int samples = argc > 1 ? atoi(argv[1]) : 20000;
    pthread_t thread;
    pthread_create(&thread, NULL, runLoopThread, NULL);
    while (atomic_load(&ready) != 1) {}
    AudioSessionInitialize(loop, kCFRunLoopDefaultMode, NULL, NULL);
    AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeListener, NULL);

    double *baseline = calloc((size_t)samples, sizeof(double));
    double *library = calloc((size_t)samples, sizeof(double));
    for (int i = 0; i < samples + 1000; i++) {   /* interleaved; the first 1000 warm up */
        /* Each trigger finds the run-loop thread asleep, so both paths pay one wake-up. */
        usleep(200);
        atomic_store(&stamp, 0);
        double start = nowNanoseconds();
        CFRunLoopSourceSignal(baselineSource);
        CFRunLoopWakeUp(loop);
        waitForStamp();
        if (i >= 1000) baseline[i - 1000] = atomic_load(&stamp) - start;

        usleep(200);
        atomic_store(&stamp, 0);
        start = nowNanoseconds();
        AudioSessionVirtualDeviceSetOutputVolume((i & 1) ? 0.25f : 0.5f);
        waitForStamp();
        if (i >= 1000) library[i - 1000] = atomic_load(&stamp) - start;
    }
    atomic_store(&ready, 3);
    CFRunLoopWakeUp(loop);
    pthread_join(thread, NULL);

    double b50 = percentile(baseline, (size_t)samples, 50), b99 = percentile(baseline, (size_t)samples, 99);
    double l50 = percentile(library, (size_t)samples, 50), l99 = percentile(library, (size_t)samples, 99);
    printf("listener-latency: event->listener p50 %.1f us p99 %.1f us; bare source signal p50 %.1f us p99 %.1f us; "
           "ratio p50 %.2f p99 %.2f (goal <= 1.5)\n", l50 / 1e3, l99 / 1e3, b50 / 1e3, b99 / 1e3, l50 / b50, l99 / b99);
    return 0;
}
