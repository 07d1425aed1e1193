/*
 * Drives MixerHost's shape (mixer_host.c): two loops written as WAV files here (a
 * 440 Hz "guitar", stereo at 44.1 kHz, and a 660 Hz "beats", mono at 22.05 kHz, each a
 * whole number of cycles so its loop is seamless), read whole by the module and mixed.
 *   1. Both buses play: both tones are heard.
 *   2. From a second thread, as a UI does: the beats bus disabled and the guitar at half
 *      gain: the beats' callback is no longer called, the guitar is heard at half.
 *   3. A phone call: the module stops its graph in Begin (AUGraphIsRunning false there),
 *      nothing is played during the call, and after End the module starts it again and
 *      the guitar is heard again.
 * Then the graph is torn down without an error.
 */
#include "patterns.h"
#include "mixer_host.h"
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static void writeWav(const char *path, int rate, int channels, double hz, double amplitude)
{
    FILE *f = fopen(path, "wb");
    uint32_t frames = (uint32_t)rate, bytes = frames * 2u * (uint32_t)channels;
    uint32_t u32;
    uint16_t u16;
    fwrite("RIFF", 1, 4, f);
    u32 = 36 + bytes; fwrite(&u32, 4, 1, f);
    fwrite("WAVEfmt ", 1, 8, f);
    u32 = 16; fwrite(&u32, 4, 1, f);
    u16 = 1; fwrite(&u16, 2, 1, f);
    u16 = (uint16_t)channels; fwrite(&u16, 2, 1, f);
    u32 = (uint32_t)rate; fwrite(&u32, 4, 1, f);
    u32 = (uint32_t)(rate * 2 * channels); fwrite(&u32, 4, 1, f);
    u16 = (uint16_t)(2 * channels); fwrite(&u16, 2, 1, f);
    u16 = 16; fwrite(&u16, 2, 1, f);
    fwrite("data", 1, 4, f);
    fwrite(&bytes, 4, 1, f);
    for (uint32_t i = 0; i < frames; i++) {
        short s = (short)lround(32767 * amplitude * sin(2 * M_PI * hz * i / rate));
        for (int c = 0; c < channels; c++) fwrite(&s, 2, 1, f);
    }
    fclose(f);
}

/* The amplitude of `hz` in `n` frames of the card's left channel from `first` (a
 * Goertzel filter over a Hann window). */
static double toneLevel(const short *s, long first, long n, double hz, double rate)
{
    double w = 2 * M_PI * hz / rate, c = 2 * cos(w), s1 = 0, s2 = 0;
    for (long i = 0; i < n; i++) {
        double hann = 0.5 * (1 - cos(2 * M_PI * i / (n - 1)));
        double s0 = s[2 * (first + i)] / 32768.0 * hann + c * s1 - s2;
        s2 = s1;
        s1 = s0;
    }
    double power = s1 * s1 + s2 * s2 - c * s1 * s2;
    return 4 * sqrt(power > 0 ? power : 0) / n;
}

static long recorded(void)
{
    long frames = 0;
    free(cardRecording(&frames));
    return frames;
}

static void awaitBus(mixer_host_state *s, int bus, long frames)
{
    long target = s->frames[bus] + frames;
    while (s->frames[bus] < target) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
}

