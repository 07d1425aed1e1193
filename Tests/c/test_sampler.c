/*
 * AUSampler and MusicDevice.h, called as Apple's LoadPresetDemo and the apps built on it
 * call them: a sampler node in an AUGraph, an instrument loaded with
 * kAUSamplerProperty_LoadInstrument (a SoundFont preset, an .aupreset file) or
 * _LoadPresetFromBank, or audio files with _LoadAudioFiles (an openFrameworks addon's
 * way), or an .aupreset's dictionary through kAudioUnitProperty_ClassInfo; notes by
 * MusicDeviceMIDIEvent and MusicDeviceStartNote.
 *
 * Rendered offline (GenericOutput <- sampler) and measured: the pitch of each note
 * (the default sine at A440, an audio file at its root key), a note starting at its
 * frame offset, pitch bend, velocity, the volume and sustain controllers, a chord's
 * three notes, a release that ends, the gain and tuning parameters. General MIDI from
 * Debian's FluidR3 SoundFont: a piano's A at 440 Hz and a kick drum from the percussion
 * bank. Bad inputs answer with codes and change nothing.
 *
 * Live (RemoteIO <- sampler, as LoadPresetDemo builds it): the card hears A440.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "tone_level.h"
#include "world.h"

static const AudioComponentDescription samplerDescription = {kAudioUnitType_MusicDevice, kAudioUnitSubType_Sampler,
                                                             kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription genericDescription = {kAudioUnitType_Output, kAudioUnitSubType_GenericOutput,
                                                             kAudioUnitManufacturer_Apple, 0, 0};
static const AudioComponentDescription rioDescription = {kAudioUnitType_Output, kAudioUnitSubType_RemoteIO,
                                                         kAudioUnitManufacturer_Apple, 0, 0};

enum { RATE = 44100, SLICE = 512 };
static const char *soundFont = "/usr/share/sounds/sf2/FluidR3_GM.sf2";

static const AudioStreamBasicDescription floatFormat = {RATE, kAudioFormatLinearPCM,
                                                        kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved,
                                                        4, 1, 4, 2, 32, 0};

static AUGraph graph;
static AudioUnit sampler, generic;
static Float32 left[2 * RATE + SLICE], right[2 * RATE + SLICE];
static double sampleTime;
static char folder[256];

/* GenericOutput <- sampler, as LoadPresetDemo's graph with the I/O unit swapped for offline. */
static void buildGraph(void)
{
    AUNode out = 0, node = 0;
    CHECK_STATUS(NewAUGraph(&graph), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &samplerDescription, &node), noErr);
    CHECK_STATUS(AUGraphAddNode(graph, &genericDescription, &out), noErr);
    CHECK_STATUS(AUGraphOpen(graph), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, node, NULL, &sampler), noErr);
    CHECK_STATUS(AUGraphNodeInfo(graph, out, NULL, &generic), noErr);
    CHECK_STATUS(AudioUnitSetProperty(generic, kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 0, &floatFormat,
                                      sizeof floatFormat), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(graph, node, 0, out, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(graph), noErr);
}

static OSStatus render(long frames)
{
    for (long done = 0; done < frames; done += SLICE) {
        struct { UInt32 count; AudioBuffer b[2]; } list = {2, {{1, SLICE * 4, left + done}, {1, SLICE * 4, right + done}}};
        AudioTimeStamp ts;
        memset(&ts, 0, sizeof ts);
        ts.mSampleTime = sampleTime;
        ts.mFlags = kAudioTimeStampSampleTimeValid;
        AudioUnitRenderActionFlags flags = 0;
        OSStatus status = AudioUnitRender(generic, &flags, &ts, 0, SLICE, (AudioBufferList *)&list);
        if (status != noErr) return status;
        sampleTime += SLICE;
    }
    return noErr;
}

static double level(long from, long n, double hz) { return amplitudeAt(left + from, n, hz, RATE); }

static double rms(long from, long n)
{
    double sum = 0;
    for (long i = from; i < from + n; i++) sum += (double)left[i] * left[i];
    return sqrt(sum / n);
}

/* Silences everything and renders it away. */
static void quiet(void)
{
    for (UInt32 channel = 0; channel < 16; channel++) {
        MusicDeviceMIDIEvent(sampler, 0xB0 | channel, 64, 0, 0);
        MusicDeviceMIDIEvent(sampler, 0xB0 | channel, 123, 0, 0);
        MusicDeviceMIDIEvent(sampler, 0xE0 | channel, 0, 64, 0);
        MusicDeviceMIDIEvent(sampler, 0xB0 | channel, 7, 100, 0);
    }
    AudioUnitReset(sampler, kAudioUnitScope_Global, 0);
    render(RATE / 2);
}

