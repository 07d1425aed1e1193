/*
 * Drives the emulator's sound output (emulator_audio.c): the emulated machine produces
 * one second of a 750 Hz tone at 44.1 kHz from its own thread, as fast as the ring takes
 * it; the render callback drains the ring with no session ever initialised. All of it
 * is consumed, and on the card the tone is heard for its second, at its pitch.
 */
#include "patterns.h"
#include "emulator_audio.h"
#include <math.h>
#include <pthread.h>
#include <unistd.h>

enum { RATE = 44100, TOTAL = 44100 };
static volatile long produced;

static void *emulate(void *unused)
{
    static short chunk[512 * 2];
    double phase = 0;
    (void)unused;
    while (produced < TOTAL) {
        int n = TOTAL - produced < 512 ? (int)(TOTAL - produced) : 512;
        for (int i = 0; i < n; i++) {
            chunk[2 * i] = chunk[2 * i + 1] = (short)(10000 * sin(phase));
            phase += 2 * M_PI * 750 / RATE;
        }
        int done = 0;
        while (done < n) {
            int taken = emu_audio_write(chunk + 2 * done, n - done);
            done += taken;
            if (taken == 0) usleep(2000); /* the ring is full: the emulator waits a frame */
        }
        produced += n;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "emulator_audio");
    if (onALSA) vcard("record-reset");
    /* The machine runs first and fills the ring, as an emulator boots before its sound
     * starts: the tone then has no gap for the card to hear. */
    pthread_t thread;
    pthread_create(&thread, NULL, emulate, NULL);
    while (produced < 8192) usleep(1000);
    int started = emu_audio_init(RATE);
    CHECK(started == 0, "RemoteIO starts with no session (%s)", statusText(started));
    pthread_join(thread, NULL);
    while (emu_audio_consumed() < TOTAL) usleep(10000);
    /* Two more periods of silence so the last frames leave the device before the stop. */
    long drained = emu_audio_underruns();
    while (emu_audio_underruns() < drained + 20) usleep(10000);
    emu_audio_shutdown();
    CHECK(emu_audio_consumed() == TOTAL, "every frame the emulator wrote was played (%ld)", emu_audio_consumed());
    if (onALSA) {
        double hz = 0;
        long peak = 0, heard = cardHeard(&hz, &peak);
        long expected = (long)(TOTAL * (double)cardPlaybackRate() / RATE);
        printf("measured: %ld frames heard (expected %ld), %.1f Hz, peak %ld\n", heard, expected, hz, peak);
        CHECK(labs(heard - expected) < expected / 50, "one second heard (%ld frames of %ld)", heard, expected);
        CHECK(fabs(hz - 750) < 8, "at 750 Hz (%.1f)", hz);
        CHECK(labs(peak - 10000) < 600, "at its level (peak %ld)", peak);
    }
    return finish("emulator_audio");
}
