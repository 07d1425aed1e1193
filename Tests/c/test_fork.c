/*
 * fork(): the child starts with no session. Every call returns kAudioSessionNotInitialized
 * until it calls AudioSessionInitialize, which then gives it its own session, event
 * thread and callback descriptor (and its own virtual device, where that is the
 * hardware). Nothing the child does reaches the parent: the parent's pending callback
 * stays pending (and only the parent runs it), and its descriptor is not made
 * readable by the child's callbacks.
 *
 * The children wait for their callbacks through the descriptor (poll and
 * AudioSessionDispatchPendingCallbacks): in a forked child, CFRunLoopRunInMode with a
 * timeout can block forever once the parent has run a timed run loop (the toolchain's
 * CF timers do not survive fork), which is not the library's doing.
 *
 * Runs in every configuration of world.h. The card is every process's device: what a
 * child does to it is the parent's news too, which reaches the parent in the order it
 * was done. There the parent moves the volume itself after the children, which settles
 * its session on all they did, and the checks that their changes stay out of it are
 * skipped.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "world.h"

enum { FORKS = 20, QUIET_POLLS = 1000, WAIT_POLLS = 500 };

static Float32 parentValues[16], childValues[16];
static int parentCalls, childCalls;

static void parentListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    if (parentCalls < 16) memcpy(&parentValues[parentCalls], data, sizeof(Float32));
    parentCalls++;
}

static void childListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    if (childCalls < 16) memcpy(&childValues[childCalls], data, sizeof(Float32));
    childCalls++;
}

/* Polls the descriptor (at most WAIT_POLLS times 10 ms) until `calls` reaches `count`. */
static void dispatchUntil(int fd, const int *calls, int count)
{
    for (int i = 0; i < WAIT_POLLS && *calls < count; i++) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 10) == 1) AudioSessionDispatchPendingCallbacks(NULL);
    }
}

/* The child of the first fork: no session, then its own. Exits with its result. */
static void firstChild(void)
{
    alarm(60);
    checksPassed = checksFailed = skippedParts = 0;
    parentCalls = 0;
    Float32 volume = 0;
    UInt32 size = sizeof volume;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume),
                 kAudioSessionNotInitialized);
    int fd = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&fd), kAudioSessionNotInitialized);
    UInt32 ran = 99;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), kAudioSessionNotInitialized);
    CHECK(parentCalls == 0, "the parent's pending callback ran in the child (%d)", parentCalls);
    /* The virtual device's functions too, whatever the hardware (AudioSessionLinux.h). */
    CHECK_STATUS(AudioSessionVirtualDeviceSetOutputVolume(0.9f), kAudioSessionNotInitialized);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, childListener, NULL),
                 kAudioSessionNotInitialized);

    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, childListener, NULL), noErr);
    fd = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&fd), noErr);
    CHECK(fd >= 0, "the child has a callback descriptor");
    CHECK(!fdReadable(fd), "the child's new descriptor has nothing pending");
    Float32 expected = 0, tolerance = 0;
    worldSetOutputVolume(0.6f, &expected, &tolerance);
    dispatchUntil(fd, &childCalls, 1);
    CHECK(childCalls == 1 && fabsf(childValues[0] - expected) <= tolerance,
          "the child's listener heard %.2f (%d calls, first %.2f)", (double)expected, childCalls, (double)childValues[0]);
    CHECK(parentCalls == 0, "the parent's listener never ran in the child (%d)", parentCalls);
    CHECK(!fdReadable(fd), "the child's descriptor is quiet after its drain");
    size = sizeof volume;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume), noErr);
    CHECK(fabsf(volume - expected) <= tolerance, "the child's device has the child's volume (%.2f)", (double)volume);

    /* More callbacks, left pending when the child exits. */
    worldSetOutputVolume(0.7f, &expected, &tolerance);
    worldPlug(kAudioSessionVirtualPort_Headphones, 1);
    worldSetOutputVolume(0.8f, &expected, &tolerance);
    exit(worldFinish("fork: child") == 0 ? 0 : 3);
}

/* The children of the repeated forks: a quick session of their own. */
static void shortChild(int k)
{
    alarm(60);
    int failures = 0;
    Float32 volume = 0;
    UInt32 size = sizeof volume;
    if (AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume) != kAudioSessionNotInitialized)
        failures |= 1;
    if (AudioSessionInitialize(NULL, NULL, NULL, NULL) != noErr) failures |= 2;
    childCalls = 0;
    AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, childListener, NULL);
    int fd = -1;
    AudioSessionGetCallbackFileDescriptor(&fd);
    Float32 expected = 0, tolerance = 0;
    worldSetOutputVolume(0.1f + 0.01f * (Float32)k, &expected, &tolerance);
    dispatchUntil(fd, &childCalls, 1);
    if (childCalls != 1) failures |= 4;
    /* Leave one pending. */
    worldSetOutputVolume(0.05f, &expected, &tolerance);
    if (checksFailed) failures |= 8;
    exit(failures);
}

