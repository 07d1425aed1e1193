/*
 * fork(): the child starts with no session. Every call returns kAudioSessionNotInitialized
 * until it calls AudioSessionInitialize, which then gives it its own virtual device,
 * event thread and callback descriptor. Nothing the child does reaches the parent: the
 * parent's pending callback stays pending (and only the parent runs it), and its
 * descriptor is not made readable by the child's callbacks.
 *
 * The children wait for their callbacks through the descriptor (poll and
 * AudioSessionDispatchPendingCallbacks): in a forked child, CFRunLoopRunInMode with a
 * timeout can block forever once the parent has run a timed run loop (the toolchain's
 * CF timers do not survive fork), which is not the library's doing.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

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
    checksPassed = checksFailed = 0;
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
    CHECK_STATUS(AudioSessionVirtualDeviceSetOutputVolume(0.9f), kAudioSessionNotInitialized);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, childListener, NULL),
                 kAudioSessionNotInitialized);

    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, childListener, NULL), noErr);
    fd = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&fd), noErr);
    CHECK(fd >= 0, "the child has a callback descriptor");
    CHECK(!fdReadable(fd), "the child's new descriptor has nothing pending");
    CHECK_STATUS(AudioSessionVirtualDeviceSetOutputVolume(0.6f), noErr);
    dispatchUntil(fd, &childCalls, 1);
    CHECK(childCalls == 1 && childValues[0] == 0.6f, "the child's listener heard 0.6 (%d calls, first %.2f)", childCalls,
          childValues[0]);
    CHECK(parentCalls == 0, "the parent's listener never ran in the child (%d)", parentCalls);
    CHECK(!fdReadable(fd), "the child's descriptor is quiet after its drain");
    size = sizeof volume;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume), noErr);
    CHECK(volume == 0.6f, "the child's device has the child's volume (%.2f)", volume);

    /* More callbacks, left pending when the child exits. */
    AudioSessionVirtualDeviceSetOutputVolume(0.7f);
    AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones);
    AudioSessionVirtualDeviceSetOutputVolume(0.8f);
    exit(finish("fork: child") == 0 ? 0 : 3);
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
    AudioSessionVirtualDeviceSetOutputVolume(0.1f + 0.01f * (Float32)k);
    dispatchUntil(fd, &childCalls, 1);
    if (childCalls != 1) failures |= 4;
    /* Leave one pending. */
    AudioSessionVirtualDeviceSetOutputVolume(0.05f);
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
    CHECK_STATUS(AudioSessionVirtualDeviceSetOutputVolume(0.2f), noErr);
    CHECK(fdReadable(fd), "the parent has one callback pending");

    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) firstChild();
    CHECK(pid > 0, "fork");
    expectChild(pid, "the first child");

    CHECK(fdReadable(fd), "the parent's callback is still pending after the child");
    CHECK(parentCalls == 0, "nothing ran in the parent yet (%d)", parentCalls);
    UInt32 ran = 0;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    CHECK(ran == 1 && parentCalls == 1 && parentValues[0] == 0.2f, "the parent ran its one callback (ran %u, calls %d, %.2f)",
          (unsigned)ran, parentCalls, parentValues[0]);
    CHECK(!fdReadable(fd), "drained: the parent's descriptor is not readable");
    int readable = 0;
    for (int i = 0; i < QUIET_POLLS; i++) readable += fdReadable(fd);
    CHECK(readable == 0, "the parent's descriptor stays unreadable (%d of %d polls readable)", readable, QUIET_POLLS);
    ran = 99;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    CHECK(ran == 0 && parentCalls == 1, "nothing else pending in the parent (%u)", (unsigned)ran);
    Float32 volume = 0;
    UInt32 size = sizeof volume;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume), noErr);
    CHECK(volume == 0.2f, "the parent's device kept the parent's volume (%.2f)", volume);

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
            if (failedChildren++ < 3) fprintf(stderr, "  child %d exited with %d (1: no '!ini', 2: init, 4: no callback)\n", k,
                                              WEXITSTATUS(status));
        }
    }
    CHECK(failedChildren == 0 && signalledChildren == 0, "%d of %d children failed, %d killed by a signal", failedChildren,
          FORKS, signalledChildren);

    readable = 0;
    for (int i = 0; i < QUIET_POLLS; i++) readable += fdReadable(fd);
    CHECK(readable == 0, "after the children the parent's descriptor is unreadable (%d of %d polls readable)", readable,
          QUIET_POLLS);
    parentCalls = 0;
    CHECK_STATUS(AudioSessionVirtualDeviceSetOutputVolume(0.4f), noErr);
    CHECK(fdReadable(fd), "a new parent callback makes the descriptor readable");
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    CHECK(ran == 1 && parentCalls == 1 && parentValues[0] == 0.4f, "the parent still works (ran %u, calls %d)", (unsigned)ran,
          parentCalls);
    CHECK(!fdReadable(fd), "and its descriptor is quiet again");
    /* The run loop path of the parent works too. */
    CHECK_STATUS(AudioSessionVirtualDeviceSetOutputVolume(0.45f), noErr);
    for (int i = 0; i < 200 && parentCalls < 2; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(parentCalls == 2 && parentValues[1] == 0.45f, "the parent's run loop delivers (%d calls)", parentCalls);
    CHECK(!fdReadable(fd), "the run loop's drain leaves the descriptor quiet");
    alarm(0);
    return finish("fork");
}
