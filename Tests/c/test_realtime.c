/*
 * The real-time path, proven (SPEC 10, "Real time"): over hundreds of steady-state
 * periods of a RemoteIO unit that plays (at another rate than the hardware's, so the
 * resampler runs) and records (its input callback calling AudioUnitRender), while the
 * main thread changes the unit's volume, render callback and notifies, and reads the
 * session, the I/O thread
 *   - allocates nothing (malloc, calloc, realloc, free, the aligned allocators),
 *   - never locks a mutex another thread locks in the same time (every pthread mutex the
 *     library, the Swift runtime and CoreFoundation lock is seen: they are interposed
 *     here), and never waits for one,
 *   - never sleeps or waits on a condition or a semaphore,
 * except in the device's own exchange, which is the period's clock. Then the same for
 * audio queues, for a VoiceProcessingIO unit, for graphs (a converter node; a mixer of
 * four buses changed from the main thread; a matrix mixer's gains moved from it; an
 * effect chain swept from the main thread),
 * and for a hand-built chain (RemoteIO's
 * callback calling AudioUnitRender on a GenericOutput the main thread also calls).
 * The interposition is shown to work first: an allocation made inside the library on
 * the main thread is counted.
 */
#define _GNU_SOURCE
#include <AudioToolbox/AudioToolbox.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include "check.h"
#include "world.h"

#include "rt_interpose.h"

/* ---- the unit ------------------------------------------------------------------------ */

static AudioUnit unit;
static volatile long renders, inputs, notifies;
static double phase;

static OSStatus render(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                       UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    onIOThread = 1;
    SInt16 *s = data->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++) {
        s[2 * i] = s[2 * i + 1] = (SInt16)(8000 * sin(phase));
        phase += 2 * M_PI * 440 / 44100;
    }
    counted(&renders);
    return noErr;
}

static SInt16 inputSamples[8192];
static OSStatus input(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                      UInt32 frames, AudioBufferList *unused)
{
    (void)refCon; (void)unused;
    onIOThread = 1;
    AudioBufferList list = {1, {{1, sizeof inputSamples, inputSamples}}};
    if (AudioUnitRender(unit, flags, ts, bus, frames, &list) == noErr) counted(&inputs);
    return noErr;
}

static OSStatus notify(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                       UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus; (void)frames; (void)data;
    counted(&notifies);
    return noErr;
}

static void awaitRenders(long count)
{
    long target = renders + count;
    while (renders < target) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.005, true);
}

/* A unit of `subType` that plays and records 16-bit at 44.1 kHz (the hardware runs at
 * 48 kHz, so both resamplers run), its input callback calling AudioUnitRender; with
 * `notified`, a render notify too. Started. */
static AURenderCallbackStruct renderCallback = {render, NULL}, inputCallback = {input, NULL};
static void startDuplexUnit(OSType subType, int notified)
{
    AudioComponentDescription d = {kAudioUnitType_Output, subType, kAudioUnitManufacturer_Apple, 0, 0};
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &d), &unit), noErr);
    UInt32 on = 1;
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &on, sizeof on),
                 noErr);
    AudioStreamBasicDescription f = {44100, kAudioFormatLinearPCM,
                                     kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f),
                 noErr);
    AudioStreamBasicDescription mono = f;
    mono.mChannelsPerFrame = 1;
    mono.mBytesPerFrame = mono.mBytesPerPacket = 2;
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1, &mono,
                                      sizeof mono), noErr);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0,
                                      &renderCallback, sizeof renderCallback), noErr);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioOutputUnitProperty_SetInputCallback, kAudioUnitScope_Global, 1,
                                      &inputCallback, sizeof inputCallback), noErr);
    if (notified) CHECK_STATUS(AudioUnitAddRenderNotify(unit, notify, NULL), noErr);
    CHECK_STATUS(AudioUnitInitialize(unit), noErr);
    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
}

/* Forgets what was counted, for the next armed stretch. */
static void resetCounts(void)
{
    ioAllocations = ioFrees = ioLockWaits = ioBlockingCalls = 0;
    memset(ioLocked, 0, sizeof ioLocked);
    memset(otherLocked, 0, sizeof otherLocked);
}

/* Prints what the armed stretch counted on the I/O thread(s) of `what` and checks it is
 * nothing: no allocation, no lock waited for or shared, no blocking call. */
static void checkCounts(const char *what)
{
    long shared = sharedLocks();
    printf("measured %s: on the I/O thread %ld allocations, %ld frees, %ld lock waits, %ld mutexes shared with other "
           "threads, %ld blocking calls\n", what, ioAllocations, ioFrees, ioLockWaits, shared, ioBlockingCalls);
    CHECK(ioAllocations == 0 && ioFrees == 0, "%s: no allocation on the I/O thread (%ld, %ld frees)", what,
          ioAllocations, ioFrees);
    CHECK(ioLockWaits == 0, "%s: no lock waited for on the I/O thread (%ld)", what, ioLockWaits);
    CHECK(shared == 0, "%s: no mutex the I/O thread locks is locked by another thread meanwhile (%ld)", what, shared);
    CHECK(ioBlockingCalls == 0, "%s: no sleep or wait on the I/O thread (%ld)", what, ioBlockingCalls);
}

/* ---- audio queues ------------------------------------------------------------------ */