/* The strongest of `count` candidate frequencies over half a second from `from`. */
static double strongest(const double *candidates, int count, long from)
{
    double best = candidates[0], most = -1;
    for (int i = 0; i < count; i++) {
        double a = level(from, RATE / 2, candidates[i]);
        if (a > most) most = a, best = candidates[i];
    }
    return best;
}

static double semitones(double hz, int steps) { return hz * pow(2, steps / 12.0); }

/* ---- the default sine ---------------------------------------------------------------- */

static void defaultSine(void)
{
    /* Before any instrument is loaded, a note plays a sine at its pitch. */
    CHECK_STATUS(MusicDeviceMIDIEvent(sampler, 0x90, 69, 100, 0), noErr);
    CHECK_STATUS(render(RATE), noErr);
    double a440 = level(RATE / 4, RATE / 2, 440), a466 = level(RATE / 4, RATE / 2, 466.16);
    printf("measured: the default sine, note 69: 440 Hz %.3f, 466 Hz %.4f\n", a440, a466);
    CHECK(a440 > 0.05 && a440 > 30 * a466, "note 69 sounds A440 (%.3f against %.4f a semitone up)", a440, a466);
    /* A pitch bend all the way up: two semitones. */
    CHECK_STATUS(MusicDeviceMIDIEvent(sampler, 0xE0, 127, 127, 0), noErr);
    CHECK_STATUS(render(RATE), noErr);
    double candidates[] = {440, semitones(440, 1), semitones(440, 2), semitones(440, 3)};
    double bent = strongest(candidates, 4, RATE / 4);
    CHECK(fabs(bent - semitones(440, 2)) < 1, "a full bend up is two semitones (%.1f Hz)", bent);
    CHECK_STATUS(MusicDeviceMIDIEvent(sampler, 0xE0, 0, 64, 0), noErr);
    /* Note off: the release ends in silence. */
    CHECK_STATUS(MusicDeviceMIDIEvent(sampler, 0x80, 69, 0, 0), noErr);
    CHECK_STATUS(render(RATE), noErr);
    double tail = rms(RATE / 2, RATE / 2);
    CHECK(tail < 1e-4, "half a second after note off it is silent (rms %.6f)", tail);
    quiet();

    /* A note at frame offset 300 of the next render starts there, or at the end of the
     * synthesizer's 64-frame block that holds it. */
    CHECK_STATUS(MusicDeviceMIDIEvent(sampler, 0x90, 69, 100, 300), noErr);
    CHECK_STATUS(render(SLICE), noErr);
    long first = -1;
    for (long i = 0; i < SLICE && first < 0; i++) if (fabs(left[i]) > 1e-6) first = i;
    CHECK(first >= 300 && first <= 320 + 2, "a note at offset 300 starts at frame %ld", first);
    MusicDeviceMIDIEvent(sampler, 0x80, 69, 0, 0);
    quiet();

    /* Velocity: softer is quieter. */
    MusicDeviceMIDIEvent(sampler, 0x90, 69, 127, 0);
    render(RATE / 2);
    double loud = level(RATE / 8, RATE / 4, 440);
    MusicDeviceMIDIEvent(sampler, 0x80, 69, 0, 0);
    quiet();
    MusicDeviceMIDIEvent(sampler, 0x90, 69, 40, 0);
    render(RATE / 2);
    double soft = level(RATE / 8, RATE / 4, 440);
    MusicDeviceMIDIEvent(sampler, 0x80, 69, 0, 0);
    quiet();
    printf("measured: velocity 127 %.3f, velocity 40 %.3f\n", loud, soft);
    CHECK(soft < 0.6 * loud, "velocity 40 is quieter than 127 (%.3f, %.3f)", soft, loud);

    /* Controller 7 at 0: silent; controller 64: a released note holds until the pedal lifts. */
    MusicDeviceMIDIEvent(sampler, 0xB0, 7, 0, 0);
    MusicDeviceMIDIEvent(sampler, 0x90, 69, 100, 0);
    render(RATE / 2);
    CHECK(rms(RATE / 8, RATE / 4) < 1e-3, "volume 0 is silent (%.5f)", rms(RATE / 8, RATE / 4));
    MusicDeviceMIDIEvent(sampler, 0x80, 69, 0, 0);
    quiet();
    MusicDeviceMIDIEvent(sampler, 0xB0, 64, 127, 0);
    MusicDeviceMIDIEvent(sampler, 0x90, 69, 100, 0);
    MusicDeviceMIDIEvent(sampler, 0x80, 69, 0, SLICE / 2);
    render(RATE);
    CHECK(level(RATE / 2, RATE / 2, 440) > 0.02, "sustained, a released note still sounds a second on (%.3f)",
          level(RATE / 2, RATE / 2, 440));
    MusicDeviceMIDIEvent(sampler, 0xB0, 64, 0, 0);
    render(RATE);
    CHECK(rms(RATE / 2, RATE / 2) < 1e-4, "the pedal lifted, it ends (%.6f)", rms(RATE / 2, RATE / 2));
    quiet();

    /* A chord: C, E, G all sound. */
    const int keys[] = {60, 64, 67};
    for (int i = 0; i < 3; i++) MusicDeviceMIDIEvent(sampler, 0x90, (UInt32)keys[i], 100, 0);
    render(RATE);
    int all = 1;
    for (int i = 0; i < 3; i++) all &= level(RATE / 4, RATE / 2, semitones(440, keys[i] - 69)) > 0.02;
    CHECK(all, "a chord's three notes all sound");
    MusicDeviceMIDIEvent(sampler, 0xB0, 123, 0, 0);
    render(RATE);
    CHECK(rms(RATE / 2, RATE / 2) < 1e-4, "all notes off ends them (%.6f)", rms(RATE / 2, RATE / 2));
    quiet();

    /* The extended note API, and the tuning and gain parameters. */
    MusicDeviceNoteParams params = {2, 69, 100, {{0, 0}}};
    NoteInstanceID note = 0;
    CHECK_STATUS(AudioUnitSetParameter(sampler, kAUSamplerParam_CoarseTuning, kAudioUnitScope_Global, 0, 12, 0), noErr);
    CHECK_STATUS(MusicDeviceStartNote(sampler, kMusicNoteEvent_UseGroupInstrument, 0, &note, 0, &params), noErr);
    render(RATE);
    double up = level(RATE / 4, RATE / 2, 880), down = level(RATE / 4, RATE / 2, 440);
    CHECK(up > 10 * down, "coarse tuning +12 plays note 69 at 880 Hz (%.3f, %.4f at 440)", up, down);
    CHECK_STATUS(AudioUnitSetParameter(sampler, kAUSamplerParam_Gain, kAudioUnitScope_Global, 0, -6, 0), noErr);
    render(RATE);
    double lowered = level(RATE / 4, RATE / 2, 880);
    CHECK(fabs(20 * log10(lowered / up) + 6) < 0.5, "gain -6 dB lowers it by 6 dB (%.2f)", 20 * log10(lowered / up));
    CHECK_STATUS(MusicDeviceStopNote(sampler, 0, note, 0), noErr);
    render(RATE);
    CHECK(rms(RATE / 2, RATE / 2) < 1e-4, "MusicDeviceStopNote ends it");
    AudioUnitSetParameter(sampler, kAUSamplerParam_CoarseTuning, kAudioUnitScope_Global, 0, 0, 0);
    AudioUnitSetParameter(sampler, kAUSamplerParam_Gain, kAudioUnitScope_Global, 0, 0, 0);
    quiet();
}

