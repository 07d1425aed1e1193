/*
 * System Sound Services, run by `make bench`:
 *  1. Creation: AudioServicesCreateSystemSoundID of a 1-second 44.1 kHz stereo WAV,
 *     time per sound, against libsndfile decoding the same file by itself (the floor:
 *     the library decodes with it), and resident memory per created sound.
 *  2. Latency (when the virtual ALSA card is set up, VCARD_DIR): from
 *     AudioServicesPlaySystemSound to the first frame reaching the card's PCM, against
 *     `aplay` of the same file to its first frame, p50 over several runs each.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_common.h"

enum { SOUNDS = 100 };

static long residentKilobytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) { if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0; fclose(f); }
    return resident * sysconf(_SC_PAGESIZE) / 1024;
}

static void writeWav(const char *path, int rate, int channels, double seconds)
{
    SF_INFO info = {.samplerate = rate, .channels = channels, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
    SNDFILE *file = sf_open(path, SFM_WRITE, &info);
    long frames = (long)(seconds * rate);
    float *samples = calloc((size_t)(frames * channels), sizeof *samples);
    for (long i = 0; i < frames; i++)
        for (int c = 0; c < channels; c++) samples[i * channels + c] = (float)(0.3 * sin(2 * M_PI * 440 * i / rate));
    sf_writef_float(file, samples, frames);
    sf_close(file);
    free(samples);
}

static int completions;
static void completed(SystemSoundID id, void *data) { (void)id; (void)data; completions++; }

/* The card's note of when its latest stream started (CLOCK_MONOTONIC ns), or 0. */
static double startedAt(const char *path)
{
    FILE *f = fopen(path, "r");
    long long ns = 0;
    if (f) { if (fscanf(f, "%lld", &ns) != 1) ns = 0; fclose(f); }
    return (double)ns;
}

int main(void)
{
    char path[] = "/tmp/at-bench-sound-XXXXXX.wav";
    int fd = mkstemps(path, 4);
    if (fd < 0) return 1;
    close(fd);
    writeWav(path, 44100, 2, 1.0);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);

    /* Warm up both paths (the library's first call loads its runtime). */
    SystemSoundID warm;
    AudioServicesCreateSystemSoundID(url, &warm);
    AudioServicesDisposeSystemSoundID(warm);

    /* The floor: libsndfile decoding the file into new memory, as a sound needs its own
       (kept, like the library keeps its sounds, so that no buffer is reused warm). */
    double baseline[SOUNDS], created[SOUNDS];
    float *kept[SOUNDS];
    for (int i = 0; i < SOUNDS; i++) {
        double start = nowNanoseconds();
        SF_INFO info = {0};
        SNDFILE *file = sf_open(path, SFM_READ, &info);
        kept[i] = malloc(sizeof(float) * (size_t)(info.frames * info.channels));
        sf_readf_float(file, kept[i], info.frames);
        sf_close(file);
        baseline[i] = nowNanoseconds() - start;
    }
    for (int i = 0; i < SOUNDS; i++) free(kept[i]);
    SystemSoundID ids[SOUNDS];
    long before = residentKilobytes();
    for (int i = 0; i < SOUNDS; i++) {
        double start = nowNanoseconds();
        AudioServicesCreateSystemSoundID(url, &ids[i]);
        created[i] = nowNanoseconds() - start;
    }
    long after = residentKilobytes();
    double c50 = percentile(created, SOUNDS, 50) / 1e3, b50 = percentile(baseline, SOUNDS, 50) / 1e3;
    printf("system sounds: create a 1 s 44.1 kHz stereo WAV: p50 %.1f us; libsndfile decoding alone: p50 %.1f us;"
           " ratio %.2f\n", c50, b50, c50 / b50);
    printf("system sounds: resident memory per created 1 s sound: %.0f KiB (%d sounds, %ld KiB); "
           "the decoded samples alone are %.0f KiB\n", (double)(after - before) / SOUNDS, SOUNDS, after - before,
           44100.0 * 2 * sizeof(float) / 1024);
    for (int i = 0; i < SOUNDS; i++) AudioServicesDisposeSystemSoundID(ids[i]);

    /* 2. Latency to the card's first frame, when the virtual ALSA card is set up. */
    const char *vcardDir = getenv("VCARD_DIR");
    if (vcardDir) {
        char started[4096], command[8192];
        snprintf(started, sizeof started, "%s/state.playback.started", vcardDir);
        writeWav(path, 48000, 2, 0.05);
        CFRelease(url);
        url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
        SystemSoundID short1 = 0;
        AudioServicesCreateSystemSoundID(url, &short1);
        AudioServicesAddSystemSoundCompletion(short1, NULL, NULL, completed, NULL);
        enum { RUNS = 15 };
        double ours[RUNS], theirs[RUNS];
        for (int run = 0; run < RUNS; run++) {
            unlink(started);
            int before = completions;
            double start = nowNanoseconds();
            AudioServicesPlaySystemSound(short1);
            while (completions == before) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
            /* The stream is closed right after: wait for it, so each run opens anew. */
            usleep(20000);
            ours[run] = startedAt(started) - start;
            unlink(started);
            snprintf(command, sizeof command, "aplay -q -D default '%s'", path);
            start = nowNanoseconds();
            if (system(command) != 0) { printf("system sounds: aplay failed, no latency baseline\n"); break; }
            theirs[run] = startedAt(started) - start;
        }
        double o50 = percentile(ours, RUNS, 50) / 1e6, t50 = percentile(theirs, RUNS, 50) / 1e6;
        printf("system sounds: AudioServicesPlaySystemSound -> first frame at the card: p50 %.2f ms; "
               "aplay of the same file -> first frame: p50 %.2f ms; ratio %.2f (%d runs each)\n",
               o50, t50, o50 / t50, RUNS);
    }
    CFRelease(url);
    unlink(path);
    return 0;
}
