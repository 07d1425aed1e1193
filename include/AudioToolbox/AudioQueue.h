/*
 * AudioToolbox for Linux — <AudioToolbox/AudioQueue.h>.
 *
 * Audio queues: the program hands a queue buffers of audio (in any format a codec can
 * decode) to play, or empty buffers to record into, and gets each buffer back through a
 * callback once the queue is done with it. Names, values, layouts and signatures are the
 * iPhone SDK's (iOS 7); the Mac's dispatch-queue constructors (block callbacks) are not
 * declared, as on the phone.
 */
#ifndef __AudioQueue_h__
#define __AudioQueue_h__

#include <CoreAudio/CoreAudioTypes.h>
#include <CoreFoundation/CoreFoundation.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- result codes ----------------------------------------------------------------- */

enum {
    kAudioQueueErr_InvalidBuffer        = -66687, /* the buffer is not this queue's */
    kAudioQueueErr_BufferEmpty          = -66686, /* mAudioDataByteSize is 0 */
    kAudioQueueErr_DisposalPending      = -66685, /* the queue is being disposed of */
    kAudioQueueErr_InvalidProperty      = -66684,
    kAudioQueueErr_InvalidPropertySize  = -66683,
    kAudioQueueErr_InvalidParameter     = -66682,
    kAudioQueueErr_CannotStart          = -66681,
    kAudioQueueErr_InvalidDevice        = -66680, /* no usable audio device */
    kAudioQueueErr_BufferInQueue        = -66679, /* cannot free a buffer still enqueued */
    kAudioQueueErr_InvalidRunState      = -66678, /* running when it must be stopped, or the reverse */
    kAudioQueueErr_InvalidQueueType     = -66677, /* an input queue where an output one is needed, or the reverse */
    kAudioQueueErr_Permissions          = -66676,
    kAudioQueueErr_InvalidPropertyValue = -66675,
    kAudioQueueErr_PrimeTimedOut        = -66674,
    kAudioQueueErr_CodecNotFound        = -66673,
    kAudioQueueErr_InvalidCodecAccess   = -66672, /* the session's settings forbid the codec */
    kAudioQueueErr_QueueInvalidated     = -66671, /* the audio server went away: make a new queue */
    kAudioQueueErr_TooManyTaps          = -66670, /* one processing tap per queue */
    kAudioQueueErr_InvalidTapContext    = -66669, /* a tap call made outside the tap's callback */
    kAudioQueueErr_RecordUnderrun       = -66668, /* input was lost: no buffer was enqueued */
    kAudioQueueErr_InvalidTapType       = -66667, /* queue time asked of an input queue's tap */
    kAudioQueueErr_EnqueueDuringReset   = -66632, /* enqueue while resetting, stopping or disposing */
    kAudioQueueErr_InvalidOfflineMode   = -66626  /* the call needs offline rendering on (or off) */
};

/* ---- properties ------------------------------------------------------------------- */

/* A queue's properties (AudioQueuePropertyID). Each comment gives the value's type. */
enum {
    kAudioQueueProperty_IsRunning               = 0x6171726E, /* 'aqrn' UInt32, read-only */
    kAudioQueueDeviceProperty_SampleRate        = 0x61717372, /* 'aqsr' Float64, read-only */
    kAudioQueueDeviceProperty_NumberChannels    = 0x61716463, /* 'aqdc' UInt32, read-only */
    kAudioQueueProperty_CurrentDevice           = 0x61716364, /* 'aqcd' CFStringRef device UID */
    kAudioQueueProperty_MagicCookie             = 0x61716D63, /* 'aqmc' bytes */
    kAudioQueueProperty_MaximumOutputPacketSize = 0x786F7073, /* 'xops' UInt32, read-only */
    kAudioQueueProperty_StreamDescription       = 0x61716674, /* 'aqft' AudioStreamBasicDescription, read-only */
    kAudioQueueProperty_ChannelLayout           = 0x6171636C, /* 'aqcl' AudioChannelLayout */
    kAudioQueueProperty_EnableLevelMetering     = 0x61716D65, /* 'aqme' UInt32, 0 or 1 */
    kAudioQueueProperty_CurrentLevelMeter       = 0x61716D76, /* 'aqmv' AudioQueueLevelMeterState per channel, 0..1 */
    kAudioQueueProperty_CurrentLevelMeterDB     = 0x61716D64, /* 'aqmd' AudioQueueLevelMeterState per channel, dB */
    kAudioQueueProperty_DecodeBufferSizeFrames  = 0x64636266, /* 'dcbf' UInt32 */
    kAudioQueueProperty_ConverterError          = 0x71637665, /* 'qcve' UInt32 (OSStatus), read-only */
    kAudioQueueProperty_EnableTimePitch         = 0x715F7470, /* 'q_tp' UInt32, 0 or 1; set while stopped */
    kAudioQueueProperty_TimePitchAlgorithm      = 0x71747061, /* 'qtpa' UInt32, one of the algorithms below */
    kAudioQueueProperty_TimePitchBypass         = 0x71747062  /* 'qtpb' UInt32, 1 when bypassed */
};

