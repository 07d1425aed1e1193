/*
 * Audio queues on PipeWire against bare pw_stream clients of the same server, rate and
 * latency, in the same run (scripts/pw-stack.sh; AUDIOTOOLBOX_ARBITER=local):
 *
 *  1. Latency: a running, idle output queue is given one buffer that starts with an
 *     impulse; the time from AudioQueueEnqueueBuffer to the impulse's arrival at the
 *     sink's monitor (a recorder in this process) against a bare client that writes the
 *     impulse in its next process callback after the same moment. p50 and p99 over 5
 *     alternating runs; ratio goal: at most 1.2.
 *  2. CPU per second of AAC playback (48 kHz stereo, 128 kb/s, packets in memory for
 *     both): the queue (three buffers of packets refilled on its thread, decoded by the
 *     library) against libavcodec decoding in a bare pw_stream's process callback.
 *     Process CPU time over the steady part, medians of 5 alternating runs; ratio goal:
 *     at most 1.2.
 *  3. Turnaround at 5 ms buffers: a running queue is given one 240-frame buffer (5 ms at
 *     48 kHz); the time from AudioQueueEnqueueBuffer to its output callback (played, and
 *     handed back on the queue's thread), against a bare pw_stream client whose process
 *     callback plays a 240-frame buffer handed to it and then wakes a waiting thread (a
 *     semaphore): the same hand-off, play, hand-back. p50 and p99 of 60 turnarounds in
 *     each of 5 alternating runs; ratio goal: at most 1.2.
 */
#include <AudioToolbox/AudioToolbox.h>
#include "bench_common.h"
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <pipewire/pipewire.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_MARKS 256
#include "bench_pipewire.h"

enum { RATE = PW_RATE, PERIOD = PW_PERIOD };

/* ---- 1. latency ---- */
static volatile int impulseWanted;

static void bareImpulse(SInt16 *samples, uint32_t frames)
{
    memset(samples, 0, frames * 4);
    if (__atomic_exchange_n(&impulseWanted, 0, __ATOMIC_ACQ_REL)) samples[0] = samples[1] = 20000;
}

static AudioQueueRef queue;
static AudioQueueBufferRef impulseBuffer;
static volatile int impulseBack = 1;

static void impulseDone(void *d, AudioQueueRef q, AudioQueueBufferRef b) { (void)d; (void)q; (void)b; impulseBack = 1; }

static void queueLatencyStart(void)
{
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM,
                                     kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AudioQueueNewOutput(&f, impulseDone, NULL, NULL, NULL, 0, &queue);
    AudioQueueAllocateBuffer(queue, PERIOD * 4, &impulseBuffer);
    memset(impulseBuffer->mAudioData, 0, PERIOD * 4);
    ((SInt16 *)impulseBuffer->mAudioData)[0] = ((SInt16 *)impulseBuffer->mAudioData)[1] = 20000;
    impulseBuffer->mAudioDataByteSize = PERIOD * 4;
    impulseBack = 1;
    if (AudioQueueStart(queue, NULL) != noErr) { fprintf(stderr, "the queue did not start on PipeWire\n"); exit(2); }
}

static void queueLatencyStop(void) { AudioQueueDispose(queue, true); }

typedef struct { double p50, p99; int marks; } Latency;

static Latency latencyRun(int useQueue)
{
    if (useQueue) queueLatencyStart(); else { bareProduce = bareImpulse; bareStart(); }
    usleep(500000);
    sentCount = receivedCount = 0;
    for (int i = 0; i < 24; i++) {
        if (useQueue) {
            while (!impulseBack) usleep(1000);
            impulseBack = 0;
            sent[sentCount++] = benchNow();
            AudioQueueEnqueueBuffer(queue, impulseBuffer, 0, NULL);
        } else {
            sent[sentCount++] = benchNow();
            __atomic_store_n(&impulseWanted, 1, __ATOMIC_RELEASE);
        }
        usleep(150000);
    }
    if (useQueue) queueLatencyStop(); else bareStop();
    static double latency[MAX_MARKS];
    int n = pairedLatencies(latency);
    Latency l = {n ? latency[n / 2] : 0, n ? latency[(int)(n * 0.99)] : 0, n};
    return l;
}

