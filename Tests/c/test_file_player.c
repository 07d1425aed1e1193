/*
 * AUAudioFilePlayer and AUScheduledSoundPlayer, called as an openFrameworks audio-unit
 * addon and the audio engines built on them call them: a file opened with
 * AudioFileOpenURL and named by kAudioUnitProperty_ScheduledFileIDs, a
 * ScheduledAudioFileRegion (start frame, frames to play, a loop count, a completion),
 * kAudioUnitProperty_ScheduledFilePrime, then kAudioUnitProperty_ScheduleStartTimeStamp
 * at -1 (the next render), kAudioUnitProperty_OfflineRender for a render faster than
 * real time; slices of the program's own buffers (ScheduledAudioSlice)
 * with their flags and completions.
 *
 * Rendered offline (GenericOutput <- player) and measured: the file (22.05 kHz mono) at
 * the player's 44.1 kHz stereo, still at its pitch; the region's loop; a region that
 * starts half a second in; each completion once, after its sound; CurrentPlayTime; the
 * slices sample for sample at their times, a late one flagged so. Bad inputs answer with
 * codes. Live (RemoteIO <- the file player): the card hears the file.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "tone_level.h"
#include "world.h"

enum { RATE = 44100, SLICE = 512, FILE_RATE = 22050 };
static Float32 left[4 * RATE + SLICE], right[4 * RATE + SLICE];
static double sampleTime;
static char path[300];

static OSStatus render(AudioUnit unit, long frames)
{
    for (long done = 0; done < frames; done += SLICE) {
        struct { UInt32 count; AudioBuffer b[2]; } list = {2, {{1, SLICE * 4, left + done}, {1, SLICE * 4, right + done}}};
        AudioTimeStamp ts;
        memset(&ts, 0, sizeof ts);
        ts.mSampleTime = sampleTime;
        ts.mFlags = kAudioTimeStampSampleTimeValid;
        AudioUnitRenderActionFlags flags = 0;
        OSStatus status = AudioUnitRender(unit, &flags, &ts, 0, SLICE, (AudioBufferList *)&list);
        if (status != noErr) return status;
        sampleTime += SLICE;
    }
    return noErr;
}

/* One second of a 440 Hz sine, mono 16-bit at 22.05 kHz. */
static void writeFile(void)
{
    FILE *f = fopen(path, "wb");
    UInt32 u32;
    UInt16 u16;
#define PUT32(v) (u32 = (v), fwrite(&u32, 4, 1, f))
#define PUT16(v) (u16 = (v), fwrite(&u16, 2, 1, f))
    fwrite("RIFF", 1, 4, f); PUT32(36 + FILE_RATE * 2); fwrite("WAVE", 1, 4, f);
    fwrite("fmt ", 1, 4, f); PUT32(16); PUT16(1); PUT16(1); PUT32(FILE_RATE); PUT32(FILE_RATE * 2); PUT16(2); PUT16(16);
    fwrite("data", 1, 4, f); PUT32(FILE_RATE * 2);
    for (long i = 0; i < FILE_RATE; i++) PUT16((UInt16)(SInt16)lrint(16000 * sin(2 * M_PI * 440 * i / FILE_RATE)));
#undef PUT32
#undef PUT16
    fclose(f);
}

static AUGraph graph;
static AudioUnit generic, player;

static void buildGraph(OSType subtype)
{
    AudioComponentDescription gd = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription pd = {kAudioUnitType_Generator, subtype, kAudioUnitManufacturer_Apple, 0, 0};
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                     4, 1, 4, 2, 32, 0};
    AUNode out = 0, node = 0;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &gd, &out), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &pd, &node), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, out, NULL, &generic), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, node, NULL, &player), noErr);
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &f, sizeof f), noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &f, sizeof f), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
    sampleTime = 0;
}

static volatile int regionsDone, slicesDone;
static void regionDone(void *data, ScheduledAudioFileRegion *region, OSStatus result)
{
    (void)region;
    if (data == (void *)0x5eed && result == noErr) __atomic_add_fetch(&regionsDone, 1, __ATOMIC_SEQ_CST);
}
static void sliceDone(void *data, ScheduledAudioSlice *slice)
{
    (void)data;
    if (slice->mFlags & kScheduledAudioSliceFlag_Complete) __atomic_add_fetch(&slicesDone, 1, __ATOMIC_SEQ_CST);
}

