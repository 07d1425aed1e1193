/*
 * AudioSessionGetProperty of a UInt32 (the category) against a baseline: a C function,
 * not inlined, that copies a UInt32 under a pthread mutex. Goal: ratio <= 3.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <pthread.h>
#include <stdio.h>
#include "bench_common.h"

static pthread_mutex_t baselineLock = PTHREAD_MUTEX_INITIALIZER;
static UInt32 baselineValue = 0x736f6c6f;

__attribute__((noinline)) static OSStatus baselineGet(UInt32 *ioSize, void *out)
{
    pthread_mutex_lock(&baselineLock);
    *(UInt32 *)out = baselineValue;
    *ioSize = sizeof(UInt32);
    pthread_mutex_unlock(&baselineLock);
    return 0;
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 5000000;
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    UInt32 value = 0, size = 0, sink = 0;
    double best[2] = {1e30, 1e30};
    for (int round = 0; round < 5; round++) {   /* best of 5 rounds, alternating */
        double start = nowNanoseconds();
        for (long i = 0; i < iterations; i++) {
            size = sizeof value;
            baselineGet(&size, &value);
            sink += value;
        }
        double baseline = (nowNanoseconds() - start) / (double)iterations;
        start = nowNanoseconds();
        for (long i = 0; i < iterations; i++) {
            size = sizeof value;
            AudioSessionGetProperty(kAudioSessionProperty_AudioCategory, &size, &value);
            sink += value;
        }
        double library = (nowNanoseconds() - start) / (double)iterations;
        if (baseline < best[0]) best[0] = baseline;
        if (library < best[1]) best[1] = library;
    }
    printf("get-property: AudioSessionGetProperty(UInt32) %.1f ns/call, baseline mutex copy %.1f ns/call, "
           "ratio %.2f (goal <= 3) [checksum %u]\n", best[1], best[0], best[1] / best[0], (unsigned)(sink & 1));
    return 0;
}
