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
 * and when it runs hold in every configuration (worldInterruptionSoon, for a suite that
 * waits for the callback itself, is the one exception). An action a configuration
 * cannot do returns WORLD_CANNOT with the reason in worldWhyNot(); the suite then says
 * SKIP with that reason (counted by run-tests.sh), never passes silently.
 *
 * The bounds on waiting only turn a lost event into a failure (the suites' watchdogs);
 * nothing here measures time. Actions on the virtual device may come from several
 * threads at once; on the card, one at a time (`vcard` rewrites the card's state whole).
 * Everything is static inline: each suite uses only some of it. */
#ifndef AT_TEST_WORLD_H
#define AT_TEST_WORLD_H
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "../alsa/amixer_reference.h"

enum { WORLD_DONE = 0, WORLD_CANNOT = 1, WORLD_FAILED = 2 };

static inline int worldOnCard(void)
{
    const char *backend = getenv("AUDIOTOOLBOX_BACKEND");
    return !(backend && strcmp(backend, "virtual") == 0);
}

static inline int worldWithDaemon(void)
{
    const char *arbiter = getenv("AUDIOTOOLBOX_ARBITER");
    return arbiter && strcmp(arbiter, "daemon") == 0;
}

/* "virtual device, in-process arbiter" and so on, for messages. */
static inline const char *worldName(void)
{
    static char name[64];
    snprintf(name, sizeof name, "%s, %s", worldOnCard() ? "virtual ALSA card" : "virtual device",
             worldWithDaemon() ? "audiosessiond" : "in-process arbiter");
    return name;
}

static char worldReason[256];
static inline const char *worldWhyNot(void) { return worldReason; }

static inline int worldCannot(const char *reason)
{
    snprintf(worldReason, sizeof worldReason, "%s", reason);
    return WORLD_CANNOT;
}

/* A virtual-device or in-process-arbiter call's status, checked under a lock: those
 * actions may come from several threads at once (test_order's producers). */
static pthread_mutex_t worldCheckLock = PTHREAD_MUTEX_INITIALIZER;
static inline void worldCheckStatus(OSStatus status, const char *call)
{
    char got[16];
    pthread_mutex_lock(&worldCheckLock);
    CHECK(status == noErr, "[%s] %s returned %s", worldName(), call, fourcc(status, got));
    pthread_mutex_unlock(&worldCheckLock);
}

/* Runs a command of the configuration's tools (vcard, audiosession: on PATH). */
static inline int worldRun(const char *format, const char *argument)
{
    char command[256];
    snprintf(command, sizeof command, format, argument);
    int status = system(command);
    CHECK(status == 0, "[%s] `%s` exited with %d", worldName(), command, status);
    return status == 0 ? WORLD_DONE : WORLD_FAILED;
}

/* The session's callback descriptor: readable while callbacks are queued. */
static inline int worldCallbackDescriptor(void)
{
    int fd = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&fd), noErr);
    return fd;
}

/* Before an action settled by worldAwaitQueued: callbacks already waiting (the daemon's
 * news of an earlier step: another program's audio, a route) would end the wait at once,
 * before the action's own callback. They are run now, in their order, as the run loop
 * would have run them before the action's. */
static inline void worldExpectNothingQueued(const char *action)
{
    (void)action;
    runPendingCallbacks();
    CHECK(!fdReadable(worldCallbackDescriptor()), "[%s] callbacks still waiting before %s", worldName(), action);
}

/* Until a callback is queued (20 s: only a lost event takes that long). */
static inline int worldAwaitQueued(const char *what)
{
    int fd = worldCallbackDescriptor();
    struct pollfd p = {fd, POLLIN, 0};
    for (int i = 0; i < 2000; i++) {
        if (poll(&p, 1, 10) == 1 && (p.revents & POLLIN)) return WORLD_DONE;
    }
    CHECK(0, "[%s] no callback was queued for %s", worldName(), what);
    return WORLD_FAILED;
}

static inline Float32 worldReadVolume(void)
{
    Float32 volume = -1;
    UInt32 size = sizeof volume;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume);
    return volume;
}

