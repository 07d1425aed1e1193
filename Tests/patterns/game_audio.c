/*
 * A game's sound driver: the session setup is iPhone-only code behind TARGET_OS_IPHONE,
 * every result is ignored, the category is SoloAmbient (Ambient when the player's own
 * music is playing), and the interruption listener only sets a flag that the audio loop
 * checks; on End it reactivates. Nothing here knows it is under test.
 */
#include <TargetConditionals.h>
#if TARGET_OS_IPHONE
#include <AudioToolbox/AudioToolbox.h>
#endif
#include "game_audio.h"

enum { FRAMES_PER_BUFFER = 512 };

static volatile int paused;
static long frames_written;
static int session_calls;
static short mix_buffer[FRAMES_PER_BUFFER * 2];
static unsigned phase;

#if TARGET_OS_IPHONE
static void interruption_listener(void *user_data, UInt32 state)
{
    (void)user_data;
    if (state == kAudioSessionBeginInterruption) {
        paused = 1;
    } else {
        AudioSessionSetActive(true);
        session_calls++;
        paused = 0;
    }
}
#endif

void game_audio_init(void)
{
#if TARGET_OS_IPHONE
    UInt32 other_audio = 0;
    UInt32 size = sizeof(other_audio);
    UInt32 category;

    AudioSessionInitialize(NULL, NULL, interruption_listener, NULL);
    AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &other_audio);
    category = other_audio ? kAudioSessionCategory_AmbientSound : kAudioSessionCategory_SoloAmbientSound;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(category), &category);
    AudioSessionSetActive(true);
    session_calls += 4;
#endif
}

void game_audio_suspend(void)
{
    paused = 1;
#if TARGET_OS_IPHONE
    AudioSessionSetActive(false);
    session_calls++;
#endif
}

void game_audio_resume(void)
{
#if TARGET_OS_IPHONE
    AudioSessionSetActive(true);
    session_calls++;
#endif
    paused = 0;
}

/* Stands in for the write to the audio device. */
static void write_to_device(const short *samples, int frames)
{
    (void)samples;
    frames_written += frames;
}

int game_audio_update(void)
{
    if (paused)
        return 0;
    for (int i = 0; i < FRAMES_PER_BUFFER; i++) {
        short sample = (phase++ / 50) % 2 ? 3000 : -3000; /* a square wave */
        mix_buffer[2 * i] = mix_buffer[2 * i + 1] = sample;
    }
    write_to_device(mix_buffer, FRAMES_PER_BUFFER);
    return FRAMES_PER_BUFFER;
}

long game_audio_frames_written(void) { return frames_written; }
int game_audio_paused(void) { return paused; }
int game_audio_session_calls(void) { return session_calls; }
