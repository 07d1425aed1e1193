/*
 * ALSA backend benchmarks on the virtual ALSA card (run by `make bench` after
 * `vcard setup`):
 *  1. Activation (open + negotiate + close) against `aplay` opening the same device for
 *     a zero-length play, as a whole command.
 *  2. Control event -> property listener latency (p50/p99) against a bare C loop that
 *     polls the same card's control device and reads the event with snd_ctl_read.
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

    /* 1. Activation against aplay. */
    int activations = 200;
    double start = nowNanoseconds();
    for (int i = 0; i < activations; i++) {
        AudioSessionSetActive(true);
        AudioSessionSetActive(false);
    }
    double activation = (nowNanoseconds() - start) / activations;
    int plays = 20;
    start = nowNanoseconds();
    for (int i = 0; i < plays; i++) {
        if (system("aplay -q -D default -t raw -f S16_LE -c 2 -r 44100 /dev/null") != 0) { fputs("aplay failed\n", stderr); return 1; }
    }
    double aplay = (nowNanoseconds() - start) / plays;
    printf("alsa-activation: activate+deactivate %.1f us; aplay zero-length play (whole command) %.1f us; ratio %.3f\n",
           activation / 1e3, aplay / 1e3, activation / aplay);

    /* 2. Control event latency. */
    double *baseline = calloc((size_t)samples, sizeof(double));
    double *library = calloc((size_t)samples, sizeof(double));
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
    double b50 = percentile(baseline, (size_t)samples, 50), b99 = percentile(baseline, (size_t)samples, 99);
    double l50 = percentile(library, (size_t)samples, 50), l99 = percentile(library, (size_t)samples, 99);
    printf("alsa-event-latency: control event->listener p50 %.1f us p99 %.1f us; bare snd_ctl_read loop p50 %.1f us "
           "p99 %.1f us; ratio p50 %.2f p99 %.2f\n", l50 / 1e3, l99 / 1e3, b50 / 1e3, b99 / 1e3, l50 / b50, l99 / b99);
    atomic_store(&loopStop, 1);
    CFRunLoopWakeUp(loop);
    pthread_join(runLoopThreadID, NULL);
    return 0;
}
