/* Audio Queue Services in every configuration of the matrix (virtual device or virtual
 * ALSA card, in-process arbiter or audiosessiond), written as iPhone programs use
 * queues: three buffers refilled from the output callback, the queue stopped with
 * Stop(false) and an IsRunning listener, a recorder that re-enqueues in its input
 * callback, compressed files read with AudioFileReadPackets, a streaming player fed by
 * Audio File Stream.
 *
 *  1. A 440 Hz tone (SInt16 at 44.1 kHz, Float32 at the hardware's rate) reaches the card
 *     at its pitch, level and length, without a gap; callbacks on the run loop's thread,
 *     or on a library thread with a NULL run loop; IsRunning 1 then 0.
 *  2. An interruption (the virtual device's, or `audiosession call start`) stops the
 *     queue before Begin: IsRunning reads 0 there, callbacks stop, nothing reaches the
 *     card; AudioQueueStart after End resumes.
 *  3. Pause keeps the time, Reset and Stop(true) hand every buffer back.
 *  4. Offline rendering gives exactly the samples enqueued (trimmed, scaled).
 *  5. Recording: the card's capture tone in PlayAndRecord, as SInt16 and as AAC; '!cat'
 *     in MediaPlayback.
 *  6. AAC and MP3 files (made by ffmpeg) played with their priming trimmed; an MP3 fed
 *     to Audio File Stream in pieces and played as it parses, gaplessly.
 *  7. Bad inputs, fork, threads. */
#include "world.h"
#include <sys/wait.h>
#include <unistd.h>

#define TONE_HZ 440.0

static pthread_t mainThread;

/* ---- a tone player, as iPhone code writes one ---------------------------------------- */

typedef struct {
    AudioQueueRef queue;
    AudioStreamBasicDescription format;
    double phase;
    long framesGiven, framesLimit;
    volatile long callbacks;
    volatile int offMainThread, onMainThread;
    int refill;
} Player;

static AudioStreamBasicDescription pcmFormat(double rate, int channels, int isFloat)
{
    AudioStreamBasicDescription f;
    memset(&f, 0, sizeof f);
    f.mSampleRate = rate;
    f.mFormatID = kAudioFormatLinearPCM;
    f.mFormatFlags = isFloat ? kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked
                             : kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked;
    f.mBitsPerChannel = isFloat ? 32 : 16;
    f.mChannelsPerFrame = (UInt32)channels;
    f.mFramesPerPacket = 1;
    f.mBytesPerFrame = f.mBytesPerPacket = (UInt32)channels * (isFloat ? 4 : 2);
    return f;
}

/* The next piece of the tone (level 0.5) into the buffer; returns its frames. */
static long fillTone(Player *p, AudioQueueBufferRef b)
{
    long frames = b->mAudioDataBytesCapacity / p->format.mBytesPerFrame;
    if (frames > p->framesLimit - p->framesGiven) frames = p->framesLimit - p->framesGiven;
    if (frames <= 0) return 0;
    int channels = (int)p->format.mChannelsPerFrame;
    int isFloat = (p->format.mFormatFlags & kAudioFormatFlagIsFloat) != 0;
    for (long i = 0; i < frames; i++) {
        double v = 0.5 * sin(p->phase);
        p->phase += 2 * M_PI * TONE_HZ / p->format.mSampleRate;
        for (int c = 0; c < channels; c++) {
            if (isFloat) ((float *)b->mAudioData)[i * channels + c] = (float)v;
            else ((SInt16 *)b->mAudioData)[i * channels + c] = (SInt16)lrint(v * 32767);
        }
    }
    p->framesGiven += frames;
    b->mAudioDataByteSize = (UInt32)(frames * p->format.mBytesPerFrame);
    return frames;
}

static void toneDone(void *data, AudioQueueRef q, AudioQueueBufferRef b)
{
    Player *p = data;
    p->callbacks++;
    if (pthread_equal(pthread_self(), mainThread)) p->onMainThread = 1; else p->offMainThread = 1;
    if (p->refill && fillTone(p, b) > 0) AudioQueueEnqueueBuffer(q, b, 0, NULL);
}

static UInt32 isRunning(AudioQueueRef q)
{
    UInt32 running = 99, size = sizeof running;
    AudioQueueGetProperty(q, kAudioQueueProperty_IsRunning, &running, &size);
    return running;
}

/* What IsRunning listeners saw, in order. */
static char runningSeen[64];
static volatile int runningSeenCount;
static void runningChanged(void *data, AudioQueueRef q, AudioQueuePropertyID id)
{
    (void)data;
    if (id != kAudioQueueProperty_IsRunning || runningSeenCount >= 60) return;
    runningSeen[runningSeenCount++] = (char)('0' + isRunning(q));
    runningSeen[runningSeenCount] = 0;
}

static void newTonePlayer(Player *p, double rate, int channels, int isFloat, CFRunLoopRef runLoop, long frames)
{
    memset(p, 0, sizeof *p);
    p->format = pcmFormat(rate, channels, isFloat);
    p->framesLimit = frames;
    p->refill = 1;
    CHECK_STATUS(AudioQueueNewOutput(&p->format, toneDone, p, runLoop, kCFRunLoopCommonModes, 0, &p->queue), noErr);
}

/* Three buffers of `frames` frames each, filled and enqueued. */
static void primeBuffers(Player *p, UInt32 frames)
{
    for (int i = 0; i < 3; i++) {
        AudioQueueBufferRef b = NULL;
        CHECK_STATUS(AudioQueueAllocateBuffer(p->queue, frames * p->format.mBytesPerFrame, &b), noErr);
        if (b && fillTone(p, b) > 0) CHECK_STATUS(AudioQueueEnqueueBuffer(p->queue, b, 0, NULL), noErr);
    }
}

/* Turns the run loop (or sleeps, for a queue on a library thread) for a moment. */
static void spin(void) { CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true); }

/* ---- what the virtual card recorded --------------------------------------------------- */




/* The tone as the card heard it: its length (expected `seconds`, within `slack` s), pitch,
 * level (`level`, within 700 of 32767 for PCM; `lossy`: within 1 dB, what a codec may
 * move a peak) and the longest quiet run inside it (a gap). */
static void checkCardTone(const char *what, double seconds, double slack, double level, int lossy)
{
    long frames = 0;
    short *s = worldCardRecording(&frames);
    int rate = worldCardRate();
    long first = -1, last = -1;
    for (long i = 0; i < frames; i++) if (abs(s[2 * i]) > 64) { if (first < 0) first = i; last = i; }
    CHECK(first >= 0 && rate > 0, "%s: the tone reached the card", what);
    if (first < 0 || rate <= 0) { free(s); return; }
    /* The silence of a stream that ran dry and started again is not the tone's. */
    WorldGaps gaps = worldCardGaps(s, first, last);
    long length = last - first + 1 - gaps.restartSilence;
    double expected = seconds * rate;
    CHECK(fabs(length - expected) <= slack * rate, "%s: %ld frames heard of %.0f", what, length, expected);
    long crossings = 0, peak = 0;
    for (long i = first + 1; i <= last; i++) {
        if (s[2 * (i - 1)] < 0 && s[2 * i] >= 0) crossings++;
        if (abs(s[2 * i]) > peak) peak = abs(s[2 * i]);
    }
    double hz = crossings * (double)rate / (double)length;
    printf("measured %s: %ld of %.0f frames heard at %d Hz, %.2f Hz, peak %ld, longest quiet %ld, %d restarts "
           "after running dry (%ld frames of silence)\n", what, length, expected, rate, hz, peak, gaps.longestGap,
           gaps.restarts, gaps.restartSilence);
    CHECK(fabs(hz - TONE_HZ) < TONE_HZ * 0.01, "%s: %.1f Hz at the card", what, hz);
    CHECK(gaps.longestGap <= 3, "%s: no gap (longest quiet run %ld frames)", what, gaps.longestGap);
    long tolerance = lossy ? (long)(level * 32767 * 0.12) : 700;
    CHECK(labs(peak - (long)(level * 32767)) < tolerance, "%s: level %.2f (peak %ld)", what, level, peak);
    free(s);
}

