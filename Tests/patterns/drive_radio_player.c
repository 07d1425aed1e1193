/*
 * Drives the radio player (radio_player.c): an MP3 made by ffmpeg (4 s of a 440 Hz tone)
 * is handed to the player in 2 KiB pieces by a network thread, which waits whenever the
 * player has no free buffer. On the virtual ALSA card the card hears the tone; a phone
 * call's Begin stops the queue before the player's listener runs (IsRunning 0 there,
 * its IsRunning listener told), the card hears nothing during the call; after End the
 * player's listener starts the queue and the card hears the tone again; at the end of
 * the stream Stop(false) plays what is left and IsRunning goes to 0. On the in-process
 * virtual device the same, without the card's ears.
 */
#include "patterns.h"
#include "radio_player.h"
#include <pthread.h>
#include <unistd.h>

static unsigned char *mp3;
static long mp3Bytes;
static volatile int fed;

static void *network(void *unused)
{
    (void)unused;
    for (long at = 0; at < mp3Bytes; at += 2048) {
        long piece = mp3Bytes - at < 2048 ? mp3Bytes - at : 2048;
        radio_player_bytes(mp3 + at, (unsigned long)piece);
    }
    radio_player_end();
    fed = 1;
    return NULL;
}

static long cardFrames(void)
{
    long frames = 0;
    free(cardRecording(&frames));
    return frames;
}

/* What the card heard, less its first 2048 frames: an MP3 decoder's start (its delay,
 * which a streamer without the LAME tag does not trim) is noise, not the tone. */
static long heardPastStart(double *hz, long *peak)
{
    long frames = 0, first = -1, last = -1;
    short *s = cardRecording(&frames);
    for (long i = 0; i < frames; i++) if (abs(s[2 * i]) > 64) { if (first < 0) first = i; last = i; }
    *hz = 0;
    *peak = 0;
    long length = first < 0 ? 0 : last - first + 1 - 2048;
    if (length > 0) *hz = pitchOf(s + 2 * (first + 2048), length, 2, cardPlaybackRate(), peak);
    free(s);
    return length > 0 ? length : 0;
}

static long hearAtLeast(long frames, double *hz, long *peak)
{
    long heard = 0;
    while ((heard = heardPastStart(hz, peak)) < frames) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.02, true);
    return heard;
}

static void spinUntilInt(int (*value)(void), int wanted)
{
    while (value() != wanted) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "radio player");
    char folder[] = "/tmp/radio-player.XXXXXX";
    CHECK(mkdtemp(folder) != NULL, "a scratch folder");
    char path[256], command[512];
    snprintf(path, sizeof path, "%s/radio.mp3", folder);
    snprintf(command, sizeof command,
             "ffmpeg -nostdin -loglevel error -y -f lavfi -i 'aevalsrc=0.5*sin(440*2*PI*t)|0.5*sin(440*2*PI*t):s=44100:d=4' "
             "-c:a libmp3lame -b:a 128k %s", path);
    CHECK(system(command) == 0, "ffmpeg makes the station's stream");
    mp3 = (unsigned char *)readWholeFile(path, &mp3Bytes);
    CHECK(mp3 != NULL && mp3Bytes > 40000, "the stream is %ld bytes", mp3Bytes);

    CHECK(radio_player_init(), "the player opens its session and parser");
    harnessAttach();
    if (onALSA) vcard("record-reset");
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, network, NULL) == 0, "the network thread starts");
    while (radio_player_buffers() < 3) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(radio_player_is_running(), "the queue runs once three buffers are in");
    double hz = 0;
    long peak = 0;
    if (onALSA) {
        long heard = hearAtLeast(9600, &hz, &peak);
        CHECK(hz > 435 && hz < 445, "the card hears the station: %.1f Hz over %ld frames (peak %ld)", hz, heard, peak);
    }

    phoneCall(1);
    spinUntilInt(radio_player_begins, 1);
    CHECK(!radio_player_is_running(), "Begin: the queue is stopped");
    for (int i = 0; i < 50 && strchr(radio_player_running_changes(), '0') == NULL; i++)
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(strcmp(radio_player_running_changes(), "10") == 0, "the IsRunning listener saw 1 then 0 (\"%s\")",
          radio_player_running_changes());
    long playedAtBegin = radio_player_buffers();
    if (onALSA) {
        long before = cardFrames();
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.3, false);
        long after = cardFrames();
        CHECK(after == before, "during the call the card receives nothing (%ld frames more)", after - before);
    } else {
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.3, false);
    }
    CHECK(radio_player_buffers() <= playedAtBegin + 1, "no buffer plays during the call (%ld then %ld)", playedAtBegin,
          radio_player_buffers());

    if (onALSA) vcard("record-reset");
    phoneCall(0);
    spinUntilInt(radio_player_ends, 1);
    CHECK(radio_player_is_running(), "End: the player started its queue again");
    if (onALSA) {
        long heard = hearAtLeast(9600, &hz, &peak);
        CHECK(hz > 435 && hz < 445, "after End the card hears the station again: %.1f Hz over %ld frames", hz, heard);
    }
    while (!fed) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    spinUntilInt(radio_player_is_running, 0);
    for (int i = 0; i < 50 && strcmp(radio_player_running_changes(), "1010") != 0; i++)
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(strcmp(radio_player_running_changes(), "1010") == 0,
          "IsRunning: 1, 0 (the call), 1 (after End), 0 (the stream's end) (\"%s\")", radio_player_running_changes());
    pthread_join(thread, NULL);
    radio_player_shutdown();
    free(mp3);
    snprintf(command, sizeof command, "rm -rf %s", folder);
    CHECK(system(command) == 0, "scratch folder removed");
    return finish("radio player");
}
