/*
 * AudioToolbox for Linux — <AudioUnit/AudioUnitProperties.h>.
 *
 * Scopes, property IDs and the structures properties take. Names, values and layouts
 * are the iPhone SDK's (iOS 7). Which properties each unit here answers, and with which
 * result code it refuses the others: docs/API.md, "Audio units".
 */
#ifndef __AudioUnitProperties
#define __AudioUnitProperties

#include <AudioUnit/AUComponent.h>
#include <CoreAudio/CoreAudioTypes.h>
#include <CoreFoundation/CFURL.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Scopes. An I/O unit's element 0 is its output (speaker) side, element 1 its input
 * (microphone) side; the program's side is element 0's input scope and element 1's
 * output scope. */
enum {
    kAudioUnitScope_Global    = 0,
    kAudioUnitScope_Input     = 1,
    kAudioUnitScope_Output    = 2,
    kAudioUnitScope_Group     = 3,
    kAudioUnitScope_Part      = 4,
    kAudioUnitScope_Note      = 5,
    kAudioUnitScope_Layer     = 6,
    kAudioUnitScope_LayerItem = 7
};

/* Properties every unit may have. */
enum {
    kAudioUnitProperty_ClassInfo                  = 0,
    kAudioUnitProperty_MakeConnection             = 1,
    kAudioUnitProperty_SampleRate                 = 2,
    kAudioUnitProperty_ParameterList              = 3,
    kAudioUnitProperty_ParameterInfo              = 4,
    kAudioUnitProperty_CPULoad                    = 6,
    kAudioUnitProperty_StreamFormat               = 8,
    kAudioUnitProperty_ElementCount               = 11,
    kAudioUnitProperty_Latency                    = 12,
    kAudioUnitProperty_SupportedNumChannels       = 13,
    kAudioUnitProperty_MaximumFramesPerSlice      = 14,
    kAudioUnitProperty_ParameterValueStrings      = 16,
    kAudioUnitProperty_AudioChannelLayout         = 19,
    kAudioUnitProperty_TailTime                   = 20,
    kAudioUnitProperty_BypassEffect               = 21,
    kAudioUnitProperty_LastRenderError            = 22,
    kAudioUnitProperty_SetRenderCallback          = 23,
    kAudioUnitProperty_FactoryPresets             = 24,
    kAudioUnitProperty_RenderQuality              = 26,
    kAudioUnitProperty_HostCallbacks              = 27,
    kAudioUnitProperty_InPlaceProcessing          = 29,
    kAudioUnitProperty_ElementName                = 30,
    kAudioUnitProperty_SupportedChannelLayoutTags = 32,
    kAudioUnitProperty_PresentPreset              = 36,
    kAudioUnitProperty_OfflineRender              = 37,
    kAudioUnitProperty_DependentParameters        = 45,
    kAudioUnitProperty_InputSamplesInOutput       = 49,
    kAudioUnitProperty_ShouldAllocateBuffer       = 51,
    kAudioUnitProperty_FrequencyResponse          = 52,
    kAudioUnitProperty_ParameterHistoryInfo       = 53,
    kAudioUnitProperty_NickName                   = 54
};
#if TARGET_OS_IPHONE
enum {
    kAudioUnitProperty_RemoteControlEventListener = 100,
    kAudioUnitProperty_IsInterAppConnected        = 101,
    kAudioUnitProperty_PeerURL                    = 102
};
#endif

/* Properties of output (I/O) units. */
enum {
    kAudioOutputUnitProperty_CurrentDevice          = 2000,
    kAudioOutputUnitProperty_IsRunning              = 2001,
    kAudioOutputUnitProperty_ChannelMap             = 2002,
    kAudioOutputUnitProperty_EnableIO               = 2003,
    kAudioOutputUnitProperty_StartTime              = 2004,
    kAudioOutputUnitProperty_SetInputCallback       = 2005,
    kAudioOutputUnitProperty_HasIO                  = 2006,
    kAudioOutputUnitProperty_StartTimestampsAtZero  = 2007
};
#if TARGET_OS_IPHONE
enum {
    kAudioOutputUnitProperty_MIDICallbacks                   = 2010,
    kAudioOutputUnitProperty_HostReceivesRemoteControlEvents = 2011,
    kAudioOutputUnitProperty_RemoteControlToHost             = 2012,
    kAudioOutputUnitProperty_HostTransportState              = 2013,
    kAudioOutputUnitProperty_NodeComponentDescription        = 2014
};
#endif