static Float64 hardwareRate(void)
{
    Float64 rate = 0;
    UInt32 size = sizeof rate;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate), noErr);
    return rate;
}

/* ---- 1. A tone, played and stopped as iPhone code does --------------------------------- */

static void playTone(double rate, int isFloat, int onRunLoop, const char *what)
{
    Player p;
    newTonePlayer(&p, rate, 2, isFloat, onRunLoop ? CFRunLoopGetCurrent() : NULL, (long)(rate * 0.5));
    runningSeenCount = 0;
    runningSeen[0] = 0;
    CHECK_STATUS(AudioQueueAddPropertyListener(p.queue, kAudioQueueProperty_IsRunning, runningChanged, NULL), noErr);
    primeBuffers(&p, 2048);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    CHECK(isRunning(p.queue) == 0, "%s: IsRunning 0 before the start", what);
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    CHECK(isRunning(p.queue) == 1, "%s: IsRunning 1 after it", what);
    AudioTimeStamp t1, t2;
    CHECK_STATUS(AudioQueueGetCurrentTime(p.queue, NULL, &t1, NULL), noErr);
    while (p.framesGiven < p.framesLimit) spin();
    CHECK_STATUS(AudioQueueGetCurrentTime(p.queue, NULL, &t2, NULL), noErr);
    CHECK(t2.mSampleTime > t1.mSampleTime && (t2.mFlags & kAudioTimeStampSampleTimeValid),
          "%s: the queue's time advances (%.0f then %.0f)", what, t1.mSampleTime, t2.mSampleTime);
    /* Stop after what is enqueued has played: IsRunning goes to 0 by itself. */
    CHECK_STATUS(AudioQueueStop(p.queue, false), noErr);
    while (isRunning(p.queue) != 0) spin();
    for (int i = 0; i < 50 && strcmp(runningSeen, "10") != 0; i++) spin();
    CHECK(strcmp(runningSeen, "10") == 0, "%s: the IsRunning listener saw 1 then 0 (\"%s\")", what, runningSeen);
    if (onRunLoop) {
        CHECK(p.onMainThread && !p.offMainThread, "%s: callbacks on the run loop's thread", what);
    } else {
        CHECK(p.offMainThread && !p.onMainThread, "%s: callbacks on a library thread (NULL run loop)", what);
    }
    CHECK(p.callbacks >= 3, "%s: every buffer came back (%ld callbacks)", what, p.callbacks);
    if (worldOnCard()) checkCardTone(what, 0.5, 0.01, 0.5, 0);
    CHECK_STATUS(AudioQueueDispose(p.queue, true), noErr);
}

/* ---- 2. The interruption ------------------------------------------------------------- */

static Player *interrupted;
static long callbacksAtBegin = -1;
static UInt32 runningAtBegin = 99;
static int endSeen;

static void interruption(void *data, UInt32 state)
{
    (void)data;
    if (!interrupted) return;
    if (state == kAudioSessionBeginInterruption) {
        callbacksAtBegin = interrupted->callbacks;
        runningAtBegin = isRunning(interrupted->queue);
    } else {
        endSeen = 1;
    }
}

static void interruptQueue(void)
{
    Player p;
    newTonePlayer(&p, 44100, 2, 0, CFRunLoopGetCurrent(), 1L << 40);
    runningSeenCount = 0;
    runningSeen[0] = 0;
    CHECK_STATUS(AudioQueueAddPropertyListener(p.queue, kAudioQueueProperty_IsRunning, runningChanged, NULL), noErr);
    primeBuffers(&p, 1024);
    /* The session was never activated by the program: the start does it. */
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    while (p.callbacks < 5) spin();
    interrupted = &p;
    if (worldBeginInterruption() != WORLD_DONE) { interrupted = NULL; AudioQueueDispose(p.queue, true); return; }
    runPendingCallbacks();
    CHECK(callbacksAtBegin >= 5, "Begin came (after %ld callbacks)", callbacksAtBegin);
    CHECK(runningAtBegin == 0, "IsRunning reads 0 in the Begin handler (%u)", (unsigned)runningAtBegin);
    for (int i = 0; i < 20; i++) spin();
    long settled = p.callbacks;
    CHECK(strchr(runningSeen, '0') != NULL, "the IsRunning listener was told, and read 0 (\"%s\")", runningSeen);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    for (int i = 0; i < 20; i++) spin();
    CHECK(p.callbacks == settled, "no buffer comes back during the call (%ld then %ld)", settled, p.callbacks);
    CHECK(settled - callbacksAtBegin <= 3, "at most the buffers played before Begin came back after it (%ld)",
          settled - callbacksAtBegin);
    if (worldOnCard()) CHECK(worldCardLoudFrames() == 0, "nothing reaches the card during the call");
    if (worldEndInterruption(1) != WORLD_DONE) { interrupted = NULL; AudioQueueDispose(p.queue, true); return; }
    runPendingCallbacks();
    CHECK(endSeen, "End came");
    /* As iPhone code does after End: start the queue again; what was enqueued plays on. */
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    CHECK(isRunning(p.queue) == 1, "IsRunning 1 after the restart");
    while (p.callbacks < settled + 5) spin();
    CHECK(p.callbacks >= settled + 5, "buffers come back again after the restart");
    if (worldOnCard()) CHECK(worldCardLoudFrames() > 0, "the restarted queue is heard");
    CHECK_STATUS(AudioQueueStop(p.queue, true), noErr);
    interrupted = NULL;
    AudioQueueDispose(p.queue, true);
}

/* ---- 2b. The silent switch silences SoloAmbient ---------------------------------------- */


static void silentSwitch(void)
{
    if (!worldOnCard() || !worldWithDaemon()) {
        worldCannot("the silent switch is audiosessiond's (`audiosession silent`), and only the card hears the queue");
        worldSkip("silent switch");
        return;
    }
    UInt32 category = kAudioSessionCategory_SoloAmbientSound;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    Player p;
    newTonePlayer(&p, 44100, 2, 0, CFRunLoopGetCurrent(), 1L << 40);
    primeBuffers(&p, 1024);
    worldRun("vcard %s", "record-reset");
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    while (!worldCardEnds(0, 4800)) spin();
    worldRun("audiosession %s", "silent on");
    while (!worldCardEnds(1, 4800)) spin();
    long atSilence = p.callbacks;
    while (p.callbacks < atSilence + 10) spin();
    CHECK(isRunning(p.queue) == 1, "SoloAmbient under the silent switch: the queue runs on, unheard");
    worldRun("audiosession %s", "silent off");
    while (!worldCardEnds(0, 4800)) spin();
    CHECK(1, "heard again once the switch is off");
    AudioQueueDispose(p.queue, true);
    category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
}