/* ---- audio files --------------------------------------------------------------------- */

/* A mono 16-bit WAVE of a sine at `hz`, with a 'smpl' chunk naming `root` if it is >= 0. */
static void writeWave(const char *path, double hz, int root)
{
    enum { FRAMES = RATE };
    FILE *f = fopen(path, "wb");
    if (!f) return;
    UInt32 dataBytes = FRAMES * 2, smplBytes = root >= 0 ? 36 : 0;
    UInt32 riff = 4 + 24 + 8 + dataBytes + (smplBytes ? 8 + smplBytes : 0);
    UInt32 u32;
    UInt16 u16;
#define PUT32(v) (u32 = (v), fwrite(&u32, 4, 1, f))
#define PUT16(v) (u16 = (v), fwrite(&u16, 2, 1, f))
    fwrite("RIFF", 1, 4, f); PUT32(riff); fwrite("WAVE", 1, 4, f);
    fwrite("fmt ", 1, 4, f); PUT32(16); PUT16(1); PUT16(1); PUT32(RATE); PUT32(RATE * 2); PUT16(2); PUT16(16);
    if (root >= 0) {
        fwrite("smpl", 1, 4, f); PUT32(smplBytes);
        PUT32(0); PUT32(0); PUT32(1000000000 / RATE); PUT32((UInt32)root); PUT32(0); PUT32(0); PUT32(0); PUT32(0); PUT32(0);
    }
    fwrite("data", 1, 4, f); PUT32(dataBytes);
    for (long i = 0; i < FRAMES; i++) {
        double fade = i > FRAMES - 441 ? (FRAMES - i) / 441.0 : 1;
        PUT16((UInt16)(SInt16)lrint(12000 * fade * sin(2 * M_PI * hz * i / RATE)));
    }
#undef PUT32
#undef PUT16
    fclose(f);
}

