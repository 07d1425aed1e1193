/* A game's OpenAL sound code (client side of the pattern test): sounds loaded with
 * Extended Audio File into OpenAL buffers, the session's interruption handled the way
 * iPhone OpenAL games did (context cleared in Begin, restored after End). */
#ifndef OPENAL_GAME_H
#define OPENAL_GAME_H

/* Opens the session, the OpenAL device and context; 0 when OpenAL has no device. */
int openal_game_init(void);
/* Loads a sound file into a buffer and plays it looping; 0 on failure. */
int openal_game_play(const char *path);
/* What the loader produced: bytes, OpenAL format, rate; and a copy of the samples. */
int openal_game_loaded(long *bytes, int *stereo16, int *rate, const short **samples);
/* 1 while the game thinks it is interrupted. */
int openal_game_interrupted(void);
/* Interruptions seen: Begin and End calls of the listener. */
int openal_game_begins(void);
int openal_game_ends(void);
/* Whether the source is playing (AL_PLAYING). */
int openal_game_source_playing(void);
void openal_game_shutdown(void);
#endif
