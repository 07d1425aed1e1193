/* A PipeWire stream pair (playback, capture or both) for the I/O audio units, driven by
 * the unit's own I/O thread: the streams live on a private loop that the thread
 * iterates while it waits for room to play or frames to read, so every callback of the
 * stream runs on that thread. Samples are interleaved 16-bit, as on the ALSA path. */
#ifndef AT_PIPEWIRE_STREAM_H
#define AT_PIPEWIRE_STREAM_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct PipeWireDuplex PipeWireDuplex;


/* 1 once libpipewire is loaded (the first call, or the first open, loads it), 0 when it
 * is not installed: every open then fails, saying so. */
int PipeWireStreamAvailable(void);

/* Connects and opens the streams: `role` is the media role (Music, Game, Communication,
 * ...), the period the latency asked for. NULL when the server cannot be reached or
 * refuses; `error` then says why. */
PipeWireDuplex *PipeWireDuplexOpen(const char *role, int rate, int periodFrames, int playbackChannels,
                                   int captureChannels, int pull, char *error, size_t errorSize);

/* Queues one period to play, first waiting (iterating the loop) until no more than a
 * period or the server's quantum is queued. 0, 1 when the server ran dry since the last
 * call, -1 when the stream is gone. */
int PipeWireDuplexDeliver(PipeWireDuplex *duplex, const int16_t *frames);

/* Waits for and takes one period of capture. 0, 1 after an overrun, -1 when gone. */
int PipeWireDuplexReceive(PipeWireDuplex *duplex, int16_t *frames);

/* Pulling (a playback-only duplex opened with `pull`): the stream's own real-time thread
 * calls `pull` for every buffer the server wants, with the frames to fill; until it is
 * set, and after it is cleared (NULL), the buffers are silence. */
typedef void (*PipeWirePull)(void *context, int16_t *frames, int count);
void PipeWireDuplexSetPull(PipeWireDuplex *duplex, PipeWirePull pull, void *context);

/* While pulling: handles the server's news for up to `milliseconds`. 0, or -1 when the
 * stream is gone. */
int PipeWireDuplexWait(PipeWireDuplex *duplex, int milliseconds);

/* Ends a PipeWireDuplexWait under way, from any thread. */
void PipeWireDuplexWake(PipeWireDuplex *duplex);

/* Frames queued for playback and not yet heard (here and in the server). */
int PipeWireDuplexPlaybackDelay(PipeWireDuplex *duplex);

void PipeWireDuplexClose(PipeWireDuplex *duplex);

#ifdef __cplusplus
}
#endif
#endif
