/* Offline rendering through an output audio queue: see aq_offline.h. Compiles as C and
 * as C++. */
#include "aq_offline.h"
#include <AudioToolbox/AudioToolbox.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define kMaxBuffers 3

typedef struct AQTestInfo {
    AudioFileID mAudioFile;
    AudioStreamBasicDescription mDataFormat;
    AudioQueueRef mQueue;
    AudioQueueBufferRef mBuffers[kMaxBuffers];
    SInt64 mCurrentPacket;
    UInt32 mNumPacketsToRead;
    AudioStreamPacketDescription *mPacketDescs;
    Boolean mFlushed;
    Boolean mDone;
} AQTestInfo;

/* What the harness reads. */
static const char *failedCall = "";
static pthread_t renderThread;
static volatile int counting, insideRender;
static volatile long queueCallbacks, otherThreads, outsideRender, readError;
static long framesWritten, bufferFrames, renders;

#define FAIL_IF_ERROR(expression, what)                                            \
    do {                                                                           \
        OSStatus error_ = (expression);                                            \
        if (error_) {                                                              \
            failedCall = what;                                                     \
            fprintf(stderr, "Error: %s (%d)\n", what, (int)error_);                \
            return error_;                                                         \
        }                                                                          \
    } while (0)

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

static void AQTestBufferCallback(void *inUserData, AudioQueueRef inAQ, AudioQueueBufferRef inCompleteAQBuffer)
{
    AQTestInfo *myInfo = (AQTestInfo *)inUserData;
    if (counting) {
        queueCallbacks++;
        if (!pthread_equal(pthread_self(), renderThread)) otherThreads++;
        if (!insideRender) outsideRender++;
    }
    if (myInfo->mDone) return;

    UInt32 numBytes;
    UInt32 nPackets = myInfo->mNumPacketsToRead;
    OSStatus result = AudioFileReadPackets(myInfo->mAudioFile, false, &numBytes, myInfo->mPacketDescs,
                                           myInfo->mCurrentPacket, &nPackets, inCompleteAQBuffer->mAudioData);
    if (result) {
        /* the sample exits here; this goes on with what was read */
        fprintf(stderr, "Error reading from file: %d (%u packets read)\n", (int)result, (unsigned)nPackets);
        if (!readError) readError = result;
    }

    if (nPackets > 0) {
        inCompleteAQBuffer->mAudioDataByteSize = numBytes;
        result = AudioQueueEnqueueBuffer(inAQ, inCompleteAQBuffer, myInfo->mPacketDescs ? nPackets : 0,
                                         myInfo->mPacketDescs);
        if (result) fprintf(stderr, "Error enqueuing buffer: %d\n", (int)result);
        myInfo->mCurrentPacket += nPackets;
    } else {
        // flush the queue when done, so all the data comes out
        if (!myInfo->mFlushed) {
            result = AudioQueueFlush(myInfo->mQueue);
            if (result) fprintf(stderr, "AudioQueueFlush failed: %d\n", (int)result);
            myInfo->mFlushed = true;
        }
        result = AudioQueueStop(myInfo->mQueue, false);
        if (result) fprintf(stderr, "AudioQueueStop(false) failed: %d\n", (int)result);
        // reading nPackets == 0 is the end of the file
        myInfo->mDone = true;
    }
}

static Boolean IsRunning(AudioQueueRef queue)
{
    UInt32 running = 0, size = sizeof(running);
    AudioQueueGetProperty(queue, kAudioQueueProperty_IsRunning, &running, &size);
    return running != 0;
}

static Boolean IsSilent(AudioQueueBufferRef buffer)
{
    const SInt16 *samples = (const SInt16 *)buffer->mAudioData;
    for (UInt32 i = 0; i < buffer->mAudioDataByteSize / 2; i++)
        if (samples[i] != 0) return false;
    return true;
}

