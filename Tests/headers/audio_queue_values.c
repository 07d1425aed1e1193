/* The audio queue header (<AudioToolbox/AudioQueue.h>), through <AudioToolbox/AudioToolbox.h>
 * as on the phone, against the iPhone SDK (iOS 7): every value written here as a number
 * taken from docs/notes/ios7-audioqueue-facts.md, struct layouts (LP64), callback types,
 * what exists only under AudioToolbox-ios (EXPECT_IPHONE) and what must not exist at all
 * (the Mac's block-based constructors and later SDKs' names), and every function with its
 * exact type, taken into a table so that the program does not link if the library lacks
 * one. Prints "audio-queue-values ok". */
#include <AudioToolbox/AudioToolbox.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
#include <type_traits>
#define STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* One constant and its value. */
#define VALUE(name, value) STATIC_ASSERT((name) == (value), #name)

/* Result codes. */
VALUE(kAudioQueueErr_InvalidBuffer, -66687);
VALUE(kAudioQueueErr_BufferEmpty, -66686);
VALUE(kAudioQueueErr_DisposalPending, -66685);
VALUE(kAudioQueueErr_InvalidProperty, -66684);
VALUE(kAudioQueueErr_InvalidPropertySize, -66683);
VALUE(kAudioQueueErr_InvalidParameter, -66682);
VALUE(kAudioQueueErr_CannotStart, -66681);
VALUE(kAudioQueueErr_InvalidDevice, -66680);
VALUE(kAudioQueueErr_BufferInQueue, -66679);
VALUE(kAudioQueueErr_InvalidRunState, -66678);
VALUE(kAudioQueueErr_InvalidQueueType, -66677);
VALUE(kAudioQueueErr_Permissions, -66676);
VALUE(kAudioQueueErr_InvalidPropertyValue, -66675);
VALUE(kAudioQueueErr_PrimeTimedOut, -66674);
VALUE(kAudioQueueErr_CodecNotFound, -66673);
VALUE(kAudioQueueErr_InvalidCodecAccess, -66672);
VALUE(kAudioQueueErr_QueueInvalidated, -66671);
VALUE(kAudioQueueErr_TooManyTaps, -66670);
VALUE(kAudioQueueErr_InvalidTapContext, -66669);
VALUE(kAudioQueueErr_RecordUnderrun, -66668);
VALUE(kAudioQueueErr_InvalidTapType, -66667);
VALUE(kAudioQueueErr_EnqueueDuringReset, -66632);
VALUE(kAudioQueueErr_InvalidOfflineMode, -66626);

/* Properties. */
VALUE(kAudioQueueProperty_IsRunning, 1634824814);
VALUE(kAudioQueueDeviceProperty_SampleRate, 1634825074);
VALUE(kAudioQueueDeviceProperty_NumberChannels, 1634821219);
VALUE(kAudioQueueProperty_CurrentDevice, 1634820964);
VALUE(kAudioQueueProperty_MagicCookie, 1634823523);
VALUE(kAudioQueueProperty_MaximumOutputPacketSize, 2020569203);
VALUE(kAudioQueueProperty_StreamDescription, 1634821748);
VALUE(kAudioQueueProperty_ChannelLayout, 1634820972);
VALUE(kAudioQueueProperty_EnableLevelMetering, 1634823525);
VALUE(kAudioQueueProperty_CurrentLevelMeter, 1634823542);
VALUE(kAudioQueueProperty_CurrentLevelMeterDB, 1634823524);
VALUE(kAudioQueueProperty_DecodeBufferSizeFrames, 1684234854);
VALUE(kAudioQueueProperty_ConverterError, 1902343781);
VALUE(kAudioQueueProperty_EnableTimePitch, 1902081136);
VALUE(kAudioQueueProperty_TimePitchAlgorithm, 1903456353);
VALUE(kAudioQueueProperty_TimePitchBypass, 1903456354);

/* Time/pitch algorithms. */
VALUE(kAudioQueueTimePitchAlgorithm_Spectral, 1936745827);
VALUE(kAudioQueueTimePitchAlgorithm_TimeDomain, 1953064047);
VALUE(kAudioQueueTimePitchAlgorithm_Varispeed, 1987276900);

/* Parameters. */
VALUE(kAudioQueueParam_Volume, 1);
VALUE(kAudioQueueParam_PlayRate, 2);
VALUE(kAudioQueueParam_Pitch, 3);
VALUE(kAudioQueueParam_VolumeRampTime, 4);
VALUE(kAudioQueueParam_Pan, 13);

