/*
 * What the virtual ALSA card hears (issue 17, item 8), through alsa-lib's "default"
 * PCM as any program opens it:
 *   a. `vcard capture-signal tone 1000 0.5`: a 1 kHz tone at half of full scale, on both
 *      channels, continuous across reads of any size;
 *   b. `vcard capture-signal echo 100 0.5 700 0.25`: while a program plays noise and
 *      records in step (one period out, one period in, as a duplex audio unit does),
 *      what it records is a 700 Hz near-end tone plus the noise it played, scaled by 0.5
 *      and 100 ms late — checked sample by sample against the card's own recording of
 *      what it played, at the lag the two streams' start times predict;
 *   c. `vcard capture-signal silence`: silence.
 * Run after eval "$(vcard setup DIR)". Reads at the card's own pace (a clock): the
 * checks are on values, never on time.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <alsa/asoundlib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../c/check.h"

#define RATE 48000
#define PERIOD 480 /* 10 ms */

static void vcard(const char *arguments)
{
    char command[256];
    snprintf(command, sizeof command, "vcard %s", arguments);
    CHECK(system(command) == 0, "%s", command);
}

static snd_pcm_t *openPCM(snd_pcm_stream_t stream)
{
    snd_pcm_t *pcm = NULL;
    int err = snd_pcm_open(&pcm, "default", stream, 0);
    CHECK(err == 0, "open default for %s: %s", stream == SND_PCM_STREAM_CAPTURE ? "capture" : "playback",
          snd_strerror(err));
    if (err < 0) return NULL;
    err = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, RATE, 0, 40000);
    CHECK(err == 0, "48 kHz stereo, 40 ms: %s", snd_strerror(err));
    return pcm;
}

static long long readNumber(const char *suffix, int field)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/state%s", getenv("VCARD_DIR"), suffix);
    FILE *file = fopen(path, "r");
    long long values[3] = {-1, -1, -1};
    if (file) {
        if (fscanf(file, "%lld %lld %lld", &values[0], &values[1], &values[2]) < 1) values[0] = -1;
        fclose(file);
    }
    return values[field];
}

/* a. A tone. */
static void tone(void)
{
    watchdogName = "tone";
    vcard("capture-signal tone 1000 0.5");
    snd_pcm_t *pcm = openPCM(SND_PCM_STREAM_CAPTURE);
    if (!pcm) return;
    enum { FRAMES = 24000 };
    static int16_t samples[2 * FRAMES];
    /* Reads of uneven sizes: the tone must join up across them. */
    long got = 0;
    for (int size = 97; got < FRAMES; size = size * 3 % 1000 + 50) {
        long want = FRAMES - got < size ? FRAMES - got : size;
        snd_pcm_sframes_t n = snd_pcm_readi(pcm, samples + 2 * got, (snd_pcm_uframes_t)want);
        CHECK(n > 0, "read: %s", n < 0 ? snd_strerror((int)n) : "nothing");
        if (n <= 0) break;
        got += n;
    }
    snd_pcm_close(pcm);
    /* Against the tone computed here: 0.5 of full scale, 1 kHz at 48 kHz, from frame 0. */
    int worst = 0, channelsDiffer = 0;
    for (long i = 0; i < got; i++) {
        double expected = 0.5 * 32767.0 * sin(2 * M_PI * (double)((i * 1000) % RATE) / RATE);
        int error = abs(samples[2 * i] - (int)lround(expected));
        if (error > worst) worst = error;
        channelsDiffer |= samples[2 * i] != samples[2 * i + 1];
    }
    CHECK(got == FRAMES, "half a second read (%ld frames)", got);
    CHECK(worst <= 1, "the samples are the 1 kHz tone at 0.5 (largest difference %d)", worst);
    CHECK(!channelsDiffer, "both channels hear the same");
}

/* b. An echo of what is played, and a near-end tone. */
static uint32_t noiseState = 12345;
static int16_t noise(void)
{
    noiseState = noiseState * 1664525u + 1013904223u;
    return (int16_t)((int32_t)(noiseState >> 16) - 32768) / 2;
}

/* One measurement; 0 when the output underran (its restart moves the recording's
 * origin: the measurement is made again). */
