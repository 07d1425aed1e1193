/*
 * session_prog: a ported program, as the cross-process arbiter tests see it.
 *
 * It uses only the legacy Audio Session API (and CoreFoundation): the session is
 * initialised on the main run loop with an interruption listener, and listens to
 * OtherAudioIsPlaying and ServerDied. A test drives it with one command per stdin line
 * and reads one line per answer or callback on stdout:
 *
 *   category <fourcc>        -> "category <fourcc> <status>"   (solo ambi medi reca plar ...)
 *   mix 0|1                  -> "mix <v> <status>"             (OverrideCategoryMixWithOthers)
 *   duck 0|1                 -> "duck <v> <status>"            (OtherMixableAudioShouldDuck)
 *   activate                 -> "activate <status>"
 *   deactivate [notify]      -> "deactivate [notify] <status>"
 *   othr                     -> "othr <status> <value>"        (GetProperty OtherAudioIsPlaying)
 *   busy <ms>                -> "busy othr <before> -> <after>" (the main thread stays inside this
 *                               command, away from its run loop, reading OtherAudioIsPlaying until
 *                               it changes or <ms> pass: what other programs do must reach the
 *                               session while its run loop is busy)
 *   unit start|stop          -> "unit start|stop <status>"     (a RemoteIO unit playing a tone:
 *                               6000 * sin(i / 9), 16-bit stereo at 48 kHz, made at the first start)
 *   queue start|stop         -> "queue start|stop <status>"    (an output audio queue playing the
 *                               same tone, three buffers refilled on the queue's own thread)
 *   graph start|stop         -> "graph start|stop <status>"    (an AUGraph playing the same tone:
 *                               an AUConverter node fed by a node input callback, into RemoteIO)
 *   mixer start|stop         -> "mixer start|stop <status>"    (the same tone through a MultiChannelMixer
 *                               graph: two buses each giving the tone at volume 0.5, one SInt16 at
 *                               48 kHz and one Float at 24 kHz, so it is heard whole only if both mix)
 *   sound <path>             -> "sound <status>"               (AudioServicesCreateSystemSoundID and
 *                               AudioServicesPlaySystemSound; "sound-done" when its completion comes)
 *   running                  -> "running <unit> <queue>"      (IsRunning of each, -1 if none)
 *   init                     -> "init <status>"                (AudioSessionInitialize and the listeners,
 *                               for a program started with --no-session)
 *   quit                     -> "quit 0", then exits
 *
 * <status> is 0 or the four-character code ("activate what"), a number if unprintable.
 * Callbacks print "BEGIN", "END resume|noresume|unreadable", "LISTEN othr <v>", "LISTEN vol <v>",
 * "LISTEN died <v>". "ready <pid>" comes once the session is initialised. A callback
 * that runs off the main thread prints "WRONG-THREAD <what>" (SPEC 6 forbids it).
 * End of stdin is a quit, so a test that dies takes its programs with it.
 *
 * Options: --deactivate-in-begin (Begin deactivates: "begin-deactivate <status>"),
 *          --reactivate-on-end (an End with ShouldResume reactivates: "end-activate <status>"),
 *          --no-session (no AudioSessionInitialize until the `init` command: a program that
 *          plays with the default session every iPhone program has).
 *
 * Every API call happens on the main thread: a second thread only reads stdin and hands
 * the lines over through a version-0 CFRunLoopSource, as a ported app's UI would.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_t mainThread;
static CFRunLoopRef mainLoop;
static CFRunLoopSourceRef commandSource;
static int deactivateInBegin, reactivateOnEnd, noSession;

/* Lines read but not yet handled, oldest first; `inputDone` once stdin ended. */
static pthread_mutex_t pendingLock = PTHREAD_MUTEX_INITIALIZER;
struct line { struct line *next; char *text; };
static struct line *pendingHead, *pendingTail;
static int inputDone;

/* Every output line goes through here, so each is whole and flushed at once. */
static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

