/*
 * AUGraph as games and music apps build one (the shapes of Apple's samples and DOOM's
 * music path): a RemoteIO node and an AUConverter node taking the program's 22.05 kHz
 * SInt16 tone from a node input callback, connected, opened, initialized and started
 * (which activates the session); render notifies with their flags and frame counts; the
 * CPU load; the input callback swapped while running and applied by AUGraphUpdate at a
 * buffer boundary; an interruption stopping it before Begin (AUGraphIsRunning false in
 * the listener) and AUGraphStart after End; teardown in any order, also from inside a
 * callback; every bad input answered with Apple's code and nothing changed. On the card,
 * the tone is heard at its pitch.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "world.h"

static const AudioComponentDescription rioDescription = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO,
                                                         kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription converterDescription = {kAudioUnitType_FormatConverter,
                                                               kAudioUnitSubType_AUConverter,
                                                               kAudioUnitManufacturer_Apple, 0, 0};

/* The program's tone: SInt16 mono at 22050 Hz, 441 Hz. */
static double phase;
static volatile long firstCalls, secondCalls, preNotifies, postNotifies, notifyFrames, badFlags;
static AUGraph graph;
static volatile int beganRunning = -1;

static void tone(AudioBufferList *data, UInt32 frames)
{
    SInt16 *s = data->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++, phase += 2 * M_PI * 441 / 22050) s[i] = (SInt16)(12000 * sin(phase));
}

static OSStatus first(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus, UInt32 frames,
                      AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    __atomic_add_fetch(&firstCalls, 1, __ATOMIC_RELAXED);
    tone(data, frames);
    return noErr;
}

static OSStatus second(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus, UInt32 frames,
                       AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    __atomic_add_fetch(&secondCalls, 1, __ATOMIC_RELAXED);
    tone(data, frames);
    return noErr;
}

static OSStatus notify(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus, UInt32 frames,
                       AudioBufferList *data)
{
    (void)refCon; (void)ts; (void)bus; (void)data;
    if (*flags & kAudioUnitRenderAction_PreRender) __atomic_add_fetch(&preNotifies, 1, __ATOMIC_RELAXED);
    else if (*flags & kAudioUnitRenderAction_PostRender) {
        __atomic_add_fetch(&postNotifies, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&notifyFrames, frames, __ATOMIC_RELAXED);
    } else __atomic_add_fetch(&badFlags, 1, __ATOMIC_RELAXED);
    return noErr;
}

static void interruption(void *data, UInt32 state)
{
    (void)data;
    if (state != kAudioSessionBeginInterruption) return;
    Boolean running = true;
    AUGraphIsRunning(graph, &running);
    beganRunning = running;
}

static int waitFor(volatile long *counter, long atLeast)
{
    for (int i = 0; i < 500 && __atomic_load_n(counter, __ATOMIC_RELAXED) < atLeast; i++) usleep(10000);
    return __atomic_load_n(counter, __ATOMIC_RELAXED) >= atLeast;
}

