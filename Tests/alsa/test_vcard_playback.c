/*
 * The virtual card's playback PCM behaves like a sound card (vcard/pcm_vcard.c), seen
 * through plain alsa-lib on "default":
 *
 *  a. It plays in real time: drain returns no earlier than the written audio lasts,
 *     counted from the first write; snd_pcm_delay right after writing is positive and
 *     consistent with the clock; waiting sleeps instead of spinning; the recording
 *     ($VCARD_DIR/state.playback.raw) holds exactly the written frames, and the rate
 *     file and `vcard status` report them.
 *  b. snd_pcm_drop mid-stream: the recording keeps what played and nothing more; the
 *     stream prepared again appends to it.
 *  c. An underrun stops the stream (-EPIPE, XRUN) with every written frame played, and
 *     snd_pcm_prepare starts over.
 *  d. snd_pcm_pause freezes the clock.
 *  e. Non-blocking writes and drain driven by the program's own poll of the PCM's
 *     descriptors: the descriptor wakes the program, and nothing spins.
 *  f. Negotiation-only opens (open, hw_params, close) record nothing.
 *  g. Capture gives silence at once, at the program's pace.
 *
 * The time checks are correctness properties of a real-time device, one-sided: audio
 * can never finish before its duration has passed; a slow machine only makes every
 * bound easier. Where a check needs the program to have run promptly (a frame still
 * pending when the program drops it) the test measures and says so instead of assuming.
 *
 * Needs VCARD_DIR and ALSA_CONFIG_PATH from `vcard setup`, and `vcard` on PATH. Built with
 * alsa-lib alone; the AudioToolbox headers, when on the include path, only give
 * ../c/check.h its types.
 */
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The house harness (check.h needs the AudioToolbox headers for its types). */
#include <AudioToolbox/AudioToolbox.h>
#include "../c/check.h"

enum { RATE = 48000, HALF_SECOND = RATE / 2 };

/* ---- helpers ---------------------------------------------------------------------- */

static double monotonicSeconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpuSeconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleepSeconds(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR) {}
}

static void vcard(const char *arguments)
{
    char command[256];
    snprintf(command, sizeof command, "vcard %s", arguments);
    CHECK(system(command) == 0, "%s", command);
}

/* The pattern: frame i of a ramp, left and right different. */
static int16_t patternSample(long frame, int channel)
{
    uint16_t value = (uint16_t)(frame * 3 + 1);
    return (int16_t)(channel == 0 ? value : (uint16_t)~value);
}

static void fillPattern(int16_t *samples, long first, long count)
{
    for (long i = 0; i < count; i++) {
        samples[2 * i] = patternSample(first + i, 0);
        samples[2 * i + 1] = patternSample(first + i, 1);
    }
}

static void cardPath(char *path, size_t size, const char *suffix)
{
    snprintf(path, size, "%s/state%s", getenv("VCARD_DIR"), suffix);
}

/* The recording's frames (the caller frees them); *frames gets their count. */
static int16_t *readRecording(long *frames)
{
    char path[4096];
    cardPath(path, sizeof path, ".playback.raw");
    *frames = 0;
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long bytes = ftell(file);
    fseek(file, 0, SEEK_SET);
    int16_t *samples = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (samples && bytes > 0 && fread(samples, 1, (size_t)bytes, file) != (size_t)bytes) bytes = 0;
    fclose(file);
    CHECK(bytes % 4 == 0, "the recording holds whole frames (%ld bytes)", bytes);
    *frames = bytes / 4;
    return samples;
}

static long recordingFrames(void)
{
    long frames;
    free(readRecording(&frames));
    return frames;
}

/* Whether recording frames [at, at + count) are pattern frames [first, first + count). */
static int recordingMatches(const int16_t *samples, long at, long first, long count)
{
    for (long i = 0; i < count; i++)
        if (samples[2 * (at + i)] != patternSample(first + i, 0) || samples[2 * (at + i) + 1] != patternSample(first + i, 1)) {
            fprintf(stderr, "  recording frame %ld: %d,%d, expected %d,%d\n", at + i, samples[2 * (at + i)],
                    samples[2 * (at + i) + 1], patternSample(first + i, 0), patternSample(first + i, 1));
            return 0;
        }
    return 1;
}