static void startNow(AudioUnit unit)
{
    AudioTimeStamp start;
    memset(&start, 0, sizeof start);
    start.mFlags = kAudioTimeStampSampleTimeValid;
    start.mSampleTime = -1;
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_ScheduleStartTimeStamp, kAudioUnitScope_Global, 0, &start,
                                      sizeof start), noErr);
}

static long firstSound(long from, long to)
{
    for (long i = from; i < to; i++) if (fabs(left[i]) > 0.01) return i;
    return -1;
}

static void filePlayer(void)
{
    buildGraph(kAudioUnitSubType_AudioFilePlayer);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    AudioFileID file = NULL;
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file), noErr);
    CFRelease(url);
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFileIDs, kAudioUnitScope_Global, 0, &file,
                                      sizeof file), noErr);
    /* Rendered faster than real time: the player reads as the render asks. */
    UInt32 offline = 1;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_OfflineRender, kAudioUnitScope_Global, 0, &offline,
                                      sizeof offline), noErr);
    /* The whole file, played twice (one loop), from the timeline's start. */
    ScheduledAudioFileRegion region;
    memset(&region, 0, sizeof region);
    region.mTimeStamp.mFlags = kAudioTimeStampSampleTimeValid;
    region.mTimeStamp.mSampleTime = 0;
    region.mCompletionProc = regionDone;
    region.mCompletionProcUserData = (void *)0x5eed;
    region.mAudioFile = file;
    region.mLoopCount = 1;
    region.mStartFrame = 0;
    region.mFramesToPlay = FILE_RATE;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFileRegion, kAudioUnitScope_Global, 0, &region,
                                      sizeof region), noErr);
    UInt32 prime = 0;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFilePrime, kAudioUnitScope_Global, 0, &prime,
                                      sizeof prime), noErr);
    startNow(player);
    CHECK_STATUS(render(generic, 3 * RATE), noErr);
    double a440 = amplitudeAt(left + RATE / 4, RATE / 2, 440, RATE), a466 = amplitudeAt(left + RATE / 4, RATE / 2, 466, RATE);
    double second = amplitudeAt(left + RATE + RATE / 4, RATE / 2, 440, RATE);
    double after = 0;
    for (long i = 2 * RATE + RATE / 10; i < 3 * RATE; i++) after = fabs(left[i]) > after ? fabs(left[i]) : after;
    printf("measured: file player, 22.05 kHz file at 44.1 kHz: 440 Hz %.3f (466 Hz %.4f), its loop %.3f, after it %.5f\n",
           a440, a466, second, after);
    CHECK(a440 > 0.4 && a440 > 50 * a466, "the file plays at its pitch through the rate change (%.3f)", a440);
    CHECK(second > 0.4, "the region's loop plays it a second time (%.3f)", second);
    CHECK(after < 0.01, "then it is silent (%.5f)", after);
    for (int i = 0; i < 100 && regionsDone == 0; i++) usleep(10000);
    CHECK(regionsDone == 1, "the region's completion came once (%d)", regionsDone);
    AudioTimeStamp now;
    UInt32 size = sizeof now;
    CHECK_STATUS(AudioUnitGetProperty(player, kAudioUnitProperty_CurrentPlayTime, kAudioUnitScope_Global, 0, &now, &size),
                 noErr);
    CHECK(fabs(now.mSampleTime - 3 * RATE) < SLICE + 1, "the play time is where the render is (%g)", now.mSampleTime);

    /* A region half a second into the timeline, after a Reset. */
    AudioUnitReset(player, kAudioUnitScope_Global, 0);
    region.mTimeStamp.mSampleTime = RATE / 2;
    region.mLoopCount = 0;
    region.mFramesToPlay = FILE_RATE / 2;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFileRegion, kAudioUnitScope_Global, 0, &region,
                                      sizeof region), noErr);
    startNow(player);
    CHECK_STATUS(render(generic, 2 * RATE), noErr);
    long onset = firstSound(0, 2 * RATE);
    CHECK(labs(onset - RATE / 2) < 64, "a region at half a second starts there (frame %ld)", onset);
    double tail = 0;
    for (long i = RATE + RATE / 20; i < 2 * RATE; i++) tail = fabs(left[i]) > tail ? fabs(left[i]) : tail;
    CHECK(tail < 0.01, "and its half second of file ends (%.4f)", tail);

    /* Bad inputs. */
    ScheduledAudioFileRegion unknown = region;
    unknown.mAudioFile = (AudioFileID)(uintptr_t)0x1234;
    ScheduledAudioFileRegion pastEnd = region;
    pastEnd.mStartFrame = 10 * FILE_RATE;
    AudioFileID notAFile = (AudioFileID)(uintptr_t)0x5678;
    ScheduledAudioSlice slice;
    memset(&slice, 0, sizeof slice);
    AudioTimeStamp noTime;
    memset(&noTime, 0, sizeof noTime);
    struct { const char *what; OSStatus got, want; } table[] = {
        {"a region of a file not named", AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFileRegion,
                                                              kAudioUnitScope_Global, 0, &unknown, sizeof unknown),
         kAudioUnitErr_InvalidPropertyValue},
        {"a region past the file's end", AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFileRegion,
                                                              kAudioUnitScope_Global, 0, &pastEnd, sizeof pastEnd),
         kAudioUnitErr_InvalidPropertyValue},
        {"a file ID that is none", AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFileIDs, kAudioUnitScope_Global, 0,
                                                       &notAFile, sizeof notAFile), kAudioUnitErr_InvalidPropertyValue},
        {"a slice to the file player", AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleAudioSlice,
                                                            kAudioUnitScope_Global, 0, &slice, sizeof slice),
         kAudioUnitErr_InvalidProperty},
        {"a start with no time", AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleStartTimeStamp, kAudioUnitScope_Global,
                                                      0, &noTime, sizeof noTime), kAudioUnitErr_InvalidPropertyValue},
        {"a region of the wrong size", AudioUnitSetProperty(player, kAudioUnitProperty_ScheduledFileRegion,
                                                            kAudioUnitScope_Global, 0, &region, 40),
         kAudioUnitErr_InvalidPropertyValue},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        CHECK(table[i].got == table[i].want, "%s: %d (want %d)", table[i].what, (int)table[i].got, (int)table[i].want);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
    CHECK_STATUS(AudioFileClose(file), noErr);
}