static volatile long played, recorded;
static double queuePhase;

static void refill(void *data, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)data;
    SInt16 *s = b->mAudioData;
    UInt32 frames = b->mAudioDataBytesCapacity / 4;
    for (UInt32 i = 0; i < frames; i++) {
        s[2 * i] = s[2 * i + 1] = (SInt16)(8000 * sin(queuePhase));
        queuePhase += 2 * M_PI * 440 / 44100;
    }
    b->mAudioDataByteSize = frames * 4;
    AudioQueueEnqueueBuffer(q, b, 0, NULL);
    counted(&played);
}

static void keep(void *data, AudioQueueRef q, AudioQueueBufferRef b, const AudioTimeStamp *t, UInt32 n,
                 const AudioStreamPacketDescription *d)
{
    (void)data; (void)t; (void)n; (void)d;
    AudioQueueEnqueueBuffer(q, b, 0, NULL);
    counted(&recorded);
}

/* Processing taps on the I/O thread: the output queue's fetches its source and halves
 * it, the input queue's siphons (looks only). Their own code allocates nothing. */
static volatile long outputTapCalls, inputTapCalls;
static void halvingTap(void *data, AudioQueueProcessingTapRef tap, UInt32 frames, AudioTimeStamp *t, UInt32 *flags,
                       UInt32 *outFrames, AudioBufferList *io)
{
    (void)data;
    UInt32 sourceFlags = 0;
    if (AudioQueueProcessingTapGetSourceAudio(tap, frames, t, &sourceFlags, outFrames, io) != noErr) { *outFrames = 0; return; }
    for (UInt32 b = 0; b < io->mNumberBuffers; b++) {
        Float32 *x = io->mBuffers[b].mData;
        for (UInt32 i = 0; i < *outFrames; i++) x[i] *= 0.5f;
    }
    (void)flags;
    __atomic_add_fetch(&outputTapCalls, 1, __ATOMIC_RELAXED);
}
static void siphonTap(void *data, AudioQueueProcessingTapRef tap, UInt32 frames, AudioTimeStamp *t, UInt32 *flags,
                      UInt32 *outFrames, AudioBufferList *io)
{
    (void)data; (void)tap; (void)frames; (void)t; (void)flags; (void)outFrames; (void)io;
    __atomic_add_fetch(&inputTapCalls, 1, __ATOMIC_RELAXED);
}

/* The same proof for queues: an output queue at 44.1 kHz (the output resampler runs), an
 * AAC input queue (the encoder runs on the queue's own thread, not the I/O thread), the
 * program refilling and re-enqueueing from its callbacks and changing the volume, a
 * processing tap on each, and time/pitch on the output queue. */
static void queues(void)
{
    AudioStreamBasicDescription f = {44100, kAudioFormatLinearPCM,
                                     kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AudioStreamBasicDescription aac = {44100, kAudioFormatMPEG4AAC, 0, 0, 1024, 0, 1, 0, 0};
    AudioQueueRef out = NULL, in = NULL;
    CHECK_STATUS(AudioQueueNewOutput(&f, refill, NULL, CFRunLoopGetCurrent(), kCFRunLoopCommonModes, 0, &out), noErr);
    CHECK_STATUS(AudioQueueNewInput(&aac, keep, NULL, CFRunLoopGetCurrent(), kCFRunLoopCommonModes, 0, &in), noErr);
    /* Time/pitch on the output queue too: its stretcher runs on the queue's own thread,
       the I/O thread only reads what it made. */
    UInt32 on = 1, algorithm = kAudioQueueTimePitchAlgorithm_TimeDomain;
    CHECK_STATUS(AudioQueueSetProperty(out, kAudioQueueProperty_EnableTimePitch, &on, sizeof on), noErr);
    CHECK_STATUS(AudioQueueSetProperty(out, kAudioQueueProperty_TimePitchAlgorithm, &algorithm, sizeof algorithm), noErr);
    CHECK_STATUS(AudioQueueSetParameter(out, kAudioQueueParam_PlayRate, 1.5f), noErr);
    UInt32 maxFrames = 0;
    AudioStreamBasicDescription tapFormat;
    AudioQueueProcessingTapRef outTap = NULL, inTap = NULL;
    CHECK_STATUS(AudioQueueProcessingTapNew(out, halvingTap, NULL, kAudioQueueProcessingTap_PreEffects, &maxFrames, &tapFormat,
                                            &outTap), noErr);
    CHECK_STATUS(AudioQueueProcessingTapNew(in, siphonTap, NULL, kAudioQueueProcessingTap_PreEffects | kAudioQueueProcessingTap_Siphon,
                                            &maxFrames, &tapFormat, &inTap), noErr);
    for (int i = 0; i < 3; i++) {
        AudioQueueBufferRef b;
        CHECK_STATUS(AudioQueueAllocateBuffer(out, 512 * 4, &b), noErr);
        refill(NULL, out, b);
        CHECK_STATUS(AudioQueueAllocateBuffer(in, 4096, &b), noErr);
        CHECK_STATUS(AudioQueueEnqueueBuffer(in, b, 0, NULL), noErr);
    }
    CHECK_STATUS(AudioQueueStart(out, NULL), noErr);
    CHECK_STATUS(AudioQueueStart(in, NULL), noErr);
    while (played < 50) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.005, true);
    resetCounts();
    byName = 1;
    armed = 1;
    long startPlayed = played, startRecorded = recorded;
    for (int i = 0; played < startPlayed + 150; i++) {
        AudioQueueSetParameter(out, kAudioQueueParam_Volume, (i % 10) / 10.0f);
        AudioTimeStamp t;
        AudioQueueGetCurrentTime(out, NULL, &t, NULL);
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.001, true);
    }
    armed = 0;
    byName = 0;
    long steadyPlayed = played - startPlayed, steadyRecorded = recorded - startRecorded;
    CHECK(outputTapCalls > 0 && inputTapCalls > 0, "both taps ran (%ld, %ld)", outputTapCalls, inputTapCalls);
    AudioQueueDispose(out, true);
    AudioQueueDispose(in, true);
    printf("measured queues: %ld output and %ld input buffers\n", steadyPlayed, steadyRecorded);
    CHECK(namedCalls > 0, "the interposition sees the queues' I/O threads (%ld calls)", namedCalls);
    CHECK(steadyPlayed >= 150 && steadyRecorded > 0, "the queues played and recorded (%ld, %ld)", steadyPlayed,
          steadyRecorded);
    checkCounts("queues");
}

