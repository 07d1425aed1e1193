/*
 * vcard — drive the AudioToolbox virtual ALSA card from outside the program under test.
 *
 *   vcard setup [DIR]          create the card's state and ALSA configuration in DIR and
 *                              print the environment a program needs to use it
 *   vcard plug PORT            PORT: headphones, headset, mic, lineout, linein, hdmi,
 *                              front-headphones, front-mic (a desktop's front panel)
 *   vcard unplug PORT
 *   vcard volume V             playback volume as a 0..1 slider position (alsamixer scale)
 *   vcard capture-volume V
 *   vcard capture on|off       whether the card has a capture device at all
 *   vcard rates R1,R2,...      sample rates the PCM accepts (1 to 8)
 *   vcard periods MIN,MAX      period sizes the PCM accepts, in frames
 *   vcard remove | insert      unplug the whole card (a USB card pulled out) or put it back
 *   vcard exclusive on|off     one opener per PCM direction at a time, as a hw:N device:
 *                              a second non-blocking open gets EBUSY, a blocking one waits
 *   vcard show                 print the state
 *   vcard status               print the playback recording's length and rate:
 *                              "recording FRAMES frames rate RATE" (rate "none" before any)
 *   vcard record-reset         empty the playback recording
 *   vcard capture-signal silence | tone HZ LEVEL | echo DELAY_MS GAIN [HZ LEVEL]
 *                              what the capture PCM hears (at its own clock's pace):
 *                              silence, a tone (LEVEL: amplitude, 0..1 of full scale),
 *                              or an echo of what the playback PCM played DELAY_MS
 *                              before, scaled by GAIN (0..1), plus a near-end tone
 *
 * The card is found through $VCARD_DIR (set by the output of `vcard setup`).
 * Running programs see each change as ALSA control events.
 *
 * The playback PCM plays in real time and appends every frame it plays (16-bit stereo
 * little-endian) to $VCARD_DIR/state.playback.raw, across streams and programs, until
 * `vcard record-reset` (or `vcard setup`) empties it; $VCARD_DIR/state.playback.rate
 * holds the rate of the last stream that played, as text.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vcard_state.h"
#include "volume_mapping.h"

#ifndef VCARD_PLUGIN_DIR
#error "VCARD_PLUGIN_DIR must name the directory of the vcard ALSA plugins"
#endif

static int usage(void)
{
    fputs("usage: vcard setup [DIR] | plug PORT | unplug PORT | volume V | capture-volume V |\n"
          "             capture on|off | rates R1,R2,... | periods MIN,MAX | remove | insert |\n"
          "             exclusive on|off | show | status | record-reset |\n"
          "             capture-signal silence | tone HZ LEVEL | echo DELAY_MS GAIN [HZ LEVEL]\n"
          "PORT: headphones headset mic lineout linein hdmi front-headphones front-mic\n", stderr);
    return 2;
}

static const char *cardDirectory(void)
{
    const char *dir = getenv("VCARD_DIR");
    if (!dir || !*dir) {
        fputs("vcard: VCARD_DIR is not set (run: eval \"$(vcard setup)\")\n", stderr);
        exit(1);
    }
    return dir;
}

static int statePath(char *path, size_t size, const char *dir)
{
    return snprintf(path, size, "%s/state", dir) < (int)size ? 0 : -1;
}

/* The files the playback PCM writes next to the state (see pcm_vcard.c). */
#define RECORDING_SUFFIX ".playback.raw"
#define RATE_SUFFIX ".playback.rate"
#define RECORDING_BYTES_PER_FRAME 4

static void cardFile(char *path, size_t size, const char *dir, const char *suffix)
{
    snprintf(path, size, "%s/state%s", dir, suffix);
}

/* Empties the recording in place: a stream playing now appends (O_APPEND) from 0 on. */
static int resetRecording(const char *dir)
{
    char path[4200];
    cardFile(path, sizeof path, dir, RECORDING_SUFFIX);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        fprintf(stderr, "vcard: cannot empty %s: %s\n", path, strerror(errno));
        return -1;
    }
    close(fd);
    /* The playback's last start no longer says where its frames are in the recording:
       the echo is silent until the next start. */
    cardFile(path, sizeof path, dir, ".playback.origin");
    unlink(path);
    /* And the count of starts begins again. */
    cardFile(path, sizeof path, dir, ".playback.starts");
    unlink(path);
    return 0;
}

static int printStatus(const char *dir)
{
    char path[4200];
    cardFile(path, sizeof path, dir, RECORDING_SUFFIX);
    struct stat info;
    long long frames = stat(path, &info) == 0 ? (long long)info.st_size / RECORDING_BYTES_PER_FRAME : 0;
    cardFile(path, sizeof path, dir, RATE_SUFFIX);
    unsigned rate = 0;
    FILE *file = fopen(path, "r");
    if (file) {
        if (fscanf(file, "%u", &rate) != 1) rate = 0;
        fclose(file);
    }
    if (rate) printf("recording %lld frames rate %u\n", frames, rate);
    else printf("recording %lld frames rate none\n", frames);
    return 0;
}