/* Properties of VoiceProcessingIO. */
enum {
    kAUVoiceIOProperty_BypassVoiceProcessing   = 2100,
    kAUVoiceIOProperty_VoiceProcessingEnableAGC = 2101,
#if TARGET_OS_IPHONE
    kAUVoiceIOProperty_DuckNonVoiceAudio       = 2102,
#endif
    kAUVoiceIOProperty_VoiceProcessingQuality  = 2103,
    kAUVoiceIOProperty_MuteOutput              = 2104
};

/* AUNBandEQ (global scope): the bands in use (UInt32, 1 to the maximum, settable while
 * uninitialized; 2 at first), the most it can have (16 here), and five Float64 a band in
 * use (b0, b1, b2, a1, a2, with a0 = 1) for drawing its response. */
enum {
    kAUNBandEQProperty_NumberOfBands      = 2200,
    kAUNBandEQProperty_MaxNumberOfBands   = 2201,
    kAUNBandEQProperty_BiquadCoefficients = 2203
};

/* AUSampler (global scope, write-only): what it plays. LoadInstrument takes an
 * AUSamplerInstrumentData: a SoundFont 2 preset (kInstrumentType_SF2Preset; DLS banks
 * are not read here: kAudioUnitErr_InvalidFile), an .aupreset file (_AUPreset) or one
 * audio file (_Audiofile); LoadPresetFromBank an AUSamplerBankPresetData (a SoundFont
 * preset); LoadAudioFiles a CFArrayRef of file CFURLRefs, each sounding as recorded at
 * its root key (a WAVE 'smpl' or AIFF 'INST' chunk's, else 60). A missing file answers
 * fnfErr (-43), one that cannot be read kAudioUnitErr_InvalidFile, a preset the font
 * lacks kAudioUnitErr_InvalidPropertyValue; the sampler keeps what it had. */
enum {
    kAUSamplerProperty_LoadPresetFromBank = 4100,
    kAUSamplerProperty_BankAndPreset      = kAUSamplerProperty_LoadPresetFromBank,
    kAUSamplerProperty_LoadAudioFiles     = 4101,
    kAUSamplerProperty_LoadInstrument     = 4102
};

typedef struct AUSamplerInstrumentData {
    CFURLRef fileURL;
    UInt8    instrumentType;
    UInt8    bankMSB;
    UInt8    bankLSB;
    UInt8    presetID;
} AUSamplerInstrumentData;

typedef struct AUSamplerBankPresetData {
    CFURLRef bankURL;
    UInt8    bankMSB;
    UInt8    bankLSB;
    UInt8    presetID;
    UInt8    reserved;
} AUSamplerBankPresetData;

enum {
    kInstrumentType_DLSPreset = 1,
    kInstrumentType_SF2Preset = kInstrumentType_DLSPreset,
    kInstrumentType_AUPreset  = 2,
    kInstrumentType_Audiofile = 3,
    kInstrumentType_EXS24     = 4
};

/* The bank MSBs of a SoundFont's melodic presets (bank 0, plus the LSB) and of its
 * percussion (bank 128). */
enum {
    kAUSampler_DefaultPercussionBankMSB = 0x78,
    kAUSampler_DefaultMelodicBankMSB    = 0x79,
    kAUSampler_DefaultBankLSB           = 0x00
};

/* The scheduled sound player (slices of the program's buffers) and the file player
 * (regions of files), global scope. A slice's or region's time is a sample time on the
 * player's timeline, which starts at ScheduleStartTimeStamp (a sample time of the
 * renders that pull the unit; -1: the next render); CurrentPlayTime reads where the
 * timeline is (-1 before it starts). The program keeps a slice or region structure
 * until it completes; completions are called on the player's own thread. A region names
 * a file given by ScheduledFileIDs (AudioFileIDs open for reading, 8 bytes each);
 * ScheduledFilePrime decodes what is scheduled ahead, now. AudioUnitReset unschedules
 * everything and forgets the start. */