static CFURLRef fileURL(const char *path)
{
    return CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
}

static void audioFiles(void)
{
    char low[300], high[300];
    snprintf(low, sizeof low, "%s/low.wav", folder);
    snprintf(high, sizeof high, "%s/high.wav", folder);
    writeWave(low, 300, 60);  /* says it is middle C, sounds at 300 Hz */
    writeWave(high, 1000, 84);
    CFURLRef urls[2] = {fileURL(low), fileURL(high)};
    CFArrayRef list = CFArrayCreate(NULL, (const void **)urls, 2, &kCFTypeArrayCallBacks);
    CHECK_STATUS(AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadAudioFiles, kAudioUnitScope_Global, 0, &list,
                                      sizeof list), noErr);
    /* Key 72 is nearer the low file's root (60): an octave up from it, 600 Hz. */
    MusicDeviceMIDIEvent(sampler, 0x90, 72, 100, 0);
    render(RATE);
    double a600 = level(RATE / 8, RATE / 4, 600), a300 = level(RATE / 8, RATE / 4, 300);
    printf("measured: audio files, key 72 from the file rooted at 60: 600 Hz %.3f, 300 Hz %.4f\n", a600, a300);
    CHECK(a600 > 0.05 && a600 > 20 * a300, "a file plays an octave up twelve keys above its root (%.3f, %.4f)", a600, a300);
    MusicDeviceMIDIEvent(sampler, 0x80, 72, 0, 0);
    quiet();
    /* Key 84 is the high file's root: 1000 Hz. */
    MusicDeviceMIDIEvent(sampler, 0x90, 84, 100, 0);
    render(RATE / 2);
    CHECK(level(RATE / 8, RATE / 4, 1000) > 0.05, "the high file at its root sounds as recorded");
    MusicDeviceMIDIEvent(sampler, 0x80, 84, 0, 0);
    quiet();
    CFRelease(list);
    CFRelease(urls[0]);
    CFRelease(urls[1]);
}

/* ---- an .aupreset, as LoadPresetDemo's Trombone ---------------------------------------- */

static void writePreset(const char *path, const char *sample)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
            "<key>Instrument</key><dict><key>Layers</key><array><dict><key>Zones</key><array>"
            "<dict><key>ID</key><integer>1</integer><key>enabled</key><true/><key>loop enabled</key><false/>"
            "<key>max key</key><integer>127</integer><key>min key</key><integer>0</integer>"
            "<key>root key</key><integer>57</integer><key>waveform</key><integer>268435457</integer></dict>"
            "</array></dict></array><key>name</key><string>Test Horn</string></dict>\n"
            "<key>data</key><data>AAAAAAAAAAAAAAAEAAADhAAAAAAAAAOFAAAAAAAAA4YAAAAAAAADhwAAAAA=</data>\n"
            "<key>file-references</key><dict><key>Sample:268435457</key><string>%s</string></dict>\n"
            "<key>manufacturer</key><integer>1634758764</integer><key>name</key><string>Test Horn</string>\n"
            "<key>subtype</key><integer>1935764848</integer><key>type</key><integer>1635085685</integer>\n"
            "<key>version</key><integer>0</integer>\n</dict>\n</plist>\n",
            sample);
    fclose(f);
}

