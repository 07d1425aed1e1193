/* The looping audio queue player: see aq_reset.h. Compiles as C and as C++. */
#include "aq_reset.h"
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>
#include <string.h>

#define kNumberBuffers 3
#define kBufferDurationSeconds 0.5

typedef struct LoopPlayer {
    AudioFileID mAudioFile;
    AudioStreamBasicDescription mDataFormat;
    AudioQueueRef mQueue;
    AudioQueueBufferRef mBuffers[kNumberBuffers];
    UInt32 mNumPacketsToRead;
    SInt64 mCurrentPacket;
    Boolean mIsLooping;
} LoopPlayer;

static LoopPlayer player;

/* What the harness reads. */
static volatile int priming;
static volatile long callbacks, accepted, duringReset, refusedOtherwise, lastOtherRefusal;

static void AQBufferCallback(void *inUserData, AudioQueueRef inAQ, AudioQueueBufferRef inCompleteAQBuffer)
{
    LoopPlayer *THIS = (LoopPlayer *)inUserData;
    if (!priming) callbacks++;

    UInt32 numBytes = inCompleteAQBuffer->mAudioDataBytesCapacity;
    UInt32 nPackets = THIS->mNumPacketsToRead;
    AudioFileReadPacketData(THIS->mAudioFile, false, &numBytes, NULL, THIS->mCurrentPacket, &nPackets,
                            inCompleteAQBuffer->mAudioData);
    if (nPackets > 0) {
        inCompleteAQBuffer->mAudioDataByteSize = numBytes;
        OSStatus result = AudioQueueEnqueueBuffer(inAQ, inCompleteAQBuffer, 0, NULL);
        if (result == noErr) {
            accepted++;
        } else if (result == kAudioQueueErr_EnqueueDuringReset) {
            duringReset++;
        } else {
            refusedOtherwise++;
            lastOtherRefusal = result;
        }
        THIS->mCurrentPacket = THIS->mCurrentPacket + nPackets;
    } else if (THIS->mIsLooping && THIS->mCurrentPacket > 0) {
        THIS->mCurrentPacket = 0;
        AQBufferCallback(inUserData, inAQ, inCompleteAQBuffer);
    }
}

// somewhere between 16K and 64K buffers, time only a guide
static void CalculateBytesForTime(const AudioStreamBasicDescription *inDesc, UInt32 inMaxPacketSize, Float64 inSeconds,
                                  UInt32 *outBufferSize, UInt32 *outNumPackets)
{
    static const UInt32 maxBufferSize = 0x10000;
    static const UInt32 minBufferSize = 0x4000;

    if (inDesc->mFramesPerPacket) {
        Float64 numPacketsForTime = inDesc->mSampleRate / inDesc->mFramesPerPacket * inSeconds;
        *outBufferSize = (UInt32)(numPacketsForTime * inMaxPacketSize);
    } else {
        *outBufferSize = maxBufferSize > inMaxPacketSize ? maxBufferSize : inMaxPacketSize;
    }
    if (*outBufferSize > maxBufferSize && *outBufferSize > inMaxPacketSize)
        *outBufferSize = maxBufferSize;
    else if (*outBufferSize < minBufferSize)
        *outBufferSize = minBufferSize;
    *outNumPackets = *outBufferSize / inMaxPacketSize;
}

int aq_reset_init(void)
{
#if TARGET_OS_IPHONE
    if (AudioSessionInitialize(NULL, NULL, NULL, NULL) != noErr) return 0;
    UInt32 category = kAudioSessionCategory_SoloAmbientSound;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(category), &category);
    AudioSessionSetActive(true);
#endif
    return 1;
}

long aq_reset_open(const char *path, int use_run_loop)
{
    if (player.mAudioFile) AudioFileClose(player.mAudioFile);
    memset(&player, 0, sizeof player);
    callbacks = 0;
    accepted = 0;
    duringReset = 0;
    refusedOtherwise = 0;
    lastOtherRefusal = 0;
    player.mIsLooping = true;

    CFURLRef sndFile = CFURLCreateFromFileSystemRepresentation(kCFAllocatorDefault, (const UInt8 *)path,
                                                               (CFIndex)strlen(path), false);
    if (!sndFile) return -1;
    OSStatus rc = AudioFileOpenURL(sndFile, kAudioFileReadPermission, 0, &player.mAudioFile);
    CFRelease(sndFile);
    if (rc) return rc;
    UInt32 size = sizeof(player.mDataFormat);
    rc = AudioFileGetProperty(player.mAudioFile, kAudioFilePropertyDataFormat, &size, &player.mDataFormat);
    if (rc) return rc;
    rc = AudioQueueNewOutput(&player.mDataFormat, AQBufferCallback, &player,
                             use_run_loop ? CFRunLoopGetCurrent() : NULL, kCFRunLoopCommonModes, 0, &player.mQueue);
    if (rc) return rc;

    UInt32 bufferByteSize, maxPacketSize;
    size = sizeof(maxPacketSize);
    rc = AudioFileGetProperty(player.mAudioFile, kAudioFilePropertyPacketSizeUpperBound, &size, &maxPacketSize);
    if (rc) return rc;
    CalculateBytesForTime(&player.mDataFormat, maxPacketSize, kBufferDurationSeconds, &bufferByteSize,
                          &player.mNumPacketsToRead);
    for (int i = 0; i < kNumberBuffers; ++i) {
        rc = AudioQueueAllocateBuffer(player.mQueue, bufferByteSize, &player.mBuffers[i]);
        if (rc) return rc;
    }
    return noErr;
}

void aq_reset_prime(void)
{
    priming = 1;
    for (int i = 0; i < kNumberBuffers; ++i) AQBufferCallback(&player, player.mQueue, player.mBuffers[i]);
    priming = 0;
}

long aq_reset_start(void) { return AudioQueueStart(player.mQueue, NULL); }
long aq_reset_stop(int immediate) { return AudioQueueStop(player.mQueue, immediate != 0); }

long aq_reset_reset(void)
{
    OSStatus result = AudioQueueReset(player.mQueue);
    player.mCurrentPacket = 0; // the seek: back to the start of the loop
    return result;
}

long aq_reset_dispose(int immediate)
{
    OSStatus result = AudioQueueDispose(player.mQueue, immediate != 0);
    player.mQueue = NULL;
    AudioFileClose(player.mAudioFile);
    player.mAudioFile = 0;
    return result;
}

int aq_reset_is_running(void)
{
    UInt32 running = 0, size = sizeof running;
    if (player.mQueue) AudioQueueGetProperty(player.mQueue, kAudioQueueProperty_IsRunning, &running, &size);
    return (int)running;
}

long aq_reset_callbacks(void) { return callbacks; }
long aq_reset_enqueues_accepted(void) { return accepted; }
long aq_reset_enqueues_during_reset(void) { return duringReset; }
long aq_reset_enqueues_refused_otherwise(void) { return refusedOtherwise; }
long aq_reset_last_other_refusal(void) { return lastOtherRefusal; }