static void soundPlayer(void)
{
    buildGraph(kAudioUnitSubType_ScheduledSoundPlayer);
    static Float32 a[2][1000], b[2][1000];
    for (int i = 0; i < 1000; i++) { a[0][i] = a[1][i] = 0.25f; b[0][i] = b[1][i] = 0.5f; }
    struct { UInt32 count; AudioBuffer buffers[2]; } la = {2, {{1, sizeof a[0], a[0]}, {1, sizeof a[1], a[1]}}},
                                                     lb = {2, {{1, sizeof b[0], b[0]}, {1, sizeof b[1], b[1]}}};
    ScheduledAudioSlice first, second;
    memset(&first, 0, sizeof first);
    memset(&second, 0, sizeof second);
    first.mTimeStamp.mFlags = second.mTimeStamp.mFlags = kAudioTimeStampSampleTimeValid;
    first.mTimeStamp.mSampleTime = 0;
    second.mTimeStamp.mSampleTime = 2000;
    first.mNumberFrames = second.mNumberFrames = 1000;
    first.mBufferList = (AudioBufferList *)&la;
    second.mBufferList = (AudioBufferList *)&lb;
    first.mCompletionProc = second.mCompletionProc = sliceDone;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleAudioSlice, kAudioUnitScope_Global, 0, &first,
                                      sizeof first), noErr);
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleAudioSlice, kAudioUnitScope_Global, 0, &second,
                                      sizeof second), noErr);
    startNow(player);
    CHECK_STATUS(render(generic, 8 * SLICE), noErr);
    int exact = 1;
    for (int i = 0; i < 8 * SLICE; i++) {
        float want = i < 1000 ? 0.25f : i >= 2000 && i < 3000 ? 0.5f : 0;
        exact &= left[i] == want && right[i] == want;
    }
    CHECK(exact, "each slice plays at its time, sample for sample, silence between");
    CHECK((first.mFlags & kScheduledAudioSliceFlag_Complete) && (second.mFlags & kScheduledAudioSliceFlag_Complete),
          "both slices are flagged complete (%#x, %#x)", (unsigned)first.mFlags, (unsigned)second.mFlags);
    for (int i = 0; i < 100 && slicesDone < 2; i++) usleep(10000);
    CHECK(slicesDone == 2, "each slice's completion came once (%d)", slicesDone);
    /* A slice scheduled in the past starts late, and says so. */
    ScheduledAudioSlice late = first;
    late.mFlags = 0;
    late.mTimeStamp.mSampleTime = 100;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleAudioSlice, kAudioUnitScope_Global, 0, &late,
                                      sizeof late), noErr);
    CHECK_STATUS(render(generic, SLICE), noErr);
    CHECK(late.mFlags & kScheduledAudioSliceFlag_BeganToRenderLate, "a slice past its time is flagged late (%#x)",
          (unsigned)late.mFlags);
    ScheduledAudioSlice timeless = first;
    timeless.mTimeStamp.mFlags = 0;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleAudioSlice, kAudioUnitScope_Global, 0, &timeless,
                                      sizeof timeless), kAudioUnitErr_InvalidPropertyValue);
    struct { UInt32 count; AudioBuffer buffers[1]; } one = {1, {{1, sizeof a[0], a[0]}}};
    ScheduledAudioSlice mono = first;
    mono.mBufferList = (AudioBufferList *)&one;
    CHECK_STATUS(AudioUnitSetProperty(player, kAudioUnitProperty_ScheduleAudioSlice, kAudioUnitScope_Global, 0, &mono,
                                      sizeof mono), kAudioUnitErr_FormatNotSupported);
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
}

