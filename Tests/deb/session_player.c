/*
 * A music player as an iPhone program writes one, built against the installed packages
 * (AudioToolbox-ios): the session with an interruption listener, the MediaPlayback
 * category, activation, and a RemoteIO unit playing 440 Hz from its render callback.
 * The packages test runs it on the packaged virtual card and starts a phone call with
 * the packaged `audiosession` tool.
 *
 * Prints "playing" once half a second has been rendered; at the interruption's Begin,
 * "begin running=R renders=N" (R: the unit's IsRunning as the listener sees it); half a
 * second of run loop later, "after renders=N" (the same N when nothing rendered after
 * Begin), then exits 0. Exits 2 if no interruption comes within 20 s, 1 on a failed call.
 *   session_player resume: then waits for End as a music player does: with ShouldResume
 * it activates again and restarts its unit from the listener ("end resume=1"), plays
 * half a second more and prints "resumed renders=M" (M > N once it plays again).
 */
#include <AudioToolbox/AudioToolbox.h>
#include <TargetConditionals.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#if !TARGET_OS_IPHONE
#error "built as iPhone code (pkg-config AudioToolbox-ios)"
#endif

static AudioUnit unit;
static double phase;
static volatile long rendered, renders;
static long rendersAtBegin = -1;
static int ended;

static OSStatus render(void *data, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *time, UInt32 bus,
                       UInt32 frames, AudioBufferList *io)
{
    SInt16 *out = (SInt16 *)io->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++, phase += 2 * M_PI * 440 / 44100) out[i] = (SInt16)(0.3 * 32767 * sin(phase));
    rendered += frames;
    renders++;
    (void)data, (void)flags, (void)time, (void)bus;
    return noErr;
}

static void interruption(void *data, UInt32 state)
{
    (void)data;
    if (state == kAudioSessionEndInterruption && rendersAtBegin >= 0 && !ended) {
        UInt32 type = 0, size = sizeof type;
        AudioSessionGetProperty(kAudioSessionProperty_InterruptionType, &size, &type);
        int resume = type == kAudioSessionInterruptionType_ShouldResume;
        if (resume && AudioSessionSetActive(true) == noErr) AudioOutputUnitStart(unit);
        printf("end resume=%d\n", resume);
        fflush(stdout);
        ended = 1;
        return;
    }
    if (state != kAudioSessionBeginInterruption || rendersAtBegin >= 0) return;
    UInt32 running = 1, size = sizeof running;
    AudioUnitGetProperty(unit, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0, &running, &size);
    rendersAtBegin = renders;
    printf("begin running=%u renders=%ld\n", (unsigned)running, rendersAtBegin);
    fflush(stdout);
}

#define TRY(call)                                                                                                     \
    do {                                                                                                              \
        OSStatus status_ = (call);                                                                                    \
        if (status_ != noErr) { fprintf(stderr, "%s: %d\n", #call, (int)status_); return 1; }                      \
    } while (0)

int main(int argc, char **argv)
{
    int resumes = argc > 1 && strcmp(argv[1], "resume") == 0;
    TRY(AudioSessionInitialize(NULL, NULL, interruption, NULL));
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    TRY(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category));
    TRY(AudioSessionSetActive(true));

    AudioComponentDescription rio = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO, kAudioUnitManufacturer_Apple,
                                     0, 0};
    TRY(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &rio), &unit));
    AudioStreamBasicDescription mono = {44100, kAudioFormatLinearPCM,
                                        kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 2, 1, 2, 1, 16, 0};
    TRY(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &mono, sizeof mono));
    AURenderCallbackStruct callback = {render, NULL};
    TRY(AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback,
                             sizeof callback));
    TRY(AudioUnitInitialize(unit));
    TRY(AudioOutputUnitStart(unit));

    int said = 0;
    for (int tick = 0; tick < 2000 && rendersAtBegin < 0; tick++) {
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, false);
        if (!said && rendered >= 22050) {
            puts("playing");
            fflush(stdout);
            said = 1;
        }
    }
    if (rendersAtBegin < 0) {
        fprintf(stderr, "no interruption within 20 s (%ld frames rendered)\n", (long)rendered);
        return 2;
    }
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.5, false);
    printf("after renders=%ld\n", (long)renders);
    fflush(stdout);
    if (!resumes) return 0;
    for (int tick = 0; tick < 2000 && !ended; tick++) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, false);
    if (!ended) {
        fprintf(stderr, "no end of the interruption within 20 s\n");
        return 2;
    }
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.5, false);
    printf("resumed renders=%ld\n", (long)renders);
    return 0;
}
