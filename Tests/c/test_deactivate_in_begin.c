/*
 * The VoIP-driver pattern: the interruption listener stops the stream on Begin, which
 * deactivates the session, and restarts (reactivates) only on End. The End must still
 * come, with InterruptionType readable inside it, and reactivation must then work.
 * Runs in every configuration of world.h.
 */
#include <AudioToolbox/AudioToolbox.h>
#include "check.h"
#include "world.h"

static int begins, ends, restarted;
static OSStatus deactivation = -1, typeStatus = -1;
static UInt32 type;

static void interruptionListener(void *clientData, UInt32 state)
{
    (void)clientData;
    if (state == kAudioSessionBeginInterruption) {
        begins++;
        deactivation = AudioSessionSetActive(false); /* "stop the stream" */
    } else {
        ends++;
        UInt32 size = sizeof type;
        typeStatus = AudioSessionGetProperty(kAudioSessionProperty_InterruptionType, &size, &type);
        restarted = AudioSessionSetActive(true) == noErr;
    }
}

int main(void)
{
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruptionListener, NULL), noErr);
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);

    worldBeginInterruption();
    runPendingCallbacks();
    CHECK(begins == 1, "Begin delivered (%d)", begins);
    CHECK_STATUS(deactivation, noErr);

    worldEndInterruption(1);
    runPendingCallbacks();
    CHECK(ends == 1, "End delivered after deactivating in Begin (%d)", ends);
    CHECK_STATUS(typeStatus, noErr);
    CHECK(type == kAudioSessionInterruptionType_ShouldResume, "InterruptionType ShouldResume inside End");
    CHECK(restarted, "reactivation inside End succeeds");

    /* A second round, the deactivation this time after Begin was delivered. */
    worldBeginInterruption();
    runPendingCallbacks();
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
    type = 0;
    UInt32 expectedType = kAudioSessionInterruptionType_ShouldNotResume;
    if (worldEndInterruption(0) == WORLD_CANNOT) {
        worldSkip("End with ShouldNotResume");
        worldEndInterruption(1);
        expectedType = kAudioSessionInterruptionType_ShouldResume;
    }
    runPendingCallbacks();
    CHECK(begins == 2 && ends == 2, "Begin and End again (%d, %d)", begins, ends);
    CHECK(type == expectedType, "InterruptionType %s",
          expectedType == kAudioSessionInterruptionType_ShouldResume ? "ShouldResume" : "ShouldNotResume");
    return worldFinish("deactivate in Begin");
}
