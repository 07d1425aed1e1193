/*
 * The GenericOutput audio unit through the installed library (SPEC 10, first part):
 * found by description, its properties, AudioUnitRender pulling the program's render
 * callback and converting what it gives (SInt16 interleaved mono) to what it is asked
 * for (the iPhone's 8.24 non-interleaved stereo, and Float32 at half volume), render
 * notifies around it, IsRunning listeners, and bad inputs. Needs no session: it runs
 * the same in every configuration of the matrix.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int rendered, preNotes, postNotes, runningCalls;
static UInt32 lastFrames;
static Float64 lastSampleTime;

/* A ramp: frame k of the whole stream is k - 100 (in SInt16 units). */
static OSStatus renderRamp(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                           UInt32 frames, AudioBufferList *data)
{
    (void)flags; (void)bus;
    long *next = refCon;
    CHECK(data->mNumberBuffers == 1 && data->mBuffers[0].mNumberChannels == 1, "one interleaved mono buffer");
    CHECK(data->mBuffers[0].mDataByteSize == frames * 2, "sized for the slice (%u bytes)",
          (unsigned)data->mBuffers[0].mDataByteSize);
    SInt16 *samples = data->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++) samples[i] = (SInt16)(*next + i - 100);
    *next += frames;
    rendered++;
    lastFrames = frames;
    lastSampleTime = ts->mSampleTime;
    return noErr;
}

static OSStatus notify(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                       UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)ts; (void)bus; (void)frames; (void)data;
    if (*flags & kAudioUnitRenderAction_PreRender) preNotes++;
    if (*flags & kAudioUnitRenderAction_PostRender) postNotes++;
    return noErr;
}

static void runningListener(void *refCon, AudioUnit unit, AudioUnitPropertyID id, AudioUnitScope scope,
                            AudioUnitElement element)
{
    (void)scope; (void)element;
    CHECK(refCon == (void *)7 && unit != NULL && id == kAudioOutputUnitProperty_IsRunning, "IsRunning listener args");
    runningCalls++;
}

/* ---- hostile: a callback that calls back in, and a second thread remaking the unit ---- */

static AudioUnit reentered;
static OSStatus reentryStatus = 1, reentryGet = 1;
static OSStatus renderReentering(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts,
                                 UInt32 bus, UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    memset(data->mBuffers[0].mData, 0, frames * 4);
    UInt32 maximum = 0, size = sizeof maximum;
    reentryGet = AudioUnitGetProperty(reentered, kAudioUnitProperty_MaximumFramesPerSlice, kAudioUnitScope_Global, 0,
                                      &maximum, &size);
    reentryStatus = AudioUnitSetProperty(reentered, kAudioUnitProperty_MaximumFramesPerSlice, kAudioUnitScope_Global,
                                         0, &maximum, sizeof maximum);
    return noErr;
}

static volatile int stopRemaking;
static void *remake(void *unit)
{
    while (!stopRemaking) {
        AudioUnitUninitialize(unit);
        AudioUnitInitialize(unit);
    }
    return NULL;
}

static void hostile(AudioComponent component)
{
    CHECK_STATUS(AudioComponentInstanceNew(component, &reentered), noErr);
    AURenderCallbackStruct callback = {renderReentering, NULL};
    CHECK_STATUS(AudioUnitSetProperty(reentered, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0,
                                      &callback, sizeof callback), noErr);
    CHECK_STATUS(AudioUnitInitialize(reentered), noErr);
    Float32 left[256], right[256];
    struct { UInt32 count; AudioBuffer buffers[2]; } list = {2, {{1, sizeof left, left}, {1, sizeof right, right}}};
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    AudioUnitRenderActionFlags flags = 0;
    CHECK_STATUS(AudioUnitRender(reentered, &flags, &ts, 0, 256, (AudioBufferList *)&list), noErr);
    CHECK(reentryGet == noErr && reentryStatus == kAudioUnitErr_Initialized,
          "inside its render callback a unit answers: get %d, set %d", (int)reentryGet, (int)reentryStatus);
    /* Another thread uninitializes and initializes the unit while this one renders:
       each render either renders or says Uninitialized, and nothing crashes. */
    pthread_t thread;
    pthread_create(&thread, NULL, remake, reentered);
    int rendered = 0, refused = 0, other = 0;
    for (int i = 0; i < 20000; i++) {
        OSStatus status = AudioUnitRender(reentered, &flags, &ts, 0, 256, (AudioBufferList *)&list);
        if (status == noErr) rendered++;
        else if (status == kAudioUnitErr_Uninitialized) refused++;
        else other++;
    }
    stopRemaking = 1;
    pthread_join(thread, NULL);
    CHECK(other == 0 && rendered + refused == 20000, "renders while remade: %d rendered, %d uninitialized, %d other",
          rendered, refused, other);
    CHECK_STATUS(AudioComponentInstanceDispose(reentered), noErr);
}