static int echoOnce(void)
{
    watchdogName = "echo";
    vcard("record-reset");
    vcard("capture-signal echo 100 0.5 700 0.25");
    snd_pcm_t *out = openPCM(SND_PCM_STREAM_PLAYBACK), *in = openPCM(SND_PCM_STREAM_CAPTURE);
    if (!out || !in) return 1;
    enum { FRAMES = RATE }; /* one second */
    static int16_t heard[2 * FRAMES];
    int16_t period[2 * PERIOD];
    long got = 0;
    /* Prime the output with two periods, then one out for one in. */
    for (int p = 0; p < 2; p++) {
        for (int i = 0; i < PERIOD; i++) period[2 * i] = period[2 * i + 1] = noise();
        CHECK(snd_pcm_writei(out, period, PERIOD) == PERIOD, "prime the output");
    }
    while (got < FRAMES) {
        for (int i = 0; i < PERIOD; i++) period[2 * i] = period[2 * i + 1] = noise();
        snd_pcm_sframes_t w = snd_pcm_writei(out, period, PERIOD);
        if (w == -EPIPE) {
            snd_pcm_close(out);
            snd_pcm_close(in);
            return 0;
        }
        CHECK(w == PERIOD, "write: %s", w < 0 ? snd_strerror((int)w) : "short");
        snd_pcm_sframes_t n = snd_pcm_readi(in, heard + 2 * got, PERIOD);
        CHECK(n == PERIOD, "read: %s", n < 0 ? snd_strerror((int)n) : "short");
        if (n <= 0 || w < 0) break;
        got += n;
    }
    snd_pcm_drain(out);
    snd_pcm_close(out);
    snd_pcm_close(in);

    /* What the card played, from its recording, and where the echo must land: the
       frame heard at capture time c echoes the frame played at c - 100 ms. */
    long long playbackStart = readNumber(".playback.origin", 0), firstFrame = readNumber(".playback.origin", 1);
    long long captureStart = readNumber(".capture.started", 0);
    CHECK(playbackStart > 0 && captureStart > 0 && firstFrame == 0, "start times known (%lld, %lld, frame %lld)",
          playbackStart, captureStart, firstFrame);
    char path[4096];
    snprintf(path, sizeof path, "%s/state.playback.raw", getenv("VCARD_DIR"));
    FILE *file = fopen(path, "rb");
    static int16_t played[2 * 2 * FRAMES];
    size_t playedFrames = file ? fread(played, 4, 2 * FRAMES, file) : 0;
    if (file) fclose(file);
    CHECK(playedFrames > (size_t)FRAMES / 2, "the card recorded what it played (%zu frames)", playedFrames);
    int worst = 0, echoes = 0;
    double echoEnergy = 0;
    /* Frame n of the capture was heard (captureStart + n / RATE); 100 ms before, the
       playback was at frame floor((captureStart - 100 ms - playbackStart) x RATE) + n. */
    long long scaled = (captureStart - 100000000LL - playbackStart) * RATE;
    long long base = scaled >= 0 ? scaled / 1000000000LL : -((-scaled + 999999999LL) / 1000000000LL);
    for (long n = 0; n < got; n++) {
        long long m = base + n;
        double expected = 0.25 * 32767.0 * sin(2 * M_PI * (double)((n * 700) % RATE) / RATE);
        /* Frames whose source lies within the recording; others may be silence or not
           yet recorded when read. */
        if (m < 0 || m >= (long long)playedFrames) continue;
        expected += 0.5 * played[2 * m];
        echoes++;
        echoEnergy += (0.5 * played[2 * m]) * (0.5 * played[2 * m]);
        int error = abs(heard[2 * n] - (int)lround(expected));
        if (error > worst) worst = error;
    }
    CHECK(echoes > FRAMES / 2, "most of the second heard an echo (%d frames)", echoes);
    CHECK(echoEnergy > 0, "the echo is not silence");
    CHECK(worst <= 2, "each frame heard is the near-end tone plus 0.5 x what played 100 ms before (largest "
          "difference %d)", worst);
    return 1;
}

static void echo(void)
{
    int tries = 0;
    while (!echoOnce()) {
        tries++;
        CHECK(tries < 3, "the output underran in %d measurements in a row", tries);
        if (tries >= 3) return;
    }
}

/* c. Silence again. */
static void silence(void)
{
    watchdogName = "silence";
    vcard("capture-signal silence");
    snd_pcm_t *pcm = openPCM(SND_PCM_STREAM_CAPTURE);
    if (!pcm) return;
    int16_t samples[2 * 4800];
    memset(samples, 0x55, sizeof samples);
    snd_pcm_sframes_t n = snd_pcm_readi(pcm, samples, 4800);
    CHECK(n == 4800, "a read of 0.1 s (%ld)", (long)n);
    int silent = 1;
    for (int i = 0; i < 2 * 4800; i++) silent &= samples[i] == 0;
    CHECK(silent, "of silence");
    snd_pcm_close(pcm);
}

int main(void)
{
    if (!getenv("VCARD_DIR")) {
        fputs("test_vcard_capture: run after eval \"$(vcard setup DIR)\"\n", stderr);
        return 1;
    }
    installWatchdog("vcard capture");
    alarm(60);
    tone();
    echo();
    silence();
    return finish("vcard capture");
}
