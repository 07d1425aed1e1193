/*
 * AudioToolbox for Linux — <CoreFoundation/CoreFoundation.h> of the AudioToolbox-ios
 * module. CoreFoundation is read with the Linux values of the TARGET_* macros, then the
 * program's iPhone values are put back (see <AudioToolbox/compat/target_view.h>).
 * Without blocks, the public headers alone are read (as in the plain module).
 * <libkern/OSByteOrder.h> comes along, as the phone's CoreFoundation brings it.
 */
#pragma GCC system_header
#define AUDIOTOOLBOX_IOS_VIEW 1
#ifndef AUDIOTOOLBOX__INSIDE_COREFOUNDATION
#  define AUDIOTOOLBOX__INSIDE_COREFOUNDATION 1
#  include <AudioToolbox/compat/target_view.h>
#  if defined(__BLOCKS__)
#    include_next <CoreFoundation/CoreFoundation.h>
#  else
#    include <AudioToolbox/compat/corefoundation_without_blocks.h>
#  endif
#  undef AUDIOTOOLBOX__INSIDE_COREFOUNDATION
#  include <AudioToolbox/compat/target_view.h>
#elif defined(__BLOCKS__)
#  include_next <CoreFoundation/CoreFoundation.h>
#else
#  include <AudioToolbox/compat/corefoundation_without_blocks.h>
#endif
#include <libkern/OSByteOrder.h>