enum {
    kAudioUnitProperty_ScheduleAudioSlice             = 3300,
    kAudioUnitProperty_ScheduleStartTimeStamp         = 3301,
    kAudioUnitProperty_CurrentPlayTime                = 3302,
    kAudioUnitProperty_ScheduledFileIDs               = 3310,
    kAudioUnitProperty_ScheduledFileRegion            = 3311,
    kAudioUnitProperty_ScheduledFilePrime             = 3312,
    kAudioUnitProperty_ScheduledFileBufferSizeFrames  = 3313,
    kAudioUnitProperty_ScheduledFileNumberBuffers     = 3314
};

/* A slice's flags, set by the player: it began (late: after its time), it completed. */
enum {
    kScheduledAudioSliceFlag_Complete          = 0x01,
    kScheduledAudioSliceFlag_BeganToRender     = 0x02,
    kScheduledAudioSliceFlag_BeganToRenderLate = 0x04
};

struct ScheduledAudioSlice;
typedef void (*ScheduledAudioSliceCompletionProc)(void *userData, struct ScheduledAudioSlice *bufferList);

typedef struct ScheduledAudioSlice {
    AudioTimeStamp                    mTimeStamp;
    ScheduledAudioSliceCompletionProc mCompletionProc;
    void                             *mCompletionProcUserData;
    UInt32                            mFlags;
    UInt32                            mReserved;
    void                             *mReserved2;
    UInt32                            mNumberFrames;
    AudioBufferList                  *mBufferList;
} ScheduledAudioSlice;

struct ScheduledAudioFileRegion;
typedef void (*ScheduledAudioFileRegionCompletionProc)(void *userData, struct ScheduledAudioFileRegion *fileRegion,
                                                       OSStatus result);

/* A region: the file, its first frame, how many frames, played once and then
 * mLoopCount more times. */
typedef struct ScheduledAudioFileRegion {
    AudioTimeStamp                         mTimeStamp;
    ScheduledAudioFileRegionCompletionProc mCompletionProc;
    void                                  *mCompletionProcUserData;
    struct OpaqueAudioFileID              *mAudioFile;
    UInt32                                 mLoopCount;
    SInt64                                 mStartFrame;
    UInt32                                 mFramesToPlay;
} ScheduledAudioFileRegion;

/* The keys of the dictionary kAudioUnitProperty_ClassInfo gives and takes, as .aupreset
 * files hold it. An effect's dictionary has the version (0), the component's type,
 * subtype and manufacturer, the preset's name and its parameters' values as data. */
#define kAUPresetVersionKey       "version"
#define kAUPresetTypeKey          "type"
#define kAUPresetSubtypeKey       "subtype"
#define kAUPresetManufacturerKey  "manufacturer"
#define kAUPresetDataKey          "data"
#define kAUPresetNameKey          "name"
#define kAUPresetRenderQualityKey "render-quality"
#define kAUPresetCPULoadKey       "cpu-load"
#define kAUPresetElementNameKey   "element-name"
#define kAUPresetExternalFileRefs "file-references"
#define kAUPresetVSTDataKey       "vstdata"
#define kAUPresetVSTPresetKey     "vstpreset"
#define kAUPresetMASDataKey       "masdata"
#define kAUPresetPartKey          "part"

/* Mixers: metering on (non-zero) or off for one bus (input scope) or an output bus.
 * The matrix mixer's, global scope, read only: MatrixLevels, its Float32 gains in (input
 * channels + 1) rows of (output channels + 1) (each row's last is the input's gain, the
 * last row the outputs', the last of all the master gain); MatrixDimensions, two UInt32
 * (the input and output channel counts). MeterClipping (an AudioUnitMeterClipping) is
 * declared; no unit here answers it. */
enum {
    kAudioUnitProperty_MatrixLevels     = 3006,
    kAudioUnitProperty_MeteringMode     = 3007,
    kAudioUnitProperty_MatrixDimensions = 3009,
    kAudioUnitProperty_MeterClipping    = 3011
};

