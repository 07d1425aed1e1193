/*
 * System sounds and the arbiter, on the virtual ALSA card with a real audiosessiond
 * (AUDIOTOOLBOX_ARBITER=daemon, a private XDG_RUNTIME_DIR, `audiosession` and `vcard` on
 * PATH): the silent switch silences sounds marked IsUISound and not the others; another
 * program's ducking session lowers this program's sounds; with
 * CompletePlaybackIfAppDies the daemon finishes a play whose program was killed, and
 * without it nobody does. The daemon decodes none of it (audiosessiond-finisher does):
 * four plays of a 29 s sound left by a dead program do not grow the daemon (it peaked at
 * 128 MB finishing 24 such plays when it decoded them itself).
 */
#include <AudioToolbox/AudioToolbox.h>
#include <alsa/asoundlib.h>
#include <math.h>
#include <signal.h>
#include <sndfile.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "../c/check.h"
#include "sounds.h"

static char dir[] = "/tmp/at-dsounds-XXXXXX";
static char recording[4096];

static void run(const char *command)
{
    if (system(command) != 0) { fprintf(stderr, "'%s' failed\n", command); exit(2); }
}

/* A 500 Hz tone at 48 kHz stereo, `seconds` long, as a WAV file in the test's folder. */
static const char *writeTone(const char *name, double seconds)
{
    long frames = (long)(seconds * 48000);
    short *samples = malloc((size_t)frames * 4);
    for (long i = 0; i < frames; i++) samples[2 * i] = samples[2 * i + 1] = (short)(9000 * sin(2 * M_PI * 500 * i / 48000.0));
    const char *path = writeWav(dir, name, 48000, 2, samples, frames);
    free(samples);
    return path;
}

static int completions, interruptions, otherAudioChanges;
static void otherAudio(void *data, AudioSessionPropertyID id, UInt32 size, const void *value)
{
    (void)data; (void)id; (void)size; (void)value;
    otherAudioChanges++;
}

/* The largest sample in the recording. */
static long peakLevel(void);
static void completion(SystemSoundID id, void *data) { (void)id; (void)data; completions++; }
static void interruption(void *data, UInt32 state) { (void)data; (void)state; interruptions++; }

static void waitFor(int *counter, int count)
{
    while (*counter < count) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
}

/* The span of non-silent frames in the recording, in frames (0 if silent). */
static long heardFrames(void)
{
    FILE *f = fopen(recording, "rb");
    if (!f) return 0;
    short frame[2];
    long index = 0, first = -1, last = -1;
    while (fread(frame, 4, 1, f) == 1) {
        if (frame[0] || frame[1]) { if (first < 0) first = index; last = index; }
        index++;
    }
    fclose(f);
    return first < 0 ? 0 : last - first + 1;
}

static long peakLevel(void)
{
    FILE *f = fopen(recording, "rb");
    if (!f) return 0;
    short frame[2];
    long peak = 0;
    while (fread(frame, 4, 1, f) == 1) {
        if (labs(frame[0]) > peak) peak = labs(frame[0]);
        if (labs(frame[1]) > peak) peak = labs(frame[1]);
    }
    fclose(f);
    return peak;
}

/* Waits until no one holds the card's playback (with `vcard exclusive on` from the
 * start, a non-blocking open succeeds only then). */
static void waitUntilReleased(void)
{
    for (;;) {
        snd_pcm_t *probe = NULL;
        if (snd_pcm_open(&probe, "default", SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) == 0) {
            snd_pcm_close(probe);
            break;
        }
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
    }
}

/* A program that plays a 1 s sound with CompletePlaybackIfAppDies = `outlive` and is
 * killed a moment into it. */
