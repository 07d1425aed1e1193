/* The audio queue file player: see aq_player.h. Compiles as C and as C++. */
#include "aq_player.h"
#include <AudioToolbox/AudioToolbox.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define kNumberBuffers 3
#define kBufferDurationSeconds 0.5

typedef struct AQPlayer {
    AudioFileID mAudioFile;
    AudioStreamBasicDescription mDataFormat;
    AudioQueueRef mQueue;
    AudioQueueBufferRef mBuffers[kNumberBuffers];
    UInt32 mNumPacketsToRead;
    SInt64 mCurrentPacket;
    UInt32 mIsRunning;
    Boolean mIsDone;
    Boolean mIsVBR;
    Boolean mStarted;
    Boolean mUsesRunLoop;
} AQPlayer;

static AQPlayer player;

/* What the harness reads. */
static char runningChanges[16];
static volatile long enqueued[kNumberBuffers], returned[kNumberBuffers], returnedWhenStopped = -1;
static volatile long enqueueFailures, onOpeningThread, elsewhere;
static pthread_t openingThread;
static volatile int priming, stoppedBeforeStart;

#if TARGET_OS_IPHONE
static void interruptionListener(void *inClientData, UInt32 inInterruptionState)
{
    AQPlayer *THIS = (AQPlayer *)inClientData;
    if (inInterruptionState == kAudioSessionBeginInterruption && THIS->mQueue) AudioQueuePause(THIS->mQueue);
}
#endif

static int bufferIndex(AudioQueueBufferRef b)
{
    for (int i = 0; i < kNumberBuffers; i++) if (player.mBuffers[i] == b) return i;
    return -1;
}

static void AQBufferCallback(void *inUserData, AudioQueueRef inAQ, AudioQueueBufferRef inCompleteAQBuffer)
{
    AQPlayer *THIS = (AQPlayer *)inUserData;
    int index = bufferIndex(inCompleteAQBuffer);
    if (!priming && index >= 0) returned[index]++;
    if (!priming) {
        if (pthread_equal(pthread_self(), openingThread)) onOpeningThread++;
        else elsewhere++;
    }

    if (THIS->mIsDone) return;

    UInt32 numBytes = inCompleteAQBuffer->mAudioDataBytesCapacity;
    UInt32 nPackets = THIS->mNumPacketsToRead;
    OSStatus result = AudioFileReadPacketData(THIS->mAudioFile, false, &numBytes,
                                              THIS->mIsVBR ? inCompleteAQBuffer->mPacketDescriptions : NULL,
                                              THIS->mCurrentPacket, &nPackets, inCompleteAQBuffer->mAudioData);
    if (result && result != kAudioFileEndOfFileError) printf("AudioFileReadPacketData failed: %d\n", (int)result);
    if (nPackets > 0) {
        inCompleteAQBuffer->mAudioDataByteSize = numBytes;
        inCompleteAQBuffer->mPacketDescriptionCount = THIS->mIsVBR ? nPackets : 0;
        if (AudioQueueEnqueueBuffer(inAQ, inCompleteAQBuffer, 0, NULL) == noErr) {
            if (index >= 0) enqueued[index]++;
        } else {
            enqueueFailures++;
        }
        THIS->mCurrentPacket = THIS->mCurrentPacket + nPackets;
    } else {
        // stop
        if (!THIS->mStarted) stoppedBeforeStart = 1;
        THIS->mIsDone = true;
        AudioQueueStop(inAQ, false);
    }
}

static void isRunningProc(void *inUserData, AudioQueueRef inAQ, AudioQueuePropertyID inID)
{
    AQPlayer *THIS = (AQPlayer *)inUserData;
    (void)inID;
    UInt32 size = sizeof(THIS->mIsRunning);
    OSStatus result = AudioQueueGetProperty(inAQ, kAudioQueueProperty_IsRunning, &THIS->mIsRunning, &size);
    if (result == noErr) {
        size_t n = strlen(runningChanges);
        if (n + 1 < sizeof runningChanges) {
            runningChanges[n] = (char)('0' + (THIS->mIsRunning ? 1 : 0));
            runningChanges[n + 1] = 0;
        }
        if (!THIS->mIsRunning) {
            long all = 0;
            for (int i = 0; i < kNumberBuffers; i++) all += returned[i];
            returnedWhenStopped = all;
        }
    }
}

