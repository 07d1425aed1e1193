/*
 * RemoteIO through the installed library, in every configuration of the matrix (SPEC 10):
 * a 1 kHz tone rendered as Float32 interleaved, SInt16 interleaved at another rate than
 * the hardware's, and the iPhone's 8.24 canonical non-interleaved format plays for as
 * long as it was rendered, at its pitch and without gaps (on the virtual card, read from
 * what the card recorded; a stream that ran dry because its thread came late starts
 * again with at most a buffer of silence, which is not counted as a gap, and a render
 * callback held up 100 ms makes it do so); inNumberFrames follows
 * PreferredHardwareIOBufferDuration and time stamps advance by the frames rendered;
 * starting the unit activates the session;
 * an interruption stops the callbacks before Begin, IsRunning listeners see 0, nothing
 * reaches the card until the program restarts the unit after End, and a start during
 * the interruption is refused; input returns the card's capture signal in
 * PlayAndRecord and silence in MediaPlayback; bad inputs of the I/O properties.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "world.h"
#include "../alsa/sounds.h"

static AudioUnit unit;
static volatile long callbacks, framesRendered, badFrames, badStamps;
static UInt32 firstFrames;
static Float64 nextSampleTime = -1;
static UInt64 lastHostTime;
static double phase;
static double toneRate;
static int toneFormat; /* 0 Float32 interleaved, 1 SInt16 interleaved, 2 8.24 non-interleaved */
static long lateCallback = -1; /* this callback sleeps 100 ms, as a thread held up does */

enum { TONE_HZ = 1000 };

static OSStatus renderTone(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                           UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)bus;
    if (callbacks == 0) firstFrames = frames;
    else if (frames != firstFrames) badFrames++;
    if (!(ts->mFlags & kAudioTimeStampSampleTimeValid) || !(ts->mFlags & kAudioTimeStampHostTimeValid)) badStamps++;
    if (nextSampleTime >= 0 && ts->mSampleTime != nextSampleTime) badStamps++;
    if (ts->mHostTime < lastHostTime) badStamps++;
    nextSampleTime = ts->mSampleTime + frames;
    lastHostTime = ts->mHostTime;
    for (UInt32 i = 0; i < frames; i++) {
        double v = 0.5 * sin(phase);
        phase += 2 * M_PI * TONE_HZ / toneRate;
        if (toneFormat == 0) {
            Float32 *s = data->mBuffers[0].mData;
            s[2 * i] = s[2 * i + 1] = (Float32)v;
        } else if (toneFormat == 1) {
            SInt16 *s = data->mBuffers[0].mData;
            s[2 * i] = s[2 * i + 1] = (SInt16)lrint(v * 32767);
        } else {
            ((SInt32 *)data->mBuffers[0].mData)[i] = (SInt32)lrint(v * (1 << 24));
            ((SInt32 *)data->mBuffers[1].mData)[i] = (SInt32)lrint(v * (1 << 24));
        }
    }
    if (callbacks == lateCallback) usleep(100000);
    callbacks++;
    framesRendered += frames;
    return noErr;
}

static AudioStreamBasicDescription format(int which, double rate)
{
    AudioStreamBasicDescription f = {0};
    f.mSampleRate = rate;
    f.mFormatID = kAudioFormatLinearPCM;
    f.mFramesPerPacket = 1;
    f.mChannelsPerFrame = 2;
    if (which == 0) {
        f.mFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked;
        f.mBitsPerChannel = 32;
        f.mBytesPerFrame = f.mBytesPerPacket = 8;
    } else if (which == 1) {
        f.mFormatFlags = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked;
        f.mBitsPerChannel = 16;
        f.mBytesPerFrame = f.mBytesPerPacket = 4;
    } else {
        f.mFormatFlags = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked |
                         kAudioFormatFlagIsNonInterleaved | (24 << kLinearPCMFormatFlagsSampleFractionShift);
        f.mBitsPerChannel = 32;
        f.mBytesPerFrame = f.mBytesPerPacket = 4;
    }
    return f;
}

