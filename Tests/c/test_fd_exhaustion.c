/*
 * AudioSessionInitialize in a process that has no file descriptor left: the callback
 * queue cannot get its pipe, so initialisation fails with kAudioSessionInitializationError
 * ('ini?') and leaves no session behind ('!ini' afterwards); once descriptors are free
 * again, a second AudioSessionInitialize succeeds and callbacks work. Runs in every
 * configuration of world.h.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include "check.h"
#include "world.h"

enum { MAX_HELD = 4096 };
static int held[MAX_HELD];
static int heldCount;
static Float32 heard;

static void volumeListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id; (void)size;
    heard = *(const Float32 *)data;
}

int main(void)
{
    /* Load CoreFoundation's and the library's own start-up work before the squeeze. */
    CFRunLoopGetMain();
    struct rlimit limit = {64, 64};
    CHECK(setrlimit(RLIMIT_NOFILE, &limit) == 0, "lower the descriptor limit");
    int fd;
    while (heldCount < MAX_HELD && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) held[heldCount++] = fd;
    CHECK(heldCount > 0 && heldCount < MAX_HELD, "every descriptor taken (%d)", heldCount);

    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), kAudioSessionInitializationError);
    Float32 volume = 0;
    UInt32 size = sizeof volume;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume),
                 kAudioSessionNotInitialized);
    int callbackFD = -1;
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&callbackFD), kAudioSessionNotInitialized);

    while (heldCount > 0) close(held[--heldCount]);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    /* On the card, the new session runs on it: there the virtual device's calls answer
       kAudioServicesNoHardwareError (AudioSessionLinux.h). */
    if (worldOnCard()) {
        OSStatus probe = AudioSessionVirtualDeviceDisconnectPort(kAudioSessionVirtualPort_Headphones);
        char got[16];
        CHECK(probe == kAudioServicesNoHardwareError,
              "the session made after the squeeze runs on the card (a virtual device call returned %s, not 'nohw')",
              fourcc(probe, got));
    }
    CHECK_STATUS(AudioSessionGetCallbackFileDescriptor(&callbackFD), noErr);
    CHECK(callbackFD >= 0, "a real descriptor (got %d)", callbackFD);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeListener, NULL),
                 noErr);
    Float32 expected = 0, tolerance = 0;
    worldSetOutputVolume(0.25f, &expected, &tolerance);
    UInt32 ran = 0;
    CHECK_STATUS(AudioSessionDispatchPendingCallbacks(&ran), noErr);
    CHECK(ran == 1 && fabsf(heard - expected) <= tolerance, "the listener heard %.2f (ran %u, heard %.2f)",
          (double)expected, (unsigned)ran, (double)heard);
    return worldFinish("descriptor exhaustion");
}
