/*
 * Drives DOOM's music shape (doom_music.c): a synthesizer thread renders one second of a
 * 660 Hz note at 22.05 kHz into the ring, as fast as it takes it; the graph's node input
 * callback plays it. All of it is played, the graph runs until it is stopped and is
 * torn down without an error, and on the card the note is heard for its second, at its
 * pitch.
 */
#include "patterns.h"
#include "doom_music.h"
#include <math.h>
#include <pthread.h>
#include <unistd.h>

enum { RATE = 22050, NOTE = 22050 };
static volatile long synthesized;

static void *synthesize(void *unused)
{
    static short block[256];
    double phase = 0;
    (void)unused;
    while (synthesized < NOTE) {
        int n = NOTE - synthesized < 256 ? (int)(NOTE - synthesized) : 256;
        for (int i = 0; i < n; i++, phase += 2 * M_PI * 660 / RATE) block[i] = (short)(9000 * sin(phase));
        for (int done = 0; done < n;) {
            int taken = doom_music_feed(block + done, n - done);
            done += taken;
            if (taken == 0) usleep(2000); /* the ring is full: the synthesizer waits */
        }
        synthesized += n;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "doom_music");
    if (onALSA) vcard("record-reset");
    /* The synthesizer gets ahead before the music starts, as the game's loader does. */
    pthread_t thread;
    pthread_create(&thread, NULL, synthesize, NULL);
    while (synthesized < 8192) usleep(1000);
    int started = doom_music_start(RATE);
    CHECK(started == 0, "the graph opens, initializes and starts (%s)", statusText(started));
    CHECK(doom_music_running(), "AUGraphIsRunning after AUGraphStart");
    pthread_join(thread, NULL);
    while (doom_music_played() < NOTE) usleep(10000);
    long starvedAtEnd = doom_music_starved();
    while (doom_music_starved() < starvedAtEnd + 20) usleep(10000); /* the last samples leave the device */
    int stopped = doom_music_stop();
    CHECK(stopped == 0, "stopped, uninitialized, closed and disposed of (%s)", statusText(stopped));
    CHECK(doom_music_played() == NOTE, "every synthesized sample was played (%ld)", doom_music_played());
    if (onALSA) {
        double hz = 0;
        long peak = 0, heard = cardHeard(&hz, &peak);
        long expected = (long)(NOTE * (double)cardPlaybackRate() / RATE);
        printf("measured: %ld frames heard (expected %ld), %.1f Hz, peak %ld\n", heard, expected, hz, peak);
        CHECK(labs(heard - expected) < expected / 50, "one second heard (%ld frames of %ld)", heard, expected);
        CHECK(fabs(hz - 660) < 8, "at 660 Hz (%.1f)", hz);
        CHECK(labs(peak - 9000) < 600, "at its level (peak %ld)", peak);
    }
    return finish("doom_music");
}