static void preset(void)
{
    /* The sample's path is relative (Sounds/horn.wav), found beside the preset file. */
    char sounds[300], sample[320], path[300];
    snprintf(sounds, sizeof sounds, "%s/Sounds", folder);
    mkdir(sounds, 0700);
    snprintf(sample, sizeof sample, "%s/horn.wav", sounds);
    writeWave(sample, 220, -1);
    snprintf(path, sizeof path, "%s/Horn.aupreset", folder);
    writePreset(path, "Sounds/horn.wav");
    CFURLRef url = fileURL(path);
    AUSamplerInstrumentData data = {url, kInstrumentType_AUPreset, 0, 0, 0};
    CHECK_STATUS(AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument, kAudioUnitScope_Global, 0, &data,
                                      sizeof data), noErr);
    /* Root key 57 is A3: the 220 Hz sample at its root, and an octave up at 69. */
    MusicDeviceMIDIEvent(sampler, 0x90, 69, 100, 0);
    render(RATE / 2);
    double a440 = level(RATE / 8, RATE / 4, 440);
    CHECK(a440 > 0.05, "the preset's zone plays its sample an octave up at 69 (%.3f)", a440);
    MusicDeviceMIDIEvent(sampler, 0x80, 69, 0, 0);
    quiet();
    CFRelease(url);

    /* The same preset read as LoadPresetDemo reads it: a dictionary, through ClassInfo
     * (here with the sample's absolute path). */
    writePreset(path, sample);
    CFURLRef presetURL = fileURL(path);
    CFReadStreamRef stream = CFReadStreamCreateWithFile(NULL, presetURL);
    CFReadStreamOpen(stream);
    CFPropertyListRef list = CFPropertyListCreateWithStream(NULL, stream, 0, kCFPropertyListImmutable, NULL, NULL);
    CFReadStreamClose(stream);
    CFRelease(stream);
    CFRelease(presetURL);
    CHECK(list != NULL, "the .aupreset parses");
    if (!list) return;
    CHECK_STATUS(AudioUnitSetProperty(sampler, kAudioUnitProperty_ClassInfo, kAudioUnitScope_Global, 0, &list, sizeof list),
                 noErr);
    MusicDeviceMIDIEvent(sampler, 0x90, 57, 100, 0);
    render(RATE / 2);
    CHECK(level(RATE / 8, RATE / 4, 220) > 0.05, "through ClassInfo, its root key plays the sample as recorded (%.3f)",
          level(RATE / 8, RATE / 4, 220));
    MusicDeviceMIDIEvent(sampler, 0x80, 57, 0, 0);
    quiet();
    CFRelease(list);
}

/* ---- General MIDI from a SoundFont ----------------------------------------------------- */

static void soundFonts(void)
{
    if (access(soundFont, R_OK) != 0) {
        CHECK(0, "Debian's fluid-soundfont-gm is installed (%s)", soundFont);
        return;
    }
    CFURLRef url = fileURL(soundFont);
    AUSamplerInstrumentData piano = {url, kInstrumentType_SF2Preset, kAUSampler_DefaultMelodicBankMSB,
                                     kAUSampler_DefaultBankLSB, 0};
    CHECK_STATUS(AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument, kAudioUnitScope_Global, 0, &piano,
                                      sizeof piano), noErr);
    MusicDeviceMIDIEvent(sampler, 0x90, 69, 110, 0);
    render(RATE);
    double candidates[] = {semitones(440, -2), semitones(440, -1), 440, semitones(440, 1), semitones(440, 2)};
    double heard = strongest(candidates, 5, RATE / 8);
    printf("measured: the GM piano's note 69 is strongest at %.1f Hz\n", heard);
    CHECK(heard == 440, "the piano's A is at 440 Hz (%.1f)", heard);
    MusicDeviceMIDIEvent(sampler, 0x80, 69, 0, 0);
    quiet();
    /* The percussion bank, as a game loads its drum kit: key 36 is a kick. */
    AUSamplerBankPresetData drums = {url, kAUSampler_DefaultPercussionBankMSB, kAUSampler_DefaultBankLSB, 0, 0};
    CHECK_STATUS(AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadPresetFromBank, kAudioUnitScope_Global, 0, &drums,
                                      sizeof drums), noErr);
    MusicDeviceMIDIEvent(sampler, 0x90, 36, 120, 0);
    render(RATE / 2);
    double kick = rms(0, RATE / 4);
    CHECK(kick > 0.01, "the kick drum sounds (rms %.3f)", kick);
    quiet();
    CFRelease(url);
}

/* ---- the SoundFont path, fuzzed -------------------------------------------------------- */

typedef struct { unsigned char b[16384]; int n; } Bytes;
static void add(Bytes *x, const void *d, int n) { memcpy(x->b + x->n, d, (size_t)n); x->n += n; }
static void le(Bytes *x, unsigned v, int n) { for (int i = 0; i < n; i++) x->b[x->n++] = (unsigned char)(v >> (8 * i)); }
static void name20(Bytes *x, const char *s) { char n[20] = {0}; strncpy(n, s, 19); add(x, n, 20); }
static void chunk(Bytes *x, const char *id, const Bytes *body) { add(x, id, 4); le(x, (unsigned)body->n, 4); add(x, body->b, body->n); }

/* A SoundFont 2 of one preset, one instrument and one sample (a tenth of a second of a
 * 440 Hz sine at 44.1 kHz: 44 whole cycles, looped, at key 69), written from the
 * specification's tables. */
