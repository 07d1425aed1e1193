/* PipeWireStream.h over libpipewire-0.3: a private pw_loop, a context and a core, one
 * pw_stream per direction without PW_STREAM_FLAG_RT_PROCESS, so that their process
 * events are dispatched by the loop the unit's I/O thread iterates. Between the stream
 * and the unit, a queue of frames per direction (made at open; a period allocates
 * nothing here). It is no ring between threads: the stream's process events run on the
 * thread that iterates the loop, the unit's I/O thread, which also fills and empties it.
 * (A pulled stream, with PW_STREAM_FLAG_RT_PROCESS, has no queue: the unit renders
 * into the server's buffer on the server's thread.) */
#define _GNU_SOURCE
#include "PipeWireStream.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Frames waiting between the stream and the unit, touched by one thread only. */
typedef struct {
    int16_t *samples;
    int channels;
    int capacity;   /* frames */
    int read, fill; /* frames */
} FrameQueue;

typedef struct {
    struct pw_stream *stream;
    struct spa_hook listener;
    FrameQueue queue;
    int xrun;
    int lastRequest; /* frames the server asked for last (playback) */
} Direction;

struct PipeWireDuplex {
    struct pw_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct spa_hook coreListener;
    Direction playback, capture;
    int period;
    int gone;
    int entered; /* the I/O thread has entered the loop */
    PipeWirePull pull; /* read by the stream's real-time thread */
    void *pullContext;
    struct spa_source *wake; /* signalled to end a wait */
};

static void woken(void *data, uint64_t count);

/* libpipewire is not linked: a program that never plays through a sound server does not
 * map it (nor the plugins it loads). It is opened by its SONAME on the first stream, and
 * each function used is called through a pointer of its own declared type, written
 * p_<name>. The loop,
 * core and stream methods are spa interface calls (macros over function tables in the
 * objects), which need no symbol. */
#define PIPEWIRE_FUNCTIONS(X) \
    X(pw_init) X(pw_loop_new) X(pw_loop_destroy) X(pw_context_new) X(pw_context_connect) \
    X(pw_context_destroy) X(pw_core_disconnect) X(pw_properties_new) X(pw_stream_new) \
    X(pw_stream_add_listener) X(pw_stream_connect) X(pw_stream_dequeue_buffer) X(pw_stream_queue_buffer) \
    X(pw_stream_destroy) X(pw_stream_get_state) X(pw_stream_get_time_n)
#define DECLARE(name) static __typeof__(name) *p_##name;
PIPEWIRE_FUNCTIONS(DECLARE)
#undef DECLARE

static pthread_once_t initialised = PTHREAD_ONCE_INIT;
static int loaded;