/* Processing tap flags. */
VALUE(kAudioQueueProcessingTap_PreEffects, 1);
VALUE(kAudioQueueProcessingTap_PostEffects, 2);
VALUE(kAudioQueueProcessingTap_Siphon, 4);
VALUE(kAudioQueueProcessingTap_StartOfStream, 256);
VALUE(kAudioQueueProcessingTap_EndOfStream, 512);

/* Struct layouts (LP64: 8-byte pointers). */
#define OFFSET(type, member, value) STATIC_ASSERT(offsetof(type, member) == (value), #type "." #member)
STATIC_ASSERT(sizeof(AudioQueueBuffer) == 56, "sizeof AudioQueueBuffer");
OFFSET(AudioQueueBuffer, mAudioDataBytesCapacity, 0);
OFFSET(AudioQueueBuffer, mAudioData, 8);
OFFSET(AudioQueueBuffer, mAudioDataByteSize, 16);
OFFSET(AudioQueueBuffer, mUserData, 24);
OFFSET(AudioQueueBuffer, mPacketDescriptionCapacity, 32);
OFFSET(AudioQueueBuffer, mPacketDescriptions, 40);
OFFSET(AudioQueueBuffer, mPacketDescriptionCount, 48);
STATIC_ASSERT(sizeof(AudioQueueParameterEvent) == 8, "sizeof AudioQueueParameterEvent");
OFFSET(AudioQueueParameterEvent, mID, 0);
OFFSET(AudioQueueParameterEvent, mValue, 4);
STATIC_ASSERT(sizeof(AudioQueueLevelMeterState) == 8, "sizeof AudioQueueLevelMeterState");
OFFSET(AudioQueueLevelMeterState, mAveragePower, 0);
OFFSET(AudioQueueLevelMeterState, mPeakPower, 4);
/* Member and ID types the layouts alone would not catch. */
STATIC_ASSERT(sizeof(((AudioQueueBuffer *)0)->mAudioDataBytesCapacity) == 4
              && sizeof(((AudioQueueBuffer *)0)->mPacketDescriptionCount) == 4, "buffer counts are 32-bit");
STATIC_ASSERT(sizeof(AudioQueuePropertyID) == 4 && sizeof(AudioQueueParameterID) == 4
              && sizeof(AudioQueueParameterValue) == 4, "ID and value types");
STATIC_ASSERT(sizeof(AudioQueueRef) == 8 && sizeof(AudioQueueTimelineRef) == 8
              && sizeof(AudioQueueProcessingTapRef) == 8 && sizeof(AudioQueueBufferRef) == 8, "reference types");

#ifdef __cplusplus
/* The fields the queue owns are const, as in the SDK. */
STATIC_ASSERT(std::is_const<decltype(AudioQueueBuffer::mAudioDataBytesCapacity)>::value
              && std::is_const<decltype(AudioQueueBuffer::mAudioData)>::value
              && std::is_const<decltype(AudioQueueBuffer::mPacketDescriptionCapacity)>::value
              && std::is_const<decltype(AudioQueueBuffer::mPacketDescriptions)>::value, "const fields");
STATIC_ASSERT(!std::is_const<decltype(AudioQueueBuffer::mAudioDataByteSize)>::value
              && !std::is_const<decltype(AudioQueueBuffer::mUserData)>::value
              && !std::is_const<decltype(AudioQueueBuffer::mPacketDescriptionCount)>::value, "writable fields");
STATIC_ASSERT((std::is_same<AudioQueueParameterValue, Float32>::value), "parameter values are Float32");
#endif

#if EXPECT_IPHONE
/* The phone's only names. */
VALUE(kAudioQueueTimePitchAlgorithm_LowQualityZeroLatency, 1819376236);
VALUE(kAudioQueueProperty_HardwareCodecPolicy, 1634820976);
VALUE(kAudioQueueHardwareCodecPolicy_Default, 0);
VALUE(kAudioQueueHardwareCodecPolicy_UseSoftwareOnly, 1);
VALUE(kAudioQueueHardwareCodecPolicy_UseHardwareOnly, 2);
VALUE(kAudioQueueHardwareCodecPolicy_PreferSoftware, 3);
VALUE(kAudioQueueHardwareCodecPolicy_PreferHardware, 4);
VALUE(kAudioQueueProperty_ChannelAssignments, 1634820961);
STATIC_ASSERT(sizeof(AudioQueueChannelAssignment) == 16, "sizeof AudioQueueChannelAssignment");
OFFSET(AudioQueueChannelAssignment, mDeviceUID, 0);
OFFSET(AudioQueueChannelAssignment, mChannelNumber, 8);
#else
/* The plain module must not declare the phone's only names: these enumerators would
 * collide with them. */
