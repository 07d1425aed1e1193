/*
 * The floor of the arbiter's path on this machine, for bench_arbiter's numbers (`make
 * bench`): the same processes and wake-ups with no work at all, next to the plain
 * ping-pong of bench_arbiter, measured in the same rounds.
 *
 *   B (this process) writes one byte to a relay process (where audiosessiond sits) and
 *   goes to sleep, as B does after AudioSessionSetActive; the relay writes a message to
 *   A's socket and rings A's doorbell (an 8-byte packet on a Unix packet socket); A, a
 *   third process, waits the way CoreFoundation's run loop does — ppoll on an epoll set
 *   holding the doorbell — and notes when it woke.
 *
 * The ping-pong sends B's byte to an echo process and waits for it: two wake-ups of a
 * partner that runs where the waker sleeps. The chain's wake-ups land on whichever
 * processor is idle, which on a virtual machine costs the most: the ratio printed here
 * is what no implementation of the arbiter can go below on this machine.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench_common.h"

enum { ROUNDS = 1000 };

struct Shared {
    _Atomic double wokeAt;
    atomic_int wakes;
};

static void pauseMicroseconds(long us)
{
    struct timespec p = {0, us * 1000};
    nanosleep(&p, NULL);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct Shared *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset(shared, 0, sizeof *shared);
    int toRelay[2], toA[2], doorbell[2], echo[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, toRelay) || socketpair(AF_UNIX, SOCK_STREAM, 0, toA) ||
        socketpair(AF_UNIX, SOCK_SEQPACKET, 0, doorbell) || socketpair(AF_UNIX, SOCK_STREAM, 0, echo)) {
        perror("socketpair");
        return 1;
    }
    pid_t relay = fork();
    if (relay == 0) {
        char byte, message[6] = {0, 0, 0, 2, 65, 0};
        uint64_t ring = 1;
        while (read(toRelay[1], &byte, 1) == 1) {
            if (write(toA[0], message, sizeof message) != sizeof message) break;
            if (send(doorbell[1], &ring, sizeof ring, MSG_DONTWAIT) != sizeof ring) break;
        }
        _exit(0);
    }
    pid_t a = fork();
    if (a == 0) {
        int set = epoll_create1(0);
        struct epoll_event watch = {.events = EPOLLIN | EPOLLET, .data.fd = doorbell[0]};
        epoll_ctl(set, EPOLL_CTL_ADD, doorbell[0], &watch);
        for (;;) {
            struct pollfd wait = {set, POLLIN, 0};
            if (ppoll(&wait, 1, NULL, NULL) < 0) continue;
            double now = nowNanoseconds();
            struct epoll_event event;
            uint64_t ring;
            char message[64];
            if (epoll_wait(set, &event, 1, 0) != 1) continue;
            if (read(doorbell[0], &ring, sizeof ring) != sizeof ring) _exit(0);
            if (recv(toA[1], message, sizeof message, MSG_DONTWAIT) <= 0) _exit(0);
            atomic_store(&shared->wokeAt, now);
            atomic_fetch_add(&shared->wakes, 1);
        }
    }
    pid_t echoer = fork();
    if (echoer == 0) {
        char byte;
        while (read(echo[1], &byte, 1) == 1)
            if (write(echo[1], &byte, 1) != 1) break;
        _exit(0);
    }

    static double chain[ROUNDS], pingPong[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        pauseMicroseconds(2000);
        char byte = 'x';
        double start = nowNanoseconds();
        if (write(echo[0], &byte, 1) != 1 || read(echo[0], &byte, 1) != 1) return 1;
        pingPong[r] = nowNanoseconds() - start;
        int before = atomic_load(&shared->wakes);
        start = nowNanoseconds();
        if (write(toRelay[0], &byte, 1) != 1) return 1;
        while (atomic_load(&shared->wakes) == before) pauseMicroseconds(100);
        chain[r] = atomic_load(&shared->wokeAt) - start;
    }
    /* Each child holds copies of every socket: they end by signal, not end of stream. */
    pid_t children[] = {relay, a, echoer};
    for (int i = 0; i < 3; i++) {
        kill(children[i], SIGKILL);
        waitpid(children[i], NULL, 0);
    }
    double c50 = percentile(chain, ROUNDS, 50) / 1e3, c99 = percentile(chain, ROUNDS, 99) / 1e3;
    double p50 = percentile(pingPong, ROUNDS, 50) / 1e3, p99 = percentile(pingPong, ROUNDS, 99) / 1e3;
    printf("arbiter floor: the same processes and wake-ups with no work (B -> relay -> doorbell -> A): "
           "p50 %.1f us, p99 %.1f us (%d rounds)\n", c50, c99, ROUNDS);
    printf("arbiter floor: ping-pong in the same rounds p50 %.1f us, p99 %.1f us; floor/ping-pong p50 %.2f, "
           "p99 %.2f\n", p50, p99, c50 / p50, c99 / p99);
    return 0;
}
