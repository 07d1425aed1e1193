/*
 * AudioToolbox for Linux — internal: the availability macros of the AudioToolbox-ios
 * module. Programs include <Availability.h> or <AvailabilityMacros.h> (or nothing:
 * TargetConditionals.h and every AudioToolbox header bring these in the iPhone view).
 *
 * Which iOS this is. The module describes an iPhone device built with the iOS 7.0 SDK
 * (__IPHONE_OS_VERSION_MAX_ALLOWED 70000): iOS 7 is the final form of the Audio Session
 * C API that this library implements, so every name a program may test for exists.
 * The deployment target is iOS 6.0 (__IPHONE_OS_VERSION_MIN_REQUIRED 60000), below the
 * release that deprecated the C API, so code that keeps the C Audio Session path only
 * for older systems (and takes an Objective-C path from iOS 7 on) compiles its C path.
 * Define either macro on the command line to claim something else.
 *
 * The availability annotations (__OSX_AVAILABLE_STARTING, API_AVAILABLE, ...) expand
 * to nothing: there is no older or newer system to warn about here. __MAC_OS_X_VERSION_*
 * are left undefined, as on an iPhone, because code uses them to detect macOS.
 */
#pragma GCC system_header
#ifndef AUDIOTOOLBOX_COMPAT_AVAILABILITY_H
#define AUDIOTOOLBOX_COMPAT_AVAILABILITY_H

/* The claim, as plain numbers (a program may override either on the command line, as
 * a number: -D__IPHONE_OS_VERSION_MAX_ALLOWED=80000). */
#ifndef __IPHONE_OS_VERSION_MIN_REQUIRED
#define __IPHONE_OS_VERSION_MIN_REQUIRED 60000
#endif
#ifndef __IPHONE_OS_VERSION_MAX_ALLOWED
#define __IPHONE_OS_VERSION_MAX_ALLOWED 70000
#endif

/* Version numbers: iOS major * 10000 + minor * 100; macOS 10.0 to 10.9 as 10x0,
 * from 10.10 on major * 10000 + minor * 100. NA means "not available there".
 * An SDK names only the releases up to its own: __IPHONE_x_y exists for the versions
 * up to __IPHONE_OS_VERSION_MAX_ALLOWED, so `#ifdef __IPHONE_8_0` is false under the
 * iOS 7 claim, as it was with the iOS 7 SDK, and true once a program claims iOS 8. */
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 20000
#define __IPHONE_2_0 20000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 20100
#define __IPHONE_2_1 20100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 20200
#define __IPHONE_2_2 20200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 30000
#define __IPHONE_3_0 30000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 30100
#define __IPHONE_3_1 30100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 30200
#define __IPHONE_3_2 30200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 40000
#define __IPHONE_4_0 40000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 40100
#define __IPHONE_4_1 40100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 40200
#define __IPHONE_4_2 40200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 40300
#define __IPHONE_4_3 40300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 50000
#define __IPHONE_5_0 50000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 50100
#define __IPHONE_5_1 50100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 60000
#define __IPHONE_6_0 60000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 60100
#define __IPHONE_6_1 60100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 70000
#define __IPHONE_7_0 70000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 70100
#define __IPHONE_7_1 70100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 80000
#define __IPHONE_8_0 80000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 80100
#define __IPHONE_8_1 80100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 80200
#define __IPHONE_8_2 80200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 80300
#define __IPHONE_8_3 80300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 80400
#define __IPHONE_8_4 80400
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 90000
#define __IPHONE_9_0 90000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 90100
#define __IPHONE_9_1 90100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 90200
#define __IPHONE_9_2 90200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 90300
#define __IPHONE_9_3 90300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 100000
#define __IPHONE_10_0 100000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 100100
#define __IPHONE_10_1 100100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 100200
#define __IPHONE_10_2 100200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 100300
#define __IPHONE_10_3 100300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 110000
#define __IPHONE_11_0 110000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 110100
#define __IPHONE_11_1 110100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 110200
#define __IPHONE_11_2 110200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 110300
#define __IPHONE_11_3 110300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 110400
#define __IPHONE_11_4 110400
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 120000
#define __IPHONE_12_0 120000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 120100
#define __IPHONE_12_1 120100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 120200
#define __IPHONE_12_2 120200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 120300
#define __IPHONE_12_3 120300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 120400
#define __IPHONE_12_4 120400
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 130000
#define __IPHONE_13_0 130000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 130100
#define __IPHONE_13_1 130100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 130200
#define __IPHONE_13_2 130200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 130300
#define __IPHONE_13_3 130300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 130400
#define __IPHONE_13_4 130400
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 130500
#define __IPHONE_13_5 130500
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 130600
#define __IPHONE_13_6 130600
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 130700
#define __IPHONE_13_7 130700
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 140000
#define __IPHONE_14_0 140000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 140100
#define __IPHONE_14_1 140100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 140200
#define __IPHONE_14_2 140200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 140300
#define __IPHONE_14_3 140300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 140400
#define __IPHONE_14_4 140400
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 140500
#define __IPHONE_14_5 140500
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 140600
#define __IPHONE_14_6 140600
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 140700
#define __IPHONE_14_7 140700
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 140800
#define __IPHONE_14_8 140800
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 150000
#define __IPHONE_15_0 150000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 150100
#define __IPHONE_15_1 150100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 150200
#define __IPHONE_15_2 150200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 150300
#define __IPHONE_15_3 150300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 150400
#define __IPHONE_15_4 150400
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 150500
#define __IPHONE_15_5 150500
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 150600
#define __IPHONE_15_6 150600
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 150700
#define __IPHONE_15_7 150700
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 150800
#define __IPHONE_15_8 150800
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 160000
#define __IPHONE_16_0 160000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 160100
#define __IPHONE_16_1 160100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 160200
#define __IPHONE_16_2 160200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 160300
#define __IPHONE_16_3 160300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 160400
#define __IPHONE_16_4 160400
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 160500
#define __IPHONE_16_5 160500
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 160600
#define __IPHONE_16_6 160600
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 160700
#define __IPHONE_16_7 160700
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 170000
#define __IPHONE_17_0 170000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 170100
#define __IPHONE_17_1 170100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 170200
#define __IPHONE_17_2 170200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 170300
#define __IPHONE_17_3 170300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 170400
#define __IPHONE_17_4 170400
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 170500
#define __IPHONE_17_5 170500
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 170600
#define __IPHONE_17_6 170600
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 180000
#define __IPHONE_18_0 180000
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 180100
#define __IPHONE_18_1 180100
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 180200
#define __IPHONE_18_2 180200
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 180300
#define __IPHONE_18_3 180300
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 180400
#define __IPHONE_18_4 180400
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 180500
#define __IPHONE_18_5 180500
#endif
#if __IPHONE_OS_VERSION_MAX_ALLOWED >= 180600
#define __IPHONE_18_6 180600
#endif