static Bytes smallSoundFont(void)
{
    static Bytes info, sdta, pdta, t, out;
    memset(&info, 0, sizeof info); memset(&sdta, 0, sizeof sdta); memset(&pdta, 0, sizeof pdta); memset(&out, 0, sizeof out);
    add(&info, "INFO", 4);
    memset(&t, 0, sizeof t); le(&t, 2, 2); le(&t, 1, 2); chunk(&info, "ifil", &t);
    memset(&t, 0, sizeof t); add(&t, "EMU8000\0", 8); chunk(&info, "isng", &t);
    memset(&t, 0, sizeof t); add(&t, "Fuzz\0\0", 6); chunk(&info, "INAM", &t);
    add(&sdta, "sdta", 4);
    memset(&t, 0, sizeof t);
    for (int i = 0; i < 4410; i++) le(&t, (unsigned)(SInt16)lrint(12000 * sin(2 * M_PI * 440 * i / 44100.0)), 2);
    for (int i = 0; i < 46; i++) le(&t, 0, 2);
    chunk(&sdta, "smpl", &t);
    add(&pdta, "pdta", 4);
    memset(&t, 0, sizeof t); name20(&t, "Sine"); le(&t, 0, 2); le(&t, 0, 2); le(&t, 0, 2); le(&t, 0, 4); le(&t, 0, 4); le(&t, 0, 4);
    name20(&t, "EOP"); le(&t, 0, 2); le(&t, 0, 2); le(&t, 1, 2); le(&t, 0, 4); le(&t, 0, 4); le(&t, 0, 4); chunk(&pdta, "phdr", &t);
    memset(&t, 0, sizeof t); le(&t, 0, 2); le(&t, 0, 2); le(&t, 1, 2); le(&t, 0, 2); chunk(&pdta, "pbag", &t);
    memset(&t, 0, sizeof t); for (int i = 0; i < 10; i++) le(&t, 0, 1); chunk(&pdta, "pmod", &t);
    memset(&t, 0, sizeof t); le(&t, 41, 2); le(&t, 0, 2); le(&t, 0, 2); le(&t, 0, 2); chunk(&pdta, "pgen", &t);
    memset(&t, 0, sizeof t); name20(&t, "Sine"); le(&t, 0, 2); name20(&t, "EOI"); le(&t, 1, 2); chunk(&pdta, "inst", &t);
    memset(&t, 0, sizeof t); le(&t, 0, 2); le(&t, 0, 2); le(&t, 3, 2); le(&t, 0, 2); chunk(&pdta, "ibag", &t);
    memset(&t, 0, sizeof t); for (int i = 0; i < 10; i++) le(&t, 0, 1); chunk(&pdta, "imod", &t);
    memset(&t, 0, sizeof t); le(&t, 54, 2); le(&t, 1, 2); le(&t, 58, 2); le(&t, 69, 2); le(&t, 53, 2); le(&t, 0, 2);
    le(&t, 0, 2); le(&t, 0, 2); chunk(&pdta, "igen", &t);
    memset(&t, 0, sizeof t); name20(&t, "Sine"); le(&t, 0, 4); le(&t, 4410, 4); le(&t, 0, 4); le(&t, 4410, 4); le(&t, 44100, 4);
    le(&t, 69, 1); le(&t, 0, 1); le(&t, 0, 2); le(&t, 1, 2);
    name20(&t, "EOS"); for (int i = 0; i < 26; i++) le(&t, 0, 1); chunk(&pdta, "shdr", &t);
    static Bytes body;
    memset(&body, 0, sizeof body);
    add(&body, "sfbk", 4);
    chunk(&body, "LIST", &info);
    chunk(&body, "LIST", &sdta);
    chunk(&body, "LIST", &pdta);
    chunk(&out, "RIFF", &body);
    return out;
}

static OSStatus loadFont(const Bytes *font, const char *file)
{
    FILE *f = fopen(file, "wb");
    fwrite(font->b, 1, (size_t)font->n, f);
    fclose(f);
    CFURLRef url = fileURL(file);
    AUSamplerInstrumentData data = {url, kInstrumentType_SF2Preset, kAUSampler_DefaultMelodicBankMSB, 0, 0};
    OSStatus status = AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument, kAudioUnitScope_Global, 0, &data,
                                           sizeof data);
    CFRelease(url);
    return status;
}