static const char *statusText(OSStatus status, char buffer[16])
{
    UInt32 v = (UInt32)status;
    char c[4] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v};
    int printable = status != 0;
    for (int i = 0; i < 4; i++) printable &= c[i] > 0x20 && c[i] < 0x7f;
    if (printable) snprintf(buffer, 16, "%c%c%c%c", c[0], c[1], c[2], c[3]);
    else snprintf(buffer, 16, "%d", (int)status);
    return buffer;
}

static void checkThread(const char *what)
{
    if (!pthread_equal(pthread_self(), mainThread)) say("WRONG-THREAD %s", what);
}

static void interruptionListener(void *clientData, UInt32 state)
{
    (void)clientData;
    char b[16];
    checkThread("interruption");
    if (state == kAudioSessionBeginInterruption) {
        say("BEGIN");
        if (deactivateInBegin) say("begin-deactivate %s", statusText(AudioSessionSetActive(false), b));
    } else if (state == kAudioSessionEndInterruption) {
        /* The type is only readable here, inside the End callback. */
        UInt32 type = 0, size = sizeof type;
        OSStatus status = AudioSessionGetProperty(kAudioSessionProperty_InterruptionType, &size, &type);
        int resume = status == noErr && type == kAudioSessionInterruptionType_ShouldResume;
        if (status != noErr) say("END unreadable");
        else if (resume) say("END resume");
        else if (type == kAudioSessionInterruptionType_ShouldNotResume) say("END noresume");
        else say("END unreadable %s", statusText((OSStatus)type, b));
        if (reactivateOnEnd && resume) say("end-activate %s", statusText(AudioSessionSetActive(true), b));
    } else {
        say("INTERRUPTION %u", (unsigned)state);
    }
}

static void propertyListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    const char *name = clientData;
    checkThread(name);
    if (size != sizeof(UInt32) || data == NULL) {
        say("LISTEN %s badsize %u", name, (unsigned)size);
        return;
    }
    (void)id;
    if (strcmp(name, "vol") == 0) {
        Float32 volume;
        memcpy(&volume, data, sizeof volume);
        say("LISTEN vol %.2f", volume);
        return;
    }
    UInt32 value;
    memcpy(&value, data, sizeof value);
    say("LISTEN %s %u", name, (unsigned)value);
}

static OSStatus setUInt32(AudioSessionPropertyID id, UInt32 value)
{
    return AudioSessionSetProperty(id, sizeof value, &value);
}

static int parseFlag(const char *arg, UInt32 *out)
{
    if (arg == NULL || (strcmp(arg, "0") != 0 && strcmp(arg, "1") != 0)) return 0;
    *out = arg[0] == '1';
    return 1;
}

/* ---- the unit command: an iPhone program's RemoteIO tone ---- */

static AudioUnit toneUnit;
static long toneFrame;

static OSStatus renderTone(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                           UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    SInt16 *samples = data->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++, toneFrame++) {
        /* The same tone as the tests' other programs play, second after second. */
        SInt16 v = (SInt16)(6000 * sin((double)(toneFrame % 48000) / 9));
        samples[2 * i] = samples[2 * i + 1] = v;
    }
    return noErr;
}

static OSStatus unitCommand(const char *what)
{
    if (strcmp(what, "stop") == 0) return toneUnit ? AudioOutputUnitStop(toneUnit) : kAudio_ParamError;
    if (!toneUnit) {
        AudioComponentDescription d = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple,
                                       0, 0};
        OSStatus status = AudioComponentInstanceNew(AudioComponentFindNext(NULL, &d), &toneUnit);
        if (status) return status;
        AudioStreamBasicDescription f = {48000, kAudioFormatLinearPCM,
                                         kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
        AURenderCallbackStruct cb = {renderTone, NULL};
        if ((status = AudioUnitSetProperty(toneUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &f,
                                           sizeof f)) ||
            (status = AudioUnitSetProperty(toneUnit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0,
                                           &cb, sizeof cb)) ||
            (status = AudioUnitInitialize(toneUnit)))
            return status;
    }
    return AudioOutputUnitStart(toneUnit);
}

