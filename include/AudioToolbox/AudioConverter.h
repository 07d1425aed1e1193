/*
 * AudioToolbox for Linux — <AudioToolbox/AudioConverter.h>.
 *
 * Converters between two stream formats: linear PCM to linear PCM (sample rate, bit
 * depth, byte order, channel count and order, interleaving) and to or from the encoded
 * formats. Names, values and signatures are the iPhone SDK's (iOS 7); the Mac's
 * AudioConverterFillBuffer and dithering settings are not declared.
 */
#ifndef __AudioConverter_h__
#define __AudioConverter_h__

#include <CoreAudio/CoreAudioTypes.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct OpaqueAudioConverter *AudioConverterRef;
typedef UInt32 AudioConverterPropertyID;

/* ---- properties ------------------------------------------------------------------- */

/* A converter's properties. Each comment gives the value's type. */
enum {
    kAudioConverterPropertyMinimumInputBufferSize    = 0x6D696273, /* 'mibs' UInt32 bytes */
    kAudioConverterPropertyMinimumOutputBufferSize   = 0x6D6F6273, /* 'mobs' UInt32 bytes */
    kAudioConverterPropertyMaximumInputBufferSize    = 0x78696273, /* 'xibs' UInt32 (obsolete) */
    kAudioConverterPropertyMaximumInputPacketSize    = 0x78697073, /* 'xips' UInt32 bytes */
    kAudioConverterPropertyMaximumOutputPacketSize   = 0x786F7073, /* 'xops' UInt32 bytes */
    kAudioConverterPropertyCalculateInputBufferSize  = 0x63696273, /* 'cibs' UInt32 in and out */
    kAudioConverterPropertyCalculateOutputBufferSize = 0x636F6273, /* 'cobs' UInt32 in and out */
    kAudioConverterPropertyInputCodecParameters      = 0x69636470, /* 'icdp' bytes */
    kAudioConverterPropertyOutputCodecParameters     = 0x6F636470, /* 'ocdp' bytes */
    kAudioConverterSampleRateConverterAlgorithm      = 0x73726369, /* 'srci' obsolete: use ...Complexity */
    kAudioConverterSampleRateConverterComplexity     = 0x73726361, /* 'srca' OSType */
    kAudioConverterSampleRateConverterQuality        = 0x73726371, /* 'srcq' UInt32 */
    kAudioConverterSampleRateConverterInitialPhase   = 0x73726370, /* 'srcp' Float64 */
    kAudioConverterCodecQuality                      = 0x63647175, /* 'cdqu' UInt32 */
    kAudioConverterPrimeMethod                       = 0x70726D6D, /* 'prmm' UInt32 */
    kAudioConverterPrimeInfo                         = 0x7072696D, /* 'prim' AudioConverterPrimeInfo */
    kAudioConverterChannelMap                        = 0x63686D70, /* 'chmp' SInt32 array */
    kAudioConverterDecompressionMagicCookie          = 0x646D6763, /* 'dmgc' bytes */
    kAudioConverterCompressionMagicCookie            = 0x636D6763, /* 'cmgc' bytes */
    kAudioConverterEncodeBitRate                     = 0x62726174, /* 'brat' UInt32 bits per second */
    kAudioConverterEncodeAdjustableSampleRate        = 0x616A7372, /* 'ajsr' Float64 */
    kAudioConverterInputChannelLayout                = 0x69636C20, /* 'icl ' AudioChannelLayout */
    kAudioConverterOutputChannelLayout               = 0x6F636C20, /* 'ocl ' AudioChannelLayout */
    kAudioConverterApplicableEncodeBitRates          = 0x61656272, /* 'aebr' AudioValueRange array */
    kAudioConverterAvailableEncodeBitRates           = 0x76656272, /* 'vebr' AudioValueRange array */
    kAudioConverterApplicableEncodeSampleRates       = 0x61657372, /* 'aesr' AudioValueRange array */
    kAudioConverterAvailableEncodeSampleRates        = 0x76657372, /* 'vesr' AudioValueRange array */
    kAudioConverterAvailableEncodeChannelLayoutTags  = 0x6165636C, /* 'aecl' AudioChannelLayoutTag array */
    kAudioConverterCurrentOutputStreamDescription    = 0x61636F64, /* 'acod' AudioStreamBasicDescription */
    kAudioConverterCurrentInputStreamDescription     = 0x61636964, /* 'acid' AudioStreamBasicDescription */
    kAudioConverterPropertySettings                  = 0x61637073, /* 'acps' CFArrayRef */
    kAudioConverterPropertyBitDepthHint              = 0x61636264, /* 'acbd' SInt32 */
    kAudioConverterPropertyFormatList                = 0x666C7374  /* 'flst' AudioFormatListItem array */
};