static unsigned recordedRate(void)
{
    char path[4096];
    cardPath(path, sizeof path, ".playback.rate");
    unsigned rate = 0;
    FILE *file = fopen(path, "r");
    if (file) {
        if (fscanf(file, "%u", &rate) != 1) rate = 0;
        fclose(file);
    }
    return rate;
}

/* Opens "default" for playback at 48000 Hz, S16 stereo, with about `latency` us of buffer. */
static snd_pcm_t *openPlayback(int mode, unsigned latency)
{
    snd_pcm_t *pcm = NULL;
    int err = snd_pcm_open(&pcm, "default", SND_PCM_STREAM_PLAYBACK, mode);
    CHECK(err == 0, "open default for playback: %s", snd_strerror(err));
    if (err < 0) return NULL;
    err = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, RATE, 0, latency);
    CHECK(err == 0, "48000 Hz S16 stereo, %u us: %s", latency, snd_strerror(err));
    if (err < 0) {
        snd_pcm_close(pcm);
        return NULL;
    }
    return pcm;
}

/* Writes pattern frames [first, first + count) in chunks, blocking or, for a
 * non-blocking PCM, waiting in poll on its descriptors. An underrun is recovered and
 * counted in *xruns (the frames after it append to the recording all the same). */
static long writePattern(snd_pcm_t *pcm, long first, long count, int *xruns, double *firstWrite, int *pollTimeouts)
{
    int16_t chunk[2 * 1000];
    long done = 0;
    while (done < count) {
        long n = count - done < 1000 ? count - done : 1000;
        fillPattern(chunk, first + done, n);
        if (firstWrite && *firstWrite == 0) *firstWrite = monotonicSeconds();
        snd_pcm_sframes_t wrote = snd_pcm_writei(pcm, chunk, (snd_pcm_uframes_t)n);
        if (wrote == -EPIPE) {
            if (xruns) (*xruns)++;
            if (snd_pcm_prepare(pcm) < 0) break;
            continue;
        }
        if (wrote == -EAGAIN) {
            struct pollfd fds[4];
            int nfds = snd_pcm_poll_descriptors(pcm, fds, 4);
            int ready = poll(fds, (nfds_t)nfds, 5000);
            if (ready == 0 && pollTimeouts) (*pollTimeouts)++;
            unsigned short revents = 0;
            snd_pcm_poll_descriptors_revents(pcm, fds, (unsigned)nfds, &revents);
            continue;
        }
        if (wrote < 0) {
            CHECK(0, "writei: %s", snd_strerror((int)wrote));
            break;
        }
        done += wrote;
    }
    return done;
}

/* ---- a. real time, and the recording ------------------------------------------------ */