/* ---- 3. Pause, Reset, Stop(true) ------------------------------------------------------ */

static void pauseResetStop(void)
{
    Player p;
    newTonePlayer(&p, 44100, 2, 0, CFRunLoopGetCurrent(), 1L << 40);
    p.refill = 0;
    primeBuffers(&p, 44100);  /* three seconds enqueued */
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    AudioTimeStamp t;
    do { CHECK_STATUS(AudioQueueGetCurrentTime(p.queue, NULL, &t, NULL), noErr); spin(); } while (t.mSampleTime < 2048);
    CHECK_STATUS(AudioQueuePause(p.queue), noErr);
    CHECK(isRunning(p.queue) == 1, "a paused queue still reads IsRunning 1");
    AudioTimeStamp a, b;
    CHECK_STATUS(AudioQueueGetCurrentTime(p.queue, NULL, &a, NULL), noErr);
    for (int i = 0; i < 10; i++) spin();
    CHECK_STATUS(AudioQueueGetCurrentTime(p.queue, NULL, &b, NULL), noErr);
    CHECK(a.mSampleTime == b.mSampleTime, "time stands still while paused (%.0f, %.0f)", a.mSampleTime, b.mSampleTime);
    CHECK(p.callbacks == 0, "nothing came back yet");
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    do { CHECK_STATUS(AudioQueueGetCurrentTime(p.queue, NULL, &b, NULL), noErr); spin(); } while (b.mSampleTime <= a.mSampleTime + 1024);
    CHECK(b.mSampleTime > a.mSampleTime, "Start after Pause goes on from there");
    /* Reset: every buffer back at once, the queue still running. */
    CHECK_STATUS(AudioQueueReset(p.queue), noErr);
    while (p.callbacks < 3) spin();
    CHECK(p.callbacks == 3 && isRunning(p.queue) == 1, "Reset hands the 3 buffers back and the queue runs on");
    /* Stop(true) with buffers enqueued: all back, IsRunning 0 when Stop returns. */
    p.framesGiven = 0;
    p.framesLimit = 44100 * 3;
    AudioQueueBufferRef extra[2];
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(AudioQueueAllocateBuffer(p.queue, 44100 * 4, &extra[i]), noErr);
        fillTone(&p, extra[i]);
        CHECK_STATUS(AudioQueueEnqueueBuffer(p.queue, extra[i], 0, NULL), noErr);
    }
    CHECK_STATUS(AudioQueueStop(p.queue, true), noErr);
    CHECK(isRunning(p.queue) == 0, "IsRunning 0 when Stop(true) returns");
    while (p.callbacks < 5) spin();
    CHECK(p.callbacks == 5, "Stop(true) hands back what was enqueued (%ld callbacks)", p.callbacks);
    CHECK_STATUS(AudioQueueGetCurrentTime(p.queue, NULL, &t, NULL), kAudioQueueErr_InvalidRunState);
    CHECK_STATUS(AudioQueueDispose(p.queue, true), noErr);
}

/* ---- 4. Offline rendering -------------------------------------------------------------- */

static volatile long offlineReturned;
static void offlineDone(void *data, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)data; (void)q; (void)b;
    offlineReturned++;
}

static void offline(void)
{
    AudioStreamBasicDescription f = pcmFormat(44100, 2, 0);
    AudioQueueRef q = NULL;
    CHECK_STATUS(AudioQueueNewOutput(&f, offlineDone, NULL, NULL, NULL, 0, &q), noErr);
    /* Two buffers of known samples (a pseudo-random sequence): the first trimmed by 100
     * frames at the start and 50 at the end, the second at half volume. */
    enum { FRAMES = 3000 };
    static SInt16 want[2 * FRAMES * 2];
    unsigned seed = 12345;
    AudioQueueBufferRef b[2], out = NULL;
    for (int k = 0; k < 2; k++) {
        CHECK_STATUS(AudioQueueAllocateBuffer(q, FRAMES * 4, &b[k]), noErr);
        SInt16 *s = b[k]->mAudioData;
        for (int i = 0; i < FRAMES * 2; i++) { seed = seed * 1103515245 + 12345; s[i] = (SInt16)((seed >> 16) & 0x7ffe) - 16383; }
        b[k]->mAudioDataByteSize = FRAMES * 4;
    }
    long n = 0;
    for (int i = 100 * 2; i < (FRAMES - 50) * 2; i++) want[n++] = ((SInt16 *)b[0]->mAudioData)[i];
    for (int i = 0; i < FRAMES * 2; i++) want[n++] = (SInt16)lrint(((SInt16 *)b[1]->mAudioData)[i] * 0.5);
    long wantFrames = n / 2;
    AudioStreamBasicDescription renderFormat = f;
    CHECK_STATUS(AudioQueueOfflineRender(q, &(AudioTimeStamp){0}, b[0], 0), kAudioQueueErr_InvalidOfflineMode);
    CHECK_STATUS(AudioQueueSetOfflineRenderFormat(q, &renderFormat, NULL), noErr);
    CHECK_STATUS(AudioQueueEnqueueBufferWithParameters(q, b[0], 0, NULL, 100, 50, 0, NULL, NULL, NULL), noErr);
    AudioQueueParameterEvent half = {kAudioQueueParam_Volume, 0.5f};
    AudioTimeStamp actual;
    CHECK_STATUS(AudioQueueEnqueueBufferWithParameters(q, b[1], 0, NULL, 0, 0, 1, &half, NULL, &actual), noErr);
    CHECK(actual.mSampleTime == FRAMES - 150, "the second buffer starts where the first ends (%.0f)", actual.mSampleTime);
    CHECK_STATUS(AudioQueueAllocateBuffer(q, 1000 * 4, &out), noErr);
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    AudioTimeStamp stamp = {0};
    stamp.mFlags = kAudioTimeStampSampleTimeValid;
    CHECK_STATUS(AudioQueueOfflineRender(q, &stamp, out, 0), noErr);
    static SInt16 got[2 * FRAMES * 2 + 4000];
    long gotFrames = 0;
    while (gotFrames < wantFrames + 500) {
        CHECK_STATUS(AudioQueueOfflineRender(q, &stamp, out, 500), noErr);
        memcpy(got + gotFrames * 2, out->mAudioData, out->mAudioDataByteSize);
        gotFrames += out->mAudioDataByteSize / 4;
        stamp.mSampleTime += 500;
    }
    long mismatches = 0, trailingNoise = 0;
    for (long i = 0; i < wantFrames * 2; i++) if (abs(got[i] - want[i]) > 1) mismatches++;
    for (long i = wantFrames * 2; i < gotFrames * 2; i++) if (got[i] != 0) trailingNoise++;
    CHECK(mismatches == 0, "offline render gives the enqueued samples, trimmed and scaled (%ld differ)", mismatches);
    CHECK(trailingNoise == 0, "and silence after them (%ld not)", trailingNoise);
    for (int i = 0; i < 50 && offlineReturned < 2; i++) usleep(10000);
    CHECK(offlineReturned == 2, "both buffers came back (%ld)", offlineReturned);
    CHECK_STATUS(AudioQueueOfflineRender(q, &stamp, out, 1001), kAudioQueueErr_InvalidParameter);
    CHECK_STATUS(AudioQueueDispose(q, true), noErr);
}

