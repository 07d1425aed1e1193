/*
 * System Sound Services through the virtual ALSA card, whose playback PCM plays in real
 * time and records what it plays (<state>.playback.raw, 16-bit stereo; the rate in
 * <state>.playback.rate): two overlapping sounds arrive as their sample-exact,
 * saturated mix; a 22050 Hz mono file arrives at the card's rate with its length and
 * pitch; a completion comes once per play, never before the sound was heard; a system
 * interruption silences sounds; the stream is closed when nothing plays (checked by
 * opening the card exclusively, which waits for every reader of the recording).
 * Run with VCARD_DIR and ALSA_CONFIG_PATH from `vcard setup`, `vcard` on PATH,
 * AUDIOTOOLBOX_ARBITER=local (the interruption is simulated in-process).
 */
#include <AudioToolbox/AudioToolbox.h>
#include <alsa/asoundlib.h>
#include <math.h>
#include <sndfile.h>
#include <stdlib.h>
#include <time.h>
#include "../c/check.h"
#include "sounds.h"

static char dir[] = "/tmp/at-vsounds-XXXXXX";
static char recording[4096], ratePath[4096];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void vcard(const char *arguments)
{
    char command[512];
    snprintf(command, sizeof command, "vcard %s", arguments);
    if (system(command) != 0) { fprintf(stderr, "'%s' failed\n", command); exit(2); }
}

static int completions;
static double completedAt;
static void completion(SystemSoundID id, void *data)
{
    (void)id; (void)data;
    completions++;
    completedAt = now();
}

static void waitForCompletions(int count)
{
    while (completions < count) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
}

/* The recording so far (frames of 2 samples); the caller frees it. */
static short *readRecording(long *frames)
{
    long bytes = 0;
    short *samples = readWholeFile(recording, &bytes);
    *frames = bytes / 4;
    return samples;
}

/* Waits until nothing holds the card's playback any more (with `vcard exclusive on`, a
 * non-blocking open succeeds only then): the mixer closed its stream, so everything it
 * played is in the recording. */
static int waitUntilReleased(void)
{
    int released = 0;
    for (int attempt = 0; attempt < 400 && !released; attempt++) {
        snd_pcm_t *probe = NULL;
        if (snd_pcm_open(&probe, "default", SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) == 0) {
            released = 1;
            snd_pcm_close(probe);
        } else {
            CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
        }
    }
    return released;
}

static long firstNonZero(const short *s, long frames)
{
    for (long i = 0; i < frames; i++) if (s[2 * i] || s[2 * i + 1]) return i;
    return -1;
}

static long lastNonZero(const short *s, long frames)
{
    for (long i = frames - 1; i >= 0; i--) if (s[2 * i] || s[2 * i + 1]) return i;
    return -1;
}