static void playsInRealTime(void)
{
    watchdogName = "plays in real time";
    vcard("record-reset");
    snd_pcm_t *pcm = openPlayback(0, 200000);
    if (!pcm) return;
    snd_pcm_uframes_t buffer = 0, period = 0;
    snd_pcm_get_params(pcm, &buffer, &period);
    int xruns = 0;
    double firstWrite = 0, cpuStart = cpuSeconds();
    long wrote = writePattern(pcm, 0, HALF_SECOND, &xruns, &firstWrite, NULL);
    CHECK(wrote == HALF_SECOND, "wrote the half second (%ld frames)", wrote);
    snd_pcm_sframes_t delay = -1;
    int err = snd_pcm_delay(pcm, &delay);
    double afterDelay = monotonicSeconds();
    CHECK(err == 0 && delay > 0, "right after writing, frames are still to play (delay %ld, %s)", (long)delay,
          snd_strerror(err));
    if (xruns == 0) {
        /* Played frames cannot outrun the clock, nor can the buffer hold more than its size. */
        long playable = (long)ceil((afterDelay - firstWrite) * RATE);
        CHECK(delay >= HALF_SECOND - playable && delay <= (snd_pcm_sframes_t)buffer,
              "delay %ld within [%ld, %lu] (written %d, clock %ld frames)", (long)delay, HALF_SECOND - playable,
              (unsigned long)buffer, HALF_SECOND, playable);
    }
    err = snd_pcm_drain(pcm);
    double drained = monotonicSeconds(), cpu = cpuSeconds() - cpuStart;
    CHECK(err == 0, "drain: %s", snd_strerror(err));
    CHECK(drained - firstWrite >= 0.5, "drain returned %.4f s after the first write of 0.5 s of audio",
          drained - firstWrite);
    /* Waiting sleeps: a spinning device would use about as much CPU as time passed. */
    CHECK(cpu < (drained - firstWrite) / 4, "CPU %.3f s over %.3f s of playing", cpu, drained - firstWrite);
    snd_pcm_close(pcm);

    long frames;
    int16_t *samples = readRecording(&frames);
    CHECK(frames == HALF_SECOND, "the recording holds the %d frames written (%ld; %d underruns)", HALF_SECOND, frames,
          xruns);
    CHECK(samples && frames >= HALF_SECOND && recordingMatches(samples, 0, 0, HALF_SECOND),
          "the recording is the written pattern, sample for sample");
    free(samples);
    CHECK(recordedRate() == RATE, "the rate file says %d (%u)", RATE, recordedRate());
    FILE *status = popen("vcard status", "r");
    char line[256] = "";
    if (status) {
        if (!fgets(line, sizeof line, status)) line[0] = 0;
        pclose(status);
    }
    CHECK(strcmp(line, "recording 24000 frames rate 48000\n") == 0, "vcard status: %s", line);
}

/* ---- b. drop ------------------------------------------------------------------------ */

static void dropRecordsWhatPlayed(void)
{
    watchdogName = "drop";
    vcard("record-reset");
    snd_pcm_t *pcm = openPlayback(0, 200000);
    if (!pcm) return;
    int xruns = 0;
    double firstWrite = 0;
    writePattern(pcm, 0, HALF_SECOND, &xruns, &firstWrite, NULL);
    snd_pcm_sframes_t delay = 0;
    int delayError = snd_pcm_delay(pcm, &delay);
    double beforeDrop = monotonicSeconds();
    CHECK(snd_pcm_drop(pcm) == 0, "drop");
    double afterDrop = monotonicSeconds();

    long frames;
    int16_t *samples = readRecording(&frames);
    CHECK(samples && frames > 0 && recordingMatches(samples, 0, 0, frames),
          "what was recorded is the pattern's beginning (%ld frames)", frames);
    free(samples);
    CHECK(frames <= (long)ceil((afterDrop - firstWrite) * RATE), "no more recorded (%ld) than the clock played (%.4f s)",
          frames, afterDrop - firstWrite);
    if (xruns == 0 && delayError == 0) {
        CHECK(frames >= HALF_SECOND - delay, "all that had played before the drop is recorded (%ld, delay was %ld)", frames,
              (long)delay);
        /* The frames still pending at the drop are not recorded, unless the clock could
           have played them all between the delay and the drop (a stalled test). */
        CHECK(frames < HALF_SECOND || (afterDrop - beforeDrop) * RATE >= delay,
              "dropped frames are not recorded (%ld of %d, %ld were pending)", frames, HALF_SECOND, (long)delay);
    }

    /* Prepared again, the stream plays on, appended to the recording. */
    CHECK(snd_pcm_prepare(pcm) == 0, "prepare after drop");
    long more = writePattern(pcm, 30000, 4800, &xruns, NULL, NULL);
    CHECK(more == 4800 && snd_pcm_drain(pcm) == 0, "the prepared stream plays 0.1 s more");
    snd_pcm_close(pcm);
    long total;
    samples = readRecording(&total);
    CHECK(total == frames + 4800 && samples && recordingMatches(samples, frames, 30000, 4800),
          "the second stream's frames follow the first's (%ld = %ld + 4800)", total, frames);
    free(samples);
}

/* ---- c. underrun ---------------------------------------------------------------------- */

