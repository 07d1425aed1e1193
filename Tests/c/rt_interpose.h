/*
 * What the real-time tests watch, interposed: the allocators, pthread mutexes, condition
 * waits, semaphores and sleeps. While `armed`, each call made on an I/O thread (one the
 * test marks with `onIOThread`, or, with `byName`, one the library named "AT I/O") is
 * counted, and every mutex locked is remembered by which side locked it, so a test can
 * tell a lock the I/O thread shares with another thread. Included by test_realtime.c
 * (a test program) and rt_watch.c (a preload library for programs that are not ours to
 * change), so both watch the same calls the same way. With RTWATCH_BACKTRACE set in the
 * environment, each allocation counted on an I/O thread also prints its call stack to
 * standard error (to find where one comes from).
 */
#ifndef RT_INTERPOSE_H
#define RT_INTERPOSE_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <execinfo.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static __thread int onIOThread;
/* An audio queue's real-time thread runs none of the program's code: it is known by the
 * name the library gives its I/O threads. */
static volatile int byName;
static __thread int namedIO;
static volatile long namedCalls;
static inline int ioThread(void)
{
    if (onIOThread || namedIO) return 1;
    if (!byName) return 0;
    char name[16] = {0};
    if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && strcmp(name, "AT I/O") == 0) namedIO = 1;
    if (namedIO) __atomic_add_fetch(&namedCalls, 1, __ATOMIC_RELAXED);
    return namedIO;
}
static volatile int armed, countMainAllocations;
static volatile long ioAllocations, ioFrees, ioLockWaits, ioBlockingCalls, mainAllocations;

/* Mutex addresses locked while armed: by the I/O thread, and by every other thread. */
enum { SLOTS = 4096 };
static uintptr_t ioLocked[SLOTS], otherLocked[SLOTS];

static void remember(uintptr_t *table, const void *address)
{
    uintptr_t key = (uintptr_t)address;
    for (unsigned i = 0, at = (unsigned)(key >> 4) % SLOTS; i < SLOTS; i++, at = (at + 1) % SLOTS) {
        uintptr_t seen = __atomic_load_n(&table[at], __ATOMIC_ACQUIRE);
        if (seen == key) return;
        uintptr_t empty = 0;
        if (seen == 0 && __atomic_compare_exchange_n(&table[at], &empty, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return;
        if (empty == key) return;
    }
}

static int contains(uintptr_t *table, uintptr_t key)
{
    for (unsigned i = 0, at = (unsigned)(key >> 4) % SLOTS; i < SLOTS; i++, at = (at + 1) % SLOTS) {
        uintptr_t seen = __atomic_load_n(&table[at], __ATOMIC_ACQUIRE);
        if (seen == key) return 1;
        if (seen == 0) return 0;
    }
    return 0;
}

static inline void counted(volatile long *counter) { __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED); }

/* Where an I/O thread's allocation comes from (RTWATCH_BACKTRACE): printed once per
 * allocation, not from inside the printing (backtrace may itself allocate). */
static __thread int tracing;
static inline void traceAllocation(void)
{
    static int wanted = -1;
    if (wanted < 0) wanted = getenv("RTWATCH_BACKTRACE") != NULL;
    if (!wanted || tracing) return;
    tracing = 1;
    void *frames[40];
    int depth = backtrace(frames, 40);
    backtrace_symbols_fd(frames, depth, 2);
    write(2, "--\n", 3);
    tracing = 0;
}

static inline void allocation(void)
{
    if (!armed) return;
    if (ioThread()) {
        counted(&ioAllocations);
        traceAllocation();
    } else if (countMainAllocations) counted(&mainAllocations);
}

void *malloc(size_t n) { allocation(); return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { allocation(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { allocation(); return __libc_realloc(p, n); }
void free(void *p) { if (armed && p && ioThread()) counted(&ioFrees); __libc_free(p); }
void *memalign(size_t alignment, size_t n) { allocation(); return __libc_memalign(alignment, n); }
void *aligned_alloc(size_t alignment, size_t n) { allocation(); return __libc_memalign(alignment, n); }
int posix_memalign(void **out, size_t alignment, size_t n)
{
    allocation();
    void *p = __libc_memalign(alignment, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

/* glibc's own entry points under their compatibility names: reachable before any
 * constructor runs (the libraries lock mutexes as they load). */
extern int __pthread_mutex_lock(pthread_mutex_t *);
extern int __pthread_mutex_trylock(pthread_mutex_t *);
__asm__(".symver __pthread_mutex_lock,__pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver __pthread_mutex_trylock,__pthread_mutex_trylock@GLIBC_2.2.5");
#define realLock __pthread_mutex_lock
#define realTrylock __pthread_mutex_trylock
static int (*realCondWait)(pthread_cond_t *, pthread_mutex_t *);
static int (*realCondTimedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static int (*realSemWait)(sem_t *);
static int (*realNanosleep)(const struct timespec *, struct timespec *);
static int (*realUsleep)(useconds_t);

__attribute__((constructor)) static void findRealCalls(void)
{
    realCondWait = dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
    realCondTimedwait = dlvsym(RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
    realSemWait = dlsym(RTLD_NEXT, "sem_wait");
    realNanosleep = dlsym(RTLD_NEXT, "nanosleep");
    realUsleep = dlsym(RTLD_NEXT, "usleep");
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
    if (armed) {
        if (ioThread()) {
            remember(ioLocked, m);
            int got = realTrylock(m);
            if (got == 0) return 0;
            if (got == EBUSY) counted(&ioLockWaits);
        } else {
            remember(otherLocked, m);
        }
    }
    return realLock(m);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
    /* A try never waits: allowed on the I/O thread. Others' tries still share the lock. */
    if (armed && !ioThread()) remember(otherLocked, m);
    return realTrylock(m);
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    if (armed && ioThread()) counted(&ioBlockingCalls);
    return realCondWait(c, m);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
    if (armed && ioThread()) counted(&ioBlockingCalls);
    return realCondTimedwait(c, m, t);
}

int sem_wait(sem_t *s)
{
    if (armed && ioThread()) counted(&ioBlockingCalls);
    return realSemWait(s);
}

int nanosleep(const struct timespec *t, struct timespec *left)
{
    if (armed && ioThread()) counted(&ioBlockingCalls);
    return realNanosleep(t, left);
}

int usleep(useconds_t microseconds)
{
    if (armed && ioThread()) counted(&ioBlockingCalls);
    return realUsleep(microseconds);
}


/* Mutexes the I/O thread locked that another thread also locked while armed. */
static long sharedLocks(void)
{
    long shared = 0;
    for (unsigned i = 0; i < SLOTS; i++) if (ioLocked[i] && contains(otherLocked, ioLocked[i])) shared++;
    return shared;
}
#endif
