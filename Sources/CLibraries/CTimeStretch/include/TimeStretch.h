/* A C face for SoundTouch (LGPL 2.1): tempo, pitch and rate changes of interleaved Float
 * audio, for the audio queues' time/pitch processing and the time/pitch units. Not thread-safe: one thread at a
 * time per stretcher. */
#ifndef TIME_STRETCH_H
#define TIME_STRETCH_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct TimeStretch TimeStretch;

/* A stretcher for `channels` channels at `sampleRate`; NULL if it cannot be made. */
TimeStretch *TimeStretchNew(int sampleRate, int channels);
void TimeStretchFree(TimeStretch *stretch);
/* Tempo (speed without pitch), rate (speed and pitch together) and pitch in semitones. */
void TimeStretchSet(TimeStretch *stretch, double tempo, double rate, double semitones);
/* Hands `frames` interleaved frames in. */
void TimeStretchPut(TimeStretch *stretch, const float *samples, int frames);
/* Takes up to `maxFrames` processed frames out; returns how many. */
int TimeStretchReceive(TimeStretch *stretch, float *samples, int maxFrames);
/* Frames ready to take. */
int TimeStretchAvailable(TimeStretch *stretch);
/* No more input: what it holds is made ready (with the silence its algorithm needs). */
void TimeStretchFlush(TimeStretch *stretch);
/* Forgets everything in it. */
void TimeStretchClear(TimeStretch *stretch);

/* For a real-time thread: a tempo change alone (rate 1, no pitch) never allocates, where
 * a rate or pitch change designs a new anti-alias filter on the heap. */
void TimeStretchSetTempo(TimeStretch *stretch, double tempo);
/* Grows every buffer inside past what puts of up to `blockFrames` frames need at tempos
 * from `slowest` to `fastest`, with fewer than `heldFrames` frames left unreceived before
 * each put (then forgets the audio): putting and receiving within those bounds never
 * allocates again. Some megabytes at 44.1 kHz stereo for tempos 1/32 to 32. */
void TimeStretchPrepare(TimeStretch *stretch, int blockFrames, int heldFrames, double slowest, double fastest);

#ifdef __cplusplus
}
#endif
#endif