enum {
    kAudioQueueTimePitchAlgorithm_LowQualityZeroLatency = 0,
    kAudioQueueProperty_HardwareCodecPolicy = 0,
    kAudioQueueHardwareCodecPolicy_Default = 0,
    kAudioQueueHardwareCodecPolicy_UseSoftwareOnly = 0,
    kAudioQueueHardwareCodecPolicy_UseHardwareOnly = 0,
    kAudioQueueHardwareCodecPolicy_PreferSoftware = 0,
    kAudioQueueHardwareCodecPolicy_PreferHardware = 0,
    kAudioQueueProperty_ChannelAssignments = 0,
    AudioQueueChannelAssignment = 0
};
#endif

/* Neither module declares the Mac's only names (the block-based constructors and their
 * block types, Mac-only in the iOS 7 SDK whether or not blocks are on) nor the result codes
 * of SDKs after iOS 7 (again, these enumerators would collide with them). */
enum {
    AudioQueueNewOutputWithDispatchQueue = 0,
    AudioQueueNewInputWithDispatchQueue = 0,
    AudioQueueOutputCallbackBlock = 0,
    AudioQueueInputCallbackBlock = 0,
    kAudioQueueErr_BufferEnqueuedTwice = 0,
    kAudioQueueErr_CannotStartYet = 0
};

/* Callbacks of the exact types the SDK gives them: assigning one to a callback type of
 * any other signature fails to compile. */
static void output_callback(void *inUserData, AudioQueueRef inAQ, AudioQueueBufferRef inBuffer)
{
    (void)inUserData; (void)inAQ; (void)inBuffer;
}

static void input_callback(void *inUserData, AudioQueueRef inAQ, AudioQueueBufferRef inBuffer,
                           const AudioTimeStamp *inStartTime, UInt32 inNumberPacketDescriptions,
                           const AudioStreamPacketDescription *inPacketDescs)
{
    (void)inUserData; (void)inAQ; (void)inBuffer; (void)inStartTime; (void)inNumberPacketDescriptions;
    (void)inPacketDescs;
}

static void listener_proc(void *inUserData, AudioQueueRef inAQ, AudioQueuePropertyID inID)
{
    (void)inUserData; (void)inAQ; (void)inID;
}

static void tap_callback(void *inClientData, AudioQueueProcessingTapRef inAQTap, UInt32 inNumberFrames,
                         AudioTimeStamp *ioTimeStamp, UInt32 *ioFlags, UInt32 *outNumberFrames,
                         AudioBufferList *ioData)
{
    (void)inClientData; (void)inAQTap; (void)inNumberFrames; (void)ioTimeStamp; (void)ioFlags;
    (void)outNumberFrames; (void)ioData;
}

static int callback_types_match(void)
{
    AudioQueueOutputCallback outputProc = output_callback;
    AudioQueueInputCallback inputProc = input_callback;
    AudioQueuePropertyListenerProc listenerProc = listener_proc;
    AudioQueueProcessingTapCallback tapProc = tap_callback;
    return outputProc != NULL && inputProc != NULL && listenerProc != NULL && tapProc != NULL;
}

/* Parameter values are floating point (a quarter survives). */
static int parameter_value_is_float(void)
{
    AudioQueueParameterValue value = 1;
    AudioQueueParameterEvent event;
    value /= 4;
    event.mID = kAudioQueueParam_Pan;
    event.mValue = value;
    return event.mValue > 0.24f && event.mValue < 0.26f;
}

#ifdef __cplusplus
/* In C++ the SDK's buffer can be default-constructed, its const fields zeroed. */
static int cxx_buffer_constructs(void)
{
    AudioQueueBuffer buffer;
    return buffer.mAudioDataBytesCapacity == 0 && buffer.mAudioData == NULL && buffer.mPacketDescriptionCapacity == 0
        && buffer.mPacketDescriptions == NULL;
}
#endif

