/*
 * A plugin host loads the library with dlopen and unloads it with dlclose while a
 * callback is still queued on its run loop and the library's thread may still run.
 * The library is linked -z nodelete: dlclose never unmaps it, so the queued callback
 * runs (its code is still there) instead of the program jumping into unmapped memory,
 * and a second dlopen finds the same, still initialised library (AudioSessionInitialize
 * then returns kAudioSessionAlreadyInitialized). A RemoteIO unit started before each
 * dlclose plays on after it (its I/O thread runs the library's code), and the next
 * cycle stops and disposes of it through the library loaded again; so does an audio
 * queue whose callbacks come on its own thread.
 *
 * Usage: test_dlclose /path/to/libAudioToolbox.so.0
 * Not linked against the library (like abi_ffi); only CoreFoundation is linked, for
 * the run loop. The cycles run in a child process so that a crash is reported as a
 * failure with its signal.
 */
#define _GNU_SOURCE
#include <AudioToolbox/AudioToolbox.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

enum { CYCLES = 20 };

static const char *libraryPath;

static int volumeCalls;
static Float32 lastVolume;

/* This procedure lives in the program, not in the library. */
static void volumeListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    memcpy(&lastVolume, data, sizeof lastVolume);
    volumeCalls++;
}

static volatile long renders;

/* The unit's render callback, in the program. */
static OSStatus countRender(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                            UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    for (UInt32 b = 0; b < data->mNumberBuffers; b++) memset(data->mBuffers[b].mData, 0, data->mBuffers[b].mDataByteSize);
    (void)frames;
    renders++;
    return noErr;
}

static volatile long queueBuffers;

/* The queue's output callback, in the program, on the queue's own thread. */
static void refillSilence(void *data, AudioQueueRef q, AudioQueueBufferRef b)
{
    __typeof__(&AudioQueueEnqueueBuffer) enqueue = data;
    memset(b->mAudioData, 0, b->mAudioDataBytesCapacity);
    b->mAudioDataByteSize = b->mAudioDataBytesCapacity;
    enqueue(q, b, 0, NULL);
    queueBuffers++;
}

static void *need(void *library, const char *name)
{
    void *address = library ? dlsym(library, name) : NULL;
    CHECK(address != NULL, "dlsym %s: %s", name, address ? "" : dlerror());
    return address;
}

/* Still mapped after dlclose? RTLD_NOLOAD finds a library only while it is loaded. */
static int stillLoaded(void)
{
    void *again = dlopen(libraryPath, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!again) return 0;
    dlclose(again);
    return 1;
}