/* ---- 5. Recording ------------------------------------------------------------------- */

typedef struct {
    AudioQueueRef queue;
    SInt16 pcm[16000 * 2];
    long frames;
    unsigned char aac[200000];
    AudioStreamPacketDescription packets[2000];
    long packetCount, aacBytes;
    volatile long callbacks;
    int keep;
} Recorder;

static void recorded(void *data, AudioQueueRef q, AudioQueueBufferRef b, const AudioTimeStamp *start, UInt32 packets,
                     const AudioStreamPacketDescription *descriptions)
{
    Recorder *r = data;
    (void)start;
    r->callbacks++;
    if (descriptions) {
        for (UInt32 i = 0; i < packets && r->packetCount < 2000; i++) {
            if (r->aacBytes + (long)descriptions[i].mDataByteSize > (long)sizeof r->aac) break;
            memcpy(r->aac + r->aacBytes, (char *)b->mAudioData + descriptions[i].mStartOffset, descriptions[i].mDataByteSize);
            r->packets[r->packetCount] = descriptions[i];
            r->packets[r->packetCount].mStartOffset = r->aacBytes;
            r->aacBytes += descriptions[i].mDataByteSize;
            r->packetCount++;
        }
    } else {
        long n = b->mAudioDataByteSize / 2;
        if (n > 16000 * 2 - r->frames) n = 16000 * 2 - r->frames;
        memcpy(r->pcm + r->frames, b->mAudioData, (size_t)n * 2);
        r->frames += n;
    }
    if (r->keep) AudioQueueEnqueueBuffer(q, b, 0, NULL);
}

static double crossingsHz(const SInt16 *s, long from, long to, double rate, long *peak)
{
    long crossings = 0;
    *peak = 0;
    for (long i = from + 1; i < to; i++) {
        if (s[i - 1] < 0 && s[i] >= 0) crossings++;
        if (abs(s[i]) > *peak) *peak = abs(s[i]);
    }
    return crossings * rate / (double)(to - from);
}

/* AAC packets decoded with the converter to 16-bit mono at `rate`. */
static SInt16 decodedAAC[60000];
typedef struct { Recorder *r; long next; } AACFeed;
static OSStatus feedAAC(AudioConverterRef c, UInt32 *packets, AudioBufferList *data, AudioStreamPacketDescription **d,
                        void *user)
{
    (void)c;
    AACFeed *feed = user;
    if (feed->next >= feed->r->packetCount) { *packets = 0; return noErr; }
    AudioStreamPacketDescription *p = &feed->r->packets[feed->next++];
    static AudioStreamPacketDescription one;
    one = *p;
    one.mStartOffset = 0;
    data->mBuffers[0].mData = feed->r->aac + p->mStartOffset;
    data->mBuffers[0].mDataByteSize = p->mDataByteSize;
    *packets = 1;
    if (d) *d = &one;
    return noErr;
}

static void recordQueue(int aac, const char *what)
{
    static Recorder r;
    memset(&r, 0, sizeof r);
    r.keep = 1;
    AudioStreamBasicDescription f;
    if (aac) {
        memset(&f, 0, sizeof f);
        f.mFormatID = kAudioFormatMPEG4AAC;
        f.mSampleRate = 44100;
        f.mChannelsPerFrame = 1;
    } else {
        f = pcmFormat(16000, 1, 0);
    }
    CHECK_STATUS(AudioQueueNewInput(&f, recorded, &r, CFRunLoopGetCurrent(), kCFRunLoopCommonModes, 0, &r.queue), noErr);
    if (!r.queue) return;
    UInt32 largest = 0, size = sizeof largest;
    CHECK_STATUS(AudioQueueGetProperty(r.queue, kAudioQueueProperty_MaximumOutputPacketSize, &largest, &size), noErr);
    CHECK(largest > 0, "%s: MaximumOutputPacketSize %u", what, (unsigned)largest);
    for (int i = 0; i < 3; i++) {
        AudioQueueBufferRef b;
        CHECK_STATUS(AudioQueueAllocateBuffer(r.queue, aac ? largest * 8 : 3200, &b), noErr);
        CHECK_STATUS(AudioQueueEnqueueBuffer(r.queue, b, 0, NULL), noErr);
    }
    CHECK_STATUS(AudioQueueStart(r.queue, NULL), noErr);
    if (aac) { while (r.packetCount < 50) spin(); }
    else { while (r.frames < 16000) spin(); }
    CHECK_STATUS(AudioQueueStop(r.queue, true), noErr);
    if (aac) {
        UInt32 cookieSize = 0;
        CHECK_STATUS(AudioQueueGetPropertySize(r.queue, kAudioQueueProperty_MagicCookie, &cookieSize), noErr);
        unsigned char cookie[256];
        CHECK(cookieSize > 0 && cookieSize <= sizeof cookie, "%s: a magic cookie (%u bytes)", what, (unsigned)cookieSize);
        if (cookieSize > sizeof cookie) cookieSize = sizeof cookie;
        CHECK_STATUS(AudioQueueGetProperty(r.queue, kAudioQueueProperty_MagicCookie, cookie, &cookieSize), noErr);
        AudioStreamBasicDescription asbd;
        size = sizeof asbd;
        CHECK_STATUS(AudioQueueGetProperty(r.queue, kAudioQueueProperty_StreamDescription, &asbd, &size), noErr);
        CHECK(asbd.mFramesPerPacket == 1024, "%s: 1024 frames per packet", what);
        AudioStreamBasicDescription pcm = pcmFormat(44100, 1, 0);
        AudioConverterRef c = NULL;
        CHECK_STATUS(AudioConverterNew(&asbd, &pcm, &c), noErr);
        CHECK_STATUS(AudioConverterSetProperty(c, kAudioConverterDecompressionMagicCookie, cookieSize, cookie), noErr);
        AACFeed feed = {&r, 0};
        UInt32 frames = 60000;
        AudioBufferList list = {1, {{1, sizeof decodedAAC, decodedAAC}}};
        CHECK_STATUS(AudioConverterFillComplexBuffer(c, feedAAC, &feed, &frames, &list, NULL), noErr);
        AudioConverterDispose(c);
        long peak = 0;
        double hz = frames > 20000 ? crossingsHz(decodedAAC, 8000, frames, 44100, &peak) : 0;
        printf("measured %s: %ld packets, %u frames decoded, %.2f Hz, peak %ld\n", what, r.packetCount, (unsigned)frames,
               hz, peak);
        CHECK(fabs(hz - 440) < 5 && peak > 3000, "%s: the AAC decodes to the card's 440 Hz tone (%.1f Hz)", what, hz);
    } else {
        long peak = 0;
        double hz = crossingsHz(r.pcm, 1600, 16000, 16000, &peak);
        printf("measured %s: %.2f Hz, peak %ld, %ld callbacks\n", what, hz, peak, r.callbacks);
        CHECK(fabs(hz - 440) < 5 && peak > 3000, "%s: the card's 440 Hz capture tone (%.1f Hz, peak %ld)", what, hz, peak);
    }
    CHECK_STATUS(AudioQueueDispose(r.queue, true), noErr);
}

