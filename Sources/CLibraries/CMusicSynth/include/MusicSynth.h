/* MusicSynth.h: FluidSynth (Debian's libfluidsynth3) for the sampler and the music
 * player's synthesizer, opened on first use as the codecs are. SoundFonts are loaded once
 * per process by path and shared by every synthesizer that plays them; a synthesizer is
 * made per sampler instance and is only ever called from one thread at a time (its
 * render), so FluidSynth's own locking is off. */
#ifndef MUSIC_SYNTH_H
#define MUSIC_SYNTH_H

#include <stddef.h>

typedef struct MusicSynth MusicSynth;
typedef struct MusicFont MusicFont;

/* 1 if libfluidsynth could be opened. */
int MusicSynthAvailable(void);

/* The font at `path`, loaded (fully, into memory) on its first use and shared after;
 * NULL if the library is missing or the file is not a SoundFont it can read. */
MusicFont *MusicFontLoad(const char *path);
/* A font built by the library (from audio files or zones): written to a file in memory
 * and loaded from it, shared with no other load. NULL if it cannot be read. */
MusicFont *MusicFontLoadBytes(const void *bytes, size_t length);
void MusicFontRelease(MusicFont *font);
/* 1 if the font has the preset (bank 128 is percussion). */
int MusicFontHasPreset(MusicFont *font, int bank, int program);

/* A synthesizer at `rate` with room for `polyphony` voices and 16 channels, its output
 * scaled by `gain`. It renders in blocks of 64 frames: an event takes effect at the
 * block boundary after it (within 1.5 ms at 44.1 kHz). */
MusicSynth *MusicSynthNew(double rate, int polyphony, double gain);
/* Plays `font` (the synthesizer holds it until deleted); 0 on success. */
int MusicSynthUseFont(MusicSynth *synth, MusicFont *font);
/* Selects the font's preset on a channel; 0 on success. */
int MusicSynthSelect(MusicSynth *synth, int channel, int bank, int program);
void MusicSynthDelete(MusicSynth *synth);

void MusicSynthNoteOn(MusicSynth *synth, int channel, int key, int velocity);
void MusicSynthNoteOff(MusicSynth *synth, int channel, int key);
void MusicSynthControl(MusicSynth *synth, int channel, int controller, int value);
void MusicSynthPitchBend(MusicSynth *synth, int channel, int value);
void MusicSynthProgramChange(MusicSynth *synth, int channel, int program);
void MusicSynthChannelPressure(MusicSynth *synth, int channel, int value);
void MusicSynthKeyPressure(MusicSynth *synth, int channel, int key, int value);
void MusicSynthAllNotesOff(MusicSynth *synth, int channel);
void MusicSynthAllSoundsOff(MusicSynth *synth, int channel);
void MusicSynthSysEx(MusicSynth *synth, const unsigned char *data, int length);
/* Transposes every channel by `semitones` and `cents`. */
void MusicSynthTune(MusicSynth *synth, float semitones, float cents);
/* `frames` frames of the two sides, added to nothing (overwritten). */
void MusicSynthRender(MusicSynth *synth, int frames, float *left, float *right);
int MusicSynthActiveVoices(MusicSynth *synth);

#endif
