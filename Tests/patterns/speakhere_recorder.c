/* The client side: see speakhere_recorder.h. Written the way the sample is: result codes
 * mostly unchecked, the file written from the queue's callback on its own thread. */
#include "speakhere_recorder.h"
#include <math.h>
#include <string.h>

static AudioQueueRef queue;
static AudioFileID file;
static AudioStreamBasicDescription recordFormat;
static SInt64 recordPacket;
static volatile int running;
static long callbacks;
static OSStatus cookieAtStart = 1, cookieAtStop = 1;
static double starts[256];
static UInt32 packetsIn[256];
static volatile int buffers;

static OSStatus copyEncoderCookieToFile(void)
{
    UInt32 size = 0;
    OSStatus status = AudioQueueGetPropertySize(queue, kAudioQueueProperty_MagicCookie, &size);
    if (status == noErr && size > 0) {
        char *cookie = (char *)malloc(size);
        if (AudioQueueGetProperty(queue, kAudioQueueProperty_MagicCookie, cookie, &size) == noErr)
            status = AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, size, cookie);
        free(cookie);
    }
    return status;
}

static void inputBufferHandler(void *user, AudioQueueRef q, AudioQueueBufferRef buffer, const AudioTimeStamp *start,
                               UInt32 packets, const AudioStreamPacketDescription *descriptions)
{
    (void)user;
    callbacks++;
    if (buffers < 256) {
        starts[buffers] = start->mSampleTime;
        packetsIn[buffers] = packets;
        buffers++;
    }
    if (packets > 0) {
        AudioFileWritePackets(file, false, buffer->mAudioDataByteSize, descriptions, recordPacket, &packets,
                              buffer->mAudioData);
        recordPacket += packets;
    }
    if (running) AudioQueueEnqueueBuffer(q, buffer, 0, NULL);
}

static UInt32 computeRecordBufferSize(double seconds)
{
    int frames = (int)ceil(seconds * recordFormat.mSampleRate);
    if (recordFormat.mBytesPerFrame > 0) return frames * recordFormat.mBytesPerFrame;
    UInt32 maxPacketSize = recordFormat.mBytesPerPacket;
    if (maxPacketSize == 0) {
        UInt32 size = sizeof maxPacketSize;
        AudioQueueGetProperty(queue, kAudioQueueProperty_MaximumOutputPacketSize, &maxPacketSize, &size);
    }
    int packets = recordFormat.mFramesPerPacket > 0 ? frames / (int)recordFormat.mFramesPerPacket : frames;
    if (packets == 0) packets = 1;
    return packets * maxPacketSize;
}

int speakhere_record_start(const char *path)
{
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionSetActive(true);

    memset(&recordFormat, 0, sizeof recordFormat);
    UInt32 size = sizeof recordFormat.mSampleRate;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &recordFormat.mSampleRate);
    size = sizeof recordFormat.mChannelsPerFrame;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareInputNumberChannels, &size, &recordFormat.mChannelsPerFrame);
    recordFormat.mFormatID = kAudioFormatMPEG4AAC;

    if (AudioQueueNewInput(&recordFormat, inputBufferHandler, NULL, NULL, NULL, 0, &queue) != noErr) return 0;
    size = sizeof recordFormat;
    AudioQueueGetProperty(queue, kAudioQueueProperty_StreamDescription, &recordFormat, &size);

    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    OSStatus made = AudioFileCreateWithURL(url, kAudioFileCAFType, &recordFormat, kAudioFileFlags_EraseFile, &file);
    CFRelease(url);
    if (made != noErr) return 0;
    cookieAtStart = copyEncoderCookieToFile();

    UInt32 bufferByteSize = computeRecordBufferSize(0.5);
    for (int i = 0; i < 3; i++) {
        AudioQueueBufferRef buffer;
        AudioQueueAllocateBuffer(queue, bufferByteSize, &buffer);
        AudioQueueEnqueueBuffer(queue, buffer, 0, NULL);
    }
    running = 1;
    return AudioQueueStart(queue, NULL) == noErr;
}

void speakhere_record_stop(void)
{
    running = 0;
    AudioQueueStop(queue, true);
    /* The encoder's cookie may have changed while recording: copy it again. */
    cookieAtStop = copyEncoderCookieToFile();
    AudioQueueDispose(queue, true);
    AudioFileClose(file);
}

long speakhere_packets(void) { return (long)recordPacket; }
long speakhere_callbacks(void) { return callbacks; }
OSStatus speakhere_cookie_status_at_start(void) { return cookieAtStart; }
OSStatus speakhere_cookie_status_at_stop(void) { return cookieAtStop; }
int speakhere_buffer_count(void) { return buffers; }
double speakhere_buffer_start(int index) { return starts[index]; }
UInt32 speakhere_buffer_packets(int index) { return packetsIn[index]; }