/* ---- VoiceProcessingIO -------------------------------------------------------------- */

/* The same proof for VoiceProcessingIO, whose I/O thread also cancels the echo (our
 * linear filter, lined up by the device's counts) and levels the voice (WebRTC's gain
 * control). On the virtual card the microphone hears
 * the unit's own tone back, so the canceller works on a real echo while armed; the main
 * thread flips gain control (which the I/O thread applies) as it goes. */
static void voiceProcessing(void)
{
    if (worldOnCard()) worldRun("vcard %s", "capture-signal echo 30 0.5");
    startDuplexUnit(kAudioUnitSubType_VoiceProcessingIO, 0);
    /* Two seconds to learn the echo path (at 5 ms a period). */
    awaitRenders(400);
    resetCounts();
    armed = 1;
    long startRenders = renders, startInputs = inputs;
    for (int i = 0; renders < startRenders + 400; i++) {
        UInt32 gain = i % 2;
        AudioUnitSetProperty(unit, kAUVoiceIOProperty_VoiceProcessingEnableAGC, kAudioUnitScope_Global, 0, &gain,
                             sizeof gain);
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.005, true);
    }
    armed = 0;
    long steadyRenders = renders - startRenders, steadyInputs = inputs - startInputs;
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
    printf("measured VoiceProcessingIO: %ld render and %ld input callbacks\n", steadyRenders, steadyInputs);
    CHECK(steadyRenders >= 400 && steadyInputs > 100, "VoiceProcessingIO rendered and recorded (%ld, %ld)",
          steadyRenders, steadyInputs);
    checkCounts("VoiceProcessingIO");
}

/* ---- an audio graph ---------------------------------------------------------------------- */

/* The same proof for an AUGraph of RemoteIO and an AUConverter fed by a node input
 * callback (22.05 kHz SInt16 into the hardware's rate), while the main thread swaps that
 * callback for another and back through AUGraphUpdate, and asks the graph its state and
 * its CPU load, as a game's engine does between frames. */
static OSStatus renderAgain(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                            UInt32 frames, AudioBufferList *data)
{
    return render(refCon, flags, ts, bus, frames, data);
}

/* Ends a graph's armed stretch: disposes of it, checks it rendered `wanted` callbacks
 * and that the I/O thread did nothing it must not. */
static void finishGraph(AUGraph graph, long startRenders, long wanted, const char *what)
{
    armed = 0;
    long steadyRenders = renders - startRenders;
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
    printf("measured %s: %ld callbacks\n", what, steadyRenders);
    CHECK(steadyRenders >= wanted, "the %s rendered (%ld)", what, steadyRenders);
    checkCounts(what);
}

static void graphs(void)
{
    AUGraph graph = NULL;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription conv = {kAudioUnitType_FormatConverter, kAudioUnitSubType_AUConverter,
                                      kAudioUnitManufacturer_Apple, 0, 0};
    AUNode output = 0, converterNode = 0;
    CHECK_STATUS(AUGraphAddNode(graph, &rio, &output), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &conv, &converterNode), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    AudioUnit ioUnit = NULL, converter = NULL;
    AUGraphNodeInfo(graph, output, NULL, &ioUnit);
    AUGraphNodeInfo(graph, converterNode, NULL, &converter);
    AudioStreamBasicDescription program = {22050, kAudioFormatLinearPCM,
                                           kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AudioStreamBasicDescription floats = {48000, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked, 8, 1, 8, 2, 32, 0};
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &program,
                                      sizeof program), noErr);
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floats,
                                      sizeof floats), noErr);
    CHECK_STATUS(AudioUnitSetProperty(ioUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &floats,
                                      sizeof floats), noErr);
    AURenderCallbackStruct callbacks[2] = {{render, NULL}, {renderAgain, NULL}};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, converterNode, 0, &callbacks[0]), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, converterNode, 0, output, 0), noErr);
    CHECK_STATUS(AUGraphAddRenderNotify(graph, notify, NULL), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
    CHECK_STATUS(AUGraphStart(graph), noErr);
    awaitRenders(50);
    resetCounts();
    armed = 1;
    long startRenders = renders;
    for (int i = 0; renders < startRenders + 400; i++) {
        AUGraphSetNodeInputCallback(graph, converterNode, 0, &callbacks[i % 2]);
        Boolean updated = false, running = false;
        AUGraphUpdate(graph, &updated);
        AUGraphIsRunning(graph, &running);
        Float32 load = 0;
        AUGraphGetCPULoad(graph, &load);
        UInt32 count = 0;
        AUGraphCountNodeInteractions(graph, converterNode, &count);
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.001, true);
    }
    finishGraph(graph, startRenders, 400, "AUGraph");
}

