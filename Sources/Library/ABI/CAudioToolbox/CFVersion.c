/* CoreFoundation's version number as an iPhone program reads it. CFBase.h declares
 * kCFCoreFoundationVersionNumber on every platform, but the CoreFoundation of the Linux
 * toolchain does not define it, so ported code that compares it with
 * kCFCoreFoundationVersionNumber_iOS_x_y (to pick a code path by iOS release) would
 * not link. We define it with the value of iOS 7.0, the release this library
 * implements (the AudioToolbox-ios module claims the iOS 7.0 SDK). */
#include <CoreFoundation/CFBase.h>

double kCFCoreFoundationVersionNumber = 847.20;