static volatile int uiStatus = -1;
static void *ui(void *unused)
{
    (void)unused;
    int status = mixer_host_enable(1, 0);
    if (status == 0) status = mixer_host_gain(0, 0.5f);
    uiStatus = status;
    return NULL;
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "mixer_host");
    char guitar[64], beats[64];
    snprintf(guitar, sizeof guitar, "/tmp/mixer_host_guitar_%d.wav", (int)getpid());
    snprintf(beats, sizeof beats, "/tmp/mixer_host_beats_%d.wav", (int)getpid());
    writeWav(guitar, 44100, 2, 440, 0.4);
    writeWav(beats, 22050, 1, 660, 0.3);
    int loaded = mixer_host_load(guitar, beats);
    unlink(guitar);
    unlink(beats);
    CHECK(loaded == 0, "both loops read by ExtAudioFile (%s)", statusText(loaded));
    if (onALSA) vcard("record-reset");
    int started = mixer_host_start();
    CHECK(started == 0, "the graph opens, initializes and starts (%s)", statusText(started));
    harnessAttach();
    mixer_host_state *s = mixer_host_status();
    CHECK(mixer_host_running(), "AUGraphIsRunning after AUGraphStart");

    /* 1. Both buses. */
    awaitBus(s, 0, 22050);
    long bothFrom = onALSA ? recorded() : 0;
    awaitBus(s, 0, 22050);
    long bothTo = onALSA ? recorded() : 0;
    CHECK(s->frames[1] > 0, "the beats bus is pulled (%ld frames)", s->frames[1]);

    /* 2. The UI's thread: beats off, guitar at half. */
    pthread_t thread;
    pthread_create(&thread, NULL, ui, NULL);
    pthread_join(thread, NULL);
    CHECK(uiStatus == 0, "enable and gain set from another thread (%s)", statusText(uiStatus));
    awaitBus(s, 0, 11025); /* the change reaches the render thread */
    long beatsOff = s->frames[1];
    long halfFrom = onALSA ? recorded() : 0;
    awaitBus(s, 0, 22050);
    long halfTo = onALSA ? recorded() : 0;
    CHECK(s->frames[1] == beatsOff, "a disabled bus's callback is not called (%ld more frames)", s->frames[1] - beatsOff);

    /* 3. A phone call. */
    phoneCall(1);
    while (s->begins < 1) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(s->running_in_begin == 0, "stopped in Begin: AUGraphIsRunning false there");
    CHECK(!mixer_host_running(), "and still stopped during the call");
    long atBegin = s->frames[0], cardAtBegin = onALSA ? recorded() : 0;
    settle();
    CHECK(s->frames[0] == atBegin, "no bus pulled during the call (%ld frames)", s->frames[0] - atBegin);
    if (onALSA) CHECK(recorded() == cardAtBegin, "nothing reaches the card during the call (%ld frames)", recorded() - cardAtBegin);
    phoneCall(0);
    while (s->ends < 1) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(s->restart_status == 0, "started again after End (%s)", statusText(s->restart_status));
    CHECK(mixer_host_running(), "running after End");
    awaitBus(s, 0, 11025);
    long againFrom = onALSA ? recorded() : 0;
    awaitBus(s, 0, 22050);
    long againTo = onALSA ? recorded() : 0;
    CHECK(s->frames[1] == beatsOff, "the beats bus stays disabled through the call");

    if (onALSA) {
        long frames = 0;
        short *heard = cardRecording(&frames);
        double rate = cardPlaybackRate();
        double both440 = toneLevel(heard, bothFrom, bothTo - bothFrom, 440, rate);
        double both660 = toneLevel(heard, bothFrom, bothTo - bothFrom, 660, rate);
        double half440 = toneLevel(heard, halfFrom, halfTo - halfFrom, 440, rate);
        double half660 = toneLevel(heard, halfFrom, halfTo - halfFrom, 660, rate);
        double again440 = toneLevel(heard, againFrom, againTo - againFrom, 440, rate);
        printf("measured: both 440 Hz %.3f / 660 Hz %.3f; then 440 Hz %.3f / 660 Hz %.4f; after the call 440 Hz %.3f\n",
               both440, both660, half440, half660, again440);
        CHECK(fabs(both440 - 0.4) < 0.04 && fabs(both660 - 0.3) < 0.03, "both loops heard (440 Hz %.3f, 660 Hz %.3f)", both440,
              both660);
        CHECK(fabs(half440 - 0.2) < 0.02 && half660 < 0.01, "beats off, guitar at half (440 Hz %.3f, 660 Hz %.4f)", half440,
              half660);
        CHECK(fabs(again440 - 0.2) < 0.02, "the guitar again after the call (%.3f)", again440);
        free(heard);
    }
    int stopped = mixer_host_stop();
    CHECK(stopped == 0, "stopped, uninitialized and disposed of (%s)", statusText(stopped));
    return finish("mixer_host");
}
