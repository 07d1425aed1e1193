/* A game's sound driver (client side of the pattern test). No AudioToolbox types:
 * the rest of the game is cross-platform. */
#ifndef GAME_AUDIO_H
#define GAME_AUDIO_H

void game_audio_init(void);
/* Called when the app goes to the background / comes back. */
void game_audio_suspend(void);
void game_audio_resume(void);
/* One turn of the audio loop: mixes a buffer and writes it unless paused; returns the
 * frames written. */
int game_audio_update(void);
long game_audio_frames_written(void);
int game_audio_paused(void);
/* How many session calls the platform code made (0 where it is compiled out). */
int game_audio_session_calls(void);
#endif