/* Values of kAudioQueueProperty_TimePitchAlgorithm. */
enum {
    kAudioQueueTimePitchAlgorithm_Spectral              = 0x73706563, /* 'spec' */
    kAudioQueueTimePitchAlgorithm_TimeDomain            = 0x7469646F, /* 'tido' */
#if TARGET_OS_IPHONE
    kAudioQueueTimePitchAlgorithm_LowQualityZeroLatency = 0x6C717A6C, /* 'lqzl' the phone's only */
#endif
    kAudioQueueTimePitchAlgorithm_Varispeed             = 0x76737064  /* 'vspd' */
};

#if TARGET_OS_IPHONE
/* The phone's only: whether the queue takes a hardware or a software codec (UInt32, one
 * of the policies below; not while primed or running). */
enum {
    kAudioQueueProperty_HardwareCodecPolicy = 0x61716370  /* 'aqcp' */
};

enum {
    kAudioQueueHardwareCodecPolicy_Default         = 0,
    kAudioQueueHardwareCodecPolicy_UseSoftwareOnly = 1,
    kAudioQueueHardwareCodecPolicy_UseHardwareOnly = 2,
    kAudioQueueHardwareCodecPolicy_PreferSoftware  = 3,
    kAudioQueueHardwareCodecPolicy_PreferHardware  = 4
};

/* The phone's only (iOS 6): which device channels the queue's channels go to, as an
 * array of AudioQueueChannelAssignment, one per channel (write-only). */
enum {
    kAudioQueueProperty_ChannelAssignments = 0x61716361  /* 'aqca' */
};
#endif

/* ---- parameters ------------------------------------------------------------------- */

/* AudioQueueParameterID values, set at once (AudioQueueSetParameter) or with a buffer
 * (AudioQueueEnqueueBufferWithParameters). */
enum {
    kAudioQueueParam_Volume         = 1,  /* linear gain, 0 to 1 */
    kAudioQueueParam_PlayRate       = 2,  /* 0.5 to 2, with time/pitch enabled */
    kAudioQueueParam_Pitch          = 3,  /* cents, -2400 to 2400, spectral time/pitch only */
    kAudioQueueParam_VolumeRampTime = 4,  /* seconds over which later volume changes glide */
    kAudioQueueParam_Pan            = 13  /* -1 left to 1 right */
};

/* ---- processing tap flags --------------------------------------------------------- */

/* The first three are given to AudioQueueProcessingTapNew (PreEffects or PostEffects,
 * not both) and come back in the callback; the last two are reported with source audio. */
enum {
    kAudioQueueProcessingTap_PreEffects    = (1 << 0),
    kAudioQueueProcessingTap_PostEffects   = (1 << 1),
    kAudioQueueProcessingTap_Siphon        = (1 << 2),
    kAudioQueueProcessingTap_StartOfStream = (1 << 8),
    kAudioQueueProcessingTap_EndOfStream   = (1 << 9)
};

/* ---- types ------------------------------------------------------------------------ */

typedef UInt32 AudioQueuePropertyID;
typedef UInt32 AudioQueueParameterID;
typedef Float32 AudioQueueParameterValue;
typedef struct OpaqueAudioQueue *AudioQueueRef;
typedef struct OpaqueAudioQueueTimeline *AudioQueueTimelineRef;

