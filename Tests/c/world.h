/* The world around the program a C suite tests — the volume, a plug, another program's
 * or the phone's interruption, the arbiter dying — driven by whatever the configuration
 * the suite runs in has. scripts/run-tests.sh runs each suite in four:
 *
 *   hardware  AUDIOTOOLBOX_BACKEND=virtual   the in-process virtual device
 *             otherwise (VCARD_DIR set)      the virtual ALSA card, through `vcard`
 *   arbiter   AUDIOTOOLBOX_ARBITER=local     the in-process arbiter
 *             =daemon                        audiosessiond, through `audiosession`
 *
 * Each action returns once the session has taken it in (its state shows it, or its
 * callback is queued), without running the run loop: a suite's checks of what waits
 * and when it runs hold in every configuration. An action a configuration cannot do
 * returns WORLD_CANNOT with the reason in worldWhyNot(); the suite then says SKIP with
 * that reason (counted by run-tests.sh), never passes silently.
 *
 * The bounds on waiting only turn a lost event into a failure (the suites' watchdogs);
 * nothing here measures time. */
#ifndef AT_TEST_WORLD_H
#define AT_TEST_WORLD_H
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "../alsa/amixer_reference.h"

enum { WORLD_DONE = 0, WORLD_CANNOT = 1, WORLD_FAILED = 2 };

static int worldOnCard(void)
{
    const char *backend = getenv("AUDIOTOOLBOX_BACKEND");
    return !(backend && strcmp(backend, "virtual") == 0);
}

static int worldWithDaemon(void)
{
    const char *arbiter = getenv("AUDIOTOOLBOX_ARBITER");
    return arbiter && strcmp(arbiter, "daemon") == 0;
}

/* "virtual device, in-process arbiter" and so on, for messages. */
static const char *worldName(void)
{
    static char name[64];
    snprintf(name, sizeof name, "%s, %s", worldOnCard() ? "virtual ALSA card" : "virtual device",
             worldWithDaemon() ? "audiosessiond" : "in-process arbiter");
    return name;
}

static char worldReason[256];
static const char *worldWhyNot(void) { return worldReason; }

static int worldCannot(const char *reason)
{
    snprintf(worldReason, sizeof worldReason, "%s", reason);
    return WORLD_CANNOT;
}

/* Runs a command of the configuration's tools (vcard, audiosession: on PATH). */
static int worldRun(const char *format, const char *argument)
{
    char command[256];
    snprintf(command, sizeof command, format, argument);
    int status = system(command);
    CHECK(status == 0, "[%s] `%s` exited with %d", worldName(), command, status);
    return status == 0 ? WORLD_DONE : WORLD_FAILED;
}

/* The session's callback descriptor: readable while callbacks are queued. */
static int worldCallbackDescriptor(void)
{
    int fd = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&fd), noErr);
    return fd;
}

/* Until a callback is queued (20 s: only a lost event takes that long). */
static int worldAwaitQueued(const char *what)
{
    int fd = worldCallbackDescriptor();
    struct pollfd p = {fd, POLLIN, 0};
    for (int i = 0; i < 2000; i++) {
        if (poll(&p, 1, 10) == 1 && (p.revents & POLLIN)) return WORLD_DONE;
    }
    CHECK(0, "[%s] no callback was queued for %s", worldName(), what);
    return WORLD_FAILED;
}

static Float32 worldReadVolume(void)
{
    Float32 volume = -1;
    UInt32 size = sizeof volume;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume);
    return volume;
}

/* The output volume set to `level`. *expected is what CurrentHardwareOutputVolume
 * should then read, within *tolerance: the level itself on the virtual device; on the
 * card, what `amixer -M` (alsa-utils' own mapping) reads for its Master control. */
static int worldSetOutputVolume(Float32 level, Float32 *expected, Float32 *tolerance)
{
    if (!worldOnCard()) {
        CHECK_STATUS(AudioSessionVirtualDeviceSetOutputVolume(level), noErr);
        *expected = level;
        *tolerance = 0;
        return WORLD_DONE;
    }
    char value[32];
    snprintf(value, sizeof value, "%.4f", (double)level);
    if (worldRun("vcard volume %s", value) != WORLD_DONE) return WORLD_FAILED;
    double reference = amixerMappedVolume();
    CHECK(reference >= 0, "[%s] amixer -M read the card's Master", worldName());
    *expected = (Float32)reference;
    *tolerance = (Float32)AMIXER_TOLERANCE;
    for (int i = 0; i < 2000; i++) {
        if (fabsf(worldReadVolume() - *expected) <= *tolerance) return WORLD_DONE;
        usleep(10000);
    }
    CHECK(0, "[%s] CurrentHardwareOutputVolume never read %.3f after `vcard volume %s` (reads %.3f)", worldName(),
          (double)*expected, value, (double)worldReadVolume());
    return WORLD_FAILED;
}

