/*
 * AudioToolbox for Linux — <AudioToolbox/AudioCodec.h>.
 *
 * The codec property IDs and their values. A program does not open codecs itself here:
 * it sets these properties on an AudioConverter (AudioConverterSetProperty), which hands
 * them to its encoder or decoder, as on the phone. An AAC encoder is typically set up
 * with kAudioCodecPropertyBitRateControlMode (and, for VBR,
 * kAudioCodecPropertySoundQualityForVBR) next to kAudioConverterEncodeBitRate. Which of
 * them the library's converters answer: docs/API.md, "Audio files and conversion".
 *
 * Names and values are Apple's. The iPhone SDK has this header from iOS 10 (in
 * AudioToolbox); the iOS 7 SDK has it on the Mac only, in AudioUnit. The codec component
 * calls (AudioCodecInitialize, AudioCodecAppendInputData, ...) and their dispatch types
 * are not declared: the library has no codec components to open (docs/API.md, "Header
 * coverage"). Nor are the component types: the phone's AudioFormat.h has
 * kAudioDecoderComponentType and kAudioEncoderComponentType.
 */
#ifndef AudioUnit_AudioCodec_h
#define AudioUnit_AudioCodec_h

#include <CoreAudio/CoreAudioTypes.h>
#include <AudioUnit/AudioComponent.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A codec instance, and the type of its property IDs. */
typedef AudioComponentInstance AudioCodec;
typedef UInt32 AudioCodecPropertyID;

/* A magic cookie and its size (kAudioCodecPropertyFormatInfo, for instance). */
struct AudioCodecMagicCookieInfo {
    UInt32      mMagicCookieSize;
    const void *mMagicCookie;
};
typedef struct AudioCodecMagicCookieInfo AudioCodecMagicCookieInfo;

/* Properties of a codec as such, before it has formats. */
enum {
    kAudioCodecPropertySupportedInputFormats          = AT_FOURCC('i','f','m','#'),
    kAudioCodecPropertySupportedOutputFormats         = AT_FOURCC('o','f','m','#'),
    kAudioCodecPropertyAvailableInputSampleRates      = AT_FOURCC('a','i','s','r'),
    kAudioCodecPropertyAvailableOutputSampleRates     = AT_FOURCC('a','o','s','r'),
    kAudioCodecPropertyAvailableBitRateRange          = AT_FOURCC('a','b','r','t'),
    kAudioCodecPropertyMinimumNumberInputPackets      = AT_FOURCC('m','n','i','p'),
    kAudioCodecPropertyMinimumNumberOutputPackets     = AT_FOURCC('m','n','o','p'),
    kAudioCodecPropertyAvailableNumberChannels        = AT_FOURCC('c','m','n','c'),
    kAudioCodecPropertyDoesSampleRateConversion       = AT_FOURCC('l','m','r','c'),
    kAudioCodecPropertyAvailableInputChannelLayoutTags  = AT_FOURCC('a','i','c','l'),
    kAudioCodecPropertyAvailableOutputChannelLayoutTags = AT_FOURCC('a','o','c','l'),
    kAudioCodecPropertyInputFormatsForOutputFormat    = AT_FOURCC('i','f','4','o'),
    kAudioCodecPropertyOutputFormatsForInputFormat    = AT_FOURCC('o','f','4','i'),
    kAudioCodecPropertyFormatInfo                     = AT_FOURCC('a','c','f','i')
};

