/* The iPhone SDK names of issue 40 that programs stopped on, used the way those programs
 * use them (the table in docs/HEADER-COVERAGE.tsv checks that each name exists; this
 * checks that it works): nil in C, libkern's byte-order helpers through CoreFoundation's
 * umbrella as on the phone, AUDIO_TOOLBOX_VERSION, CAShow's and CAShowFile's types, the
 * matrix mixer's meter struct, the converter unit's complexity codes and an AAC encoder's
 * codec properties. Built as C and C++ against both modules; prints "iphone-names ok". */
#include <CoreFoundation/CoreFoundation.h>
/* CoreFoundation's umbrella brings libkern's byte-order helpers, as on the phone. */
#ifndef OSSwapHostToBigInt32
#error "<CoreFoundation/CoreFoundation.h> did not bring <libkern/OSByteOrder.h>"
#endif
#include <AudioToolbox/AudioToolbox.h>
#include <AudioUnit/AudioCodec.h>
#include <libkern/OSByteOrder.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
#define STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* AUDIO_TOOLBOX_VERSION, as iOS 7's AudioToolbox.h gives it. */
#if !defined(AUDIO_TOOLBOX_VERSION) || AUDIO_TOOLBOX_VERSION != 1060
#error "AUDIO_TOOLBOX_VERSION is not 1060"
#endif

/* nil: C has it (the phone's MacTypes.h gives it); C++ keeps the name for its own use. */
#ifdef __cplusplus
#ifdef nil
#error "nil must not be a macro in C++"
#endif
static int nil = 0;   /* a library's own nil, which the header must leave alone */
#else
#ifndef nil
#error "nil is not defined in C"
#endif
#endif

/* CAShow and CAShowFile, with the SDK's exact types: passed to these (declared, never
 * defined) inside sizeof, so that this program needs the declarations, not the library's
 * export of them (scripts/check-exports.sh checks that). */
int takes_show(void (*show)(void *));
int takes_show_file(void (*show)(void *, FILE *));

/* The matrix mixer's AudioUnitMeterClipping, laid out as on the phone. */
STATIC_ASSERT(sizeof(AudioUnitMeterClipping) == 8, "sizeof AudioUnitMeterClipping");
STATIC_ASSERT(offsetof(AudioUnitMeterClipping, peakValueSinceLastCall) == 0, "peakValueSinceLastCall");
STATIC_ASSERT(offsetof(AudioUnitMeterClipping, sawInfinity) == 4, "sawInfinity");
STATIC_ASSERT(offsetof(AudioUnitMeterClipping, sawNotANumber) == 5, "sawNotANumber");

/* Byte swaps of constants are constants (case labels, array sizes). */
STATIC_ASSERT(OSSwapInt16(0x1234) == 0x3412, "OSSwapInt16");
STATIC_ASSERT(OSSwapConstInt32(0x11223344U) == 0x44332211U, "OSSwapConstInt32");
STATIC_ASSERT(OSSwapHostToBigConstInt32(0x01020304U) == 0x01020304U ||
              OSSwapHostToBigConstInt32(0x01020304U) == 0x04030201U, "OSSwapHostToBigConstInt32");

static int check(int ok, const char *what)
{
    if (!ok)
        printf("FAIL %s\n", what);
    return ok ? 0 : 1;
}

int main(void)
{
    int failures = 0;
    unsigned char bytes[16] = {0};
    UInt32 complexity[3] = {kAudioUnitSampleRateConverterComplexity_Linear,
                            kAudioUnitSampleRateConverterComplexity_Normal,
                            kAudioUnitSampleRateConverterComplexity_Mastering};
    UInt32 controlMode = kAudioCodecBitRateControlMode_VariableConstrained;

#ifdef __cplusplus
    failures += check(nil == 0, "C++ program's own nil");
#else
    {
        const void *pointer = nil;
        failures += check(pointer == NULL, "nil is the null pointer");
    }
#endif
    failures += check(sizeof(takes_show(CAShow)) == sizeof(int), "CAShow's type");
    failures += check(sizeof(takes_show_file(CAShowFile)) == sizeof(int), "CAShowFile's type");

    /* libkern's helpers, through CoreFoundation as on the phone. */
    failures += check(OSHostByteOrder() == (CFByteOrderGetCurrent() == CFByteOrderBigEndian ? OSBigEndian : OSLittleEndian),
                      "OSHostByteOrder agrees with CoreFoundation");
    failures += check(OSSwapInt32(0x61636174U) == 0x74616361U, "OSSwapInt32");
    failures += check(OSSwapInt64(0x0102030405060708ULL) == 0x0807060504030201ULL, "OSSwapInt64");
    failures += check(OSSwapHostToBigInt32(0x61636174U) == CFSwapInt32HostToBig(0x61636174U), "OSSwapHostToBigInt32");
    failures += check(OSSwapBigToHostInt16(0x0102) == CFSwapInt16BigToHost(0x0102), "OSSwapBigToHostInt16");
    failures += check(OSSwapHostToLittleInt64(5) == CFSwapInt64HostToLittle(5), "OSSwapHostToLittleInt64");
    failures += check(OSSwapLittleToHostInt32(7) == CFSwapInt32LittleToHost(7), "OSSwapLittleToHostInt32");
    OSWriteBigInt32(bytes, 1, 0x61636174U);   /* 'acat', at an odd address */
    failures += check(bytes[1] == 'a' && bytes[2] == 'c' && bytes[3] == 'a' && bytes[4] == 't', "OSWriteBigInt32");
    failures += check(OSReadBigInt32(bytes, 1) == 0x61636174U, "OSReadBigInt32");
    failures += check(OSReadLittleInt32(bytes, 1) == 0x74616361U, "OSReadLittleInt32");
    OSWriteLittleInt16(bytes, 9, 0x0201);
    failures += check(bytes[9] == 1 && bytes[10] == 2 && OSReadBigInt16(bytes, 9) == 0x0102, "OSWriteLittleInt16");
    OSWriteBigInt64(bytes, 5, 0x0102030405060708ULL);
    failures += check(bytes[5] == 1 && bytes[12] == 8 && OSReadLittleInt64(bytes, 5) == 0x0807060504030201ULL,
                      "OSWriteBigInt64");
    failures += check(OSSwapBigToHostInt(OSSwapHostToBigInt(0x12345678U)) == 0x12345678U, "32-bit short names");

    /* The values programs write. */
    failures += check(kAudioUnitProperty_SampleRateConverterComplexity == 3014 && complexity[0] == 0x6C696E65U &&
                      complexity[1] == 0x6E6F726DU && complexity[2] == 0x62617473U, "converter complexity codes");
    failures += check(kAudioUnitProperty_MatrixLevels == 3006 && kAudioUnitProperty_MatrixDimensions == 3009 &&
                      kAudioUnitProperty_MeterClipping == 3011, "matrix mixer properties");
    failures += check(kAudioCodecPropertyBitRateControlMode == 0x61636266 && controlMode == 2 &&
                      kAudioCodecPropertySoundQualityForVBR == 0x76627271 && kAudioCodecQuality_Max == 0x7F,
                      "AAC encoder codec properties");

    if (failures != 0)
        return 1;
    printf("iphone-names ok\n");
    return 0;
}
