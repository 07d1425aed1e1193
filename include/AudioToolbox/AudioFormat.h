/*
 * AudioToolbox for Linux — <AudioToolbox/AudioFormat.h>.
 *
 * Questions about formats rather than about a file or a stream: the name and details
 * of a format, which encoders and decoders exist, what channel layouts mean and how to
 * map, pan or fade between them, and ID3 tags. Names, values, layouts and signatures
 * are the iPhone SDK's (iOS 7).
 */
#ifndef __AudioFormat_h__
#define __AudioFormat_h__

#include <CoreAudio/CoreAudioTypes.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef UInt32 AudioFormatPropertyID;

/* ---- panning and balance ---------------------------------------------------------- */

/* AudioPanningInfo.mPanningMode. */
enum {
    kPanningMode_SoundField         = 3,
    kPanningMode_VectorBasedPanning = 4
};

/* Specifier of kAudioFormatProperty_PanningMatrix: where a mono source sits, and the
 * layout of the speakers it is panned to. */
struct AudioPanningInfo {
    UInt32                    mPanningMode;
    UInt32                    mCoordinateFlags;   /* kAudioChannelFlags_* */
    Float32                   mCoordinates[3];
    Float32                   mGainScale;
    const AudioChannelLayout *mOutputChannelMap;
};
typedef struct AudioPanningInfo AudioPanningInfo;

/* AudioBalanceFade.mType: gains never above 1, or constant total power. */
enum {
    kAudioBalanceFadeType_MaxUnityGain = 0,
    kAudioBalanceFadeType_EqualPower   = 1
};

/* Specifier of kAudioFormatProperty_BalanceFade. */
struct AudioBalanceFade {
    Float32                   mLeftRightBalance;  /* -1 all left, 0 centred, +1 all right */
    Float32                   mBackFrontFade;     /* -1 all rear, 0 centred, +1 all front */
    UInt32                    mType;
    const AudioChannelLayout *mChannelLayout;
};
typedef struct AudioBalanceFade AudioBalanceFade;

/* ---- format descriptions ---------------------------------------------------------- */

/* A format together with its magic cookie (the codec's setup bytes, may be absent). */
struct AudioFormatInfo {
    AudioStreamBasicDescription mASBD;
    const void                 *mMagicCookie;
    UInt32                      mMagicCookieSize;
};
typedef struct AudioFormatInfo AudioFormatInfo;

/* The same, naming the codec to ask. */
struct ExtendedAudioFormatInfo {
    AudioStreamBasicDescription mASBD;
    const void                 *mMagicCookie;
    UInt32                      mMagicCookieSize;
    AudioClassDescription       mClassDescription;
};
typedef struct ExtendedAudioFormatInfo ExtendedAudioFormatInfo;

/* One entry of a format list (files, streams and converters report these). */
struct AudioFormatListItem {
    AudioStreamBasicDescription mASBD;
    AudioChannelLayoutTag       mChannelLayoutTag;
};
typedef struct AudioFormatListItem AudioFormatListItem;

/* ---- properties ------------------------------------------------------------------- */

/* What AudioFormatGetProperty can answer; the comment names the specifier, then the
 * value (a format list is an array of AudioFormatListItem). */
