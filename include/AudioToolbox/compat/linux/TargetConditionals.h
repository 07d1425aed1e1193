/*
 * AudioToolbox for Linux — TargetConditionals.h of the plain `AudioToolbox` module.
 *
 * Gives the Linux values of the TARGET_* macros (TARGET_OS_LINUX 1, TARGET_OS_IPHONE 0)
 * whether the program includes this file itself or a CoreFoundation header includes it,
 * and in whichever order. It also lets gcc read CoreFoundation's headers, which test a
 * byte-order macro that only clang defines.
 *
 * Code written for the iPhone that should be compiled as iPhone code wants the
 * AudioToolbox-ios module instead: `pkg-config --cflags --libs AudioToolbox-ios`.
 */
#if defined(TARGET_OS_IPHONE) && !defined(__TARGETCONDITIONALS__)
#  if TARGET_OS_IPHONE
#    warning "TARGET_OS_IPHONE was set to 1, but the AudioToolbox module describes Linux and sets it to 0: build with `pkg-config --cflags --libs AudioToolbox-ios` to compile iPhone code"
#  endif
#endif

#include <AudioToolbox/compat/target_view.h>
