/* AUSampler playing 32 voices against FluidSynth driven directly (make bench): the same
 * General MIDI piano (Debian's FluidR3), 32 notes held, 20 s rendered at 44.1 kHz in
 * slices of 512 frames: through GenericOutput <- AUSampler, and through
 * fluid_synth_write_float with the same settings. The ratio's goal is at most 1.1;
 * medians of 5 alternated runs. */
#include <AudioToolbox/AudioToolbox.h>
#include <fluidsynth.h>
#include <stdio.h>
#include <string.h>
#include "bench_common.h"

enum { RATE = 44100, SLICE = 512, SECONDS = 20, FRAMES = RATE * SECONDS, RUNS = 5, VOICES = 32 };
static const char *font = "/usr/share/sounds/sf2/FluidR3_GM.sf2";
static Float32 left[SLICE], right[SLICE];
static volatile float sink;

static double throughSampler(void)
{
    AudioComponentDescription gd = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput, kAudioUnitManufacturer_Apple, 0, 0};
    AudioComponentDescription sd = {kAudioUnitType_MusicDevice, kAudioUnitSubType_Sampler, kAudioUnitManufacturer_Apple, 0, 0};
    AudioStreamBasicDescription f = {RATE, kAudioFormatLinearPCM, kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                     4, 1, 4, 2, 32, 0};
    AUGraph g;
    AUNode out, node;
    AudioUnit generic, sampler;
    NewAUGraph(&g);
    AUGraphAddNode(g, &gd, &out);
    AUGraphAddNode(g, &sd, &node);
    AUGraphOpen(g);
    AUGraphNodeInfo(g, out, NULL, &generic);
    AUGraphNodeInfo(g, node, NULL, &sampler);
    AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &f, sizeof f);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)font, (CFIndex)strlen(font), false);
    AUSamplerInstrumentData piano = {url, kInstrumentType_SF2Preset, kAUSampler_DefaultMelodicBankMSB, 0, 0};
    AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument, kAudioUnitScope_Global, 0, &piano, sizeof piano);
    CFRelease(url);
    AUGraphConnectNodeInput(g, node, 0, out, 0);
    AUGraphInitialize(g);
    for (int v = 0; v < VOICES; v++) MusicDeviceMIDIEvent(sampler, 0x90 | (v % 16), (UInt32)(40 + v), 100, 0);
    MusicDeviceMIDIEvent(sampler, 0xB0, 64, 127, 0);
    AudioTimeStamp ts;
    memset(&ts, 0, sizeof ts);
    ts.mFlags = kAudioTimeStampSampleTimeValid;
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        struct { UInt32 n; AudioBuffer b[2]; } list = {2, {{1, SLICE * 4, left}, {1, SLICE * 4, right}}};
        AudioUnitRenderActionFlags flags = 0;
        AudioUnitRender(generic, &flags, &ts, 0, SLICE, (AudioBufferList *)&list);
        ts.mSampleTime += SLICE;
        sink += left[0];
    }
    double took = nowNanoseconds() - start;
    DisposeAUGraph(g);
    return took;
}

static double direct(void)
{
    fluid_settings_t *settings = new_fluid_settings();
    fluid_settings_setnum(settings, "synth.sample-rate", RATE);
    fluid_settings_setint(settings, "synth.polyphony", 256);
    fluid_settings_setint(settings, "synth.threadsafe-api", 0);
    fluid_settings_setint(settings, "synth.cpu-cores", 1);
    fluid_settings_setnum(settings, "synth.gain", 1.0);
    fluid_synth_t *synth = new_fluid_synth(settings);
    int id = fluid_synth_sfload(synth, font, 1);
    for (int c = 0; c < 16; c++) fluid_synth_program_select(synth, c, id, 0, 0);
    for (int v = 0; v < VOICES; v++) fluid_synth_noteon(synth, v % 16, 40 + v, 100);
    fluid_synth_cc(synth, 0, 64, 127);
    double start = nowNanoseconds();
    for (long done = 0; done < FRAMES; done += SLICE) {
        fluid_synth_write_float(synth, SLICE, left, 0, 1, right, 0, 1);
        sink += left[0];
    }
    double took = nowNanoseconds() - start;
    delete_fluid_synth(synth);
    delete_fluid_settings(settings);
    return took;
}

int main(void)
{
    double ours[RUNS], theirs[RUNS];
    for (int r = 0; r < RUNS; r++) {
        ours[r] = throughSampler();
        theirs[r] = direct();
    }
    double o = percentile(ours, RUNS, 50), t = percentile(theirs, RUNS, 50);
    printf("sampler: %d voices for %d s: AUSampler %.1f ms, FluidSynth directly %.1f ms: ratio %.2f (goal <= 1.1)\n", VOICES,
           SECONDS, o / 1e6, t / 1e6, o / t);
    return 0;
}