/* ---- 6. Compressed files and the streaming pattern ------------------------------------ */

static char mediaDir[64];

static int makeMedia(void)
{
    snprintf(mediaDir, sizeof mediaDir, "/tmp/atqueue.%d", (int)getpid());
    char command[2048];
    snprintf(command, sizeof command,
             "mkdir -p %s && ffmpeg -v error -y -f lavfi -i 'aevalsrc=0.5*sin(440*2*PI*t)|0.5*sin(440*2*PI*t):s=44100:d=1' "
             "-c:a aac -b:a 128k %s/tone.m4a && "
             "ffmpeg -v error -y -f lavfi -i 'aevalsrc=0.5*sin(440*2*PI*t)|0.5*sin(440*2*PI*t):s=44100:d=1' "
             "-c:a libmp3lame -b:a 128k %s/tone.mp3", mediaDir, mediaDir, mediaDir);
    return system(command) == 0;
}

/* A file played as iPhone players do: packets read with AudioFileReadPacketData, the
 * priming and remainder trimmed (the packet table), three buffers refilled. */
typedef struct {
    AudioFileID file;
    AudioQueueRef queue;
    SInt64 nextPacket, packets;
    SInt32 priming, remainder;
    UInt32 maxPacket;
    volatile int done;
    volatile long callbacks;
} FilePlayer;

static void filePlayerFill(FilePlayer *p, AudioQueueBufferRef b)
{
    UInt32 packets = b->mPacketDescriptionCapacity;
    UInt32 bytes = b->mAudioDataBytesCapacity;
    if (p->nextPacket >= p->packets) { p->done = 1; return; }
    OSStatus s = AudioFileReadPacketData(p->file, false, &bytes, b->mPacketDescriptions, p->nextPacket, &packets,
                                         b->mAudioData);
    if ((s != noErr && s != kAudioFileEndOfFileError) || packets == 0) { p->done = 1; return; }
    b->mAudioDataByteSize = bytes;
    b->mPacketDescriptionCount = packets;
    UInt32 trimStart = p->nextPacket == 0 ? (UInt32)p->priming : 0;
    p->nextPacket += packets;
    UInt32 trimEnd = p->nextPacket >= p->packets ? (UInt32)p->remainder : 0;
    AudioQueueEnqueueBufferWithParameters(p->queue, b, 0, NULL, trimStart, trimEnd, 0, NULL, NULL, NULL);
}

static void filePlayerDone(void *data, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)q;
    FilePlayer *p = data;
    p->callbacks++;
    if (!p->done) filePlayerFill(p, b);
}

static void playFile(const char *name, const char *what)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", mediaDir, name);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    FilePlayer p;
    memset(&p, 0, sizeof p);
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &p.file), noErr);
    CFRelease(url);
    if (!p.file) return;
    AudioStreamBasicDescription f;
    UInt32 size = sizeof f;
    CHECK_STATUS(AudioFileGetProperty(p.file, kAudioFilePropertyDataFormat, &size, &f), noErr);
    size = sizeof p.packets;
    CHECK_STATUS(AudioFileGetProperty(p.file, kAudioFilePropertyAudioDataPacketCount, &size, &p.packets), noErr);
    size = sizeof p.maxPacket;
    CHECK_STATUS(AudioFileGetProperty(p.file, kAudioFilePropertyPacketSizeUpperBound, &size, &p.maxPacket), noErr);
    AudioFilePacketTableInfo table;
    size = sizeof table;
    if (AudioFileGetProperty(p.file, kAudioFilePropertyPacketTableInfo, &size, &table) == noErr) {
        p.priming = table.mPrimingFrames;
        p.remainder = table.mRemainderFrames;
    }
    CHECK_STATUS(AudioQueueNewOutput(&f, filePlayerDone, &p, CFRunLoopGetCurrent(), kCFRunLoopCommonModes, 0, &p.queue),
                 noErr);
    UInt32 cookieSize = 0;
    if (AudioFileGetPropertyInfo(p.file, kAudioFilePropertyMagicCookieData, &cookieSize, NULL) == noErr && cookieSize) {
        void *cookie = malloc(cookieSize);
        AudioFileGetProperty(p.file, kAudioFilePropertyMagicCookieData, &cookieSize, cookie);
        CHECK_STATUS(AudioQueueSetProperty(p.queue, kAudioQueueProperty_MagicCookie, cookie, cookieSize), noErr);
        free(cookie);
    }
    for (int i = 0; i < 3; i++) {
        AudioQueueBufferRef b;
        CHECK_STATUS(AudioQueueAllocateBufferWithPacketDescriptions(p.queue, 16384, 16384 / p.maxPacket + 1, &b), noErr);
        filePlayerFill(&p, b);
    }
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    UInt32 ready = 0;
    CHECK_STATUS(AudioQueuePrime(p.queue, 0, &ready), noErr);
    CHECK(ready > 0, "%s: Prime says %u frames are ready", what, (unsigned)ready);
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    while (!p.done) spin();
    CHECK_STATUS(AudioQueueStop(p.queue, false), noErr);
    while (isRunning(p.queue)) spin();
    printf("measured %s: %lld packets, priming %d, remainder %d\n", what, (long long)p.packets, (int)p.priming,
           (int)p.remainder);
    if (worldOnCard()) checkCardTone(what, 1.0, 0.03, 0.5, 1);
    CHECK_STATUS(AudioQueueDispose(p.queue, true), noErr);
    AudioFileClose(p.file);
}

/* The streaming pattern: bytes arrive in pieces; Audio File Stream finds the packets;
 * each batch is copied into the current buffer, which is enqueued when full; the queue
 * starts once three are enqueued. */
typedef struct {
    AudioFileStreamID stream;
    AudioQueueRef queue;
    AudioQueueBufferRef buffers[3];
    int free[3], current, started, enqueued, last;
    UInt32 filled, described, priming, remainder;
    volatile long callbacks;
} Streamer;

static void streamerDone(void *data, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)q;
    Streamer *s = data;
    for (int i = 0; i < 3; i++) if (s->buffers[i] == b) s->free[i] = 1;
    s->callbacks++;
}

static void streamerEnqueue(Streamer *s)
{
    AudioQueueBufferRef b = s->buffers[s->current];
    b->mAudioDataByteSize = s->filled;
    /* Gapless, as the stream's LAME tag allows: the encoder's delay trimmed from the first
     * buffer, its padding from the last. */
    CHECK_STATUS(AudioQueueEnqueueBufferWithParameters(s->queue, b, s->described, b->mPacketDescriptions,
                                                       s->enqueued == 0 ? s->priming : 0, s->last ? s->remainder : 0,
                                                       0, NULL, NULL, NULL), noErr);
    s->free[s->current] = 0;
    s->enqueued++;
    if (s->enqueued == 3 && !s->started) { CHECK_STATUS(AudioQueueStart(s->queue, NULL), noErr); s->started = 1; }
    s->current = (s->current + 1) % 3;
    while (!s->free[s->current]) spin();  /* as players wait for a free buffer */
    s->filled = s->described = 0;
}

