/*
 * What the PipeWire benchmarks share: a recorder of the default sink's monitor in the
 * same process, noting when each impulse (a sample above 0.3) arrives, and a bare
 * pw_stream client on a thread loop, as PipeWire's own examples play, whose samples come
 * from `bareProduce`. Include after <pipewire/pipewire.h> and bench_common.h.
 */
#ifndef BENCH_PIPEWIRE_H
#define BENCH_PIPEWIRE_H
#include <spa/param/audio/format-utils.h>

#ifndef MAX_MARKS
#define MAX_MARKS 512
#endif
enum { PW_RATE = 48000, PW_PERIOD = 256 };

static long long benchNow(void) { return (long long)nowNanoseconds(); }

/* The process's CPU time in nanoseconds. */
static long long cpuNow(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long sent[MAX_MARKS], received[MAX_MARKS];
static volatile int sentCount, receivedCount;

static const struct spa_pod *benchFormat(struct spa_pod_builder *builder, enum spa_audio_format format)
{
    struct spa_audio_info_raw info = {.format = format, .rate = PW_RATE, .channels = 2,
                                      .position = {SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR}};
    return spa_format_audio_raw_build(builder, SPA_PARAM_EnumFormat, &info);
}

/* ---- the recorder ---- */
static struct pw_thread_loop *recorderLoop;
static struct pw_stream *recorder;

static void recorded(void *data)
{
    (void)data;
    struct pw_buffer *b = pw_stream_dequeue_buffer(recorder);
    if (!b) return;
    struct spa_data *d = &b->buffer->datas[0];
    const float *samples = d->data ? (const float *)((const char *)d->data + d->chunk->offset) : NULL;
    uint32_t count = d->chunk->size / sizeof(float);
    long long at = benchNow();
    for (uint32_t i = 0; samples && i < count; i += 2) {
        if (samples[i] > 0.3f && receivedCount < MAX_MARKS) { received[receivedCount++] = at; break; }
    }
    pw_stream_queue_buffer(recorder, b);
}

static const struct pw_stream_events recorderEvents = {PW_VERSION_STREAM_EVENTS, .process = recorded};

static void recorderStart(void)
{
    recorderLoop = pw_thread_loop_new("recorder", NULL);
    recorder = pw_stream_new_simple(pw_thread_loop_get_loop(recorderLoop), "recorder",
                                    pw_properties_new(PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture",
                                                      PW_KEY_STREAM_CAPTURE_SINK, "true", PW_KEY_NODE_LATENCY,
                                                      "256/48000", NULL), &recorderEvents, NULL);
    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
    const struct spa_pod *params[1] = {benchFormat(&builder, SPA_AUDIO_FORMAT_F32)};
    pw_stream_connect(recorder, PW_DIRECTION_INPUT, PW_ID_ANY,
                      PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
    pw_thread_loop_start(recorderLoop);
}

/* ---- the bare client ---- */
static struct pw_thread_loop *bareLoop;
static struct pw_stream *bareStream;
static void (*bareProduce)(SInt16 *samples, uint32_t frames);

static void bareProcess(void *data)
{
    (void)data;
    struct pw_buffer *b = pw_stream_dequeue_buffer(bareStream);
    if (!b) return;
    struct spa_data *d = &b->buffer->datas[0];
    uint32_t frames = d->maxsize / 4;
    if (b->requested && b->requested < frames) frames = (uint32_t)b->requested;
    if (d->data) bareProduce((SInt16 *)d->data, frames);
    d->chunk->offset = 0;
    d->chunk->stride = 4;
    d->chunk->size = frames * 4;
    pw_stream_queue_buffer(bareStream, b);
}

static const struct pw_stream_events bareEvents = {PW_VERSION_STREAM_EVENTS, .process = bareProcess};

static void bareStart(void)
{
    bareLoop = pw_thread_loop_new("bare", NULL);
    char latency[32];
    snprintf(latency, sizeof latency, "%d/%d", PW_PERIOD, PW_RATE);
    bareStream = pw_stream_new_simple(pw_thread_loop_get_loop(bareLoop), "bare",
                                      pw_properties_new(PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Playback",
                                                        PW_KEY_MEDIA_ROLE, "Music", PW_KEY_NODE_LATENCY, latency, NULL),
                                      &bareEvents, NULL);
    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
    const struct spa_pod *params[1] = {benchFormat(&builder, SPA_AUDIO_FORMAT_S16)};
    pw_stream_connect(bareStream, PW_DIRECTION_OUTPUT, PW_ID_ANY,
                      PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
    pw_thread_loop_start(bareLoop);
}

static void bareStop(void)
{
    pw_thread_loop_stop(bareLoop);
    pw_stream_destroy(bareStream);
    pw_thread_loop_destroy(bareLoop);
}

/* A session whose units and queues stream through PipeWire at 48 kHz with a 256-frame
 * period, active, and the recorder listening. */
static void benchSessionOnPipeWire(void)
{
    pw_init(NULL, NULL);
    setenv("AUDIOTOOLBOX_STREAM", "pipewire", 1);
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    Float64 rate = PW_RATE;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof rate, &rate);
    Float32 duration = (Float32)PW_PERIOD / PW_RATE;
    AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, sizeof duration, &duration);
    AudioSessionSetActive(true);
    recorderStart();
}

/* Pairs each impulse sent with the first arrival after it: latencies in ms, sorted;
 * returns how many. */
static int pairedLatencies(double *latency)
{
    int n = 0;
    for (int i = 0, j = 0; i < sentCount && j < receivedCount; i++) {
        while (j < receivedCount && received[j] < sent[i]) j++;
        if (j < receivedCount) latency[n++] = (double)(received[j++] - sent[i]) / 1e6;
    }
    qsort(latency, (size_t)n, sizeof *latency, compareDoubles);
    return n;
}
#endif