static AudioUnit newUnit(OSType subtype)
{
    AudioComponentDescription d = {kAudioUnitType_Output, subtype, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponent component = AudioComponentFindNext(NULL, &d);
    CHECK(component != NULL, "the component %08x is found", (unsigned)subtype);
    AudioUnit made = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(component, &made), noErr);
    return made;
}

static Float64 hardwareRate(void)
{
    Float64 rate = 0;
    UInt32 size = sizeof rate;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate), noErr);
    return rate;
}

/* Lets the run loop turn until `count` more callbacks have come (the watchdog bounds it). */
static void awaitCallbacks(long count)
{
    long target = callbacks + count;
    while (callbacks < target) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
}

/* ---- what the virtual card recorded --------------------------------------------------- */




/* The tone as the card heard it: its length, pitch, level, and the longest quiet run
 * inside it (a gap). */
static int checkRecordedTone(const char *what, double programFrames, double programRate)
{
    long frames = 0;
    short *s = worldCardRecording(&frames);
    int rate = worldCardRate();
    long first = -1, last = -1;
    for (long i = 0; i < frames; i++) {
        if (abs(s[2 * i]) > 64) { if (first < 0) first = i; last = i; }
    }
    CHECK(first >= 0, "%s: the tone reached the card", what);
    if (first < 0) { free(s); return 0; }
    /* The silence of a stream that ran dry and started again is not the tone's. */
    WorldGaps gaps = worldCardGaps(s, first, last);
    long length = last - first + 1 - gaps.restartSilence;
    double expected = programFrames * rate / programRate;
    /* A stop drops what was still queued: at most the buffer (two periods) and a period. */
    CHECK(length <= expected + 64 && length >= expected - 3 * 2048, "%s: %ld frames heard of %.0f rendered", what,
          length, expected);
    long crossings = 0, peak = 0, sameSides = 1;
    for (long i = first + 1; i <= last; i++) {
        if (s[2 * (i - 1)] < 0 && s[2 * i] >= 0) crossings++;
        if (abs(s[2 * i]) > peak) peak = abs(s[2 * i]);
        if (abs(s[2 * i] - s[2 * i + 1]) > 1) sameSides = 0;
    }
    double hz = crossings * (double)rate / (double)length;
    printf("measured %s: %ld of %.0f frames heard at %d Hz, %.2f Hz, peak %ld, longest quiet %ld, %d restarts "
           "after running dry (%ld frames of silence)\n", what, length, expected, rate, hz, peak, gaps.longestGap,
           gaps.restarts, gaps.restartSilence);
    CHECK(fabs(hz - TONE_HZ) < TONE_HZ * 0.01, "%s: %.1f Hz at the card", what, hz);
    CHECK(gaps.longestGap <= 3, "%s: no gap (longest quiet run %ld frames)", what, gaps.longestGap);
    CHECK(labs(peak - 16384) < 600, "%s: level 0.5 (peak %ld)", what, peak);
    CHECK(sameSides, "%s: both channels carry it", what);
    free(s);
    return gaps.restarts;
}

/* A RemoteIO unit, initialised, whose render callback plays the tone in format `which`
 * at `rate`, with the tone's counters back at zero; not started. */
static void makeToneUnit(int which, double rate)
{
    unit = newUnit(kAudioUnitSubType_RemoteIO);
    AudioStreamBasicDescription f = format(which, rate);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f),
                 noErr);
    AURenderCallbackStruct cb = {renderTone, NULL};
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &cb,
                                      sizeof cb), noErr);
    CHECK_STATUS(AudioUnitInitialize(unit), noErr);
    toneFormat = which;
    toneRate = rate;
    phase = 0;
    callbacks = framesRendered = badFrames = badStamps = 0;
    nextSampleTime = -1;
    lastHostTime = 0;
}