/* ---- a hand-built chain ------------------------------------------------------------------- */

/* RemoteIO's render callback pulls a GenericOutput with AudioUnitRender (the chain ports
 * build by hand, as emulators and DSP hosts do), while the main thread sets and reads the
 * GenericOutput's volume and format: every one of those calls looks the unit up by its
 * handle, and so must AudioUnitRender on the I/O thread, without the table's lock. */
static AudioUnit pulledUnit;
static volatile OSStatus chainStatus;
static volatile long chainCalls;
static OSStatus pullChain(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                          UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)bus;
    chainStatus = AudioUnitRender(pulledUnit, flags, ts, 0, frames, data);
    chainCalls++;
    if (chainStatus != noErr) memset(data->mBuffers[0].mData, 0, data->mBuffers[0].mDataByteSize);
    return noErr;
}

static void chains(void)
{
    AudioComponentDescription generic = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput, kAudioUnitManufacturer_Apple,
                                         0, 0};
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioUnit io = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &generic), &pulledUnit), noErr);
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &rio), &io), noErr);
    AudioStreamBasicDescription f = {44100, kAudioFormatLinearPCM,
                                     kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AURenderCallbackStruct tone = {render, NULL}, chain = {pullChain, NULL};
    CHECK_STATUS(AudioUnitSetProperty(pulledUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f), noErr);
    CHECK_STATUS(AudioUnitSetProperty(pulledUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &f, sizeof f), noErr);
    CHECK_STATUS(AudioUnitSetProperty(pulledUnit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &tone,
                                      sizeof tone), noErr);
    CHECK_STATUS(AudioUnitInitialize(pulledUnit), noErr);
    CHECK_STATUS(AudioUnitSetProperty(io, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f, sizeof f), noErr);
    CHECK_STATUS(AudioUnitSetProperty(io, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &chain, sizeof chain),
                 noErr);
    CHECK_STATUS(AudioUnitInitialize(io), noErr);
    CHECK_STATUS(AudioOutputUnitStart(io), noErr);
    awaitRenders(50);
    resetCounts();
    armed = 1;
    long startRenders = renders;
    for (int i = 0; renders < startRenders + 400; i++) {
        AudioUnitSetParameter(pulledUnit, kHALOutputParam_Volume, kAudioUnitScope_Global, 0, (i % 10) / 10.0f, 0);
        AudioStreamBasicDescription seen;
        UInt32 size = sizeof seen;
        AudioUnitGetProperty(pulledUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &seen, &size);
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.001, true);
    }
    armed = 0;
    long steadyRenders = renders - startRenders;
    printf("measured hand-built chain: %ld GenericOutput renders\n", steadyRenders);
    CHECK(steadyRenders >= 400, "the chain rendered (%ld)", steadyRenders);
    checkCounts("hand-built chain");
    /* The pulled unit disposed of while the chain still renders it: refused, as a stale
     * handle is anywhere, not rendered and not crashed on. */
    CHECK_STATUS(AudioComponentInstanceDispose(pulledUnit), noErr);
    long calls = chainCalls;
    while (chainCalls < calls + 5) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.005, true);
    CHECK(chainStatus == kAudio_ParamError, "AudioUnitRender of the disposed unit from the chain: %d", (int)chainStatus);
    AudioOutputUnitStop(io);
    CHECK_STATUS(AudioComponentInstanceDispose(io), noErr);
}

/* ---- a mixer graph ----------------------------------------------------------------------- */

/* And for a MixerHost-shaped graph: RemoteIO fed by a MultiChannelMixer of four buses
 * (SInt16 stereo at 44.1 kHz, one at 22.05 kHz so its resampler runs), metered, while the
 * main thread moves volumes, pans and enables, schedules a ramp, reads the meters, and
 * connects the fourth bus halfway through with AUGraphUpdate. */
