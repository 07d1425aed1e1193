/*
 * The library's version: the header's AUDIOTOOLBOX_LINUX_VERSION_NUMBER and what the
 * running library reports agree, before and after initialisation. (That the header's
 * number is the Makefile's VERSION is checked by `make build`.) Runs in every
 * configuration of world.h.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <AudioToolbox/AudioSessionLinux.h>
#include "check.h"
#include "world.h"

int main(void)
{
    UInt32 version = 0;
    CHECK_STATUS(AudioSessionGetLinuxVersion(&version), noErr);
    CHECK(version == AUDIOTOOLBOX_LINUX_VERSION_NUMBER, "before initialisation: %u, header %u", (unsigned)version,
          (unsigned)AUDIOTOOLBOX_LINUX_VERSION_NUMBER);
    CHECK_STATUS(AudioSessionGetLinuxVersion(NULL), kAudioSessionUnspecifiedError);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    version = 0;
    CHECK_STATUS(AudioSessionGetLinuxVersion(&version), noErr);
    CHECK(version == AUDIOTOOLBOX_LINUX_VERSION_NUMBER, "after initialisation: %u", (unsigned)version);
    return worldFinish("version");
}
