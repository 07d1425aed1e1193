/*
 * The sound server (run by `make bench` inside a private PipeWire stack): another
 * program's stream starting (`pw-play`) -> this session's OtherAudioIsPlaying listener,
 * p50/p99 over RUNS plays, against a bare libpipewire client in the same process seeing
 * the same stream's node appear in the registry. Both are timed from the moment
 * pw-play is started, in the same runs.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <pipewire/pipewire.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench_common.h"

enum { RUNS = 20 };

static _Atomic double registrySeen, listenerSeen;

static void registryGlobal(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                           const struct spa_dict *props)
{
    (void)data; (void)id; (void)permissions; (void)version;
    if (strcmp(type, PW_TYPE_INTERFACE_Node) != 0 || !props) return;
    const char *class = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
    if (class && strcmp(class, "Stream/Output/Audio") == 0) atomic_store(&registrySeen, nowNanoseconds());
}

static const struct pw_registry_events registryEvents = {PW_VERSION_REGISTRY_EVENTS, .global = registryGlobal};

static void othrListener(void *data, AudioSessionPropertyID id, UInt32 size, const void *value)
{
    (void)data; (void)id; (void)size;
    if (*(const UInt32 *)value == 1) atomic_store(&listenerSeen, nowNanoseconds());
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: bench_soundserver TONE.wav\n"); return 2; }
    setvbuf(stdout, NULL, _IOLBF, 0);
    pw_init(NULL, NULL);
    struct pw_thread_loop *loop = pw_thread_loop_new("bench", NULL);
    struct pw_context *context = pw_context_new(pw_thread_loop_get_loop(loop), NULL, 0);
    struct pw_core *core = pw_context_connect(context, NULL, 0);
    if (!core) { printf("soundserver: no PipeWire; skipped\n"); return 0; }
    struct pw_registry *registry = pw_core_get_registry(core, PW_VERSION_REGISTRY, 0);
    struct spa_hook listener;
    pw_registry_add_listener(registry, &listener, &registryEvents, NULL);
    pw_thread_loop_start(loop);

    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    AudioSessionAddPropertyListener(kAudioSessionProperty_OtherAudioIsPlaying, othrListener, NULL);
    double ours[RUNS], bare[RUNS];
    int done = 0;
    for (int run = 0; run < RUNS; run++) {
        atomic_store(&registrySeen, 0);
        atomic_store(&listenerSeen, 0);
        double start = nowNanoseconds();
        pid_t player = fork();
        if (player == 0) {
            execlp("pw-play", "pw-play", argv[1], (char *)NULL);
            _exit(127);
        }
        /* Both observers see it, or five seconds pass (then the run is dropped). */
        while ((atomic_load(&registrySeen) == 0 || atomic_load(&listenerSeen) == 0) && nowNanoseconds() - start < 5e9)
            CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.001, true);
        kill(player, SIGKILL);
        waitpid(player, NULL, 0);
        if (atomic_load(&registrySeen) > 0 && atomic_load(&listenerSeen) > 0) {
            ours[done] = atomic_load(&listenerSeen) - start;
            bare[done] = atomic_load(&registrySeen) - start;
            done++;
        }
        /* Let OtherAudioIsPlaying fall back to 0 before the next play. */
        double until = nowNanoseconds() + 3e8;
        while (nowNanoseconds() < until) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    }
    if (done == 0) { printf("soundserver: no run completed\n"); return 1; }
    double o50 = percentile(ours, (size_t)done, 50) / 1e6, o99 = percentile(ours, (size_t)done, 99) / 1e6;
    double b50 = percentile(bare, (size_t)done, 50) / 1e6, b99 = percentile(bare, (size_t)done, 99) / 1e6;
    printf("soundserver: pw-play started -> OtherAudioIsPlaying listener: p50 %.2f ms, p99 %.2f ms (%d runs)\n",
           o50, o99, done);
    printf("soundserver: bare libpipewire client sees the stream's node in the registry: p50 %.2f ms, p99 %.2f ms\n",
           b50, b99);
    printf("soundserver: ratio p50 %.2f, p99 %.2f (the session also waits for the node to run)\n", o50 / b50, o99 / b99);
    return 0;
}