#if TARGET_OS_IPHONE
/* The phone's only: whether the converter (a hardware codec) survives an audio
 * interruption (UInt32, read-only). */
enum {
    kAudioConverterPropertyCanResumeFromInterruption = 0x63726669  /* 'crfi' */
};
#endif

/* ---- quality, complexity and priming ---------------------------------------------- */

/* kAudioConverterSampleRateConverterQuality and kAudioConverterCodecQuality. */
enum {
    kAudioConverterQuality_Max    = 0x7F,
    kAudioConverterQuality_High   = 0x60,
    kAudioConverterQuality_Medium = 0x40,
    kAudioConverterQuality_Low    = 0x20,
    kAudioConverterQuality_Min    = 0
};

/* kAudioConverterSampleRateConverterComplexity (Normal is the default). */
enum {
    kAudioConverterSampleRateConverterComplexity_Linear    = 0x6C696E65, /* 'line' */
    kAudioConverterSampleRateConverterComplexity_Normal    = 0x6E6F726D, /* 'norm' */
    kAudioConverterSampleRateConverterComplexity_Mastering = 0x62617473  /* 'bats' */
};

/* kAudioConverterPrimeMethod: how much extra input the first conversion asks for, to
 * fill the converter's look-ahead (Normal is the default). */
enum {
    kConverterPrimeMethod_Pre    = 0,
    kConverterPrimeMethod_Normal = 1,
    kConverterPrimeMethod_None   = 2
};

/* kAudioConverterPrimeInfo: frames of look-ahead before and after the input. */
struct AudioConverterPrimeInfo {
    UInt32 leadingFrames;
    UInt32 trailingFrames;
};
typedef struct AudioConverterPrimeInfo AudioConverterPrimeInfo;

/* ---- result codes ----------------------------------------------------------------- */

enum {
    kAudioConverterErr_FormatNotSupported              = 0x666D743F, /* 'fmt?' */
    kAudioConverterErr_OperationNotSupported           = 0x6F703F3F, /* 'op??' */
    kAudioConverterErr_PropertyNotSupported            = 0x70726F70, /* 'prop' */
    kAudioConverterErr_InvalidInputSize                = 0x696E737A, /* 'insz' */
    kAudioConverterErr_InvalidOutputSize               = 0x6F74737A, /* 'otsz' */
    kAudioConverterErr_UnspecifiedError                = 0x77686174, /* 'what' */
    kAudioConverterErr_BadPropertySizeError            = 0x2173697A, /* '!siz' */
    kAudioConverterErr_RequiresPacketDescriptionsError = 0x21706B64, /* '!pkd' */
    kAudioConverterErr_InputSampleRateOutOfRange       = 0x21697372, /* '!isr' */
    kAudioConverterErr_OutputSampleRateOutOfRange      = 0x216F7372  /* '!osr' */
};

#if TARGET_OS_IPHONE
/* The phone's only: the hardware codec is taken, or the program may not use it. */
enum {
    kAudioConverterErr_HardwareInUse        = 0x68776975, /* 'hwiu' */
    kAudioConverterErr_NoHardwarePermission = 0x7065726D  /* 'perm' */
};
#endif

/* ---- making and setting up converters --------------------------------------------- */