int main(void)
{
    size_t i;
    /* Every function of the header, with its type; the table makes the program need each
     * one from the library. */
    OSStatus (*const typed_AudioQueueNewOutput)(const AudioStreamBasicDescription *, AudioQueueOutputCallback, void *,
        CFRunLoopRef, CFStringRef, UInt32, AudioQueueRef *) = AudioQueueNewOutput;
    OSStatus (*const typed_AudioQueueNewInput)(const AudioStreamBasicDescription *, AudioQueueInputCallback, void *,
        CFRunLoopRef, CFStringRef, UInt32, AudioQueueRef *) = AudioQueueNewInput;
    OSStatus (*const typed_AudioQueueDispose)(AudioQueueRef, Boolean) = AudioQueueDispose;
    OSStatus (*const typed_AudioQueueAllocateBuffer)(AudioQueueRef, UInt32,
        AudioQueueBufferRef *) = AudioQueueAllocateBuffer;
    OSStatus (*const typed_AudioQueueAllocateBufferWithPacketDescriptions)(AudioQueueRef, UInt32, UInt32,
        AudioQueueBufferRef *) = AudioQueueAllocateBufferWithPacketDescriptions;
    OSStatus (*const typed_AudioQueueFreeBuffer)(AudioQueueRef, AudioQueueBufferRef) = AudioQueueFreeBuffer;
    OSStatus (*const typed_AudioQueueEnqueueBuffer)(AudioQueueRef, AudioQueueBufferRef, UInt32,
        const AudioStreamPacketDescription *) = AudioQueueEnqueueBuffer;
    OSStatus (*const typed_AudioQueueEnqueueBufferWithParameters)(AudioQueueRef, AudioQueueBufferRef, UInt32,
        const AudioStreamPacketDescription *, UInt32, UInt32, UInt32, const AudioQueueParameterEvent *,
        const AudioTimeStamp *, AudioTimeStamp *) = AudioQueueEnqueueBufferWithParameters;
    OSStatus (*const typed_AudioQueueStart)(AudioQueueRef, const AudioTimeStamp *) = AudioQueueStart;
    OSStatus (*const typed_AudioQueuePrime)(AudioQueueRef, UInt32, UInt32 *) = AudioQueuePrime;
    OSStatus (*const typed_AudioQueueStop)(AudioQueueRef, Boolean) = AudioQueueStop;
    OSStatus (*const typed_AudioQueuePause)(AudioQueueRef) = AudioQueuePause;
    OSStatus (*const typed_AudioQueueFlush)(AudioQueueRef) = AudioQueueFlush;
    OSStatus (*const typed_AudioQueueReset)(AudioQueueRef) = AudioQueueReset;
    OSStatus (*const typed_AudioQueueGetParameter)(AudioQueueRef, AudioQueueParameterID,
        AudioQueueParameterValue *) = AudioQueueGetParameter;
    OSStatus (*const typed_AudioQueueSetParameter)(AudioQueueRef, AudioQueueParameterID,
        AudioQueueParameterValue) = AudioQueueSetParameter;
    OSStatus (*const typed_AudioQueueGetProperty)(AudioQueueRef, AudioQueuePropertyID, void *,
        UInt32 *) = AudioQueueGetProperty;
    OSStatus (*const typed_AudioQueueSetProperty)(AudioQueueRef, AudioQueuePropertyID, const void *,
        UInt32) = AudioQueueSetProperty;
    OSStatus (*const typed_AudioQueueGetPropertySize)(AudioQueueRef, AudioQueuePropertyID,
        UInt32 *) = AudioQueueGetPropertySize;
    OSStatus (*const typed_AudioQueueAddPropertyListener)(AudioQueueRef, AudioQueuePropertyID,
        AudioQueuePropertyListenerProc, void *) = AudioQueueAddPropertyListener;
    OSStatus (*const typed_AudioQueueRemovePropertyListener)(AudioQueueRef, AudioQueuePropertyID,
        AudioQueuePropertyListenerProc, void *) = AudioQueueRemovePropertyListener;
    OSStatus (*const typed_AudioQueueCreateTimeline)(AudioQueueRef, AudioQueueTimelineRef *) = AudioQueueCreateTimeline;
    OSStatus (*const typed_AudioQueueDisposeTimeline)(AudioQueueRef, AudioQueueTimelineRef) = AudioQueueDisposeTimeline;
    OSStatus (*const typed_AudioQueueGetCurrentTime)(AudioQueueRef, AudioQueueTimelineRef, AudioTimeStamp *,
        Boolean *) = AudioQueueGetCurrentTime;
    OSStatus (*const typed_AudioQueueDeviceGetCurrentTime)(AudioQueueRef,
        AudioTimeStamp *) = AudioQueueDeviceGetCurrentTime;
    OSStatus (*const typed_AudioQueueDeviceTranslateTime)(AudioQueueRef, const AudioTimeStamp *,
        AudioTimeStamp *) = AudioQueueDeviceTranslateTime;
    OSStatus (*const typed_AudioQueueDeviceGetNearestStartTime)(AudioQueueRef, AudioTimeStamp *,
        UInt32) = AudioQueueDeviceGetNearestStartTime;
    OSStatus (*const typed_AudioQueueSetOfflineRenderFormat)(AudioQueueRef, const AudioStreamBasicDescription *,
        const AudioChannelLayout *) = AudioQueueSetOfflineRenderFormat;
    OSStatus (*const typed_AudioQueueOfflineRender)(AudioQueueRef, const AudioTimeStamp *, AudioQueueBufferRef,
        UInt32) = AudioQueueOfflineRender;
    OSStatus (*const typed_AudioQueueProcessingTapNew)(AudioQueueRef, AudioQueueProcessingTapCallback, void *, UInt32,
        UInt32 *, AudioStreamBasicDescription *, AudioQueueProcessingTapRef *) = AudioQueueProcessingTapNew;
    OSStatus (*const typed_AudioQueueProcessingTapDispose)(AudioQueueProcessingTapRef) = AudioQueueProcessingTapDispose;
    OSStatus (*const typed_AudioQueueProcessingTapGetSourceAudio)(AudioQueueProcessingTapRef, UInt32, AudioTimeStamp *,
        UInt32 *, UInt32 *, AudioBufferList *) = AudioQueueProcessingTapGetSourceAudio;
    OSStatus (*const typed_AudioQueueProcessingTapGetQueueTime)(AudioQueueProcessingTapRef, Float64 *,
        UInt32 *) = AudioQueueProcessingTapGetQueueTime;
    void (*const functions[])(void) = {
        (void (*)(void))typed_AudioQueueNewOutput,
        (void (*)(void))typed_AudioQueueNewInput,
        (void (*)(void))typed_AudioQueueDispose,
        (void (*)(void))typed_AudioQueueAllocateBuffer,
        (void (*)(void))typed_AudioQueueAllocateBufferWithPacketDescriptions,
        (void (*)(void))typed_AudioQueueFreeBuffer,
        (void (*)(void))typed_AudioQueueEnqueueBuffer,
        (void (*)(void))typed_AudioQueueEnqueueBufferWithParameters,
        (void (*)(void))typed_AudioQueueStart,
        (void (*)(void))typed_AudioQueuePrime,
        (void (*)(void))typed_AudioQueueStop,
        (void (*)(void))typed_AudioQueuePause,
        (void (*)(void))typed_AudioQueueFlush,
        (void (*)(void))typed_AudioQueueReset,
        (void (*)(void))typed_AudioQueueGetParameter,
        (void (*)(void))typed_AudioQueueSetParameter,
        (void (*)(void))typed_AudioQueueGetProperty,
        (void (*)(void))typed_AudioQueueSetProperty,
        (void (*)(void))typed_AudioQueueGetPropertySize,
        (void (*)(void))typed_AudioQueueAddPropertyListener,
        (void (*)(void))typed_AudioQueueRemovePropertyListener,
        (void (*)(void))typed_AudioQueueCreateTimeline,
        (void (*)(void))typed_AudioQueueDisposeTimeline,
        (void (*)(void))typed_AudioQueueGetCurrentTime,
        (void (*)(void))typed_AudioQueueDeviceGetCurrentTime,
        (void (*)(void))typed_AudioQueueDeviceTranslateTime,
        (void (*)(void))typed_AudioQueueDeviceGetNearestStartTime,
        (void (*)(void))typed_AudioQueueSetOfflineRenderFormat,
        (void (*)(void))typed_AudioQueueOfflineRender,
        (void (*)(void))typed_AudioQueueProcessingTapNew,
        (void (*)(void))typed_AudioQueueProcessingTapDispose,
        (void (*)(void))typed_AudioQueueProcessingTapGetSourceAudio,
        (void (*)(void))typed_AudioQueueProcessingTapGetQueueTime
    };
    STATIC_ASSERT(sizeof functions / sizeof functions[0] == 33, "function count");
    for (i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (functions[i] == NULL) return 1;
    if (!callback_types_match()) return 2;
    if (!parameter_value_is_float()) return 3;
#ifdef __cplusplus
    if (!cxx_buffer_constructs()) return 4;
#endif
    printf("audio-queue-values ok\n");
    return 0;
}