/* ---- 1. A tone in three formats ------------------------------------------------------- */

/* `late`: the render callback of that number comes 100 ms late (-1: none). */
static void playTone(int which, double rate, long late, const char *what)
{
    makeToneUnit(which, rate);
    lateCallback = late;
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    while (framesRendered < (long)(rate * 0.6)) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    /* The session reads what the running stream was granted. */
    Float64 unitLatency = -1;
    Float32 sessionLatency = -1;
    UInt32 size = sizeof unitLatency;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_Latency, kAudioUnitScope_Global, 0, &unitLatency, &size),
                 noErr);
    size = sizeof sessionLatency;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputLatency, &size, &sessionLatency),
                 noErr);
    CHECK(unitLatency > 0 && fabs(unitLatency - sessionLatency) < 1e-6,
          "%s: CurrentHardwareOutputLatency is the stream's (%.5f s, the unit says %.5f s)", what, sessionLatency,
          unitLatency);
    CHECK_STATUS(AudioOutputUnitStop(unit), noErr);
    long stoppedAt = callbacks;
    CHECK(badStamps == 0, "%s: sample times advance by the frames rendered, host times too (%ld bad)", what,
          badStamps);
    if (worldOnCard()) {
        int restarts = checkRecordedTone(what, (double)framesRendered, rate);
        /* Held up for longer than its buffer lasts, the stream runs dry and starts again,
           and the tone goes on after the silence. */
        if (late >= 0) CHECK(restarts >= 1, "%s: the card ran dry and started again (%d restarts)", what, restarts);
    }
    lateCallback = -1;
    usleep(50000);
    CHECK(callbacks == stoppedAt, "%s: no callback after AudioOutputUnitStop returned", what);
    CHECK_STATUS(AudioComponentInstanceDispose(unit), noErr);
}

/* ---- 2. The interruption ------------------------------------------------------------- */

static long callbacksAtBegin = -1;
static UInt32 runningAtBegin = 99, runningSeenByListener = 99;
static int listenerCalls, endSeen;
static OSStatus startDuringCall = noErr;

static void runningListener(void *refCon, AudioUnit u, AudioUnitPropertyID id, AudioUnitScope scope,
                            AudioUnitElement element)
{
    (void)refCon; (void)id; (void)scope; (void)element;
    UInt32 running = 99, size = sizeof running;
    AudioUnitGetProperty(u, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0, &running, &size);
    runningSeenByListener = running;
    listenerCalls++;
}

static void interruption(void *data, UInt32 state)
{
    (void)data;
    if (state == kAudioSessionBeginInterruption) {
        callbacksAtBegin = callbacks;
        UInt32 size = sizeof runningAtBegin;
        AudioUnitGetProperty(unit, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0, &runningAtBegin,
                             &size);
    } else {
        endSeen = 1;
    }
}