// we only use time here as a guideline: somewhere between 16K and 64K buffers
static void CalculateBytesForTime(const AudioStreamBasicDescription *inDesc, UInt32 inMaxPacketSize, Float64 inSeconds,
                                  UInt32 *outBufferSize, UInt32 *outNumPackets)
{
    static const UInt32 maxBufferSize = 0x10000; // limit size to 64K
    static const UInt32 minBufferSize = 0x4000;  // limit size to 16K

    if (inDesc->mFramesPerPacket) {
        Float64 numPacketsForTime = inDesc->mSampleRate / inDesc->mFramesPerPacket * inSeconds;
        *outBufferSize = (UInt32)(numPacketsForTime * inMaxPacketSize);
    } else {
        // no predictable packet == time: a default buffer size
        *outBufferSize = maxBufferSize > inMaxPacketSize ? maxBufferSize : inMaxPacketSize;
    }

    if (*outBufferSize > maxBufferSize && *outBufferSize > inMaxPacketSize)
        *outBufferSize = maxBufferSize;
    else if (*outBufferSize < minBufferSize)
        *outBufferSize = minBufferSize;
    *outNumPackets = *outBufferSize / inMaxPacketSize;
}

int aq_player_init(void)
{
#if TARGET_OS_IPHONE
    if (AudioSessionInitialize(NULL, NULL, interruptionListener, &player) != noErr) return 0;
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof(category), &category);
    AudioSessionSetActive(true);
#endif
    return 1;
}

long aq_player_open(const char *path, int use_run_loop)
{
    memset(&player, 0, sizeof player);
    memset(runningChanges, 0, sizeof runningChanges);
    for (int i = 0; i < kNumberBuffers; i++) {
        enqueued[i] = 0;
        returned[i] = 0;
    }
    returnedWhenStopped = -1;
    enqueueFailures = 0;
    onOpeningThread = 0;
    elsewhere = 0;
    openingThread = pthread_self();
    stoppedBeforeStart = 0;
    player.mUsesRunLoop = use_run_loop != 0;

    CFURLRef sndFile = CFURLCreateFromFileSystemRepresentation(kCFAllocatorDefault, (const UInt8 *)path,
                                                               (CFIndex)strlen(path), false);
    if (!sndFile) { printf("can't parse file path\n"); return -1; }
    OSStatus rc = AudioFileOpenURL(sndFile, kAudioFileReadPermission, 0 /*inFileTypeHint*/, &player.mAudioFile);
    CFRelease(sndFile);
    if (rc) { printf("can't open file: %d\n", (int)rc); return rc; }

    UInt32 size = sizeof(player.mDataFormat);
    rc = AudioFileGetProperty(player.mAudioFile, kAudioFilePropertyDataFormat, &size, &player.mDataFormat);
    if (rc) { printf("couldn't get file's data format\n"); return rc; }

    rc = AudioQueueNewOutput(&player.mDataFormat, AQBufferCallback, &player,
                             use_run_loop ? CFRunLoopGetCurrent() : NULL, kCFRunLoopCommonModes, 0, &player.mQueue);
    if (rc) { printf("AudioQueueNew failed: %d\n", (int)rc); return rc; }

    // how many packets we read at a time and how big a buffer we need, from the
    // largest packet the file may have and about half a second of audio
    UInt32 bufferByteSize;
    UInt32 maxPacketSize;
    size = sizeof(maxPacketSize);
    rc = AudioFileGetProperty(player.mAudioFile, kAudioFilePropertyPacketSizeUpperBound, &size, &maxPacketSize);
    if (rc) { printf("couldn't get file's max packet size\n"); return rc; }
    CalculateBytesForTime(&player.mDataFormat, maxPacketSize, kBufferDurationSeconds, &bufferByteSize,
                          &player.mNumPacketsToRead);

    // if the file has a cookie, we should get it and set it on the queue
    size = sizeof(UInt32);
    OSStatus result = AudioFileGetPropertyInfo(player.mAudioFile, kAudioFilePropertyMagicCookieData, &size, NULL);
    if (!result && size) {
        char *cookie = (char *)malloc(size);
        rc = AudioFileGetProperty(player.mAudioFile, kAudioFilePropertyMagicCookieData, &size, cookie);
        if (!rc) rc = AudioQueueSetProperty(player.mQueue, kAudioQueueProperty_MagicCookie, cookie, size);
        free(cookie);
        if (rc) { printf("set cookie on queue failed: %d\n", (int)rc); return rc; }
    }

    // channel layout?
    result = AudioFileGetPropertyInfo(player.mAudioFile, kAudioFilePropertyChannelLayout, &size, NULL);
    if (result == noErr && size > 0) {
        AudioChannelLayout *acl = (AudioChannelLayout *)malloc(size);
        rc = AudioFileGetProperty(player.mAudioFile, kAudioFilePropertyChannelLayout, &size, acl);
        if (!rc) rc = AudioQueueSetProperty(player.mQueue, kAudioQueueProperty_ChannelLayout, acl, size);
        free(acl);
        if (rc) { printf("set channel layout on queue failed: %d\n", (int)rc); return rc; }
    }

    rc = AudioQueueAddPropertyListener(player.mQueue, kAudioQueueProperty_IsRunning, isRunningProc, &player);
    if (rc) { printf("adding property listener failed: %d\n", (int)rc); return rc; }

    player.mIsVBR = player.mDataFormat.mBytesPerPacket == 0 || player.mDataFormat.mFramesPerPacket == 0;
    for (int i = 0; i < kNumberBuffers; ++i) {
        rc = AudioQueueAllocateBufferWithPacketDescriptions(player.mQueue, bufferByteSize,
                                                            player.mIsVBR ? player.mNumPacketsToRead : 0,
                                                            &player.mBuffers[i]);
        if (rc) { printf("AudioQueueAllocateBuffer failed: %d\n", (int)rc); return rc; }
    }

    // set the volume of the queue
    AudioQueueSetParameter(player.mQueue, kAudioQueueParam_Volume, 1.0);
    return noErr;
}

