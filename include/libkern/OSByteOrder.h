/*
 * AudioToolbox for Linux — <libkern/OSByteOrder.h>.
 *
 * The byte-order helpers the phone's CoreFoundation brings with it: code that reads a
 * big-endian file header or a network field calls OSSwapBigToHostInt32 and friends.
 * The names, argument types and results are Apple's; the bodies are ours, over the
 * compiler's byte-swap builtins (so a constant argument still gives a constant).
 *
 * Both modules' CoreFoundation umbrella brings this header, as CoreFoundation does on
 * the phone and on the Mac; #include <libkern/OSByteOrder.h> works too.
 *
 *   OSSwapIntN(x)                  reverse the bytes of an N-bit value
 *   OSSwapHostToBigIntN(x) ...     convert between this machine's order and big or
 *   OSSwapLittleToHostIntN(x) ...  little endian (a no-op where they already agree)
 *   OSReadBigIntN(base, offset)    load an N-bit value stored in that order at
 *   OSWriteLittleIntN(base, offset, value)  base + offset (any alignment), or store one
 */
#ifndef _OS_OSBYTEORDER_H
#define _OS_OSBYTEORDER_H

#include <stdint.h>
#include <string.h>

/* gcc does not spell the byte order the way Apple's headers test it. */
#include <AudioToolbox/compat/byte_order.h>

/* What OSHostByteOrder() answers. */
enum {
    OSUnknownByteOrder,
    OSLittleEndian,
    OSBigEndian
};

static __inline__ int32_t OSHostByteOrder(void)
{
#if defined(__LITTLE_ENDIAN__)
    return OSLittleEndian;
#elif defined(__BIG_ENDIAN__)
    return OSBigEndian;
#else
    return OSUnknownByteOrder;
#endif
}

/* ---- swapping --------------------------------------------------------------------- */

/* Usable in constant expressions (case labels, static initialisers). */
#define OSSwapConstInt16(x) \
    ((uint16_t)((((uint16_t)(x) & 0xff00U) >> 8) | (((uint16_t)(x) & 0x00ffU) << 8)))
#define OSSwapConstInt32(x) \
    ((uint32_t)((((uint32_t)(x) & 0xff000000U) >> 24) | (((uint32_t)(x) & 0x00ff0000U) >> 8) | \
                (((uint32_t)(x) & 0x0000ff00U) << 8) | (((uint32_t)(x) & 0x000000ffU) << 24)))
#define OSSwapConstInt64(x) \
    ((uint64_t)(((uint64_t)OSSwapConstInt32((uint64_t)(x) & 0xffffffffULL) << 32) | \
                (uint64_t)OSSwapConstInt32((uint64_t)(x) >> 32)))

static __inline__ uint16_t _OSSwapInt16(uint16_t value) { return __builtin_bswap16(value); }
static __inline__ uint32_t _OSSwapInt32(uint32_t value) { return __builtin_bswap32(value); }
static __inline__ uint64_t _OSSwapInt64(uint64_t value) { return __builtin_bswap64(value); }

#define OSSwapInt16(x) ((uint16_t)__builtin_bswap16((uint16_t)(x)))
#define OSSwapInt32(x) ((uint32_t)__builtin_bswap32((uint32_t)(x)))
#define OSSwapInt64(x) ((uint64_t)__builtin_bswap64((uint64_t)(x)))

/* ---- loads and stores at any alignment -------------------------------------------- */

static __inline__ uint16_t _OSReadInt16(const volatile void *base, uintptr_t byteOffset)
{
    uint16_t value;
    memcpy(&value, (const void *)((uintptr_t)base + byteOffset), sizeof value);
    return value;
}
static __inline__ uint32_t _OSReadInt32(const volatile void *base, uintptr_t byteOffset)
{
    uint32_t value;
    memcpy(&value, (const void *)((uintptr_t)base + byteOffset), sizeof value);
    return value;
}
static __inline__ uint64_t _OSReadInt64(const volatile void *base, uintptr_t byteOffset)
{
    uint64_t value;
    memcpy(&value, (const void *)((uintptr_t)base + byteOffset), sizeof value);
    return value;
}
static __inline__ void _OSWriteInt16(volatile void *base, uintptr_t byteOffset, uint16_t data)
{
    memcpy((void *)((uintptr_t)base + byteOffset), &data, sizeof data);
}
static __inline__ void _OSWriteInt32(volatile void *base, uintptr_t byteOffset, uint32_t data)
{
    memcpy((void *)((uintptr_t)base + byteOffset), &data, sizeof data);
}
static __inline__ void _OSWriteInt64(volatile void *base, uintptr_t byteOffset, uint64_t data)
{
    memcpy((void *)((uintptr_t)base + byteOffset), &data, sizeof data);
}

