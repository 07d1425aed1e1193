/*
 * The ALSA backend under conditions a real program meets, on the virtual ALSA card:
 *
 *  a. A busy device (another opener holds it, `vcard exclusive on` as on a hw:N
 *     device): AudioSessionSetActive(true) fails at once with kAudioSessionUnspecifiedError
 *     and the session stays inactive. Activation opens its PCMs non-blocking.
 *  b. Activation negotiates (open, hw_params, read back the granted rate and period,
 *     close) and keeps nothing open: while the session is active the program opens the
 *     same device for its own playback and capture.
 *  c. A preferred sample rate set while active on a busy device: 'what', and the
 *     current rate (and the preferred one) stay as they were.
 *  d. fork: the child has no session ('!ini') until it initialises its own on the card;
 *     its own listener hears `vcard volume 0.3`, and so does the parent's.
 *  e. dlopen, AudioSessionInitialize, dlclose, then the card changes: the library's
 *     event thread and queued callbacks keep running (it is linked -z nodelete).
 *
 * Each part runs in a child process of its own (a fresh process that has not loaded the
 * library), with an alarm that turns a hang into a failure; this process checks how
 * each ended. Because of (e) the test is not linked with the library: it dlopens the
 * library named by $AUDIOTOOLBOX_TEST_LIBRARY and calls it through pointers (with the
 * library linked in, dlclose could never unload it and (e) would prove nothing).
 *
 * Needs VCARD_DIR and ALSA_CONFIG_PATH from `vcard setup`, `vcard` on PATH, and
 * AUDIOTOOLBOX_ALSA_JACK_CTLS= (empty). The children wait for callbacks through the
 * pollable descriptor: a forked child cannot rely on a CFRunLoopRunInMode timeout
 * once its parent has run a timed run loop (the toolchain's CF timers do not survive
 * fork).
 */
#define _GNU_SOURCE
#include <AudioToolbox/AudioToolbox.h>
#include "amixer_reference.h"
#include <alsa/asoundlib.h>
#include <dlfcn.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../c/check.h"
#include "../../vcard/vcard_state.h"

/* ---- the library, through dlopen ------------------------------------------------- */

#define LIBRARY_FUNCTIONS(X)                                                         \
    X(AudioSessionInitialize)                                                        \
    X(AudioSessionSetActive)                                                         \
    X(AudioSessionGetProperty)                                                       \
    X(AudioSessionSetProperty)                                                       \
    X(AudioSessionAddPropertyListener)                                               \
    X(AudioSessionGetCallbackFileDescriptor)                                         \
    X(AudioSessionDispatchPendingCallbacks)                                          \
    X(AudioSessionVirtualDeviceConnectPort)

#define DECLARE_POINTER(name) static __typeof__(&name) p_##name;
LIBRARY_FUNCTIONS(DECLARE_POINTER)

static const char *libraryPath;

/* dlopens the library and resolves every function; the handle (or NULL). */
static void *loadLibrary(void)
{
    void *library = dlopen(libraryPath, RTLD_NOW | RTLD_LOCAL);
    CHECK(library != NULL, "dlopen %s: %s", libraryPath, library ? "" : dlerror());
    if (!library) exit(1);
#define RESOLVE(name)                                                                \
    p_##name = (__typeof__(p_##name))dlsym(library, #name);                          \
    CHECK(p_##name != NULL, "dlsym " #name);                                          \
    if (!p_##name) exit(1);
    LIBRARY_FUNCTIONS(RESOLVE)
    return library;
}

/* From here on the program reads as if linked with the library. */
#define AudioSessionInitialize p_AudioSessionInitialize
#define AudioSessionSetActive p_AudioSessionSetActive
#define AudioSessionGetProperty p_AudioSessionGetProperty
#define AudioSessionSetProperty p_AudioSessionSetProperty
#define AudioSessionAddPropertyListener p_AudioSessionAddPropertyListener
#define AudioSessionGetCallbackFileDescriptor p_AudioSessionGetCallbackFileDescriptor
#define AudioSessionDispatchPendingCallbacks p_AudioSessionDispatchPendingCallbacks
#define AudioSessionVirtualDeviceConnectPort p_AudioSessionVirtualDeviceConnectPort

/* ---- helpers ------------------------------------------------------------------------ */


static void vcard(const char *arguments)
{
    char command[256];
    snprintf(command, sizeof command, "vcard %s", arguments);
    CHECK(system(command) == 0, "%s", command);
}

static void setU32(AudioSessionPropertyID id, UInt32 value)
{
    CHECK_STATUS(AudioSessionSetProperty(id, sizeof value, &value), noErr);
}

static Float64 getF64(AudioSessionPropertyID id)
{
    Float64 value = -1;
    UInt32 size = sizeof value;
    AudioSessionGetProperty(id, &size, &value);
    return value;
}

/* Whether the session is inactive, seen from outside: a mode can be set only then. */
static int sessionInactive(void)
{
    UInt32 mode = kAudioSessionMode_Default;
    return AudioSessionSetProperty(kAudioSessionProperty_Mode, sizeof mode, &mode) == noErr;
}

static snd_pcm_t *openPCM(snd_pcm_stream_t stream, int *error)
{
    snd_pcm_t *pcm = NULL;
    *error = snd_pcm_open(&pcm, "default", stream, SND_PCM_NONBLOCK);
    return *error < 0 ? NULL : pcm;
}

static int volumeCalls;
static Float32 lastVolume;

static void volumeListener(void *clientData, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)clientData; (void)id;
    if (size == sizeof(Float32)) memcpy(&lastVolume, data, sizeof lastVolume);
    volumeCalls++;
}

/* Polls the callback descriptor (at most 1000 times 10 ms) until `count` volume calls. */
static void dispatchUntil(int count)
{
    int fd = -1;
    AudioSessionGetCallbackFileDescriptor(&fd);
    for (int i = 0; i < 1000 && volumeCalls < count; i++) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 10) == 1) AudioSessionDispatchPendingCallbacks(NULL);
    }
}

