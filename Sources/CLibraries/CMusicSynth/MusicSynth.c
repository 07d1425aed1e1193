#define _GNU_SOURCE
/* MusicSynth.h: FluidSynth's functions through pointers of their own declared types,
 * resolved once from its Debian SONAME. */
#include "MusicSynth.h"
#include <dlfcn.h>
#include <fluidsynth.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUNCTIONS(X) \
    X(new_fluid_settings) X(delete_fluid_settings) X(fluid_settings_setnum) X(fluid_settings_setint) \
    X(fluid_settings_setstr) X(new_fluid_synth) X(delete_fluid_synth) X(fluid_synth_sfload) X(fluid_synth_sfunload) \
    X(fluid_synth_get_sfont_by_id) X(fluid_synth_add_sfont) X(fluid_synth_remove_sfont) X(fluid_sfont_get_id) \
    X(fluid_sfont_get_preset) X(fluid_synth_program_select) X(fluid_synth_noteon) X(fluid_synth_noteoff) \
    X(fluid_synth_cc) X(fluid_synth_pitch_bend) X(fluid_synth_program_change) X(fluid_synth_channel_pressure) \
    X(fluid_synth_key_pressure) X(fluid_synth_all_notes_off) X(fluid_synth_all_sounds_off) X(fluid_synth_sysex) \
    X(fluid_synth_set_gen) X(fluid_synth_write_float) X(fluid_synth_get_active_voice_count) X(fluid_set_log_function)

#define POINTER(name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)

static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void quiet(int level, const char *message, void *data) { (void)level; (void)message; (void)data; }

static void resolve(void) {
    /* Never closed: synthesizers and fonts may live as long as the program. */
    void *library = dlopen("libfluidsynth.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    loaded = 1;
#define RESOLVE(name) p_##name = (__typeof__(name) *)dlsym(library, #name); loaded = loaded && p_##name;
    FUNCTIONS(RESOLVE)
    if (!loaded) return;
    /* Its messages are not ours to print: a bad file is reported by the result. */
    for (int level = FLUID_PANIC; level <= FLUID_DBG; level++) p_fluid_set_log_function(level, quiet, NULL);
}

int MusicSynthAvailable(void) {
    pthread_once(&once, resolve);
    return loaded;
}

/* ---- fonts: loaded once into a synthesizer that never plays, lent to the others ---- */

struct MusicFont {
    char *path;
    fluid_sfont_t *sfont;
    int users;
    MusicFont *next;
};

static pthread_mutex_t fontLock = PTHREAD_MUTEX_INITIALIZER;
static fluid_synth_t *holder;
static MusicFont *fonts;

static fluid_settings_t *settingsFor(double rate, int polyphony, double gain) {
    fluid_settings_t *settings = p_new_fluid_settings();
    if (!settings) return NULL;
    p_fluid_settings_setnum(settings, "synth.sample-rate", rate);
    p_fluid_settings_setint(settings, "synth.polyphony", polyphony);
    p_fluid_settings_setnum(settings, "synth.gain", gain);
    p_fluid_settings_setint(settings, "synth.threadsafe-api", 0);
    p_fluid_settings_setint(settings, "synth.cpu-cores", 1);
    p_fluid_settings_setint(settings, "synth.midi-channels", 16);
    p_fluid_settings_setint(settings, "synth.dynamic-sample-loading", 0);
    p_fluid_settings_setstr(settings, "synth.midi-bank-select", "gs");
    /* No reverb or chorus of FluidSynth's: the phone's sampler adds none, and Debian's
     * FluidSynth runs them in an OpenMP region, which allocates on every render (effect
     * units do that job, in a graph). */
    p_fluid_settings_setint(settings, "synth.reverb.active", 0);
    p_fluid_settings_setint(settings, "synth.chorus.active", 0);
    return settings;
}

/* Whether the file starts as a SoundFont does (RIFF ... sfbk): anything else (a DLS bank,
 * a text file) is refused before FluidSynth's loaders try it and print their complaints. */
static int looksLikeSoundFont(const char *path) {
    unsigned char head[12];
    FILE *file = fopen(path, "rb");
    if (!file) return 0;
    size_t count = fread(head, 1, sizeof head, file);
    fclose(file);
    return count == sizeof head && memcmp(head, "RIFF", 4) == 0 && memcmp(head + 8, "sfbk", 4) == 0;
}

static MusicFont *load(const char *path, int shared) {
    if (!path || !MusicSynthAvailable() || !looksLikeSoundFont(path)) return NULL;
    pthread_mutex_lock(&fontLock);
    MusicFont *font = shared ? fonts : NULL;
    while (font && strcmp(font->path, path) != 0) font = font->next;
    if (font) {
        font->users++;
        pthread_mutex_unlock(&fontLock);
        return font;
    }
    if (!holder) {
        fluid_settings_t *settings = settingsFor(44100, 16, 0.2);
        holder = settings ? p_new_fluid_synth(settings) : NULL;
        /* The settings stay with the holder, which is never deleted. */
    }
    int id = holder ? p_fluid_synth_sfload(holder, path, 0) : FLUID_FAILED;
    fluid_sfont_t *sfont = id == FLUID_FAILED ? NULL : p_fluid_synth_get_sfont_by_id(holder, id);
    if (sfont) {
        font = calloc(1, sizeof *font);
        /* A private font is never found by path: its path names a descriptor that a later
         * font may reuse. */
        if (font) font->path = strdup(shared ? path : "");
        if (font && font->path) {
            font->sfont = sfont;
            font->users = 1;
            font->next = fonts;
            fonts = font;
        } else {
            if (font) free(font);
            font = NULL;
            p_fluid_synth_sfunload(holder, id, 0);
        }
    }
    pthread_mutex_unlock(&fontLock);
    return font;
}

MusicFont *MusicFontLoad(const char *path) { return load(path, 1); }

MusicFont *MusicFontLoadBytes(const void *bytes, size_t length) {
    int fd = memfd_create("audiotoolbox-instrument", MFD_CLOEXEC);
    if (fd < 0) return NULL;
    MusicFont *font = NULL;
    if (write(fd, bytes, length) == (ssize_t)length) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        font = load(path, 0);
    }
    close(fd);
    return font;
}