/* The same, reversing the bytes on the way. */
static __inline__ uint16_t OSReadSwapInt16(const volatile void *base, uintptr_t byteOffset)
{
    return _OSSwapInt16(_OSReadInt16(base, byteOffset));
}
static __inline__ uint32_t OSReadSwapInt32(const volatile void *base, uintptr_t byteOffset)
{
    return _OSSwapInt32(_OSReadInt32(base, byteOffset));
}
static __inline__ uint64_t OSReadSwapInt64(const volatile void *base, uintptr_t byteOffset)
{
    return _OSSwapInt64(_OSReadInt64(base, byteOffset));
}
static __inline__ void OSWriteSwapInt16(volatile void *base, uintptr_t byteOffset, uint16_t data)
{
    _OSWriteInt16(base, byteOffset, _OSSwapInt16(data));
}
static __inline__ void OSWriteSwapInt32(volatile void *base, uintptr_t byteOffset, uint32_t data)
{
    _OSWriteInt32(base, byteOffset, _OSSwapInt32(data));
}
static __inline__ void OSWriteSwapInt64(volatile void *base, uintptr_t byteOffset, uint64_t data)
{
    _OSWriteInt64(base, byteOffset, _OSSwapInt64(data));
}

/* ---- this machine's order against big and little endian ---------------------------- */