/* The card's playback volume step, as `vcard show` prints it (-1 if it cannot). */
static inline int worldCardVolumeStep(void)
{
    FILE *pipe = popen("vcard show", "r");
    if (!pipe) return -1;
    char line[512];
    int step = -1;
    while (fgets(line, sizeof line, pipe)) {
        const char *field = strstr(line, "playback ");
        if (field && sscanf(field, "playback %d", &step) != 1) step = -1;
    }
    pclose(pipe);
    return step;
}

/* The output volume set to `level`. *expected is what CurrentHardwareOutputVolume
 * should then read, within *tolerance: the level itself on the virtual device; on the
 * card, what `amixer -M` (alsa-utils' own mapping) reads for its Master control. Two
 * steps of the card can read the same whole percent there, so when the card's step
 * moved, the session's reading must also have left the one it had before. */
static inline int worldSetOutputVolume(Float32 level, Float32 *expected, Float32 *tolerance)
{
    if (!worldOnCard()) {
        worldCheckStatus(AudioSessionVirtualDeviceSetOutputVolume(level), "AudioSessionVirtualDeviceSetOutputVolume");
        *expected = level;
        *tolerance = 0;
        return WORLD_DONE;
    }
    char value[32];
    snprintf(value, sizeof value, "%.4f", (double)level);
    Float32 before = worldReadVolume();
    int stepBefore = worldCardVolumeStep();
    if (worldRun("vcard volume %s", value) != WORLD_DONE) return WORLD_FAILED;
    int stepAfter = worldCardVolumeStep();
    CHECK(stepBefore >= 0 && stepAfter >= 0, "[%s] `vcard show` gave the card's volume step", worldName());
    int moved = stepAfter != stepBefore;
    double reference = amixerMappedVolume();
    CHECK(reference >= 0, "[%s] amixer -M read the card's Master", worldName());
    *expected = (Float32)reference;
    *tolerance = (Float32)AMIXER_TOLERANCE;
    for (int i = 0; i < 2000; i++) {
        Float32 now = worldReadVolume();
        if (fabsf(now - *expected) <= *tolerance && (!moved || now != before)) return WORLD_DONE;
        usleep(10000);
    }
    CHECK(0, "[%s] CurrentHardwareOutputVolume never read %.3f after `vcard volume %s` (reads %.3f)", worldName(),
          (double)*expected, value, (double)worldReadVolume());
    return WORLD_FAILED;
}

/* Whether this process has the hardware to itself: the virtual device is each
 * process's own (a forked child starts a new one); the card is every program's, and
 * what another process does to it reaches this session in the order it was done. */
static inline int worldHardwareOwn(void)
{
    if (worldOnCard())
        return worldCannot("the virtual ALSA card is one device for every process: what a forked child does to it "
                           "is this session's news too");
    return WORLD_DONE;
}

static inline const char *worldCardPort(AudioSessionVirtualPort port)
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

/* Until AudioInputAvailable reads `available`. */
static inline int worldAwaitInput(UInt32 available, const char *after)
{
    UInt32 now = 2;
    for (int i = 0; i < 2000; i++) {
        UInt32 size = sizeof now;
        if (AudioSessionGetProperty(kAudioSessionProperty_AudioInputAvailable, &size, &now) == noErr && now == available)
            return WORLD_DONE;
        usleep(10000);
    }
    CHECK(0, "[%s] AudioInputAvailable never read %u after %s (reads %u)", worldName(), (unsigned)available, after,
          (unsigned)now);
    return WORLD_FAILED;
}

/* A plug (connected 1) or an unplug (0). On the card it returns once the session's
 * route description has changed: the ports used here (headphones, a headset, line
 * out) each change the route of every category. The built-in microphone is the card's
 * Mic Jack, its only microphone (alsa-controls.conf: a card with a mic jack has one
 * only while it is plugged); that returns once AudioInputAvailable says so (no other
 * input may be plugged). */
