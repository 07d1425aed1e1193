/*
 * AudioToolbox for Linux: the machine's byte order spelled as __LITTLE_ENDIAN__ or
 * __BIG_ENDIAN__. clang defines one of them on Apple's platforms only, gcc never;
 * CoreFoundation's headers, OSByteOrder.h and iPhone code test them. Included by the
 * headers that need it, before anything that tests them.
 */
#ifndef AUDIOTOOLBOX_COMPAT_BYTE_ORDER_H
#define AUDIOTOOLBOX_COMPAT_BYTE_ORDER_H

#if !defined(__LITTLE_ENDIAN__) && !defined(__BIG_ENDIAN__)
#  if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#    define __BIG_ENDIAN__ 1
#  else
#    define __LITTLE_ENDIAN__ 1
#  endif
#endif

#endif