static void fuzzSoundFonts(void)
{
    Bytes good = smallSoundFont();
    char file[320];
    int loaded = 0, refused = 0;
    unsigned seed = 777;
    for (int round = 0; round < 400; round++) {
        Bytes b = good;
        snprintf(file, sizeof file, "%s/fuzz-%d.sf2", folder, round);
        for (int c = 0; c < 1 + round % 6; c++) {
            seed = seed * 1664525u + 1013904223u;
            b.b[(seed >> 8) % (unsigned)b.n] = (unsigned char)(seed >> 24);
        }
        if (round % 7 == 0) b.n = (int)((seed >> 3) % (unsigned)b.n);
        if (loadFont(&b, file) == noErr) {
            loaded++;
            MusicDeviceMIDIEvent(sampler, 0x90, 69, 100, 0);
            render(SLICE * 4);
            MusicDeviceMIDIEvent(sampler, 0xB0, 123, 0, 0);
        } else {
            refused++;
        }
        unlink(file);
    }
    printf("measured: SoundFont fuzz, 400 mutated fonts: %d loaded, %d refused, no crash\n", loaded, refused);
    CHECK(loaded > 0 && refused > 0, "some mutated fonts load, some are refused");
    /* The font unmutated plays its sine at its root key. */
    snprintf(file, sizeof file, "%s/good.sf2", folder);
    CHECK_STATUS(loadFont(&good, file), noErr);
    MusicDeviceMIDIEvent(sampler, 0x90, 81, 100, 0);
    render(RATE / 2);
    CHECK(level(RATE / 8, RATE / 4, 880) > 0.05, "the small SoundFont plays an octave up at key 81 (%.3f)",
          level(RATE / 8, RATE / 4, 880));
    quiet();
    unlink(file);
}

/* ---- bad inputs ------------------------------------------------------------------------ */

static void badInputs(void)
{
    AudioUnit fresh = NULL, rio = NULL;
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &samplerDescription), &fresh), noErr);
    CHECK_STATUS(AudioComponentInstanceNew(AudioComponentFindNext(NULL, &rioDescription), &rio), noErr);
    char missing[300], text[300];
    snprintf(missing, sizeof missing, "%s/nothing-here.sf2", folder);
    snprintf(text, sizeof text, "%s/not-a-font.sf2", folder);
    FILE *f = fopen(text, "w");
    if (f) { fputs("this is not a SoundFont\n", f); fclose(f); }
    CFURLRef missingURL = fileURL(missing), textURL = fileURL(text), fontURL = fileURL(soundFont);
    AUSamplerInstrumentData gone = {missingURL, kInstrumentType_SF2Preset, kAUSampler_DefaultMelodicBankMSB, 0, 0};
    AUSamplerInstrumentData garbage = {textURL, kInstrumentType_SF2Preset, kAUSampler_DefaultMelodicBankMSB, 0, 0};
    AUSamplerInstrumentData noPreset = {fontURL, kInstrumentType_SF2Preset, 5, 0, 99};
    AUSamplerInstrumentData exs = {fontURL, kInstrumentType_EXS24, 0, 0, 0};
    AUSamplerInstrumentData nothing = {NULL, kInstrumentType_SF2Preset, 0, 0, 0};
    UInt8 longSysEx[40] = {0xF0};
    longSysEx[39] = 0xF7;
    MusicDeviceNoteParams params = {2, 60, 100, {{0, 0}}};
    NoteInstanceID note = 0;
    struct { const char *what; OSStatus got, want; } table[] = {
        {"MIDI before Initialize", MusicDeviceMIDIEvent(fresh, 0x90, 60, 100, 0), kAudioUnitErr_Uninitialized},
        {"MIDI to RemoteIO", MusicDeviceMIDIEvent(rio, 0x90, 60, 100, 0), kAudioUnitErr_InvalidProperty},
        {"a data byte as status", MusicDeviceMIDIEvent(sampler, 0x40, 60, 100, 0), kAudio_ParamError},
        {"a 40-byte SysEx", MusicDeviceSysEx(sampler, longSysEx, sizeof longSysEx), kAudio_ParamError},
        {"a NULL SysEx", MusicDeviceSysEx(sampler, NULL, 6), kAudio_ParamError},
        {"StartNote on group 16", MusicDeviceStartNote(sampler, 0, 16, &note, 0, &params), kAudioUnitErr_InvalidElement},
        {"StartNote without parameters", MusicDeviceStartNote(sampler, 0, 0, &note, 0, NULL), kAudio_ParamError},
        {"a missing SoundFont", AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument, kAudioUnitScope_Global, 0,
                                                     &gone, sizeof gone), -43 /* fnfErr */},
        {"a text file as a SoundFont", AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument,
                                                            kAudioUnitScope_Global, 0, &garbage, sizeof garbage),
         kAudioUnitErr_InvalidFile},
        {"a preset the font lacks", AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument, kAudioUnitScope_Global,
                                                         0, &noPreset, sizeof noPreset), kAudioUnitErr_InvalidPropertyValue},
        {"an EXS24 instrument", AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument, kAudioUnitScope_Global, 0,
                                                     &exs, sizeof exs), kAudioUnitErr_InstrumentTypeNotFound},
        {"a NULL URL", AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument, kAudioUnitScope_Global, 0, &nothing,
                                            sizeof nothing), kAudioUnitErr_InvalidPropertyValue},
        {"LoadInstrument of the wrong size", AudioUnitSetProperty(sampler, kAUSamplerProperty_LoadInstrument,
                                                                  kAudioUnitScope_Global, 0, &gone, 8),
         kAudioUnitErr_InvalidPropertyValue},
        {"LoadInstrument on RemoteIO", AudioUnitSetProperty(rio, kAUSamplerProperty_LoadInstrument, kAudioUnitScope_Global, 0,
                                                            &gone, sizeof gone), kAudioUnitErr_InvalidProperty},
        {"an unknown sampler parameter", AudioUnitSetParameter(sampler, 904, kAudioUnitScope_Global, 0, 1, 0),
         kAudioUnitErr_InvalidParameter},
        {"a render callback on the sampler", AudioUnitSetProperty(sampler, kAudioUnitProperty_SetRenderCallback,
                                                                  kAudioUnitScope_Input, 0, &(AURenderCallbackStruct){0, 0},
                                                                  sizeof(AURenderCallbackStruct)), kAudioUnitErr_InvalidElement},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        CHECK(table[i].got == table[i].want, "%s: %d (want %d)", table[i].what, (int)table[i].got, (int)table[i].want);
    /* After the refusals the sampler still plays what it had (the drum kit). */
    MusicDeviceMIDIEvent(sampler, 0x90, 36, 120, 0);
    render(RATE / 2);
    CHECK(rms(0, RATE / 4) > 0.01, "after the refusals the loaded kit still plays");
    quiet();
    CFRelease(missingURL);
    CFRelease(textURL);
    CFRelease(fontURL);
    CHECK_STATUS(AudioComponentInstanceDispose(fresh), noErr);
    CHECK_STATUS(AudioComponentInstanceDispose(rio), noErr);
}