enum {
    kAudioFormatProperty_FormatInfo                       = 0x666D7469, /* 'fmti' cookie -> ASBD (filled in) */
    kAudioFormatProperty_FormatName                       = 0x666E616D, /* 'fnam' ASBD -> CFStringRef */
    kAudioFormatProperty_EncodeFormatIDs                  = 0x61636F66, /* 'acof' none -> UInt32 array */
    kAudioFormatProperty_DecodeFormatIDs                  = 0x61636966, /* 'acif' none -> UInt32 array */
    kAudioFormatProperty_FormatList                       = 0x666C7374, /* 'flst' AudioFormatInfo -> format list */
    kAudioFormatProperty_ASBDFromESDS                     = 0x65737364, /* 'essd' ESDS -> ASBD */
    kAudioFormatProperty_ChannelLayoutFromESDS            = 0x6573636C, /* 'escl' ESDS -> AudioChannelLayout */
    kAudioFormatProperty_OutputFormatList                 = 0x6F666C73, /* 'ofls' AudioFormatInfo -> format list */
    kAudioFormatProperty_FirstPlayableFormatFromList      = 0x6670666C, /* 'fpfl' format list -> UInt32 index */
    kAudioFormatProperty_FormatIsVBR                      = 0x66766272, /* 'fvbr' ASBD -> UInt32 */
    kAudioFormatProperty_FormatIsExternallyFramed         = 0x66657866, /* 'fexf' ASBD -> UInt32 */
    kAudioFormatProperty_FormatIsEncrypted                = 0x63727970, /* 'cryp' format ID -> UInt32 */
    kAudioFormatProperty_Encoders                         = 0x6176656E, /* 'aven' format ID -> AudioClassDescriptions */
    kAudioFormatProperty_Decoders                         = 0x61766465, /* 'avde' format ID -> AudioClassDescriptions */
    kAudioFormatProperty_AvailableEncodeBitRates          = 0x61656272, /* 'aebr' format ID -> AudioValueRanges */
    kAudioFormatProperty_AvailableEncodeSampleRates       = 0x61657372, /* 'aesr' format ID -> AudioValueRanges */
    kAudioFormatProperty_AvailableEncodeChannelLayoutTags = 0x6165636C, /* 'aecl' ASBD -> layout tags */
    kAudioFormatProperty_AvailableEncodeNumberChannels    = 0x61766E63, /* 'avnc' ASBD -> UInt32 array */
    kAudioFormatProperty_ASBDFromMPEGPacket               = 0x61646D70, /* 'admp' packet -> ASBD */
    kAudioFormatProperty_BitmapForLayoutTag               = 0x626D7467, /* 'bmtg' tag -> UInt32 bitmap */
    kAudioFormatProperty_MatrixMixMap                     = 0x6D6D6170, /* 'mmap' two layouts -> Float32 matrix */
    kAudioFormatProperty_ChannelMap                       = 0x63686D70, /* 'chmp' two layouts -> SInt32 array */
    kAudioFormatProperty_NumberOfChannelsForLayout        = 0x6E63686D, /* 'nchm' layout -> UInt32 */
    kAudioFormatProperty_AreChannelLayoutsEquivalent      = 0x63686571, /* 'cheq' two layouts -> UInt32 */
    kAudioFormatProperty_ValidateChannelLayout            = 0x7661636C, /* 'vacl' layout -> nothing (the result says) */
    kAudioFormatProperty_ChannelLayoutForTag              = 0x636D706C, /* 'cmpl' tag -> AudioChannelLayout */
    kAudioFormatProperty_TagForChannelLayout              = 0x636D7074, /* 'cmpt' layout -> tag */
    kAudioFormatProperty_ChannelLayoutName                = 0x6C6F6E6D, /* 'lonm' layout -> CFStringRef */
    kAudioFormatProperty_ChannelLayoutSimpleName          = 0x6C736E6D, /* 'lsnm' layout -> CFStringRef */
    kAudioFormatProperty_ChannelLayoutForBitmap           = 0x636D7062, /* 'cmpb' UInt32 bitmap -> AudioChannelLayout */
    kAudioFormatProperty_ChannelName                      = 0x636E616D, /* 'cnam' channel description -> CFStringRef */
    kAudioFormatProperty_ChannelShortName                 = 0x63736E6D, /* 'csnm' channel description -> CFStringRef */
    kAudioFormatProperty_TagsForNumberOfChannels          = 0x74616763, /* 'tagc' UInt32 count -> tag array */
    kAudioFormatProperty_PanningMatrix                    = 0x70616E6D, /* 'panm' AudioPanningInfo -> Float32 array */
    kAudioFormatProperty_BalanceFade                      = 0x62616C66, /* 'balf' AudioBalanceFade -> Float32 array */
    kAudioFormatProperty_ID3TagSize                       = 0x69643373, /* 'id3s' tag header -> UInt32 */
    kAudioFormatProperty_ID3TagToDictionary               = 0x69643364  /* 'id3d' tag -> CFDictionaryRef */
};

#if TARGET_OS_IPHONE
/* The phone's only: how many of the codecs described in the specifier (an
 * AudioClassDescription array) can be used together, in order (UInt32). */
enum {
    kAudioFormatProperty_HardwareCodecCapabilities = 0x68776363  /* 'hwcc' */
};

/* The phone's only, in this header: codec component types and the two manufacturers
 * that tell the software codecs from the hardware ones. */
enum {
    kAudioDecoderComponentType           = 0x61646563, /* 'adec' */
    kAudioEncoderComponentType           = 0x61656E63, /* 'aenc' */
    kAppleSoftwareAudioCodecManufacturer = 0x6170706C, /* 'appl' */
    kAppleHardwareAudioCodecManufacturer = 0x61706877  /* 'aphw' */
};
#endif

/* ---- functions -------------------------------------------------------------------- */

/* The size of a property's value for this specifier. */
extern OSStatus AudioFormatGetPropertyInfo(AudioFormatPropertyID inPropertyID, UInt32 inSpecifierSize,
                                           const void *inSpecifier, UInt32 *outPropertyDataSize);

/* The value itself; with outPropertyData NULL, only the size it would have. */
extern OSStatus AudioFormatGetProperty(AudioFormatPropertyID inPropertyID, UInt32 inSpecifierSize,
                                       const void *inSpecifier, UInt32 *ioPropertyDataSize,
                                       void *outPropertyData);

/* ---- result codes ----------------------------------------------------------------- */

enum {
    kAudioFormatUnspecifiedError           = 0x77686174, /* 'what' */
    kAudioFormatUnsupportedPropertyError   = 0x70726F70, /* 'prop' */
    kAudioFormatBadPropertySizeError       = 0x2173697A, /* '!siz' */
    kAudioFormatBadSpecifierSizeError      = 0x21737063, /* '!spc' */
    kAudioFormatUnsupportedDataFormatError = 0x666D743F, /* 'fmt?' */
    kAudioFormatUnknownFormatError         = 0x21666D74  /* '!fmt' */
};

#ifdef __cplusplus
}
#endif
#endif /* __AudioFormat_h__ */