/* A buffer the queue allocated. The const fields are the queue's to set; the program
 * fills the audio, mAudioDataByteSize and (for buffers made with packet descriptions)
 * mPacketDescriptionCount. */
typedef struct AudioQueueBuffer {
    const UInt32                         mAudioDataBytesCapacity;
    void *const                          mAudioData;
    UInt32                               mAudioDataByteSize;
    void                                *mUserData;
    const UInt32                         mPacketDescriptionCapacity;
    AudioStreamPacketDescription *const  mPacketDescriptions;
    UInt32                               mPacketDescriptionCount;
#ifdef __cplusplus
    /* As in the SDK, C++ gets a constructor that zeroes the const fields. */
    AudioQueueBuffer() : mAudioDataBytesCapacity(0), mAudioData(0), mPacketDescriptionCapacity(0),
                         mPacketDescriptions(0) { }
#endif
} AudioQueueBuffer;

typedef AudioQueueBuffer *AudioQueueBufferRef;

/* One parameter value, for AudioQueueEnqueueBufferWithParameters. */
struct AudioQueueParameterEvent {
    AudioQueueParameterID    mID;
    AudioQueueParameterValue mValue;
};
typedef struct AudioQueueParameterEvent AudioQueueParameterEvent;

/* One channel's levels (kAudioQueueProperty_CurrentLevelMeter and ...DB). */
typedef struct AudioQueueLevelMeterState {
    Float32 mAveragePower;
    Float32 mPeakPower;
} AudioQueueLevelMeterState;

typedef struct OpaqueAudioQueueProcessingTap *AudioQueueProcessingTapRef;

#if TARGET_OS_IPHONE
/* The phone's only: one element of kAudioQueueProperty_ChannelAssignments (a device or
 * port UID, and a channel counted from 1). */
typedef struct AudioQueueChannelAssignment {
    CFStringRef mDeviceUID;
    UInt32      mChannelNumber;
} AudioQueueChannelAssignment;
#endif

/* ---- callbacks -------------------------------------------------------------------- */

/* An output queue is done with inBuffer: the program may refill and enqueue it again. */
typedef void (*AudioQueueOutputCallback)(void *inUserData, AudioQueueRef inAQ, AudioQueueBufferRef inBuffer);

/* An input queue has filled inBuffer; inStartTime is the time of its first frame. */
typedef void (*AudioQueueInputCallback)(void *inUserData, AudioQueueRef inAQ, AudioQueueBufferRef inBuffer,
                                        const AudioTimeStamp *inStartTime, UInt32 inNumberPacketDescriptions,
                                        const AudioStreamPacketDescription *inPacketDescs);

/* A property the program listens to has changed. */
typedef void (*AudioQueuePropertyListenerProc)(void *inUserData, AudioQueueRef inAQ, AudioQueuePropertyID inID);

/* A processing tap's turn: produce inNumberFrames frames into ioData (non-siphon taps
 * fetch their input with AudioQueueProcessingTapGetSourceAudio). */
typedef void (*AudioQueueProcessingTapCallback)(void *inClientData, AudioQueueProcessingTapRef inAQTap,
                                                UInt32 inNumberFrames, AudioTimeStamp *ioTimeStamp,
                                                UInt32 *ioFlags, UInt32 *outNumberFrames,
                                                AudioBufferList *ioData);

/* ---- making and disposing of queues ----------------------------------------------- */

/* A queue that plays inFormat. The callback runs on inCallbackRunLoop (in
 * inCallbackRunLoopMode, the common modes when NULL), or on a thread of the queue's when
 * the run loop is NULL. inFlags must be 0. */
extern OSStatus AudioQueueNewOutput(const AudioStreamBasicDescription *inFormat,
                                    AudioQueueOutputCallback inCallbackProc, void *inUserData,
                                    CFRunLoopRef inCallbackRunLoop, CFStringRef inCallbackRunLoopMode,
                                    UInt32 inFlags, AudioQueueRef *outAQ);

/* A queue that records in inFormat; the callback as for AudioQueueNewOutput. */
extern OSStatus AudioQueueNewInput(const AudioStreamBasicDescription *inFormat,
                                   AudioQueueInputCallback inCallbackProc, void *inUserData,
                                   CFRunLoopRef inCallbackRunLoop, CFStringRef inCallbackRunLoopMode,
                                   UInt32 inFlags, AudioQueueRef *outAQ);

