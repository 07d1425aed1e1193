/*
 * AudioToolbox for Linux — <CoreAudio/CoreAudioTypes.h>.
 *
 * The data types every Core Audio API shares: stream formats, buffers and buffer lists,
 * time stamps, channel layouts, and the format identifiers and flags. Names, values and
 * layouts are those of the iPhone SDK (iOS 7), so code that builds these structures by
 * hand or tests these flags compiles and behaves unchanged.
 *
 * The canonical sample types follow the iPhone's own switch, CA_PREFER_FIXED_POINT:
 *   - AudioToolbox-ios (TARGET_OS_IPHONE 1): 1, as on every iPhone. AudioSampleType is
 *     SInt16 and AudioUnitSampleType an SInt32 holding 8.24 fixed point;
 *     kAudioFormatFlagsCanonical is 0xC and kAudioFormatFlagsAudioUnitCanonical 0xC2C.
 *   - AudioToolbox (plain Linux): 0, as on a Mac. Both sample types are Float32;
 *     kAudioFormatFlagsCanonical is 0x9 and kAudioFormatFlagsAudioUnitCanonical 0x29.
 * A program may define CA_PREFER_FIXED_POINT itself, before any include, to choose.
 */
#ifndef __CoreAudioTypes_h__
#define __CoreAudioTypes_h__

#define COREAUDIOTYPES_VERSION 1051

#include <TargetConditionals.h>
#include <AudioToolbox/AudioSession.h>   /* CoreFoundation's base types as gcc and clang read them */

