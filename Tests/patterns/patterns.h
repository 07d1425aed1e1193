/*
 * The harness side of the pattern tests: the client modules next to this file are
 * written as their porting users wrote them; the drive_*.c programs use this to cause
 * the events (in-process virtual device or the virtual ALSA card), run the run loop and
 * check what the clients saw. Compiles as C and as C++.
 *
 * Each program takes the mode as its argument: "virtual" (AUDIOTOOLBOX_BACKEND=virtual,
 * events through AudioSessionVirtualDevice*) or "alsa" (the card from `vcard setup`,
 * events through the `vcard` command, which must be on PATH).
 */
#ifndef PATTERNS_H
#define PATTERNS_H
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>
#include "../c/check.h"

/* 1 on the virtual ALSA card, 0 on the in-process virtual device. */
static int onALSA;
/* Calls of the harness's own listeners (its client data differs from the clients'). */
static int sentinelCalls, harnessRouteChanges;

static inline void harnessStart(int argc, char **argv, const char *name)
{
    if (argc != 2 || (strcmp(argv[1], "virtual") != 0 && strcmp(argv[1], "alsa") != 0)) {
        fprintf(stderr, "usage: %s virtual|alsa\n", argv[0]);
        exit(2);
    }
    onALSA = strcmp(argv[1], "alsa") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0); /* what was said before a hang stays in the log */
    installWatchdog(name);
    alarm(30); /* a hang becomes a failure; the programs take well under a second */
}

static inline void harnessListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)size;
    if (clientData == &sentinelCalls) sentinelCalls++;
    if (clientData == &harnessRouteChanges && id == kAudioSessionProperty_AudioRouteChange && data)
        harnessRouteChanges++;
}

/* After the client has initialised the session: checks the session is on the backend
 * the mode asks for (an ALSA card refuses the virtual device's calls; without this a
 * fallback to the virtual device would pass silently), and adds the harness's listeners. */
static inline void harnessAttach(void)
{
    static const Float64 defaultRates[] = {44100, 48000}; /* the virtual device's own */
    OSStatus virtualDeviceCall = AudioSessionVirtualDeviceSetSampleRates(defaultRates, 2);
    CHECK_STATUS(virtualDeviceCall, onALSA ? (OSStatus)kAudioServicesNoHardwareError : (OSStatus)noErr);
    OSStatus volumeListener = AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume,
                                                              harnessListener, &sentinelCalls);
    OSStatus routeListener = AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, harnessListener,
                                                             &harnessRouteChanges);
    CHECK_STATUS(volumeListener, noErr);
    CHECK_STATUS(routeListener, noErr);
    if (volumeListener != noErr || routeListener != noErr) exit(finish("stopped: the client left no session to drive"));
}

/* A result code as text for messages ("'nohw'"); a few may be used in one message. */
static inline const char *statusText(OSStatus status)
{
    static char buffers[4][16];
    static int next;
    return fourcc(status, buffers[next++ % 4]);
}

static inline void vcard(const char *arguments)
{
    char command[128];
    snprintf(command, sizeof command, "vcard %s", arguments);
    CHECK(system(command) == 0, "%s", command);
}

/* Waits until every event caused so far has reached its listeners: moves the volume
 * and runs the run loop until that change's callback arrives, callbacks being
 * delivered in the order of the changes. This also lets a test see that a listener was
 * NOT called. The bound only stops a lost event from hanging; nothing measures time. */
static inline void settle(void)
{
    int wanted = sentinelCalls + 1, moved;
    if (onALSA) {
        moved = system(wanted % 2 ? "vcard volume 0.3" : "vcard volume 0.6") == 0;
    } else {
        moved = AudioSessionVirtualDeviceSetOutputVolume(wanted % 2 ? 0.3f : 0.6f) == noErr;
    }
    CHECK(moved, "volume moved (the event sentinel)");
    for (int i = 0; moved && i < 1000 && sentinelCalls < wanted; i++)
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(sentinelCalls >= wanted, "events delivered (the volume change after them arrived)");
    runPendingCallbacks();
}

/* Ports by their vcard names: "headset" (headphones with a microphone), "headphones",
 * "mic" (the built-in microphone). */
static inline AudioSessionVirtualPort virtualPort(const char *name)
{
    if (strcmp(name, "headset") == 0) return kAudioSessionVirtualPort_Headset;
    if (strcmp(name, "headphones") == 0) return kAudioSessionVirtualPort_Headphones;
    return kAudioSessionVirtualPort_BuiltInMic;
}

static inline void plug(const char *port)
{
    char arguments[64];
    snprintf(arguments, sizeof arguments, "plug %s", port);
    if (onALSA) vcard(arguments);
    else CHECK_STATUS(AudioSessionVirtualDeviceConnectPort(virtualPort(port)), noErr);
    settle();
}