/* Frees the queue and its buffers; with inImmediate false, after what is enqueued. */
extern OSStatus AudioQueueDispose(AudioQueueRef inAQ, Boolean inImmediate);

/* ---- buffers ---------------------------------------------------------------------- */

extern OSStatus AudioQueueAllocateBuffer(AudioQueueRef inAQ, UInt32 inBufferByteSize, AudioQueueBufferRef *outBuffer);

/* A buffer with room for inNumberPacketDescriptions packet descriptions of its own. */
extern OSStatus AudioQueueAllocateBufferWithPacketDescriptions(AudioQueueRef inAQ, UInt32 inBufferByteSize,
                                                               UInt32 inNumberPacketDescriptions,
                                                               AudioQueueBufferRef *outBuffer);

extern OSStatus AudioQueueFreeBuffer(AudioQueueRef inAQ, AudioQueueBufferRef inBuffer);

/* Hands a buffer to the queue (to play from or record into). Packet descriptions go
 * here for variable-bit-rate output, or in the buffer's own fields; input queues pass
 * 0 and NULL. */
extern OSStatus AudioQueueEnqueueBuffer(AudioQueueRef inAQ, AudioQueueBufferRef inBuffer, UInt32 inNumPacketDescs,
                                        const AudioStreamPacketDescription *inPacketDescs);

/* Output only: as AudioQueueEnqueueBuffer, with frames trimmed at each end, parameter
 * values applied when the buffer plays, and an optional start time (the time it will
 * really play comes back in outActualStartTime). */
extern OSStatus AudioQueueEnqueueBufferWithParameters(AudioQueueRef inAQ, AudioQueueBufferRef inBuffer,
                                                      UInt32 inNumPacketDescs,
                                                      const AudioStreamPacketDescription *inPacketDescs,
                                                      UInt32 inTrimFramesAtStart, UInt32 inTrimFramesAtEnd,
                                                      UInt32 inNumParamValues,
                                                      const AudioQueueParameterEvent *inParamValues,
                                                      const AudioTimeStamp *inStartTime,
                                                      AudioTimeStamp *outActualStartTime);

/* ---- running ---------------------------------------------------------------------- */

/* inStartTime may be NULL (as soon as possible). */
extern OSStatus AudioQueueStart(AudioQueueRef inAQ, const AudioTimeStamp *inStartTime);

/* Decodes ahead of playing: inNumberOfFramesToPrepare frames, or everything enqueued when
 * 0. outNumberOfFramesPrepared may be NULL. */
extern OSStatus AudioQueuePrime(AudioQueueRef inAQ, UInt32 inNumberOfFramesToPrepare,
                                UInt32 *outNumberOfFramesPrepared);

/* Stops at once (inImmediate true) or once what is enqueued has played or been filled. */
extern OSStatus AudioQueueStop(AudioQueueRef inAQ, Boolean inImmediate);

extern OSStatus AudioQueuePause(AudioQueueRef inAQ);

/* Lets what is enqueued be fully decoded and played, then clears the decoder's state. */
extern OSStatus AudioQueueFlush(AudioQueueRef inAQ);

/* Drops what is enqueued (returning the buffers through the callback) and clears state. */
extern OSStatus AudioQueueReset(AudioQueueRef inAQ);

/* ---- parameters and properties ---------------------------------------------------- */

extern OSStatus AudioQueueGetParameter(AudioQueueRef inAQ, AudioQueueParameterID inParamID,
                                       AudioQueueParameterValue *outValue);

extern OSStatus AudioQueueSetParameter(AudioQueueRef inAQ, AudioQueueParameterID inParamID,
                                       AudioQueueParameterValue inValue);

/* Note the order: the data pointer comes before its size. */
extern OSStatus AudioQueueGetProperty(AudioQueueRef inAQ, AudioQueuePropertyID inID, void *outData,
                                      UInt32 *ioDataSize);

extern OSStatus AudioQueueSetProperty(AudioQueueRef inAQ, AudioQueuePropertyID inID, const void *inData,
                                      UInt32 inDataSize);

extern OSStatus AudioQueueGetPropertySize(AudioQueueRef inAQ, AudioQueuePropertyID inID, UInt32 *outDataSize);