static void mixers(void)
{
    AUGraph graph = NULL;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription mix = {kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer, kAudioUnitManufacturer_Apple,
                                     0, 0};
    AUNode output = 0, mixerNode = 0;
    CHECK_STATUS(AUGraphAddNode(graph, &rio, &output), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &mix, &mixerNode), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    AudioUnit mixer = NULL;
    AUGraphNodeInfo(graph, mixerNode, NULL, &mixer);
    UInt32 buses = 4, on = 1;
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &buses, sizeof buses),
                 noErr);
    AudioStreamBasicDescription program = {44100, kAudioFormatLinearPCM,
                                           kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AURenderCallbackStruct feed = {render, NULL};
    for (UInt32 bus = 0; bus < buses; bus++) {
        program.mSampleRate = bus == 1 ? 22050 : 44100;
        CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, bus, &program,
                                          sizeof program), noErr);
        CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_MeteringMode, kAudioUnitScope_Input, bus, &on, sizeof on),
                     noErr);
        if (bus < 3) CHECK_STATUS(AUGraphSetNodeInputCallback(graph, mixerNode, bus, &feed), noErr);
    }
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_MeteringMode, kAudioUnitScope_Output, 0, &on, sizeof on), noErr);
    Float64 rate = 48000;
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_SampleRate, kAudioUnitScope_Output, 0, &rate, sizeof rate), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, mixerNode, 0, output, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
    CHECK_STATUS(AUGraphStart(graph), noErr);
    awaitRenders(50);
    resetCounts();
    armed = 1;
    long startRenders = renders;
    int busCounts = 0;
    for (int i = 0; renders < startRenders + 800; i++) {
        UInt32 bus = (UInt32)i % 3;
        AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, bus, (i % 10) / 10.0f, 0);
        AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Pan, kAudioUnitScope_Input, bus, (i % 3) - 1.0f, 64);
        AudioUnitSetParameter(mixer, kMultiChannelMixerParam_Enable, kAudioUnitScope_Input, 2, i % 4 != 0, 0);
        AudioUnitParameterEvent ramp;
        memset(&ramp, 0, sizeof ramp);
        ramp.scope = kAudioUnitScope_Input;
        ramp.parameter = kMultiChannelMixerParam_Volume;
        ramp.eventType = kParameterEvent_Ramped;
        ramp.eventValues.ramp.durationInFrames = 256;
        ramp.eventValues.ramp.startValue = 0;
        ramp.eventValues.ramp.endValue = 1;
        AudioUnitScheduleParameters(mixer, &ramp, 1);
        Float32 level = 0;
        AudioUnitGetParameter(mixer, kMultiChannelMixerParam_PostAveragePower, kAudioUnitScope_Output, 0, &level);
        if (renders >= startRenders + 400 && i % 50 == 0) {
            AUGraphSetNodeInputCallback(graph, mixerNode, 3, &feed);
            Boolean updated = false;
            AUGraphUpdate(graph, &updated);
        }
        /* A game adding and dropping a voice's bus while its mix plays: the mixer's
         * storage is remade off the I/O thread, which keeps rendering meanwhile. */
        if (renders >= startRenders + 400 && i % 100 == 25) {
            UInt32 count = (i / 100) % 2 ? 5 : 4;
            if (AudioUnitSetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &count, sizeof count)
                == noErr)
                busCounts++;
        }
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.001, true);
    }
    CHECK(busCounts > 0, "the mixer's bus count changed while it rendered (%d times)", busCounts);
    finishGraph(graph, startRenders, 800, "mixer graph");
}

/* And for a matrix mixer as routing code uses one: RemoteIO <- AUMatrixMixer <- AUConverter
 * <- the tone, while the main thread moves its crosspoints, input, output and master
 * gains, turns its output bus off and on and reads its levels. */
static void matrixMixer(void)
{
    AUGraph graph = NULL;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription conv = {kAudioUnitType_FormatConverter, kAudioUnitSubType_AUConverter,
                                      kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription mxmx = {kAudioUnitType_Mixer, kAudioUnitSubType_MatrixMixer, kAudioUnitManufacturer_Apple, 0, 0};
    AUNode output = 0, converterNode = 0, matrixNode = 0;
    CHECK_STATUS(AUGraphAddNode(graph, &rio, &output), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &conv, &converterNode), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &mxmx, &matrixNode), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    AudioUnit converter = NULL, matrix = NULL;
    AUGraphNodeInfo(graph, converterNode, NULL, &converter);
    AUGraphNodeInfo(graph, matrixNode, NULL, &matrix);
    AudioStreamBasicDescription program = {44100, kAudioFormatLinearPCM,
                                           kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AudioStreamBasicDescription floats = {44100, kAudioFormatLinearPCM,
                                          kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved, 4, 1, 4, 2, 32, 0};
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &program,
                                      sizeof program), noErr);
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floats,
                                      sizeof floats), noErr);
    AURenderCallbackStruct feed = {render, NULL};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, converterNode, 0, &feed), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, converterNode, 0, matrixNode, 0), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, matrixNode, 0, output, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
    UInt32 on = 1;
    CHECK_STATUS(AudioUnitSetProperty(matrix, kAudioUnitProperty_MeteringMode, kAudioUnitScope_Output, 0, &on, sizeof on), noErr);
    AudioUnitSetParameter(matrix, kMatrixMixerParam_Volume, kAudioUnitScope_Global, 0xFFFFFFFF, 1, 0);
    for (UInt32 c = 0; c < 2; c++) {
        AudioUnitSetParameter(matrix, kMatrixMixerParam_Volume, kAudioUnitScope_Input, c, 1, 0);
        AudioUnitSetParameter(matrix, kMatrixMixerParam_Volume, kAudioUnitScope_Output, c, 1, 0);
        AudioUnitSetParameter(matrix, kMatrixMixerParam_Volume, kAudioUnitScope_Global, (c << 16) | c, 1, 0);
    }
    CHECK_STATUS(AUGraphStart(graph), noErr);
    awaitRenders(50);
    resetCounts();
    armed = 1;
    long startRenders = renders;
    for (int i = 0; renders < startRenders + 400; i++) {
        UInt32 from = (UInt32)i % 2, to = (UInt32)(i / 2) % 2;
        AudioUnitSetParameter(matrix, kMatrixMixerParam_Volume, kAudioUnitScope_Global, (from << 16) | to, (i % 10) / 10.0f, 0);
        AudioUnitSetParameter(matrix, kMatrixMixerParam_Volume, kAudioUnitScope_Global, 0xFFFFFFFF, 0.5f + (i % 5) / 10.0f, 0);
        AudioUnitSetParameter(matrix, kMatrixMixerParam_Volume, kAudioUnitScope_Input, from, (i % 7) / 7.0f, 0);
        AudioUnitSetParameter(matrix, kMatrixMixerParam_Enable, kAudioUnitScope_Output, 0, i % 9 != 0, 0);
        Float32 level = 0;
        AudioUnitGetParameter(matrix, kMatrixMixerParam_PostAveragePower, kAudioUnitScope_Output, 0, &level);
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.001, true);
    }
    finishGraph(graph, startRenders, 400, "matrix mixer graph");
}