/* ---- the graph command: the same tone through an AUGraph (an AUConverter node fed by
 * a node input callback, into a RemoteIO node), made at the first start ---- */

static AUGraph toneGraph;

static OSStatus graphCommand(const char *what)
{
    if (strcmp(what, "stop") == 0) return toneGraph ? AUGraphStop(toneGraph) : kAudio_ParamError;
    if (!toneGraph) {
        AudioComponentDescription io = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple,
                                        0, 0};
        AudioComponentDescription conv = {kAudioUnitType_FormatConverter, kAudioUnitSubType_AUConverter,
                                          kAudioUnitManufacturer_Apple, 0, 0};
        AudioStreamBasicDescription tone = {48000, kAudioFormatLinearPCM,
                                            kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
        AudioStreamBasicDescription floats = {48000, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked, 8, 1, 8,
                                              2, 32, 0};
        AURenderCallbackStruct cb = {renderTone, NULL};
        AUNode output, converter;
        AudioUnit ioUnit, converterUnit;
        OSStatus status;
        if ((status = NewAUGraph(&toneGraph)) || (status = AUGraphAddNode(toneGraph, &io, &output)) ||
            (status = AUGraphAddNode(toneGraph, &conv, &converter)) || (status = AUGraphOpen(toneGraph)) ||
            (status = AUGraphNodeInfo(toneGraph, output, NULL, &ioUnit)) ||
            (status = AUGraphNodeInfo(toneGraph, converter, NULL, &converterUnit)) ||
            (status = AudioUnitSetProperty(converterUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &tone,
                                           sizeof tone)) ||
            (status = AudioUnitSetProperty(converterUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0,
                                           &floats, sizeof floats)) ||
            (status = AudioUnitSetProperty(ioUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &floats,
                                           sizeof floats)) ||
            (status = AUGraphSetNodeInputCallback(toneGraph, converter, 0, &cb)) ||
            (status = AUGraphConnectNodeInput(toneGraph, converter, 0, output, 0)) ||
            (status = AUGraphInitialize(toneGraph)))
            return status;
    }
    return AUGraphStart(toneGraph);
}

/* ---- the mixer command: the tone through a MultiChannelMixer of two buses, made at the
 * first start ---- */

static AUGraph mixerGraph;
static long halfRateFrame;

/* Bus 1's half of the tone: Float stereo at 24 kHz, the same wave at half the rate. */
static OSStatus renderHalfRate(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                               UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    Float32 *samples = data->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++, halfRateFrame++) {
        Float32 v = (Float32)(6000.0 / 32768 * sin((double)((2 * halfRateFrame) % 48000) / 9));
        samples[2 * i] = samples[2 * i + 1] = v;
    }
    return noErr;
}

