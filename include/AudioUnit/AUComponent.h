/*
 * AudioToolbox for Linux — <AudioUnit/AUComponent.h>.
 *
 * Audio units: their types and subtypes, result codes, render callbacks, and the calls
 * that set them up and pull audio through them. Names, values and signatures are the
 * iPhone SDK's (iOS 7). Which units exist here: docs/API.md, "Audio units".
 */
#ifndef __AUCOMPONENT__
#define __AUCOMPONENT__

#include <AudioUnit/AudioComponent.h>
#include <CoreAudio/CoreAudioTypes.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef AudioComponentInstance AudioUnit;
typedef UInt32  AudioUnitPropertyID;
typedef UInt32  AudioUnitScope;
typedef UInt32  AudioUnitElement;
typedef UInt32  AudioUnitParameterID;
typedef Float32 AudioUnitParameterValue;
typedef UInt32  AudioUnitRenderActionFlags;
typedef UInt32  AUParameterEventType;

/* Unit types. */
enum {
    kAudioUnitType_Output          = AT_FOURCC('a','u','o','u'),
    kAudioUnitType_MusicDevice     = AT_FOURCC('a','u','m','u'),
    kAudioUnitType_MusicEffect     = AT_FOURCC('a','u','m','f'),
    kAudioUnitType_FormatConverter = AT_FOURCC('a','u','f','c'),
    kAudioUnitType_Effect          = AT_FOURCC('a','u','f','x'),
    kAudioUnitType_Mixer           = AT_FOURCC('a','u','m','x'),
    kAudioUnitType_Panner          = AT_FOURCC('a','u','p','n'),
    kAudioUnitType_Generator       = AT_FOURCC('a','u','g','n'),
    kAudioUnitType_OfflineEffect   = AT_FOURCC('a','u','o','l'),
    kAudioUnitType_MIDIProcessor   = AT_FOURCC('a','u','m','i')
};
#if TARGET_OS_IPHONE
enum {
    kAudioUnitType_RemoteEffect      = AT_FOURCC('a','u','r','x'),
    kAudioUnitType_RemoteGenerator   = AT_FOURCC('a','u','r','g'),
    kAudioUnitType_RemoteInstrument  = AT_FOURCC('a','u','r','i'),
    kAudioUnitType_RemoteMusicEffect = AT_FOURCC('a','u','r','m')
};
#endif

enum { kAudioUnitManufacturer_Apple = AT_FOURCC('a','p','p','l') };

/* Output units. RemoteIO is the iPhone's; it is declared for plain Linux too (Linux
 * programs want it). */
enum {
    kAudioUnitSubType_GenericOutput     = AT_FOURCC('g','e','n','r'),
    kAudioUnitSubType_RemoteIO          = AT_FOURCC('r','i','o','c'),
    kAudioUnitSubType_VoiceProcessingIO = AT_FOURCC('v','p','i','o')
};

