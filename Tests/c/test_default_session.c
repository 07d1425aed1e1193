/*
 * A program that never calls AudioSessionInitialize, as many small iPhone players and
 * games are written: on the phone it still has a session, the default one (SoloAmbient),
 * which its first unit start activates and which a call interrupts. Later, such a
 * program may call AudioSessionInitialize after all (a port that sets up its audio
 * engine before its session code): that session, with the unit it governs, becomes the
 * program's, and the call's End reaches the listener it gave.
 *
 * Runs in every configuration of world.h: the interruption is the virtual device's (with
 * the in-process arbiter) or `audiosession call` (with audiosessiond).
 */
#include <AudioToolbox/AudioToolbox.h>
#include <poll.h>
#include <unistd.h>
#include "check.h"
#include "world.h"

static volatile long rendered;
static int begins, ends, typeRead, restartedUnit = -1;
static AudioUnit unit;

static OSStatus renderTone(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                           UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    SInt16 *samples = data->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++) samples[2 * i] = samples[2 * i + 1] = (SInt16)(6000 * sin((double)i / 9));
    __atomic_add_fetch(&rendered, 1, __ATOMIC_SEQ_CST);
    return noErr;
}

/* The listener given to AudioSessionInitialize once the default session exists: the
 * classic player's, restarting its unit when the interruption ends. */
static void interruptionListener(void *clientData, UInt32 state)
{
    CHECK(clientData == &begins, "the listener gets the client data AudioSessionInitialize gave");
    if (state == kAudioSessionBeginInterruption) {
        begins++;
        return;
    }
    ends++;
    UInt32 type = 0, size = sizeof type;
    typeRead = AudioSessionGetProperty(kAudioSessionProperty_InterruptionType, &size, &type) == noErr;
    if (AudioSessionSetActive(true) == noErr) restartedUnit = (int)AudioOutputUnitStart(unit);
}

static UInt32 isRunning(void)
{
    UInt32 running = 99, size = sizeof running;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0, &running,
                                      &size), noErr);
    return running;
}

/* Until the unit's IsRunning reads `want` (20 s: only a lost event takes that long). */
static int awaitRunning(UInt32 want, const char *after)
{
    for (int i = 0; i < 2000; i++) {
        if (isRunning() == want) return 1;
        usleep(10000);
    }
    CHECK(0, "[%s] IsRunning never read %u after %s", worldName(), (unsigned)want, after);
    return 0;
}

/* Until the unit has rendered `more` more buffers. */
static int awaitRendering(long more, const char *after)
{
    long from = __atomic_load_n(&rendered, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 2000; i++) {
        if (__atomic_load_n(&rendered, __ATOMIC_SEQ_CST) >= from + more) return 1;
        usleep(10000);
    }
    CHECK(0, "[%s] the unit rendered nothing after %s", worldName(), after);
    return 0;
}

/* With audiosessiond: until the daemon shows this program's session in `state` (the
 * daemon takes in an activation asynchronously; a call started before would refuse it). */
static int awaitDaemonState(const char *state)
{
    char command[256];
    snprintf(command, sizeof command,
             "audiosession status --json | grep -qE '\"pid\":%d,[^}]*\"category\":\"solo\"[^}]*\"state\":\"%s\"'",
             (int)getpid(), state);
    for (int i = 0; i < 400; i++) {
        if (system(command) == 0) return 1;
        usleep(50000);
    }
    CHECK(0, "[%s] audiosession status never showed this program's default session %s", worldName(), state);
    return 0;
}

static void beginCall(void)
{
    if (worldWithDaemon()) {
        awaitDaemonState("active");
        worldRun("audiosession call %s", "start");
    } else {
        worldCheckStatus(AudioSessionVirtualDeviceBeginInterruption(), "AudioSessionVirtualDeviceBeginInterruption");
    }
}

static void endCall(void)
{
    if (worldWithDaemon()) worldRun("audiosession call %s", "end");
    else worldCheckStatus(AudioSessionVirtualDeviceEndInterruption(true), "AudioSessionVirtualDeviceEndInterruption");
}

int main(void)
{
    installWatchdog("default session");
    alarm(120);
    char got[16];

    /* The session API answers "not initialised" before AudioSessionInitialize, default
     * session or not. */
    UInt32 value = 0, size = sizeof value;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &value),
                 kAudioSessionNotInitialized);

    AudioComponentDescription d = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0,
                                   0};
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &d), &unit), noErr);
    AudioStreamBasicDescription f = {48000, kAudioFormatLinearPCM,
                                     kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AURenderCallbackStruct cb = {renderTone, NULL};
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f),
                 noErr);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &cb,
                                      sizeof cb), noErr);
    CHECK_STATUS(AudioUnitInitialize(unit), noErr);
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    CHECK(isRunning() == 1, "[%s] the unit runs under the default session", worldName());
    awaitRendering(2, "the start");
    /* Still not initialised as far as the session API goes. */
    size = sizeof value;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &value),
                 kAudioSessionNotInitialized);

    /* A call: the default session is interrupted, so its unit stops, though nobody
     * listens. Before this change the unit played on through the call. */
    beginCall();
    awaitRunning(0, "the call began");

    /* The program now initialises its session: the default one is adopted. */
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, &begins), noErr);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, &begins),
                 kAudioSessionAlreadyInitialized);
    UInt32 category = 0;
    size = sizeof category;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_AudioCategory, &size, &category), noErr);
    CHECK(category == kAudioSessionCategory_SoloAmbientSound, "[%s] the default session's category is SoloAmbient, "
          "read %s", worldName(), fourcc((SInt32)category, got));
    /* The Begin still waiting (this program has not run its run loop) reaches the listener
     * now: it pairs with the End to come. */
    runPendingCallbacks();
    CHECK(begins == 1, "[%s] the waiting Begin reached the adopted listener (%d)", worldName(), begins);
    CHECK(isRunning() == 0, "[%s] the unit stays stopped until the program restarts it", worldName());

    /* The call ends: the End reaches the listener given to AudioSessionInitialize, on
     * the run loop, and the program's restart plays again. */
    endCall();
    for (int i = 0; i < 2000 && ends == 0; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(ends == 1, "[%s] the call's End reached the adopted listener (%d)", worldName(), ends);
    CHECK(typeRead, "[%s] InterruptionType readable inside the End", worldName());
    CHECK(restartedUnit == noErr, "[%s] the unit restarted inside the End: %s", worldName(),
          fourcc(restartedUnit, got));
    awaitRunning(1, "the restart");
    awaitRendering(2, "the restart");

    CHECK_STATUS(AudioOutputUnitStop(unit), noErr);
    CHECK_STATUS(AudioComponentInstanceDispose(unit), noErr);
    return worldFinish("default session");
}