static void initialise(void)
{
    /* Never closed: pw_deinit is never called either, as PipeWire asks of a library. */
    void *library = dlopen("libpipewire-0.3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    int missing = 0;
#define RESOLVE(name) \
    p_##name = (__typeof__(name) *)dlsym(library, #name); \
    if (!p_##name) missing = 1;
    PIPEWIRE_FUNCTIONS(RESOLVE)
#undef RESOLVE
    if (missing) return;
    p_pw_init(NULL, NULL);
    loaded = 1;
}

int PipeWireStreamAvailable(void)
{
    pthread_once(&initialised, initialise);
    return loaded;
}

static int queueMake(FrameQueue *queue, int channels, int capacity)
{
    queue->samples = calloc((size_t)capacity * (size_t)channels, sizeof(int16_t));
    queue->channels = channels;
    queue->capacity = capacity;
    queue->read = queue->fill = 0;
    return queue->samples ? 0 : -1;
}

static void queuePut(FrameQueue *queue, const int16_t *frames, int count)
{
    for (int i = 0; i < count; i++) {
        int at = (queue->read + queue->fill + i) % queue->capacity;
        memcpy(queue->samples + (size_t)at * queue->channels, frames + (size_t)i * queue->channels,
               sizeof(int16_t) * (size_t)queue->channels);
    }
    queue->fill += count;
}

static void queueTake(FrameQueue *queue, int16_t *frames, int count)
{
    for (int i = 0; i < count; i++) {
        int at = (queue->read + i) % queue->capacity;
        memcpy(frames + (size_t)i * queue->channels, queue->samples + (size_t)at * queue->channels,
               sizeof(int16_t) * (size_t)queue->channels);
    }
    queue->read = (queue->read + count) % queue->capacity;
    queue->fill -= count;
}

static void playbackProcess(void *data)
{
    PipeWireDuplex *d = data;
    struct pw_buffer *b = p_pw_stream_dequeue_buffer(d->playback.stream);
    if (!b) return;
    struct spa_buffer *buffer = b->buffer;
    int16_t *out = buffer->datas[0].data;
    if (!out) { p_pw_stream_queue_buffer(d->playback.stream, b); return; }
    int stride = (int)sizeof(int16_t) * d->playback.queue.channels;
    int frames = (int)(buffer->datas[0].maxsize / (uint32_t)stride);
    if (b->requested > 0 && (int)b->requested < frames) frames = (int)b->requested;
    d->playback.lastRequest = frames;
    int have = d->playback.queue.fill < frames ? d->playback.queue.fill : frames;
    queueTake(&d->playback.queue, out, have);
    if (have < frames) {
        /* Ran dry: silence for the rest (counted once started). */
        memset(out + (size_t)have * d->playback.queue.channels, 0, (size_t)(frames - have) * (size_t)stride);
        d->playback.xrun = 1;
    }
    buffer->datas[0].chunk->offset = 0;
    buffer->datas[0].chunk->stride = stride;
    buffer->datas[0].chunk->size = (uint32_t)(frames * stride);
    p_pw_stream_queue_buffer(d->playback.stream, b);
}

/* Pulling: on the stream's real-time thread, the unit fills the buffer itself. */
static void pullProcess(void *data)
{
    PipeWireDuplex *d = data;
    struct pw_buffer *b = p_pw_stream_dequeue_buffer(d->playback.stream);
    if (!b) return;
    struct spa_buffer *buffer = b->buffer;
    int16_t *out = buffer->datas[0].data;
    if (out) {
        int stride = (int)sizeof(int16_t) * d->playback.queue.channels;
        int frames = (int)(buffer->datas[0].maxsize / (uint32_t)stride);
        if (b->requested > 0 && (int)b->requested < frames) frames = (int)b->requested;
        void *context = __atomic_load_n(&d->pullContext, __ATOMIC_ACQUIRE);
        PipeWirePull pull = __atomic_load_n(&d->pull, __ATOMIC_ACQUIRE);
        if (pull) pull(context, out, frames);
        else memset(out, 0, (size_t)frames * (size_t)stride);
        buffer->datas[0].chunk->offset = 0;
        buffer->datas[0].chunk->stride = stride;
        buffer->datas[0].chunk->size = (uint32_t)(frames * stride);
    }
    p_pw_stream_queue_buffer(d->playback.stream, b);
}

void PipeWireDuplexSetPull(PipeWireDuplex *d, PipeWirePull pull, void *context)
{
    if (pull) __atomic_store_n(&d->pullContext, context, __ATOMIC_RELEASE);
    __atomic_store_n(&d->pull, pull, __ATOMIC_RELEASE);
}

static void captureProcess(void *data)
{
    PipeWireDuplex *d = data;
    struct pw_buffer *b = p_pw_stream_dequeue_buffer(d->capture.stream);
    if (!b) return;
    struct spa_buffer *buffer = b->buffer;
    const int16_t *in = buffer->datas[0].data;
    int stride = (int)sizeof(int16_t) * d->capture.queue.channels;
    if (in) {
        int frames = (int)(buffer->datas[0].chunk->size / (uint32_t)stride);
        in = (const int16_t *)((const char *)in + buffer->datas[0].chunk->offset);
        int room = d->capture.queue.capacity - d->capture.queue.fill;
        if (frames > room) {
            d->capture.xrun = 1;
            frames = room;
        }
        queuePut(&d->capture.queue, in, frames);
    }
    p_pw_stream_queue_buffer(d->capture.stream, b);
}

static void stateChanged(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error)
{
    PipeWireDuplex *d = data;
    (void)old; (void)error;
    if (state == PW_STREAM_STATE_ERROR || state == PW_STREAM_STATE_UNCONNECTED) d->gone = 1;
}

static const struct pw_stream_events playbackEvents = {
    PW_VERSION_STREAM_EVENTS, .state_changed = stateChanged, .process = playbackProcess};
static const struct pw_stream_events captureEvents = {
    PW_VERSION_STREAM_EVENTS, .state_changed = stateChanged, .process = captureProcess};
static const struct pw_stream_events pullEvents = {
    PW_VERSION_STREAM_EVENTS, .state_changed = stateChanged, .process = pullProcess};

static void coreError(void *data, uint32_t id, int seq, int res, const char *message)
{
    PipeWireDuplex *d = data;
    (void)seq; (void)res; (void)message;
    if (id == PW_ID_CORE) d->gone = 1;
}

static const struct pw_core_events coreEvents = {PW_VERSION_CORE_EVENTS, .error = coreError};

static const char *programName(void) { return program_invocation_short_name; }

static int openDirection(PipeWireDuplex *d, Direction *direction, enum spa_direction which, const char *role,
                         int rate, int period, int channels, int pull, char *error, size_t errorSize)
{
    char latency[64], pid[32];
    snprintf(latency, sizeof latency, "%d/%d", period, rate);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    struct pw_properties *props = p_pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, which == SPA_DIRECTION_OUTPUT ? "Playback" : "Capture",
        PW_KEY_MEDIA_ROLE, role, PW_KEY_APP_NAME, programName(), PW_KEY_APP_PROCESS_ID, pid,
        PW_KEY_NODE_NAME, programName(), PW_KEY_NODE_LATENCY, latency, NULL);
    direction->stream = p_pw_stream_new(d->core, programName(), props);
    if (!direction->stream) {
        snprintf(error, errorSize, "pw_stream_new failed: %s", strerror(errno));
        return -1;
    }
    p_pw_stream_add_listener(direction->stream, &direction->listener,
                           pull ? &pullEvents : which == SPA_DIRECTION_OUTPUT ? &playbackEvents : &captureEvents, d);
    uint8_t podBuffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(podBuffer, sizeof podBuffer);
    struct spa_audio_info_raw info = {.format = SPA_AUDIO_FORMAT_S16, .rate = (uint32_t)rate,
                                      .channels = (uint32_t)channels};
    if (channels == 1) info.position[0] = SPA_AUDIO_CHANNEL_MONO;
    else { info.position[0] = SPA_AUDIO_CHANNEL_FL; info.position[1] = SPA_AUDIO_CHANNEL_FR; }
    const struct spa_pod *params[1] = {spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info)};
    /* Pulled streams are processed on the server connection's real-time thread. */
    int status = p_pw_stream_connect(direction->stream, which, PW_ID_ANY,
                                   PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS |
                                       (pull ? PW_STREAM_FLAG_RT_PROCESS : 0),
                                   params, 1);
    if (status < 0) {
        snprintf(error, errorSize, "pw_stream_connect failed: %s", strerror(-status));
        return -1;
    }
    /* Room for a period on each side of the largest quantum the server may pick. */
    if (queueMake(&direction->queue, channels, 2 * period + 8192) < 0) {
        snprintf(error, errorSize, "out of memory");
        return -1;
    }
    return 0;
}