/* ---- live ---------------------------------------------------------------------------- */

static void live(void)
{
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    CHECK_STATUS(AudioSessionInitialize(NULL, NULL, NULL, NULL), noErr);
    CHECK_STATUS(AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category), noErr);
    if (worldOnCard()) worldRun("vcard %s", "record-reset");
    AUGraph g = NULL;
    AUNode io = 0, node = 0;
    AudioUnit unit = NULL;
    CHECK_STATUS(NewAUGraph(&g), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &samplerDescription, &node), noErr);
    CHECK_STATUS(AUGraphAddNode(g, &rioDescription, &io), noErr);
    CHECK_STATUS(AUGraphOpen(g), noErr);
    CHECK_STATUS(AUGraphNodeInfo(g, node, NULL, &unit), noErr);
    CHECK_STATUS(AUGraphConnectNodeInput(g, node, 0, io, 0), noErr);
    CHECK_STATUS(AUGraphInitialize(g), noErr);
    CHECK_STATUS(AUGraphStart(g), noErr);
    CHECK_STATUS(MusicDeviceMIDIEvent(unit, 0x90, 69, 110, 0), noErr);
    usleep(1200000);
    CHECK_STATUS(MusicDeviceMIDIEvent(unit, 0x80, 69, 0, 0), noErr);
    usleep(100000);
    CHECK_STATUS(AUGraphStop(g), noErr);
    if (worldOnCard()) {
        long frames = 0;
        short *heard = worldCardRecording(&frames);
        int rate = worldCardRate();
        long first = -1;
        for (long i = 0; heard && i < frames; i++) if (abs(heard[2 * i]) > 300) { first = i; break; }
        double a440 = 0, a466 = 0;
        long window = rate / 2;
        if (first >= 0 && first + rate / 4 + window < frames) {
            float *mono = calloc((size_t)window, sizeof *mono);
            for (long i = 0; i < window; i++) mono[i] = heard[2 * (first + rate / 4 + i)] / 32768.0f;
            a440 = amplitudeAt(mono, window, 440, rate);
            a466 = amplitudeAt(mono, window, 466.16, rate);
            free(mono);
        }
        printf("measured: the card heard the sampler's note 69: 440 Hz %.3f, 466 Hz %.4f\n", a440, a466);
        CHECK(a440 > 0.05 && a440 > 20 * a466, "the card hears A440 (%.3f, %.4f)", a440, a466);
        free(heard);
    }
    CHECK_STATUS(DisposeAUGraph(g), noErr);
}

int main(void)
{
    installWatchdog("sampler");
    alarm(180);
    snprintf(folder, sizeof folder, "%s/sampler-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(folder)) return 1;
    buildGraph();
    defaultSine();
    audioFiles();
    preset();
    fuzzSoundFonts();
    soundFonts();
    badInputs();
    CHECK_STATUS(DisposeAUGraph(graph), noErr);
    live();
    char command[400];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) printf("could not remove %s\n", folder);
    return worldFinish("test_sampler");
}