void MusicFontRelease(MusicFont *font) {
    if (!font) return;
    pthread_mutex_lock(&fontLock);
    if (--font->users == 0) {
        MusicFont **link = &fonts;
        while (*link != font) link = &(*link)->next;
        *link = font->next;
        /* Adding a font to a synthesizer renumbers it (each of ours adds one, so it reads
         * 1), and an ID read at loading may name another font by now: the font is taken
         * out of the holder by its address and added back, which gives it a number no
         * other font has, and unloaded by that. */
        p_fluid_synth_remove_sfont(holder, font->sfont);
        int id = p_fluid_synth_add_sfont(holder, font->sfont);
        if (id != FLUID_FAILED) p_fluid_synth_sfunload(holder, id, 0);
        free(font->path);
        free(font);
    }
    pthread_mutex_unlock(&fontLock);
}

int MusicFontHasPreset(MusicFont *font, int bank, int program) {
    return font && p_fluid_sfont_get_preset(font->sfont, bank, program) != NULL;
}

/* ---- synthesizers ---- */

enum { MOST_FONTS = 4 };

struct MusicSynth {
    fluid_settings_t *settings;
    fluid_synth_t *synth;
    MusicFont *fonts[MOST_FONTS];
    int fontCount;
};

MusicSynth *MusicSynthNew(double rate, int polyphony, double gain) {
    if (!MusicSynthAvailable()) return NULL;
    MusicSynth *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->settings = settingsFor(rate, polyphony, gain);
    s->synth = s->settings ? p_new_fluid_synth(s->settings) : NULL;
    if (!s->synth) {
        if (s->settings) p_delete_fluid_settings(s->settings);
        free(s);
        return NULL;
    }
    return s;
}