int main(void)
{
    installWatchdog("system sounds on the virtual card");
    alarm(120);
    const char *vcardDir = getenv("VCARD_DIR");
    if (!vcardDir || !mkdtemp(dir)) return 2;
    snprintf(recording, sizeof recording, "%s/state.playback.raw", vcardDir);
    snprintf(ratePath, sizeof ratePath, "%s/state.playback.rate", vcardDir);
    vcard("rates 44100,48000");
    /* Exclusive from the start: every stream the mixer opens holds the card, so an
     * exclusive open of our own succeeds only once it is closed. */
    vcard("exclusive on");
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);

    /* 1. Two overlapping sounds at the card's rate: the recording is A + B (B starting a
     * whole number of mixer periods later, wherever its play landed), saturated. */
    enum { AF = 9600, BF = 4800 };
    static short a[AF * 2], b[BF * 2];
    for (long i = 0; i < AF; i++) { a[2 * i] = (short)(20000 + i % 1000); a[2 * i + 1] = (short)-(i % 3000); }
    for (long i = 0; i < BF; i++) { b[2 * i] = (short)(15000 + i % 7); b[2 * i + 1] = (short)(-30000 + i % 11); }
    SystemSoundID soundA = createSound(writeWav(dir, "a.wav", 48000, 2, a, AF));
    SystemSoundID soundB = createSound(writeWav(dir, "b.wav", 48000, 2, b, BF));
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(soundA, NULL, NULL, completion, NULL), noErr);
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(soundB, NULL, NULL, completion, NULL), noErr);
    vcard("record-reset");
    double start = now();
    AudioServicesPlaySystemSound(soundA);
    AudioServicesPlaySystemSound(soundB);
    waitForCompletions(2);
    CHECK(completedAt - start >= (double)AF / 48000, "completions come after the sound was heard (%.3f s)",
          completedAt - start);
    CHECK(waitUntilReleased(), "the stream is released once nothing plays");
    long frames = 0;
    short *rec = readRecording(&frames);
    FILE *rf = fopen(ratePath, "r");
    int rate = 0;
    if (rf) { if (fscanf(rf, "%d", &rate) != 1) rate = 0; fclose(rf); }
    CHECK(rate == 48000, "the mixer ran at 48000 Hz (card says %d)", rate);
    long begin = firstNonZero(rec, frames);
    CHECK(begin >= 0 && frames - begin >= AF, "the sounds were recorded (%ld frames)", frames);
    int matched = -1;
    for (int shift = 0; shift <= 16 * 1024 && matched < 0 && begin >= 0; shift += 1024) {
        int ok = 1;
        for (long i = 0; i < AF + shift + 16 && ok; i++) {
            long at = begin + i;
            if (at >= frames) { ok = 0; break; }
            for (int c = 0; c < 2; c++) {
                long expected = (i < AF ? a[2 * i + c] : 0) + (i >= shift && i - shift < BF ? b[2 * (i - shift) + c] : 0);
                if (expected > 32767) expected = 32767;
                if (expected < -32768) expected = -32768;
                if (rec[2 * at + c] != expected) { ok = 0; break; }
            }
        }
        if (ok) matched = shift;
    }
    CHECK(matched >= 0, "the recording is the sample-exact saturated mix of A and B");
    free(rec);

    /* 2. A 22050 Hz mono file arrives at 48000 Hz stereo, one second long, 441 Hz. */
    enum { MF = 22050 };
    static short mono[MF];
    for (long i = 0; i < MF; i++) mono[i] = (short)(12000 * sin(2 * M_PI * 441 * i / 22050.0));
    SystemSoundID soundM = createSound(writeWav(dir, "m.wav", 22050, 1, mono, MF));
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(soundM, NULL, NULL, completion, NULL), noErr);
    vcard("record-reset");
    start = now();
    AudioServicesPlaySystemSound(soundM);
    waitForCompletions(3);
    CHECK(completedAt - start >= 1.0, "not complete before its second was heard (%.3f s)", completedAt - start);
    waitUntilReleased();
    rec = readRecording(&frames);
    long first = firstNonZero(rec, frames), last = lastNonZero(rec, frames);
    long length = last - first + 1;
    CHECK(first >= 0 && labs(length - 48000) <= 96, "one second at 48 kHz (%ld frames)", length);
    int crossings = 0, sameSides = 1;
    for (long i = first + 1; first >= 0 && i <= last; i++) {
        if (rec[2 * (i - 1)] < 0 && rec[2 * i] >= 0) crossings++;
        if (rec[2 * i] != rec[2 * i + 1]) sameSides = 0;
    }
    CHECK(abs(crossings - 441) <= 1, "441 Hz: %d cycles in the second", crossings);
    CHECK(sameSides, "mono reaches both channels");
    free(rec);

    /* 3. During a system interruption sounds are silent; they still complete. */
    CHECK_STATUS(AudioSessionVirtualDeviceBeginInterruption(), noErr);
    runPendingCallbacks();
    vcard("record-reset");
    AudioServicesPlaySystemSound(soundA);
    waitForCompletions(4);
    waitUntilReleased();
    rec = readRecording(&frames);
    CHECK(frames > 0 && firstNonZero(rec, frames) < 0, "silence during the interruption (%ld frames)", frames);
    free(rec);
    CHECK_STATUS(AudioSessionVirtualDeviceEndInterruption(true), noErr);

    vcard("exclusive off");
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0) return 2;
    return finish("system sounds on the virtual card");
}