static inline void unplug(const char *port)
{
    char arguments[64];
    snprintf(arguments, sizeof arguments, "unplug %s", port);
    if (onALSA) vcard(arguments);
    else CHECK_STATUS(AudioSessionVirtualDeviceDisconnectPort(virtualPort(port)), noErr);
    settle();
}

/* System interruptions exist only on the in-process virtual device for now. */
static inline void beginInterruption(void)
{
    CHECK_STATUS(AudioSessionVirtualDeviceBeginInterruption(), noErr);
    settle();
}

static inline void endInterruption(Boolean shouldResume)
{
    CHECK_STATUS(AudioSessionVirtualDeviceEndInterruption(shouldResume), noErr);
    settle();
}

/* ---- reading the session --------------------------------------------------------- */

static inline UInt32 getU32(AudioSessionPropertyID id)
{
    UInt32 value = 0xFFFFFFFF, size = sizeof value;
    OSStatus status = AudioSessionGetProperty(id, &size, &value);
    CHECK(status == noErr, "Get %s returned %s", statusText((OSStatus)id), statusText(status));
    return value;
}

static inline Float32 getF32(AudioSessionPropertyID id)
{
    Float32 value = -1;
    UInt32 size = sizeof value;
    OSStatus status = AudioSessionGetProperty(id, &size, &value);
    CHECK(status == noErr, "Get %s returned %s", statusText((OSStatus)id), statusText(status));
    return value;
}

static inline OSStatus setU32(AudioSessionPropertyID id, UInt32 value)
{
    return AudioSessionSetProperty(id, sizeof value, &value);
}

/* The deprecated legacy route name ("SpeakerAndMicrophone", "HeadsetInOut", ...). */
static inline const char *routeName(char *buffer, size_t size)
{
    CFStringRef route = NULL;
    UInt32 length = sizeof route;
    buffer[0] = 0;
    OSStatus status = AudioSessionGetProperty(kAudioSessionProperty_AudioRoute, &length, &route);
    CHECK(status == noErr && route != NULL, "Get AudioRoute returned %s", statusText(status));
    if (route) {
        CFStringGetCString(route, buffer, (CFIndex)size, kCFStringEncodingUTF8);
        CFRelease(route);
    }
    return buffer;
}

/* The port type of the first input or output (key) of the current route, "" if none;
 * *count receives how many ports that side has. */
static inline const char *routePort(CFStringRef key, char *buffer, size_t size, CFIndex *count)
{
    buffer[0] = 0;
    *count = 0;
    CFDictionaryRef route = currentRoute();
    if (!route) return buffer;
    CFArrayRef ports = (CFArrayRef)CFDictionaryGetValue(route, key);
    if (ports) *count = CFArrayGetCount(ports);
    if (*count > 0) {
        CFDictionaryRef port = (CFDictionaryRef)CFArrayGetValueAtIndex(ports, 0);
        CFStringRef type = (CFStringRef)CFDictionaryGetValue(port, kAudioSession_AudioRouteKey_Type);
        if (type) CFStringGetCString(type, buffer, (CFIndex)size, kCFStringEncodingUTF8);
    }
    CFRelease(route);
    return buffer;
}

/* Whether `text` is the text of the port-type constant `type`. */
static inline int isPort(const char *text, CFStringRef type)
{
    char name[64] = "";
    CFStringGetCString(type, name, sizeof name, kCFStringEncodingUTF8);
    return strcmp(text, name) == 0;
}

/* Whether the session is active, for a category that does not mix: a mode can be set
 * only while inactive, and setting Default (which every category takes) changes
 * nothing. There is no property that says it directly. */
static inline int sessionActive(void)
{
    OSStatus status = setU32(kAudioSessionProperty_Mode, kAudioSessionMode_Default);
    CHECK(status == noErr || status == kAudioSessionUnspecifiedError, "activity probe: mode set returned %s",
          statusText(status));
    return status == kAudioSessionUnspecifiedError;
}
/* ---- what the virtual card played (the audio-unit patterns) -------------------------- */

/* The card's recording so far (16-bit stereo frames); the caller frees it. */
static inline short *cardRecording(long *frames)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/state.playback.raw", getenv("VCARD_DIR") ? getenv("VCARD_DIR") : ".");
    long bytes = 0;
    short *samples = (short *)readWholeFile(path, &bytes);
    *frames = bytes / 4;
    return samples;
}

/* The card's recorded playback starts (frame offsets in the recording) since the last
 * `vcard record-reset`: a stream that ran dry starts again, so each start after the
 * first is an underrun. */