static void underrunStops(void)
{
    watchdogName = "underrun";
    vcard("record-reset");
    snd_pcm_t *pcm = openPlayback(0, 100000);
    if (!pcm) return;
    snd_pcm_sw_params_t *sw;
    snd_pcm_sw_params_alloca(&sw);
    snd_pcm_sw_params_current(pcm, sw);
    snd_pcm_sw_params_set_start_threshold(pcm, sw, 1);
    CHECK(snd_pcm_sw_params(pcm, sw) == 0, "start at the first frame");
    int16_t chunk[2 * 960];
    fillPattern(chunk, 0, 960);
    CHECK(snd_pcm_writei(pcm, chunk, 960) == 960, "wrote 20 ms");
    CHECK(snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING, "running (%s)", snd_pcm_state_name(snd_pcm_state(pcm)));
    sleepSeconds(0.1); /* five times what was written: the frames have run out */
    CHECK(snd_pcm_avail(pcm) == -EPIPE, "avail reports the underrun");
    CHECK(snd_pcm_state(pcm) == SND_PCM_STATE_XRUN, "XRUN (%s)", snd_pcm_state_name(snd_pcm_state(pcm)));
    fillPattern(chunk, 960, 960);
    CHECK(snd_pcm_writei(pcm, chunk, 960) == -EPIPE, "a write after the underrun gets EPIPE");
    CHECK(recordingFrames() == 960, "the 20 ms all played before the underrun (%ld frames)", recordingFrames());
    CHECK(snd_pcm_prepare(pcm) == 0, "prepare after the underrun");
    CHECK(snd_pcm_writei(pcm, chunk, 960) == 960, "writes again");
    CHECK(snd_pcm_drain(pcm) == 0, "drain");
    snd_pcm_close(pcm);
    long frames;
    int16_t *samples = readRecording(&frames);
    CHECK(frames == 1920 && samples && recordingMatches(samples, 0, 0, 1920), "both 20 ms recorded in order (%ld)",
          frames);
    free(samples);
}

/* ---- d. pause -------------------------------------------------------------------------- */

static void pauseFreezes(void)
{
    watchdogName = "pause";
    vcard("record-reset");
    snd_pcm_t *pcm = openPlayback(0, 200000);
    if (!pcm) return;
    snd_pcm_hw_params_t *hw;
    snd_pcm_hw_params_alloca(&hw);
    snd_pcm_hw_params_current(pcm, hw);
    CHECK(snd_pcm_hw_params_can_pause(hw), "the device can pause");
    int xruns = 0, paused = 0;
    double firstWrite = 0;
    writePattern(pcm, 0, HALF_SECOND, &xruns, &firstWrite, NULL);
    if (xruns == 0 && snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING) {
        paused = 1;
        CHECK(snd_pcm_pause(pcm, 1) == 0, "pause");
        snd_pcm_sframes_t before = -1, after = -2;
        snd_pcm_delay(pcm, &before);
        long recordedBefore = recordingFrames();
        sleepSeconds(0.1);
        snd_pcm_delay(pcm, &after);
        CHECK(before == after && before > 0, "paused, nothing plays (delay %ld, then %ld)", (long)before, (long)after);
        CHECK(recordingFrames() == recordedBefore, "nor is recorded");
        CHECK(snd_pcm_pause(pcm, 0) == 0, "resume");
    } else {
        fprintf(stderr, "  pause: not running after the writes (%d underruns, %s: a stalled test); not checked\n", xruns,
                snd_pcm_state_name(snd_pcm_state(pcm)));
    }
    CHECK(snd_pcm_drain(pcm) == 0, "drain");
    double drained = monotonicSeconds();
    if (paused)
        CHECK(drained - firstWrite >= 0.6, "0.5 s of audio and 0.1 s paused took %.4f s", drained - firstWrite);
    snd_pcm_close(pcm);
    long frames;
    int16_t *samples = readRecording(&frames);
    CHECK(frames == HALF_SECOND && samples && recordingMatches(samples, 0, 0, HALF_SECOND),
          "all frames recorded once (%ld)", frames);
    free(samples);
}

/* ---- e. non-blocking, the program's own poll ------------------------------------------- */