static inline int worldPlug(AudioSessionVirtualPort port, int connected)
{
    if (!worldOnCard()) {
        worldCheckStatus(connected ? AudioSessionVirtualDeviceConnectPort(port) : AudioSessionVirtualDeviceDisconnectPort(port),
                         connected ? "AudioSessionVirtualDeviceConnectPort" : "AudioSessionVirtualDeviceDisconnectPort");
        return WORLD_DONE;
    }
    if (port == kAudioSessionVirtualPort_BuiltInMic) {
        if (worldRun(connected ? "vcard plug %s" : "vcard unplug %s", "mic") != WORLD_DONE) return WORLD_FAILED;
        return worldAwaitInput(connected ? 1 : 0, connected ? "`vcard plug mic`" : "`vcard unplug mic`");
    }
    const char *name = worldCardPort(port);
    if (!name) return worldCannot("the virtual ALSA card has no jack for this port");
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

/* Kills this configuration's audiosessiond (its pid file in XDG_RUNTIME_DIR). */
static inline int worldKillDaemon(void)
{
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
    return WORLD_DONE;
}

/* Until this process's session is registered with a daemon again (the library starts
 * one and registers by itself after a daemon died): `audiosession status --json` lists
 * its pid. */
static inline int worldAwaitRejoined(void)
{
    char needle[32];
    snprintf(needle, sizeof needle, "\"pid\":%d,", (int)getpid());
    for (int i = 0; i < 2000; i++) {
        FILE *status = popen("audiosession status --json 2>/dev/null", "r");
        char text[65536];
        size_t length = status ? fread(text, 1, sizeof text - 1, status) : 0;
        if (status) pclose(status);
        text[length] = 0;
        if (strstr(text, needle)) return WORLD_DONE;
        usleep(10000);
    }
    CHECK(0, "[%s] the session never registered again after its daemon died", worldName());
    return WORLD_FAILED;
}

/* The phone's interruption (a call) begins: every active session is interrupted.
 * Returns once the Begin is queued, so the session must be active. */
static inline int worldBeginInterruption(void)
{
    if (!worldWithDaemon()) {
        worldCheckStatus(AudioSessionVirtualDeviceBeginInterruption(), "AudioSessionVirtualDeviceBeginInterruption");
        return WORLD_DONE;
    }
    worldExpectNothingQueued("a call");
    if (worldRun("audiosession call %s", "start") != WORLD_DONE) return WORLD_FAILED;
    return worldAwaitQueued("the call's Begin");
}

/* The interruption ends, with ShouldResume or not. Returns once the End is queued.
 * With audiosessiond a call always ends resuming (SPEC 7); a session's interruption ends
 * without resuming when its daemon dies during it: that is done here (the daemon is
 * killed, the library ends the interruption so and registers with a new daemon, which
 * has no call; ServerDied listeners are called too). Returns once the session is
 * registered again, so what follows reaches it. */
static inline int worldEndInterruption(int shouldResume)
{
    if (!worldWithDaemon()) {
        worldCheckStatus(AudioSessionVirtualDeviceEndInterruption(shouldResume ? true : false),
                         "AudioSessionVirtualDeviceEndInterruption");
        return WORLD_DONE;
    }
    worldExpectNothingQueued("the end of a call");
    if (!shouldResume) {
        if (worldKillDaemon() != WORLD_DONE) return WORLD_FAILED;
        if (worldAwaitQueued("the End a dying daemon leaves") != WORLD_DONE) return WORLD_FAILED;
        return worldAwaitRejoined();
    }
    if (worldRun("audiosession call %s", "end") != WORLD_DONE) return WORLD_FAILED;
    return worldAwaitQueued("the call's End");
}

/* The phone's interruption begins (begin 1) or ends (0, with ShouldResume or not) with
 * no callback awaited: for a session that gets none (an inactive one) or whose
 * callbacks already wait, as in a flood (the descriptor cannot tell one more). The
 * session has taken it in on return. In-process only: audiosessiond tells the session
 * by a message its own thread reads, and with no callback to wait for, nothing the
 * session shows says when it has. */
static inline int worldInterruptionNow(int begin, int shouldResume)
{
    if (worldWithDaemon())
        return worldCannot("audiosessiond's call reaches the session as a message its own thread reads: with no "
                           "callback to wait for (none comes, or others already wait) nothing shows when it did");
    if (begin)
        worldCheckStatus(AudioSessionVirtualDeviceBeginInterruption(), "AudioSessionVirtualDeviceBeginInterruption");
    else
        worldCheckStatus(AudioSessionVirtualDeviceEndInterruption(shouldResume ? true : false),
                         "AudioSessionVirtualDeviceEndInterruption");
    return WORLD_DONE;
}

/* The same for a suite that then waits for the interruption's callback itself
 * (bounded by its watchdog) while other callbacks already wait. In-process the session
 * has taken it in on return; with audiosessiond this returns once the daemon has
 * applied it and sent its messages, which the session takes in after, in order. */
static inline int worldInterruptionSoon(int begin, int shouldResume)
{
    if (!worldWithDaemon()) return worldInterruptionNow(begin, shouldResume);
    if (!begin && !shouldResume)
        return worldCannot("a call audiosessiond ends always lets the session resume (SPEC 7); ShouldNotResume "
                           "comes from a daemon that dies (worldEndInterruption)");
    return worldRun("audiosession call %s", begin ? "start" : "end");
}

/* Whether the in-process arbiter's simulations act (AudioSessionVirtualDevice*Interruption,
 * ServerDied, SetOtherAudioPlaying), for suites that test those functions themselves:
 * with audiosessiond they return kAudioServicesNoHardwareError. */
static inline int worldInProcessArbiter(void)
{
    if (worldWithDaemon())
        return worldCannot("audiosessiond arbitrates, and the in-process arbiter's simulations return "
                           "kAudioServicesNoHardwareError");
    return WORLD_DONE;
}

/* The arbiter dies: ServerDied listeners are called. With the daemon, it is killed
 * (the library starts another); returns once the ServerDied callback is queued, so a
 * listener must be registered. */
static inline int worldServerDied(void)
{
    if (!worldWithDaemon()) {
        worldCheckStatus(AudioSessionVirtualDeviceServerDied(), "AudioSessionVirtualDeviceServerDied");
        return WORLD_DONE;
    }
    worldExpectNothingQueued("killing the daemon");
    if (worldKillDaemon() != WORLD_DONE) return WORLD_FAILED;
    return worldAwaitQueued("ServerDied after the daemon was killed");
}

/* The suite says a part cannot apply in this configuration, and why. */
static int skippedParts;
static inline void worldSkip(const char *part)
{
    skippedParts++;
    printf("SKIP %s [%s]: %s\n", part, worldName(), worldWhyNot());
    fflush(stdout);
}

/* finish(), with the configuration and the parts skipped. */
static inline int worldFinish(const char *name)
{
    printf("%s [%s]: %d passed, %d failed, %d skipped\n", name, worldName(), checksPassed, checksFailed, skippedParts);
    return checksFailed == 0 ? 0 : 1;
}
/* ---- what the virtual card played (its recording since `vcard record-reset`) ---------- */

/* 16-bit stereo frames; the caller frees them. */
static inline short *worldCardRecording(long *frames)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/state.playback.raw", getenv("VCARD_DIR"));
    long bytes = 0;
    short *samples = (short *)readWholeFile(path, &bytes);
    *frames = bytes / 4;
    return samples;
}