extern OSStatus AudioConverterNew(const AudioStreamBasicDescription *inSourceFormat,
                                  const AudioStreamBasicDescription *inDestinationFormat,
                                  AudioConverterRef *outAudioConverter);

/* As AudioConverterNew, choosing among the codecs described in inClassDescriptions. */
extern OSStatus AudioConverterNewSpecific(const AudioStreamBasicDescription *inSourceFormat,
                                          const AudioStreamBasicDescription *inDestinationFormat,
                                          UInt32 inNumberClassDescriptions,
                                          const AudioClassDescription *inClassDescriptions,
                                          AudioConverterRef *outAudioConverter);

extern OSStatus AudioConverterDispose(AudioConverterRef inAudioConverter);

/* Forgets buffered data, as at a discontinuity in the input. */
extern OSStatus AudioConverterReset(AudioConverterRef inAudioConverter);

/* Either out pointer may be NULL. */
extern OSStatus AudioConverterGetPropertyInfo(AudioConverterRef inAudioConverter,
                                              AudioConverterPropertyID inPropertyID, UInt32 *outSize,
                                              Boolean *outWritable);

extern OSStatus AudioConverterGetProperty(AudioConverterRef inAudioConverter, AudioConverterPropertyID inPropertyID,
                                          UInt32 *ioPropertyDataSize, void *outPropertyData);

extern OSStatus AudioConverterSetProperty(AudioConverterRef inAudioConverter, AudioConverterPropertyID inPropertyID,
                                          UInt32 inPropertyDataSize, const void *inPropertyData);

/* ---- converting ------------------------------------------------------------------- */

/* The input callback of the Mac's AudioConverterFillBuffer; kept for source
 * compatibility, though no call here takes it. */
typedef OSStatus (*AudioConverterInputDataProc)(AudioConverterRef inAudioConverter, UInt32 *ioDataSize,
                                                void **outData, void *inUserData);

/* Converts one buffer in one go; only for conversions whose output size follows from
 * the input size (linear PCM to linear PCM at the same sample rate). */
extern OSStatus AudioConverterConvertBuffer(AudioConverterRef inAudioConverter, UInt32 inInputDataSize,
                                            const void *inInputData, UInt32 *ioOutputDataSize,
                                            void *outOutputData);

/* Supplies input to AudioConverterFillComplexBuffer. *ioNumberDataPackets comes in as
 * the least the converter wants and goes out as the number supplied (0: no more input).
 * ioData's buffers are pointed at the data, which must stay valid until the next call;
 * when outDataPacketDescription is not NULL, *outDataPacketDescription is pointed at
 * one description per packet. An error returned with 0 packets ends the fill, which
 * then returns what it produced together with that error. */
typedef OSStatus (*AudioConverterComplexInputDataProc)(AudioConverterRef inAudioConverter,
                                                       UInt32 *ioNumberDataPackets, AudioBufferList *ioData,
                                                       AudioStreamPacketDescription **outDataPacketDescription,
                                                       void *inUserData);

/* Fills outOutputData with up to *ioOutputDataPacketSize packets, pulling input from
 * inInputDataProc as needed; *ioOutputDataPacketSize comes back as the packets made. */
extern OSStatus AudioConverterFillComplexBuffer(AudioConverterRef inAudioConverter,
                                                AudioConverterComplexInputDataProc inInputDataProc,
                                                void *inInputDataProcUserData, UInt32 *ioOutputDataPacketSize,
                                                AudioBufferList *outOutputData,
                                                AudioStreamPacketDescription *outPacketDescription);

/* Converts inNumberPCMFrames frames between buffer lists in one go; linear PCM only,
 * at the same sample rate. */
extern OSStatus AudioConverterConvertComplexBuffer(AudioConverterRef inAudioConverter, UInt32 inNumberPCMFrames,
                                                   const AudioBufferList *inInputData,
                                                   AudioBufferList *outOutputData);

#ifdef __cplusplus
}
#endif
#endif /* __AudioConverter_h__ */