static OSStatus mixerCommand(const char *what)
{
    if (strcmp(what, "stop") == 0) return mixerGraph ? AUGraphStop(mixerGraph) : kAudio_ParamError;
    if (!mixerGraph) {
        AudioComponentDescription io = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple,
                                        0, 0};
        AudioComponentDescription mix = {kAudioUnitType_Mixer, kAudioUnitSubType_MultiChannelMixer,
                                         kAudioUnitManufacturer_Apple, 0, 0};
        AudioStreamBasicDescription tone = {48000, kAudioFormatLinearPCM,
                                            kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
        AudioStreamBasicDescription half = {24000, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked, 8, 1, 8,
                                            2, 32, 0};
        Float64 rate = 48000;
        UInt32 buses = 2;
        AURenderCallbackStruct first = {renderTone, NULL}, second = {renderHalfRate, NULL};
        AUNode output, mixer;
        AudioUnit mixerUnit;
        OSStatus status;
        if ((status = NewAUGraph(&mixerGraph)) || (status = AUGraphAddNode(mixerGraph, &io, &output)) ||
            (status = AUGraphAddNode(mixerGraph, &mix, &mixer)) || (status = AUGraphOpen(mixerGraph)) ||
            (status = AUGraphNodeInfo(mixerGraph, mixer, NULL, &mixerUnit)) ||
            (status = AudioUnitSetProperty(mixerUnit, kAudioUnitProperty_ElementCount, kAudioUnitScope_Input, 0, &buses,
                                           sizeof buses)) ||
            (status = AudioUnitSetProperty(mixerUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &tone,
                                           sizeof tone)) ||
            (status = AudioUnitSetProperty(mixerUnit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 1, &half,
                                           sizeof half)) ||
            (status = AudioUnitSetProperty(mixerUnit, kAudioUnitProperty_SampleRate, kAudioUnitScope_Output, 0, &rate,
                                           sizeof rate)) ||
            (status = AudioUnitSetParameter(mixerUnit, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 0, 0.5f, 0)) ||
            (status = AudioUnitSetParameter(mixerUnit, kMultiChannelMixerParam_Volume, kAudioUnitScope_Input, 1, 0.5f, 0)) ||
            (status = AUGraphSetNodeInputCallback(mixerGraph, mixer, 0, &first)) ||
            (status = AUGraphSetNodeInputCallback(mixerGraph, mixer, 1, &second)) ||
            (status = AUGraphConnectNodeInput(mixerGraph, mixer, 0, output, 0)) ||
            (status = AUGraphInitialize(mixerGraph)))
            return status;
    }
    return AUGraphStart(mixerGraph);
}

/* ---- the queue command: an iPhone program's audio queue tone ---- */

static AudioQueueRef toneQueue;
static long queueFrame;

static void refillTone(void *data, AudioQueueRef q, AudioQueueBufferRef b)
{
    (void)data;
    SInt16 *samples = b->mAudioData;
    UInt32 frames = b->mAudioDataBytesCapacity / 4;
    for (UInt32 i = 0; i < frames; i++, queueFrame++) {
        SInt16 v = (SInt16)(6000 * sin((double)(queueFrame % 48000) / 9));
        samples[2 * i] = samples[2 * i + 1] = v;
    }
    b->mAudioDataByteSize = frames * 4;
    AudioQueueEnqueueBuffer(q, b, 0, NULL);
}

static OSStatus queueCommand(const char *what)
{
    if (strcmp(what, "stop") == 0) return toneQueue ? AudioQueueStop(toneQueue, true) : kAudio_ParamError;
    if (!toneQueue) {
        AudioStreamBasicDescription f = {48000, kAudioFormatLinearPCM,
                                         kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 4, 1, 4, 2, 16, 0};
        OSStatus status = AudioQueueNewOutput(&f, refillTone, NULL, NULL, NULL, 0, &toneQueue);
        if (status) return status;
        for (int i = 0; i < 3; i++) {
            AudioQueueBufferRef b;
            if ((status = AudioQueueAllocateBuffer(toneQueue, 2048 * 4, &b))) return status;
            refillTone(NULL, toneQueue, b);
        }
    }
    return AudioQueueStart(toneQueue, NULL);
}

/* AudioSessionInitialize on the main run loop, then the three property listeners. */
static OSStatus initSession(void)
{
    char b[16];
    OSStatus status = AudioSessionInitialize(NULL, NULL, interruptionListener, NULL);
    if (status != noErr) return status;
    static char othr[] = "othr", died[] = "died", vol[] = "vol";
    status = AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, propertyListener, vol);
    if (status != noErr) say("listen-failed vol %s", statusText(status, b));
    status = AudioSessionAddPropertyListener(kAudioSessionProperty_OtherAudioIsPlaying, propertyListener, othr);
    if (status != noErr) say("listen-failed othr %s", statusText(status, b));
    status = AudioSessionAddPropertyListener(kAudioSessionProperty_ServerDied, propertyListener, died);
    if (status != noErr) say("listen-failed died %s", statusText(status, b));
    return noErr;
}

static int unitRunning(void)
{
    UInt32 running = 0, size = sizeof running;
    if (!toneUnit) return -1;
    if (AudioUnitGetProperty(toneUnit, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0, &running, &size))
        return -2;
    return (int)running;
}