static void interruptTone(void)
{
    makeToneUnit(0, hardwareRate());
    CHECK_STATUS(AudioUnitAddPropertyListener(unit, kAudioOutputUnitProperty_IsRunning, runningListener, NULL), noErr);
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    awaitCallbacks(5);
    listenerCalls = 0;
    /* The session was never activated by the program: the start did it, so the call
     * interrupts it. */
    if (worldBeginInterruption() != WORLD_DONE) return;
    runPendingCallbacks();
    CHECK(callbacksAtBegin >= 5, "Begin came (after %ld callbacks)", callbacksAtBegin);
    CHECK(runningAtBegin == 0, "IsRunning reads 0 in the Begin handler (%u)", (unsigned)runningAtBegin);
    for (int i = 0; i < 20 && listenerCalls == 0; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(listenerCalls == 1 && runningSeenByListener == 0, "the IsRunning listener was told, and read 0 (%d calls)",
          listenerCalls);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    startDuringCall = AudioOutputUnitStart(unit);
    CHECK(startDuringCall != noErr, "a start during the call is refused");
    UInt32 running = 99, size = sizeof running;
    AudioUnitGetProperty(unit, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0, &running, &size);
    CHECK(running == 0, "and the unit stays stopped");
    usleep(200000);
    CHECK(callbacks == callbacksAtBegin, "no render callback after Begin (%ld then %ld)", callbacksAtBegin, callbacks);
    if (worldOnCard()) CHECK(worldCardLoudFrames() == 0, "nothing reaches the card during the call");
    if (worldEndInterruption(1) != WORLD_DONE) return;
    runPendingCallbacks();
    CHECK(endSeen, "End came");
    /* As iPhone code does after End: activate, start again. */
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    awaitCallbacks(5);
    CHECK(callbacks > callbacksAtBegin, "callbacks again after the restart");
    AudioOutputUnitStop(unit);
    if (worldOnCard()) CHECK(worldCardLoudFrames() > 0, "the restarted unit is heard");
    AudioComponentInstanceDispose(unit);
}

/* ---- 2b. fork while a unit plays --------------------------------------------------- */


static void forkWhilePlaying(void)
{
    makeToneUnit(0, hardwareRate());
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    awaitCallbacks(3);
    pid_t child = fork();
    if (child == 0) {
        /* The child: the unit is there, stopped (its thread is the parent's), and usable. */
        UInt32 running = 9, size = sizeof running;
        OSStatus got = AudioUnitGetProperty(unit, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0,
                                            &running, &size);
        OSStatus stopped = AudioOutputUnitStop(unit);
        OSStatus disposed = AudioComponentInstanceDispose(unit);
        _exit(got == noErr && running == 0 && stopped == noErr && disposed == noErr ? 0 : 1);
    }
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child, "fork while a unit plays");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "in the child the unit is stopped and usable (status %d)",
          status);
    long before = callbacks;
    awaitCallbacks(3);
    CHECK(callbacks > before, "the parent's unit plays on");
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
}

/* ---- 2c. The silent switch silences SoloAmbient ------------------------------------ */


static void silentSwitch(void)
{
    if (!worldOnCard() || !worldWithDaemon()) {
        worldCannot("the silent switch is audiosessiond's (`audiosession silent`), and only the card hears the unit");
        worldSkip("silent switch");
        return;
    }
    UInt32 category = kAudioSessionCategory_SoloAmbientSound;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    makeToneUnit(0, hardwareRate());
    worldRun("vcard %s", "record-reset");
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    while (!worldCardEnds(0, 4800)) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    worldRun("audiosession %s", "silent on");
    /* Until the card's last tenth of a second is silence (the watchdog bounds it). */
    while (!worldCardEnds(1, 4800)) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    long atSilence = callbacks;
    awaitCallbacks(20);
    CHECK(callbacks > atSilence, "SoloAmbient under the silent switch: the unit runs on, unheard");
    worldRun("audiosession %s", "silent off");
    while (!worldCardEnds(0, 4800)) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(1, "heard again once the switch is off");
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
    category = kAudioSessionCategory_MediaPlayback;
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
}

/* ---- 2d. Another program ducks the unit --------------------------------------------- */

static void ducked(const char *self)
{
    if (!worldOnCard() || !worldWithDaemon()) {
        worldCannot("ducking comes from another program's session, arbitrated by audiosessiond, and only the card "
                    "hears the unit");
        worldSkip("ducked by another program");
        return;
    }
    makeToneUnit(0, hardwareRate());
    worldRun("vcard %s", "record-reset");
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    long peak = worldDuckedByAnother(self);
    printf("measured ducked: peak %ld (full level 16384)\n", peak);
    CHECK(1, "another program's ducking session lowers the unit to 0.3");
    CHECK(1, "and its end brings the unit back to full level");
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
}

/* ---- 2e. System sounds mix with a playing unit -------------------------------------- */

static volatile long soundsDone;
static void soundDone(SystemSoundID id, void *data)
{
    (void)id; (void)data;
    soundsDone++;
}

