/*
 * AUConverter (kAudioUnitType_FormatConverter / kAudioUnitSubType_AUConverter) and the
 * rate conversion pulled units share with it (GenericOutput at two rates): found by
 * description, named; format, rate, channels and interleaving converted between its
 * input (a render callback, or a connection to another unit) and its output; NULL data
 * pointers borrowing the unit's buffers, as baresip's recorder pulls it; calls it has no
 * meaning for answered with a code. What it makes is checked as a signal: a 441 Hz sine
 * at the program's rate must come out a 441 Hz sine at the output's, with no sample of
 * the steady tone a zero or a step. Needs no session or device.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

static AudioStreamBasicDescription lpcm(double rate, UInt32 flags, UInt32 channels, UInt32 bits, int interleaved)
{
    UInt32 bytes = bits / 8 * (interleaved ? channels : 1);
    if (!interleaved) flags |= kAudioFormatFlagIsNonInterleaved;
    AudioStreamBasicDescription d = {rate, kAudioFormatLinearPCM, flags | kAudioFormatFlagIsPacked, bytes, 1, bytes, channels, bits, 0};
    return d;
}

/* The program's tone: SInt16 interleaved stereo at 22050 Hz, 441 Hz, 0.5 of full scale. */
static double phase;
static long pulls;
static UInt32 mostAsked;
static OSStatus renderTone(void *refCon, AudioUnitRenderActionFlags *flags, const AudioTimeStamp *ts, UInt32 bus,
                           UInt32 frames, AudioBufferList *data)
{
    (void)refCon; (void)flags; (void)ts; (void)bus;
    pulls++;
    if (frames > mostAsked) mostAsked = frames;
    SInt16 *s = data->mBuffers[0].mData;
    for (UInt32 i = 0; i < frames; i++, phase += 2 * M_PI * 441 / 22050) s[2 * i] = s[2 * i + 1] = (SInt16)(16384 * sin(phase));
    return noErr;
}

/* Pitch by rising zero crossings, the peak, and the clicks: in the steady part, a sample
 * exactly 0 between two large neighbours, or a step larger than the sine can make. */
static double analyse(const float *x, long n, double rate, double *peak, long *clicks)
{
    long crossings = 0, first = -1, last = -1;
    *peak = 0;
    *clicks = 0;
    double largestStep = 2 * M_PI * 441 / rate * 0.5 * 1.2;
    for (long i = 1; i < n; i++) {
        if (x[i - 1] < 0 && x[i] >= 0) { crossings++; if (first < 0) first = i; last = i; }
        /* Past the resampler's start (its filter rings where the tone begins mid-cycle). */
        if (i > 2000 && fabs(x[i]) > *peak) *peak = fabs(x[i]);
        if (i > 2000 && i + 1 < n) {
            if (x[i] == 0 && fabs(x[i - 1]) > 0.05 && fabs(x[i + 1]) > 0.05) (*clicks)++;
            else if (fabs(x[i] - x[i - 1]) > largestStep) (*clicks)++;
        }
    }
    return crossings > 1 ? (crossings - 1) * rate / (double)(last - first) : 0;
}

/* Pulls `total` frames of mono Float at 44.1 kHz in slices of `slice`, with NULL data
 * pointers when `borrow`. */
static long pull(AudioUnit unit, float *out, long total, UInt32 slice, int borrow, const char *what)
{
    long at = 0;
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    long failed = 0;
    for (; at + slice <= total; at += slice) {
        AudioBufferList list = {1, {{1, slice * 4, borrow ? NULL : out + at}}};
        AudioUnitRenderActionFlags flags = 0;
        OSStatus status = AudioUnitRender(unit, &flags, &ts, 0, slice, &list);
        if (status) { failed++; continue; }
        if (borrow) {
            if (list.mBuffers[0].mData == NULL || list.mBuffers[0].mDataByteSize != slice * 4) { failed++; continue; }
            memcpy(out + at, list.mBuffers[0].mData, slice * 4);
        }
        ts.mSampleTime += slice;
    }
    CHECK(failed == 0, "%s: every render succeeded (%ld failed)", what, failed);
    return at;
}

static void checkTone(const float *x, long n, const char *what)
{
    double peak = 0;
    long clicks = 0;
    double hz = analyse(x, n, 44100, &peak, &clicks);
    printf("measured %s: %.2f Hz, peak %.3f, %ld clicks\n", what, hz, peak, clicks);
    CHECK(fabs(hz - 441) < 1 && peak > 0.45 && peak < 0.55, "%s: the 441 Hz tone at 44.1 kHz (%.2f Hz, peak %.3f)", what, hz, peak);
    CHECK(clicks == 0, "%s: no zero or step in the steady tone (%ld)", what, clicks);
}

