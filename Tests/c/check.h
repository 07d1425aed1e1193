/* A minimal test harness for the C-level tests: CHECK counts, a failed CHECK prints
 * where and why, and finish() prints the closing "name: N passed, N failed" line. */
#ifndef AT_TEST_CHECK_H
#define AT_TEST_CHECK_H
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int checksPassed, checksFailed;

#define CHECK(condition, ...)                                                      \
    do {                                                                           \
        if (condition) {                                                           \
            checksPassed++;                                                        \
        } else {                                                                   \
            checksFailed++;                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                   \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
        }                                                                          \
    } while (0)

/* Formats a four-character code (or a plain number) for messages. */
static inline const char *fourcc(SInt32 value, char buffer[16])
{
    UInt32 v = (UInt32)value;
    char c[4] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v};
    int printable = 1;
    for (int i = 0; i < 4; i++) printable &= c[i] >= 0x20 && c[i] < 0x7f;
    if (printable) snprintf(buffer, 16, "'%c%c%c%c'", c[0], c[1], c[2], c[3]);
    else snprintf(buffer, 16, "%d", (int)value);
    return buffer;
}

#define CHECK_STATUS(expression, expected)                                         \
    do {                                                                           \
        OSStatus got_ = (expression);                                              \
        char a_[16], b_[16];                                                       \
        CHECK(got_ == (OSStatus)(expected), "%s returned %s, expected %s",         \
              #expression, fourcc(got_, a_), fourcc((SInt32)(expected), b_));      \
    } while (0)

/* The whole of a file, in a buffer the caller frees (4 bytes longer than the file), and
 * its size in *bytes; NULL (and 0) if it cannot be read. */
static inline void *readWholeFile(const char *path, long *bytes)
{
    *bytes = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = (char *)malloc((size_t)(size > 0 ? size : 0) + 4);
    *bytes = data && size > 0 ? (long)fread(data, 1, (size_t)size, f) : 0;
    fclose(f);
    return data;
}

/* Signal to noise of `got` against `want` (interleaved floats), in dB (200: identical). */
static inline double snr(const float *got, const float *want, long samples)
{
    double signal = 0, noise = 0;
    for (long i = 0; i < samples; i++) {
        signal += (double)want[i] * want[i];
        noise += ((double)got[i] - want[i]) * ((double)got[i] - want[i]);
    }
    return noise > 0 ? 10 * log10(signal / noise) : 200;
}

static inline int finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, checksPassed, checksFailed);
    return checksFailed == 0 ? 0 : 1;
}

/* Runs every callback the session has queued for the current run loop. */
static inline void runPendingCallbacks(void)
{
    while (CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true) == kCFRunLoopRunHandledSource) {}
}

/* A watchdog that turns a hang into a failure (never a timing assertion: the limits
 * are minutes). installWatchdog(name) once, then alarm(seconds) around the part that
 * could hang; `watchdogName` may be changed to say which part hung. */
static const char *watchdogName = "test";

static inline void watchdogFired(int signal)
{
    (void)signal;
    /* Only async-signal-safe calls here. */
    (void)!write(2, "FAIL: hung (", 12);
    (void)!write(2, watchdogName, strlen(watchdogName));
    (void)!write(2, ")\n", 2);
    _exit(1);
}

static inline void installWatchdog(const char *name)
{
    watchdogName = name;
    signal(SIGALRM, watchdogFired);
}

/* Whether the descriptor polls readable right now. */
static inline int fdReadable(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* The session's current route description (the caller releases it), NULL on failure. */
static inline CFDictionaryRef currentRoute(void)
{
    CFDictionaryRef route = NULL;
    UInt32 size = sizeof route;
    OSStatus status = AudioSessionGetProperty(kAudioSessionProperty_AudioRouteDescription, &size, &route);
    CHECK(status == noErr && route != NULL, "Get AudioRouteDescription (status %d)", (int)status);
    return route;
}
#endif