/* ---- an effect chain -------------------------------------------------------------------- */

/* And for an effect chain as music apps build one: RemoteIO <- Reverb2 <- Delay <-
 * PeakLimiter <- DynamicsProcessor <- NBandEQ <- Distortion <- LowPass <- HighPass <-
 * NewTimePitch <- AUConverter <- the tone (SInt16 stereo at 22.05 kHz), while the main
 * thread sweeps the time unit's rate and pitch (so it pulls a varying number of blocks),
 * the filters' cutoffs and resonances, the EQ's bands, the delay time and the reverb's decay,
 * picks the reverb's factory presets, restores a saved state, bypasses the high-pass now
 * and then, and reads the values and meters back. */
static void effects(void)
{
    AUGraph graph = NULL;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription conv = {kAudioUnitType_FormatConverter, kAudioUnitSubType_AUConverter,
                                      kAudioUnitManufacturer_Apple, 0, 0};
    /* The chain's effects, from the output back; 'rvb2' is iPhone-only in the headers and
     * this suite is built with the plain module. */
    const OSType subtypes[] = {0x72766232 /* 'rvb2' */, kAudioUnitSubType_Delay, kAudioUnitSubType_PeakLimiter,
                               kAudioUnitSubType_DynamicsProcessor, kAudioUnitSubType_NBandEQ,
                               kAudioUnitSubType_Distortion, kAudioUnitSubType_LowPassFilter,
                               kAudioUnitSubType_HighPassFilter};
    enum { REVERB, DELAY, LIMITER, DYNAMICS, EQ, DISTORTION, LOW, HIGH, COUNT };
    AUNode output = 0, converterNode = 0, timePitchNode = 0, nodes[COUNT];
    AudioUnit units[COUNT], timePitch = NULL;
    AudioComponentDescription tp = {kAudioUnitType_FormatConverter, kAudioUnitSubType_NewTimePitch,
                                    kAudioUnitManufacturer_Apple, 0, 0};
    CHECK_STATUS(AUGraphAddNode(graph, &rio, &output), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &conv, &converterNode), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &tp, &timePitchNode), noErr);
    for (int i = 0; i < COUNT; i++) {
        AudioComponentDescription d = {kAudioUnitType_Effect, subtypes[i], kAudioUnitManufacturer_Apple, 0, 0};
        CHECK_STATUS(AUGraphAddNode(graph, &d, &nodes[i]), noErr);
    }
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    AudioUnit converter = NULL;
    AUGraphNodeInfo(graph, converterNode, NULL, &converter);
    for (int i = 0; i < COUNT; i++) AUGraphNodeInfo(graph, nodes[i], NULL, &units[i]);
    AUGraphNodeInfo(graph, timePitchNode, NULL, &timePitch);
    AudioStreamBasicDescription program = {22050, kAudioFormatLinearPCM,
                                           kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    AudioStreamBasicDescription effect = {44100, kAudioFormatLinearPCM,
                                          kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved, 4, 1, 4, 2, 32, 0};
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &program,
                                      sizeof program), noErr);
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &effect,
                                      sizeof effect), noErr);
    UInt32 bands = 4;
    CHECK_STATUS(AudioUnitSetProperty(units[EQ], kAUNBandEQProperty_NumberOfBands, kAudioUnitScope_Global, 0, &bands,
                                      sizeof bands), noErr);
    for (UInt32 b = 0; b < bands; b++)
        AudioUnitSetParameter(units[EQ], kAUNBandEQParam_BypassBand + b, kAudioUnitScope_Global, 0, 0, 0);
    AURenderCallbackStruct feed = {render, NULL};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, converterNode, 0, &feed), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, converterNode, 0, timePitchNode, 0), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, timePitchNode, 0, nodes[HIGH], 0), noErr);
    for (int i = COUNT - 1; i > 0; i--) CHECK_STATUS(AUGraphConnectNodeInput(graph, nodes[i], 0, nodes[i - 1], 0), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, nodes[REVERB], 0, output, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
    CFPropertyListRef saved = NULL;
    UInt32 size = sizeof saved;
    CHECK_STATUS(AudioUnitGetProperty(units[REVERB], kAudioUnitProperty_ClassInfo, kAudioUnitScope_Global, 0, &saved, &size),
                 noErr);
    CHECK_STATUS(AUGraphStart(graph), noErr);
    awaitRenders(50);
    resetCounts();
    armed = 1;
    long startRenders = renders;
    for (int i = 0; renders < startRenders + 400; i++) {
        AudioUnit low = units[LOW], high = units[HIGH];
        AudioUnitSetParameter(low, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, 200.0f + (float)(i % 50) * 300, 0);
        AudioUnitSetParameter(low, kLowPassParam_Resonance, kAudioUnitScope_Global, 0, (float)(i % 20) - 10, 0);
        AudioUnitSetParameter(high, kHipassParam_CutoffFrequency, kAudioUnitScope_Global, 0, 50.0f + (float)(i % 30) * 20, 0);
        UInt32 bypass = i % 7 == 0;
        AudioUnitSetProperty(high, kAudioUnitProperty_BypassEffect, kAudioUnitScope_Global, 0, &bypass, sizeof bypass);
        AudioUnitSetParameter(units[EQ], kAUNBandEQParam_FilterType + (UInt32)(i % 4), kAudioUnitScope_Global, 0,
                              (float)(i % 11), 0);
        AudioUnitSetParameter(units[EQ], kAUNBandEQParam_Frequency + (UInt32)(i % 4), kAudioUnitScope_Global, 0,
                              100.0f + (float)(i % 40) * 200, 0);
        AudioUnitSetParameter(units[DELAY], kDelayParam_DelayTime, kAudioUnitScope_Global, 0, 0.01f + (float)(i % 30) * 0.05f, 0);
        /* Its whole range, the extremes included (the fastest tempo holds the most input). */
        static const Float32 rates[] = {1.0f / 32, 0.25f, 0.7f, 1, 1.5f, 4, 16, 32};
        AudioUnitSetParameter(timePitch, kNewTimePitchParam_Rate, kAudioUnitScope_Global, 0, rates[(i / 3) % 8], 0);
        AudioUnitSetParameter(timePitch, kNewTimePitchParam_Pitch, kAudioUnitScope_Global, 0, (float)(i % 9 - 4) * 600, 0);
        AudioUnitSetParameter(units[DISTORTION], kDistortionParam_RingModMix, kAudioUnitScope_Global, 0, (float)(i % 100), 0);
        AudioUnitSetParameter(units[REVERB], 4 /* kReverb2Param_DecayTimeAt0Hz */, kAudioUnitScope_Global, 0,
                              0.5f + (float)(i % 10), 0);
        if (i % 25 == 0) {
            AUPreset preset = {i / 25 % 13, NULL};
            AudioUnitSetProperty(units[REVERB], kAudioUnitProperty_PresentPreset, kAudioUnitScope_Global, 0, &preset,
                                 sizeof preset);
        }
        if (i % 40 == 0)
            AudioUnitSetProperty(units[REVERB], kAudioUnitProperty_ClassInfo, kAudioUnitScope_Global, 0, &saved, sizeof saved);
        Float32 value = 0;
        AudioUnitGetParameter(low, kLowPassParam_CutoffFrequency, kAudioUnitScope_Global, 0, &value);
        AudioUnitGetParameter(units[DYNAMICS], kDynamicsProcessorParam_InputAmplitude, kAudioUnitScope_Global, 0, &value);
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.001, true);
    }
    finishGraph(graph, startRenders, 400, "effect graph");
    CFRelease(saved);
}