/* On a card that takes one stream at a time (as `hw:N` does), a system sound played while
 * the unit plays is heard mixed into the unit's sound: a fifth of a second of a constant
 * offset (+8000) riding on the tone. */
static void systemSoundMixes(void)
{
    if (!worldOnCard()) {
        worldCannot("the virtual device has no speaker to hear the mix at");
        worldSkip("system sounds mix with the unit");
        return;
    }
    char dir[] = "/tmp/at-rio-XXXXXX";
    if (!mkdtemp(dir)) return;
    double rate = hardwareRate();
    enum { SOUND_FRAMES = 9600 };
    static short offset[SOUND_FRAMES * 2];
    for (int i = 0; i < SOUND_FRAMES * 2; i++) offset[i] = 8000;
    SystemSoundID sound = createSound(writeWav(dir, "offset.wav", (int)rate, 2, offset, SOUND_FRAMES));
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(sound, NULL, NULL, soundDone, NULL), noErr);
    worldRun("vcard %s", "exclusive on");
    makeToneUnit(0, rate);
    worldRun("vcard %s", "record-reset");
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    awaitCallbacks(10);
    soundsDone = 0;
    AudioServicesPlaySystemSound(sound);
    while (soundsDone < 1) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
    worldRun("vcard %s", "exclusive off");
    /* Windows of 10 ms whose mean is the offset: the sound, mixed over the tone. */
    long frames = 0, windows = 0, window = (long)rate / 100, peak = 0;
    short *rec = worldCardRecording(&frames);
    for (long start = 0; start + window <= frames; start += window) {
        double sum = 0;
        for (long i = start; i < start + window; i++) {
            sum += rec[2 * i];
            if (abs(rec[2 * i]) > peak) peak = abs(rec[2 * i]);
        }
        if (fabs(sum / window - 8000) < 800) windows++;
    }
    free(rec);
    printf("measured system sound over the unit: %ld windows of 10 ms carry it (20 expected), peak %ld\n", windows,
           peak);
    CHECK(windows >= 18 && windows <= 21, "the system sound is heard whole, mixed with the unit (%ld windows)",
          windows);
    CHECK(peak > 20000, "over the unit's tone (peak %ld)", peak);
    AudioServicesDisposeSystemSoundID(sound);
    char command[64];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0) return;
}

/* ---- 3. Input ---------------------------------------------------------------------- */

static AudioUnit inputUnit;
static SInt16 captured[48000];
static volatile long capturedFrames, inputCalls;
static OSStatus lastInputStatus;

static OSStatus inputArrived(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                             UInt32 frames, AudioBufferList *unused)
{
    (void)refCon; (void)unused;
    SInt16 buffer[4096];
    AudioBufferList list = {1, {{1, (UInt32)sizeof buffer, buffer}}};
    lastInputStatus = AudioUnitRender(inputUnit, flags, ts, bus, frames, &list);
    if (lastInputStatus == noErr) {
        for (UInt32 i = 0; i < frames && capturedFrames < 48000; i++) captured[capturedFrames++] = buffer[i];
    }
    inputCalls++;
    return noErr;
}