/* ---- a. a busy device ------------------------------------------------------------ */

static void busyDevice(void)
{
    loadLibrary();
    vcard("exclusive on");
    int error = 0;
    snd_pcm_t *held = openPCM(SND_PCM_STREAM_PLAYBACK, &error);
    CHECK(held != NULL, "the program opens the playback device (%s)", snd_strerror(error));
    int otherError = 0;
    snd_pcm_t *second = openPCM(SND_PCM_STREAM_PLAYBACK, &otherError);
    CHECK(second == NULL && otherError == -EBUSY, "the exclusive card refuses a second opener (%d)", otherError);
    if (second) snd_pcm_close(second);

    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_MediaPlayback);
    CHECK_STATUS(AudioSessionSetActive(true), kAudioSessionUnspecifiedError);
    CHECK(sessionInactive(), "after the refused activation the session is inactive");
    CHECK_STATUS(AudioSessionSetActive(true), kAudioSessionUnspecifiedError);
    CHECK_STATUS(AudioSessionSetActive(false), noErr);

    if (held) snd_pcm_close(held);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK(!sessionInactive(), "once the device is free the session activates");
    CHECK(getF64(kAudioSessionProperty_CurrentHardwareSampleRate) == 44100, "the granted rate (%.0f)",
          getF64(kAudioSessionProperty_CurrentHardwareSampleRate));
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
}

/* ---- b. an active session holds nothing ----------------------------------------- */

static void holdsNothing(void)
{
    loadLibrary();
    vcard("exclusive on");
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_PlayAndRecord);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);

    int playbackError = 0, captureError = 0;
    snd_pcm_t *playback = openPCM(SND_PCM_STREAM_PLAYBACK, &playbackError);
    snd_pcm_t *capture = openPCM(SND_PCM_STREAM_CAPTURE, &captureError);
    CHECK(playback != NULL, "while the session is active the program opens the playback device (%s)",
          snd_strerror(playbackError));
    CHECK(capture != NULL, "while the session is active the program opens the capture device (%s)",
          snd_strerror(captureError));
    if (playback) {
        short silence[2 * 256] = {0};
        CHECK(snd_pcm_set_params(playback, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, 44100, 1, 100000) == 0,
              "the program configures its playback");
        CHECK(snd_pcm_writei(playback, silence, 256) == 256, "and plays on it");
    }
    if (capture)
        CHECK(snd_pcm_set_params(capture, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, 44100, 1, 100000) == 0,
              "the program configures its capture");
    CHECK(getF64(kAudioSessionProperty_CurrentHardwareSampleRate) == 44100, "the session still reports its granted rate");
    Float32 duration = -1;
    UInt32 size = sizeof duration;
    CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareIOBufferDuration, &size, &duration), noErr);
    CHECK(duration > 0, "and its granted IO buffer duration (%f)", duration);
    if (playback) snd_pcm_close(playback);
    if (capture) snd_pcm_close(capture);
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
    CHECK(sessionInactive(), "deactivated");
}

/* ---- c. renegotiation on a busy device ------------------------------------------ */

static void preferredRateBusy(void)
{
    loadLibrary();
    vcard("exclusive on");
    vcard("rates 44100,48000");
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_MediaPlayback);
    Float64 rate = 44100;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof rate, &rate), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK(getF64(kAudioSessionProperty_CurrentHardwareSampleRate) == 44100, "active at 44100");

    int error = 0;
    snd_pcm_t *held = openPCM(SND_PCM_STREAM_PLAYBACK, &error);
    CHECK(held != NULL, "the program opens the playback device while the session is active (%s)", snd_strerror(error));
    rate = 48000;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof rate, &rate),
                 kAudioSessionUnspecifiedError);
    CHECK(getF64(kAudioSessionProperty_CurrentHardwareSampleRate) == 44100, "the current rate stays 44100 (%.0f)",
          getF64(kAudioSessionProperty_CurrentHardwareSampleRate));
    CHECK(getF64(kAudioSessionProperty_PreferredHardwareSampleRate) == 44100,
          "the failed Set changed nothing: preferred still 44100 (%.0f)",
          getF64(kAudioSessionProperty_PreferredHardwareSampleRate));
    CHECK(!sessionInactive(), "the session is still active");

    if (held) snd_pcm_close(held);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_PreferredHardwareSampleRate, sizeof rate, &rate), noErr);
    CHECK(getF64(kAudioSessionProperty_CurrentHardwareSampleRate) == 48000, "with the device free, 48000 (%.0f)",
          getF64(kAudioSessionProperty_CurrentHardwareSampleRate));
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
}

