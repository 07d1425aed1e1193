/*
 * Drives baresip's audiounit driver (baresip_audiounit.c) as baresip's audio core does:
 * module_init, then a player per call (48 kHz mono SInt16, then 8 kHz for a G.711 call)
 * whose stream format is set after AudioUnitInitialize — the set must return noErr, read
 * back, and take effect: the card hears the 440 Hz tone for its length, at the rate
 * given, without gaps or steps. Then the recorders: baresip's own needs an AUConverter
 * (kAudioUnitType_FormatConverter / kAudioUnitSubType_AUConverter) — reported as a
 * failure while the library has none — and 0.6.0's (no converter) records the card's
 * 440 Hz capture tone through AudioUnitRender with mData NULL in its input callback.
 * Last, a call: player and recorder at once.
 */
#include "patterns.h"
#include "baresip_audiounit.h"
#include <errno.h>
#include <math.h>
#include <unistd.h>

#define TONE_HZ 440.0
#define TONE_LEVEL 16384.0 /* half scale */

/* ---- the audio core's side: a tone to play, a buffer to record into ----------------- */

static struct {
    double phase;
    long tone_frames;           /* frames of tone, then silence */
    volatile long written;      /* frames the player asked for */
    volatile long calls;
    volatile long bad_frames;   /* frames that were not mono SInt16 at the call's rate */
    uint32_t srate;
} play;

static void write_handler(struct bau_frame *af, void *arg)
{
    (void)arg;
    short *out = (short *)af->sampv;
    if (af->fmt != BAU_AUFMT_S16LE || af->ch != 1 || af->srate != play.srate) play.bad_frames += (long)af->sampc;
    for (size_t i = 0; i < af->sampc; i++) {
        long n = play.written + (long)i;
        out[i] = n < play.tone_frames ? (short)lrint(TONE_LEVEL * sin(play.phase)) : 0;
        if (n < play.tone_frames) play.phase += 2 * M_PI * TONE_HZ / play.srate;
    }
    play.written += (long)af->sampc;
    play.calls++;
}

#define REC_MAX (48000 * 6)
static struct {
    short samples[REC_MAX];
    volatile long frames;
    volatile long calls;
    volatile long null_data; /* frames delivered without data */
} rec;

static void read_handler(struct bau_frame *af, void *arg)
{
    (void)arg;
    const short *in = (const short *)af->sampv;
    rec.calls++;
    if (!in) { rec.null_data += (long)af->sampc; return; }
    for (size_t i = 0; i < af->sampc && rec.frames < REC_MAX; i++) rec.samples[rec.frames++] = in[i];
}

static void waitFor(volatile long *counter, long value)
{
    while (*counter < value) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
}

/* ---- measuring ----------------------------------------------------------------------- */

/* What the card heard of one player run: the tone's length at the card, its pitch and
 * peak, quiet runs inside it (a restart's primed silence at a recorded start, no longer
 * than the output latency, is told apart), and steps. */
static void checkCard(const char *label, long toneFrames, double rate)
{
    long frames = 0, first = -1, last = -1;
    short *s = cardRecording(&frames);
    int cardRate = cardPlaybackRate();
    /* The tone's own samples (a resampler's ringing before and after it is quieter). */
    for (long i = 0; i < frames; i++)
        if (abs(s[2 * i]) > 1000) { if (first < 0) first = i; last = i; }
    CHECK(first >= 0, "%s: the card heard the player", label);
    if (first < 0) { free(s); return; }
    long length = last - first + 1, peak = 0;
    double hz = pitchOf(s + 2 * first, length, 2, cardRate, &peak);
    double expected = toneFrames * (double)cardRate / rate;

    long starts[256];
    int nstarts = cardStarts(starts, 256);
    Float32 latency = 0;
    UInt32 size = sizeof latency;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareOutputLatency, &size, &latency);
    long buffer = lround(latency * cardRate), quiet = 0, longestGap = 0, restarts = 0;
    for (long i = first + 1; i <= last + 1; i++) {
        if (i <= last && abs(s[2 * i]) < 200) { quiet++; continue; }
        if (quiet > 0) {
            long from = i - quiet;
            int restart = 0;
            for (int r = 0; r < nstarts && !restart; r++)
                restart = starts[r] > first && from >= starts[r] - 3 && from <= starts[r] && quiet <= buffer + 6;
            if (restart) restarts++;
            else if (quiet > longestGap) longestGap = quiet;
        }
        quiet = 0;
    }
    long worstStep = 0;
    long firstAt = -1;
    long clicks = toneClicks(s + 2 * first, length, 2, cardRate, TONE_HZ, (double)peak, 1, &worstStep, &firstAt);
    printf("measured: %s at the card (%d Hz): %ld frames (expected %.0f), %.1f Hz, peak %ld, longest gap %ld, "
           "restarts %ld, steps %ld (largest %ld)\n",
           label, cardRate, length, expected, hz, peak, longestGap, restarts, clicks, worstStep);
    CHECK(fabs(length - expected) <= expected * 0.01 + 64, "%s: the card heard the tone for its length (%ld frames, "
          "expected %.0f: the format set after AudioUnitInitialize took effect)", label, length, expected);
    CHECK(fabs(hz - TONE_HZ) < 3, "%s: the card heard %.0f Hz (%.1f Hz)", label, TONE_HZ, hz);
    CHECK(peak > TONE_LEVEL * 0.9 && peak < TONE_LEVEL * 1.1, "%s: at the level played (peak %ld, expected %.0f)", label,
          peak, TONE_LEVEL);
    CHECK(longestGap <= 4, "%s: no gap in the tone (longest quiet run %ld frames)", label, longestGap);
    CHECK(clicks == 0, "%s: no step in the tone (%ld steps, largest %ld)", label, clicks, worstStep);
    free(s);
}