static AudioStreamBasicDescription lpcm(Float64 rate, UInt32 flags, UInt32 channels, UInt32 bits, int interleaved)
{
    AudioStreamBasicDescription d;
    memset(&d, 0, sizeof d);
    d.mSampleRate = rate;
    d.mFormatID = kAudioFormatLinearPCM;
    d.mFormatFlags = flags;
    d.mFramesPerPacket = 1;
    d.mChannelsPerFrame = channels;
    d.mBitsPerChannel = bits;
    d.mBytesPerFrame = d.mBytesPerPacket = (bits / 8) * (interleaved ? channels : 1);
    return d;
}

int main(void)
{
    AudioComponentDescription want = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                      kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponent component = AudioComponentFindNext(NULL, &want);
    CHECK(component != NULL, "GenericOutput found");
    CHECK(AudioComponentCount(&want) == 1, "one GenericOutput");
    AudioComponentDescription any = {0, 0, 0, 0, 0}, got;
    CHECK(AudioComponentFindNext(NULL, &any) != NULL, "zero fields match anything");
    CHECK_STATUS(AudioComponentGetDescription(component, &got), noErr);
    CHECK(got.componentSubType == kAudioUnitSubType_GenericOutput, "its description");
    CFStringRef name = NULL;
    CHECK_STATUS(AudioComponentCopyName(component, &name), noErr);
    CHECK(name && CFStringGetLength(name) > 0, "a name");
    if (name) CFRelease(name);

    AudioUnit unit = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(component, &unit), noErr);
    CHECK(AudioComponentInstanceGetComponent(unit) == component, "its component");

    /* The program gives SInt16 interleaved mono; the unit is asked for 8.24 stereo. */
    AudioStreamBasicDescription program = lpcm(48000, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 1, 16, 1);
    AudioStreamBasicDescription canonical = lpcm(48000, 0xC2C, 2, 32, 0);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &program,
                                      sizeof program), noErr);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &canonical,
                                      sizeof canonical), noErr);
    AudioStreamBasicDescription readBack;
    UInt32 size = sizeof readBack;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &readBack, &size),
                 noErr);
    CHECK(readBack.mFormatFlags == 0xC2C && readBack.mChannelsPerFrame == 2 && readBack.mBytesPerFrame == 4,
          "the output format reads back (flags %#x)", (unsigned)readBack.mFormatFlags);
    long next = 0;
    AURenderCallbackStruct callback = {renderRamp, &next};
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback,
                                      sizeof callback), noErr);
    CHECK_STATUS(AudioUnitAddRenderNotify(unit, notify, NULL), noErr);
    CHECK_STATUS(AudioUnitAddPropertyListener(unit, kAudioOutputUnitProperty_IsRunning, runningListener, (void *)7),
                 noErr);

    /* Before Initialize: no render. */
    SInt32 left[512], right[512];
    struct { UInt32 count; AudioBuffer buffers[2]; } list = {2, {{1, sizeof left, left}, {1, sizeof right, right}}};
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    AudioUnitRenderActionFlags flags = 0;
    CHECK_STATUS(AudioUnitRender(unit, &flags, &ts, 0, 512, (AudioBufferList *)&list), kAudioUnitErr_Uninitialized);
    CHECK_STATUS(AudioUnitInitialize(unit), noErr);
    /* A format set while initialized is taken, as the phone's units take it (programs
       that shipped set it after AudioUnitInitialize: baresip since 2014, openal-soft). */
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &program,
                                      sizeof program), noErr);

    CHECK_STATUS(AudioOutputUnitStart(unit), noErr);
    CHECK(runningCalls == 1, "IsRunning listener told of the start (%d)", runningCalls);
    UInt32 running = 0;
    size = sizeof running;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0, &running,
                                      &size), noErr);
    CHECK(running == 1, "IsRunning reads 1");

    /* Two slices: 8.24 of SInt16 s is s x 512, the mono copied to both channels. */
    int wrong = 0;
    for (int slice = 0; slice < 2; slice++) {
        ts.mSampleTime = slice * 512;
        CHECK_STATUS(AudioUnitRender(unit, &flags, &ts, 0, 512, (AudioBufferList *)&list), noErr);
        for (int i = 0; i < 512; i++) {
            SInt32 expected = (SInt32)(slice * 512 + i - 100) * 512;
            wrong += left[i] != expected || right[i] != expected;
        }
    }
    CHECK(wrong == 0, "8.24 stereo is the ramp exactly (%d wrong samples)", wrong);
    CHECK(rendered == 2 && lastFrames == 512 && lastSampleTime == 512, "two pulls of 512 frames, time stamps passed");
    CHECK(preNotes == 2 && postNotes == 2, "render notifies before and after (%d, %d)", preNotes, postNotes);

    /* Half volume, Float32 out: same ramp, halved. */
    CHECK_STATUS(AudioOutputUnitStop(unit), noErr);
    CHECK_STATUS(AudioUnitUninitialize(unit), noErr);
    AudioStreamBasicDescription floats = lpcm(48000, kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked, 1, 32, 1);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floats,
                                      sizeof floats), noErr);
    CHECK_STATUS(AudioUnitSetParameter(unit, kHALOutputParam_Volume, kAudioUnitScope_Global, 0, 0.5f, 0), noErr);
    CHECK_STATUS(AudioUnitInitialize(unit), noErr);
    Float32 mono[256];
    struct { UInt32 count; AudioBuffer buffers[1]; } one = {1, {{1, sizeof mono, mono}}};
    next = 1000;
    CHECK_STATUS(AudioUnitRender(unit, &flags, &ts, 0, 256, (AudioBufferList *)&one), noErr);
    wrong = 0;
    for (int i = 0; i < 256; i++) wrong += mono[i] != (Float32)(1000 + i - 100) / 32768.0f * 0.5f;
    CHECK(wrong == 0, "Float32 at half volume (%d wrong)", wrong);

    /* NULL data pointers: the unit lends its own buffer (offline code relies on it). */
    struct { UInt32 count; AudioBuffer buffers[1]; } lend = {1, {{1, 0, NULL}}};
    next = 2000;
    CHECK_STATUS(AudioUnitRender(unit, &flags, &ts, 0, 256, (AudioBufferList *)&lend), noErr);
    wrong = 0;
    const Float32 *lent = (const Float32 *)lend.buffers[0].mData;
    for (int i = 0; lent && i < 256; i++) wrong += lent[i] != (Float32)(2000 + i - 100) / 32768.0f * 0.5f;
    CHECK(lent != NULL && lend.buffers[0].mDataByteSize == 256 * 4 && wrong == 0,
          "NULL mData renders into the unit's own buffer (%u bytes, %d wrong)", (unsigned)lend.buffers[0].mDataByteSize, wrong);

    /* A format while initialized, rendered at once: SInt16 out now. */
    AudioStreamBasicDescription shorts = lpcm(48000, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 1, 16, 1);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &shorts,
                                      sizeof shorts), noErr);
    SInt16 pcm16[256];
    struct { UInt32 count; AudioBuffer buffers[1]; } sixteen = {1, {{1, sizeof pcm16, pcm16}}};
    next = 3000;
    CHECK_STATUS(AudioUnitRender(unit, &flags, &ts, 0, 256, (AudioBufferList *)&sixteen), noErr);
    wrong = 0;
    for (int i = 0; i < 256; i++) wrong += abs(pcm16[i] - (3000 + i - 100) / 2) > 1;
    CHECK(wrong == 0, "a format set while initialized is what the next render gives (%d wrong)", wrong);
    /* One the unit cannot take while initialized (big-endian): refused, the old one kept. */
    AudioStreamBasicDescription swapped = lpcm(48000, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsBigEndian, 1, 16, 1);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &swapped,
                                      sizeof swapped), kAudioUnitErr_FormatNotSupported);
    size = sizeof readBack;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &readBack, &size),
                 noErr);
    CHECK(readBack.mSampleRate == 48000 && readBack.mBitsPerChannel == 16, "the refused format left the unit as it was");
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floats,
                                      sizeof floats), noErr);

    /* Render quality: global, kept and read back. */
    UInt32 quality = kRenderQuality_Low;
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_RenderQuality, kAudioUnitScope_Global, 0, &quality,
                                      sizeof quality), noErr);
    quality = 0;
    size = sizeof quality;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_RenderQuality, kAudioUnitScope_Global, 0, &quality, &size),
                 noErr);
    CHECK(quality == kRenderQuality_Low, "RenderQuality reads back (%u)", (unsigned)quality);
    /* A size of 0 is a parameter error, as Apple's dispatch answers it. */
    size = 0;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_RenderQuality, kAudioUnitScope_Global, 0, &quality, &size),
                 kAudio_ParamError);

    /* Bad inputs: a code each, nothing changed. */
    UInt32 frames = 0;
    size = sizeof frames;
    CHECK_STATUS(AudioUnitGetProperty(NULL, kAudioUnitProperty_MaximumFramesPerSlice, kAudioUnitScope_Global, 0, &frames,
                                      &size), kAudio_ParamError);
    CHECK_STATUS(AudioUnitGetProperty(unit, 0xDEAD, kAudioUnitScope_Global, 0, &frames, &size), kAudioUnitErr_InvalidProperty);
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Global, 0, &readBack, &size),
                 kAudioUnitErr_InvalidScope);
    size = sizeof readBack;
    CHECK_STATUS(AudioUnitGetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 3, &readBack, &size),
                 kAudioUnitErr_InvalidElement);
    CHECK_STATUS(AudioUnitRender(unit, &flags, &ts, 1, 256, (AudioBufferList *)&one), kAudioUnitErr_InvalidElement);
    CHECK_STATUS(AudioUnitRender(unit, &flags, &ts, 0, 100000, (AudioBufferList *)&one),
                 kAudioUnitErr_TooManyFramesToProcess);
    CHECK_STATUS(AudioUnitRender(unit, &flags, &ts, 0, 512, (AudioBufferList *)&one), kAudio_ParamError);
    CHECK_STATUS(AudioUnitSetParameter(unit, kHALOutputParam_Volume, kAudioUnitScope_Global, 0, 2.0f, 0),
                 kAudioUnitErr_InvalidParameter);
    Float32 volume = 0;
    CHECK_STATUS(AudioUnitGetParameter(unit, kHALOutputParam_Volume, kAudioUnitScope_Global, 0, &volume), noErr);
    CHECK(volume == 0.5f, "the refused volume left it at 0.5");
    CHECK_STATUS(AudioUnitUninitialize(unit), noErr);
    AudioStreamBasicDescription bigEndian = lpcm(48000, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsBigEndian, 1, 16, 1);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &bigEndian,
                                      sizeof bigEndian), kAudioUnitErr_FormatNotSupported);
    /* Two rates: the unit converts (test_converter_unit checks what it makes). */
    AudioStreamBasicDescription otherRate = lpcm(44100, kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked, 1, 32, 1);
    CHECK_STATUS(AudioUnitSetProperty(unit, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &otherRate,
                                      sizeof otherRate), noErr);
    CHECK_STATUS(AudioUnitInitialize(unit), noErr);
    CHECK_STATUS(AudioUnitUninitialize(unit), noErr);
    /* Teardown code stops whatever it has: an uninitialized unit is not running, noErr. */
    CHECK_STATUS(AudioOutputUnitStop(unit), noErr);

    CHECK_STATUS(AudioComponentInstanceDispose(unit), noErr);
    CHECK_STATUS(AudioComponentInstanceDispose(unit), kAudio_ParamError);
    hostile(component);
    CHECK_STATUS(AudioUnitInitialize(unit), kAudio_ParamError);
    return finish("generic output");
}
