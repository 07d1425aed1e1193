/*
 * AudioToolbox for Linux — Availability.h of the `AudioToolbox-ios` module: iOS version
 * numbers (__IPHONE_7_0 ...), the version this module claims (iOS 7.0 SDK, iOS 6.0
 * deployment target; see <AudioToolbox/compat/availability.h> for why), and the
 * availability annotations as no-ops.
 */
#include <TargetConditionals.h>
#include <AudioToolbox/compat/availability.h>