/* Bad inputs: each answered with its code, the graph unchanged. */
static void badInputs(void)
{
    AUGraph g = NULL;
    CHECK_STATUS(NewAUGraph(NULL), kAudio_ParamError);
    CHECK_STATUS(NewAUGraph(&g), noErr);
    AUNode output = 0, conv = 0, missing = 4242;
    CHECK_STATUS(AUGraphAddNode(g, &rioDescription, &output), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &converterDescription, &conv), noErr);
    AudioComponentDescription nothing = {0x6E6F6E65 /* 'none' */, 0x6E6F6E65, 0, 0, 0};
    AUNode extra = 0;
    struct { const char *what; OSStatus got, want; } table[] = {
        {"AddNode of a second output node", AUGraphAddNode(g, &rioDescription, &extra), kAUGraphErr_OutputNodeErr},
        {"AddNode of no component", AUGraphAddNode(g, &nothing, &extra), kAUGraphErr_InvalidAudioUnit},
        {"AddNode with a NULL description", AUGraphAddNode(g, NULL, &extra), kAudio_ParamError},
        {"AddNode with a NULL out", AUGraphAddNode(g, &converterDescription, NULL), kAudio_ParamError},
        {"RemoveNode of no node", AUGraphRemoveNode(g, missing), kAUGraphErr_NodeNotFound},
        {"NodeInfo of no node", AUGraphNodeInfo(g, missing, NULL, NULL), kAUGraphErr_NodeNotFound},
        {"Connect from no node", AUGraphConnectNodeInput(g, missing, 0, output, 0), kAUGraphErr_NodeNotFound},
        {"Connect a node to itself", AUGraphConnectNodeInput(g, conv, 0, conv, 0), kAUGraphErr_InvalidConnection},
        {"Connect to an input the unit lacks", AUGraphConnectNodeInput(g, conv, 0, output, 3), kAudioUnitErr_InvalidElement},
        {"Connect from an output the unit lacks", AUGraphConnectNodeInput(g, conv, 2, output, 0), kAudioUnitErr_InvalidElement},
        {"SetNodeInputCallback with NULL", AUGraphSetNodeInputCallback(g, conv, 0, NULL), kAudio_ParamError},
        {"Disconnect no node", AUGraphDisconnectNodeInput(g, missing, 0), kAUGraphErr_NodeNotFound},
        {"GetIndNode past the end", AUGraphGetIndNode(g, 2, &extra), kAudio_ParamError},
        {"CountNodeInteractions of no node", AUGraphCountNodeInteractions(g, missing, (UInt32 *)&extra), kAUGraphErr_NodeNotFound},
        {"Start before Initialize", AUGraphStart(g), kAudioUnitErr_Uninitialized},
        {"a call on no graph", AUGraphOpen((AUGraph)(uintptr_t)0x1234), kAudio_ParamError},
        {"a call on NULL", AUGraphStart(NULL), kAudio_ParamError},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        CHECK(table[i].got == table[i].want, "%s: %d (want %d)", table[i].what, (int)table[i].got, (int)table[i].want);
    UInt32 count = 9, interactions = 9;
    CHECK_STATUS(AUGraphGetNodeCount(g, &count), noErr);
    CHECK_STATUS(AUGraphGetNumberOfInteractions(g, &interactions), noErr);
    CHECK(count == 2 && interactions == 0, "after the refusals: %u nodes, %u interactions (2, 0)", (unsigned)count,
          (unsigned)interactions);
    /* A loop: output <- conv is made; conv <- output is refused. */
    CHECK_STATUS(AUGraphConnectNodeInput(g, conv, 0, output, 0), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(g, output, 0, conv, 0), kAUGraphErr_InvalidConnection);
    CHECK_STATUS(AUGraphConnectNodeInput(g, conv, 0, output, 0), kAUGraphErr_InvalidConnection);
    CHECK_STATUS(AUGraphGetNumberOfInteractions(g, &interactions), noErr);
    CHECK(interactions == 1, "one connection stands (%u)", (unsigned)interactions);
    /* A graph of a converter only has no output node to initialize. */
    CHECK_STATUS(AUGraphRemoveNode(g, output), noErr);
    CHECK_STATUS(AUGraphGetNumberOfInteractions(g, &interactions), noErr);
    CHECK(interactions == 0, "removing the output node took its connection (%u)", (unsigned)interactions);
    CHECK_STATUS(AUGraphInitialize(g), kAUGraphErr_OutputNodeErr);
    CHECK_STATUS(DisposeAUGraph(g), noErr);
    CHECK_STATUS(DisposeAUGraph(g), kAudio_ParamError);
}