extern OSStatus AudioQueueAddPropertyListener(AudioQueueRef inAQ, AudioQueuePropertyID inID,
                                              AudioQueuePropertyListenerProc inProc, void *inUserData);

/* Removes the listener added with the same property, procedure and user data. */
extern OSStatus AudioQueueRemovePropertyListener(AudioQueueRef inAQ, AudioQueuePropertyID inID,
                                                 AudioQueuePropertyListenerProc inProc, void *inUserData);

/* ---- time ------------------------------------------------------------------------- */

/* A timeline reports, through AudioQueueGetCurrentTime, gaps in the queue's time. */
extern OSStatus AudioQueueCreateTimeline(AudioQueueRef inAQ, AudioQueueTimelineRef *outTimeline);

extern OSStatus AudioQueueDisposeTimeline(AudioQueueRef inAQ, AudioQueueTimelineRef inTimeline);

/* The queue's time (sample time counted from its start). inTimeline and
 * outTimelineDiscontinuity may both be NULL. */
extern OSStatus AudioQueueGetCurrentTime(AudioQueueRef inAQ, AudioQueueTimelineRef inTimeline,
                                         AudioTimeStamp *outTimeStamp, Boolean *outTimelineDiscontinuity);

/* The device's time (only mHostTime is valid while the device is stopped). */
extern OSStatus AudioQueueDeviceGetCurrentTime(AudioQueueRef inAQ, AudioTimeStamp *outTimeStamp);

/* Converts a device time between its forms (sample time, host time); the device must run. */
extern OSStatus AudioQueueDeviceTranslateTime(AudioQueueRef inAQ, const AudioTimeStamp *inTime,
                                              AudioTimeStamp *outTime);

/* The device start time nearest the one asked for; inFlags must be 0. */
extern OSStatus AudioQueueDeviceGetNearestStartTime(AudioQueueRef inAQ, AudioTimeStamp *ioRequestedStartTime,
                                                    UInt32 inFlags);

/* ---- offline rendering ------------------------------------------------------------ */

/* Switches an output queue to rendering into buffers (linear PCM, interleaved) instead
 * of a device; a NULL format (and layout) switches back. */
extern OSStatus AudioQueueSetOfflineRenderFormat(AudioQueueRef inAQ, const AudioStreamBasicDescription *inFormat,
                                                 const AudioChannelLayout *inLayout);

/* Renders up to inNumberFrames frames at inTimestamp's sample time into ioBuffer. */
extern OSStatus AudioQueueOfflineRender(AudioQueueRef inAQ, const AudioTimeStamp *inTimestamp,
                                        AudioQueueBufferRef ioBuffer, UInt32 inNumberFrames);

/* ---- processing taps -------------------------------------------------------------- */

/* Puts a tap on a stopped queue. It says the most frames it will be asked for at once
 * and the format it works in. */
extern OSStatus AudioQueueProcessingTapNew(AudioQueueRef inAQ, AudioQueueProcessingTapCallback inCallback,
                                           void *inClientData, UInt32 inFlags, UInt32 *outMaxFrames,
                                           AudioStreamBasicDescription *outProcessingFormat,
                                           AudioQueueProcessingTapRef *outAQTap);

/* Removes a tap (the queue must be stopped); disposing of the queue removes it too. */
extern OSStatus AudioQueueProcessingTapDispose(AudioQueueProcessingTapRef inAQTap);

/* From inside the tap's callback only: the queue's audio for the tap to work on. */
extern OSStatus AudioQueueProcessingTapGetSourceAudio(AudioQueueProcessingTapRef inAQTap, UInt32 inNumberFrames,
                                                      AudioTimeStamp *ioTimeStamp, UInt32 *outFlags,
                                                      UInt32 *outNumberFrames, AudioBufferList *ioData);

/* From inside an output queue's tap callback, after fetching source audio: the queue's
 * sample time and how many frames of it the current audio covers. */
extern OSStatus AudioQueueProcessingTapGetQueueTime(AudioQueueProcessingTapRef inAQTap, Float64 *outQueueSampleTime,
                                                    UInt32 *outQueueFrameCount);

#ifdef __cplusplus
}
#endif
#endif /* __AudioQueue_h__ */