long aq_offline_render(const char *source, const char *destination, int buffers, long max_frames)
{
    AQTestInfo myInfo;
    memset(&myInfo, 0, sizeof myInfo);
    failedCall = "";
    queueCallbacks = 0;
    otherThreads = 0;
    outsideRender = 0;
    readError = 0;
    framesWritten = bufferFrames = renders = 0;
    counting = 0;
    insideRender = 0;
    renderThread = pthread_self();
    if (buffers < 1) buffers = 1;
    if (buffers > kMaxBuffers) buffers = kMaxBuffers;

    CFURLRef sourceURL = CFURLCreateFromFileSystemRepresentation(kCFAllocatorDefault, (const UInt8 *)source,
                                                                 (CFIndex)strlen(source), false);
    CFURLRef destinationURL = CFURLCreateFromFileSystemRepresentation(kCFAllocatorDefault, (const UInt8 *)destination,
                                                                      (CFIndex)strlen(destination), false);

    // get the source file
    FAIL_IF_ERROR(AudioFileOpenURL(sourceURL, kAudioFileReadPermission, 0, &myInfo.mAudioFile), "AudioFileOpen");
    UInt32 size = sizeof(myInfo.mDataFormat);
    FAIL_IF_ERROR(AudioFileGetProperty(myInfo.mAudioFile, kAudioFilePropertyDataFormat, &size, &myInfo.mDataFormat),
                  "couldn't get file's data format");

    // a new output queue, calling back on this thread's run loop
    FAIL_IF_ERROR(AudioQueueNewOutput(&myInfo.mDataFormat, AQTestBufferCallback, &myInfo, CFRunLoopGetCurrent(),
                                      kCFRunLoopCommonModes, 0, &myInfo.mQueue),
                  "AudioQueueNew");

    // how many packets we read at a time and how big a buffer we need
    UInt32 bufferByteSize;
    Boolean isFormatVBR = myInfo.mDataFormat.mBytesPerPacket == 0 || myInfo.mDataFormat.mFramesPerPacket == 0;
    UInt32 maxPacketSize;
    size = sizeof(maxPacketSize);
    FAIL_IF_ERROR(AudioFileGetProperty(myInfo.mAudioFile, kAudioFilePropertyPacketSizeUpperBound, &size, &maxPacketSize),
                  "couldn't get file's max packet size");
    // about a second of audio in this format
    CalculateBytesForTime(&myInfo.mDataFormat, maxPacketSize, 1.0, &bufferByteSize, &myInfo.mNumPacketsToRead);
    if (isFormatVBR)
        myInfo.mPacketDescs = (AudioStreamPacketDescription *)calloc(myInfo.mNumPacketsToRead,
                                                                     sizeof(AudioStreamPacketDescription));
    bufferFrames = (long)myInfo.mNumPacketsToRead * (long)(myInfo.mDataFormat.mFramesPerPacket ? myInfo.mDataFormat.mFramesPerPacket : 1);
    printf("Buffer Byte Size: %d, Num Packets to Read: %d\n", (int)bufferByteSize, (int)myInfo.mNumPacketsToRead);

    // if the file has a magic cookie, set it on the queue
    size = sizeof(UInt32);
    OSStatus result = AudioFileGetPropertyInfo(myInfo.mAudioFile, kAudioFilePropertyMagicCookieData, &size, NULL);
    if (!result && size) {
        char *cookie = (char *)malloc(size);
        FAIL_IF_ERROR(AudioFileGetProperty(myInfo.mAudioFile, kAudioFilePropertyMagicCookieData, &size, cookie),
                      "get cookie from file");
        FAIL_IF_ERROR(AudioQueueSetProperty(myInfo.mQueue, kAudioQueueProperty_MagicCookie, cookie, size),
                      "set cookie on queue");
        free(cookie);
    }

    // channel layout?
    AudioChannelLayout *acl = NULL;
    OSStatus err = AudioFileGetPropertyInfo(myInfo.mAudioFile, kAudioFilePropertyChannelLayout, &size, NULL);
    if (err == noErr && size > 0) {
        acl = (AudioChannelLayout *)malloc(size);
        FAIL_IF_ERROR(AudioFileGetProperty(myInfo.mAudioFile, kAudioFilePropertyChannelLayout, &size, acl),
                      "get audio file's channel layout");
        FAIL_IF_ERROR(AudioQueueSetProperty(myInfo.mQueue, kAudioQueueProperty_ChannelLayout, acl, size),
                      "set channel layout on queue");
    }

    // the read buffers; players prime theirs before the start
    for (int i = 0; i < buffers; i++)
        FAIL_IF_ERROR(AudioQueueAllocateBuffer(myInfo.mQueue, bufferByteSize, &myInfo.mBuffers[i]),
                      "AudioQueueAllocateBuffer");
    if (buffers > 1)
        for (int i = 0; i < buffers; i++) AQTestBufferCallback(&myInfo, myInfo.mQueue, myInfo.mBuffers[i]);

    // the capture format: 16-bit interleaved at the file's rate and channel count
    AudioStreamBasicDescription captureFormat;
    memset(&captureFormat, 0, sizeof captureFormat);
    captureFormat.mSampleRate = myInfo.mDataFormat.mSampleRate;
    captureFormat.mFormatID = kAudioFormatLinearPCM;
    captureFormat.mFormatFlags = kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked;
    captureFormat.mChannelsPerFrame = myInfo.mDataFormat.mChannelsPerFrame;
    captureFormat.mBitsPerChannel = 16;
    captureFormat.mBytesPerPacket = captureFormat.mBytesPerFrame = 2 * captureFormat.mChannelsPerFrame;
    captureFormat.mFramesPerPacket = 1;
    FAIL_IF_ERROR(AudioQueueSetOfflineRenderFormat(myInfo.mQueue, &captureFormat, acl), "set offline render format");

    // the capture file: 16-bit WAVE, the queue's format as its client format
    AudioStreamBasicDescription dstFormat = captureFormat;
    ExtAudioFileRef captureFile;
    FAIL_IF_ERROR(ExtAudioFileCreateWithURL(destinationURL, kAudioFileWAVEType, &dstFormat, acl,
                                            kAudioFileFlags_EraseFile, &captureFile),
                  "ExtAudioFileCreateWithURL");
    FAIL_IF_ERROR(ExtAudioFileSetProperty(captureFile, kExtAudioFileProperty_ClientDataFormat,
                                          sizeof(AudioStreamBasicDescription), &captureFormat),
                  "set ExtAudioFile client format");

    // the capture buffer: half the read buffer, never pulling faster than we push
    const UInt32 captureBufferByteSize = bufferByteSize / 2;
    AudioQueueBufferRef captureBuffer;
    AudioBufferList captureABL;
    FAIL_IF_ERROR(AudioQueueAllocateBuffer(myInfo.mQueue, captureBufferByteSize, &captureBuffer),
                  "AudioQueueAllocateBuffer");
    captureABL.mNumberBuffers = 1;
    captureABL.mBuffers[0].mData = captureBuffer->mAudioData;
    captureABL.mBuffers[0].mNumberChannels = captureFormat.mChannelsPerFrame;

    // start; Stop(false) comes from the callback at the end of the file
    counting = 1;
    FAIL_IF_ERROR(AudioQueueStart(myInfo.mQueue, NULL), "AudioQueueStart");

    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    ts.mSampleTime = 0;

    // once for 0 frames first
    insideRender = 1;
    result = AudioQueueOfflineRender(myInfo.mQueue, &ts, captureBuffer, 0);
    insideRender = 0;
    FAIL_IF_ERROR(result, "AudioQueueOfflineRender");

    // the sample enqueues its buffer after the queue has started
    if (buffers == 1) {
        counting = 0;
        AQTestBufferCallback(&myInfo, myInfo.mQueue, myInfo.mBuffers[0]);
        counting = 1;
    }

    long status = 0;
    while (true) {
        UInt32 reqFrames = captureBufferByteSize / captureFormat.mBytesPerFrame;
        if ((long)reqFrames * renders >= max_frames) { status = 1; break; }
        insideRender = 1;
        result = AudioQueueOfflineRender(myInfo.mQueue, &ts, captureBuffer, reqFrames);
        insideRender = 0;
        renders++;
        FAIL_IF_ERROR(result, "AudioQueueOfflineRender");

        captureABL.mBuffers[0].mData = captureBuffer->mAudioData;
        captureABL.mBuffers[0].mDataByteSize = captureBuffer->mAudioDataByteSize;
        UInt32 writeFrames = captureABL.mBuffers[0].mDataByteSize / captureFormat.mBytesPerFrame;

        FAIL_IF_ERROR(ExtAudioFileWrite(captureFile, writeFrames, &captureABL), "ExtAudioFileWrite");
        framesWritten += writeFrames;

        // the sample's one buffer has played out when its callback meets the end; a
        // player's other buffers may still hold the rest, so it goes on until the queue
        // has stopped (Stop(false) done), gives back less than asked, or silence
        if (myInfo.mFlushed && (buffers == 1 || !IsRunning(myInfo.mQueue) || writeFrames < reqFrames ||
                                IsSilent(captureBuffer)))
            break;
        ts.mSampleTime += writeFrames;
    }
    counting = 0;

    // (the sample turns the run loop for a second here; this program never runs it)
    FAIL_IF_ERROR(AudioQueueDispose(myInfo.mQueue, true), "AudioQueueDispose(true)");
    FAIL_IF_ERROR(AudioFileClose(myInfo.mAudioFile), "AudioFileClose");
    FAIL_IF_ERROR(ExtAudioFileDispose(captureFile), "ExtAudioFileDispose");

    free(myInfo.mPacketDescs);
    free(acl);
    CFRelease(sourceURL);
    CFRelease(destinationURL);
    return status;
}

const char *aq_offline_failed_call(void) { return failedCall; }
long aq_offline_queue_callbacks(void) { return queueCallbacks; }
long aq_offline_callbacks_on_other_threads(void) { return otherThreads; }
long aq_offline_callbacks_outside_render(void) { return outsideRender; }
long aq_offline_frames_written(void) { return framesWritten; }
long aq_offline_buffer_frames(void) { return bufferFrames; }
long aq_offline_renders(void) { return renders; }
long aq_offline_read_error(void) { return readError; }