/* The 3D mixer's properties, per input bus (input scope, the bus as the element) unless
 * said otherwise:
 * - SpatializationAlgorithm: a UInt32, one of kSpatializationAlgorithm_...; here every bus
 *   is placed by equal-power panning, whichever is named (the value is kept);
 * - 3DMixerDistanceParams: a MixerDistanceParams; 3DMixerAttenuationCurve: a UInt32, one
 *   of k3DMixerAttenuationCurve_...: together, how the distance parameter lowers the bus;
 * - 3DMixerRenderingFlags: a UInt32 of k3DMixerRenderingFlags_... bits (kept; distance
 *   attenuation is always on here);
 * - DopplerShift, 3DMixerDistanceAtten, ReverbRoomType, UsesInternalReverb (global) and
 *   ReverbPreset: declared for programs that set them; this mixer has no Doppler shift
 *   or reverb, and answers kAudioUnitErr_InvalidProperty.
 * docs/API.md gives the curves' formulas. */
enum {
    kAudioUnitProperty_ReverbRoomType            = 10,
    kAudioUnitProperty_UsesInternalReverb        = 1005,
    kAudioUnitProperty_SpatializationAlgorithm   = 3000,
    kAudioUnitProperty_DopplerShift              = 3002,
    kAudioUnitProperty_3DMixerRenderingFlags     = 3003,
    kAudioUnitProperty_3DMixerDistanceAtten      = 3004,
    kAudioUnitProperty_3DMixerDistanceParams     = 3010,
    kAudioUnitProperty_ReverbPreset              = 3012,
    kAudioUnitProperty_3DMixerAttenuationCurve   = 3013
};

enum {
    kSpatializationAlgorithm_EqualPowerPanning  = 0,
    kSpatializationAlgorithm_SphericalHead      = 1,
    kSpatializationAlgorithm_HRTF               = 2,
    kSpatializationAlgorithm_SoundField         = 3,
    kSpatializationAlgorithm_VectorBasedPanning = 4,
    kSpatializationAlgorithm_StereoPassThrough  = 5
};

enum {
    k3DMixerAttenuationCurve_Power       = 0,
    k3DMixerAttenuationCurve_Exponential = 1,
    k3DMixerAttenuationCurve_Inverse     = 2,
    k3DMixerAttenuationCurve_Linear      = 3
};

/* Distances in metres: below the reference distance nothing is lowered, beyond the
 * maximum nothing more; at most the maximum attenuation, in dB. */
typedef struct MixerDistanceParams {
    Float32 mReferenceDistance;
    Float32 mMaxDistance;
    Float32 mMaxAttenuation;
} MixerDistanceParams;

enum {
    k3DMixerRenderingFlags_InterAuralDelay           = 1,
    k3DMixerRenderingFlags_DopplerShift              = 2,
    k3DMixerRenderingFlags_DistanceAttenuation       = 4,
    k3DMixerRenderingFlags_DistanceFilter            = 8,
    k3DMixerRenderingFlags_DistanceDiffusion         = 16,
    k3DMixerRenderingFlags_LinearDistanceAttenuation = 32,
    k3DMixerRenderingFlags_ConstantReverbBlend       = 64
};

enum {
    kReverbRoomType_SmallRoom     = 0,
    kReverbRoomType_MediumRoom    = 1,
    kReverbRoomType_LargeRoom     = 2,
    kReverbRoomType_MediumHall    = 3,
    kReverbRoomType_LargeHall     = 4,
    kReverbRoomType_Plate         = 5,
    kReverbRoomType_MediumChamber = 6,
    kReverbRoomType_LargeChamber  = 7,
    kReverbRoomType_Cathedral     = 8,
    kReverbRoomType_LargeRoom2    = 9,
    kReverbRoomType_MediumHall2   = 10,
    kReverbRoomType_MediumHall3   = 11,
    kReverbRoomType_LargeHall2    = 12
};

/* The value of kAudioUnitProperty_MeterClipping: the highest sample seen since the last
 * read, and whether an infinity or a NaN went by. */
typedef struct AudioUnitMeterClipping {
    Float32 peakValueSinceLastCall;
    Boolean sawInfinity;
    Boolean sawNotANumber;
} AudioUnitMeterClipping;

/* AUConverter's resampling quality (global scope, UInt32): one of the
 * kAudioUnitSampleRateConverterComplexity_ codes, Normal by default. */