static int queueRunning(void)
{
    UInt32 running = 0, size = sizeof running;
    if (!toneQueue) return -1;
    if (AudioQueueGetProperty(toneQueue, kAudioQueueProperty_IsRunning, &running, &size)) return -2;
    return (int)running;
}

static void soundDone(SystemSoundID id, void *data)
{
    (void)id, (void)data;
    checkThread("sound completion");
    say("sound-done");
}

static OSStatus soundCommand(const char *path)
{
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    SystemSoundID id = 0;
    OSStatus status = AudioServicesCreateSystemSoundID(url, &id);
    CFRelease(url);
    if (status) return status;
    if ((status = AudioServicesAddSystemSoundCompletion(id, NULL, NULL, soundDone, NULL))) return status;
    AudioServicesPlaySystemSound(id);
    return noErr;
}

/* Handles one command line; returns 0 once the program should stop. */
static int handle(char *text)
{
    char b[16];
    char *save = NULL;
    char *command = strtok_r(text, " \t\r", &save);
    char *arg = strtok_r(NULL, " \t\r", &save);
    if (command == NULL) return 1;
    UInt32 flag;
    if (strcmp(command, "category") == 0 && arg != NULL && strlen(arg) == 4) {
        UInt32 category = AT_FOURCC(arg[0], arg[1], arg[2], arg[3]);
        say("category %s %s", arg, statusText(setUInt32(kAudioSessionProperty_AudioCategory, category), b));
    } else if (strcmp(command, "mix") == 0 && parseFlag(arg, &flag)) {
        say("mix %s %s", arg, statusText(setUInt32(kAudioSessionProperty_OverrideCategoryMixWithOthers, flag), b));
    } else if (strcmp(command, "duck") == 0 && parseFlag(arg, &flag)) {
        say("duck %s %s", arg, statusText(setUInt32(kAudioSessionProperty_OtherMixableAudioShouldDuck, flag), b));
    } else if (strcmp(command, "activate") == 0 && arg == NULL) {
        say("activate %s", statusText(AudioSessionSetActive(true), b));
    } else if (strcmp(command, "deactivate") == 0 && arg == NULL) {
        say("deactivate %s", statusText(AudioSessionSetActiveWithFlags(false, 0), b));
    } else if (strcmp(command, "deactivate") == 0 && strcmp(arg, "notify") == 0) {
        OSStatus status =
            AudioSessionSetActiveWithFlags(false, kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation);
        say("deactivate notify %s", statusText(status, b));
    } else if (strcmp(command, "othr") == 0 && arg == NULL) {
        UInt32 value = 0, size = sizeof value;
        OSStatus status = AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &value);
        say("othr %s %u", statusText(status, b), (unsigned)value);
    } else if (strcmp(command, "busy") == 0 && arg != NULL) {
        UInt32 before = 0, after = 0, size = sizeof before;
        AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &before);
        say("busy started");
        for (long waited = 0; waited < atol(arg); waited++) {
            size = sizeof after;
            AudioSessionGetProperty(kAudioSessionProperty_OtherAudioIsPlaying, &size, &after);
            if (after != before) break;
            usleep(1000);
        }
        say("busy othr %u -> %u", (unsigned)before, (unsigned)after);
    } else if (strcmp(command, "vol") == 0 && arg == NULL) {
        Float32 volume = -1;
        UInt32 size = sizeof volume;
        OSStatus status = AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume);
        say("vol %s %.2f", statusText(status, b), volume);
    } else if (strcmp(command, "unit") == 0 && arg != NULL && (!strcmp(arg, "start") || !strcmp(arg, "stop"))) {
        say("unit %s %s", arg, statusText(unitCommand(arg), b));
    } else if (strcmp(command, "graph") == 0 && arg != NULL && (!strcmp(arg, "start") || !strcmp(arg, "stop"))) {
        say("graph %s %s", arg, statusText(graphCommand(arg), b));
    } else if (strcmp(command, "mixer") == 0 && arg != NULL && (!strcmp(arg, "start") || !strcmp(arg, "stop"))) {
        say("mixer %s %s", arg, statusText(mixerCommand(arg), b));
    } else if (strcmp(command, "queue") == 0 && arg != NULL && (!strcmp(arg, "start") || !strcmp(arg, "stop"))) {
        say("queue %s %s", arg, statusText(queueCommand(arg), b));
    } else if (strcmp(command, "sound") == 0 && arg != NULL) {
        say("sound %s %s", arg, statusText(soundCommand(arg), b));
    } else if (strcmp(command, "running") == 0 && arg == NULL) {
        say("running %d %d", unitRunning(), queueRunning());
    } else if (strcmp(command, "init") == 0 && arg == NULL) {
        say("init %s", statusText(initSession(), b));
    } else if (strcmp(command, "quit") == 0) {
        say("quit 0");
        return 0;
    } else {
        say("%s%s%s unknown", command, arg ? " " : "", arg ? arg : "");
    }
    return 1;
}

