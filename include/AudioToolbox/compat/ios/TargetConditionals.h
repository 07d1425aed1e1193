/*
 * AudioToolbox for Linux — TargetConditionals.h of the `AudioToolbox-ios` module.
 *
 * The program sees an iPhone device: TARGET_OS_IPHONE 1, TARGET_OS_IOS 1,
 * TARGET_OS_MAC 1, TARGET_OS_OSX 0, TARGET_OS_SIMULATOR 0, TARGET_OS_LINUX 0, and
 * the processor and byte order of the real machine. CoreFoundation's headers, which
 * include this file too, still see Linux: the module's CoreFoundation wrappers switch
 * the macros while they are read. The availability macros of iOS come with this file
 * (see Availability.h). AUDIOTOOLBOX_IOS_VIEW tells a program it is built this way.
 */
#ifndef AUDIOTOOLBOX_IOS_VIEW
#define AUDIOTOOLBOX_IOS_VIEW 1
#endif
#include <AudioToolbox/compat/target_view.h>
