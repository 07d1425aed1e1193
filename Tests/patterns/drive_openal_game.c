/*
 * Drives the OpenAL game (openal_game.c): a sound made by ffmpeg (IMA4 in CAF, what games
 * shipped) goes through the game's own Extended Audio File loader into OpenAL Soft; on
 * the virtual ALSA card the card hears it (OpenAL Soft's ALSA output, at its pitch); a
 * phone call's Begin runs the game's listener, which clears the context and pauses the
 * device, and the card then hears nothing; after End the game restores its context and
 * the card hears the sound again. On the in-process virtual device OpenAL Soft has no
 * card (its null output): the loader and the listener are checked there.
 */
#include "patterns.h"
#include "openal_game.h"
#include <unistd.h>

static void waitFor(int (*count)(void), int value)
{
    while (count() < value) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
}

static long cardFrames(void)
{
    long frames = 0;
    free(cardRecording(&frames));
    return frames;
}

/* Runs the run loop until the card has heard `frames` more loud frames. */
static long hearAtLeast(long frames, double *hz, long *peak)
{
    long heard = 0;
    while ((heard = cardHeard(hz, peak)) < frames) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.02, true);
    return heard;
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "openal game");
    /* OpenAL Soft opens ALSA's default device: the card under test, or nothing. */
    if (!onALSA) setenv("ALSOFT_DRIVERS", "null", 1);
    char folder[] = "/tmp/openal-game.XXXXXX";
    CHECK(mkdtemp(folder) != NULL, "a scratch folder");
    char path[256], command[512];
    snprintf(path, sizeof path, "%s/tone.caf", folder);
    snprintf(command, sizeof command,
             "ffmpeg -nostdin -loglevel error -y -f lavfi -i sine=frequency=440:sample_rate=44100:duration=2 -ac 2 "
             "-c:a adpcm_ima_qt %s", path);
    CHECK(system(command) == 0, "ffmpeg makes the game's sound");

    CHECK(openal_game_init(), "OpenAL opens a device and context");
    harnessAttach();
    CHECK(openal_game_play(path), "the game loads and plays its sound");
    long bytes = 0;
    int stereo16 = 0, rate = 0;
    const short *samples = NULL;
    CHECK(openal_game_loaded(&bytes, &stereo16, &rate, &samples), "the loader returned data");
    long frames = bytes / 4;
    /* IMA4 comes in 64-frame packets: 2 s is 88200 frames, rounded up to whole packets. */
    CHECK(stereo16 && rate == 44100 && frames >= 88200 && frames <= 88264,
          "loaded as 16-bit stereo at 44100 Hz, %ld frames", frames);
    long peak = 0;
    double hz = samples ? pitchOf(samples + 2 * 1000, frames - 2000, 2, 44100, &peak) : 0;
    CHECK(hz > 435 && hz < 445 && peak > 2000, "the loaded samples are the 440 Hz tone (%.1f Hz, peak %ld)", hz, peak);
    CHECK(openal_game_source_playing(), "the source plays");

    if (onALSA) {
        long heard = hearAtLeast(9600, &hz, &peak);
        CHECK(hz > 430 && hz < 450, "the card hears OpenAL's tone: %.1f Hz over %ld frames (peak %ld)", hz, heard, peak);
    }

    phoneCall(1);
    waitFor(openal_game_begins, 1);
    CHECK(openal_game_interrupted(), "Begin: the game's listener ran");
    if (onALSA) {
        long before = cardFrames();
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.3, false);
        long after = cardFrames();
        CHECK(after == before, "during the call the card receives nothing from OpenAL (%ld frames more)", after - before);
    }

    if (onALSA) vcard("record-reset");
    phoneCall(0);
    waitFor(openal_game_ends, 1);
    CHECK(!openal_game_interrupted() && sessionActive(), "End: the game restored its context, session active");
    CHECK(openal_game_source_playing(), "the looping source plays on after End");
    if (onALSA) {
        long heard = hearAtLeast(9600, &hz, &peak);
        CHECK(hz > 430 && hz < 450, "after End the card hears the tone again: %.1f Hz over %ld frames", hz, heard);
    }
    openal_game_shutdown();
    snprintf(command, sizeof command, "rm -rf %s", folder);
    CHECK(system(command) == 0, "scratch folder removed");
    return finish("openal game");
}