static void playing(void)
{
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruption, NULL), noErr);
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);

    CHECK_STATUS(NewAUGraph(&graph), noErr);
    AUNode output = 0, conv = 0;
    CHECK_STATUS(AUGraphAddNode(graph, &rioDescription, &output), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &converterDescription, &conv), noErr);
    AudioUnit rio = (AudioUnit)1, converter = NULL;
    AudioComponentDescription seen;
    CHECK_STATUS(AUGraphNodeInfo(graph, output, &seen, &rio), noErr);
    CHECK(rio == NULL && seen.componentSubType == kAudioUnitSubType_RemoteIO, "before AUGraphOpen a node has no unit");
    Boolean flag = true;
    CHECK_STATUS(AUGraphIsOpen(graph, &flag), noErr);
    CHECK(!flag, "not open yet");
    /* As MixerHost: the callback and the connection set before the graph opens. */
    AURenderCallbackStruct callback = {first, NULL};
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, conv, 0, &callback), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, conv, 0, output, 0), noErr);
    CHECK_STATUS(AUGraphAddRenderNotify(graph, notify, NULL), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, output, NULL, &rio), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, conv, NULL, &converter), noErr);
    CHECK(rio && converter, "open: both nodes have units");
    AudioStreamBasicDescription mono = {22050, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                        2, 1, 2, 1, 16, 0};
    AudioStreamBasicDescription floats = {44100, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked, 8, 1, 8, 2, 32, 0};
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &mono, sizeof mono),
                 noErr);
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floats,
                                      sizeof floats), noErr);
    CHECK_STATUS(AudioUnitSetProperty(rio, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &floats, sizeof floats),
                 noErr);
    UInt32 interactions = 0;
    CHECK_STATUS(AUGraphCountNodeInteractions(graph, conv, &interactions), noErr);
    CHECK(interactions == 2, "the converter has its callback and its connection (%u)", (unsigned)interactions);
    AUNodeInteraction list[4];
    UInt32 room = 4;
    CHECK_STATUS(AUGraphGetNodeInteractions(graph, conv, &room, list), noErr);
    int sawCallback = 0, sawConnection = 0;
    for (UInt32 i = 0; i < room; i++) {
        if (list[i].nodeInteractionType == kAUNodeInteraction_InputCallback)
            sawCallback = list[i].nodeInteraction.inputCallback.cback.inputProc == first;
        if (list[i].nodeInteractionType == kAUNodeInteraction_Connection)
            sawConnection = list[i].nodeInteraction.connection.sourceNode == conv && list[i].nodeInteraction.connection.destNode == output;
    }
    CHECK(sawCallback && sawConnection, "the interactions read back as set");

    CHECK_STATUS(AUGraphInitialize(graph), noErr);
    /* As MixerHost does after AUGraphInitialize: CAShow prints the graph (here into a
     * file, to read it back): its nodes, their connection and callback, its state. */
    CAShow(graph);
    FILE *shown = tmpfile();
    CAShowFile(graph, shown);
    CAShowFile(NULL, shown);
    CAShowFile((void *)&phase, shown);
    char text[4096] = {0}, want[128];
    rewind(shown);
    size_t got = fread(text, 1, sizeof text - 1, shown);
    fclose(shown);
    text[got] = 0;
    CHECK(strstr(text, "2 nodes, open, initialized, stopped") != NULL, "CAShow: the graph's state");
    CHECK(strstr(text, "'auou' 'rioc' 'appl'") && strstr(text, "'aufc' 'conv' 'appl'"), "CAShow: both nodes' components");
    snprintf(want, sizeof want, "node %d output 0 -> node %d input 0  [2 ch, 44100 Hz", (int)conv, (int)output);
    CHECK(strstr(text, want) != NULL, "CAShow: the connection with its format");
    snprintf(want, sizeof want, "-> node %d input 0  [1 ch, 22050 Hz, 'lpcm' 16-bit integer", (int)conv);
    CHECK(strstr(text, want) != NULL, "CAShow: the input callback with its format");
    CHECK(strstr(text, "CAShow: NULL") && strstr(text, "is not a graph or an audio unit"), "CAShow: NULL and a stranger's pointer");
    if (!strstr(text, want)) printf("%s\n", text);
    CHECK_STATUS(AUGraphStart(graph), noErr);
    UInt32 active = 0, size = sizeof active;
    AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &active);
    CHECK_STATUS(AUGraphIsRunning(graph, &flag), noErr);
    CHECK(flag, "running after AUGraphStart");
    CHECK(waitFor(&firstCalls, 20), "the node input callback is pulled (%ld calls)", firstCalls);
    CHECK(waitFor(&postNotifies, 20), "render notifies come (%ld)", postNotifies);
    CHECK(badFlags == 0 && labs(preNotifies - postNotifies) <= 1, "each render: one PreRender and one PostRender (%ld, %ld, %ld other)",
          preNotifies, postNotifies, badFlags);
    CHECK(notifyFrames > 0 && notifyFrames % postNotifies == 0, "PostRender's frame counts (%ld frames in %ld)", notifyFrames,
          postNotifies);
    Float32 load = -1, most = -1;
    CHECK_STATUS(AUGraphGetCPULoad(graph, &load), noErr);
    CHECK_STATUS(AUGraphGetMaxCPULoad(graph, &most), noErr);
    CHECK(load > 0 && load < 1 && most >= load, "CPU load %.4f, most %.4f", load, most);

    /* Swapped while running: applied at AUGraphUpdate, not before. */
    AURenderCallbackStruct other = {second, NULL};
    long secondBefore = secondCalls;
    CHECK_STATUS(AUGraphSetNodeInputCallback(graph, conv, 0, &other), noErr);
    long firstBefore = firstCalls;
    CHECK(waitFor(&firstCalls, firstBefore + 5) && secondCalls == secondBefore,
          "before AUGraphUpdate the running graph keeps its callback");
    Boolean updated = false;
    CHECK_STATUS(AUGraphUpdate(graph, &updated), noErr);
    CHECK(updated, "AUGraphUpdate says it updated");
    CHECK(waitFor(&secondCalls, 5), "after AUGraphUpdate the new callback is pulled (%ld)", secondCalls);
    long firstAfter = firstCalls;
    waitFor(&secondCalls, secondCalls + 5);
    CHECK(firstCalls <= firstAfter + 1, "and the old one no more (%ld then %ld)", firstAfter, firstCalls);

    /* An interruption stops the graph before Begin; the program starts it after End. */
    if (worldBeginInterruption() == WORLD_DONE) {
        for (int i = 0; i < 500 && beganRunning < 0; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, false);
        CHECK(beganRunning == 0, "in the Begin listener AUGraphIsRunning is false (%d)", beganRunning);
        if (worldEndInterruption(1) == WORLD_DONE) {
            CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, false);
            CHECK_STATUS(AudioSessionSetActive(true), noErr);
            long before = secondCalls;
            CHECK_STATUS(AUGraphStart(graph), noErr);
            CHECK(waitFor(&secondCalls, before + 5), "AUGraphStart after End plays again");
        }
    } else {
        worldSkip("the interruption");
    }
    CHECK_STATUS(AUGraphStop(graph), noErr);
    CHECK_STATUS(AUGraphIsRunning(graph, &flag), noErr);
    CHECK(!flag, "stopped");
    /* On the card: the program's 441 Hz at 22.05 kHz, through the converter node, is a
     * 441 Hz tone at the card's rate (rising crossings over the loud part). */
    if (worldOnCard()) {
        long frames = 0;
        short *heard = worldCardRecording(&frames);
        int rate = worldCardRate();
        /* Rising zero crossings; the cycles between neighbours less than a period and a
         * half apart (a gap, an interruption's silence, is no cycle). */
        long cycles = 0, cycleFrames = 0, previous = -1;
        long longest = rate ? (long)(rate / 441.0 * 1.5) : 0;
        for (long i = 1; heard && i < frames; i++) {
            if (!(heard[2 * (i - 1)] < 0 && heard[2 * i] >= 0)) continue;
            if (previous >= 0 && i - previous <= longest) {
                cycles++;
                cycleFrames += i - previous;
            }
            previous = i;
        }
        double hz = cycleFrames ? cycles * (double)rate / (double)cycleFrames : 0;
        printf("measured: the card heard the converter node at %.1f Hz over %ld cycles\n", hz, cycles);
        CHECK(fabs(hz - 441) < 4, "the card heard the converter node's tone at %.1f Hz (441), %ld frames at %d Hz", hz, frames,
              rate);
        free(heard);
    }
    /* Teardown out of order: Dispose of an initialized graph does the rest. */
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
    CHECK_STATUS(AUGraphIsRunning(graph, &flag), kAudio_ParamError);
}