/* Other Apple units the iPhone SDK names (none is provided here yet). */
enum {
    kAudioUnitSubType_Sampler             = AT_FOURCC('s','a','m','p'),
    kAudioUnitSubType_AUConverter         = AT_FOURCC('c','o','n','v'),
    kAudioUnitSubType_Varispeed           = AT_FOURCC('v','a','r','i'),
    kAudioUnitSubType_DeferredRenderer    = AT_FOURCC('d','e','f','r'),
    kAudioUnitSubType_Splitter            = AT_FOURCC('s','p','l','t'),
    kAudioUnitSubType_Merger              = AT_FOURCC('m','e','r','g'),
    kAudioUnitSubType_NewTimePitch        = AT_FOURCC('n','u','t','p'),
    kAudioUnitSubType_AUiPodTimeOther     = AT_FOURCC('i','p','t','o'),
    kAudioUnitSubType_PeakLimiter         = AT_FOURCC('l','m','t','r'),
    kAudioUnitSubType_DynamicsProcessor   = AT_FOURCC('d','c','m','p'),
    kAudioUnitSubType_LowPassFilter       = AT_FOURCC('l','p','a','s'),
    kAudioUnitSubType_HighPassFilter      = AT_FOURCC('h','p','a','s'),
    kAudioUnitSubType_BandPassFilter      = AT_FOURCC('b','p','a','s'),
    kAudioUnitSubType_HighShelfFilter     = AT_FOURCC('h','s','h','f'),
    kAudioUnitSubType_LowShelfFilter      = AT_FOURCC('l','s','h','f'),
    kAudioUnitSubType_ParametricEQ        = AT_FOURCC('p','m','e','q'),
    kAudioUnitSubType_Distortion          = AT_FOURCC('d','i','s','t'),
    kAudioUnitSubType_Delay               = AT_FOURCC('d','e','l','y'),
    kAudioUnitSubType_NBandEQ             = AT_FOURCC('n','b','e','q'),
    kAudioUnitSubType_MultiChannelMixer   = AT_FOURCC('m','c','m','x'),
    kAudioUnitSubType_MatrixMixer         = AT_FOURCC('m','x','m','x'),
    kAudioUnitSubType_ScheduledSoundPlayer = AT_FOURCC('s','s','p','l'),
    kAudioUnitSubType_AudioFilePlayer     = AT_FOURCC('a','f','p','l')
};
#if TARGET_OS_IPHONE
enum {
    kAudioUnitSubType_AUiPodTime        = AT_FOURCC('i','p','t','m'),
    kAudioUnitSubType_Reverb2           = AT_FOURCC('r','v','b','2'),
    kAudioUnitSubType_AUiPodEQ          = AT_FOURCC('i','p','e','q'),
    kAudioUnitSubType_AU3DMixerEmbedded = AT_FOURCC('3','d','e','m')
};
#endif

/* What a render call, a render callback or a render notification is about. */
enum {
    kAudioUnitRenderAction_PreRender            = (1U << 2),
    kAudioUnitRenderAction_PostRender           = (1U << 3),
    kAudioUnitRenderAction_OutputIsSilence      = (1U << 4),
    kAudioOfflineUnitRenderAction_Preflight     = (1U << 5),
    kAudioOfflineUnitRenderAction_Render        = (1U << 6),
    kAudioOfflineUnitRenderAction_Complete      = (1U << 7),
    kAudioUnitRenderAction_PostRenderError      = (1U << 8),
    kAudioUnitRenderAction_DoNotCheckRenderArgs = (1U << 9)
};

/* Result codes. */
enum {
    kAudioUnitErr_InvalidProperty          = -10879,
    kAudioUnitErr_InvalidParameter         = -10878,
    kAudioUnitErr_InvalidElement           = -10877,
    kAudioUnitErr_NoConnection             = -10876,
    kAudioUnitErr_FailedInitialization     = -10875,
    kAudioUnitErr_TooManyFramesToProcess   = -10874,
    kAudioUnitErr_InvalidFile              = -10871,
    kAudioUnitErr_FormatNotSupported       = -10868,
    kAudioUnitErr_Uninitialized            = -10867,
    kAudioUnitErr_InvalidScope             = -10866,
    kAudioUnitErr_PropertyNotWritable      = -10865,
    kAudioUnitErr_CannotDoInCurrentContext = -10863,
    kAudioUnitErr_InvalidPropertyValue     = -10851,
    kAudioUnitErr_PropertyNotInUse         = -10850,
    kAudioUnitErr_Initialized              = -10849,
    kAudioUnitErr_InvalidOfflineRender     = -10848,
    kAudioUnitErr_Unauthorized             = -10847
};
/* Older codes, still declared. */
enum {
    kAudioUnitErr_IllegalInstrument      = -10873,
    kAudioUnitErr_InstrumentTypeNotFound = -10872,
    kAudioUnitErr_UnknownFileType        = -10870,
    kAudioUnitErr_FileNotSpecified       = -10869
};
#if TARGET_OS_IPHONE
enum {
    kAudioComponentErr_DuplicateDescription   = -66752,
    kAudioComponentErr_UnsupportedType        = -66751,
    kAudioComponentErr_TooManyInstances       = -66750,
    kAudioComponentErr_InstanceInvalidated    = -66749,
    kAudioComponentErr_NotPermitted           = -66748,
    kAudioComponentErr_InitializationTimedOut = -66747,
    kAudioComponentErr_InvalidFormat          = -66746
};
#endif

