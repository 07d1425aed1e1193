/* The sound server (PipeWire) as audiosessiond sees it: the other programs' playback
 * streams, whether each is running, and which process owns it. A small C layer because
 * libpipewire's API is made of macros and callbacks Swift cannot call directly. */
#ifndef CSOUNDSERVER_H
#define CSOUNDSERVER_H
#include <stdint.h>

typedef struct SoundServerWatch SoundServerWatch;

/* One playback stream (a node of media.class Stream/Output/Audio). */
typedef struct {
    uint32_t node;
    int32_t pid;       /* the owning process, 0 if unknown */
    int running;       /* the node's state is "running" */
    char role[32];     /* media.role, "" if none */
    char application[64];
    int channels;      /* how many of `volumes` are known; 0 before the first report */
    float volumes[8];  /* channel volumes, linear: the user's, saved by the policy manager */
    int mute;          /* the user's mute */
    int softChannels;  /* how many of `softVolumes` are known */
    float softVolumes[8]; /* soft volumes, linear: the node plays at these (and softMute)
                          * from when they are set until channel volumes or mute are set */
    int softMute;
    uint32_t touches;  /* counts reports whose channel volumes or mute differ from the last */
    uint32_t reports;  /* counts the node's reports of its volumes (every set makes one) */
} SoundServerStream;

/* Connects to the user's PipeWire (PIPEWIRE_RUNTIME_DIR / XDG_RUNTIME_DIR) on a thread of
 * its own; `changed` is called on that thread whenever the streams change or the server
 * goes away. NULL when no server answers. */
SoundServerWatch *SoundServerWatchStart(void (*changed)(void *context), void *context);

/* Copies up to `capacity` streams; returns how many exist (may exceed capacity).
 * `complete` (may be NULL) says whether the copy holds every stream the server had when
 * we connected: read in the same step as the streams, since a flag read apart from them
 * can be newer than the copy, and a stream missing from it would look gone. */
int SoundServerWatchStreams(SoundServerWatch *watch, SoundServerStream *streams, int capacity, int *complete);

/* Whether the connection to the server is still up. */
int SoundServerWatchConnected(SoundServerWatch *watch);

/* The default sink's volume on the desktop's scale (the cube root of its linear channel
 * volume, as wpctl and the desktop sliders show it): 1 and *volume set when known. */
int SoundServerWatchDefaultSinkVolume(SoundServerWatch *watch, float *volume);

/* Sets a stream's soft volumes (linear) and soft mute; returns 0 or a negative errno.
 * What the node plays at, without touching the user's channel volumes and mute: the
 * policy manager (WirePlumber) saves those per role and application and gives them to
 * the next stream, and does not save these. The user's next change of the channel
 * volumes or mute takes the stream back (the node plays at those again). */
int SoundServerWatchSetSoftVolume(SoundServerWatch *watch, uint32_t node, const float *volumes, int channels, int mute);

void SoundServerWatchStop(SoundServerWatch *watch);
#endif