static int loadState(VCardState *state)
{
    char path[4096];
    statePath(path, sizeof path, cardDirectory());
    int fd = open(path, O_RDONLY);
    if (fd < 0 || vcardReadState(fd, state) < 0) {
        fprintf(stderr, "vcard: cannot read %s\n", path);
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

/* Written in place with one pwrite: the plugins' inotify watches see IN_MODIFY. */
static int saveState(const VCardState *state, const char *dir)
{
    char path[4096];
    statePath(path, sizeof path, dir);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0 || pwrite(fd, state, sizeof *state, 0) != (ssize_t)sizeof *state) {
        fprintf(stderr, "vcard: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

static int setup(const char *dir)
{
    char defaultDir[4096];
    if (!dir) {
        const char *runtime = getenv("XDG_RUNTIME_DIR");
        snprintf(defaultDir, sizeof defaultDir, "%s/audiotoolbox-vcard-%d", runtime && *runtime ? runtime : "/tmp",
                 (int)getuid());
        dir = defaultDir;
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) { perror(dir); return 1; }
    char absolute[4096];
    if (!realpath(dir, absolute)) { perror(dir); return 1; }
    VCardState state;
    vcardDefaultState(&state);
    if (saveState(&state, absolute) < 0) return 1;
    /* A new card starts with an empty recording. */
    if (resetRecording(absolute) < 0) return 1;
    char ratePath[4200];
    cardFile(ratePath, sizeof ratePath, absolute, RATE_SUFFIX);
    unlink(ratePath);

    char confPath[4200];
    snprintf(confPath, sizeof confPath, "%s/asound.conf", absolute);
    FILE *conf = fopen(confPath, "w");
    if (!conf) { perror(confPath); return 1; }
    fprintf(conf,
            "# Generated by `vcard setup`: the system configuration, then the virtual card as default.\n"
            "</usr/share/alsa/alsa.conf>\n"
            "pcm_type.vcard { lib \"%s/libasound_module_pcm_vcard.so\" }\n"
            "ctl_type.vcard { lib \"%s/libasound_module_ctl_vcard.so\" }\n"
            "pcm.vcard { type vcard state \"%s/state\" }\n"
            "ctl.vcard { type vcard state \"%s/state\" }\n"
            "# The same card's mixer without jacks, as a sound server's control device shows it.\n"
            "ctl.vcardmixer { type vcard state \"%s/state\" jacks false }\n"
            "pcm.!default pcm.vcard\n"
            "ctl.!default ctl.vcard\n",
            VCARD_PLUGIN_DIR, VCARD_PLUGIN_DIR, absolute, absolute, absolute);
    fclose(conf);
    printf("export VCARD_DIR='%s' ALSA_CONFIG_PATH='%s'\n", absolute, confPath);
    return 0;
}

static uint32_t jackBits(const char *port)
{
    if (!strcmp(port, "headphones")) return VCARD_JACK_HEADPHONE;
    if (!strcmp(port, "headset")) return VCARD_JACK_HEADPHONE | VCARD_JACK_HEADSET_MIC;
    if (!strcmp(port, "mic")) return VCARD_JACK_MIC;
    if (!strcmp(port, "lineout")) return VCARD_JACK_LINE_OUT;
    if (!strcmp(port, "linein")) return VCARD_JACK_LINE_IN;
    if (!strcmp(port, "hdmi")) return VCARD_JACK_HDMI;
    if (!strcmp(port, "front-headphones")) return VCARD_JACK_FRONT_HEADPHONE;
    if (!strcmp(port, "front-mic")) return VCARD_JACK_FRONT_MIC;
    return 0;
}

static int parseVolume(const char *text, int32_t *out)
{
    char *end;
    double volume = strtod(text, &end);
    if (*end || !(volume >= 0 && volume <= 1)) { fprintf(stderr, "vcard: volume must be 0..1\n"); return -1; }
    long minimum = VCARD_VOLUME_DB_MIN, maximum = 0;
    double decibels = decibelsFromVolume(volume, minimum, maximum);
    long step = lround((decibels - (double)minimum) / VCARD_VOLUME_DB_STEP);
    *out = (int32_t)(step < 0 ? 0 : step > VCARD_VOLUME_MAX ? VCARD_VOLUME_MAX : step);
    return 0;
}

/* A fraction from 0 to 1, in thousandths. */
static int parseLevel(const char *text, uint32_t *thousandths)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text || *end || !(value >= 0 && value <= 1)) return -1;
    *thousandths = (uint32_t)lround(value * 1000);
    return 0;
}

static int parseNumber(const char *text, uint32_t limit, uint32_t *out)
{
    char *end;
    unsigned long value = strtoul(text, &end, 10);
    if (end == text || *end || value > limit) return -1;
    *out = (uint32_t)value;
    return 0;
}

/* capture-signal silence | tone HZ LEVEL | echo DELAY_MS GAIN [HZ LEVEL] */
static int parseSignal(int count, char **words, VCardState *state)
{
    uint32_t hz = 0, level = 0, delay = 0, gain = 0;
    if (count == 1 && !strcmp(words[0], "silence")) {
        /* all zero */
    } else if (count == 3 && !strcmp(words[0], "tone")) {
        if (parseNumber(words[1], 96000, &hz) < 0 || hz == 0 || parseLevel(words[2], &level) < 0) return -1;
    } else if ((count == 3 || count == 5) && !strcmp(words[0], "echo")) {
        if (parseNumber(words[1], 10000, &delay) < 0 || parseLevel(words[2], &gain) < 0) return -1;
        if (count == 5 && (parseNumber(words[3], 96000, &hz) < 0 || hz == 0 || parseLevel(words[4], &level) < 0))
            return -1;
    } else {
        return -1;
    }
    state->captureToneHz = hz;
    state->captureToneLevel = level;
    state->echoDelayMs = delay;
    state->echoGainLevel = gain;
    return 0;
}

static int parseList(const char *text, uint32_t *values, uint32_t capacity, uint32_t *count)
{
    *count = 0;
    for (const char *p = text; *p;) {
        char *end;
        unsigned long value = strtoul(p, &end, 10);
        if (end == p || *count == capacity || value == 0 || value > 1000000) return -1;
        values[(*count)++] = (uint32_t)value;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return *count ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    const char *command = argv[1];
    if (!strcmp(command, "setup")) return setup(argc > 2 ? argv[2] : NULL);

    VCardState state;
    if (loadState(&state) < 0) return 1;
    if (!strcmp(command, "remove") || !strcmp(command, "insert")) {
        state.removed = !strcmp(command, "remove");
        return saveState(&state, cardDirectory()) < 0 ? 1 : 0;
    }
    if (!strcmp(command, "status")) return argc == 2 ? printStatus(cardDirectory()) : usage();
    if (!strcmp(command, "record-reset")) return argc == 2 ? (resetRecording(cardDirectory()) < 0 ? 1 : 0) : usage();
    if (!strcmp(command, "show")) {
        printf("jacks 0x%x playback %d capture %d has-capture %u rates", (unsigned)state.jacks,
               (int)state.playbackVolume, (int)state.captureVolume, (unsigned)state.hasCapture);
        for (uint32_t i = 0; i < state.rateCount; i++) printf("%s%u", i ? "," : " ", (unsigned)state.rates[i]);
        static const char *const sources[] = VCARD_CAPTURE_SOURCES;
        printf(" periods %u,%u source \"%s\" exclusive %s%s", (unsigned)state.periodMinFrames,
               (unsigned)state.periodMaxFrames,
               state.captureSource < VCARD_CAPTURE_SOURCE_COUNT ? sources[state.captureSource] : "?",
               state.exclusive ? "on" : "off", state.removed ? " removed" : "");
        printf(" hears tone %u Hz %.3f echo %u ms %.3f\n", (unsigned)state.captureToneHz,
               state.captureToneLevel / 1000.0, (unsigned)state.echoDelayMs, state.echoGainLevel / 1000.0);
        return 0;
    }
    if (!strcmp(command, "capture-signal")) {
        if (parseSignal(argc - 2, argv + 2, &state) < 0) return usage();
        return saveState(&state, cardDirectory()) < 0 ? 1 : 0;
    }
    if (argc != 3) return usage();
    const char *argument = argv[2];
    if (!strcmp(command, "plug") || !strcmp(command, "unplug")) {
        uint32_t bits = jackBits(argument);
        if (!bits) return usage();
        state.jacks = !strcmp(command, "plug") ? state.jacks | bits : state.jacks & ~bits;
    } else if (!strcmp(command, "volume")) {
        if (parseVolume(argument, &state.playbackVolume) < 0) return 2;
    } else if (!strcmp(command, "capture-volume")) {
        if (parseVolume(argument, &state.captureVolume) < 0) return 2;
    } else if (!strcmp(command, "capture")) {
        if (strcmp(argument, "on") && strcmp(argument, "off")) return usage();
        state.hasCapture = !strcmp(argument, "on");
    } else if (!strcmp(command, "exclusive")) {
        if (strcmp(argument, "on") && strcmp(argument, "off")) return usage();
        state.exclusive = !strcmp(argument, "on");
    } else if (!strcmp(command, "rates")) {
        if (parseList(argument, state.rates, VCARD_MAX_RATES, &state.rateCount) < 0) return usage();
    } else if (!strcmp(command, "periods")) {
        uint32_t values[2], count;
        if (parseList(argument, values, 2, &count) < 0 || count != 2 || values[0] > values[1]) return usage();
        state.periodMinFrames = values[0];
        state.periodMaxFrames = values[1];
    } else {
        return usage();
    }
    return saveState(&state, cardDirectory()) < 0 ? 1 : 0;
}
