/*
 * Arbitration between processes (audiosessiond), run by `make bench`:
 *  1. Process B activates MediaPlayback; process A, active in MediaPlayback, receives
 *     Begin on its run loop: latency from B's call to A's callback, p50/p99 over 1000
 *     rounds, against the round trip of a bare Unix-socket ping-pong between two C
 *     processes (B and an echo process), measured in the same rounds, right before
 *     each activation, so both see the same machine (the arbiter's path has two socket
 *     hops too, B to the daemon and the daemon to A's run loop, which its doorbell
 *     wakes). Goal: p99 within 3x the ping-pong's. bench_arbiter_floor measures the
 *     same hops with no work, for what this machine allows.
 *  2. A storm: 64 processes, each with a session, activate MediaPlayback at the same
 *     moment; total time until the arbitration settles (63 Begins received).
 * Times come from CLOCK_MONOTONIC, shared by the processes; results go through shared
 * memory.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench_common.h"

enum { ROUNDS = 1000, STORM = 64 };

struct Shared {
    atomic_int round;          /* the round A is ready for (A sets, B waits) */
    atomic_int bDone;
    _Atomic double sentAt;     /* when B called AudioSessionSetActive */
    double latency[ROUNDS];
    double pingPong[ROUNDS];
    atomic_int stormReady, stormGo, stormBegins;
    _Atomic double stormStart, stormLastBegin;
};
static struct Shared *shared;

static void pause1ms(void) { struct timespec p = {0, 1000000}; nanosleep(&p, NULL); }

static OSStatus setCategory(UInt32 category)
{
    return AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
}

/* A: Begin records the latency; End (B left with the flag) reactivates and readies the
 * next round. */
static void listenerA(void *data, UInt32 state)
{
    (void)data;
    if (state == kAudioSessionBeginInterruption) {
        int r = atomic_load(&shared->round);
        shared->latency[r] = nowNanoseconds() - atomic_load(&shared->sentAt);
    } else {
        AudioSessionSetActive(true);
        atomic_fetch_add(&shared->round, 1);
    }
}

static int echoSocket = -1;

/* One byte to the echo process and back: the baseline of this round. */
static double roundTrip(void)
{
    char byte = 'x';
    double start = nowNanoseconds();
    if (write(echoSocket, &byte, 1) != 1 || read(echoSocket, &byte, 1) != 1) return 0;
    return nowNanoseconds() - start;
}

static void runB(void)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    setCategory(kAudioSessionCategory_MediaPlayback);
    for (int r = 0; r < ROUNDS; r++) {
        while (atomic_load(&shared->round) != r) pause1ms();
        /* A's (re)activation travels on another connection: let the daemon take it
           first, or B's activation could come first and A would interrupt B. */
        pause1ms();
        pause1ms();
        shared->pingPong[r] = roundTrip();
        atomic_store(&shared->sentAt, nowNanoseconds());
        AudioSessionSetActive(true);
        /* A's Begin arrives while B is active; then B leaves, notifying A. */
        while (shared->latency[r] == 0) pause1ms();
        AudioSessionSetActiveWithFlags(false, kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation);
    }
    atomic_store(&shared->bDone, 1);
    _exit(0);
}

static void stormListener(void *data, UInt32 state)
{
    (void)data;
    if (state != kAudioSessionBeginInterruption) return;
    atomic_store(&shared->stormLastBegin, nowNanoseconds());
    atomic_fetch_add(&shared->stormBegins, 1);
}

static void runStormMember(void)
{
    AudioSessionInitialize(NULL, NULL, stormListener, NULL);
    setCategory(kAudioSessionCategory_MediaPlayback);
    atomic_fetch_add(&shared->stormReady, 1);
    while (!atomic_load(&shared->stormGo)) pause1ms();
    AudioSessionSetActive(true);
    /* A forked child cannot rely on CoreFoundation's run loop: it takes its callbacks
       through the session's descriptor. */
    int fd = -1;
    AudioSessionGetCallbackFileDescriptor(&fd);
    while (atomic_load(&shared->stormBegins) < STORM - 1) {
        struct pollfd wake = {fd, POLLIN, 0};
        poll(&wake, 1, 10);
        AudioSessionDispatchPendingCallbacks(NULL);
    }
    _exit(0);
}

/* The echo process of the baseline: sends back every byte. */
static pid_t startEcho(void)
{
    int pair[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
    pid_t child = fork();
    if (child == 0) {
        char byte;
        close(pair[0]);
        while (read(pair[1], &byte, 1) == 1) if (write(pair[1], &byte, 1) != 1) break;
        _exit(0);
    }
    close(pair[1]);
    echoSocket = pair[0];
    return child;
}

/* An argument names the run (e.g. "one processor") and skips the storm. */
int main(int argc, char **argv)
{
    const char *label = argc > 1 ? argv[1] : NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset(shared, 0, sizeof *shared);
    atomic_store(&shared->round, -1);

    pid_t echo = startEcho();
    pid_t b = fork();
    if (b == 0) runB();
    AudioSessionInitialize(NULL, NULL, listenerA, NULL);
    setCategory(kAudioSessionCategory_MediaPlayback);
    AudioSessionSetActive(true);
    atomic_store(&shared->round, 0);
    while (!atomic_load(&shared->bDone)) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    waitpid(b, NULL, 0);
    close(echoSocket);
    waitpid(echo, NULL, 0);
    AudioSessionSetActive(false);
    static double baseline[ROUNDS];
    memcpy(baseline, shared->pingPong, sizeof baseline);

    double latency[ROUNDS];
    memcpy(latency, shared->latency, sizeof latency);
    double p50 = percentile(latency, ROUNDS, 50) / 1e3, p99 = percentile(latency, ROUNDS, 99) / 1e3;
    double b50 = percentile(baseline, ROUNDS, 50) / 1e3, b99 = percentile(baseline, ROUNDS, 99) / 1e3;
    const char *name = label ? label : "arbiter";
    printf("%s: activation in B -> Begin on A's run loop: p50 %.1f us, p99 %.1f us (%d rounds)\n",
           name, p50, p99, ROUNDS);
    printf("%s: baseline socket ping-pong between two processes: p50 %.1f us, p99 %.1f us\n", name, b50, b99);
    printf("%s: ratio p50 %.2f, p99 %.2f (goal p99 <= 3)\n", name, p50 / b50, p99 / b99);
    if (label) return 0;

    pid_t members[STORM];
    for (int i = 0; i < STORM; i++) {
        members[i] = fork();
        if (members[i] == 0) runStormMember();
    }
    while (atomic_load(&shared->stormReady) < STORM) pause1ms();
    atomic_store(&shared->stormStart, nowNanoseconds());
    atomic_store(&shared->stormGo, 1);
    for (int i = 0; i < STORM; i++) waitpid(members[i], NULL, 0);
    double total = (atomic_load(&shared->stormLastBegin) - atomic_load(&shared->stormStart)) / 1e6;
    printf("arbiter: storm of %d simultaneous activations settled (%d Begins) in %.2f ms, %.1f us per session "
           "(%.0f ping-pong round trips)\n", STORM, atomic_load(&shared->stormBegins), total, total * 1e3 / STORM,
           total * 1e6 / (b50 * 1e3));
    return 0;
}