static void nonBlockingPoll(void)
{
    watchdogName = "non-blocking";
    vcard("record-reset");
    snd_pcm_t *pcm = openPlayback(SND_PCM_NONBLOCK, 100000);
    if (!pcm) return;
    int xruns = 0, timeouts = 0;
    double firstWrite = 0, cpuStart = cpuSeconds();
    long wrote = writePattern(pcm, 0, HALF_SECOND, &xruns, &firstWrite, &timeouts);
    CHECK(wrote == HALF_SECOND, "wrote the half second without blocking (%ld)", wrote);
    int err, polls = 0;
    while ((err = snd_pcm_drain(pcm)) == -EAGAIN && polls < 1000) {
        struct pollfd fds[4];
        int nfds = snd_pcm_poll_descriptors(pcm, fds, 4);
        if (poll(fds, (nfds_t)nfds, 5000) == 0) timeouts++;
        polls++;
    }
    double drained = monotonicSeconds(), cpu = cpuSeconds() - cpuStart;
    CHECK(err == 0, "the non-blocking drain completes (%s, %d polls)", snd_strerror(err), polls);
    CHECK(drained - firstWrite >= 0.5, "after 0.5 s at least (%.4f s)", drained - firstWrite);
    CHECK(timeouts == 0, "the descriptor woke the program every time (%d polls timed out)", timeouts);
    CHECK(cpu < (drained - firstWrite) / 4, "CPU %.3f s over %.3f s of polling", cpu, drained - firstWrite);
    snd_pcm_close(pcm);
    long frames;
    int16_t *samples = readRecording(&frames);
    CHECK(frames == HALF_SECOND && samples && recordingMatches(samples, 0, 0, HALF_SECOND),
          "the recording is the pattern (%ld frames, %d underruns)", frames, xruns);
    free(samples);
}

/* ---- f. negotiation only ------------------------------------------------------------------ */

static void negotiationRecordsNothing(void)
{
    watchdogName = "negotiation";
    vcard("record-reset");
    for (int i = 0; i < 50; i++) {
        snd_pcm_t *pcm = openPlayback(SND_PCM_NONBLOCK, 50000);
        if (!pcm) break;
        if (i % 2) {
            /* Written but never started (below the start threshold): discarded at close. */
            int16_t chunk[2 * 256];
            fillPattern(chunk, 0, 256);
            CHECK(snd_pcm_writei(pcm, chunk, 256) == 256, "a few frames written");
        }
        snd_pcm_close(pcm);
    }
    CHECK(recordingFrames() == 0, "opens that never start record nothing (%ld frames)", recordingFrames());
}

/* ---- g. capture ------------------------------------------------------------------------ */

static void captureSilence(void)
{
    watchdogName = "capture";
    snd_pcm_t *pcm = NULL;
    int err = snd_pcm_open(&pcm, "default", SND_PCM_STREAM_CAPTURE, 0);
    CHECK(err == 0, "open default for capture: %s", snd_strerror(err));
    if (err < 0) return;
    err = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, RATE, 0, 100000);
    CHECK(err == 0, "capture at 48000 Hz: %s", snd_strerror(err));
    int16_t samples[2 * 4800];
    memset(samples, 0x55, sizeof samples);
    long got = 0;
    for (int i = 0; i < 10 && err == 0; i++) {
        snd_pcm_sframes_t n = snd_pcm_readi(pcm, samples, 4800);
        if (n < 0) break;
        got += n;
    }
    CHECK(got == 48000, "ten reads of 0.1 s (%ld frames)", got);
    int silent = 1;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) silent &= samples[i] == 0;
    CHECK(silent, "of silence");
    snd_pcm_close(pcm);
}

int main(void)
{
    if (!getenv("VCARD_DIR")) {
        fputs("test_vcard_playback: run after eval \"$(vcard setup DIR)\"\n", stderr);
        return 1;
    }
    installWatchdog("vcard playback");
    alarm(120);
    playsInRealTime();
    dropRecordsWhatPlayed();
    underrunStops();
    pauseFreezes();
    nonBlockingPoll();
    negotiationRecordsNothing();
    captureSilence();
    return finish("vcard playback");
}