static void cycles(void)
{
    alarm(120);
    for (int cycle = 0; cycle < CYCLES; cycle++) {
        void *library = dlopen(libraryPath, RTLD_NOW | RTLD_LOCAL);
        CHECK(library != NULL, "cycle %d: dlopen: %s", cycle, library ? "" : dlerror());
        if (!library) break;
        __typeof__(&AudioSessionInitialize) initialize = need(library, "AudioSessionInitialize");
        __typeof__(&AudioSessionAddPropertyListener) addListener = need(library, "AudioSessionAddPropertyListener");
        __typeof__(&AudioSessionVirtualDeviceSetOutputVolume) setVolume =
            need(library, "AudioSessionVirtualDeviceSetOutputVolume");
        if (!initialize || !addListener || !setVolume) break;
        __typeof__(&AudioComponentFindNext) findNext = need(library, "AudioComponentFindNext");
        __typeof__(&AudioComponentInstanceNew) instanceNew = need(library, "AudioComponentInstanceNew");
        __typeof__(&AudioComponentInstanceDispose) dispose = need(library, "AudioComponentInstanceDispose");
        __typeof__(&AudioUnitSetProperty) setProperty = need(library, "AudioUnitSetProperty");
        __typeof__(&AudioUnitInitialize) unitInitialize = need(library, "AudioUnitInitialize");
        __typeof__(&AudioOutputUnitStart) start = need(library, "AudioOutputUnitStart");
        __typeof__(&AudioOutputUnitStop) stop = need(library, "AudioOutputUnitStop");
        if (!findNext || !instanceNew || !dispose || !setProperty || !unitInitialize || !start || !stop) break;
        __typeof__(&AudioQueueNewOutput) queueNew = need(library, "AudioQueueNewOutput");
        __typeof__(&AudioQueueAllocateBuffer) queueAllocate = need(library, "AudioQueueAllocateBuffer");
        __typeof__(&AudioQueueEnqueueBuffer) queueEnqueue = need(library, "AudioQueueEnqueueBuffer");
        __typeof__(&AudioQueueStart) queueStart = need(library, "AudioQueueStart");
        __typeof__(&AudioQueueDispose) queueDispose = need(library, "AudioQueueDispose");
        if (!queueNew || !queueAllocate || !queueEnqueue || !queueStart || !queueDispose) break;
        /* The queue the last cycle left playing across its dlclose (its callbacks come on
           its own thread, into this program's code, after the dlclose). */
        static AudioQueueRef queue;
        if (queue) {
            CHECK_STATUS(queueDispose(queue, true), noErr);
            queue = NULL;
        }
        /* The unit the last cycle left playing across its dlclose. */
        static AudioUnit playing;
        if (playing) {
            CHECK_STATUS(stop(playing), noErr);
            CHECK_STATUS(dispose(playing), noErr);
            playing = NULL;
        }

        OSStatus status = initialize(NULL, NULL, NULL, NULL);
        char got[16];
        if (cycle == 0)
            CHECK(status == noErr, "cycle 0: AudioSessionInitialize returned %s", fourcc(status, got));
        else
            CHECK(status == kAudioSessionAlreadyInitialized,
                  "cycle %d: the library was initialised before, but AudioSessionInitialize returned %s", cycle,
                  fourcc(status, got));
        /* Same procedure and client data each time: one listener, replaced. */
        CHECK_STATUS(addListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeListener, NULL), noErr);
        Float32 volume = 0.1f + 0.02f * (Float32)cycle;
        CHECK_STATUS(setVolume(volume), noErr);
        CHECK(volumeCalls == cycle, "cycle %d: the callback is still queued (%d calls)", cycle, volumeCalls);

        AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO,
                                         kAudioUnitManufacturer_Apple, 0, 0};
        CHECK_STATUS(instanceNew(findNext(NULL, &rio), &playing), noErr);
        AURenderCallbackStruct callback = {countRender, NULL};
        CHECK_STATUS(setProperty(playing, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback,
                                 sizeof callback), noErr);
        CHECK_STATUS(unitInitialize(playing), noErr);
        CHECK_STATUS(start(playing), noErr);
        AudioStreamBasicDescription pcm = {44100, kAudioFormatLinearPCM,
                                           kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
        CHECK_STATUS(queueNew(&pcm, refillSilence, (void *)queueEnqueue, NULL, NULL, 0, &queue), noErr);
        for (int i = 0; queue && i < 3; i++) {
            AudioQueueBufferRef b;
            CHECK_STATUS(queueAllocate(queue, 1024 * 4, &b), noErr);
            refillSilence((void *)queueEnqueue, queue, b);
        }
        if (queue) CHECK_STATUS(queueStart(queue, NULL), noErr);

        CHECK(dlclose(library) == 0, "cycle %d: dlclose", cycle);
        CHECK(stillLoaded(), "cycle %d: the library stays loaded after dlclose (-z nodelete)", cycle);
        /* The queued callback's source is on this run loop: running it must not crash,
           and delivers the callback. */
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.02, false);
        for (int i = 0; i < 200 && volumeCalls <= cycle; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
        CHECK(volumeCalls == cycle + 1 && lastVolume == volume, "cycle %d: the queued callback ran after dlclose (%d calls)",
              cycle, volumeCalls);
        long before = renders;
        for (int i = 0; i < 500 && renders < before + 3; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
        CHECK(renders >= before + 3, "cycle %d: the unit started before dlclose plays on after it (%ld renders)", cycle,
              renders - before);
        long buffersBefore = queueBuffers;
        for (int i = 0; i < 500 && queueBuffers < buffersBefore + 3; i++) usleep(10000);
        CHECK(queueBuffers >= buffersBefore + 3, "cycle %d: the queue started before dlclose plays on after it", cycle);
    }
    alarm(0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s /path/to/libAudioToolbox.so.0\n", argv[0]);
        return 2;
    }
    libraryPath = argv[1];
    installWatchdog("dlclose");

    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        cycles();
        int failed = finish("dlclose: cycles");
        fflush(NULL); /* _exit flushes nothing */
        _exit(failed ? 3 : 0);
    }
    CHECK(child > 0, "fork");
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child, "waitpid");
    if (WIFSIGNALED(status))
        CHECK(0, "the dlopen/dlclose cycles crashed: signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the cycles failed (exit status %d)", WEXITSTATUS(status));
    return finish("dlclose");
}