enum {
    kAudioUnitProperty_SampleRateConverterComplexity = 3014
};
enum {
    kAudioUnitSampleRateConverterComplexity_Linear    = AT_FOURCC('l','i','n','e'),
    kAudioUnitSampleRateConverterComplexity_Normal    = AT_FOURCC('n','o','r','m'),
    kAudioUnitSampleRateConverterComplexity_Mastering = AT_FOURCC('b','a','t','s')
};

/* Render quality. */
enum {
    kRenderQuality_Max    = 0x7F,
    kRenderQuality_High   = 0x60,
    kRenderQuality_Medium = 0x40,
    kRenderQuality_Low    = 0x20,
    kRenderQuality_Min    = 0
};

enum { kNumberOfResponseFrequencies = 1024 };

/* kAudioUnitProperty_SetRenderCallback and kAudioOutputUnitProperty_SetInputCallback. */
typedef struct AURenderCallbackStruct {
    AURenderCallback inputProc;
    void            *inputProcRefCon;
} AURenderCallbackStruct;

typedef struct AudioUnitConnection {
    AudioUnit sourceAudioUnit;
    UInt32    sourceOutputNumber;
    UInt32    destInputNumber;
} AudioUnitConnection;

/* kAudioUnitProperty_SupportedNumChannels: -1 means any. */
typedef struct AUChannelInfo {
    SInt16 inChannels;
    SInt16 outChannels;
} AUChannelInfo;

typedef struct AudioUnitExternalBuffer {
    Byte  *buffer;
    UInt32 size;
} AudioUnitExternalBuffer;

typedef struct AUPreset {
    SInt32      presetNumber;
    CFStringRef presetName;
} AUPreset;

typedef struct AudioUnitFrequencyResponseBin {
    Float64 mFrequency;
    Float64 mMagnitude;
} AudioUnitFrequencyResponseBin;

typedef struct AUDependentParameter {
    AudioUnitScope       mScope;
    AudioUnitParameterID mParameterID;
} AUDependentParameter;

typedef struct AUInputSamplesInOutputCallbackStruct {
    AUInputSamplesInOutputCallback inputToOutputCallback;
    void                          *userData;
} AUInputSamplesInOutputCallbackStruct;

typedef struct AudioUnitParameterHistoryInfo {
    Float32 updatesPerSecond;
    Float32 historyDurationInSeconds;
} AudioUnitParameterHistoryInfo;

/* kAudioOutputUnitProperty_StartTime. */
typedef struct AudioOutputUnitStartAtTimeParams {
    AudioTimeStamp mTimestamp;
    UInt32         mFlags;
} AudioOutputUnitStartAtTimeParams;

/* Parameter descriptions (kAudioUnitProperty_ParameterInfo). */
typedef UInt32 AudioUnitParameterUnit;
enum {
    kAudioUnitParameterUnit_Generic             = 0,
    kAudioUnitParameterUnit_Indexed             = 1,
    kAudioUnitParameterUnit_Boolean             = 2,
    kAudioUnitParameterUnit_Percent             = 3,
    kAudioUnitParameterUnit_Seconds             = 4,
    kAudioUnitParameterUnit_SampleFrames        = 5,
    kAudioUnitParameterUnit_Phase               = 6,
    kAudioUnitParameterUnit_Rate                = 7,
    kAudioUnitParameterUnit_Hertz               = 8,
    kAudioUnitParameterUnit_Cents               = 9,
    kAudioUnitParameterUnit_RelativeSemiTones   = 10,
    kAudioUnitParameterUnit_MIDINoteNumber      = 11,
    kAudioUnitParameterUnit_MIDIController      = 12,
    kAudioUnitParameterUnit_Decibels            = 13,
    kAudioUnitParameterUnit_LinearGain          = 14,
    kAudioUnitParameterUnit_Degrees             = 15,
    kAudioUnitParameterUnit_EqualPowerCrossfade = 16,
    kAudioUnitParameterUnit_MixerFaderCurve1    = 17,
    kAudioUnitParameterUnit_Pan                 = 18,
    kAudioUnitParameterUnit_Meters              = 19,
    kAudioUnitParameterUnit_AbsoluteCents       = 20,
    kAudioUnitParameterUnit_Octaves             = 21,
    kAudioUnitParameterUnit_BPM                 = 22,
    kAudioUnitParameterUnit_Beats               = 23,
    kAudioUnitParameterUnit_Milliseconds        = 24,
    kAudioUnitParameterUnit_Ratio               = 25,
    kAudioUnitParameterUnit_CustomUnit          = 26
};