/* ---- 3. turnaround at 5 ms buffers ---- */
enum { TURN_FRAMES = 240, TURNS = 60 };
static sem_t turned;
static volatile long long turnedAt;
static volatile int turnPending;   /* frames of the bare client's buffer still to play */

static void bareTurn(SInt16 *samples, uint32_t frames)
{
    memset(samples, 0, frames * 4);
    int left = __atomic_load_n(&turnPending, __ATOMIC_ACQUIRE);
    if (left <= 0) return;
    int played = (int)frames < left ? (int)frames : left;
    for (int i = 0; i < played; i++) samples[2 * i] = samples[2 * i + 1] = 1000;
    __atomic_store_n(&turnPending, left - played, __ATOMIC_RELEASE);
    if (left - played == 0) sem_post(&turned);
}

static void queueTurned(void *d, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)d; (void)q; (void)b;
    turnedAt = benchNow();
    sem_post(&turned);
}


static Latency turnaroundRun(int useQueue)
{
    AudioQueueBufferRef buffer = NULL;
    if (useQueue) {
        AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM,
                                         kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
        AudioQueueNewOutput(&f, queueTurned, NULL, NULL, NULL, 0, &queue);
        AudioQueueAllocateBuffer(queue, TURN_FRAMES * 4, &buffer);
        for (int i = 0; i < TURN_FRAMES * 2; i++) ((SInt16 *)buffer->mAudioData)[i] = 1000;
        buffer->mAudioDataByteSize = TURN_FRAMES * 4;
        if (AudioQueueStart(queue, NULL) != noErr) { fprintf(stderr, "the queue did not start on PipeWire\n"); exit(2); }
    } else {
        bareProduce = bareTurn;
        bareStart();
    }
    usleep(300000);
    static double took[TURNS];
    for (int i = 0; i < TURNS; i++) {
        long long at = benchNow();
        if (useQueue) {
            AudioQueueEnqueueBuffer(queue, buffer, 0, NULL);
            sem_wait(&turned);
            took[i] = (turnedAt - at) / 1e6;
        } else {
            __atomic_store_n(&turnPending, TURN_FRAMES, __ATOMIC_RELEASE);
            sem_wait(&turned);
            took[i] = (benchNow() - at) / 1e6;
        }
        usleep(7000 + (i % 7) * 1000);   /* not in step with the period */
    }
    if (useQueue) AudioQueueDispose(queue, true); else bareStop();
    qsort(took, TURNS, sizeof(double), compareDoubles);
    Latency l = {took[TURNS / 2], took[TURNS * 99 / 100], TURNS};
    return l;
}

/* ---- 2. AAC playback ---- */
enum { MAX_PACKETS = 4096 };
static unsigned char *packetData;
static AudioStreamPacketDescription packets[MAX_PACKETS];
static long packetCount;
static AudioStreamBasicDescription aacFormat;
static unsigned char cookie[256];
static UInt32 cookieSize;

static int loadAAC(const char *path)
{
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    AudioFileID file;
    OSStatus s = AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file);
    CFRelease(url);
    if (s) return 0;
    UInt32 size = sizeof aacFormat;
    AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &size, &aacFormat);
    cookieSize = sizeof cookie;
    AudioFileGetProperty(file, kAudioFilePropertyMagicCookieData, &cookieSize, cookie);
    UInt64 bytes = 0;
    size = sizeof bytes;
    AudioFileGetProperty(file, kAudioFilePropertyAudioDataByteCount, &size, &bytes);
    packetData = malloc(bytes + 4096);
    UInt32 n = MAX_PACKETS, got = (UInt32)bytes + 4096;
    AudioFileReadPacketData(file, false, &got, packets, 0, &n, packetData);
    packetCount = n;
    AudioFileClose(file);
    return packetCount > 100;
}

static long nextPacket;