/* ---- instruments and players ---------------------------------------------------------------- */

static volatile long slicesBack;
static void sliceBack(void *data, ScheduledAudioSlice *slice) { (void)data; (void)slice; slicesBack++; }

/* A game's music graph: RemoteIO <- mixer <- {AUSampler, AUScheduledSoundPlayer, the
 * tone}; while it renders the main thread plays notes, bends, pedals and controllers,
 * changes the sampler's gain and tuning, and schedules slices of its own buffers. */
static void instruments(void)
{
    AUGraph graph = NULL;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription mix = {kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer, kAudioUnitManufacturer_Apple,
                                     0, 0};
    AudioComponentDescription samp = {kAudioUnitType_MusicDevice, kAudioUnitSubType_Sampler, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription sspl = {kAudioUnitType_Generator, kAudioUnitSubType_ScheduledSoundPlayer,
                                      kAudioUnitManufacturer_Apple, 0, 0};
    AUNode output = 0, mixerNode = 0, samplerNode = 0, playerNode = 0;
    AUGraphAddNode(graph, &rio, &output);
    AUGraphAddNode(graph, &mix, &mixerNode);
    AUGraphAddNode(graph, &samp, &samplerNode);
    AUGraphAddNode(graph, &sspl, &playerNode);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    AudioUnit mixer = NULL, sampler = NULL, player = NULL;
    AUGraphNodeInfo(graph, mixerNode, NULL, &mixer);
    AUGraphNodeInfo(graph, samplerNode, NULL, &sampler);
    AUGraphNodeInfo(graph, playerNode, NULL, &player);
    UInt32 buses = 3;
    AudioUnitSetProperty(mixer, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &buses, sizeof buses);
    AudioStreamBasicDescription program = {44100, kAudioFormatLinearPCM,
                                           kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
    CHECK_STATUS(AudioUnitSetProperty(mixer, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 2, &program,
                                      sizeof program), noErr);
    AURenderCallbackStruct feed = {render, NULL};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, mixerNode, 2, &feed), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, samplerNode, 0, mixerNode, 0), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, playerNode, 0, mixerNode, 1), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, mixerNode, 0, output, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
    AudioTimeStamp start;
    memset(&start, 0, sizeof start);
    start.mFlags = kAudioTimeStampSampleTimeValid;
    start.mSampleTime = -1;
    AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleStartTimeStamp, kAudioUnitScope_Global, 0, &start, sizeof start);
    CHECK_STATUS(AUGraphStart(graph), noErr);
    awaitRenders(50);
    /* The player's timeline now, and buffers of the program's to schedule on it. */
    static Float32 samples[2][512];
    for (int i = 0; i < 512; i++) samples[0][i] = samples[1][i] = 0.1f * (float)sin(i * 0.05);
    struct { UInt32 count; AudioBuffer b[2]; } list = {2, {{1, sizeof samples[0], samples[0]}, {1, sizeof samples[1], samples[1]}}};
    static ScheduledAudioSlice slices[64];
    AudioTimeStamp now;
    UInt32 size = sizeof now;
    AudioUnitGetProperty(player, kAudioUnitProperty_CurrentPlayTime, kAudioUnitScope_Global, 0, &now, &size);
    resetCounts();
    armed = 1;
    long startRenders = renders;
    for (int i = 0; renders < startRenders + 400; i++) {
        MusicDeviceMIDIEvent(sampler, 0x90 | (UInt32)(i % 16), (UInt32)(48 + i % 36), 100, (UInt32)(i * 37 % 512));
        if (i > 4) MusicDeviceMIDIEvent(sampler, 0x80 | (UInt32)((i - 4) % 16), (UInt32)(48 + (i - 4) % 36), 0, 0);
        MusicDeviceMIDIEvent(sampler, 0xE0, (UInt32)(i % 128), 64, 0);
        MusicDeviceMIDIEvent(sampler, 0xB0, 64, i % 8 < 4 ? 127 : 0, 0);
        AudioUnitSetParameter(sampler, kAUSamplerParam_Gain, kAudioUnitScope_Global, 0, -(float)(i % 12), 0);
        AudioUnitSetParameter(sampler, kAUSamplerParam_CoarseTuning, kAudioUnitScope_Global, 0, (float)(i % 5) - 2, 0);
        if (i < 64) {
            ScheduledAudioSlice *slice = &slices[i];
            memset(slice, 0, sizeof *slice);
            slice->mTimeStamp.mFlags = kAudioTimeStampSampleTimeValid;
            slice->mTimeStamp.mSampleTime = now.mSampleTime + 4096 + 512.0 * i;
            slice->mNumberFrames = 512;
            slice->mBufferList = (AudioBufferList *)&list;
            slice->mCompletionProc = sliceBack;
            AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleAudioSlice, kAudioUnitScope_Global, 0, slice, sizeof *slice);
        }
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.001, true);
    }
    finishGraph(graph, startRenders, 400, "instruments graph");
    CHECK(slicesBack > 0, "the scheduled slices played and came back (%ld)", slicesBack);
}