static void streamerProperty(void *data, AudioFileStreamID stream, AudioFileStreamPropertyID id, UInt32 *flags)
{
    (void)flags;
    Streamer *s = data;
    if (id != kAudioFileStreamProperty_ReadyToProducePackets) return;
    AudioStreamBasicDescription f;
    UInt32 size = sizeof f;
    AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_DataFormat, &size, &f);
    CHECK_STATUS(AudioQueueNewOutput(&f, streamerDone, s, CFRunLoopGetCurrent(), kCFRunLoopCommonModes, 0, &s->queue), noErr);
    AudioFilePacketTableInfo table;
    size = sizeof table;
    if (AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_PacketTableInfo, &size, &table) == noErr) {
        s->priming = (UInt32)table.mPrimingFrames;
        s->remainder = (UInt32)table.mRemainderFrames;
    }
    CHECK(s->priming > 0, "the stream's LAME tag gives the priming (%u)", (unsigned)s->priming);
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(AudioQueueAllocateBufferWithPacketDescriptions(s->queue, 8192, 64, &s->buffers[i]), noErr);
        s->free[i] = 1;
    }
}

static void streamerPackets(void *data, UInt32 bytes, UInt32 packets, const void *input,
                            AudioStreamPacketDescription *descriptions)
{
    (void)bytes;
    Streamer *s = data;
    for (UInt32 i = 0; i < packets; i++) {
        AudioQueueBufferRef b = s->buffers[s->current];
        UInt32 size = descriptions[i].mDataByteSize;
        if (s->filled + size > b->mAudioDataBytesCapacity || s->described == b->mPacketDescriptionCapacity) streamerEnqueue(s);
        b = s->buffers[s->current];
        memcpy((char *)b->mAudioData + s->filled, (const char *)input + descriptions[i].mStartOffset, size);
        b->mPacketDescriptions[s->described] = descriptions[i];
        b->mPacketDescriptions[s->described].mStartOffset = s->filled;
        s->filled += size;
        s->described++;
    }
}

static void streamFile(const char *name, const char *what)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", mediaDir, name);
    long total = 0;
    unsigned char *bytes = readWholeFile(path, &total);
    if (!bytes) { CHECK(0, "%s: read %s", what, path); return; }
    static Streamer s;
    memset(&s, 0, sizeof s);
    CHECK_STATUS(AudioFileStreamOpen(&s, streamerProperty, streamerPackets, kAudioFileMP3Type, &s.stream), noErr);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    for (long at = 0; at < total; at += 1000) {
        UInt32 piece = (UInt32)(total - at < 1000 ? total - at : 1000);
        CHECK_STATUS(AudioFileStreamParseBytes(s.stream, piece, bytes + at, 0), noErr);
    }
    s.last = 1;
    if (s.filled > 0) streamerEnqueue(&s);
    if (!s.started && s.queue) { CHECK_STATUS(AudioQueueStart(s.queue, NULL), noErr); s.started = 1; }
    if (s.queue) {
        CHECK_STATUS(AudioQueueStop(s.queue, false), noErr);
        while (isRunning(s.queue)) spin();
        if (worldOnCard()) checkCardTone(what, 1.0, 0.03, 0.5, 1);
        CHECK_STATUS(AudioQueueDispose(s.queue, true), noErr);
    }
    AudioFileStreamClose(s.stream);
    free(bytes);
}

/* ---- 7. Bad inputs, fork, threads ---------------------------------------------------- */

static void ignoreOutput(void *d, AudioQueueRef q, AudioQueueBufferRef b) { (void)d; (void)q; (void)b; }
static void ignoreInput(void *d, AudioQueueRef q, AudioQueueBufferRef b, const AudioTimeStamp *t, UInt32 n,
                        const AudioStreamPacketDescription *p) { (void)d; (void)q; (void)b; (void)t; (void)n; (void)p; }

