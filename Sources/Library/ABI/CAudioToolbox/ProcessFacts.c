/* Facts about the running process that Swift's Glibc module does not show (they need
 * _GNU_SOURCE, or must be watched from the moment the library is loaded): where the
 * library was loaded from, the program's path and name, whether this is a forked child.
 * Internal: the version script keeps them out of the library's exports. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
#include "CAudioToolbox.h"

static volatile int forkedChild;

/* The runtime's steps (ForkCoordinator), set once; `hooksSet` is stored after them. */
static void (*prepareHook)(void), (*parentHook)(void), (*childHook)(void);
static int hooksSet;
/* Whether this fork runs the hooks: decided in prepare, on the forking thread, so a
 * fork never runs a parent or child step whose prepare step it did not run. */
static __thread int hooksArmed;

static void forkPrepare(void)
{
    hooksArmed = __atomic_load_n(&hooksSet, __ATOMIC_ACQUIRE);
    if (hooksArmed) prepareHook();
}

static void forkParent(void)
{
    if (hooksArmed) parentHook();
}

static void forkChild(void)
{
    forkedChild = 1;
    if (hooksArmed) childHook();
}

void AudioToolboxSetForkHooks(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    if (__atomic_load_n(&hooksSet, __ATOMIC_ACQUIRE)) return;
    prepareHook = prepare;
    parentHook = parent;
    childHook = child;
    __atomic_store_n(&hooksSet, 1, __ATOMIC_RELEASE);
}

/* The library's only pthread_atfork: from the moment the library is loaded, not only
 * once a session exists (the parent may have run a CoreFoundation run loop without
 * one). */
__attribute__((constructor)) static void watchForks(void)
{
    pthread_atfork(forkPrepare, forkParent, forkChild);
}

int AudioToolboxInForkedChild(void)
{
    return forkedChild;
}

static char programPath[4096];

static void readProgramPath(void)
{
    ssize_t length = readlink("/proc/self/exe", programPath, sizeof programPath - 1);
    programPath[length > 0 ? length : 0] = 0;
}

const char *AudioToolboxLibraryPath(void)
{
    Dl_info info;
    if (dladdr((const void *)&AudioToolboxLibraryPath, &info) == 0) return NULL;
    return info.dli_fname;
}

const char *AudioToolboxProgramPath(void)
{
    /* Read once: the link stays what it was when the program started. */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, readProgramPath);
    return programPath[0] ? programPath : NULL;
}

const char *AudioToolboxProgramName(void)
{
    return program_invocation_short_name;
}
