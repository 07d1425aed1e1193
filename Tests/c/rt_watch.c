/*
 * The real-time watch of rt_interpose.h as a preload library, for programs the test does
 * not write itself (a Swift app built by SwiftPM): LD_PRELOAD=rt_watch.so PROGRAM.
 *
 * It arms once an I/O thread of the library (named "AT I/O") has handed the device
 * RTWATCH_PERIODS periods (20 by default), so what the stream does to start is left out
 * and the steady state is watched; it disarms at exit and writes one line to the file
 * RTWATCH_REPORT (or to standard error):
 *   rtwatch periods=P allocations=A frees=F lockwaits=W shared=S blocking=B others=O
 * A..B are counted on the I/O thread while armed; O is the allocations the program's
 * other threads made meanwhile, which shows the interposition saw the program at all.
 */
#include "rt_interpose.h"
#include <stdio.h>

static long (*realWritei)(void *, const void *, unsigned long);
static long periods, armAfter = 20;

__attribute__((constructor)) static void startWatch(void)
{
    realWritei = dlsym(RTLD_NEXT, "snd_pcm_writei");
    const char *wanted = getenv("RTWATCH_PERIODS");
    if (wanted && atol(wanted) > 0) armAfter = atol(wanted);
    byName = 1;
}

/* The device exchange of every ALSA stream: counted as a period when an I/O thread
 * makes it. */
long snd_pcm_writei(void *pcm, const void *buffer, unsigned long frames)
{
    if (ioThread() && __atomic_add_fetch(&periods, 1, __ATOMIC_RELAXED) == armAfter) {
        countMainAllocations = 1;
        armed = 1;
    }
    return realWritei(pcm, buffer, frames);
}

__attribute__((destructor)) static void report(void)
{
    armed = 0;
    char line[256];
    snprintf(line, sizeof line,
             "rtwatch periods=%ld allocations=%ld frees=%ld lockwaits=%ld shared=%ld blocking=%ld others=%ld\n",
             periods, ioAllocations, ioFrees, ioLockWaits, sharedLocks(), ioBlockingCalls, mainAllocations);
    const char *path = getenv("RTWATCH_REPORT");
    FILE *out = path ? fopen(path, "w") : NULL;
    fputs(line, out ? out : stderr);
    if (out) fclose(out);
}