static void badInputs(void)
{
    AudioStreamBasicDescription f = pcmFormat(44100, 2, 0), weird = f, nonInterleaved = f;
    weird.mFormatID = 0x78787878;
    nonInterleaved.mFormatFlags |= kAudioFormatFlagIsNonInterleaved;
    nonInterleaved.mBytesPerFrame = nonInterleaved.mBytesPerPacket = 2;
    AudioQueueRef q = NULL, other = NULL, made = NULL;
    CHECK_STATUS(AudioQueueNewOutput(&f, ignoreOutput, NULL, NULL, NULL, 0, &q), noErr);
    CHECK_STATUS(AudioQueueNewOutput(&f, ignoreOutput, NULL, NULL, NULL, 0, &other), noErr);
    AudioQueueBufferRef b = NULL, foreign = NULL, empty = NULL;
    CHECK_STATUS(AudioQueueAllocateBuffer(q, 4096, &b), noErr);
    CHECK_STATUS(AudioQueueAllocateBuffer(q, 4096, &empty), noErr);
    CHECK_STATUS(AudioQueueAllocateBuffer(other, 4096, &foreign), noErr);
    b->mAudioDataByteSize = 4096;
    foreign->mAudioDataByteSize = 4096;
    UInt32 word = 0, size = 4;
    Float32 value = 0;
    char small[2];
    struct { OSStatus got, expected; const char *what; } table[] = {
        {AudioQueueNewOutput(NULL, ignoreOutput, NULL, NULL, NULL, 0, &made), kAudio_ParamError, "NewOutput without a format"},
        {AudioQueueNewOutput(&f, NULL, NULL, NULL, NULL, 0, &made), kAudio_ParamError, "NewOutput without a callback"},
        {AudioQueueNewOutput(&f, ignoreOutput, NULL, NULL, NULL, 0, NULL), kAudio_ParamError, "NewOutput without outAQ"},
        {AudioQueueNewOutput(&weird, ignoreOutput, NULL, NULL, NULL, 0, &made), kAudioFormatUnsupportedDataFormatError, "NewOutput of an unknown format"},
        {AudioQueueNewOutput(&nonInterleaved, ignoreOutput, NULL, NULL, NULL, 0, &made), kAudioFormatUnsupportedDataFormatError, "NewOutput non-interleaved"},
        {AudioQueueNewInput(&weird, ignoreInput, NULL, NULL, NULL, 0, &made), kAudioFormatUnsupportedDataFormatError, "NewInput of an unknown format"},
        {AudioQueueNewOutput(&f, ignoreOutput, NULL, NULL, NULL, 1, &made), kAudioQueueErr_InvalidParameter, "NewOutput with flags"},
        {AudioQueueAllocateBuffer(q, 16, NULL), kAudio_ParamError, "AllocateBuffer without outBuffer"},
        {AudioQueueAllocateBuffer(NULL, 16, &foreign), kAudio_ParamError, "AllocateBuffer on NULL"},
        {AudioQueueEnqueueBuffer(q, foreign, 0, NULL), kAudioQueueErr_InvalidBuffer, "Enqueue another queue's buffer"},
        {AudioQueueEnqueueBuffer(q, NULL, 0, NULL), kAudioQueueErr_InvalidBuffer, "Enqueue NULL"},
        {AudioQueueEnqueueBuffer(q, empty, 0, NULL), kAudioQueueErr_BufferEmpty, "Enqueue an empty buffer"},
        {AudioQueueEnqueueBuffer(q, b, 0, NULL), noErr, "Enqueue"},
        {AudioQueueEnqueueBuffer(q, b, 0, NULL), kAudioQueueErr_InvalidBuffer, "Enqueue the same buffer twice"},
        {AudioQueueFreeBuffer(q, b), kAudioQueueErr_BufferInQueue, "FreeBuffer while enqueued"},
        {AudioQueueFreeBuffer(q, foreign), kAudioQueueErr_InvalidBuffer, "FreeBuffer of another queue's buffer"},
        {AudioQueueGetProperty(q, 0x78787878, &word, &size), kAudioQueueErr_InvalidProperty, "GetProperty unknown"},
        {AudioQueueGetProperty(q, kAudioQueueProperty_IsRunning, small, &(UInt32){2}), kAudioQueueErr_InvalidPropertySize, "GetProperty too small"},
        {AudioQueueGetProperty(q, kAudioQueueProperty_IsRunning, NULL, &size), kAudio_ParamError, "GetProperty NULL data"},
        {AudioQueueSetProperty(q, kAudioQueueProperty_IsRunning, &word, 4), kAudioQueueErr_InvalidPropertyValue, "SetProperty IsRunning (read-only)"},
        {AudioQueueSetProperty(q, kAudioQueueProperty_EnableLevelMetering, &word, 2), kAudioQueueErr_InvalidPropertySize, "SetProperty metering short"},
        {AudioQueueGetProperty(q, kAudioQueueProperty_CurrentLevelMeter, &value, &(UInt32){8}), kAudioQueueErr_InvalidPropertyValue, "CurrentLevelMeter without metering"},
        {AudioQueueSetParameter(q, 99, 1), kAudioQueueErr_InvalidParameter, "SetParameter unknown"},
        {AudioQueueSetParameter(q, kAudioQueueParam_Volume, 2), kAudioQueueErr_InvalidParameter, "Volume 2"},
        {AudioQueueSetParameter(q, kAudioQueueParam_Volume, NAN), kAudioQueueErr_InvalidParameter, "Volume NaN"},
        {AudioQueueSetParameter(q, kAudioQueueParam_Pan, -1.5f), kAudioQueueErr_InvalidParameter, "Pan -1.5"},
        {AudioQueueGetParameter(q, kAudioQueueParam_Volume, NULL), kAudio_ParamError, "GetParameter NULL"},
        {AudioQueueGetCurrentTime(q, NULL, NULL, NULL), kAudioQueueErr_InvalidRunState, "GetCurrentTime while stopped"},
        {AudioQueueOfflineRender(q, &(AudioTimeStamp){0}, b, 16), kAudioQueueErr_InvalidOfflineMode, "OfflineRender not offline"},
        {AudioQueueRemovePropertyListener(q, kAudioQueueProperty_IsRunning, runningChanged, NULL), kAudioQueueErr_InvalidParameter, "Remove a listener never added"},
        {AudioQueueAddPropertyListener(q, 0x78787878, runningChanged, NULL), kAudioQueueErr_InvalidProperty, "Listener of an unknown property"},
        {AudioQueueDisposeTimeline(q, (AudioQueueTimelineRef)b), kAudioQueueErr_InvalidParameter, "DisposeTimeline of no timeline"},
        {AudioQueueStart(NULL, NULL), kAudio_ParamError, "Start NULL"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        char got[16], expected[16];
        CHECK(table[i].got == table[i].expected, "bad input: %s -> %s (expected %s)", table[i].what,
              fourcc(table[i].got, got), fourcc(table[i].expected, expected));
    }
    /* State unchanged by the refusals: the queue plays its one buffer offline. */
    UInt32 running = isRunning(q);
    CHECK(running == 0, "the refused calls left the queue stopped");
    CHECK_STATUS(AudioQueueDispose(q, true), noErr);
    CHECK_STATUS(AudioQueueDispose(q, true), kAudio_ParamError);
    CHECK_STATUS(AudioQueueEnqueueBuffer(q, b, 0, NULL), kAudio_ParamError);
    CHECK_STATUS(AudioQueueDispose(other, false), noErr);
    /* An input queue: Prime is for output queues; Start needs a recording category. */
    CHECK_STATUS(AudioQueueNewInput(&f, ignoreInput, NULL, NULL, NULL, 0, &q), noErr);
    CHECK_STATUS(AudioQueuePrime(q, 0, NULL), kAudioQueueErr_InvalidQueueType);
    CHECK_STATUS(AudioQueueStart(q, NULL), kAudioSessionIncompatibleCategory);
    CHECK(isRunning(q) == 0, "the refused input queue stays stopped");
    CHECK_STATUS(AudioQueueDispose(q, true), noErr);
}

/* A recorder paused, the category changed to one that cannot record, then resumed (a
 * voice memo app whose user switched to music in between): the start is refused as a
 * first start is, and the recorder resumes once the category records again. */
static void resumePausedInput(void)
{
    AudioStreamBasicDescription f = {16000, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                     2, 1, 2, 1, 16, 0};
    AudioQueueRef q = NULL;
    CHECK_STATUS(AudioQueueNewInput(&f, ignoreInput, NULL, NULL, NULL, 0, &q), noErr);
    AudioQueueBufferRef b = NULL;
    CHECK_STATUS(AudioQueueAllocateBuffer(q, 3200, &b), noErr);
    CHECK_STATUS(AudioQueueEnqueueBuffer(q, b, 0, NULL), noErr);
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    CHECK_STATUS(AudioQueuePause(q), noErr);
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    CHECK_STATUS(AudioQueueStart(q, NULL), kAudioSessionIncompatibleCategory);
    category = kAudioSessionCategory_PlayAndRecord;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    CHECK(isRunning(q) == 1, "the paused recorder resumed once the category records");
    CHECK_STATUS(AudioQueueStop(q, true), noErr);
    CHECK_STATUS(AudioQueueDispose(q, true), noErr);
}

/* Whether the session is active: a mode can be set only while it is inactive (and
 * Default changes nothing), there being no property that says it directly. */
static int sessionIsActive(void)
{
    UInt32 mode = kAudioSessionMode_Default;
    OSStatus status = AudioSessionSetProperty(kAudioSessionProperty_Mode, sizeof mode, &mode);
    CHECK(status == noErr || status == kAudioSessionUnspecifiedError, "activity probe: mode set returned %d", (int)status);
    return status == kAudioSessionUnspecifiedError;
}

/* A player paused, its session deactivated (as a game does when it goes to the
 * background), then resumed: the start asks the session again and activates it, as a
 * first start does. A pause keeps IsRunning at 1, so a start that looked at IsRunning
 * would take the queue for running and play with the session left inactive. */
static void resumePausedOutputActivates(void)
{
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    Player p;
    newTonePlayer(&p, 44100, 2, 0, NULL, 1L << 40);
    primeBuffers(&p, 1024);
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    while (p.callbacks < 3) usleep(1000);
    CHECK(sessionIsActive(), "the first start activated the session");
    CHECK_STATUS(AudioQueuePause(p.queue), noErr);
    CHECK(isRunning(p.queue) == 1, "a paused queue still reads IsRunning 1");
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
    CHECK(!sessionIsActive(), "the session deactivated while the queue is paused");
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    CHECK(sessionIsActive(), "resuming the paused queue activated the session again");
    long before = p.callbacks;
    for (int i = 0; i < 2000 && p.callbacks < before + 3; i++) usleep(1000);
    CHECK(p.callbacks >= before + 3, "and it plays on (%ld callbacks)", p.callbacks - before);
    CHECK_STATUS(AudioQueueDispose(p.queue, true), noErr);
}

static void forkWithQueue(void)
{
    Player p;
    newTonePlayer(&p, 44100, 2, 0, NULL, 1L << 40);
    primeBuffers(&p, 1024);
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    while (p.callbacks < 3) usleep(1000);
    pid_t child = fork();
    if (child == 0) {
        /* The child: the parent's queue is not its own; it makes and disposes one. */
        AudioStreamBasicDescription f = pcmFormat(44100, 2, 0);
        AudioQueueRef mine = NULL;
        OSStatus made = AudioQueueNewOutput(&f, ignoreOutput, NULL, NULL, NULL, 0, &mine);
        OSStatus disposed = AudioQueueDispose(mine, true);
        OSStatus parents = AudioQueueStop(p.queue, true);
        _exit(made == noErr && disposed == noErr && parents == kAudio_ParamError ? 0 : 1);
    }
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child, "fork while a queue plays");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child makes its own queue; the parent's is not its own (status %d)", status);
    long before = p.callbacks;
    while (p.callbacks < before + 3) usleep(1000);
    CHECK(p.callbacks >= before + 3, "the parent's queue plays on");
    CHECK_STATUS(AudioQueueDispose(p.queue, true), noErr);
}