/* Parameter events (AudioUnitScheduleParameters). */
enum {
    kParameterEvent_Immediate = 1,
    kParameterEvent_Ramped    = 2
};

struct AudioUnitParameterEvent {
    AudioUnitScope       scope;
    AudioUnitElement     element;
    AudioUnitParameterID parameter;
    AUParameterEventType eventType;
    union {
        struct {
            SInt32                  startBufferOffset;
            UInt32                  durationInFrames;
            AudioUnitParameterValue startValue;
            AudioUnitParameterValue endValue;
        } ramp;
        struct {
            UInt32                  bufferOffset;
            AudioUnitParameterValue value;
        } immediate;
    } eventValues;
};
typedef struct AudioUnitParameterEvent AudioUnitParameterEvent;

/* A parameter, or a property, of a unit: where it is. */
struct AudioUnitParameter {
    AudioUnit            mAudioUnit;
    AudioUnitParameterID mParameterID;
    AudioUnitScope       mScope;
    AudioUnitElement     mElement;
};
typedef struct AudioUnitParameter AudioUnitParameter;

struct AudioUnitProperty {
    AudioUnit           mAudioUnit;
    AudioUnitPropertyID mPropertyID;
    AudioUnitScope      mScope;
    AudioUnitElement    mElement;
};
typedef struct AudioUnitProperty AudioUnitProperty;

/* A render callback: fill ioData with inNumberFrames frames of element inBusNumber, in the
 * format of the side it feeds. Runs on the unit's real-time thread. */
typedef OSStatus (*AURenderCallback)(void *inRefCon, AudioUnitRenderActionFlags *ioActionFlags,
                                     const AudioTimeStamp *inTimeStamp, UInt32 inBusNumber, UInt32 inNumberFrames,
                                     AudioBufferList *ioData);

/* Called when a property a listener was added for changes. */
typedef void (*AudioUnitPropertyListenerProc)(void *inRefCon, AudioUnit inUnit, AudioUnitPropertyID inID,
                                              AudioUnitScope inScope, AudioUnitElement inElement);

typedef void (*AUInputSamplesInOutputCallback)(void *inRefCon, const AudioTimeStamp *inOutputTimeStamp,
                                               Float64 inInputSample, Float64 inNumberInputSamples);

extern OSStatus AudioUnitInitialize(AudioUnit inUnit);
extern OSStatus AudioUnitUninitialize(AudioUnit inUnit);

extern OSStatus AudioUnitGetPropertyInfo(AudioUnit inUnit, AudioUnitPropertyID inID, AudioUnitScope inScope,
                                         AudioUnitElement inElement, UInt32 *outDataSize, Boolean *outWritable);
extern OSStatus AudioUnitGetProperty(AudioUnit inUnit, AudioUnitPropertyID inID, AudioUnitScope inScope,
                                     AudioUnitElement inElement, void *outData, UInt32 *ioDataSize);
extern OSStatus AudioUnitSetProperty(AudioUnit inUnit, AudioUnitPropertyID inID, AudioUnitScope inScope,
                                     AudioUnitElement inElement, const void *inData, UInt32 inDataSize);

extern OSStatus AudioUnitAddPropertyListener(AudioUnit inUnit, AudioUnitPropertyID inID,
                                             AudioUnitPropertyListenerProc inProc, void *inProcUserData);