/* Iterates the loop once, waiting up to a second; -1 once the stream is gone. */
static int turn(PipeWireDuplex *d)
{
    if (d->gone) return -1;
    int result = pw_loop_iterate(d->loop, 1000);
    if (result < 0 && result != -EINTR) d->gone = 1;
    return d->gone ? -1 : 0;
}

PipeWireDuplex *PipeWireDuplexOpen(const char *role, int rate, int periodFrames, int playbackChannels,
                                   int captureChannels, int pull, char *error, size_t errorSize)
{
    if (!PipeWireStreamAvailable()) {
        snprintf(error, errorSize, "libpipewire-0.3.so.0 is not installed");
        return NULL;
    }
    PipeWireDuplex *d = calloc(1, sizeof *d);
    if (!d) { snprintf(error, errorSize, "out of memory"); return NULL; }
    d->period = periodFrames;
    d->loop = p_pw_loop_new(NULL);
    if (d->loop) d->context = p_pw_context_new(d->loop, NULL, 0);
    if (d->context) d->core = p_pw_context_connect(d->context, NULL, 0);
    if (!d->core) {
        snprintf(error, errorSize, "no PipeWire server (%s)", strerror(errno));
        PipeWireDuplexClose(d);
        return NULL;
    }
    pw_core_add_listener(d->core, &d->coreListener, &coreEvents, d);
    d->wake = pw_loop_add_event(d->loop, woken, d);
    pw_loop_enter(d->loop);
    d->entered = 1;
    pull = pull && playbackChannels > 0 && captureChannels == 0;
    if ((playbackChannels > 0 && openDirection(d, &d->playback, SPA_DIRECTION_OUTPUT, role, rate, periodFrames,
                                               playbackChannels, pull, error, errorSize) < 0) ||
        (captureChannels > 0 && openDirection(d, &d->capture, SPA_DIRECTION_INPUT, role, rate, periodFrames,
                                              captureChannels, 0, error, errorSize) < 0)) {
        PipeWireDuplexClose(d);
        return NULL;
    }
    /* Until the streams stream (or fail): a refused format shows here, not later. The
     * opening thread holds the loop until then; the I/O thread enters it next. */
    for (int i = 0; i < 50; i++) {
        int ready = (!d->playback.stream || p_pw_stream_get_state(d->playback.stream, NULL) == PW_STREAM_STATE_STREAMING) &&
                    (!d->capture.stream || p_pw_stream_get_state(d->capture.stream, NULL) == PW_STREAM_STATE_STREAMING);
        if (ready) break;
        if (turn(d) < 0) {
            snprintf(error, errorSize, "the PipeWire stream failed to start");
            PipeWireDuplexClose(d);
            return NULL;
        }
    }
    pw_loop_leave(d->loop);
    d->entered = 0;
    return d;
}