static pid_t killedMidSound(UInt32 outlive, const char *path)
{
    pid_t child = fork();
    if (child == 0) {
        AudioSessionInitialize(NULL, NULL, NULL, NULL);
        CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
        SystemSoundID id = 0;
        AudioServicesCreateSystemSoundID(url, &id);
        AudioServicesSetProperty(kAudioServicesPropertyCompletePlaybackIfAppDies, sizeof id, &id, sizeof outlive, &outlive);
        AudioServicesPlaySystemSound(id);
        /* Wait until the card has played something, then die. */
        while (heardFrames() < 4800) { struct timespec p = {0, 5000000}; nanosleep(&p, NULL); }
        raise(SIGKILL);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the player was killed mid-sound");
    return child;
}

/* A program that plays `path` `plays` times at once, each to be finished if it dies,
 * and is killed a moment into them. */
static void killedMidSounds(const char *path, int plays)
{
    pid_t child = fork();
    if (child == 0) {
        AudioSessionInitialize(NULL, NULL, NULL, NULL);
        CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
        SystemSoundID id = 0;
        UInt32 outlive = 1;
        AudioServicesCreateSystemSoundID(url, &id);
        AudioServicesSetProperty(kAudioServicesPropertyCompletePlaybackIfAppDies, sizeof id, &id, sizeof outlive, &outlive);
        for (int i = 0; i < plays; i++) AudioServicesPlaySystemSound(id);
        while (heardFrames() < 4800) { struct timespec p = {0, 5000000}; nanosleep(&p, NULL); }
        raise(SIGKILL);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the player of %d sounds was killed mid-sound", plays);
}

/* A field of /proc/PID/status in kB (VmHWM: the peak resident size), -1 if unreadable. */
static long procStatusKB(pid_t pid, const char *field)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long value = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, strlen(field)) && line[strlen(field)] == ':') value = atol(line + strlen(field) + 1);
    if (f) fclose(f);
    return value;
}

/* The daemon's pid, from its pid file. */
static pid_t daemonPid(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/audiotoolbox/audiosessiond.pid", getenv("XDG_RUNTIME_DIR"));
    FILE *f = fopen(path, "r");
    long pid = 0;
    if (f && fscanf(f, "%ld", &pid) != 1) pid = 0;
    if (f) fclose(f);
    return (pid_t)pid;
}

/* Kills the finishers whose log lines name `needle` (their pid is in the line). */
static void killFinishers(const char *needle)
{
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/audiotoolbox/audiosessiond.log", getenv("XDG_RUNTIME_DIR"));
    FILE *log = fopen(path, "r");
    while (log && fgets(line, sizeof line, log)) {
        const char *at = strstr(line, "audiosessiond-finisher[");
        if (at && strstr(line, needle)) kill((pid_t)atol(at + strlen("audiosessiond-finisher[")), SIGKILL);
    }
    if (log) fclose(log);
}

/* Waits until the daemon has dropped the session of `pid` (it saw the death). */
static void waitUntilGone(pid_t pid)
{
    char needle[64];
    snprintf(needle, sizeof needle, "\"pid\":%d,", (int)pid);
    for (;;) {
        FILE *status = popen("audiosession status --json", "r");
        char text[65536] = "";
        size_t n = status ? fread(text, 1, sizeof text - 1, status) : 0;
        text[n] = 0;
        if (status) pclose(status);
        if (n > 0 && !strstr(text, needle)) return;
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
    }
}

/* What the daemon's log says of the plays it finished for dead programs: how many, and
 * the frames the last one had left ("finishing ... (N frames left)"). */
static int finishedByDaemon(long *lastLeft)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/audiotoolbox/audiosessiond.log", getenv("XDG_RUNTIME_DIR"));
    FILE *log = fopen(path, "r");
    char line[1024];
    int count = 0;
    if (lastLeft) *lastLeft = 0;
    while (log && fgets(line, sizeof line, log)) {
        if (!strstr(line, "finishing ")) continue;
        count++;
        const char *open = strrchr(line, '(');
        if (open && lastLeft) *lastLeft = atol(open + 1);
    }
    if (log) fclose(log);
    return count;
}