static const char *worldCardPort(AudioSessionVirtualPort port)
{
    switch (port) {
    case kAudioSessionVirtualPort_Headphones: return "headphones";
    case kAudioSessionVirtualPort_Headset: return "headset";
    case kAudioSessionVirtualPort_LineOut: return "lineout";
    case kAudioSessionVirtualPort_LineIn: return "linein";
    case kAudioSessionVirtualPort_HDMI: return "hdmi";
    default: return NULL;
    }
}

/* A plug (connected 1) or an unplug (0). On the card it returns once the session's
 * route description has changed: the ports used here (headphones, a headset, line
 * out) each change the route of every category. */
static int worldPlug(AudioSessionVirtualPort port, int connected)
{
    if (!worldOnCard()) {
        CHECK_STATUS(connected ? AudioSessionVirtualDeviceConnectPort(port) : AudioSessionVirtualDeviceDisconnectPort(port),
                     noErr);
        return WORLD_DONE;
    }
    const char *name = worldCardPort(port);
    if (!name) return worldCannot("the virtual ALSA card has no jack for this port (the built-in microphone is always there)");
    CFDictionaryRef before = currentRoute();
    if (worldRun(connected ? "vcard plug %s" : "vcard unplug %s", name) != WORLD_DONE) {
        if (before) CFRelease(before);
        return WORLD_FAILED;
    }
    for (int i = 0; i < 2000; i++) {
        CFDictionaryRef now = currentRoute();
        int changed = now && before && !CFEqual(now, before);
        if (now) CFRelease(now);
        if (changed) {
            CFRelease(before);
            return WORLD_DONE;
        }
        usleep(10000);
    }
    if (before) CFRelease(before);
    CHECK(0, "[%s] the route never changed after `vcard %s %s`", worldName(), connected ? "plug" : "unplug", name);
    return WORLD_FAILED;
}

/* The phone's interruption (a call) begins: every active session is interrupted.
 * Returns once the Begin is queued, so the session must be active. */
static int worldBeginInterruption(void)
{
    if (!worldWithDaemon()) {
        CHECK_STATUS(AudioSessionVirtualDeviceBeginInterruption(), noErr);
        return WORLD_DONE;
    }
    if (worldRun("audiosession call %s", "start") != WORLD_DONE) return WORLD_FAILED;
    return worldAwaitQueued("the call's Begin");
}

/* The interruption ends, with ShouldResume or not. Returns once the End is queued. */
static int worldEndInterruption(int shouldResume)
{
    if (!worldWithDaemon()) {
        CHECK_STATUS(AudioSessionVirtualDeviceEndInterruption(shouldResume ? true : false), noErr);
        return WORLD_DONE;
    }
    if (!shouldResume)
        return worldCannot("a call audiosessiond ends always lets the session resume (SPEC 7); ShouldNotResume comes "
                           "from a daemon that dies (arbiter case g)");
    if (worldRun("audiosession call %s", "end") != WORLD_DONE) return WORLD_FAILED;
    return worldAwaitQueued("the call's End");
}

/* The arbiter dies: ServerDied listeners are called. With the daemon, it is killed
 * (the library starts another); returns once the ServerDied callback is queued, so a
 * listener must be registered. */
static int worldServerDied(void)
{
    if (!worldWithDaemon()) {
        CHECK_STATUS(AudioSessionVirtualDeviceServerDied(), noErr);
        return WORLD_DONE;
    }
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    char path[512];
    snprintf(path, sizeof path, "%s/audiotoolbox/audiosessiond.pid", runtime ? runtime : "/nonexistent");
    FILE *file = fopen(path, "r");
    int pid = 0;
    if (file) {
        if (fscanf(file, "%d", &pid) != 1) pid = 0;
        fclose(file);
    }
    CHECK(pid > 1, "[%s] the daemon's pid from %s", worldName(), path);
    if (pid <= 1) return WORLD_FAILED;
    CHECK(kill(pid, SIGKILL) == 0, "[%s] kill the daemon (pid %d)", worldName(), pid);
    return worldAwaitQueued("ServerDied after the daemon was killed");
}

/* The suite says a part cannot apply in this configuration, and why. */
static int skippedParts;
static void worldSkip(const char *part)
{
    skippedParts++;
    printf("SKIP %s [%s]: %s\n", part, worldName(), worldWhyNot());
    fflush(stdout);
}

/* finish(), with the configuration and the parts skipped. */
static int worldFinish(const char *name)
{
    printf("%s [%s]: %d passed, %d failed, %d skipped\n", name, worldName(), checksPassed, checksFailed, skippedParts);
    return checksFailed == 0 ? 0 : 1;
}
#endif