static void refillAAC(void *d, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)d;
    UInt32 bytes = 0, count = 0;
    while (count < b->mPacketDescriptionCapacity) {
        AudioStreamPacketDescription p = packets[nextPacket];
        if (bytes + p.mDataByteSize > b->mAudioDataBytesCapacity) break;
        memcpy((char *)b->mAudioData + bytes, packetData + p.mStartOffset, p.mDataByteSize);
        b->mPacketDescriptions[count] = p;
        b->mPacketDescriptions[count].mStartOffset = bytes;
        bytes += p.mDataByteSize;
        count++;
        nextPacket = (nextPacket + 1) % packetCount;
    }
    b->mAudioDataByteSize = bytes;
    b->mPacketDescriptionCount = count;
    AudioQueueEnqueueBuffer(q, b, 0, NULL);
}

static void queueAACStart(void)
{
    nextPacket = 0;
    AudioQueueNewOutput(&aacFormat, refillAAC, NULL, NULL, NULL, 0, &queue);
    AudioQueueSetProperty(queue, kAudioQueueProperty_MagicCookie, cookie, cookieSize);
    for (int i = 0; i < 3; i++) {
        AudioQueueBufferRef b;
        AudioQueueAllocateBufferWithPacketDescriptions(queue, 8192, 32, &b);
        refillAAC(NULL, queue, b);
    }
    if (AudioQueueStart(queue, NULL) != noErr) { fprintf(stderr, "the AAC queue did not start\n"); exit(2); }
}

static void queueAACStop(void) { AudioQueueDispose(queue, true); }

static AVCodecContext *codec;
static AVFrame *frame;
static AVPacket *packet;
static int frameAt, frameFrames;

static void bareDecode(SInt16 *samples, uint32_t frames)
{
    uint32_t done = 0;
    while (done < frames) {
        if (frameAt >= frameFrames) {
            if (avcodec_receive_frame(codec, frame) == 0) { frameAt = 0; frameFrames = frame->nb_samples; continue; }
            AudioStreamPacketDescription p = packets[nextPacket];
            nextPacket = (nextPacket + 1) % packetCount;
            packet->data = packetData + p.mStartOffset;
            packet->size = (int)p.mDataByteSize;
            avcodec_send_packet(codec, packet);
            continue;
        }
        const float *left = (const float *)frame->data[0], *right = (const float *)frame->data[1];
        for (; done < frames && frameAt < frameFrames; done++, frameAt++) {
            float l = left[frameAt] * 32767.0f, r = right[frameAt] * 32767.0f;
            samples[2 * done] = (SInt16)(l > 32767 ? 32767 : l < -32768 ? -32768 : l);
            samples[2 * done + 1] = (SInt16)(r > 32767 ? 32767 : r < -32768 ? -32768 : r);
        }
    }
}

static void bareAACStart(void)
{
    nextPacket = 0;
    const AVCodec *aac = avcodec_find_decoder(AV_CODEC_ID_AAC);
    codec = avcodec_alloc_context3(aac);
    codec->extradata = av_mallocz(cookieSize + AV_INPUT_BUFFER_PADDING_SIZE);
    /* The cookie is an esds; the decoder wants its AudioSpecificConfig: the last
     * descriptor's two bytes for AAC-LC (found after the 0x05 tag). */
    for (UInt32 i = 0; i + 2 < cookieSize; i++) {
        if (cookie[i] == 0x05) {
            UInt32 at = i + 1, length = 0;
            while (at < cookieSize && (cookie[at] & 0x80)) length = (length << 7) | (cookie[at++] & 0x7F);
            length = (length << 7) | (cookie[at++] & 0x7F);
            if (at + length <= cookieSize) { memcpy(codec->extradata, cookie + at, length); codec->extradata_size = (int)length; }
            break;
        }
    }
    avcodec_open2(codec, aac, NULL);
    frame = av_frame_alloc();
    packet = av_packet_alloc();
    frameAt = frameFrames = 0;
    bareProduce = bareDecode;
    bareStart();
}

static void bareAACStop(void)
{
    bareStop();
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&codec);
}