#if defined(__BIG_ENDIAN__)
#  define OSReadBigInt16(base, byteOffset) _OSReadInt16(base, byteOffset)
#  define OSReadBigInt32(base, byteOffset) _OSReadInt32(base, byteOffset)
#  define OSReadBigInt64(base, byteOffset) _OSReadInt64(base, byteOffset)
#  define OSWriteBigInt16(base, byteOffset, data) _OSWriteInt16(base, byteOffset, data)
#  define OSWriteBigInt32(base, byteOffset, data) _OSWriteInt32(base, byteOffset, data)
#  define OSWriteBigInt64(base, byteOffset, data) _OSWriteInt64(base, byteOffset, data)
#  define OSReadLittleInt16(base, byteOffset) OSReadSwapInt16(base, byteOffset)
#  define OSReadLittleInt32(base, byteOffset) OSReadSwapInt32(base, byteOffset)
#  define OSReadLittleInt64(base, byteOffset) OSReadSwapInt64(base, byteOffset)
#  define OSWriteLittleInt16(base, byteOffset, data) OSWriteSwapInt16(base, byteOffset, data)
#  define OSWriteLittleInt32(base, byteOffset, data) OSWriteSwapInt32(base, byteOffset, data)
#  define OSWriteLittleInt64(base, byteOffset, data) OSWriteSwapInt64(base, byteOffset, data)
#  define OSSwapHostToBigConstInt16(x) ((uint16_t)(x))
#  define OSSwapHostToBigConstInt32(x) ((uint32_t)(x))
#  define OSSwapHostToBigConstInt64(x) ((uint64_t)(x))
#  define OSSwapHostToBigInt16(x) ((uint16_t)(x))
#  define OSSwapHostToBigInt32(x) ((uint32_t)(x))
#  define OSSwapHostToBigInt64(x) ((uint64_t)(x))
#  define OSSwapHostToLittleConstInt16(x) OSSwapConstInt16(x)
#  define OSSwapHostToLittleConstInt32(x) OSSwapConstInt32(x)
#  define OSSwapHostToLittleConstInt64(x) OSSwapConstInt64(x)
#  define OSSwapHostToLittleInt16(x) OSSwapInt16(x)
#  define OSSwapHostToLittleInt32(x) OSSwapInt32(x)
#  define OSSwapHostToLittleInt64(x) OSSwapInt64(x)
#  define OSSwapBigToHostConstInt16(x) ((uint16_t)(x))
#  define OSSwapBigToHostConstInt32(x) ((uint32_t)(x))
#  define OSSwapBigToHostConstInt64(x) ((uint64_t)(x))
#  define OSSwapBigToHostInt16(x) ((uint16_t)(x))
#  define OSSwapBigToHostInt32(x) ((uint32_t)(x))
#  define OSSwapBigToHostInt64(x) ((uint64_t)(x))
#  define OSSwapLittleToHostConstInt16(x) OSSwapConstInt16(x)
#  define OSSwapLittleToHostConstInt32(x) OSSwapConstInt32(x)
#  define OSSwapLittleToHostConstInt64(x) OSSwapConstInt64(x)
#  define OSSwapLittleToHostInt16(x) OSSwapInt16(x)
#  define OSSwapLittleToHostInt32(x) OSSwapInt32(x)
#  define OSSwapLittleToHostInt64(x) OSSwapInt64(x)
#else
#  define OSReadBigInt16(base, byteOffset) OSReadSwapInt16(base, byteOffset)
#  define OSReadBigInt32(base, byteOffset) OSReadSwapInt32(base, byteOffset)
#  define OSReadBigInt64(base, byteOffset) OSReadSwapInt64(base, byteOffset)
#  define OSWriteBigInt16(base, byteOffset, data) OSWriteSwapInt16(base, byteOffset, data)
#  define OSWriteBigInt32(base, byteOffset, data) OSWriteSwapInt32(base, byteOffset, data)
#  define OSWriteBigInt64(base, byteOffset, data) OSWriteSwapInt64(base, byteOffset, data)
#  define OSReadLittleInt16(base, byteOffset) _OSReadInt16(base, byteOffset)
#  define OSReadLittleInt32(base, byteOffset) _OSReadInt32(base, byteOffset)
#  define OSReadLittleInt64(base, byteOffset) _OSReadInt64(base, byteOffset)
#  define OSWriteLittleInt16(base, byteOffset, data) _OSWriteInt16(base, byteOffset, data)
#  define OSWriteLittleInt32(base, byteOffset, data) _OSWriteInt32(base, byteOffset, data)
#  define OSWriteLittleInt64(base, byteOffset, data) _OSWriteInt64(base, byteOffset, data)
#  define OSSwapHostToBigConstInt16(x) OSSwapConstInt16(x)
#  define OSSwapHostToBigConstInt32(x) OSSwapConstInt32(x)
#  define OSSwapHostToBigConstInt64(x) OSSwapConstInt64(x)
#  define OSSwapHostToBigInt16(x) OSSwapInt16(x)
#  define OSSwapHostToBigInt32(x) OSSwapInt32(x)
#  define OSSwapHostToBigInt64(x) OSSwapInt64(x)
#  define OSSwapHostToLittleConstInt16(x) ((uint16_t)(x))
#  define OSSwapHostToLittleConstInt32(x) ((uint32_t)(x))
#  define OSSwapHostToLittleConstInt64(x) ((uint64_t)(x))
#  define OSSwapHostToLittleInt16(x) ((uint16_t)(x))
#  define OSSwapHostToLittleInt32(x) ((uint32_t)(x))
#  define OSSwapHostToLittleInt64(x) ((uint64_t)(x))
#  define OSSwapBigToHostConstInt16(x) OSSwapConstInt16(x)
#  define OSSwapBigToHostConstInt32(x) OSSwapConstInt32(x)
#  define OSSwapBigToHostConstInt64(x) OSSwapConstInt64(x)
#  define OSSwapBigToHostInt16(x) OSSwapInt16(x)
#  define OSSwapBigToHostInt32(x) OSSwapInt32(x)
#  define OSSwapBigToHostInt64(x) OSSwapInt64(x)
#  define OSSwapLittleToHostConstInt16(x) ((uint16_t)(x))
#  define OSSwapLittleToHostConstInt32(x) ((uint32_t)(x))
#  define OSSwapLittleToHostConstInt64(x) ((uint64_t)(x))
#  define OSSwapLittleToHostInt16(x) ((uint16_t)(x))
#  define OSSwapLittleToHostInt32(x) ((uint32_t)(x))
#  define OSSwapLittleToHostInt64(x) ((uint64_t)(x))
#endif

/* The 32-bit forms under their short names. */
#define OSReadBigInt(base, byteOffset)           OSReadBigInt32(base, byteOffset)
#define OSWriteBigInt(base, byteOffset, data)    OSWriteBigInt32(base, byteOffset, data)
#define OSSwapBigToHostInt(x)                    OSSwapBigToHostInt32(x)
#define OSSwapHostToBigInt(x)                    OSSwapHostToBigInt32(x)
#define OSReadLittleInt(base, byteOffset)        OSReadLittleInt32(base, byteOffset)
#define OSWriteLittleInt(base, byteOffset, data) OSWriteLittleInt32(base, byteOffset, data)
#define OSSwapHostToLittleInt(x)                 OSSwapHostToLittleInt32(x)
#define OSSwapLittleToHostInt(x)                 OSSwapLittleToHostInt32(x)

#endif /* _OS_OSBYTEORDER_H */
