/*
 * The virtual ALSA card's state, shared between the ALSA plugins loaded inside a
 * program and the `vcard` driver command: one small file, read with pread and written
 * with pwrite, so the plugins see every change and inotify tells them when.
 */
#ifndef VCARD_STATE_H
#define VCARD_STATE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#define VCARD_STATE_MAGIC 0x76636172u /* 'vcar' */
#define VCARD_MAX_RATES 8

/* Jack bits: one per jack control the card exposes. */
enum {
    VCARD_JACK_HEADPHONE = 1u << 0, /* "Headphone Jack" */
    VCARD_JACK_HEADSET_MIC = 1u << 1, /* "Headset Mic Jack" */
    VCARD_JACK_MIC = 1u << 2, /* "Mic Jack": the card's microphone input */
    VCARD_JACK_LINE_OUT = 1u << 3, /* "Line Out Jack" */
    VCARD_JACK_LINE_IN = 1u << 4, /* "Line Jack" */
    VCARD_JACK_HDMI = 1u << 5, /* "HDMI/DP,pcm=3 Jack" */
    VCARD_JACK_FRONT_HEADPHONE = 1u << 6, /* "Front Headphone Jack": a desktop's front panel */
    VCARD_JACK_FRONT_MIC = 1u << 7, /* "Front Mic Jack" */
};

typedef struct {
    uint32_t magic;
    uint32_t jacks;            /* VCARD_JACK_* bits that are plugged */
    int32_t playbackVolume;    /* 0..VCARD_VOLUME_MAX */
    int32_t captureVolume;     /* 0..VCARD_VOLUME_MAX */
    uint32_t hasCapture;       /* 0: the card has no capture device or controls */
    uint32_t rateCount;
    uint32_t rates[VCARD_MAX_RATES];
    uint32_t periodMinFrames, periodMaxFrames;
    uint32_t removed;          /* 1: the card is unplugged (its devices no longer open) */
    uint32_t captureSource;    /* index into VCARD_CAPTURE_SOURCES */
    /* Added after 0.1.0; a state file written before has no such field and reads as 0. */
    uint32_t exclusive;        /* 1: each PCM direction takes one opener at a time, like hw:N */
    /* What the capture PCM hears (added after 0.1.0; zeros: silence). A near-end tone,
       and an echo: what the playback PCM played `echoDelayMs` earlier, scaled. */
    uint32_t captureToneHz;    /* 0: no tone */
    uint32_t captureToneLevel; /* its amplitude, in thousandths of full scale */
    uint32_t echoDelayMs;
    uint32_t echoGainLevel;    /* in thousandths; 0: no echo */
} VCardState;

/* The size of a state file written before `exclusive` existed: still accepted. */
#define VCARD_STATE_MIN_SIZE ((long)offsetof(VCardState, exclusive))

/* Reads the state from `fd`; fields the file is too short to hold read as 0.
 * Returns 0, or -1 when the file is not a vcard state. */
static inline int vcardReadState(int fd, VCardState *state)
{
    *state = (VCardState){0};
    ssize_t got = pread(fd, state, sizeof *state, 0);
    return got >= VCARD_STATE_MIN_SIZE && state->magic == VCARD_STATE_MAGIC ? 0 : -1;
}

/* Items of the "Capture Source" control, as HDA codecs name them. */
#define VCARD_CAPTURE_SOURCES {"Internal Mic", "Line", "Headset Mic"}
#define VCARD_CAPTURE_SOURCE_COUNT 3

/* Volumes span 0..100 steps of 0.5 dB: -50 dB .. 0 dB. */
#define VCARD_VOLUME_MAX 100
#define VCARD_VOLUME_DB_MIN (-5000) /* hundredths of a dB */
#define VCARD_VOLUME_DB_STEP 50

static inline void vcardDefaultState(VCardState *s)
{
    *s = (VCardState){0};
    s->magic = VCARD_STATE_MAGIC;
    s->jacks = VCARD_JACK_MIC;
    s->playbackVolume = 75;
    s->captureVolume = 50;
    s->hasCapture = 1;
    s->rateCount = 2;
    s->rates[0] = 44100;
    s->rates[1] = 48000;
    s->periodMinFrames = 64;
    s->periodMaxFrames = 8192;
    s->exclusive = 0;
}
#endif
