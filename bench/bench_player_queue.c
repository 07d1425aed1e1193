/*
 * The baseline of the AVAudioPlayer benchmark: AVAudioPlayer's building blocks used
 * directly, as a C program plays a file: Audio File Services reading packets into three
 * buffers of an output audio queue (on the queue's own thread, no run loop), Stop(false)
 * at the end of the file, done when the queue stops running.
 * Prints "start NS cpu MS": CLOCK_MONOTONIC at AudioQueueStart (the buffers primed, as
 * the player's play() after prepareToPlay) and the process's CPU time at the end.
 *   bench_player_queue FILE
 */
#include <AudioToolbox/AudioToolbox.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include "bench_common.h"

static AudioFileID file;
static SInt64 packet;
static UInt32 packetBytes;
static volatile int finished;
static int ended;

static void fill(void *data, AudioQueueRef queue, AudioQueueBufferRef buffer)
{
    (void)data;
    if (ended) return;
    UInt32 bytes = buffer->mAudioDataBytesCapacity, packets = bytes / packetBytes;
    if (AudioFileReadPacketData(file, false, &bytes, NULL, packet, &packets, buffer->mAudioData) != noErr || packets == 0) {
        ended = 1;
        AudioQueueStop(queue, false);
        return;
    }
    packet += packets;
    buffer->mAudioDataByteSize = bytes;
    AudioQueueEnqueueBuffer(queue, buffer, 0, NULL);
}

static void running(void *data, AudioQueueRef queue, AudioQueuePropertyID id)
{
    (void)data;
    UInt32 value = 1, size = sizeof value;
    AudioQueueGetProperty(queue, id, &value, &size);
    if (!value) finished = 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)argv[1], (CFIndex)strlen(argv[1]), false);
    AudioStreamBasicDescription format;
    UInt32 size = sizeof format;
    if (AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file) || AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &size, &format))
        return 1;
    packetBytes = format.mBytesPerPacket;
    AudioQueueRef queue;
    if (AudioQueueNewOutput(&format, fill, NULL, NULL, NULL, 0, &queue)) return 1;
    AudioQueueAddPropertyListener(queue, kAudioQueueProperty_IsRunning, running, NULL);
    for (int i = 0; i < 3; i++) {
        AudioQueueBufferRef buffer;
        AudioQueueAllocateBuffer(queue, 4096 * packetBytes, &buffer);
        fill(NULL, queue, buffer);
    }
    double start = nowNanoseconds();
    if (AudioQueueStart(queue, NULL)) return 1;
    while (!finished) usleep(1000);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("start %.0f cpu %.3f\n", start, (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
                                            (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3);
    AudioQueueDispose(queue, true);
    return 0;
}
