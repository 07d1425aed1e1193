/* What the library costs a program that uses only part of it.
 *
 *   bench_footprint session        a session-only program: initialise, set the category,
 *                                  activate, read a property, deactivate
 *   bench_footprint_cf cf          the same program's CoreFoundation work alone (built
 *                                  from this file with -DCF_ONLY, linked without us)
 *   bench_footprint first WAV      the first call of each family that loads a library,
 *                                  against the same call once it is loaded
 *
 * The first two print "objects N rss KIB" at exit: shared objects mapped (distinct
 * files in /proc/self/maps) and peak resident memory (VmHWM). run-benchmarks.sh times
 * start to exit around them. */
#ifndef CF_ONLY
#include <AudioToolbox/AudioToolbox.h>
#endif
#include <CoreFoundation/CoreFoundation.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void report(void)
{
    char seen[256][512];
    int count = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[1024];
    while (maps && fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (!path || !strstr(path, ".so")) continue;
        path[strcspn(path, "\n")] = 0;
        int known = 0;
        for (int i = 0; i < count && !known; i++) known = strcmp(seen[i], path) == 0;
        if (!known && count < 256) snprintf(seen[count++], sizeof seen[0], "%s", path);
    }
    if (maps) fclose(maps);
    long rss = 0;
    FILE *status = fopen("/proc/self/status", "r");
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "VmHWM:", 6) == 0) rss = strtol(line + 6, NULL, 10);
    if (status) fclose(status);
    printf("objects %d rss %ld\n", count, rss);
}

/* What every such program does with CoreFoundation: a run loop and a string. */
static void coreFoundationWork(void)
{
    CFRunLoopRef loop = CFRunLoopGetCurrent();
    CFStringRef name = CFStringCreateWithCString(NULL, "footprint", kCFStringEncodingUTF8);
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0, true);
    (void)loop;
    CFRelease(name);
}

#ifndef CF_ONLY
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double openClose(const char *path)
{
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    double start = now();
    AudioFileID file = NULL;
    OSStatus status = AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file);
    if (file) AudioFileClose(file);
    double took = now() - start;
    CFRelease(url);
    if (status != noErr) { fprintf(stderr, "AudioFileOpenURL: %d\n", (int)status); exit(1); }
    return took;
}

static OSStatus silence(void *data, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *stamp, UInt32 bus,
                        UInt32 frames, AudioBufferList *list)
{
    (void)data; (void)flags; (void)stamp; (void)bus; (void)frames;
    for (UInt32 i = 0; i < list->mNumberBuffers; i++) memset(list->mBuffers[i].mData, 0, list->mBuffers[i].mDataByteSize);
    return noErr;
}

/* A VoiceProcessingIO made, started, stopped and disposed of: the time of the start. */
static double voiceStart(void)
{
    AudioComponentDescription d = {kAudioUnitType_Output, kAudioUnitSubType_VoiceProcessingIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioUnit unit = NULL;
    AudioComponentInstanceNew(AudioComponentFindNext(NULL, &d), &unit);
    UInt32 on = 1;
    AudioUnitSetProperty(unit, kAudioOutputUnitProperty_EnableIO, kAudioUnitScope_Input, 1, &on, sizeof on);
    AURenderCallbackStruct callback = {silence, NULL};
    AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback, sizeof callback);
    AudioUnitInitialize(unit);
    double start = now();
    OSStatus status = AudioOutputUnitStart(unit);
    double took = now() - start;
    AudioOutputUnitStop(unit);
    AudioComponentInstanceDispose(unit);
    if (status != noErr) { fprintf(stderr, "VoiceProcessingIO start: %d\n", (int)status); exit(1); }
    return took;
}
#endif

int main(int argc, char **argv)
{
    coreFoundationWork();
#ifndef CF_ONLY
    const char *mode = argc > 1 ? argv[1] : "session";
    if (strcmp(mode, "session") == 0) {
        AudioSessionInitialize(NULL, NULL, NULL, NULL);
        UInt32 category = kAudioSessionCategory_MediaPlayback;
        AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
        AudioSessionSetActive(true);
        Float64 rate = 0;
        UInt32 size = sizeof rate;
        AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &rate);
        AudioSessionSetActive(false);
    } else if (strcmp(mode, "first") == 0 && argc > 2) {
        double first = openClose(argv[2]), again = openClose(argv[2]);
        printf("first AudioFileOpenURL (loads FFmpeg) %.2f ms; the same call again %.3f ms; ratio %.0f\n",
               first * 1e3, again * 1e3, first / again);
        AudioSessionInitialize(NULL, NULL, NULL, NULL);
        UInt32 category = kAudioSessionCategory_PlayAndRecord;
        AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
        first = voiceStart();
        again = voiceStart();
        printf("first VoiceProcessingIO start (loads WebRTC) %.2f ms; the same call again %.3f ms; ratio %.1f\n",
               first * 1e3, again * 1e3, first / again);
        return 0;
    }
#else
    (void)argc; (void)argv;
#endif
    report();
    return 0;
}