static inline int worldCardRate(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/state.playback.rate", getenv("VCARD_DIR"));
    FILE *f = fopen(path, "r");
    int rate = 0;
    if (f) { if (fscanf(f, "%d", &rate) != 1) rate = 0; fclose(f); }
    return rate;
}

/* The quiet runs (left channel under 200) inside a tone the card heard, frames `first` to
 * `last`. A stream whose thread came late runs dry, and the library starts it again
 * with up to a buffer of silence ahead of its next period: on a busy machine that is a
 * scheduling matter, not the library losing audio. So a quiet run that begins where
 * the card's playback started again (its <state>.playback.starts, kept since `vcard
 * record-reset`) and is no longer than the stream's buffer (the session's
 * CurrentHardwareOutputLatency) is counted as a restart; any other is a gap. A zero
 * crossing of the tone on either side may add a couple of quiet frames. */
typedef struct {
    long longestGap;     /* the longest quiet run that is not a restart's silence */
    int restarts;        /* quiet runs that are */
    long restartSilence; /* their frames together */
} WorldGaps;

static inline WorldGaps worldCardGaps(const short *s, long first, long last)
{
    WorldGaps gaps = {0, 0, 0};
    long restartAt[256];
    int restartCount = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/state.playback.starts", getenv("VCARD_DIR"));
    FILE *f = fopen(path, "r");
    long long ns;
    long frame;
    while (f && restartCount < 256 && fscanf(f, "%lld %ld", &ns, &frame) == 2) restartAt[restartCount++] = frame;
    if (f) fclose(f);
    Float32 latency = 0;
    UInt32 size = sizeof latency;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputLatency, &size, &latency);
    long buffer = (long)lround(latency * worldCardRate());
    long quiet = 0;
    for (long i = first + 1; i <= last + 1; i++) {
        if (i <= last && abs(s[2 * i]) < 200) { quiet++; continue; }
        if (quiet > 0) {
            long from = i - quiet;
            int restart = 0;
            for (int r = 0; r < restartCount && !restart; r++)
                restart = restartAt[r] > first && from >= restartAt[r] - 3 && from <= restartAt[r] && quiet <= buffer + 6;
            if (restart) {
                gaps.restarts++;
                gaps.restartSilence += quiet;
            } else if (quiet > gaps.longestGap) {
                gaps.longestGap = quiet;
            }
        }
        quiet = 0;
    }
    return gaps;
}

