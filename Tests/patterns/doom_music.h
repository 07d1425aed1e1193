/* A game's music through an AUGraph, as id Software's iPhone DOOM played it (client side
 * of the pattern test): the session in the ambient category so the player's own music
 * may mix, a graph of one RemoteIO node whose input is a node input callback, and that
 * callback taking mono 16-bit samples from a ring a synthesizer thread fills. */
#ifndef DOOM_MUSIC_H
#define DOOM_MUSIC_H
int doom_music_start(int rate);       /* 0, or the failing call's status */
int doom_music_feed(const short *samples, int count);  /* samples taken (the ring may be full) */
long doom_music_played(void);         /* samples the callback took */
long doom_music_starved(void);        /* callbacks that found the ring short */
int doom_music_running(void);         /* AUGraphIsRunning */
int doom_music_stop(void);            /* AUGraphStop, then the graph taken down: 0 or a status */
#endif
