/*
 * AudioToolbox for Linux — <CoreFoundation/CoreFoundation.h> of the plain module: the
 * toolchain's own umbrella where the compiler has blocks, otherwise the public
 * headers alone (see <AudioToolbox/compat/corefoundation_without_blocks.h>).
 * <libkern/OSByteOrder.h> comes along, as the Mac's CoreFoundation brings it.
 */
#pragma GCC system_header
#if defined(__BLOCKS__)
#include_next <CoreFoundation/CoreFoundation.h>
#else
#include <AudioToolbox/compat/corefoundation_without_blocks.h>
#endif
#include <libkern/OSByteOrder.h>