long aq_player_start(void)
{
    player.mIsDone = false;
    player.mCurrentPacket = 0;
    // prime the queue with some data before starting
    priming = 1;
    for (int i = 0; i < kNumberBuffers; ++i) AQBufferCallback(&player, player.mQueue, player.mBuffers[i]);
    priming = 0;
    player.mStarted = true;
    return AudioQueueStart(player.mQueue, NULL);
}

void aq_player_wait(void)
{
    UInt32 running = 1;
    do {
        if (player.mUsesRunLoop) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.25, false);
        else usleep(250000);
        UInt32 size = sizeof(running);
        AudioQueueGetProperty(player.mQueue, kAudioQueueProperty_IsRunning, &running, &size);
    } while (running);
}

void aq_player_dispose(void)
{
    if (player.mQueue) {
        AudioQueueDispose(player.mQueue, true);
        player.mQueue = NULL;
    }
    if (player.mAudioFile) {
        AudioFileClose(player.mAudioFile);
        player.mAudioFile = 0;
    }
}

const char *aq_player_running_changes(void) { return runningChanges; }
long aq_player_returned_when_stopped(void) { return returnedWhenStopped; }

int aq_player_is_running(void)
{
    UInt32 running = 0, size = sizeof running;
    if (player.mQueue) AudioQueueGetProperty(player.mQueue, kAudioQueueProperty_IsRunning, &running, &size);
    return (int)running;
}

int aq_player_stopped_before_start(void) { return stoppedBeforeStart; }
long aq_player_enqueued(int i) { return i >= 0 && i < kNumberBuffers ? enqueued[i] : 0; }
long aq_player_returned(int i) { return i >= 0 && i < kNumberBuffers ? returned[i] : 0; }
long aq_player_enqueue_failures(void) { return enqueueFailures; }
long aq_player_callbacks_on_opening_thread(void) { return onOpeningThread; }
long aq_player_callbacks_elsewhere(void) { return elsewhere; }
long aq_player_packets_read(void) { return (long)player.mCurrentPacket; }

long aq_player_packets_in_file(void)
{
    UInt64 packets = 0;
    UInt32 size = sizeof packets;
    if (player.mAudioFile) AudioFileGetProperty(player.mAudioFile, kAudioFilePropertyAudioDataPacketCount, &size, &packets);
    return (long)packets;
}

int aq_player_is_vbr(void) { return player.mIsVBR; }