static void enter(PipeWireDuplex *d)
{
    if (d->entered) return;
    pw_loop_enter(d->loop);
    d->entered = 1;
}

int PipeWireDuplexDeliver(PipeWireDuplex *d, const int16_t *frames)
{
    if (!d->playback.stream) return 0;
    enter(d);
    for (;;) {
        int target = 2 * d->period > d->playback.lastRequest + d->period ? 2 * d->period
                                                                          : d->playback.lastRequest + d->period;
        if (d->playback.queue.fill + d->period <= target) break;
        if (turn(d) < 0) return -1;
    }
    queuePut(&d->playback.queue, frames, d->period);
    int xrun = d->playback.xrun;
    d->playback.xrun = 0;
    return xrun;
}

int PipeWireDuplexReceive(PipeWireDuplex *d, int16_t *frames)
{
    if (!d->capture.stream) return 0;
    enter(d);
    while (d->capture.queue.fill < d->period) {
        if (turn(d) < 0) return -1;
    }
    queueTake(&d->capture.queue, frames, d->period);
    int xrun = d->capture.xrun;
    d->capture.xrun = 0;
    return xrun;
}

static void woken(void *data, uint64_t count)
{
    (void)data; (void)count;
}

void PipeWireDuplexWake(PipeWireDuplex *d)
{
    if (d->wake) pw_loop_signal_event(d->loop, d->wake);
}

int PipeWireDuplexWait(PipeWireDuplex *d, int milliseconds)
{
    enter(d);
    if (d->gone) return -1;
    int result = pw_loop_iterate(d->loop, milliseconds);
    if (result < 0 && result != -EINTR) d->gone = 1;
    return d->gone ? -1 : 0;
}

int PipeWireDuplexPlaybackDelay(PipeWireDuplex *d)
{
    if (!d->playback.stream) return 0;
    struct pw_time time;
    int queued = d->playback.queue.fill;
    if (p_pw_stream_get_time_n(d->playback.stream, &time, sizeof time) == 0 && time.rate.denom > 0)
        queued += (int)(time.delay + (int64_t)time.queued / (int64_t)sizeof(int16_t) / d->playback.queue.channels);
    return queued;
}

void PipeWireDuplexClose(PipeWireDuplex *d)
{
    if (!d) return;
    if (d->playback.stream) p_pw_stream_destroy(d->playback.stream);
    if (d->capture.stream) p_pw_stream_destroy(d->capture.stream);
    if (d->entered) pw_loop_leave(d->loop);
    if (d->core) p_pw_core_disconnect(d->core);
    if (d->wake) pw_loop_destroy_source(d->loop, d->wake);
    if (d->context) p_pw_context_destroy(d->context);
    if (d->loop) p_pw_loop_destroy(d->loop);
    free(d->playback.queue.samples);
    free(d->capture.queue.samples);
    free(d);
}
