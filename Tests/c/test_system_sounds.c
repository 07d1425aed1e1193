/*
 * SPEC 8: System Sound Services, in every configuration of world.h (on the virtual
 * device its sounds go nowhere, at a device's pace): creating from files and every bad
 * input, unique IDs, plays and their completions (once per play, on the run loop, with
 * the ID and client data, never before the sound's duration has passed), Vibrate, the
 * alert, dispose while playing, removal, and the two properties. Sounds are written by
 * the test with libsndfile.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <sndfile.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include "check.h"
#include "world.h"

static char dir[] = "/tmp/at-sounds-XXXXXX";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Writes a sine file; returns its path (static buffer per call site). */
static const char *writeSound(const char *name, int format, int rate, int channels, double seconds)
{
    static char paths[16][512];
    static int next;
    char *path = paths[next++ % 16];
    snprintf(path, 512, "%s/%s", dir, name);
    SF_INFO info = {.samplerate = rate, .channels = channels, .format = format};
    SNDFILE *file = sf_open(path, SFM_WRITE, &info);
    if (!file) { fprintf(stderr, "cannot write %s: %s\n", path, sf_strerror(NULL)); exit(2); }
    long frames = (long)(seconds * rate);
    float *samples = calloc((size_t)(frames * channels), sizeof *samples);
    for (long i = 0; i < frames; i++)
        for (int c = 0; c < channels; c++) samples[i * channels + c] = (float)(0.3 * sin(2 * M_PI * 440 * i / rate));
    sf_writef_float(file, samples, frames);
    sf_close(file);
    free(samples);
    return path;
}

/* Bytes this process has read through read(2) and pread(2) so far. */
static long long bytesReadSoFar(void)
{
    FILE *io = fopen("/proc/self/io", "r");
    long long bytes = -1;
    char line[128];
    while (io && fgets(line, sizeof line, io))
        if (sscanf(line, "rchar: %lld", &bytes) == 1) break;
    if (io) fclose(io);
    return bytes;
}

static CFURLRef fileURL(const char *path)
{
    return CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
}

static OSStatus create(const char *path, SystemSoundID *id)
{
    CFURLRef url = fileURL(path);
    OSStatus status = AudioServicesCreateSystemSoundID(url, id);
    CFRelease(url);
    return status;
}

static int completions;
static SystemSoundID lastID;
static void *lastData;
static double lastAt;

static void completion(SystemSoundID id, void *data)
{
    completions++;
    lastID = id;
    lastData = data;
    lastAt = now();
}

/* Runs the run loop until `count` completions in all arrived (the watchdog catches a hang). */
static void waitForCompletions(int count)
{
    while (completions < count) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
}

