/*
 * The AudioToolbox-ios module claims one SDK, as a real one would (issue 16):
 *  - __IPHONE_x_y exist only up to __IPHONE_OS_VERSION_MAX_ALLOWED (iOS 7.0 unless the
 *    program claims another: CLAIM is the number it passed, or 0 for the default);
 *  - <AudioToolbox/AudioToolbox.h> alone brings CoreFoundation's umbrella
 *    (CFSwapInt32HostToBig, CFURL...), as the phone's does;
 *  - CoreFoundation's version numbers exist up to the claim, and
 *    kCFCoreFoundationVersionNumber links, with iOS 7.0's value.
 * Built with `pkg-config --cflags --libs AudioToolbox-ios` (-DCLAIM=N, and
 * -D__IPHONE_OS_VERSION_MAX_ALLOWED=N when N is not 0); prints "ios-sdk-claim ok".
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>

#if CLAIM == 0
#  if __IPHONE_OS_VERSION_MAX_ALLOWED != 70000
#    error "the default claim is the iOS 7.0 SDK"
#  endif
#  if !defined(__IPHONE_7_0) || defined(__IPHONE_7_1) || defined(__IPHONE_8_0) || defined(__IPHONE_18_0)
#    error "with the iOS 7.0 SDK, __IPHONE_7_0 is the newest version name"
#  endif
#  if !defined(kCFCoreFoundationVersionNumber_iOS_7_0) || defined(kCFCoreFoundationVersionNumber_iOS_8_0)
#    error "CF version numbers up to iOS 7.0"
#  endif
#elif CLAIM == 80000
#  if !defined(__IPHONE_8_0) || defined(__IPHONE_8_1) || defined(__IPHONE_9_0)
#    error "a claimed iOS 8.0 SDK names versions up to 8.0"
#  endif
#  if !defined(kCFCoreFoundationVersionNumber_iOS_8_0)
#    error "a claimed iOS 8.0 SDK has kCFCoreFoundationVersionNumber_iOS_8_0"
#  endif
#elif CLAIM == 60000
#  if !defined(__IPHONE_6_0) || defined(__IPHONE_6_1) || defined(__IPHONE_7_0)
#    error "a claimed iOS 6.0 SDK names versions up to 6.0"
#  endif
#endif

#if !TARGET_OS_IPHONE
#  error "the iPhone view is back after CoreFoundation"
#endif

int main(void)
{
    /* CoreFoundation's umbrella came with AudioToolbox.h. */
    UInt32 big = CFSwapInt32HostToBig(0x01020304u);
    const unsigned char *bytes = (const unsigned char *)&big;
    if (bytes[0] != 1 || bytes[3] != 4) { printf("CFSwapInt32HostToBig is wrong\n"); return 1; }
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)"/tmp", 4, true);
    if (!url) { printf("CFURL failed\n"); return 1; }
    CFRelease(url);
    /* The version number links, as the test code of ported apps compares it. */
    if (!(kCFCoreFoundationVersionNumber >= kCFCoreFoundationVersionNumber_iOS_6_0)) {
        printf("kCFCoreFoundationVersionNumber %.2f is below iOS 6.0's\n", kCFCoreFoundationVersionNumber);
        return 1;
    }
#if CLAIM == 0
    if (kCFCoreFoundationVersionNumber != kCFCoreFoundationVersionNumber_iOS_7_0) {
        printf("kCFCoreFoundationVersionNumber %.2f is not iOS 7.0's\n", kCFCoreFoundationVersionNumber);
        return 1;
    }
#endif
    printf("ios-sdk-claim ok\n");
    return 0;
}
