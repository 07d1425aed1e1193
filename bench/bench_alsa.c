/*
 * ALSA backend benchmarks on the virtual ALSA card (run by `make bench` after
 * `vcard setup`):
 *  1. Activation (AudioSessionSetActive true + false: the session negotiates on the
 *     device and keeps nothing open) against a bare alsa-lib open + hw_params + close
 *     of the same device with the same parameters, in the same process.
 *  2. Control event -> property listener latency (p50/p99) against a bare C loop that
 *     polls the same card's control device and reads the event with snd_ctl_read,
 *     in five alternating runs of each.
 * The event is produced by rewriting the card's state file, as `vcard volume` does.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <alsa/asoundlib.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include "bench_common.h"
#include "../vcard/vcard_state.h"

static _Atomic double stamp;
static atomic_int stopBaseline;

static void volumeListener(void *c, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)c; (void)id; (void)size; (void)data;
    atomic_store(&stamp, nowNanoseconds());
}

static void *baselineThread(void *unused)
{
    (void)unused;
    snd_ctl_t *ctl;
    if (snd_ctl_open(&ctl, "default", SND_CTL_NONBLOCK) < 0) return NULL;
    snd_ctl_subscribe_events(ctl, 1);
    struct pollfd fds[4];
    int count = snd_ctl_poll_descriptors(ctl, fds, 4);
    snd_ctl_event_t *event;
    snd_ctl_event_malloc(&event);
    while (!atomic_load(&stopBaseline)) {
        if (poll(fds, (nfds_t)count, 50) <= 0) continue;
        while (snd_ctl_read(ctl, event) > 0) atomic_store(&stamp, nowNanoseconds());
    }
    snd_ctl_event_free(event);
    snd_ctl_close(ctl);
    return NULL;
}

/* What activation does, written directly against alsa-lib: open non-blocking, set the
 * parameters the session asks for, read back what was granted, close. */
static int bareNegotiation(void)
{
    snd_pcm_t *pcm;
    if (snd_pcm_open(&pcm, "default", SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) < 0) return -1;
    snd_pcm_hw_params_t *params;
    snd_pcm_hw_params_malloc(&params);
    unsigned rate = 44100, channels = 2, periods = 2;
    snd_pcm_uframes_t period = 1024, buffer;
    int direction = 0;
    snd_pcm_hw_params_any(pcm, params);
    snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED);
    snd_pcm_hw_params_set_format(pcm, params, SND_PCM_FORMAT_S16_LE);
    snd_pcm_hw_params_set_channels_near(pcm, params, &channels);
    snd_pcm_hw_params_set_rate_near(pcm, params, &rate, &direction);
    snd_pcm_hw_params_set_period_size_near(pcm, params, &period, &direction);
    snd_pcm_hw_params_set_periods_near(pcm, params, &periods, &direction);
    int status = snd_pcm_hw_params(pcm, params);
    snd_pcm_hw_params_get_rate(params, &rate, &direction);
    snd_pcm_hw_params_get_period_size(params, &period, &direction);
    snd_pcm_hw_params_get_buffer_size(params, &buffer);
    snd_pcm_hw_params_free(params);
    snd_pcm_close(pcm);
    return status;
}

static CFRunLoopRef loop;
static atomic_int loopReady, loopStop;
static void *runLoopThread(void *unused)
{
    (void)unused;
    loop = CFRunLoopGetCurrent();
    CFRunLoopSourceContext context = {0};
    CFRunLoopSourceRef keepAlive = CFRunLoopSourceCreate(NULL, 0, &context);
    CFRunLoopAddSource(loop, keepAlive, kCFRunLoopDefaultMode);
    atomic_store(&loopReady, 1);
    while (!atomic_load(&loopStop)) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.1, false);
    return NULL;
}

static void setVolume(int fd, int32_t step)
{
    VCardState state;
    if (pread(fd, &state, sizeof state, 0) != (ssize_t)sizeof state) return;
    state.playbackVolume = step;
    if (pwrite(fd, &state, sizeof state, 0) != (ssize_t)sizeof state) perror("pwrite");
}

static double measure(int fd, int i)
{
    usleep(200); /* every event finds the receiving threads asleep */
    atomic_store(&stamp, 0);
    double start = nowNanoseconds();
    setVolume(fd, 40 + (i & 1));
    while (atomic_load(&stamp) == 0) {}
    return atomic_load(&stamp) - start;
}

