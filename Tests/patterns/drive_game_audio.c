/*
 * Drives the game's sound driver (game_audio.c): its iPhone-only setup must have been
 * compiled in and run; an interruption pauses its writes and End resumes them with the
 * session active again (virtual device only); a headset coming and going and a missing
 * microphone leave an output-only category playing.
 */
#include "patterns.h"
#include "game_audio.h"

/* Runs the game's audio loop `turns` times; returns the frames it wrote. */
static long pump(int turns)
{
    long before = game_audio_frames_written();
    for (int i = 0; i < turns; i++) game_audio_update();
    return game_audio_frames_written() - before;
}

static void keepsPlaying(const char *when)
{
    CHECK(!game_audio_paused() && sessionActive(), "%s: still playing, session active", when);
    CHECK(pump(4) > 0, "%s: the loop writes", when);
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "game audio");
    game_audio_init();
    /* Fails when `#if TARGET_OS_IPHONE` compiled the session code out. */
    CHECK(game_audio_session_calls() == 4, "iPhone session setup compiled in and run (%d calls)",
          game_audio_session_calls());
    harnessAttach();
    UInt32 otherAudio = getU32(kAudioSessionProperty_OtherAudioIsPlaying);
    CHECK(otherAudio == 0, "nothing else plays on a test device");
    CHECK(getU32(kAudioSessionProperty_AudioCategory) == kAudioSessionCategory_SoloAmbientSound,
          "category SoloAmbient");
    CHECK(sessionActive(), "active after the game's setup");
    CHECK(pump(10) == 10 * 512, "the loop writes while playing");

    if (!onALSA) { /* interruptions: virtual device only, for now */
        beginInterruption();
        CHECK(game_audio_paused(), "Begin pauses the game's audio");
        CHECK(pump(10) == 0, "no writes while interrupted");
        CHECK(!sessionActive(), "inactive during the interruption");
        endInterruption(true);
        CHECK(game_audio_session_calls() == 5, "End reactivates (%d calls)", game_audio_session_calls());
        CHECK(!game_audio_paused() && sessionActive(), "End resumes, session active");
        CHECK(pump(10) == 10 * 512, "writes again after End");
    }

    char text[64];
    CFIndex count;
    plug("headset");
    keepsPlaying("headset in");
    routePort(kAudioSession_AudioRouteKey_Outputs, text, sizeof text, &count);
    CHECK(isPort(text, kAudioSessionOutputRoute_Headphones), "plays on the headset (%s)", text);
    unplug("headset");
    keepsPlaying("headset out");
    routePort(kAudioSession_AudioRouteKey_Outputs, text, sizeof text, &count);
    CHECK(isPort(text, kAudioSessionOutputRoute_BuiltInSpeaker), "back on the speaker (%s)", text);

    /* An output-only category does not care about the microphone, also when reactivated. */
    unplug("mic");
    keepsPlaying("microphone gone");
    game_audio_suspend();
    CHECK(!sessionActive(), "inactive in the background");
    game_audio_resume();
    keepsPlaying("back from the background without a microphone");
    plug("mic");
    return finish(onALSA ? "game audio (alsa)" : "game audio (virtual)");
}