int main(void)
{
    installWatchdog("test_realtime");
    alarm(120);

    /* The interposition reaches the libraries: an allocation inside CoreFoundation, on
     * this thread, is seen. */
    countMainAllocations = 1;
    armed = 1;
    CFStringRef probe = CFStringCreateWithCString(NULL, "an allocation the test must see", kCFStringEncodingUTF8);
    armed = 0;
    countMainAllocations = 0;
    CFRelease(probe);
    CHECK(mainAllocations > 0, "the interposed malloc sees the libraries' allocations (%ld)", mainAllocations);

    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    UInt32 category = kAudioSessionCategory_PlayAndRecord;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    Float64 rate = 48000;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof rate, &rate), noErr);
    Float32 duration = 0.005f;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareIOBufferDuration, sizeof duration,
                                         &duration), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);

    startDuplexUnit(kAudioUnitSubType_RemoteIO, 1);

    /* Steady state first: the stream's buffers and converters are made as it opens. */
    awaitRenders(50);
    armed = 1;
    long startRenders = renders, startInputs = inputs;
    /* The main thread changes what the I/O thread reads, as programs do from their UI. */
    for (int i = 0; renders < startRenders + 400; i++) {
        AudioUnitSetParameter(unit, kHALOutputParam_Volume, kAudioUnitScope_Global, 0, (i % 10) / 10.0f, 0);
        AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &renderCallback,
                             sizeof renderCallback);
        AudioUnitRemoveRenderNotify(unit, notify, NULL);
        AudioUnitAddRenderNotify(unit, notify, NULL);
        Float64 current = 0;
        UInt32 size = sizeof current;
        AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &current);
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.001, true);
    }
    armed = 0;
    long steadyRenders = renders - startRenders, steadyInputs = inputs - startInputs;
    AudioOutputUnitStop(unit);

    printf("measured RemoteIO: %ld render and %ld input callbacks\n", steadyRenders, steadyInputs);
    CHECK(steadyRenders >= 400 && steadyInputs > 100, "the unit rendered and recorded (%ld, %ld)", steadyRenders,
          steadyInputs);
    checkCounts("RemoteIO");
    AudioComponentInstanceDispose(unit);
    queues();
    voiceProcessing();
    graphs();
    mixers();
    matrixMixer();
    effects();
    instruments();
    chains();
    return worldFinish("test_realtime");
}