#ifdef __cplusplus
#include <string.h>
extern "C" {
#endif

/* The iPhone's choice, made by the module (see above), not by the processor: the
 * iPhone SDK only leaves fixed point on Intel Macs. */
#if !defined(CA_PREFER_FIXED_POINT)
#  if TARGET_OS_IPHONE
#    define CA_PREFER_FIXED_POINT 1
#  else
#    define CA_PREFER_FIXED_POINT 0
#  endif
#endif

#if !CA_PREFER_FIXED_POINT
typedef Float32 AudioSampleType;
typedef Float32 AudioUnitSampleType;
#else
typedef SInt16 AudioSampleType;
typedef SInt32 AudioUnitSampleType;
/* AudioUnitSampleType is 8.24: 24 of its 32 bits are the fraction. */
#define kAudioUnitSampleFractionBits 24
#endif

/* Result codes several Core Audio services share. */
enum {
    kAudio_UnimplementedError    = -4,
    kAudio_FileNotFoundError     = -43,
    kAudio_FilePermissionError   = -54,
    kAudio_TooManyFilesOpenError = -42,
    kAudio_BadFilePathError      = (SInt32)AT_FOURCC('!','p','t','h'),
    kAudio_ParamError            = -50,
    kAudio_MemFullError          = -108
};

/* A range of values, such as sample rates a device supports. */
struct AudioValueRange {
    Float64 mMinimum;
    Float64 mMaximum;
};
typedef struct AudioValueRange AudioValueRange;

/* An input and an output buffer for a translation between two kinds of value. */
struct AudioValueTranslation {
    void  *mInputData;
    UInt32 mInputDataSize;
    void  *mOutputData;
    UInt32 mOutputDataSize;
};
typedef struct AudioValueTranslation AudioValueTranslation;

/* One buffer of audio: interleaved channels, or one channel of a non-interleaved list. */
struct AudioBuffer {
    UInt32 mNumberChannels;
    UInt32 mDataByteSize;
    void  *mData;
};
typedef struct AudioBuffer AudioBuffer;

/* A list of buffers; it really holds mNumberBuffers of them (allocate accordingly). */
struct AudioBufferList {
    UInt32      mNumberBuffers;
    AudioBuffer mBuffers[1];
};
typedef struct AudioBufferList AudioBufferList;

/* What a stream of audio is: its rate, its encoding and how frames and packets are laid
 * out. For linear PCM a packet is one frame. */
struct AudioStreamBasicDescription {
    Float64 mSampleRate;
    UInt32  mFormatID;
    UInt32  mFormatFlags;
    UInt32  mBytesPerPacket;
    UInt32  mFramesPerPacket;
    UInt32  mBytesPerFrame;
    UInt32  mChannelsPerFrame;
    UInt32  mBitsPerChannel;
    UInt32  mReserved;
};
typedef struct AudioStreamBasicDescription AudioStreamBasicDescription;

/* Where one packet of a variable-size or variable-length format lies in a buffer. */
struct AudioStreamPacketDescription {
    SInt64 mStartOffset;
    UInt32 mVariableFramesInPacket;
    UInt32 mDataByteSize;
};
typedef struct AudioStreamPacketDescription AudioStreamPacketDescription;

/* Any sample rate will do (for descriptions that match formats). */
#define kAudioStreamAnyRate 0.0

/* SMPTE time; another framework may have declared it first. */
#if !defined(__SMPTETime__)
#define __SMPTETime__
struct SMPTETime {
    SInt16 mSubframes;
    SInt16 mSubframeDivisor;
    UInt32 mCounter;
    UInt32 mType;
    UInt32 mFlags;
    SInt16 mHours;
    SInt16 mMinutes;
    SInt16 mSeconds;
    SInt16 mFrames;
};
typedef struct SMPTETime SMPTETime;
#endif

enum {
    kSMPTETimeType24       = 0,
    kSMPTETimeType25       = 1,
    kSMPTETimeType30Drop   = 2,
    kSMPTETimeType30       = 3,
    kSMPTETimeType2997     = 4,
    kSMPTETimeType2997Drop = 5,
    kSMPTETimeType60       = 6,
    kSMPTETimeType5994     = 7,
    kSMPTETimeType60Drop   = 8,
    kSMPTETimeType5994Drop = 9,
    kSMPTETimeType50       = 10,
    kSMPTETimeType2398     = 11
};

enum {
    kSMPTETimeValid   = (1U << 0),
    kSMPTETimeRunning = (1U << 1)
};

/* A moment in a stream: its sample time (frames since the stream started) and the host
 * time (the monotonic clock, in nanoseconds here), with flags saying which are valid. */
struct AudioTimeStamp {
    Float64   mSampleTime;
    UInt64    mHostTime;
    Float64   mRateScalar;
    UInt64    mWordClockTime;
    SMPTETime mSMPTETime;
    UInt32    mFlags;
    UInt32    mReserved;
};
typedef struct AudioTimeStamp AudioTimeStamp;

enum {
    kAudioTimeStampSampleTimeValid     = (1U << 0),
    kAudioTimeStampHostTimeValid       = (1U << 1),
    kAudioTimeStampRateScalarValid     = (1U << 2),
    kAudioTimeStampWordClockTimeValid  = (1U << 3),
    kAudioTimeStampSMPTETimeValid      = (1U << 4),
    kAudioTimeStampSampleHostTimeValid = (kAudioTimeStampSampleTimeValid | kAudioTimeStampHostTimeValid)
};

/* A codec or other class of audio object: type, subtype, manufacturer. */
struct AudioClassDescription {
    OSType mType;
    OSType mSubType;
    OSType mManufacturer;
};
typedef struct AudioClassDescription AudioClassDescription;

/* The types of mFormatID and mFormatFlags by the names later SDKs give them. Swift (whose
 * importer defines __swift__) reads the format identifiers and flags below with these
 * types, as Apple's current SDK makes it do, so that `let id: AudioFormatID =
 * kAudioFormatMPEG4AAC` compiles; C and C++ see the plain enumerations of iOS 7. */
typedef UInt32 AudioFormatID;
typedef UInt32 AudioFormatFlags;
#if defined(__swift__)
#define AT_SWIFT_TYPED_ENUM(type) enum : type
#define AT_FLAG_BIT31 0x80000000U
#else
#define AT_SWIFT_TYPED_ENUM(type) enum
#define AT_FLAG_BIT31 (SInt32)0x80000000U
#endif

/* Format identifiers (mFormatID). */
AT_SWIFT_TYPED_ENUM(AudioFormatID) {
    kAudioFormatLinearPCM             = AT_FOURCC('l','p','c','m'),
    kAudioFormatAC3                   = AT_FOURCC('a','c','-','3'),
    kAudioFormat60958AC3              = AT_FOURCC('c','a','c','3'),
    kAudioFormatAppleIMA4             = AT_FOURCC('i','m','a','4'),
    kAudioFormatMPEG4AAC              = AT_FOURCC('a','a','c',' '),
    kAudioFormatMPEG4CELP             = AT_FOURCC('c','e','l','p'),
    kAudioFormatMPEG4HVXC             = AT_FOURCC('h','v','x','c'),
    kAudioFormatMPEG4TwinVQ           = AT_FOURCC('t','w','v','q'),
    kAudioFormatMACE3                 = AT_FOURCC('M','A','C','3'),
    kAudioFormatMACE6                 = AT_FOURCC('M','A','C','6'),
    kAudioFormatULaw                  = AT_FOURCC('u','l','a','w'),
    kAudioFormatALaw                  = AT_FOURCC('a','l','a','w'),
    kAudioFormatQDesign               = AT_FOURCC('Q','D','M','C'),
    kAudioFormatQDesign2              = AT_FOURCC('Q','D','M','2'),
    kAudioFormatQUALCOMM              = AT_FOURCC('Q','c','l','p'),
    kAudioFormatMPEGLayer1            = AT_FOURCC('.','m','p','1'),
    kAudioFormatMPEGLayer2            = AT_FOURCC('.','m','p','2'),
    kAudioFormatMPEGLayer3            = AT_FOURCC('.','m','p','3'),
    kAudioFormatTimeCode              = AT_FOURCC('t','i','m','e'),
    kAudioFormatMIDIStream            = AT_FOURCC('m','i','d','i'),
    kAudioFormatParameterValueStream  = AT_FOURCC('a','p','v','s'),
    kAudioFormatAppleLossless         = AT_FOURCC('a','l','a','c'),
    kAudioFormatMPEG4AAC_HE           = AT_FOURCC('a','a','c','h'),
    kAudioFormatMPEG4AAC_LD           = AT_FOURCC('a','a','c','l'),
    kAudioFormatMPEG4AAC_ELD          = AT_FOURCC('a','a','c','e'),
    kAudioFormatMPEG4AAC_ELD_SBR      = AT_FOURCC('a','a','c','f'),
    kAudioFormatMPEG4AAC_ELD_V2       = AT_FOURCC('a','a','c','g'),
    kAudioFormatMPEG4AAC_HE_V2        = AT_FOURCC('a','a','c','p'),
    kAudioFormatMPEG4AAC_Spatial      = AT_FOURCC('a','a','c','s'),
    kAudioFormatAMR                   = AT_FOURCC('s','a','m','r'),
    kAudioFormatAudible               = AT_FOURCC('A','U','D','B'),
    kAudioFormatiLBC                  = AT_FOURCC('i','l','b','c'),
    kAudioFormatDVIIntelIMA           = 0x6D730011,
    kAudioFormatMicrosoftGSM          = 0x6D730031,
    kAudioFormatAES3                  = AT_FOURCC('a','e','s','3')
};

/* Format flags (mFormatFlags). The linear-PCM names are the same bits. */
AT_SWIFT_TYPED_ENUM(AudioFormatFlags) {
    kAudioFormatFlagIsFloat                  = (1U << 0),
    kAudioFormatFlagIsBigEndian              = (1U << 1),
    kAudioFormatFlagIsSignedInteger          = (1U << 2),
    kAudioFormatFlagIsPacked                 = (1U << 3),
    kAudioFormatFlagIsAlignedHigh            = (1U << 4),
    kAudioFormatFlagIsNonInterleaved         = (1U << 5),
    kAudioFormatFlagIsNonMixable             = (1U << 6),
    kAudioFormatFlagsAreAllClear             = AT_FLAG_BIT31,  /* bit 31 (in C, as an int) */

    kLinearPCMFormatFlagIsFloat              = kAudioFormatFlagIsFloat,
    kLinearPCMFormatFlagIsBigEndian          = kAudioFormatFlagIsBigEndian,
    kLinearPCMFormatFlagIsSignedInteger      = kAudioFormatFlagIsSignedInteger,
    kLinearPCMFormatFlagIsPacked             = kAudioFormatFlagIsPacked,
    kLinearPCMFormatFlagIsAlignedHigh        = kAudioFormatFlagIsAlignedHigh,
    kLinearPCMFormatFlagIsNonInterleaved     = kAudioFormatFlagIsNonInterleaved,
    kLinearPCMFormatFlagIsNonMixable         = kAudioFormatFlagIsNonMixable,
    /* Fixed point: how many of the bits are the fraction, in bits 7 to 12. */
    kLinearPCMFormatFlagsSampleFractionShift = 7,
    kLinearPCMFormatFlagsSampleFractionMask  = (0x3FU << 7),
    kLinearPCMFormatFlagsAreAllClear         = kAudioFormatFlagsAreAllClear,

    kAppleLosslessFormatFlag_16BitSourceData = 1,
    kAppleLosslessFormatFlag_20BitSourceData = 2,
    kAppleLosslessFormatFlag_24BitSourceData = 3,
    kAppleLosslessFormatFlag_32BitSourceData = 4
};

/* The flags of the canonical formats (see the top of this header). */
AT_SWIFT_TYPED_ENUM(AudioFormatFlags) {
#if defined(__BIG_ENDIAN__)
    kAudioFormatFlagsNativeEndian = kAudioFormatFlagIsBigEndian,
#else
    kAudioFormatFlagsNativeEndian = 0,
#endif
#if !CA_PREFER_FIXED_POINT
    kAudioFormatFlagsCanonical = kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked,
    kAudioFormatFlagsAudioUnitCanonical = kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian
        | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved,
#else
    kAudioFormatFlagsCanonical = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagsNativeEndian
        | kAudioFormatFlagIsPacked,
    kAudioFormatFlagsAudioUnitCanonical = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagsNativeEndian
        | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved
        | (kAudioUnitSampleFractionBits << kLinearPCMFormatFlagsSampleFractionShift),
#endif
    kAudioFormatFlagsNativeFloatPacked = kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian
        | kAudioFormatFlagIsPacked
};

/* Whether a linear-PCM description is in this machine's byte order (takes the structure,
 * not a pointer). */
#define TestAudioFormatNativeEndian(f) \
    (((f).mFormatID == kAudioFormatLinearPCM) \
     && (((f).mFormatFlags & kAudioFormatFlagIsBigEndian) == kAudioFormatFlagsNativeEndian))

/* ---- channel layouts --------------------------------------------------------------- */

typedef UInt32 AudioChannelLabel;
typedef UInt32 AudioChannelLayoutTag;

enum {
    kAudioChannelLabel_Unknown              = (SInt32)0xFFFFFFFFU,  /* all bits, as an int */
    kAudioChannelLabel_Unused               = 0,
    kAudioChannelLabel_UseCoordinates       = 100,
    kAudioChannelLabel_Left                 = 1,
    kAudioChannelLabel_Right                = 2,
    kAudioChannelLabel_Center               = 3,
    kAudioChannelLabel_LFEScreen            = 4,
    kAudioChannelLabel_LeftSurround         = 5,
    kAudioChannelLabel_RightSurround        = 6,
    kAudioChannelLabel_LeftCenter           = 7,
    kAudioChannelLabel_RightCenter          = 8,
    kAudioChannelLabel_CenterSurround       = 9,
    kAudioChannelLabel_LeftSurroundDirect   = 10,
    kAudioChannelLabel_RightSurroundDirect  = 11,
    kAudioChannelLabel_TopCenterSurround    = 12,
    kAudioChannelLabel_VerticalHeightLeft   = 13,
    kAudioChannelLabel_VerticalHeightCenter = 14,
    kAudioChannelLabel_VerticalHeightRight  = 15,
    kAudioChannelLabel_TopBackLeft          = 16,
    kAudioChannelLabel_TopBackCenter        = 17,
    kAudioChannelLabel_TopBackRight         = 18,
    kAudioChannelLabel_RearSurroundLeft     = 33,
    kAudioChannelLabel_RearSurroundRight    = 34,
    kAudioChannelLabel_LeftWide             = 35,
    kAudioChannelLabel_RightWide            = 36,
    kAudioChannelLabel_LFE2                 = 37,
    kAudioChannelLabel_LeftTotal            = 38,
    kAudioChannelLabel_RightTotal           = 39,
    kAudioChannelLabel_HearingImpaired      = 40,
    kAudioChannelLabel_Narration            = 41,
    kAudioChannelLabel_Mono                 = 42,
    kAudioChannelLabel_DialogCentricMix     = 43,
    kAudioChannelLabel_CenterSurroundDirect = 44,
    kAudioChannelLabel_Haptic               = 45,
    /* Ambisonic B-format components, and mid/side and XY stereo pairs. */
    kAudioChannelLabel_Ambisonic_W          = 200,
    kAudioChannelLabel_Ambisonic_X          = 201,
    kAudioChannelLabel_Ambisonic_Y          = 202,
    kAudioChannelLabel_Ambisonic_Z          = 203,
    kAudioChannelLabel_MS_Mid               = 204,
    kAudioChannelLabel_MS_Side              = 205,
    kAudioChannelLabel_XY_X                 = 206,
    kAudioChannelLabel_XY_Y                 = 207,
    kAudioChannelLabel_HeadphonesLeft       = 301,
    kAudioChannelLabel_HeadphonesRight      = 302,
    kAudioChannelLabel_ClickTrack           = 304,
    kAudioChannelLabel_ForeignLanguage      = 305,
    kAudioChannelLabel_Discrete             = 400,
    /* Numbered channels with no other meaning: (1 << 16) | the number. */
    kAudioChannelLabel_Discrete_0           = (1U << 16) | 0,
    kAudioChannelLabel_Discrete_1           = (1U << 16) | 1,
    kAudioChannelLabel_Discrete_2           = (1U << 16) | 2,
    kAudioChannelLabel_Discrete_3           = (1U << 16) | 3,
    kAudioChannelLabel_Discrete_4           = (1U << 16) | 4,
    kAudioChannelLabel_Discrete_5           = (1U << 16) | 5,
    kAudioChannelLabel_Discrete_6           = (1U << 16) | 6,
    kAudioChannelLabel_Discrete_7           = (1U << 16) | 7,
    kAudioChannelLabel_Discrete_8           = (1U << 16) | 8,
    kAudioChannelLabel_Discrete_9           = (1U << 16) | 9,
    kAudioChannelLabel_Discrete_10          = (1U << 16) | 10,
    kAudioChannelLabel_Discrete_11          = (1U << 16) | 11,
    kAudioChannelLabel_Discrete_12          = (1U << 16) | 12,
    kAudioChannelLabel_Discrete_13          = (1U << 16) | 13,
    kAudioChannelLabel_Discrete_14          = (1U << 16) | 14,
    kAudioChannelLabel_Discrete_15          = (1U << 16) | 15,
    kAudioChannelLabel_Discrete_65535       = (1U << 16) | 65535
};

/* Indexes into AudioChannelDescription.mCoordinates: rectangular (-1 to 1 on each axis)
 * or spherical (degrees and a distance), as mChannelFlags says. */
enum {
    kAudioChannelCoordinates_LeftRight = 0,
    kAudioChannelCoordinates_BackFront = 1,
    kAudioChannelCoordinates_DownUp    = 2,
    kAudioChannelCoordinates_Azimuth   = 0,
    kAudioChannelCoordinates_Elevation = 1,
    kAudioChannelCoordinates_Distance  = 2
};

enum {
    kAudioChannelBit_Left                 = (1U << 0),
    kAudioChannelBit_Right                = (1U << 1),
    kAudioChannelBit_Center               = (1U << 2),
    kAudioChannelBit_LFEScreen            = (1U << 3),
    kAudioChannelBit_LeftSurround         = (1U << 4),
    kAudioChannelBit_RightSurround        = (1U << 5),
    kAudioChannelBit_LeftCenter           = (1U << 6),
    kAudioChannelBit_RightCenter          = (1U << 7),
    kAudioChannelBit_CenterSurround       = (1U << 8),
    kAudioChannelBit_LeftSurroundDirect   = (1U << 9),
    kAudioChannelBit_RightSurroundDirect  = (1U << 10),
    kAudioChannelBit_TopCenterSurround    = (1U << 11),
    kAudioChannelBit_VerticalHeightLeft   = (1U << 12),
    kAudioChannelBit_VerticalHeightCenter = (1U << 13),
    kAudioChannelBit_VerticalHeightRight  = (1U << 14),
    kAudioChannelBit_TopBackLeft          = (1U << 15),
    kAudioChannelBit_TopBackCenter        = (1U << 16),
    kAudioChannelBit_TopBackRight         = (1U << 17)
};

enum {
    kAudioChannelFlags_AllOff                 = 0,
    kAudioChannelFlags_RectangularCoordinates = (1U << 0),
    kAudioChannelFlags_SphericalCoordinates   = (1U << 1),
    kAudioChannelFlags_Meters                 = (1U << 2)
};

/* A layout tag is an index (high 16 bits) and a channel count (low 16 bits). */
#define AudioChannelLayoutTag_GetNumberOfChannels(layoutTag) ((UInt32)((layoutTag) & 0x0000FFFF))

enum {
    kAudioChannelLayoutTag_UseChannelDescriptions = (0U << 16) | 0,
    kAudioChannelLayoutTag_UseChannelBitmap       = (1U << 16) | 0,
    kAudioChannelLayoutTag_Mono                   = (100U << 16) | 1,
    kAudioChannelLayoutTag_Stereo                 = (101U << 16) | 2,
    kAudioChannelLayoutTag_StereoHeadphones       = (102U << 16) | 2,
    kAudioChannelLayoutTag_MatrixStereo           = (103U << 16) | 2,
    kAudioChannelLayoutTag_MidSide                = (104U << 16) | 2,
    kAudioChannelLayoutTag_XY                     = (105U << 16) | 2,
    kAudioChannelLayoutTag_Binaural               = (106U << 16) | 2,
    kAudioChannelLayoutTag_Ambisonic_B_Format     = (107U << 16) | 4,
    kAudioChannelLayoutTag_Quadraphonic           = (108U << 16) | 4,
    kAudioChannelLayoutTag_Pentagonal             = (109U << 16) | 5,
    kAudioChannelLayoutTag_Hexagonal              = (110U << 16) | 6,
    kAudioChannelLayoutTag_Octagonal              = (111U << 16) | 8,
    kAudioChannelLayoutTag_Cube                   = (112U << 16) | 8,
    /* MPEG channel orders; the letter tells apart orders of the same channels. */
    kAudioChannelLayoutTag_MPEG_1_0               = kAudioChannelLayoutTag_Mono,
    kAudioChannelLayoutTag_MPEG_2_0               = kAudioChannelLayoutTag_Stereo,
    kAudioChannelLayoutTag_MPEG_3_0_A             = (113U << 16) | 3,
    kAudioChannelLayoutTag_MPEG_3_0_B             = (114U << 16) | 3,
    kAudioChannelLayoutTag_MPEG_4_0_A             = (115U << 16) | 4,
    kAudioChannelLayoutTag_MPEG_4_0_B             = (116U << 16) | 4,
    kAudioChannelLayoutTag_MPEG_5_0_A             = (117U << 16) | 5,
    kAudioChannelLayoutTag_MPEG_5_0_B             = (118U << 16) | 5,
    kAudioChannelLayoutTag_MPEG_5_0_C             = (119U << 16) | 5,
    kAudioChannelLayoutTag_MPEG_5_0_D             = (120U << 16) | 5,
    kAudioChannelLayoutTag_MPEG_5_1_A             = (121U << 16) | 6,
    kAudioChannelLayoutTag_MPEG_5_1_B             = (122U << 16) | 6,
    kAudioChannelLayoutTag_MPEG_5_1_C             = (123U << 16) | 6,
    kAudioChannelLayoutTag_MPEG_5_1_D             = (124U << 16) | 6,
    kAudioChannelLayoutTag_MPEG_6_1_A             = (125U << 16) | 7,
    kAudioChannelLayoutTag_MPEG_7_1_A             = (126U << 16) | 8,
    kAudioChannelLayoutTag_MPEG_7_1_B             = (127U << 16) | 8,
    kAudioChannelLayoutTag_MPEG_7_1_C             = (128U << 16) | 8,
    kAudioChannelLayoutTag_Emagic_Default_7_1     = (129U << 16) | 8,
    kAudioChannelLayoutTag_SMPTE_DTV              = (130U << 16) | 8,
    /* ITU-R BS.775 speaker arrangements. */
    kAudioChannelLayoutTag_ITU_1_0                = kAudioChannelLayoutTag_Mono,
    kAudioChannelLayoutTag_ITU_2_0                = kAudioChannelLayoutTag_Stereo,
    kAudioChannelLayoutTag_ITU_2_1                = (131U << 16) | 3,
    kAudioChannelLayoutTag_ITU_2_2                = (132U << 16) | 4,
    kAudioChannelLayoutTag_ITU_3_0                = kAudioChannelLayoutTag_MPEG_3_0_A,
    kAudioChannelLayoutTag_ITU_3_1                = kAudioChannelLayoutTag_MPEG_4_0_A,
    kAudioChannelLayoutTag_ITU_3_2                = kAudioChannelLayoutTag_MPEG_5_0_A,
    kAudioChannelLayoutTag_ITU_3_2_1              = kAudioChannelLayoutTag_MPEG_5_1_A,
    kAudioChannelLayoutTag_ITU_3_4_1              = kAudioChannelLayoutTag_MPEG_7_1_C,
    /* The DVD-Audio channel assignments, by number. */
    kAudioChannelLayoutTag_DVD_0                  = kAudioChannelLayoutTag_Mono,
    kAudioChannelLayoutTag_DVD_1                  = kAudioChannelLayoutTag_Stereo,
    kAudioChannelLayoutTag_DVD_2                  = kAudioChannelLayoutTag_ITU_2_1,
    kAudioChannelLayoutTag_DVD_3                  = kAudioChannelLayoutTag_ITU_2_2,
    kAudioChannelLayoutTag_DVD_4                  = (133U << 16) | 3,
    kAudioChannelLayoutTag_DVD_5                  = (134U << 16) | 4,
    kAudioChannelLayoutTag_DVD_6                  = (135U << 16) | 5,
    kAudioChannelLayoutTag_DVD_7                  = kAudioChannelLayoutTag_MPEG_3_0_A,
    kAudioChannelLayoutTag_DVD_8                  = kAudioChannelLayoutTag_MPEG_4_0_A,
    kAudioChannelLayoutTag_DVD_9                  = kAudioChannelLayoutTag_MPEG_5_0_A,
    kAudioChannelLayoutTag_DVD_10                 = (136U << 16) | 4,
    kAudioChannelLayoutTag_DVD_11                 = (137U << 16) | 5,
    kAudioChannelLayoutTag_DVD_12                 = kAudioChannelLayoutTag_MPEG_5_1_A,
    kAudioChannelLayoutTag_DVD_13                 = kAudioChannelLayoutTag_DVD_8,
    kAudioChannelLayoutTag_DVD_14                 = kAudioChannelLayoutTag_DVD_9,
    kAudioChannelLayoutTag_DVD_15                 = kAudioChannelLayoutTag_DVD_10,
    kAudioChannelLayoutTag_DVD_16                 = kAudioChannelLayoutTag_DVD_11,
    kAudioChannelLayoutTag_DVD_17                 = kAudioChannelLayoutTag_DVD_12,
    kAudioChannelLayoutTag_DVD_18                 = (138U << 16) | 5,
    kAudioChannelLayoutTag_DVD_19                 = kAudioChannelLayoutTag_MPEG_5_0_B,
    kAudioChannelLayoutTag_DVD_20                 = kAudioChannelLayoutTag_MPEG_5_1_B,
    /* The arrangements audio units are usually asked for. */
    kAudioChannelLayoutTag_AudioUnit_4            = kAudioChannelLayoutTag_Quadraphonic,
    kAudioChannelLayoutTag_AudioUnit_5            = kAudioChannelLayoutTag_Pentagonal,
    kAudioChannelLayoutTag_AudioUnit_6            = kAudioChannelLayoutTag_Hexagonal,
    kAudioChannelLayoutTag_AudioUnit_8            = kAudioChannelLayoutTag_Octagonal,
    kAudioChannelLayoutTag_AudioUnit_5_0          = kAudioChannelLayoutTag_MPEG_5_0_B,
    kAudioChannelLayoutTag_AudioUnit_6_0          = (139U << 16) | 6,
    kAudioChannelLayoutTag_AudioUnit_7_0          = (140U << 16) | 7,
    kAudioChannelLayoutTag_AudioUnit_7_0_Front    = (148U << 16) | 7,
    kAudioChannelLayoutTag_AudioUnit_5_1          = kAudioChannelLayoutTag_MPEG_5_1_A,
    kAudioChannelLayoutTag_AudioUnit_6_1          = kAudioChannelLayoutTag_MPEG_6_1_A,
    kAudioChannelLayoutTag_AudioUnit_7_1          = kAudioChannelLayoutTag_MPEG_7_1_C,
    kAudioChannelLayoutTag_AudioUnit_7_1_Front    = kAudioChannelLayoutTag_MPEG_7_1_A,
    /* Channel orders of AAC streams. */
    kAudioChannelLayoutTag_AAC_3_0                = kAudioChannelLayoutTag_MPEG_3_0_B,
    kAudioChannelLayoutTag_AAC_Quadraphonic       = kAudioChannelLayoutTag_Quadraphonic,
    kAudioChannelLayoutTag_AAC_4_0                = kAudioChannelLayoutTag_MPEG_4_0_B,
    kAudioChannelLayoutTag_AAC_5_0                = kAudioChannelLayoutTag_MPEG_5_0_D,
    kAudioChannelLayoutTag_AAC_5_1                = kAudioChannelLayoutTag_MPEG_5_1_D,
    kAudioChannelLayoutTag_AAC_6_0                = (141U << 16) | 6,
    kAudioChannelLayoutTag_AAC_6_1                = (142U << 16) | 7,
    kAudioChannelLayoutTag_AAC_7_0                = (143U << 16) | 7,
    kAudioChannelLayoutTag_AAC_7_1                = kAudioChannelLayoutTag_MPEG_7_1_B,
    kAudioChannelLayoutTag_AAC_7_1_B              = (183U << 16) | 8,
    kAudioChannelLayoutTag_AAC_7_1_C              = (184U << 16) | 8,
    kAudioChannelLayoutTag_AAC_Octagonal          = (144U << 16) | 8,
    /* Tomlinson Holman's 10.2 arrangements. */
    kAudioChannelLayoutTag_TMH_10_2_std           = (145U << 16) | 16,
    kAudioChannelLayoutTag_TMH_10_2_full          = (146U << 16) | 21,
    /* Channel orders of AC-3 streams. */
    kAudioChannelLayoutTag_AC3_1_0_1              = (149U << 16) | 2,
    kAudioChannelLayoutTag_AC3_3_0                = (150U << 16) | 3,
    kAudioChannelLayoutTag_AC3_3_1                = (151U << 16) | 4,
    kAudioChannelLayoutTag_AC3_3_0_1              = (152U << 16) | 4,
    kAudioChannelLayoutTag_AC3_2_1_1              = (153U << 16) | 4,
    kAudioChannelLayoutTag_AC3_3_1_1              = (154U << 16) | 5,
    /* Channel orders of E-AC-3 streams. */
    kAudioChannelLayoutTag_EAC_6_0_A              = (155U << 16) | 6,
    kAudioChannelLayoutTag_EAC_7_0_A              = (156U << 16) | 7,
    kAudioChannelLayoutTag_EAC3_6_1_A             = (157U << 16) | 7,
    kAudioChannelLayoutTag_EAC3_6_1_B             = (158U << 16) | 7,
    kAudioChannelLayoutTag_EAC3_6_1_C             = (159U << 16) | 7,
    kAudioChannelLayoutTag_EAC3_7_1_A             = (160U << 16) | 8,
    kAudioChannelLayoutTag_EAC3_7_1_B             = (161U << 16) | 8,
    kAudioChannelLayoutTag_EAC3_7_1_C             = (162U << 16) | 8,
    kAudioChannelLayoutTag_EAC3_7_1_D             = (163U << 16) | 8,
    kAudioChannelLayoutTag_EAC3_7_1_E             = (164U << 16) | 8,
    kAudioChannelLayoutTag_EAC3_7_1_F             = (165U << 16) | 8,
    kAudioChannelLayoutTag_EAC3_7_1_G             = (166U << 16) | 8,
    kAudioChannelLayoutTag_EAC3_7_1_H             = (167U << 16) | 8,
    /* Channel orders of DTS streams. */
    kAudioChannelLayoutTag_DTS_3_1                = (168U << 16) | 4,
    kAudioChannelLayoutTag_DTS_4_1                = (169U << 16) | 5,
    kAudioChannelLayoutTag_DTS_6_0_A              = (170U << 16) | 6,
    kAudioChannelLayoutTag_DTS_6_0_B              = (171U << 16) | 6,
    kAudioChannelLayoutTag_DTS_6_0_C              = (172U << 16) | 6,
    kAudioChannelLayoutTag_DTS_6_1_A              = (173U << 16) | 7,
    kAudioChannelLayoutTag_DTS_6_1_B              = (174U << 16) | 7,
    kAudioChannelLayoutTag_DTS_6_1_C              = (175U << 16) | 7,
    kAudioChannelLayoutTag_DTS_7_0                = (176U << 16) | 7,
    kAudioChannelLayoutTag_DTS_7_1                = (177U << 16) | 8,
    kAudioChannelLayoutTag_DTS_8_0_A              = (178U << 16) | 8,
    kAudioChannelLayoutTag_DTS_8_0_B              = (179U << 16) | 8,
    kAudioChannelLayoutTag_DTS_8_1_A              = (180U << 16) | 9,
    kAudioChannelLayoutTag_DTS_8_1_B              = (181U << 16) | 9,
    kAudioChannelLayoutTag_DTS_6_1_D              = (182U << 16) | 7,
    kAudioChannelLayoutTag_DiscreteInOrder        = (147U << 16) | 0,
    kAudioChannelLayoutTag_Unknown                = (SInt32)0xFFFF0000U
};

/* One channel: its label, and its position when the label says to use coordinates. */
struct AudioChannelDescription {
    AudioChannelLabel mChannelLabel;
    UInt32            mChannelFlags;
    Float32           mCoordinates[3];
};
typedef struct AudioChannelDescription AudioChannelDescription;

/* A layout: a tag, or a bitmap, or the descriptions that follow (mNumberChannelDescriptions
 * of them; allocate accordingly). */
struct AudioChannelLayout {
    AudioChannelLayoutTag   mChannelLayoutTag;
    UInt32                  mChannelBitmap;
    UInt32                  mNumberChannelDescriptions;
    AudioChannelDescription mChannelDescriptions[1];
};
typedef struct AudioChannelLayout AudioChannelLayout;

/* MPEG-4 audio object types, as the phone's SDK still declares them (superseded by the
 * kAudioFormatMPEG4* format IDs). */
enum {
    kMPEG4Object_AAC_Main     = 1,
    kMPEG4Object_AAC_LC       = 2,
    kMPEG4Object_AAC_SSR      = 3,
    kMPEG4Object_AAC_LTP      = 4,
    kMPEG4Object_AAC_SBR      = 5,
    kMPEG4Object_AAC_Scalable = 6,
    kMPEG4Object_TwinVQ       = 7,
    kMPEG4Object_CELP         = 8,
    kMPEG4Object_HVXC         = 9
};

#ifdef __cplusplus
}