/* Porting code calls anything from its callbacks: disposing of the queue from its own
 * output callback (on the queue's thread, and on the run loop), stopping it there, and
 * enqueueing into it afterwards. */
static volatile int hostileStep;
static volatile OSStatus hostileResults[4];
static void disposeInCallback(void *data, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)data;
    /* Stop(true) hands the other buffers back through this callback during the call
       (as on the phone): the step is taken before, so those nested calls do nothing. */
    if (hostileStep == 0) {
        hostileStep = 1;
        hostileResults[0] = AudioQueueStop(q, true);
        hostileResults[1] = AudioQueueDispose(q, true);
        hostileResults[2] = AudioQueueEnqueueBuffer(q, b, 0, NULL);
    }
}

static void callbacksThatCallAnything(int onRunLoop)
{
    hostileStep = 0;
    AudioStreamBasicDescription f = pcmFormat(44100, 2, 0);
    AudioQueueRef q = NULL;
    CHECK_STATUS(AudioQueueNewOutput(&f, disposeInCallback, NULL, onRunLoop ? CFRunLoopGetCurrent() : NULL, NULL, 0, &q),
                 noErr);
    for (int i = 0; i < 3; i++) {
        AudioQueueBufferRef b;
        CHECK_STATUS(AudioQueueAllocateBuffer(q, 1024 * 4, &b), noErr);
        memset(b->mAudioData, 0, 1024 * 4);
        b->mAudioDataByteSize = 1024 * 4;
        CHECK_STATUS(AudioQueueEnqueueBuffer(q, b, 0, NULL), noErr);
    }
    CHECK_STATUS(AudioQueueStart(q, NULL), noErr);
    while (!hostileStep) spin();
    for (int i = 0; i < 10; i++) spin();
    CHECK(hostileResults[0] == noErr && hostileResults[1] == noErr && hostileResults[2] == kAudio_ParamError,
          "%s: Stop, Dispose, then Enqueue from the output callback: %d, %d, %d", onRunLoop ? "run loop" : "queue thread",
          (int)hostileResults[0], (int)hostileResults[1], (int)hostileResults[2]);
    CHECK_STATUS(AudioQueueStop(q, true), kAudio_ParamError);
}

static AudioQueueRef shared;
static volatile int stopThreads;
static void *poke(void *arg)
{
    long calls = 0;
    (void)arg;
    while (!stopThreads) {
        Float32 v;
        AudioTimeStamp t;
        AudioQueueGetParameter(shared, kAudioQueueParam_Volume, &v);
        AudioQueueSetParameter(shared, kAudioQueueParam_Volume, 0.5f + (calls % 2) * 0.25f);
        AudioQueueGetCurrentTime(shared, NULL, &t, NULL);
        isRunning(shared);
        calls++;
    }
    return (void *)calls;
}

static void threads(void)
{
    Player p;
    newTonePlayer(&p, 44100, 2, 0, NULL, 1L << 40);
    primeBuffers(&p, 512);
    shared = p.queue;
    CHECK_STATUS(AudioQueueStart(p.queue, NULL), noErr);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, poke, NULL);
    while (p.callbacks < 40) usleep(1000);
    stopThreads = 1;
    long calls = 0;
    for (int i = 0; i < 4; i++) { void *n; pthread_join(t[i], &n); calls += (long)n; }
    CHECK(calls > 0 && p.callbacks >= 40, "four threads call into a playing queue (%ld calls, %ld callbacks)", calls,
          p.callbacks);
    CHECK_STATUS(AudioQueueDispose(p.queue, true), noErr);
}

int main(void)
{
    mainThread = pthread_self();
    installWatchdog("test_audio_queue");
    alarm(240);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruption, NULL), noErr);
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);

    watchdogName = "bad inputs";
    badInputs();
    watchdogName = "tone";
    playTone(44100, 0, 1, "SInt16 at 44.1 kHz on the run loop");
    playTone(hardwareRate(), 1, 0, "Float32 at the hardware rate on a library thread");
    watchdogName = "interruption";
    interruptQueue();
    watchdogName = "silent switch";
    silentSwitch();
    watchdogName = "pause, reset, stop";
    pauseResetStop();
    watchdogName = "offline";
    offline();
    watchdogName = "fork";
    forkWithQueue();
    watchdogName = "threads";
    threads();
    watchdogName = "callbacks that call anything";
    callbacksThatCallAnything(0);
    callbacksThatCallAnything(1);
    watchdogName = "compressed";
    if (makeMedia()) {
        playFile("tone.m4a", "AAC file");
        playFile("tone.mp3", "MP3 file");
        streamFile("tone.mp3", "MP3 stream");
    } else {
        CHECK(0, "ffmpeg made the test media");
    }
    watchdogName = "recording";
    category = kAudioSessionCategory_PlayAndRecord;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    if (worldOnCard()) {
        worldRun("vcard %s", "capture-signal tone 440 0.5");
        recordQueue(0, "SInt16 recording at 16 kHz");
        recordQueue(1, "AAC recording");
    } else {
        worldCannot("the virtual device's microphone is silent: no capture signal to find");
        worldSkip("recording the capture tone");
    }
    watchdogName = "resume a paused recorder";
    resumePausedInput();
    watchdogName = "resume a paused player after deactivation";
    resumePausedOutputActivates();
    return worldFinish("test_audio_queue");
}