int main(void)
{
    installWatchdog("system sounds");
    alarm(60);
    if (!mkdtemp(dir)) return 2;

    /* Formats: WAV, AIFF and CAF with PCM as on the phone; FLAC as a bonus. */
    struct { const char *name; int format; } formats[] = {
        {"a.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16}, {"a.aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16},
        {"a.caf", SF_FORMAT_CAF | SF_FORMAT_PCM_16}, {"a24.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_24},
        {"a.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16},
    };
    SystemSoundID ids[8] = {0};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        const char *path = writeSound(formats[i].name, formats[i].format, 44100, 2, 0.1);
        CHECK_STATUS(create(path, &ids[i]), noErr);
        CHECK(ids[i] != 0, "%s gets an ID", formats[i].name);
        for (size_t j = 0; j < i; j++) CHECK(ids[i] != ids[j], "IDs are unique (%s)", formats[i].name);
    }

    /* Bad inputs: each a documented code, *out left alone. */
    const char *text = writeSound("x.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 8000, 1, 0.01);
    char garbage[512];
    snprintf(garbage, sizeof garbage, "%s/garbage.wav", dir);
    FILE *g = fopen(garbage, "w");
    fputs("RIFF\x10\0\0\0WAVEnot really a sound file at all", g);
    fclose(g);
    char missing[512];
    snprintf(missing, sizeof missing, "%s/missing.wav", dir);
    const char *tooLong = writeSound("long.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 8000, 1, 31);
    const char *justRight = writeSound("thirty.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 8000, 1, 30);
    struct { const char *what; const char *path; OSStatus expected; } bad[] = {
        {"missing file", missing, kAudioServicesSystemSoundUnspecifiedError},
        {"not a sound", garbage, kAudioServicesSystemSoundUnspecifiedError},
        {"a directory", dir, kAudioServicesSystemSoundUnspecifiedError},
        {"31 s", tooLong, kAudioServicesSystemSoundExceededMaximumDurationError},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SystemSoundID id = 12345;
        CHECK_STATUS(create(bad[i].path, &id), bad[i].expected);
        CHECK(id == 12345, "%s: the ID is left alone", bad[i].what);
    }
    SystemSoundID thirty = 0;
    CHECK_STATUS(create(justRight, &thirty), noErr);

    /* A 2 GB WAV (sparse: its header says 6 hours) is refused from its header, before
       anything of its data is read: the bytes this process reads (/proc/self/io's rchar)
       stay far below the file's size. */
    char huge[512];
    snprintf(huge, sizeof huge, "%s/huge.wav", dir);
    FILE *h = fopen(huge, "wb");
    const unsigned dataBytes = 2000000000u;
    unsigned char header[44] = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ', 16, 0, 0, 0, 1, 0, 2, 0,
                                0x44, 0xAC, 0, 0, 0x10, 0xB1, 2, 0, 4, 0, 16, 0, 'd', 'a', 't', 'a', 0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        header[4 + i] = (unsigned char)((dataBytes + 36) >> (8 * i));
        header[40 + i] = (unsigned char)(dataBytes >> (8 * i));
    }
    CHECK(h && fwrite(header, 1, sizeof header, h) == sizeof header && ftruncate(fileno(h), 44 + (off_t)dataBytes) == 0,
          "a sparse 2 GB WAV");
    if (h) fclose(h);
    long long readBefore = bytesReadSoFar();
    SystemSoundID hugeID = 99;
    CHECK_STATUS(create(huge, &hugeID), kAudioServicesSystemSoundExceededMaximumDurationError);
    long long readDuring = bytesReadSoFar() - readBefore;
    CHECK(hugeID == 99 && readDuring >= 0 && readDuring < 64LL << 20,
          "a 2 GB system sound is refused from its header (%lld bytes read)", readDuring);
    unlink(huge);
    SystemSoundID untouched = 7;
    CHECK_STATUS(AudioServicesCreateSystemSoundID(NULL, &untouched), kAudioServicesSystemSoundUnspecifiedError);
    CFURLRef web = CFURLCreateWithString(NULL, CFSTR("http://example.org/a.wav"), NULL);
    CHECK_STATUS(AudioServicesCreateSystemSoundID(web, &untouched), kAudioServicesSystemSoundUnspecifiedError);
    CFRelease(web);
    CFURLRef good = fileURL(text);
    CHECK_STATUS(AudioServicesCreateSystemSoundID(good, NULL), kAudioServicesSystemSoundUnspecifiedError);
    CFRelease(good);
    CHECK(untouched == 7, "failed creations leave the ID alone");

    /* A play completes once, after its duration, with its ID and client data. */
    SystemSoundID tone = 0;
    CHECK_STATUS(create(writeSound("tone.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 22050, 1, 0.25), &tone), noErr);
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(tone, NULL, NULL, completion, &tone), noErr);
    double start = now();
    AudioServicesPlaySystemSound(tone);
    CHECK(completions == 0, "play returns at once, before the completion");
    waitForCompletions(1);
    CHECK(lastID == tone && lastData == &tone, "the completion gets its ID and client data");
    CHECK(lastAt - start >= 0.25, "not before the sound's duration (%.3f s)", lastAt - start);
    /* Two overlapping plays: two completions. */
    AudioServicesPlaySystemSound(tone);
    AudioServicesPlayAlertSound(tone);
    waitForCompletions(3);
    CHECK(completions == 3, "one completion per play (%d)", completions);

    /* Vibrate: nothing to hear, the completion still comes; FlashScreen too. */
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(kSystemSoundID_Vibrate, NULL, NULL, completion, NULL), noErr);
    AudioServicesPlaySystemSound(kSystemSoundID_Vibrate);
    waitForCompletions(4);
    CHECK(lastID == kSystemSoundID_Vibrate, "Vibrate completes");
    /* The user's alert: a tone of the library's own. */
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(kSystemSoundID_UserPreferredAlert, NULL, NULL, completion,
                                                       (void *)2), noErr);
    AudioServicesPlayAlertSound(kSystemSoundID_UserPreferredAlert);
    waitForCompletions(5);
    CHECK(lastID == kSystemSoundID_UserPreferredAlert && lastData == (void *)2, "the alert plays and completes");
    CHECK_STATUS(AudioServicesDisposeSystemSoundID(kSystemSoundID_UserPreferredAlert), kAudioServicesUnsupportedPropertyError);

    /* Dispose while playing: stops at once, no completion; the ID plays nothing after. */
    SystemSoundID longer = 0;
    CHECK_STATUS(create(writeSound("two.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 44100, 2, 2.0), &longer), noErr);
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(longer, NULL, NULL, completion, NULL), noErr);
    AudioServicesPlaySystemSound(longer);
    CHECK_STATUS(AudioServicesDisposeSystemSoundID(longer), noErr);
    CHECK_STATUS(AudioServicesDisposeSystemSoundID(longer), kAudioServicesUnsupportedPropertyError);
    AudioServicesPlaySystemSound(longer);   /* disposed: nothing */
    AudioServicesPlaySystemSound(0xDEAD);   /* unknown: nothing */
    AudioServicesPlaySystemSound(tone);     /* a later play still completes, and is the only one */
    waitForCompletions(6);
    CHECK(lastID == tone, "only the live sound completed (got %u)", (unsigned)lastID);
    /* A removed completion is not called. */
    AudioServicesRemoveSystemSoundCompletion(tone);
    AudioServicesPlaySystemSound(tone);
    AudioServicesPlaySystemSound(kSystemSoundID_Vibrate);  /* a marker that still completes */
    waitForCompletions(7);
    CHECK(lastID == kSystemSoundID_Vibrate, "the removed completion was not called");
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(0xDEAD, NULL, NULL, completion, NULL),
                 kAudioServicesSystemSoundUnspecifiedError);
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(tone, NULL, NULL, NULL, NULL),
                 kAudioServicesSystemSoundUnspecifiedError);

    /* Properties, table-driven. */
    UInt32 value = 9, size = sizeof value;
    CHECK_STATUS(AudioServicesGetProperty(kAudioServicesPropertyIsUISound, sizeof tone, &tone, &size, &value), noErr);
    CHECK(value == 1, "IsUISound defaults to 1");
    size = sizeof value;
    CHECK_STATUS(AudioServicesGetProperty(kAudioServicesPropertyCompletePlaybackIfAppDies, sizeof tone, &tone, &size,
                                          &value), noErr);
    CHECK(value == 0, "CompletePlaybackIfAppDies defaults to 0");
    UInt32 zero = 0, one = 1, two = 2;
    CHECK_STATUS(AudioServicesSetProperty(kAudioServicesPropertyIsUISound, sizeof tone, &tone, sizeof zero, &zero), noErr);
    size = sizeof value;
    AudioServicesGetProperty(kAudioServicesPropertyIsUISound, sizeof tone, &tone, &size, &value);
    CHECK(value == 0, "IsUISound reads back 0");
    CHECK_STATUS(AudioServicesSetProperty(kAudioServicesPropertyCompletePlaybackIfAppDies, sizeof tone, &tone,
                                          sizeof one, &one), noErr);
    UInt32 info = 0;
    Boolean writable = 0;
    CHECK_STATUS(AudioServicesGetPropertyInfo(kAudioServicesPropertyIsUISound, sizeof tone, &tone, &info, &writable), noErr);
    CHECK(info == 4 && writable, "GetPropertyInfo: 4 bytes, writable");
    SystemSoundID unknown = 0xDEAD;
    UInt16 shortSpecifier = 1;
    struct { const char *what; OSStatus got; OSStatus expected; } table[] = {
        {"specifier size 2", AudioServicesGetProperty(kAudioServicesPropertyIsUISound, 2, &shortSpecifier, &size, &value),
         kAudioServicesBadSpecifierSizeError},
        {"specifier NULL", AudioServicesGetProperty(kAudioServicesPropertyIsUISound, 4, NULL, &size, &value),
         kAudioServicesSystemSoundUnspecifiedError},
        {"unknown property", AudioServicesGetProperty(0x6E6F7065, sizeof tone, &tone, &size, &value),
         kAudioServicesUnsupportedPropertyError},
        {"unknown sound", AudioServicesGetProperty(kAudioServicesPropertyIsUISound, 4, &unknown, &size, &value),
         kAudioServicesUnsupportedPropertyError},
        {"set size 2", AudioServicesSetProperty(kAudioServicesPropertyIsUISound, 4, &tone, 2, &one),
         kAudioServicesBadPropertySizeError},
        {"set value 2", AudioServicesSetProperty(kAudioServicesPropertyIsUISound, 4, &tone, 4, &two),
         kAudioServicesUnsupportedPropertyError},
        {"set NULL data", AudioServicesSetProperty(kAudioServicesPropertyIsUISound, 4, &tone, 4, NULL),
         kAudioServicesSystemSoundUnspecifiedError},
        {"info of unknown property", AudioServicesGetPropertyInfo(0x6E6F7065, 4, &tone, &info, &writable),
         kAudioServicesUnsupportedPropertyError},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        char a[16], b[16];
        CHECK(table[i].got == table[i].expected, "%s: %s, expected %s", table[i].what, fourcc(table[i].got, a),
              fourcc(table[i].expected, b));
    }
    UInt32 smallSize = 2;
    CHECK_STATUS(AudioServicesGetProperty(kAudioServicesPropertyIsUISound, 4, &tone, &smallSize, &value),
                 kAudioServicesBadPropertySizeError);
    size = sizeof value;
    AudioServicesGetProperty(kAudioServicesPropertyIsUISound, sizeof tone, &tone, &size, &value);
    CHECK(value == 0, "failed sets changed nothing");

    /* fork while a sound plays: the child keeps the sounds, not the parent's plays or
     * mixer thread, and can play on its own; the parent's play still completes. */
    CHECK_STATUS(AudioServicesAddSystemSoundCompletion(tone, NULL, NULL, completion, &tone), noErr);
    int before = completions;
    AudioServicesPlaySystemSound(tone);
    pid_t child = fork();
    if (child == 0) {
        AudioServicesPlaySystemSound(tone);
        struct timespec pause = {0, 400000000};
        nanosleep(&pause, NULL);
        SystemSoundID again = 0;
        _exit(create(writeSound("child.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 8000, 1, 0.05), &again) == noErr &&
              again != tone ? 0 : 1);
    }
    int childStatus = -1;
    waitpid(child, &childStatus, 0);
    CHECK(WIFEXITED(childStatus) && WEXITSTATUS(childStatus) == 0, "the child of a fork plays and creates sounds");
    waitForCompletions(before + 1);
    CHECK(lastID == tone, "the parent's play completes after the fork");

    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (ids[i]) CHECK_STATUS(AudioServicesDisposeSystemSoundID(ids[i]), noErr);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0) return 2;
    return worldFinish("system sounds");
}
