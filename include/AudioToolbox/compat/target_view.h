/*
 * AudioToolbox for Linux — internal: the TARGET_* platform macros.
 *
 * Not for inclusion by programs. TargetConditionals.h (both modules) and the
 * CoreFoundation wrappers of the AudioToolbox-ios module include this file each time
 * the view has to change, so it has no include guard: every inclusion undefines all
 * TARGET_* macros and defines them again for one of two views.
 *
 *  - The Linux view: the values CoreFoundation's own Linux headers expect. Always used
 *    by the plain AudioToolbox module, and by the -ios module while a CoreFoundation
 *    header is being read (AUDIOTOOLBOX__INSIDE_COREFOUNDATION is defined).
 *  - The iPhone view (AudioToolbox-ios, outside CoreFoundation): the values a program
 *    built for an iPhone device sees, so `#if TARGET_OS_IPHONE` code is compiled.
 *
 * The processor and byte-order macros describe the real machine in both views.
 */
#pragma GCC system_header

/* gcc does not spell the byte order the way CoreFoundation tests it. */
#include <AudioToolbox/compat/byte_order.h>

#ifndef __TARGETCONDITIONALS__
#define __TARGETCONDITIONALS__ 1
#endif

#undef TARGET_OS_MAC
#undef TARGET_OS_OSX
#undef TARGET_OS_IPHONE
#undef TARGET_OS_IOS
#undef TARGET_OS_WATCH
#undef TARGET_OS_TV
#undef TARGET_OS_VISION
#undef TARGET_OS_MACCATALYST
#undef TARGET_OS_UIKITFORMAC
#undef TARGET_OS_SIMULATOR
#undef TARGET_IPHONE_SIMULATOR
#undef TARGET_OS_EMBEDDED
#undef TARGET_OS_DRIVERKIT
#undef TARGET_OS_BRIDGE
#undef TARGET_OS_UNIX
#undef TARGET_OS_WIN32
#undef TARGET_OS_WINDOWS
#undef TARGET_OS_DARWIN
#undef TARGET_OS_LINUX
#undef TARGET_OS_BSD
#undef TARGET_OS_ANDROID
#undef TARGET_OS_CYGWIN
#undef TARGET_OS_WASI
#undef TARGET_RT_MAC_CFM
#undef TARGET_RT_MAC_MACHO

/* Never true in either view. */
#define TARGET_OS_WATCH         0
#define TARGET_OS_TV            0
#define TARGET_OS_VISION        0
#define TARGET_OS_MACCATALYST   0
#define TARGET_OS_UIKITFORMAC   0
#define TARGET_OS_SIMULATOR     0
#define TARGET_IPHONE_SIMULATOR 0
#define TARGET_OS_DRIVERKIT     0
#define TARGET_OS_BRIDGE        0
#define TARGET_OS_UNIX          0
#define TARGET_OS_WIN32         0
#define TARGET_OS_WINDOWS       0
#define TARGET_OS_BSD           0
#define TARGET_OS_ANDROID       0
#define TARGET_OS_CYGWIN        0
#define TARGET_OS_WASI          0
#define TARGET_OS_OSX           0
#define TARGET_RT_MAC_CFM       0

#if defined(AUDIOTOOLBOX_IOS_VIEW) && !defined(AUDIOTOOLBOX__INSIDE_COREFOUNDATION)
/* An iPhone device: a Darwin system of the iPhone family, not a simulator. */
#  define TARGET_OS_MAC         1
#  define TARGET_OS_IPHONE      1
#  define TARGET_OS_IOS         1
#  define TARGET_OS_EMBEDDED    1
#  define TARGET_OS_DARWIN      1
#  define TARGET_OS_LINUX       0
#  define TARGET_RT_MAC_MACHO   1
#  include <AudioToolbox/compat/availability.h>
#else
/* Linux, as CoreFoundation's headers for Linux describe it. */
#  define TARGET_OS_MAC         0
#  define TARGET_OS_IPHONE      0
#  define TARGET_OS_IOS         0
#  define TARGET_OS_EMBEDDED    0
#  define TARGET_OS_DARWIN      0
#  define TARGET_OS_LINUX       1
#  define TARGET_RT_MAC_MACHO   0
#endif

/* The machine: defined once, the same in both views. */
#ifndef TARGET_CPU_X86_64
#  if defined(__x86_64__)
#    define TARGET_CPU_X86_64 1
#  else
#    define TARGET_CPU_X86_64 0
#  endif
#  if defined(__i386__)
#    define TARGET_CPU_X86 1
#  else
#    define TARGET_CPU_X86 0
#  endif
#  if defined(__aarch64__) || defined(__arm64__)
#    define TARGET_CPU_ARM64 1
#  else
#    define TARGET_CPU_ARM64 0
#  endif
#  if defined(__arm__)
#    define TARGET_CPU_ARM 1
#  else
#    define TARGET_CPU_ARM 0
#  endif
#  if defined(__mips64) || defined(__mips64__)
#    define TARGET_CPU_MIPS64 1
#    define TARGET_CPU_MIPS 0
#  elif defined(__mips__)
#    define TARGET_CPU_MIPS64 0
#    define TARGET_CPU_MIPS 1
#  else
#    define TARGET_CPU_MIPS64 0
#    define TARGET_CPU_MIPS 0
#  endif
#  if defined(__powerpc64__)
#    define TARGET_CPU_PPC64 1
#    define TARGET_CPU_PPC 0
#  elif defined(__powerpc__)
#    define TARGET_CPU_PPC64 0
#    define TARGET_CPU_PPC 1
#  else
#    define TARGET_CPU_PPC64 0
#    define TARGET_CPU_PPC 0
#  endif
#  if defined(__s390x__)
#    define TARGET_CPU_S390X 1
#  else
#    define TARGET_CPU_S390X 0
#  endif
#  if defined(__wasm32__)
#    define TARGET_CPU_WASM32 1
#  else
#    define TARGET_CPU_WASM32 0
#  endif
#  define TARGET_CPU_68K   0
#  define TARGET_CPU_ALPHA 0
#  define TARGET_CPU_SPARC 0
#  if defined(__BIG_ENDIAN__)
#    define TARGET_RT_LITTLE_ENDIAN 0
#    define TARGET_RT_BIG_ENDIAN    1
#  else
#    define TARGET_RT_LITTLE_ENDIAN 1
#    define TARGET_RT_BIG_ENDIAN    0
#  endif
#  if defined(__LP64__) || defined(_LP64)
#    define TARGET_RT_64_BIT 1
#  else
#    define TARGET_RT_64_BIT 0
#  endif
#endif