typedef struct AudioUnitParameterInfo {
    char                    name[52];
    CFStringRef             unitName;
    UInt32                  clumpID;
    CFStringRef             cfNameString;
    AudioUnitParameterUnit  unit;
    AudioUnitParameterValue minValue;
    AudioUnitParameterValue maxValue;
    AudioUnitParameterValue defaultValue;
    UInt32                  flags;
} AudioUnitParameterInfo;

enum {
    kAudioUnitParameterFlag_CFNameRelease      = (1U << 4),
    kAudioUnitParameterFlag_PlotHistory        = (1U << 14),
    kAudioUnitParameterFlag_MeterReadOnly      = (1U << 15),
    kAudioUnitParameterFlag_DisplayMask        = (7U << 16) | (1U << 22),
    kAudioUnitParameterFlag_DisplaySquareRoot  = (1U << 16),
    kAudioUnitParameterFlag_DisplaySquared     = (2U << 16),
    kAudioUnitParameterFlag_DisplayCubed       = (3U << 16),
    kAudioUnitParameterFlag_DisplayCubeRoot    = (4U << 16),
    kAudioUnitParameterFlag_DisplayExponential = (5U << 16),
    kAudioUnitParameterFlag_HasClump           = (1U << 20),
    kAudioUnitParameterFlag_ValuesHaveStrings  = (1U << 21),
    kAudioUnitParameterFlag_DisplayLogarithmic = (1U << 22),
    kAudioUnitParameterFlag_IsHighResolution   = (1U << 23),
    kAudioUnitParameterFlag_NonRealTime        = (1U << 24),
    kAudioUnitParameterFlag_CanRamp            = (1U << 25),
    kAudioUnitParameterFlag_ExpertMode         = (1U << 26),
    kAudioUnitParameterFlag_HasCFNameString    = (1U << 27),
    kAudioUnitParameterFlag_IsGlobalMeta       = (1U << 28),
    kAudioUnitParameterFlag_IsElementMeta      = (1U << 29),
    kAudioUnitParameterFlag_IsReadable         = (1U << 30),
    kAudioUnitParameterFlag_IsWritable         = (SInt32)0x80000000U  /* bit 31, as an int */
};

enum { kAudioUnitClumpID_System = 0 };

#define GetAudioUnitParameterDisplayType(flags) ((flags) & kAudioUnitParameterFlag_DisplayMask)
#define SetAudioUnitParameterDisplayType(flags, displayType) \
    (((flags) & ~kAudioUnitParameterFlag_DisplayMask) | (displayType))
/* Whether a parameter's flags ask for that display curve. */
#define AudioUnitDisplayTypeIsLogarithmic(flags) \
    (GetAudioUnitParameterDisplayType(flags) == kAudioUnitParameterFlag_DisplayLogarithmic)
#define AudioUnitDisplayTypeIsSquareRoot(flags) \
    (GetAudioUnitParameterDisplayType(flags) == kAudioUnitParameterFlag_DisplaySquareRoot)
#define AudioUnitDisplayTypeIsSquared(flags) \
    (GetAudioUnitParameterDisplayType(flags) == kAudioUnitParameterFlag_DisplaySquared)
#define AudioUnitDisplayTypeIsCubed(flags) \
    (GetAudioUnitParameterDisplayType(flags) == kAudioUnitParameterFlag_DisplayCubed)
#define AudioUnitDisplayTypeIsCubeRoot(flags) \
    (GetAudioUnitParameterDisplayType(flags) == kAudioUnitParameterFlag_DisplayCubeRoot)
#define AudioUnitDisplayTypeIsExponential(flags) \
    (GetAudioUnitParameterDisplayType(flags) == kAudioUnitParameterFlag_DisplayExponential)

#ifdef __cplusplus
}
#endif
#endif /* __AudioUnitProperties */