static inline int cardStarts(long *at, int max)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/state.playback.starts", getenv("VCARD_DIR") ? getenv("VCARD_DIR") : ".");
    FILE *f = fopen(path, "r");
    long long ns;
    long frame;
    int n = 0;
    while (f && n < max && fscanf(f, "%lld %ld", &ns, &frame) == 2) at[n++] = frame;
    if (f) fclose(f);
    return n;
}

static inline int cardPlaybackRate(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/state.playback.rate", getenv("VCARD_DIR") ? getenv("VCARD_DIR") : ".");
    FILE *f = fopen(path, "r");
    int rate = 0;
    if (f) { if (fscanf(f, "%d", &rate) != 1) rate = 0; fclose(f); }
    return rate;
}

/* The pitch (rising zero crossings per second) and peak of `count` samples taken every
 * `stride` from `samples`. */
static inline double pitchOf(const short *samples, long count, int stride, double rate, long *peak)
{
    long crossings = 0;
    *peak = 0;
    for (long i = 1; i < count; i++) {
        if (samples[(i - 1) * stride] < 0 && samples[i * stride] >= 0) crossings++;
        if (labs((long)samples[i * stride]) > *peak) *peak = labs((long)samples[i * stride]);
    }
    return count > 1 ? crossings * rate / (double)(count - 1) : 0;
}

/* What the card heard since the last `vcard record-reset`: the loud part's pitch, peak
 * and length in frames (0 when nothing was heard). */
static inline long cardHeard(double *hz, long *peak)
{
    long frames = 0, first = -1, last = -1;
    short *s = cardRecording(&frames);
    for (long i = 0; i < frames; i++) if (abs(s[2 * i]) > 64) { if (first < 0) first = i; last = i; }
    *hz = 0;
    *peak = 0;
    if (first >= 0) *hz = pitchOf(s + 2 * first, last - first + 1, 2, cardPlaybackRate(), peak);
    free(s);
    return first < 0 ? 0 : last - first + 1;
}

/* A phone call starts (1) or ends (0): audiosessiond's (`audiosession call`) when it
 * arbitrates (by default on the card), else the in-process arbiter's. The caller waits
 * for its callback. */
static inline void phoneCall(int begin)
{
    const char *arbiter = getenv("AUDIOTOOLBOX_ARBITER");
    int daemon = arbiter ? strcmp(arbiter, "daemon") == 0 : onALSA;
    if (daemon) {
        CHECK(system(begin ? "audiosession call start" : "audiosession call end") == 0, "audiosession call %s",
              begin ? "start" : "end");
    } else if (begin) {
        CHECK_STATUS(AudioSessionVirtualDeviceBeginInterruption(), noErr);
    } else {
        CHECK_STATUS(AudioSessionVirtualDeviceEndInterruption(true), noErr);
    }
}

/* Clicks in a steady tone of `hz` at `amplitude`, from sample `from` on (every
 * `stride`-th sample of `s`): a step larger than such a sine makes in one sample at `rate`
 * (times 1.15, plus 64), or a sample exactly 0 beside a neighbour beyond that step. Each
 * sample counts once; clicks closer than `merge` samples to the one before count as one
 * event (a step through a resampler rings for a few samples). Gives back the largest step
 * and the first click (-1: none). */
static inline long toneClickEvents(const short *s, long count, int stride, double rate, double hz, double amplitude,
                                   long from, long merge, long *worstStep, long *firstAt)
{
    double bound = amplitude * 2 * M_PI * hz / rate * 1.15 + 64;
    long clicks = 0, last = -1;
    *worstStep = 0;
    *firstAt = -1;
    for (long i = from > 1 ? from : 1; i < count; i++) {
        long a = s[(i - 1) * stride], b = s[i * stride], next = i + 1 < count ? s[(i + 1) * stride] : 0;
        long step = labs(b - a);
        if (step > *worstStep) *worstStep = step;
        if (step > bound || (b == 0 && (labs(a) > bound || labs(next) > bound))) {
            if (*firstAt < 0) *firstAt = i;
            if (last < 0 || i - last >= merge) clicks++;
            last = i;
        }
    }
    return clicks;
}

/* Every click sample counted on its own (see toneClickEvents). */
static inline long toneClicks(const short *s, long count, int stride, double rate, double hz, double amplitude, long from,
                              long *worstStep, long *firstAt)
{
    return toneClickEvents(s, count, stride, rate, hz, amplitude, from, 1, worstStep, firstAt);
}

/* Runs the run loop until *counter reaches `value` (the watchdog bounds it). */
static inline void runUntil(volatile long *counter, long value)
{
    while (*counter < value) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
}
#endif
