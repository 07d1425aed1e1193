/* Header order and platform macros, compiled once per compiler, pkg-config module and
 * order (scripts/run-tests.sh, "Header order"):
 *
 *   HEADER_ORDER 1  <TargetConditionals.h>, then CoreFoundation, then AudioToolbox
 *   HEADER_ORDER 2  a CoreFoundation header, then "TargetConditionals.h", then AudioToolbox
 *   HEADER_ORDER 3  <AudioToolbox/AudioToolbox.h>, then CoreFoundation, then TargetConditionals
 *   HEADER_ORDER 4  the CoreFoundation umbrella first, then AudioToolbox, no TargetConditionals
 *   EXPECT_IPHONE   1 for AudioToolbox-ios, 0 for the plain module
 *   NOERR_STYLE     how the program's own code declares noErr, if it does:
 *                   0 not at all, 1 `#ifndef noErr` after our headers, 2 a MacTypes
 *                   stand-in (guarded by __MACTYPES__) before them, 3 `#define noErr 0`
 *                   before them, 4 `#ifndef __MACTYPES__` after them (expected to fail
 *                   to compile: the test script checks that it does not compile silently wrong)
 *
 * Wrong macro values stop the compilation (#error); the program then checks at run
 * time that CoreFoundation was read for this machine and that the session works. */
#ifndef HEADER_ORDER
#error define HEADER_ORDER
#endif

#if NOERR_STYLE == 2
/* A program's own stand-in for MacTypes.h, as some ports carry. */
#  define __MACTYPES__ 1
#  include <stdint.h>
#  include <stdbool.h>
typedef bool Boolean;
typedef unsigned char UInt8;
typedef signed char SInt8;
typedef unsigned short UInt16;
typedef signed short SInt16;
typedef unsigned int UInt32;
typedef signed int SInt32;
typedef uint64_t UInt64;
typedef int64_t SInt64;
typedef SInt32 OSStatus;
typedef float Float32;
typedef double Float64;
typedef unsigned short UniChar;
typedef unsigned long UniCharCount;
typedef unsigned char *StringPtr;
typedef const unsigned char *ConstStringPtr;
typedef unsigned char Str255[256];
typedef const unsigned char *ConstStr255Param;
typedef SInt16 OSErr;
typedef SInt16 RegionCode;
typedef SInt16 LangCode;
typedef SInt16 ScriptCode;
typedef UInt32 FourCharCode;
typedef FourCharCode OSType;
typedef UInt8 Byte;
typedef SInt8 SignedByte;
typedef UInt32 UTF32Char;
typedef UInt16 UTF16Char;
typedef UInt8 UTF8Char;
enum { noErr = 0 };
#elif NOERR_STYLE == 3
#  define noErr 0
#endif

#if HEADER_ORDER == 1
#  include <TargetConditionals.h>
#  include <CoreFoundation/CFString.h>
#  include <AudioToolbox/AudioToolbox.h>
#elif HEADER_ORDER == 2
#  include <CoreFoundation/CFBase.h>
#  include <CoreFoundation/CFByteOrder.h>
#  include "TargetConditionals.h"
#  include <AudioToolbox/AudioSession.h>
#  include <AudioToolbox/AudioServices.h>
#elif HEADER_ORDER == 3
#  include <AudioToolbox/AudioToolbox.h>
#  include <CoreFoundation/CoreFoundation.h>
#  include <TargetConditionals.h>
#elif HEADER_ORDER == 4
#  include <CoreFoundation/CoreFoundation.h>
#  include <AudioToolbox/AudioToolbox.h>
#endif
#include <CoreFoundation/CFByteOrder.h>
#include <stdio.h>
#include <string.h>

#if NOERR_STYLE == 1
#  ifndef noErr
enum { noErr = 0 };
#  endif
#endif

#if EXPECT_IPHONE
#  if !TARGET_OS_IPHONE || !TARGET_OS_IOS || !TARGET_OS_MAC || TARGET_OS_OSX || TARGET_OS_SIMULATOR \
      || TARGET_IPHONE_SIMULATOR || TARGET_OS_LINUX || TARGET_OS_WATCH || TARGET_OS_TV || TARGET_OS_MACCATALYST \
      || !TARGET_OS_EMBEDDED