static int sameFormat(const AudioStreamBasicDescription *a, const AudioStreamBasicDescription *b)
{
    return a->mSampleRate == b->mSampleRate && a->mFormatID == b->mFormatID && a->mFormatFlags == b->mFormatFlags &&
           a->mBytesPerPacket == b->mBytesPerPacket && a->mFramesPerPacket == b->mFramesPerPacket &&
           a->mBytesPerFrame == b->mBytesPerFrame && a->mChannelsPerFrame == b->mChannelsPerFrame &&
           a->mBitsPerChannel == b->mBitsPerChannel;
}

/* ---- the parts ------------------------------------------------------------------------- */

static void playerRun(uint32_t srate, const char *label)
{
    struct bau_prm prm = {srate, 1, 20, BAU_AUFMT_S16LE};
    struct bau_player *player = NULL;
    const struct bau_log *lg = bau_get_log();

    memset((void *)&play, 0, sizeof play);
    play.srate = srate;
    play.tone_frames = srate; /* one second: 440 whole cycles */
    if (onALSA) vcard("record-reset");
    alarm(30);
    int err = bau_player_alloc(&player, &prm, write_handler, NULL);
    CHECK(err == 0, "%s: baresip's player opens (errno %d; %s returned %s)", label, err,
          lg->last_call ? lg->last_call : "-", statusText(lg->last_ret));
    if (err) return;

    /* What baresip set after AudioUnitInitialize is the unit's format now. */
    AudioStreamBasicDescription want, got;
    memset(&want, 0, sizeof want);
    want.mSampleRate = srate;
    want.mFormatID = kAudioFormatLinearPCM;
    want.mFormatFlags = kLinearPCMFormatFlagIsSignedInteger | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked;
    want.mBitsPerChannel = 16;
    want.mChannelsPerFrame = 1;
    want.mBytesPerFrame = want.mBytesPerPacket = 2;
    want.mFramesPerPacket = 1;
    UInt32 size = sizeof got;
    memset(&got, 0, sizeof got);
    CHECK_STATUS(AudioUnitGetProperty(bau_player_unit(player), kAudioUnitProperty_StreamFormat, kAudioUnitScope_Input,
                                      0, &got, &size),
                 noErr);
    CHECK(sameFormat(&got, &want), "%s: the format set after AudioUnitInitialize reads back (%.0f Hz, flags %#x, "
          "%u ch, %u bits)", label, got.mSampleRate, (unsigned)got.mFormatFlags, (unsigned)got.mChannelsPerFrame,
          (unsigned)got.mBitsPerChannel);
    Float64 sessionRate = 0;
    size = sizeof sessionRate;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &sessionRate);
    printf("measured: %s: player hardware sample rate %.0f Hz (session %.0f Hz)\n", label, lg->player_hw_srate,
           sessionRate);
    CHECK(lg->player_hw_srate == sessionRate, "%s: SampleRate of element 0's output is the hardware's (%.0f, %.0f)",
          label, lg->player_hw_srate, sessionRate);

    waitFor(&play.written, play.tone_frames + (long)srate / 2); /* the tone, then half a second of silence */
    CHECK(play.bad_frames == 0, "%s: the player's frames are the call's format (%ld others)", label, play.bad_frames);
    long calls = play.calls;
    bau_player_free(player);
    CHECK(calls > 0, "%s: the render callback ran (%ld calls)", label, calls);
    if (onALSA) checkCard(label, play.tone_frames, srate);
}

/* The captured tone after the first 200 ms: pitch, level and clicks (the card only). */
static void checkCapture(const char *label, double rate, long frames)
{
    long skip = (long)(rate * 0.2), peak = 0, worstStep = 0;
    if (frames <= skip + 100) {
        CHECK(0, "%s: enough was captured (%ld frames)", label, frames);
        return;
    }
    double hz = pitchOf(rec.samples + skip, frames - skip, 1, rate, &peak);
    if (!onALSA) {
        printf("SKIP %s: clicks and pitch [virtual device]: its microphone is silent\n", label);
        CHECK(peak == 0, "%s: the virtual device's silent microphone arrives (%ld frames, peak %ld)", label, frames, peak);
        return;
    }
    long firstAt = -1;
    long clicks = toneClicks(rec.samples + skip, frames - skip, 1, rate, TONE_HZ, (double)peak, 1, &worstStep, &firstAt);
    printf("measured: %s: %ld frames at %.0f Hz, %.1f Hz, peak %ld, clicks %ld (largest step %ld)\n", label, frames,
           rate, hz, peak, clicks, worstStep);
    CHECK(fabs(hz - TONE_HZ) < 3, "%s: the card's %.0f Hz arrives (%.1f Hz)", label, TONE_HZ, hz);
    CHECK(peak > 3000, "%s: at a level (peak %ld)", label, peak);
    CHECK(clicks == 0, "%s: no clicks in the captured tone (%ld, largest step %ld)", label, clicks, worstStep);
}