static void record(UInt32 category, const char *what, int expectTone)
{
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    inputUnit = newUnit(kAudioUnitSubType_RemoteIO);
    UInt32 on = 1, off = 0;
    CHECK_STATUS(AudioUnitSetProperty(inputUnit, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &on,
                                      sizeof on), noErr);
    CHECK_STATUS(AudioUnitSetProperty(inputUnit, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Output, 0, &off,
                                      sizeof off), noErr);
    AudioStreamBasicDescription f = format(1, 16000);
    f.mChannelsPerFrame = 1;
    f.mBytesPerFrame = f.mBytesPerPacket = 2;
    CHECK_STATUS(AudioUnitSetProperty(inputUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1, &f,
                                      sizeof f), noErr);
    AURenderCallbackStruct cb = {inputArrived, NULL};
    CHECK_STATUS(AudioUnitSetProperty(inputUnit, kAudioOutputUnitProperty_SetInputCallback, kAudioUnitScope_Global, 1,
                                      &cb, sizeof cb), noErr);
    CHECK_STATUS(AudioUnitInitialize(inputUnit), noErr);
    capturedFrames = inputCalls = 0;
    CHECK_STATUS(AudioOutputUnitStart(inputUnit), noErr);
    while (capturedFrames < 16000) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    AudioOutputUnitStop(inputUnit);
    CHECK(lastInputStatus == noErr, "%s: AudioUnitRender on element 1 in the input callback", what);
    /* Skip the converter's start; then count the tone's cycles. */
    long crossings = 0, peak = 0;
    for (long i = 1601; i < 16000; i++) {
        if (captured[i - 1] < 0 && captured[i] >= 0) crossings++;
        if (abs(captured[i]) > peak) peak = abs(captured[i]);
    }
    double hz = crossings * 16000.0 / (16000 - 1600);
    printf("measured %s input: %.2f Hz, peak %ld, %ld input callbacks\n", what, hz, peak, inputCalls);
    if (expectTone) {
        CHECK(fabs(hz - 440) < 5, "%s: the card's 440 Hz capture tone arrives at 16 kHz (%.1f Hz)", what, hz);
        CHECK(peak > 3000, "%s: and is heard (peak %ld)", what, peak);
    } else {
        CHECK(peak == 0, "%s: the microphone is not heard (peak %ld)", what, peak);
    }
    AudioComponentInstanceDispose(inputUnit);
}

/* ---- 4. Bad inputs of the I/O properties ------------------------------------------- */