/* The C++ helpers iPhone code uses to fill in descriptions and time stamps. */
static inline bool IsAudioFormatNativeEndian(const AudioStreamBasicDescription &f)
{
    return TestAudioFormatNativeEndian(f);
}

static inline UInt32 CalculateLPCMFlags(UInt32 inValidBitsPerChannel, UInt32 inTotalBitsPerChannel, bool inIsFloat,
                                        bool inIsBigEndian, bool inIsNonInterleaved = false)
{
    return (inIsFloat ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger)
        | (inIsBigEndian ? ((UInt32)kAudioFormatFlagIsBigEndian) : 0)
        | ((inValidBitsPerChannel == inTotalBitsPerChannel) ? kAudioFormatFlagIsPacked : kAudioFormatFlagIsAlignedHigh)
        | (inIsNonInterleaved ? ((UInt32)kAudioFormatFlagIsNonInterleaved) : 0);
}

static inline void FillOutASBDForLPCM(AudioStreamBasicDescription &outASBD, Float64 inSampleRate,
                                      UInt32 inChannelsPerFrame, UInt32 inValidBitsPerChannel,
                                      UInt32 inTotalBitsPerChannel, bool inIsFloat, bool inIsBigEndian,
                                      bool inIsNonInterleaved = false)
{
    outASBD.mSampleRate = inSampleRate;
    outASBD.mFormatID = kAudioFormatLinearPCM;
    outASBD.mFormatFlags = CalculateLPCMFlags(inValidBitsPerChannel, inTotalBitsPerChannel, inIsFloat, inIsBigEndian,
                                              inIsNonInterleaved);
    outASBD.mBytesPerPacket = (inIsNonInterleaved ? 1 : inChannelsPerFrame) * (inTotalBitsPerChannel / 8);
    outASBD.mFramesPerPacket = 1;
    outASBD.mBytesPerFrame = (inIsNonInterleaved ? 1 : inChannelsPerFrame) * (inTotalBitsPerChannel / 8);
    outASBD.mChannelsPerFrame = inChannelsPerFrame;
    outASBD.mBitsPerChannel = inValidBitsPerChannel;
}