static double cpuRun(void (*start)(void), void (*stop)(void), double seconds)
{
    start();
    usleep(500000);
    long long cpu0 = cpuNow();
    usleep((useconds_t)(seconds * 1e6));
    long long cpu = cpuNow() - cpu0;
    stop();
    return (double)cpu / 1e6 / seconds;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: bench_queues_pw AAC-FILE\n"); return 2; }
    benchSessionOnPipeWire();

    double qP50[5], qP99[5], bP50[5], bP99[5];
    int marks = 0;
    for (int i = 0; i < 5; i++) {
        Latency b = latencyRun(0), q = latencyRun(1);
        bP50[i] = b.p50; bP99[i] = b.p99; qP50[i] = q.p50; qP99[i] = q.p99;
        marks = q.marks < b.marks ? q.marks : b.marks;
    }
    if (marks == 0) { fprintf(stderr, "queues on PipeWire: no impulse reached the sink\n"); return 1; }
    qsort(qP50, 5, sizeof(double), compareDoubles); qsort(qP99, 5, sizeof(double), compareDoubles);
    qsort(bP50, 5, sizeof(double), compareDoubles); qsort(bP99, 5, sizeof(double), compareDoubles);
    printf("queues on PipeWire: enqueue -> first frame at the sink's monitor (48 kHz, %d-frame latency, medians of 5 "
           "runs, %d impulses): queue p50 %.2f ms p99 %.2f ms, bare pw_stream p50 %.2f ms p99 %.2f ms: ratio p50 %.3f, "
           "p99 %.3f (goal <= 1.2)\n", PERIOD, marks, qP50[2], qP99[2], bP50[2], bP99[2], qP50[2] / bP50[2],
           qP99[2] / bP99[2]);

    sem_init(&turned, 0, 0);
    double tq50[5], tq99[5], tb50[5], tb99[5];
    for (int i = 0; i < 5; i++) {
        Latency b = turnaroundRun(0), q = turnaroundRun(1);
        tb50[i] = b.p50; tb99[i] = b.p99; tq50[i] = q.p50; tq99[i] = q.p99;
    }
    qsort(tq50, 5, sizeof(double), compareDoubles); qsort(tq99, 5, sizeof(double), compareDoubles);
    qsort(tb50, 5, sizeof(double), compareDoubles); qsort(tb99, 5, sizeof(double), compareDoubles);
    printf("queues on PipeWire: turnaround of a 5 ms buffer, enqueue -> its callback (48 kHz, %d-frame quantum, medians "
           "of 5 runs of %d): queue p50 %.2f ms p99 %.2f ms, bare pw_stream p50 %.2f ms p99 %.2f ms: ratio p50 %.3f, "
           "p99 %.3f (goal <= 1.2)\n", PERIOD, TURNS, tq50[2], tq99[2], tb50[2], tb99[2], tq50[2] / tb50[2], tq99[2] / tb99[2]);

    if (!loadAAC(argv[1])) { fprintf(stderr, "queues on PipeWire: cannot read %s\n", argv[1]); return 1; }
    double queueCPU[5], bareCPU[5];
    for (int i = 0; i < 5; i++) {
        bareCPU[i] = cpuRun(bareAACStart, bareAACStop, 4);
        queueCPU[i] = cpuRun(queueAACStart, queueAACStop, 4);
    }
    qsort(queueCPU, 5, sizeof(double), compareDoubles); qsort(bareCPU, 5, sizeof(double), compareDoubles);
    printf("queues on PipeWire: CPU per second of AAC playback (48 kHz stereo, %ld packets in memory, medians of 5 "
           "runs): queue %.2f ms (%.2f..%.2f), libavcodec + bare pw_stream %.2f ms (%.2f..%.2f): ratio %.3f "
           "(goal <= 1.2)\n", packetCount, queueCPU[2], queueCPU[0], queueCPU[4], bareCPU[2], bareCPU[0], bareCPU[4],
           queueCPU[2] / bareCPU[2]);
    return 0;
}