static Float32 currentVolume(void)
{
    Float32 volume = 0;
    UInt32 size = sizeof volume;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume);
    return volume;
}

/* Until the session's state has the new volume: the library's event thread has woken,
 * read the card and applied the event; the listener's run loop has not run yet. */
static double measureStateUpdate(int fd, int i)
{
    usleep(200);
    Float32 before = currentVolume();
    double start = nowNanoseconds();
    setVolume(fd, 40 + (i & 1));
    while (currentVolume() == before) {}
    return nowNanoseconds() - start;
}

int main(int argc, char **argv)
{
    int samples = argc > 1 ? atoi(argv[1]) : 2000;
    const char *dir = getenv("VCARD_DIR");
    if (!dir) { fputs("bench_alsa: run after vcard setup\n", stderr); return 2; }
    char path[4096];
    snprintf(path, sizeof path, "%s/state", dir);
    int fd = open(path, O_RDWR);

    pthread_t runLoopThreadID;
    pthread_create(&runLoopThreadID, NULL, runLoopThread, NULL);
    while (!atomic_load(&loopReady)) {}
    if (AudioSessionInitialize(loop, kCFRunLoopDefaultMode, NULL, NULL) != noErr) return 1;

    /* 1. Activation against a bare negotiation, alternating, best of five rounds. */
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    int activations = 500;
    double activation = 1e30, bare = 1e30;
    for (int round = 0; round < 5; round++) {
        double start = nowNanoseconds();
        for (int i = 0; i < activations; i++) {
            AudioSessionSetActive(true);
            AudioSessionSetActive(false);
        }
        double elapsed = (nowNanoseconds() - start) / activations;
        if (elapsed < activation) activation = elapsed;
        start = nowNanoseconds();
        for (int i = 0; i < activations; i++) {
            if (bareNegotiation() < 0) { fputs("bare negotiation failed\n", stderr); return 1; }
        }
        elapsed = (nowNanoseconds() - start) / activations;
        if (elapsed < bare) bare = elapsed;
    }
    printf("alsa-activation: activate+deactivate %.1f us; bare open+hw_params+close %.1f us; ratio %.2f (goal <= 1.2)\n",
           activation / 1e3, bare / 1e3, activation / bare);

    /* 2. Control event latency: five runs of each, alternating. */
    double *baseline = calloc((size_t)samples, sizeof(double));
    double *library = calloc((size_t)samples, sizeof(double));
    for (int run = 1; run <= 5; run++) {
        atomic_store(&stopBaseline, 0);
        pthread_t baselineID;
        pthread_create(&baselineID, NULL, baselineThread, NULL);
        usleep(100000);
        for (int i = 0; i < samples + 100; i++) {
            double latency = measure(fd, i);
            if (i >= 100) baseline[i - 100] = latency;
        }
        atomic_store(&stopBaseline, 1);
        pthread_join(baselineID, NULL);
        AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeListener, NULL);
        for (int i = 0; i < samples + 100; i++) {
            double latency = measure(fd, i);
            if (i >= 100) library[i - 100] = latency;
        }
        AudioSessionRemovePropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume);
        double *state = calloc((size_t)samples, sizeof(double));
        for (int i = 0; i < samples + 100; i++) {
            double latency = measureStateUpdate(fd, i);
            if (i >= 100) state[i - 100] = latency;
        }
        double s50 = percentile(state, (size_t)samples, 50);
        free(state);
        double b50 = percentile(baseline, (size_t)samples, 50), b99 = percentile(baseline, (size_t)samples, 99);
        double l50 = percentile(library, (size_t)samples, 50), l99 = percentile(library, (size_t)samples, 99);
        printf("alsa-event-latency run %d: control event->listener p50 %.1f us p99 %.1f us; bare snd_ctl_read loop "
               "p50 %.1f us p99 %.1f us; ratio p50 %.2f p99 %.2f (goal p50 <= 1.5); event->session state p50 %.1f us "
               "(ratio %.2f)\n",
               run, l50 / 1e3, l99 / 1e3, b50 / 1e3, b99 / 1e3, l50 / b50, l99 / b99, s50 / 1e3, s50 / b50);
    }
    atomic_store(&loopStop, 1);
    CFRunLoopWakeUp(loop);
    pthread_join(runLoopThreadID, NULL);
    return 0;
}