/* Runs on the main run loop whenever the reader thread signalled new lines. */
static void performCommands(void *info)
{
    (void)info;
    checkThread("command");
    for (;;) {
        pthread_mutex_lock(&pendingLock);
        struct line *next = pendingHead;
        if (next) {
            pendingHead = next->next;
            if (!pendingHead) pendingTail = NULL;
        }
        int done = inputDone;
        pthread_mutex_unlock(&pendingLock);
        if (!next) {
            if (done) CFRunLoopStop(mainLoop);
            return;
        }
        int keepGoing = handle(next->text);
        free(next->text);
        free(next);
        if (!keepGoing) {
            CFRunLoopStop(mainLoop);
            return;
        }
    }
}

static void *readCommands(void *unused)
{
    (void)unused;
    char *text = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&text, &capacity, stdin)) >= 0) {
        if (length > 0 && text[length - 1] == '\n') text[length - 1] = '\0';
        struct line *item = malloc(sizeof *item);
        if (!item || !(item->text = strdup(text))) abort();
        item->next = NULL;
        pthread_mutex_lock(&pendingLock);
        if (pendingTail) pendingTail->next = item;
        else pendingHead = item;
        pendingTail = item;
        pthread_mutex_unlock(&pendingLock);
        CFRunLoopSourceSignal(commandSource);
        CFRunLoopWakeUp(mainLoop);
    }
    free(text);
    pthread_mutex_lock(&pendingLock);
    inputDone = 1;
    pthread_mutex_unlock(&pendingLock);
    CFRunLoopSourceSignal(commandSource);
    CFRunLoopWakeUp(mainLoop);
    return NULL;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--deactivate-in-begin") == 0) deactivateInBegin = 1;
        else if (strcmp(argv[i], "--reactivate-on-end") == 0) reactivateOnEnd = 1;
        else if (strcmp(argv[i], "--no-session") == 0) noSession = 1;
        else {
            fprintf(stderr, "usage: %s [--deactivate-in-begin] [--reactivate-on-end] [--no-session]\n", argv[0]);
            return 2;
        }
    }
    /* A test that went away must not kill us in the middle of a line. */
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    mainThread = pthread_self();
    mainLoop = CFRunLoopGetMain();

    if (!noSession) {
        char b[16];
        OSStatus status = initSession();
        if (status != noErr) {
            say("init-failed %s", statusText(status, b));
            return 1;
        }
    }

    CFRunLoopSourceContext context = {0};
    context.version = 0;
    context.perform = performCommands;
    commandSource = CFRunLoopSourceCreate(kCFAllocatorDefault, 0, &context);
    CFRunLoopAddSource(mainLoop, commandSource, kCFRunLoopDefaultMode);

    pthread_t reader;
    if (pthread_create(&reader, NULL, readCommands, NULL) != 0) {
        say("thread-failed");
        return 1;
    }
    pthread_detach(reader);
    say("ready %d", (int)getpid());
    CFRunLoopRun();
    CFRunLoopSourceInvalidate(commandSource);
    CFRelease(commandSource);
    return 0;
}