/* The iPhone SDK has no AudioUnitRemovePropertyListener: this one names the user data. */
extern OSStatus AudioUnitRemovePropertyListenerWithUserData(AudioUnit inUnit, AudioUnitPropertyID inID,
                                                            AudioUnitPropertyListenerProc inProc, void *inProcUserData);

extern OSStatus AudioUnitAddRenderNotify(AudioUnit inUnit, AURenderCallback inProc, void *inProcUserData);
extern OSStatus AudioUnitRemoveRenderNotify(AudioUnit inUnit, AURenderCallback inProc, void *inProcUserData);

extern OSStatus AudioUnitGetParameter(AudioUnit inUnit, AudioUnitParameterID inID, AudioUnitScope inScope,
                                      AudioUnitElement inElement, AudioUnitParameterValue *outValue);
extern OSStatus AudioUnitSetParameter(AudioUnit inUnit, AudioUnitParameterID inID, AudioUnitScope inScope,
                                      AudioUnitElement inElement, AudioUnitParameterValue inValue,
                                      UInt32 inBufferOffsetInFrames);
extern OSStatus AudioUnitScheduleParameters(AudioUnit inUnit, const AudioUnitParameterEvent *inParameterEvent,
                                            UInt32 inNumParamEvents);

/* Pulls inNumberFrames frames of element inOutputBusNumber into ioData. */
extern OSStatus AudioUnitRender(AudioUnit inUnit, AudioUnitRenderActionFlags *ioActionFlags,
                                const AudioTimeStamp *inTimeStamp, UInt32 inOutputBusNumber, UInt32 inNumberFrames,
                                AudioBufferList *ioData);
extern OSStatus AudioUnitProcess(AudioUnit inUnit, AudioUnitRenderActionFlags *ioActionFlags,
                                 const AudioTimeStamp *inTimeStamp, UInt32 inNumberFrames, AudioBufferList *ioData);
extern OSStatus AudioUnitProcessMultiple(AudioUnit inUnit, AudioUnitRenderActionFlags *ioActionFlags,
                                         const AudioTimeStamp *inTimeStamp, UInt32 inNumberFrames,
                                         UInt32 inNumberInputBufferLists, const AudioBufferList **inInputBufferLists,
                                         UInt32 inNumberOutputBufferLists, AudioBufferList **ioOutputBufferLists);

extern OSStatus AudioUnitReset(AudioUnit inUnit, AudioUnitScope inScope, AudioUnitElement inElement);

/* Selectors (AudioComponentInstanceCanDo). */
enum {
    kAudioUnitRange                                    = 0x0000,
    kAudioUnitInitializeSelect                         = 0x0001,
    kAudioUnitUninitializeSelect                       = 0x0002,
    kAudioUnitGetPropertyInfoSelect                    = 0x0003,
    kAudioUnitGetPropertySelect                        = 0x0004,
    kAudioUnitSetPropertySelect                        = 0x0005,
    kAudioUnitGetParameterSelect                       = 0x0006,
    kAudioUnitSetParameterSelect                       = 0x0007,
    kAudioUnitResetSelect                              = 0x0009,
    kAudioUnitAddPropertyListenerSelect                = 0x000A,
    kAudioUnitRemovePropertyListenerSelect             = 0x000B,
    kAudioUnitRenderSelect                             = 0x000E,
    kAudioUnitAddRenderNotifySelect                    = 0x000F,
    kAudioUnitRemoveRenderNotifySelect                 = 0x0010,
    kAudioUnitScheduleParametersSelect                 = 0x0011,
    kAudioUnitRemovePropertyListenerWithUserDataSelect = 0x0012,
    kAudioUnitComplexRenderSelect                      = 0x0013,
    kAudioUnitProcessSelect                            = 0x0014,
    kAudioUnitProcessMultipleSelect                    = 0x0015
};

#ifdef __cplusplus
}
#endif
#endif /* __AUCOMPONENT__ */