/* Properties of a codec set up for a pair of formats. */
enum {
    kAudioCodecPropertyInputBufferSize              = AT_FOURCC('t','b','u','f'),
    kAudioCodecPropertyPacketFrameSize              = AT_FOURCC('p','a','k','f'),
    kAudioCodecPropertyHasVariablePacketByteSizes   = AT_FOURCC('v','p','k','?'),
    kAudioCodecPropertyMaximumPacketByteSize        = AT_FOURCC('p','a','k','b'),
    kAudioCodecPropertyPacketSizeLimitForVBR        = AT_FOURCC('p','a','k','l'),
    kAudioCodecPropertyCurrentInputFormat           = AT_FOURCC('i','f','m','t'),
    kAudioCodecPropertyCurrentOutputFormat          = AT_FOURCC('o','f','m','t'),
    kAudioCodecPropertyMagicCookie                  = AT_FOURCC('k','u','k','i'),
    kAudioCodecPropertyUsedInputBufferSize          = AT_FOURCC('u','b','u','f'),
    kAudioCodecPropertyIsInitialized                = AT_FOURCC('i','n','i','t'),
    kAudioCodecPropertyCurrentTargetBitRate         = AT_FOURCC('b','r','a','t'),
    kAudioCodecPropertyCurrentInputSampleRate       = AT_FOURCC('c','i','s','r'),
    kAudioCodecPropertyCurrentOutputSampleRate      = AT_FOURCC('c','o','s','r'),
    /* UInt32, one of kAudioCodecQuality_. */
    kAudioCodecPropertyQualitySetting               = AT_FOURCC('s','r','c','q'),
    kAudioCodecPropertyApplicableBitRateRange       = AT_FOURCC('b','r','t','a'),
    kAudioCodecPropertyRecommendedBitRateRange      = AT_FOURCC('b','r','t','r'),
    kAudioCodecPropertyApplicableInputSampleRates   = AT_FOURCC('i','s','r','a'),
    kAudioCodecPropertyApplicableOutputSampleRates  = AT_FOURCC('o','s','r','a'),
    kAudioCodecPropertyPaddedZeros                  = AT_FOURCC('p','a','d','0'),
    kAudioCodecPropertyPrimeMethod                  = AT_FOURCC('p','r','m','m'),
    kAudioCodecPropertyPrimeInfo                    = AT_FOURCC('p','r','i','m'),
    kAudioCodecPropertyCurrentInputChannelLayout    = AT_FOURCC('i','c','l',' '),
    kAudioCodecPropertyCurrentOutputChannelLayout   = AT_FOURCC('o','c','l',' '),
    kAudioCodecPropertySettings                     = AT_FOURCC('a','c','s',' '),
    kAudioCodecPropertyFormatList                   = AT_FOURCC('a','c','f','l'),
    /* UInt32, one of kAudioCodecBitRateControlMode_. */
    kAudioCodecPropertyBitRateControlMode           = AT_FOURCC('a','c','b','f'),
    /* UInt32, 0 (smallest) to 127 (best), for the variable bit-rate modes. */
    kAudioCodecPropertySoundQualityForVBR           = AT_FOURCC('v','b','r','q'),
    kAudioCodecPropertyDelayMode                    = AT_FOURCC('d','m','o','d'),
    kAudioCodecPropertyAdjustLocalQuality           = AT_FOURCC('^','q','a','l'),
    kAudioCodecPropertyProgramTargetLevel           = AT_FOURCC('p','p','t','l'),
    kAudioCodecPropertyDynamicRangeControlMode      = AT_FOURCC('m','d','r','c'),
    kAudioCodecPropertyProgramTargetLevelConstant   = AT_FOURCC('p','t','l','c')
};

/* Values of kAudioCodecPropertyQualitySetting. */
enum {
    kAudioCodecQuality_Max    = 0x7F,
    kAudioCodecQuality_High   = 0x60,
    kAudioCodecQuality_Medium = 0x40,
    kAudioCodecQuality_Low    = 0x20,
    kAudioCodecQuality_Min    = 0
};

/* Values of kAudioCodecPropertyPrimeMethod. */
enum {
    kAudioCodecPrimeMethod_Pre    = 0,
    kAudioCodecPrimeMethod_Normal = 1,
    kAudioCodecPrimeMethod_None   = 2
};

/* Values of kAudioCodecPropertyBitRateControlMode: a constant bit rate, an average over
 * time, a variable rate that keeps to the bit rate set, or a variable rate that follows
 * kAudioCodecPropertySoundQualityForVBR alone. */
enum {
    kAudioCodecBitRateControlMode_Constant            = 0,
    kAudioCodecBitRateControlMode_LongTermAverage     = 1,
    kAudioCodecBitRateControlMode_VariableConstrained = 2,
    kAudioCodecBitRateControlMode_Variable            = 3
};

/* Values of kAudioCodecPropertyDelayMode. */
enum {
    kAudioCodecDelayMode_Compatibility = 0,
    kAudioCodecDelayMode_Minimum       = 1,
    kAudioCodecDelayMode_Optimal       = 2
};

/* Values of kAudioCodecPropertyProgramTargetLevel. */
enum {
    kProgramTargetLevel_None      = 0,
    kProgramTargetLevel_Minus31dB = 1,
    kProgramTargetLevel_Minus23dB = 2,
    kProgramTargetLevel_Minus20dB = 3
};

/* Values of kAudioCodecPropertyDynamicRangeControlMode. */
enum {
    kDynamicRangeControlMode_None  = 0,
    kDynamicRangeControlMode_Light = 1,
    kDynamicRangeControlMode_Heavy = 2
};

/* The value of kAudioCodecPropertyPrimeInfo: frames before and after the audio. */
typedef struct AudioCodecPrimeInfo {
    UInt32 leadingFrames;
    UInt32 trailingFrames;
} AudioCodecPrimeInfo;

/* Keys of the dictionary kAudioCodecPropertySettings gives (CFSTR() them). */
#define kAudioSettings_TopLevelKey     "name"
#define kAudioSettings_Version         "version"
#define kAudioSettings_Parameters      "parameters"
#define kAudioSettings_SettingKey      "key"
#define kAudioSettings_SettingName     "name"
#define kAudioSettings_ValueType       "value type"
#define kAudioSettings_AvailableValues "available values"
#define kAudioSettings_LimitedValues   "limited values"
#define kAudioSettings_CurrentValue    "current value"
#define kAudioSettings_Summary         "summary"
#define kAudioSettings_Hint            "hint"
#define kAudioSettings_Unit            "unit"