static void expectChild(pid_t pid, const char *what)
{
    int status = 0;
    pid_t waited = waitpid(pid, &status, 0);
    CHECK(waited == pid, "waitpid for %s", what);
    if (WIFSIGNALED(status))
        CHECK(0, "%s was killed by signal %d", what, WTERMSIG(status));
    else
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s exited with status %d", what, WEXITSTATUS(status));
}

int main(void)
{
    installWatchdog("fork");
    alarm(120);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, parentListener, NULL), noErr);
    int fd = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&fd), noErr);
    Float32 expected = 0, tolerance = 0;
    worldSetOutputVolume(0.2f, &expected, &tolerance);
    CHECK(fdReadable(fd), "the parent has one callback pending");
    int own = worldHardwareOwn() == WORLD_DONE;
    if (!own) worldSkip("the children's changes staying out of the parent");

    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) firstChild();
    CHECK(pid > 0, "fork");
    expectChild(pid, "the first child");

    CHECK(fdReadable(fd), "the parent's callback is still pending after the child");
    CHECK(parentCalls == 0, "nothing ran in the parent yet (%d)", parentCalls);
    /* On the card the child's changes are the parent's news too (its route changes
       wait as well): a volume of the parent's own settles it on them. */
    if (!own) worldSetOutputVolume(0.25f, &expected, &tolerance);
    UInt32 ran = 0;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    CHECK((ran == 1 || !own) && parentCalls == 1 && fabsf(parentValues[0] - expected) <= tolerance,
          "the parent ran its one callback (ran %u, calls %d, %.2f)", (unsigned)ran, parentCalls, (double)parentValues[0]);
    CHECK(!fdReadable(fd), "drained: the parent's descriptor is not readable");
    int readable = 0;
    for (int i = 0; i < QUIET_POLLS; i++) readable += fdReadable(fd);
    CHECK(readable == 0, "the parent's descriptor stays unreadable (%d of %d polls readable)", readable, QUIET_POLLS);
    ran = 99;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    CHECK(ran == 0 && parentCalls == 1, "nothing else pending in the parent (%u)", (unsigned)ran);
    if (own) {
        Float32 volume = 0;
        UInt32 size = sizeof volume;
        CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume), noErr);
        CHECK(volume == expected, "the parent's device kept the parent's volume (%.2f)", (double)volume);
    }

    /* Twenty children in a row, each with a session of its own. */
    int failedChildren = 0, signalledChildren = 0;
    for (int k = 0; k < FORKS; k++) {
        fflush(NULL);
        pid_t child = fork();
        if (child == 0) shortChild(k);
        int status = 0;
        if (child < 0 || waitpid(child, &status, 0) != child) { failedChildren++; continue; }
        if (WIFSIGNALED(status)) signalledChildren++;
        else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (failedChildren++ < 3)
                fprintf(stderr, "  child %d exited with %d (1: no '!ini', 2: init, 4: no callback, 8: a world action)\n",
                        k, WEXITSTATUS(status));
        }
    }
    CHECK(failedChildren == 0 && signalledChildren == 0, "%d of %d children failed, %d killed by a signal", failedChildren,
          FORKS, signalledChildren);

    if (own) {
        readable = 0;
        for (int i = 0; i < QUIET_POLLS; i++) readable += fdReadable(fd);
        CHECK(readable == 0, "after the children the parent's descriptor is unreadable (%d of %d polls readable)",
              readable, QUIET_POLLS);
    } else {
        /* The children's volumes of the card: the parent settles on them and hears them. */
        worldSetOutputVolume(0.35f, &expected, &tolerance);
        AudioSessionDispatchPendingCallbacks(NULL);
    }
    parentCalls = 0;
    worldSetOutputVolume(0.4f, &expected, &tolerance);
    CHECK(fdReadable(fd), "a new parent callback makes the descriptor readable");
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    CHECK(ran == 1 && parentCalls == 1 && fabsf(parentValues[0] - expected) <= tolerance,
          "the parent still works (ran %u, calls %d)", (unsigned)ran, parentCalls);
    CHECK(!fdReadable(fd), "and its descriptor is quiet again");
    /* The run loop path of the parent works too. */
    worldSetOutputVolume(0.45f, &expected, &tolerance);
    for (int i = 0; i < 200 && parentCalls < 2; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(parentCalls == 2 && fabsf(parentValues[1] - expected) <= tolerance, "the parent's run loop delivers (%d calls)",
          parentCalls);
    CHECK(!fdReadable(fd), "the run loop's drain leaves the descriptor quiet");
    alarm(0);
    return worldFinish("fork");
}