static void live(void)
{
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription pd = {kAudioUnitType_Generator, kAudioUnitSubType_AudioFilePlayer, kAudioUnitManufacturer_Apple, 0, 0};
    AUGraph g = NULL;
    AUNode out = 0, node = 0;
    AudioUnit unit = NULL;
    NewAUGraph(&g);
    AUGraphAddNode(g, &rio, &out);
    AUGraphAddNode(g, &pd, &node);
    AUGraphOpen(g);
    AUGraphNodeInfo(g, node, NULL, &unit);
    AUGraphConnectNodeInput(g, node, 0, out, 0);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    AudioFileID file = NULL;
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file), noErr);
    CFRelease(url);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_ScheduledFileIDs, kAudioUnitScope_Global, 0, &file,
                                      sizeof file), noErr);
    ScheduledAudioFileRegion region;
    memset(&region, 0, sizeof region);
    region.mTimeStamp.mFlags = kAudioTimeStampSampleTimeValid;
    region.mAudioFile = file;
    region.mFramesToPlay = FILE_RATE;
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_ScheduledFileRegion, kAudioUnitScope_Global, 0, &region,
                                      sizeof region), noErr);
    startNow(unit);
    CHECK_STATUS(AUGraphStart(g), noErr);
    usleep(1300000);
    CHECK_STATUS(AUGraphStop(g), noErr);
    if (worldOnCard()) {
        long frames = 0;
        short *heard = worldCardRecording(&frames);
        int rate = worldCardRate();
        long first = -1;
        for (long i = 0; heard && i < frames; i++) if (abs(heard[2 * i]) > 500) { first = i; break; }
        double a440 = 0;
        long window = rate / 2;
        if (first >= 0 && first + rate / 4 + window < frames) {
            float *mono = calloc((size_t)window, sizeof *mono);
            for (long i = 0; i < window; i++) mono[i] = heard[2 * (first + rate / 4 + i)] / 32768.0f;
            a440 = amplitudeAt(mono, window, 440, rate);
            free(mono);
        }
        printf("measured: the card heard the file player: 440 Hz %.3f\n", a440);
        CHECK(a440 > 0.1, "the card hears the file (%.3f)", a440);
        free(heard);
    }
    DisposeAUGraph(g);
    AudioFileClose(file);
}

int main(void)
{
    installWatchdog("file player");
    alarm(120);
    snprintf(path, sizeof path, "%s/player-%d.wav", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    writeFile();
    filePlayer();
    soundPlayer();
    live();
    unlink(path);
    return worldFinish("test_file_player");
}