#define __MAC_10_0 1000
#define __MAC_10_1 1010
#define __MAC_10_2 1020
#define __MAC_10_3 1030
#define __MAC_10_4 1040
#define __MAC_10_5 1050
#define __MAC_10_6 1060
#define __MAC_10_7 1070
#define __MAC_10_8 1080
#define __MAC_10_9 1090
#define __MAC_10_10 101000
#define __MAC_10_11 101100
#define __MAC_10_12 101200
#define __MAC_10_13 101300
#define __MAC_10_14 101400
#define __MAC_10_15 101500
#define __MAC_11_0 110000
#define __MAC_12_0 120000
#define __MAC_13_0 130000
#define __MAC_14_0 140000
#define __MAC_15_0 150000

#define __IPHONE_NA 99999
#define __MAC_NA 9999


/* Annotations: no-ops. */
#define __OSX_AVAILABLE_STARTING(_mac, _iphone)
#define __OSX_AVAILABLE_BUT_DEPRECATED(_macIntro, _macDep, _iphoneIntro, _iphoneDep)
#define __OSX_AVAILABLE_BUT_DEPRECATED_MSG(_macIntro, _macDep, _iphoneIntro, _iphoneDep, _msg)
#define __OSX_AVAILABLE(_vers)
#define __OSX_DEPRECATED(_start, _dep, _msg)
#define __OSX_UNAVAILABLE
#define __IOS_AVAILABLE(_vers)
#define __IOS_DEPRECATED(_start, _dep, _msg)
#define __IOS_UNAVAILABLE
#define __IOS_PROHIBITED
#define __TVOS_AVAILABLE(_vers)
#define __TVOS_DEPRECATED(_start, _dep, _msg)
#define __TVOS_UNAVAILABLE
#define __TVOS_PROHIBITED
#define __WATCHOS_AVAILABLE(_vers)
#define __WATCHOS_DEPRECATED(_start, _dep, _msg)
#define __WATCHOS_UNAVAILABLE
#define __WATCHOS_PROHIBITED
#define __API_AVAILABLE(...)
#define __API_DEPRECATED(...)
#define __API_DEPRECATED_WITH_REPLACEMENT(...)
#define __API_UNAVAILABLE(...)
/* Spelled exactly as CoreFoundation spells its own fallbacks, so that whichever of the
 * two comes second is an identical (silent) redefinition. */
#define API_AVAILABLE(...)
#define API_DEPRECATED(...)
#define API_UNAVAILABLE(...)
#define API_DEPRECATED_WITH_REPLACEMENT(...)
#define API_AVAILABLE_BEGIN(...)
#define API_AVAILABLE_END
#define API_UNAVAILABLE_BEGIN(...)
#define API_UNAVAILABLE_END

/* The attribute macros of AvailabilityMacros.h. */
#ifndef DEPRECATED_ATTRIBUTE
#define DEPRECATED_ATTRIBUTE __attribute__((deprecated))
#endif
#ifndef DEPRECATED_MSG_ATTRIBUTE
#define DEPRECATED_MSG_ATTRIBUTE(s) __attribute__((deprecated(s)))
#endif
#ifndef UNAVAILABLE_ATTRIBUTE
#  if defined(__clang__) || __GNUC__ >= 12
#    define UNAVAILABLE_ATTRIBUTE __attribute__((unavailable))
#  else
#    define UNAVAILABLE_ATTRIBUTE __attribute__((deprecated))
#  endif
#endif
#ifndef WEAK_IMPORT_ATTRIBUTE
#define WEAK_IMPORT_ATTRIBUTE __attribute__((weak))
#endif

#endif /* AUDIOTOOLBOX_COMPAT_AVAILABILITY_H */