int MusicSynthUseFont(MusicSynth *s, MusicFont *font) {
    if (!s || !font || s->fontCount == MOST_FONTS) return -1;
    pthread_mutex_lock(&fontLock);
    font->users++;
    pthread_mutex_unlock(&fontLock);
    /* Adding gives the font this synthesizer's next ID; the font's own ID is read back
     * where a preset is selected. */
    if (p_fluid_synth_add_sfont(s->synth, font->sfont) == FLUID_FAILED) {
        MusicFontRelease(font);
        return -1;
    }
    s->fonts[s->fontCount++] = font;
    return 0;
}

int MusicSynthSelect(MusicSynth *s, int channel, int bank, int program) {
    if (!s || s->fontCount == 0) return -1;
    fluid_sfont_t *sfont = s->fonts[s->fontCount - 1]->sfont;
    return p_fluid_synth_program_select(s->synth, channel, p_fluid_sfont_get_id(sfont), bank, program) == FLUID_OK ? 0 : -1;
}

void MusicSynthDelete(MusicSynth *s) {
    if (!s) return;
    /* The fonts are lent: taken back before the synthesizer, which would free them. */
    for (int i = s->fontCount - 1; i >= 0; i--) p_fluid_synth_remove_sfont(s->synth, s->fonts[i]->sfont);
    p_delete_fluid_synth(s->synth);
    p_delete_fluid_settings(s->settings);
    for (int i = 0; i < s->fontCount; i++) MusicFontRelease(s->fonts[i]);
    free(s);
}

void MusicSynthNoteOn(MusicSynth *s, int channel, int key, int velocity) {
    if (velocity == 0) p_fluid_synth_noteoff(s->synth, channel, key);
    else p_fluid_synth_noteon(s->synth, channel, key, velocity);
}
void MusicSynthNoteOff(MusicSynth *s, int channel, int key) { p_fluid_synth_noteoff(s->synth, channel, key); }
void MusicSynthControl(MusicSynth *s, int channel, int controller, int value) {
    p_fluid_synth_cc(s->synth, channel, controller, value);
}
void MusicSynthPitchBend(MusicSynth *s, int channel, int value) { p_fluid_synth_pitch_bend(s->synth, channel, value); }
void MusicSynthProgramChange(MusicSynth *s, int channel, int program) {
    p_fluid_synth_program_change(s->synth, channel, program);
}
void MusicSynthChannelPressure(MusicSynth *s, int channel, int value) {
    p_fluid_synth_channel_pressure(s->synth, channel, value);
}
void MusicSynthKeyPressure(MusicSynth *s, int channel, int key, int value) {
    p_fluid_synth_key_pressure(s->synth, channel, key, value);
}
void MusicSynthAllNotesOff(MusicSynth *s, int channel) { p_fluid_synth_all_notes_off(s->synth, channel); }
void MusicSynthAllSoundsOff(MusicSynth *s, int channel) { p_fluid_synth_all_sounds_off(s->synth, channel); }
void MusicSynthSysEx(MusicSynth *s, const unsigned char *data, int length) {
    /* FluidSynth takes the message without its F0 and F7. */
    if (length >= 2 && data[0] == 0xF0) { data++; length--; }
    if (length >= 1 && data[length - 1] == 0xF7) length--;
    if (length > 0) p_fluid_synth_sysex(s->synth, (const char *)data, length, NULL, NULL, NULL, 0);
}
void MusicSynthTune(MusicSynth *s, float semitones, float cents) {
    for (int channel = 0; channel < 16; channel++) {
        p_fluid_synth_set_gen(s->synth, channel, GEN_COARSETUNE, semitones);
        p_fluid_synth_set_gen(s->synth, channel, GEN_FINETUNE, cents);
    }
}
void MusicSynthRender(MusicSynth *s, int frames, float *left, float *right) {
    p_fluid_synth_write_float(s->synth, frames, left, 0, 1, right, 0, 1);
}
int MusicSynthActiveVoices(MusicSynth *s) { return p_fluid_synth_get_active_voice_count(s->synth); }