#    error "AudioToolbox-ios: the program does not see an iPhone device"
#  endif
#  if !defined(AUDIOTOOLBOX_IOS_VIEW)
#    error "AudioToolbox-ios: AUDIOTOOLBOX_IOS_VIEW is not defined"
#  endif
#  if !defined(__IPHONE_OS_VERSION_MIN_REQUIRED) || !defined(__IPHONE_OS_VERSION_MAX_ALLOWED) \
      || __IPHONE_OS_VERSION_MIN_REQUIRED != __IPHONE_6_0 || __IPHONE_OS_VERSION_MAX_ALLOWED != __IPHONE_7_0 \
      || __IPHONE_3_0 != 30000 || __IPHONE_4_3 != 40300 || __IPHONE_NA != 99999 || __MAC_10_10 != 101000
#    error "AudioToolbox-ios: the iOS version macros are wrong"
#  endif
#  if defined(__MAC_OS_X_VERSION_MIN_REQUIRED)
#    error "AudioToolbox-ios: an iPhone does not define the macOS deployment target"
#  endif
/* Annotated declarations, as legacy headers write them: the macros must vanish. */
extern int annotatedStarting(void) __OSX_AVAILABLE_STARTING(__MAC_10_5, __IPHONE_2_0);
extern int annotatedDeprecated(void)
    __OSX_AVAILABLE_BUT_DEPRECATED(__MAC_10_5, __MAC_10_9, __IPHONE_2_0, __IPHONE_7_0);
extern int annotatedAPI(void) API_AVAILABLE(ios(3.0), macos(10.6));
#else
#  if TARGET_OS_IPHONE || TARGET_OS_IOS || TARGET_OS_MAC || TARGET_OS_OSX || !TARGET_OS_LINUX
#    error "AudioToolbox: the plain module must describe Linux"
#  endif
#  if defined(AUDIOTOOLBOX_IOS_VIEW) || defined(__IPHONE_OS_VERSION_MIN_REQUIRED)
#    error "AudioToolbox: iPhone macros leaked into the plain module"
#  endif
#endif
#if TARGET_RT_64_BIT != (__SIZEOF_POINTER__ == 8) || !(TARGET_RT_LITTLE_ENDIAN ^ TARGET_RT_BIG_ENDIAN)
#  error "the machine macros do not describe this machine"
#endif

static int failures;
static void expect(int ok, const char *what)
{
    if (!ok) { failures++; fprintf(stderr, "FAIL %s\n", what); }
}

int main(void)
{
    /* CoreFoundation was read for this machine's byte order. */
    const unsigned char bytes[4] = {1, 2, 3, 4};
    UInt32 raw;
    memcpy(&raw, bytes, sizeof raw);
    expect(CFSwapInt32BigToHost(raw) == 0x01020304u, "CFSwapInt32BigToHost");
    OSStatus ok = kAudioSessionNoError;
    expect(noErr == 0 && ok == noErr, "noErr");

    OSStatus status = AudioSessionInitialize(NULL, NULL, NULL, NULL);
    expect(status == noErr, "AudioSessionInitialize");
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    expect(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category) == noErr,
           "set category");
    expect(AudioSessionSetActive(true) == noErr, "activate");
    CFStringRef route = NULL;
    UInt32 size = sizeof route;
    expect(AudioSessionGetProperty(kAudioSessionProperty_AudioRoute, &size, &route) == noErr && route != NULL,
           "AudioRoute");
    expect(route != NULL && CFStringGetLength(route) > 0, "route name");
    if (route) CFRelease(route);
    expect(CFStringCompare(CFSTR(kAudioSession_AudioRouteChangeKey_Reason), CFSTR("OutputDeviceDidChange_Reason"), 0)
               == kCFCompareEqualTo, "CFSTR of a key macro");
    AudioSessionSetActive(false);
    return failures == 0 ? 0 : 1;
}