static void badInputs(void)
{
    AudioUnit io = newUnit(kAudioUnitSubType_RemoteIO);
    AudioUnit generic = newUnit(kAudioUnitSubType_GenericOutput);
    UInt32 on = 1;
    struct { AudioUnit unit; AudioUnitPropertyID id; AudioUnitScope scope; AudioUnitElement element; UInt32 size;
             OSStatus expected; const char *what; } table[] = {
        {io, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Global, 0, 4, kAudioUnitErr_InvalidScope, "EnableIO global"},
        {io, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 2, 4, kAudioUnitErr_InvalidElement, "EnableIO element 2"},
        {io, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, 2, kAudioUnitErr_InvalidPropertyValue, "EnableIO short"},
        {generic, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, 4, kAudioUnitErr_InvalidProperty, "EnableIO on GenericOutput"},
        {generic, kAudioOutputUnitProperty_SetInputCallback, kAudioUnitScope_Global, 0, sizeof(AURenderCallbackStruct), kAudioUnitErr_InvalidProperty, "input callback on GenericOutput"},
        /* Any scope takes the input callback (mediastreamer2 sets it on input 0), not an element past 1. */
        {io, kAudioOutputUnitProperty_SetInputCallback, kAudioUnitScope_Input, 2, sizeof(AURenderCallbackStruct), kAudioUnitErr_InvalidElement, "input callback, element 2"},
        {io, kAudioOutputUnitProperty_SetInputCallback, 7, 1, sizeof(AURenderCallbackStruct), kAudioUnitErr_InvalidScope, "input callback, scope 7"},
        {io, kAUVoiceIOProperty_BypassVoiceProcessing, kAudioUnitScope_Global, 0, 4, kAudioUnitErr_InvalidProperty, "bypass on RemoteIO"},
        {io, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 2, sizeof(AudioStreamBasicDescription), kAudioUnitErr_InvalidElement, "format of element 2"},
    };
    AudioStreamBasicDescription f = format(0, 44100);
    AURenderCallbackStruct cb = {renderTone, NULL};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const void *data = table[i].id == kAudioUnitProperty_StreamFormat ? (const void *)&f
                         : table[i].id == kAudioOutputUnitProperty_SetInputCallback ? (const void *)&cb : (const void *)&on;
        OSStatus status = AudioUnitSetProperty(table[i].unit, table[i].id, table[i].scope, table[i].element, data,
                                               table[i].size);
        CHECK(status == table[i].expected, "%s: %d (expected %d)", table[i].what, (int)status, (int)table[i].expected);
    }
    UInt32 enabled = 9, size = sizeof enabled;
    CHECK_STATUS(AudioUnitGetProperty(io, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Output, 0, &enabled, &size),
                 noErr);
    CHECK(enabled == 1, "output is enabled by default");
    CHECK_STATUS(AudioUnitGetProperty(io, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &enabled, &size),
                 noErr);
    CHECK(enabled == 0, "input is disabled by default, and the failed sets changed nothing");
    UInt32 count = 0;
    size = sizeof count;
    CHECK_STATUS(AudioUnitGetProperty(io, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &count, &size), noErr);
    CHECK(count == 2, "RemoteIO has two elements (%u)", (unsigned)count);
    CHECK_STATUS(AudioOutputUnitStart(io), kAudioUnitErr_Uninitialized);
    SInt16 samples[64];
    AudioBufferList list = {1, {{1, sizeof samples, samples}}};
    AudioTimeStamp ts = {0};
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    AudioUnitRenderActionFlags flags = 0;
    CHECK_STATUS(AudioUnitInitialize(io), noErr);
    CHECK_STATUS(AudioUnitRender(io, &flags, &ts, 1, 32, &list), kAudioUnitErr_CannotDoInCurrentContext);
    CHECK_STATUS(AudioUnitRender(io, &flags, &ts, 0, 32, &list), kAudioUnitErr_InvalidElement);
    CHECK_STATUS(AudioUnitSetProperty(io, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &on, sizeof on),
                 kAudioUnitErr_Initialized);
    AudioComponentInstanceDispose(io);
    AudioComponentInstanceDispose(generic);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "ducker") == 0) return worldDucker();
    installWatchdog("test_remote_io");
    alarm(150);
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruption, NULL), noErr);
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    Float32 duration = 0.005f;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, sizeof duration,
                                         &duration), noErr);
    Float64 preferredRate = 48000;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof preferredRate,
                                         &preferredRate), noErr);

    badInputs();
    interruptTone();
    forkWhilePlaying();
    silentSwitch();
    ducked(argv[0]);
    systemSoundMixes();

    /* The hardware's period, as the session reads it now that it is active. */
    Float32 current = 0;
    UInt32 size = sizeof current;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareIOBufferDuration, &size, &current), noErr);
    double rate = hardwareRate();
    playTone(0, rate, -1, "Float32 interleaved");
    UInt32 expected = (UInt32)lrint(current * rate);
    CHECK(firstFrames == expected && badFrames == 0,
          "inNumberFrames follows the IO buffer duration (%u, expected %u = %.4f s x %.0f Hz)", (unsigned)firstFrames,
          (unsigned)expected, current, rate);
    CHECK(current > 0.004 && current < 0.0065, "the session granted about the 5 ms asked (%.4f s)", current);
    playTone(1, 44100, -1, "SInt16 interleaved at 44.1 kHz");
    playTone(1, rate, -1, "SInt16 interleaved at the hardware's rate");
    playTone(2, rate, -1, "8.24 canonical non-interleaved");
    playTone(0, rate, 20, "a render callback 100 ms late");

    if (worldOnCard()) worldRun("vcard %s", "capture-signal tone 440 0.5");
    if (worldOnCard()) {
        record(kAudioSessionCategory_PlayAndRecord, "PlayAndRecord", 1);
    } else {
        worldCannot("the virtual device's microphone is silent: no capture signal to find");
        worldSkip("input tone");
    }
    record(kAudioSessionCategory_MediaPlayback, "MediaPlayback", 0);
    return worldFinish("test_remote_io");
}