/* ---- d. fork on the card ----------------------------------------------------------- */

static void forkOnCard(void)
{
    loadLibrary();
    vcard("exclusive off");
    vcard("volume 0.8");
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    setU32(kAudioSessionProperty_AudioCategory, kAudioSessionCategory_MediaPlayback);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeListener, NULL), noErr);
    runPendingCallbacks();

    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        watchdogName = "fork on the card, child";
        alarm(60);
        checksPassed = checksFailed = 0;
        volumeCalls = 0;
        Float32 volume = 0;
        UInt32 size = sizeof volume;
        CHECK_STATUS(AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputVolume, &size, &volume),
                     kAudioSessionNotInitialized);
        CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
        CHECK_STATUS(AudioSessionVirtualDeviceConnectPort(kAudioSessionVirtualPort_Headphones), kAudioServicesNoHardwareError);
        CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeListener, NULL),
                     noErr);
        vcard("volume 0.3");
        dispatchUntil(1);
        CHECK(volumeCalls >= 1 && fabs(lastVolume - amixerMappedVolume()) < AMIXER_TOLERANCE,
              "the child's own session hears the card's volume (%d calls, %f, expected %f)", volumeCalls, lastVolume,
              amixerMappedVolume());
        exit(finish("  fork on the card: child") == 0 ? 0 : 3);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child, "fork and wait");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child succeeded (status 0x%x)", status);
    /* The parent's session heard the same change on its own. */
    for (int i = 0; i < 1000 && !(volumeCalls >= 1 && fabs(lastVolume - amixerMappedVolume()) < AMIXER_TOLERANCE); i++)
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(volumeCalls >= 1 && fabs(lastVolume - amixerMappedVolume()) < AMIXER_TOLERANCE, "the parent's listener heard 0.3 as well (%d, %f)",
          volumeCalls, lastVolume);
    CHECK_STATUS(AudioSessionSetActive(false), noErr);
}

/* ---- e. dlclose with the event thread running ------------------------------------ */

static void dlcloseOnCard(void)
{
    vcard("exclusive off");
    vcard("volume 0.5");
    void *library = loadLibrary();
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionAddPropertyListener(kAudioSessionProperty_CurrentHardwareOutputVolume, volumeListener, NULL), noErr);
    CHECK(dlclose(library) == 0, "dlclose");
    void *again = dlopen(libraryPath, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    CHECK(again != NULL, "the library stays loaded after dlclose");
    if (again) dlclose(again);
    /* The library's thread watches the card; its callbacks run on this run loop. */
    static const char *const changes[] = {"volume 0.3", "plug headphones", "volume 0.6", "unplug headphones", "volume 0.4"};
    for (size_t k = 0; k < sizeof changes / sizeof changes[0]; k++) {
        vcard(changes[k]);
        for (int i = 0; i < 20; i++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    }
    for (int i = 0; i < 500 && !(volumeCalls >= 1 && fabs(lastVolume - amixerMappedVolume()) < AMIXER_TOLERANCE); i++)
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(volumeCalls >= 1 && fabs(lastVolume - amixerMappedVolume()) < AMIXER_TOLERANCE,
          "after dlclose the volume listener still hears the card (%d calls, last %f)", volumeCalls, lastVolume);
}

/* ---- the parts, each in a process of its own --------------------------------------- */

static void runPart(const char *name, void (*part)(void))
{
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        watchdogName = name;
        checksPassed = checksFailed = 0;
        alarm(30);
        part();
        char line[128];
        snprintf(line, sizeof line, "  %s", name);
        fflush(NULL);
        exit(finish(line) == 0 ? 0 : 3);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child, "%s: fork and wait", name);
    if (WIFSIGNALED(status))
        CHECK(0, "%s: killed by signal %d (%s)", name, WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: failed (exit status %d)", name, WEXITSTATUS(status));
}

int main(void)
{
    libraryPath = getenv("AUDIOTOOLBOX_TEST_LIBRARY");
    CHECK(libraryPath && *libraryPath, "AUDIOTOOLBOX_TEST_LIBRARY names the library");
    if (!libraryPath || !*libraryPath) return finish("alsa abuse");
    installWatchdog("alsa abuse");
    runPart("busy device", busyDevice);
    runPart("active session holds nothing", holdsNothing);
    runPart("preferred rate on a busy device", preferredRateBusy);
    runPart("fork on the card", forkOnCard);
    runPart("dlclose on the card", dlcloseOnCard);
    vcard("exclusive off");
    return finish("alsa abuse");
}