int main(void)
{
    installWatchdog("converter unit");
    alarm(60);
    AudioComponentDescription want = {kAudioUnitType_FormatConverter, kAudioUnitSubType_AUConverter,
                                      kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponent component = AudioComponentFindNext(NULL, &want);
    CHECK(component != NULL, "AudioComponentFindNext finds AUConverter");
    if (!component) return finish("converter unit");
    CFStringRef name = NULL;
    CHECK_STATUS(AudioComponentCopyName(component, &name), noErr);
    char text[64] = "";
    if (name) { CFStringGetCString(name, text, sizeof text, kCFStringEncodingUTF8); CFRelease(name); }
    CHECK(strcmp(text, "Apple: AUConverter") == 0, "its name (%s)", text);
    AudioComponentDescription any = {kAudioUnitType_FormatConverter, 0, 0, 0, 0};
    /* Five format converters: AUConverter, then Varispeed, then the time and pitch units
     * (AUNewTimePitch, AUiPodTime, AUiPodTimeOther). */
    CHECK(AudioComponentCount(&any) == 5, "five format converters (%u)", (unsigned)AudioComponentCount(&any));
    AudioComponent second = AudioComponentFindNext(component, &any);
    AudioComponentDescription secondDescription = {0, 0, 0, 0, 0};
    if (second) AudioComponentGetDescription(second, &secondDescription);
    CHECK(secondDescription.componentSubType == kAudioUnitSubType_Varispeed, "the second is Varispeed");

    AudioUnit converter = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(component, &converter), noErr);
    AudioStreamBasicDescription in = lpcm(22050, kAudioFormatFlagIsSignedInteger, 2, 16, 1);
    AudioStreamBasicDescription out = lpcm(44100, kAudioFormatFlagIsFloat, 1, 32, 0);
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &in, sizeof in), noErr);
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &out, sizeof out),
                 noErr);
    AURenderCallbackStruct callback = {renderTone, NULL};
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback,
                                      sizeof callback), noErr);
    CHECK_STATUS(AudioUnitInitialize(converter), noErr);

    /* Not an output unit: no start, no IsRunning. */
    CHECK_STATUS(AudioOutputUnitStart(converter), kAudio_UnimplementedError);
    UInt32 running = 0, size = sizeof running;
    CHECK_STATUS(AudioUnitGetProperty(converter, kAudioOutputUnitProperty_IsRunning, kAudioUnitScope_Global, 0, &running, &size),
                 kAudioUnitErr_InvalidProperty);

    static float tone[44100];
    long made = pull(converter, tone, 44100, 512, 0, "22.05 kHz SInt16 stereo -> 44.1 kHz Float mono");
    checkTone(tone, made, "AUConverter through a render callback");
    CHECK(pulls >= 80 && mostAsked == 256, "the render callback was asked for what each render needs: %ld pulls, at most %u frames",
          pulls, (unsigned)mostAsked);

    /* kAudioUnitProperty_SampleRateConverterComplexity, set before initializing as the
     * header asks: each choice makes another resampler. Upsampling 22.05 kHz to 44.1 kHz
     * leaves an image of the tone at 22050 - 441 Hz; straight lines between samples
     * ('line') leave far more of it than the mastering filter ('bats'). */
    UInt32 complexity = 0;
    size = sizeof complexity;
    CHECK_STATUS(AudioUnitGetProperty(converter, kAudioUnitProperty_SampleRateConverterComplexity, kAudioUnitScope_Global, 0,
                                      &complexity, &size), noErr);
    CHECK(complexity == kAudioUnitSampleRateConverterComplexity_Normal, "the complexity is Normal at first");
    complexity = kAudioUnitSampleRateConverterComplexity_Linear;
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_SampleRateConverterComplexity, kAudioUnitScope_Global, 0,
                                      &complexity, sizeof complexity), kAudioUnitErr_Initialized);
    double image[2] = {0, 0};
    UInt32 choices[2] = {kAudioUnitSampleRateConverterComplexity_Linear, kAudioUnitSampleRateConverterComplexity_Mastering};
    for (int k = 0; k < 2; k++) {
        CHECK_STATUS(AudioUnitUninitialize(converter), noErr);
        CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_SampleRateConverterComplexity, kAudioUnitScope_Global, 0,
                                          &choices[k], sizeof choices[k]), noErr);
        CHECK_STATUS(AudioUnitInitialize(converter), noErr);
        long n = pull(converter, tone, 44100, 512, 0, "a complexity");
        double c = 0, s2 = 0, t = 0, s3 = 0;
        for (long i = 4096; i < n; i++) {
            c += tone[i] * cos(2 * M_PI * (22050 - 441) * i / 44100.0);
            s2 += tone[i] * sin(2 * M_PI * (22050 - 441) * i / 44100.0);
            t += tone[i] * cos(2 * M_PI * 441 * i / 44100.0);
            s3 += tone[i] * sin(2 * M_PI * 441 * i / 44100.0);
        }
        image[k] = 20 * log10(sqrt(c * c + s2 * s2) / sqrt(t * t + s3 * s3) + 1e-12);
    }
    printf("measured: the tone's image at 21609 Hz: %.1f dB with Linear, %.1f dB with Mastering\n", image[0], image[1]);
    CHECK(image[0] > image[1] + 10, "Linear leaves more of the image than Mastering (%.1f dB, %.1f dB)", image[0], image[1]);
    UInt32 unknown = 0x78787878;
    CHECK_STATUS(AudioUnitUninitialize(converter), noErr);
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_SampleRateConverterComplexity, kAudioUnitScope_Global, 0,
                                      &unknown, sizeof unknown), kAudioUnitErr_InvalidPropertyValue);
    size = sizeof complexity;
    CHECK_STATUS(AudioUnitGetProperty(converter, kAudioUnitProperty_SampleRateConverterComplexity, kAudioUnitScope_Global, 0,
                                      &complexity, &size), noErr);
    CHECK(complexity == kAudioUnitSampleRateConverterComplexity_Mastering, "a refused value leaves Mastering");
    complexity = kAudioUnitSampleRateConverterComplexity_Normal;
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_SampleRateConverterComplexity, kAudioUnitScope_Global, 0,
                                      &complexity, sizeof complexity), noErr);
    CHECK_STATUS(AudioUnitInitialize(converter), noErr);

    /* baresip's recorder: NULL data pointers, slices of 320. */
    memset(tone, 0, sizeof tone);
    made = pull(converter, tone, 44100, 320, 1, "NULL mData");
    checkTone(tone, made, "AUConverter into its own buffers");

    /* A connection: a GenericOutput making the tone, the converter pulling it. */
    AudioComponentDescription genericDescription = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                                    kAudioUnitManufacturer_Apple, 0, 0};
    AudioUnit source = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &genericDescription), &source), noErr);
    CHECK_STATUS(AudioUnitSetProperty(source, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &in, sizeof in), noErr);
    CHECK_STATUS(AudioUnitSetProperty(source, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &in, sizeof in), noErr);
    CHECK_STATUS(AudioUnitSetProperty(source, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback,
                                      sizeof callback), noErr);
    CHECK_STATUS(AudioUnitInitialize(source), noErr);
    AudioUnitConnection connection = {source, 0, 0};
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_MakeConnection, kAudioUnitScope_Input, 0, &connection,
                                      sizeof connection), noErr);
    AudioUnitConnection toItself = {converter, 0, 0};
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_MakeConnection, kAudioUnitScope_Input, 0, &toItself,
                                      sizeof toItself), kAudioUnitErr_InvalidPropertyValue);
    AudioUnitConnection wrongBus = {source, 5, 0};
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_MakeConnection, kAudioUnitScope_Input, 0, &wrongBus,
                                      sizeof wrongBus), kAudioUnitErr_InvalidElement);
    CHECK_STATUS(AudioUnitSetProperty(converter, kAudioUnitProperty_MakeConnection, kAudioUnitScope_Output, 0, &connection,
                                      sizeof connection), kAudioUnitErr_InvalidScope);
    CHECK_STATUS(AudioUnitReset(converter, kAudioUnitScope_Global, 0), noErr);
    memset(tone, 0, sizeof tone);
    made = pull(converter, tone, 44100, 1024, 0, "connected");
    checkTone(tone, made, "AUConverter pulling a GenericOutput");

    /* GenericOutput at two rates converts the same way (it refused them before). */
    AudioUnit generic = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &genericDescription), &generic), noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input, 0, &in, sizeof in), noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &out, sizeof out), noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_SetRenderCallback, kAudioUnitScope_Input, 0, &callback,
                                      sizeof callback), noErr);
    CHECK_STATUS(AudioUnitInitialize(generic), noErr);
    memset(tone, 0, sizeof tone);
    made = pull(generic, tone, 44100, 471, 0, "GenericOutput 22.05 -> 44.1 kHz");
    checkTone(tone, made, "GenericOutput at two rates");

    CHECK_STATUS(AudioComponentInstanceDispose(converter), noErr);
    CHECK_STATUS(AudioComponentInstanceDispose(source), noErr);
    CHECK_STATUS(AudioComponentInstanceDispose(generic), noErr);
    CHECK_STATUS(AudioOutputUnitStart(converter), kAudio_ParamError);
    return finish("converter unit");
}