static void recorderRun(int v060, uint32_t srate, double seconds, const char *label)
{
    struct bau_prm prm = {srate, 1, 20, BAU_AUFMT_S16LE};
    struct bau_recorder *recorder = NULL;
    const struct bau_log *lg = bau_get_log();
    memset((void *)&rec, 0, sizeof rec);
    alarm(30);
    int err = v060 ? bau_recorder_v060_alloc(&recorder, &prm, read_handler, NULL)
                   : bau_recorder_alloc(&recorder, &prm, read_handler, NULL);
    if (!v060 && err && !lg->conv_found) {
        CHECK(err == 0, "%s: baresip's recorder does not open: %s returned %s — the library has no AUConverter "
              "(kAudioUnitType_FormatConverter/kAudioUnitSubType_AUConverter), which baresip's recorder resamples "
              "through", label, lg->last_call ? lg->last_call : "-", statusText(lg->last_ret));
        return;
    }
    CHECK(err == 0, "%s: the recorder opens (errno %d; %s returned %s)", label, err,
          lg->last_call ? lg->last_call : "-", statusText(lg->last_ret));
    if (err) return;
    if (v060) {
        printf("measured: %s: record hardware sample rate %.0f Hz\n", label, lg->recorder_hw_srate);
        CHECK(lg->recorder_hw_srate > 0, "%s: SampleRate of element 1's input reads (%.0f)", label,
              lg->recorder_hw_srate);
    }
    waitFor(&rec.frames, (long)(srate * seconds));
    long frames = rec.frames;
    bau_recorder_free(recorder);
    CHECK(rec.null_data == 0, "%s: AudioUnitRender gave every frame a buffer (%ld frames without)", label,
          rec.null_data);
    checkCapture(label, srate, frames);
}

/* A call: both directions at once, each on its own VoiceProcessingIO unit, as baresip
 * opens them. */
static void callRun(void)
{
    const char *label = "a call (player and 0.6.0 recorder at 48 kHz)";
    struct bau_prm prm = {48000, 1, 20, BAU_AUFMT_S16LE};
    struct bau_player *player = NULL;
    struct bau_recorder *recorder = NULL;
    memset((void *)&play, 0, sizeof play);
    memset((void *)&rec, 0, sizeof rec);
    play.srate = 48000;
    play.tone_frames = 48000L * 60; /* the far end talks throughout */
    alarm(30);
    int perr = bau_player_alloc(&player, &prm, write_handler, NULL);
    int rerr = bau_recorder_v060_alloc(&recorder, &prm, read_handler, NULL);
    CHECK(perr == 0 && rerr == 0, "%s: both open (player errno %d, recorder errno %d)", label, perr, rerr);
    if (!perr && !rerr) {
        waitFor(&rec.frames, 48000L * 2);
        long written = play.written;
        CHECK(written > 48000, "%s: the player ran alongside (%ld frames)", label, written);
        checkCapture(label, 48000, rec.frames);
    }
    bau_recorder_free(recorder);
    bau_player_free(player);
    /* The card is not examined here: each unit opens its own playback stream (the
     * recorder's element 0 is enabled by default and plays silence without a render
     * callback), and the virtual card records concurrent streams one after the other,
     * unmixed, so its recording cannot show one stream's tone. The player's sound was
     * checked alone above. */
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "baresip_audiounit");
    if (onALSA) vcard("capture-signal tone 440 0.5");

    int init = bau_module_init();
    const struct bau_log *lg = bau_get_log();
    CHECK(lg->io_found, "module_init finds VoiceProcessingIO (%s)", lg->io_name);
    CHECK(init == 0 && lg->conv_found,
          "module_init: AudioComponentFindNext(FormatConverter 'aufc' / AUConverter 'conv') returned NULL — the "
          "library has no AUConverter yet, so baresip's module_init returns ENOENT (%d) and registers neither its "
          "player nor its recorder; the checks below go on with the parts that do not need it", init);
    if (!lg->io_found) return finish("baresip_audiounit");
    harnessAttach();

    playerRun(48000, "player 48 kHz mono SInt16");
    playerRun(8000, "player 8 kHz mono SInt16 (G.711)");
    recorderRun(0, 48000, 1.0, "recorder (with AUConverter)");
    recorderRun(1, 48000, 2.0, "recorder 0.6.0 (48 kHz, mData NULL)");
    callRun();
    bau_module_close();
    return finish("baresip_audiounit");
}