int main(void)
{
    installWatchdog("system sounds with audiosessiond");
    alarm(120);
    const char *vcardDir = getenv("VCARD_DIR");
    if (!vcardDir || !mkdtemp(dir)) return 2;
    snprintf(recording, sizeof recording, "%s/state.playback.raw", vcardDir);
    run("vcard rates 48000");
    run("vcard exclusive on");

    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, interruption, NULL), noErr);
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    CHECK_STATUS(AudioSessionSetActive(true), noErr);

    /* The silent switch. A call starts and ends after it: once this session has its End,
     * it has also heard of the switch, which the daemon sent before. */
    run("audiosession silent on");
    run("audiosession call start");
    waitFor(&interruptions, 1);
    run("audiosession call end");
    waitFor(&interruptions, 2);
    SystemSoundID ui = createSound(writeTone("ui.wav", 0.2));
    SystemSoundID plain = createSound(writeTone("plain.wav", 0.2));
    UInt32 zero = 0;
    CHECK_STATUS(AudioServicesSetProperty(kAudioServicesPropertyIsUISound, sizeof plain, &plain, sizeof zero, &zero), noErr);
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(ui, NULL, NULL, completion, NULL), noErr);
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(plain, NULL, NULL, completion, NULL), noErr);
    run("vcard record-reset");
    AudioServicesPlaySystemSound(ui);
    waitFor(&completions, 1);
    CHECK(heardFrames() == 0, "a UI sound is silent under the silent switch, and still completes");
    run("vcard record-reset");
    AudioServicesPlaySystemSound(plain);
    waitFor(&completions, 2);
    CHECK(labs(heardFrames() - 9600) <= 2, "a sound not marked IsUISound is heard (%ld frames)", heardFrames());
    run("audiosession silent off");
    AudioSessionSetActive(false);
    waitUntilReleased();

    /* Ducking: while another program's ducking session is active, this program's sounds
     * play at 0.3 of their level. Its OtherAudioIsPlaying listener marks the moment: the
     * daemon tells a session it is ducked before it tells it of the other audio. */
    int ready[2], release[2];
    if (pipe(ready) != 0 || pipe(release) != 0) return 2;
    AudioSessionAddPropertyListener(kAudioSessionProperty_OtherAudioIsPlaying, otherAudio, NULL);
    pid_t ducker = fork();
    if (ducker == 0) {
        AudioSessionInitialize(NULL, NULL, NULL, NULL);
        UInt32 ambient = kAudioSessionCategory_AmbientSound, one = 1;
        AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof ambient, &ambient);
        AudioSessionSetProperty(kAudioSessionProperty_OtherMixableAudioShouldDuck, sizeof one, &one);
        AudioSessionSetActive(true);
        char byte = 1;
        if (write(ready[1], &byte, 1) != 1 || read(release[0], &byte, 1) != 1) _exit(1);
        _exit(0);
    }
    char byte;
    if (read(ready[0], &byte, 1) != 1) return 2;
    waitFor(&otherAudioChanges, 1);
    run("vcard record-reset");
    AudioServicesPlaySystemSound(plain);
    waitFor(&completions, 3);
    waitUntilReleased();
    long peak = peakLevel();
    CHECK(labs(peak - (long)lround(9000 * 0.3)) <= 2, "a ducked program's sound plays at 0.3 (peak %ld of 9000)", peak);
    if (write(release[1], &byte, 1) != 1) return 2;
    waitpid(ducker, NULL, 0);

    /* CompletePlaybackIfAppDies: the daemon plays the rest; without it nobody does. */
    const char *second = writeTone("second.wav", 1.0);
    run("vcard record-reset");
    killedMidSound(1, second);
    /* The daemon plays what was left when it took over (its log says how much): the time
     * between the death and that moment is not played by anyone. Wait for its part. */
    long left = 0;
    while (finishedByDaemon(&left) == 0) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
    while (heardFrames() < left) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
    waitUntilReleased();
    long heard = heardFrames();
    CHECK(left > 24000 && heard >= left + 4800 && heard <= 48000 + 4800,
          "the daemon finished the sound (%ld frames heard of 48000, %ld of them the daemon's)", heard, left);
    CHECK(finishedByDaemon(NULL) == 1, "the daemon says it finished one play");
    run("vcard record-reset");
    pid_t plain2 = killedMidSound(0, second);
    waitUntilGone(plain2);
    waitUntilReleased();
    CHECK(finishedByDaemon(NULL) == 1, "without the property the daemon finishes nothing");
    CHECK(heardFrames() < 40000, "the sound stopped with its program (%ld frames)", heardFrames());

    /* Four plays of a 29 s sound at once, left by a dead program: one finisher mixes them
     * (one stream, as the program's own player had), and the daemon's peak resident size
     * stays what it was: it decodes nothing. */
    pid_t daemon = daemonPid();
    long before = procStatusKB(daemon, "VmHWM");
    const char *longSound = writeTone("long.wav", 29.0);
    run("vcard record-reset");
    killedMidSounds(longSound, 4);
    while (finishedByDaemon(NULL) < 5) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
    long resident = procStatusKB(daemon, "VmHWM");
    CHECK(daemon > 0 && daemon == daemonPid(), "the same daemon finishes the long sounds (pid %d)", (int)daemon);
    CHECK(before > 0 && resident > 0 && resident < 24 * 1024,
          "the daemon's peak resident size stays small while four 29 s sounds are finished (%ld kB, %ld kB before)",
          resident, before);
    printf("measured: audiosessiond VmHWM %ld kB before, %ld kB finishing four 29 s sounds\n", before, resident);
    killFinishers("long.wav");
    waitUntilReleased();

    run("vcard exclusive off");
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    run(command);
    return finish("system sounds with audiosessiond");
}