/* Flags of one setting in that dictionary. */
typedef UInt32 AudioSettingsFlags;
enum {
    kAudioSettingsFlags_ExpertParameter        = (1U << 0),
    kAudioSettingsFlags_InvisibleParameter     = (1U << 1),
    kAudioSettingsFlags_MetaParameter          = (1U << 2),
    kAudioSettingsFlags_UserInterfaceParameter = (1U << 3)
};

/* What a codec's produce-output call reports. */
enum {
    kAudioCodecProduceOutputPacketFailure            = 1,
    kAudioCodecProduceOutputPacketSuccess            = 2,
    kAudioCodecProduceOutputPacketSuccessHasMore     = 3,
    kAudioCodecProduceOutputPacketNeedsMoreInputData = 4,
    kAudioCodecProduceOutputPacketAtEOF              = 5
};

/* Component selectors of the codec calls. */
enum {
    kAudioCodecGetPropertyInfoSelect         = 0x0001,
    kAudioCodecGetPropertySelect             = 0x0002,
    kAudioCodecSetPropertySelect             = 0x0003,
    kAudioCodecInitializeSelect              = 0x0004,
    kAudioCodecUninitializeSelect            = 0x0005,
    kAudioCodecAppendInputDataSelect         = 0x0006,
    kAudioCodecProduceOutputDataSelect       = 0x0007,
    kAudioCodecResetSelect                   = 0x0008,
    kAudioCodecAppendInputBufferListSelect   = 0x0009,
    kAudioCodecProduceOutputBufferListSelect = 0x000A
};

/* Result codes of the codec calls. */
enum {
    kAudioCodecNoError                   = 0,
    kAudioCodecUnspecifiedError          = (SInt32)AT_FOURCC('w','h','a','t'),
    kAudioCodecUnknownPropertyError      = (SInt32)AT_FOURCC('w','h','o','?'),
    kAudioCodecBadPropertySizeError      = (SInt32)AT_FOURCC('!','s','i','z'),
    kAudioCodecIllegalOperationError     = (SInt32)AT_FOURCC('n','o','p','e'),
    kAudioCodecUnsupportedFormatError    = (SInt32)AT_FOURCC('!','d','a','t'),
    kAudioCodecStateError                = (SInt32)AT_FOURCC('!','s','t','t'),
    kAudioCodecNotEnoughBufferSpaceError = (SInt32)AT_FOURCC('!','b','u','f')
};

/* Older names, still in the SDK. */
enum {
    kAudioCodecPropertyMinimumDelayMode    = AT_FOURCC('m','d','e','l'),
    kAudioCodecPropertyNameCFString         = AT_FOURCC('l','n','a','m'),
    kAudioCodecPropertyManufacturerCFString = AT_FOURCC('l','m','a','k'),
    kAudioCodecPropertyFormatCFString       = AT_FOURCC('l','f','o','r'),
    kAudioCodecPropertyRequiresPacketDescription = AT_FOURCC('p','a','k','d'),
    kAudioCodecPropertyAvailableBitRates    = AT_FOURCC('b','r','t','#'),
    kAudioCodecExtendFrequencies            = AT_FOURCC('a','c','e','f'),
    kAudioCodecUseRecommendedSampleRate     = AT_FOURCC('u','r','s','r'),
    kAudioCodecOutputPrecedence             = AT_FOURCC('o','p','p','r'),
    kAudioCodecBitRateFormat                = kAudioCodecPropertyBitRateControlMode,
    kAudioCodecDoesSampleRateConversion     = kAudioCodecPropertyDoesSampleRateConversion,
    kAudioCodecInputFormatsForOutputFormat  = kAudioCodecPropertyInputFormatsForOutputFormat,
    kAudioCodecOutputFormatsForInputFormat  = kAudioCodecPropertyOutputFormatsForInputFormat,
    kAudioCodecPropertyInputChannelLayout   = kAudioCodecPropertyCurrentInputChannelLayout,
    kAudioCodecPropertyOutputChannelLayout  = kAudioCodecPropertyCurrentOutputChannelLayout,
    kAudioCodecPropertyAvailableInputChannelLayouts  = kAudioCodecPropertyAvailableInputChannelLayoutTags,
    kAudioCodecPropertyAvailableOutputChannelLayouts = kAudioCodecPropertyAvailableOutputChannelLayoutTags,
    kAudioCodecPropertyZeroFramesPadded     = kAudioCodecPropertyPaddedZeros
};
enum {
    kAudioCodecBitRateFormat_CBR = kAudioCodecBitRateControlMode_Constant,
    kAudioCodecBitRateFormat_ABR = kAudioCodecBitRateControlMode_LongTermAverage,
    kAudioCodecBitRateFormat_VBR = kAudioCodecBitRateControlMode_VariableConstrained
};
enum {
    kAudioCodecOutputPrecedenceNone       = 0,
    kAudioCodecOutputPrecedenceBitRate    = 1,
    kAudioCodecOutputPrecedenceSampleRate = 2
};
/* How prominently a setting of kAudioCodecPropertySettings is meant to be shown. */
enum {
    kHintBasic    = 0,
    kHintAdvanced = 1,
    kHintHidden   = 2
};

#ifdef __cplusplus
}
#endif
#endif /* AudioUnit_AudioCodec_h */