/* A graph stopped and disposed of from inside its own render notify. */
static AUGraph selfDisposing;
static volatile long disposedFromCallback = -1;
static OSStatus stopInside(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus, UInt32 frames,
                           AudioBufferList *data)
{
    (void)refCon; (void)ts; (void)bus; (void)frames; (void)data;
    if ((*flags & kAudioUnitRenderAction_PostRender) && disposedFromCallback < 0) {
        disposedFromCallback = AUGraphStop(selfDisposing);
    }
    return noErr;
}

static void teardownInside(void)
{
    CHECK_STATUS(NewAUGraph(&selfDisposing), noErr);
    AUNode output = 0;
    CHECK_STATUS(AUGraphAddNode(selfDisposing, &rioDescription, &output), noErr);
    AURenderCallbackStruct callback = {first, NULL};
    CHECK_STATUS(AUGraphOpen(selfDisposing), noErr);
    AudioUnit rio = NULL;
    AUGraphNodeInfo(selfDisposing, output, NULL, &rio);
    AudioStreamBasicDescription mono = {22050, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                        2, 1, 2, 1, 16, 0};
    CHECK_STATUS(AudioUnitSetProperty(rio, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &mono, sizeof mono), noErr);
    CHECK_STATUS(AUGraphSetNodeInputCallback(selfDisposing, output, 0, &callback), noErr);
    CHECK_STATUS(AUGraphAddRenderNotify(selfDisposing, stopInside, NULL), noErr);
    CHECK_STATUS(AUGraphInitialize(selfDisposing), noErr);
    CHECK_STATUS(AUGraphStart(selfDisposing), noErr);
    for (int i = 0; i < 500 && disposedFromCallback < 0; i++) usleep(10000);
    CHECK(disposedFromCallback == noErr, "AUGraphStop from the graph's own render notify: %ld", disposedFromCallback);
    Boolean running = true;
    for (int i = 0; i < 100 && running; i++) { AUGraphIsRunning(selfDisposing, &running); usleep(10000); }
    CHECK(!running, "and the graph stops");
    CHECK_STATUS(AUGraphUninitialize(selfDisposing), noErr);
    CHECK_STATUS(AUGraphClose(selfDisposing), noErr);
    CHECK_STATUS(DisposeAUGraph(selfDisposing), noErr);
}

int main(void)
{
    installWatchdog("augraph");
    alarm(120);
    badInputs();
    playing();
    teardownInside();
    return worldFinish("test_augraph");
}