static inline void FillOutAudioTimeStampWithSampleTime(AudioTimeStamp &outATS, Float64 inSampleTime)
{
    outATS.mSampleTime = inSampleTime;
    outATS.mHostTime = 0;
    outATS.mRateScalar = 0;
    outATS.mWordClockTime = 0;
    memset(&outATS.mSMPTETime, 0, sizeof(SMPTETime));
    outATS.mFlags = kAudioTimeStampSampleTimeValid;
}

static inline void FillOutAudioTimeStampWithHostTime(AudioTimeStamp &outATS, UInt64 inHostTime)
{
    outATS.mSampleTime = 0;
    outATS.mHostTime = inHostTime;
    outATS.mRateScalar = 0;
    outATS.mWordClockTime = 0;
    memset(&outATS.mSMPTETime, 0, sizeof(SMPTETime));
    outATS.mFlags = kAudioTimeStampHostTimeValid;
}

static inline void FillOutAudioTimeStampWithSampleAndHostTime(AudioTimeStamp &outATS, Float64 inSampleTime,
                                                              UInt64 inHostTime)
{
    outATS.mSampleTime = inSampleTime;
    outATS.mHostTime = inHostTime;
    outATS.mRateScalar = 0;
    outATS.mWordClockTime = 0;
    memset(&outATS.mSMPTETime, 0, sizeof(SMPTETime));
    outATS.mFlags = kAudioTimeStampSampleTimeValid | kAudioTimeStampHostTimeValid;
}
#endif

#endif /* __CoreAudioTypes_h__ */