/* The peak of the card's last `frames` frames (left channel); -1 before it has them. */
static inline long worldRecentPeak(long frames)
{
    long total = 0, peak = 0;
    short *s = worldCardRecording(&total);
    for (long i = total > frames ? total - frames : 0; i < total; i++) if (abs(s[2 * i]) > peak) peak = abs(s[2 * i]);
    free(s);
    return total >= frames ? peak : -1;
}

/* Another program that ducks the others: a suite runs itself again as it (argument
 * "ducker"), with an Ambient session that ducks mixable audio while active, until it is
 * killed. */
static inline int worldDucker(void)
{
    UInt32 category = kAudioSessionCategory_AmbientSound, duck = 1;
    if (AudioSessionInitialize(NULL, NULL, NULL, NULL) != noErr ||
        AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category) != noErr ||
        AudioSessionSetProperty(kAudioSessionProperty_OtherMixableAudioShouldDuck, sizeof duck, &duck) != noErr ||
        AudioSessionSetActive(true) != noErr)
        return 1;
    for (;;) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 1, false);
}

/* With a tone at 0.5 of full scale playing on the card: another program (this suite run
 * again as "ducker", `self` its path) ducks it; returns the card's peak once its last
 * tenth of a second is at the ducked level (0.3 of the tone), after the other program
 * is gone and the tone back at full level. The watchdog bounds the waits. */
static inline long worldDuckedByAnother(const char *self)
{
    while (worldRecentPeak(4800) < 15000) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    pid_t other = fork();
    if (other == 0) {
        execl(self, self, "ducker", (char *)NULL);
        _exit(127);
    }
    long peak;
    while ((peak = worldRecentPeak(4800)) < 4000 || peak > 6000) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    kill(other, SIGKILL);
    waitpid(other, NULL, 0);
    while (worldRecentPeak(4800) < 15000) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    return peak;
}

/* Frames where either channel is louder than 64. */
static inline long worldCardLoudFrames(void)
{
    long frames = 0, loud = 0;
    short *s = worldCardRecording(&frames);
    for (long i = 0; i < frames; i++) if (abs(s[2 * i]) > 64 || abs(s[2 * i + 1]) > 64) loud++;
    free(s);
    return loud;
}

/* Whether the card's last `frames` frames are silent (quiet 1), or carry a tone (quiet 0:
 * most samples of a half-scale sine are loud). */
static inline int worldCardEnds(int quiet, long frames)
{
    long total = 0, loud = 0;
    short *s = worldCardRecording(&total);
    if (total < frames) { free(s); return 0; }
    for (long i = total - frames; i < total; i++) if (abs(s[2 * i]) > 64) loud++;
    free(s);
    return quiet ? loud == 0 : loud > frames / 2;
}

#endif
