/* The streaming radio player: see radio_player.h. Compiles as C and as C++. */
#include "radio_player.h"
#include <AudioToolbox/AudioToolbox.h>
#include <pthread.h>
#include <string.h>

#define BUFFERS 3
#define BUFFER_BYTES 8192
#define DESCRIPTIONS 64

static AudioFileStreamID stream;
static AudioQueueRef queue;
static AudioQueueBufferRef buffers[BUFFERS];
static int inUse[BUFFERS];
static int fillIndex, started, paused;
static UInt32 bytesFilled, packetsFilled;
static AudioStreamPacketDescription descriptions[DESCRIPTIONS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static volatile long buffersPlayed;
static char runningChanges[32];
static volatile int begins, ends;

static void outputCallback(void *user, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)user; (void)q;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < BUFFERS; i++) if (buffers[i] == b) inUse[i] = 0;
    buffersPlayed++;
    pthread_cond_signal(&freed);
    pthread_mutex_unlock(&lock);
}

static void runningListener(void *user, AudioQueueRef q, AudioQueuePropertyID id)
{
    (void)user; (void)id;
    UInt32 running = 0, size = sizeof running;
    AudioQueueGetProperty(q, kAudioQueueProperty_IsRunning, &running, &size);
    size_t n = strlen(runningChanges);
    if (n + 1 < sizeof runningChanges) { runningChanges[n] = (char)('0' + running); runningChanges[n + 1] = 0; }
}

static void interruptionListener(void *user, UInt32 state)
{
    (void)user;
    if (state == kAudioSessionBeginInterruption) {
        begins++;
        if (queue && started) { AudioQueuePause(queue); paused = 1; }
    } else {
        ends++;
        AudioSessionSetActive(true);
        if (queue && paused) { AudioQueueStart(queue, NULL); paused = 0; }
    }
}

/* Enqueues the buffer being filled and waits (on the network thread) for the next one
 * to be free. */
static void enqueueBuffer(void)
{
    AudioQueueBufferRef b = buffers[fillIndex];
    b->mAudioDataByteSize = bytesFilled;
    pthread_mutex_lock(&lock);
    inUse[fillIndex] = 1;
    pthread_mutex_unlock(&lock);
    AudioQueueEnqueueBuffer(queue, b, packetsFilled, descriptions);
    if (!started && fillIndex == BUFFERS - 1) {
        AudioQueueStart(queue, NULL);
        started = 1;
    }
    fillIndex = (fillIndex + 1) % BUFFERS;
    bytesFilled = packetsFilled = 0;
    pthread_mutex_lock(&lock);
    while (inUse[fillIndex]) pthread_cond_wait(&freed, &lock);
    pthread_mutex_unlock(&lock);
}

static void propertyListener(void *user, AudioFileStreamID s, AudioFileStreamPropertyID id, UInt32 *flags)
{
    (void)user; (void)flags;
    if (id != kAudioFileStreamProperty_ReadyToProducePackets) return;
    AudioStreamBasicDescription format;
    UInt32 size = sizeof format;
    AudioFileStreamGetProperty(s, kAudioFileStreamProperty_DataFormat, &size, &format);
    if (AudioQueueNewOutput(&format, outputCallback, NULL, NULL, NULL, 0, &queue) != noErr) return;
    AudioQueueAddPropertyListener(queue, kAudioQueueProperty_IsRunning, runningListener, NULL);
    for (int i = 0; i < BUFFERS; i++) AudioQueueAllocateBuffer(queue, BUFFER_BYTES, &buffers[i]);
}

static void packetsProc(void *user, UInt32 bytes, UInt32 packets, const void *data,
                        AudioStreamPacketDescription *packetDescriptions)
{
    (void)user; (void)bytes;
    if (!queue) return;
    for (UInt32 i = 0; i < packets; i++) {
        SInt64 offset = packetDescriptions[i].mStartOffset;
        UInt32 size = packetDescriptions[i].mDataByteSize;
        if (bytesFilled + size > BUFFER_BYTES || packetsFilled == DESCRIPTIONS) enqueueBuffer();
        memcpy((char *)buffers[fillIndex]->mAudioData + bytesFilled, (const char *)data + offset, size);
        descriptions[packetsFilled] = packetDescriptions[i];
        descriptions[packetsFilled].mStartOffset = bytesFilled;
        bytesFilled += size;
        packetsFilled++;
    }
}

int radio_player_init(void)
{
#if TARGET_OS_IPHONE
    if (AudioSessionInitialize(NULL, NULL, interruptionListener, NULL) != noErr) return 0;
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionSetActive(true);
#endif
    return AudioFileStreamOpen(NULL, propertyListener, packetsProc, kAudioFileMP3Type, &stream) == noErr;
}

void radio_player_bytes(const void *data, unsigned long size)
{
    AudioFileStreamParseBytes(stream, (UInt32)size, data, 0);
}

void radio_player_end(void)
{
    if (bytesFilled > 0) enqueueBuffer();
    if (queue) AudioQueueStop(queue, false);
}

long radio_player_buffers(void) { return buffersPlayed; }
const char *radio_player_running_changes(void) { return runningChanges; }
int radio_player_begins(void) { return begins; }
int radio_player_ends(void) { return ends; }

int radio_player_is_running(void)
{
    UInt32 running = 0, size = sizeof running;
    if (queue) AudioQueueGetProperty(queue, kAudioQueueProperty_IsRunning, &running, &size);
    return (int)running;
}

void radio_player_shutdown(void)
{
    if (queue) AudioQueueDispose(queue, true);
    AudioFileStreamClose(stream);
}
