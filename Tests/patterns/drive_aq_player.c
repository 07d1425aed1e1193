/*
 * Drives the audio queue file player (aq_player.c, SpeakHere's AQPlayer and aqplay):
 * a 440 Hz tone of 0.4 s made at run time (sox, ffmpeg) as AAC in M4A, CAF and ADTS, as
 * MP3, as IMA4 in CAF and as µ-law WAVE, each short enough to fit wholly into the three
 * primed buffers, so the player's callback calls AudioQueueStop(queue, false) while
 * priming, BEFORE AudioQueueStart; and a 3 s AAC file, longer than the primed buffers,
 * whose Stop(false) comes from a callback after the start. Each is played with the
 * callbacks on the run loop (which the player's wait turns) and on the queue's thread.
 *
 * For each: the player's wait ends (IsRunning reads 0; the watchdog bounds it, nothing
 * is timed), the IsRunning listener saw 1 then 0, every buffer enqueued came back
 * through the callback (on the run loop's thread, or not on the program's) before the
 * listener saw 0, the whole file was read; on the virtual ALSA card, the card heard the
 * tone at 440 Hz for about the file's length. Then AudioQueueDispose(queue, true).
 *
 * ffmpeg's CAF writer does not take AAC, so the AAC CAF is put together here from
 * ffmpeg's ADTS frames: 'desc', 'kuki' (an ES descriptor as Apple writes it), 'pakt'
 * (1024 priming frames, as ffmpeg's encoder has) and 'data'; ffmpeg must decode it.
 */
#include "patterns.h"
#include "aq_player.h"
#include <stdint.h>
#include <unistd.h>

static char folder[] = "/tmp/aq-player.XXXXXX";

static int run(const char *command)
{
    char full[1024];
    snprintf(full, sizeof full, "cd %s && %s >/dev/null 2>&1", folder, command);
    return system(full);
}

/* ---- an AAC CAF from ADTS frames ----------------------------------------------------- */

static void putBE(FILE *f, uint64_t value, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--) fputc((int)((value >> (8 * i)) & 0xFF), f);
}

static void putChunkHeader(FILE *f, const char *type, uint64_t size)
{
    fwrite(type, 1, 4, f);
    putBE(f, size, 8);
}

/* An MPEG-4 descriptor: tag, length in four 7-bit groups, body. */
static int putDescriptor(unsigned char *out, int tag, const unsigned char *body, int length)
{
    int n = 0;
    out[n++] = (unsigned char)tag;
    out[n++] = (unsigned char)(0x80 | ((length >> 21) & 0x7F));
    out[n++] = (unsigned char)(0x80 | ((length >> 14) & 0x7F));
    out[n++] = (unsigned char)(0x80 | ((length >> 7) & 0x7F));
    out[n++] = (unsigned char)(length & 0x7F);
    memcpy(out + n, body, (size_t)length);
    return n + length;
}

/* Writes `caf` from the ADTS file `adts` whose source had `validFrames` frames; 0 on
 * failure. */
static int cafFromADTS(const char *adts, const char *caf, long validFrames)
{
    static const int rates[] = {96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350};
    long bytes = 0;
    unsigned char *a = (unsigned char *)readWholeFile(adts, &bytes);
    if (!a) return 0;
    enum { MAX_PACKETS = 4096 };
    static long offsets[MAX_PACKETS], sizes[MAX_PACKETS];
    long packets = 0, dataBytes = 0;
    int rateIndex = 0, channels = 0, profile = 0;
    for (long at = 0; at + 7 <= bytes && packets < MAX_PACKETS;) {
        const unsigned char *h = a + at;
        if (h[0] != 0xFF || (h[1] & 0xF0) != 0xF0) { free(a); return 0; }
        int headerLength = (h[1] & 1) ? 7 : 9;
        long frameLength = ((long)(h[3] & 3) << 11) | ((long)h[4] << 3) | (h[5] >> 5);
        if (frameLength <= headerLength || at + frameLength > bytes) { free(a); return 0; }
        profile = h[2] >> 6;
        rateIndex = (h[2] >> 2) & 15;
        channels = ((h[2] & 1) << 2) | (h[3] >> 6);
        offsets[packets] = at + headerLength;
        sizes[packets] = frameLength - headerLength;
        dataBytes += sizes[packets];
        packets++;
        at += frameLength;
    }
    if (packets == 0 || rateIndex > 12 || channels == 0) { free(a); return 0; }
    unsigned char config[2] = {(unsigned char)(((profile + 1) << 3) | (rateIndex >> 1)),
                               (unsigned char)(((rateIndex & 1) << 7) | (channels << 3))};
    unsigned char decoderSpecific[16], decoderConfig[64], es[128], cookie[160];
    int n = putDescriptor(decoderSpecific, 0x05, config, 2);
    unsigned char configBody[48] = {0x40, 0x15}; /* MPEG-4 audio, audio stream; no sizes or rates */
    memcpy(configBody + 13, decoderSpecific, (size_t)n);
    n = putDescriptor(decoderConfig, 0x04, configBody, 13 + n);
    unsigned char esBody[96] = {0, 0, 0}; /* ES_ID 0, no flags */
    memcpy(esBody + 3, decoderConfig, (size_t)n);
    unsigned char sl = 0x02;
    n = 3 + n;
    n += putDescriptor(esBody + n, 0x06, &sl, 1);
    memcpy(es, esBody, (size_t)n);
    int cookieLength = putDescriptor(cookie, 0x03, es, n);

    unsigned char *table = (unsigned char *)malloc((size_t)packets * 5);
    long tableLength = 0;
    for (long i = 0; i < packets; i++) {
        unsigned long v = (unsigned long)sizes[i];
        unsigned char groups[5];
        int k = 0;
        do { groups[k++] = v & 0x7F; v >>= 7; } while (v);
        while (k--) table[tableLength++] = (unsigned char)(groups[k] | (k ? 0x80 : 0));
    }
    long priming = 1024, remainder = packets * 1024 - priming - validFrames;
    if (remainder < 0) { validFrames += remainder; remainder = 0; }

    FILE *f = fopen(caf, "wb");
    if (!f) { free(a); free(table); return 0; }
    fwrite("caff", 1, 4, f);
    putBE(f, 1, 2);
    putBE(f, 0, 2);
    putChunkHeader(f, "desc", 32);
    double rate = rates[rateIndex];
    uint64_t rateBits;
    memcpy(&rateBits, &rate, 8);
    putBE(f, rateBits, 8);
    fwrite("aac ", 1, 4, f);
    putBE(f, 0, 4);        /* flags */
    putBE(f, 0, 4);        /* bytes per packet: variable */
    putBE(f, 1024, 4);     /* frames per packet */
    putBE(f, (uint64_t)channels, 4);
    putBE(f, 0, 4);        /* bits per channel */
    putChunkHeader(f, "kuki", (uint64_t)cookieLength);
    fwrite(cookie, 1, (size_t)cookieLength, f);
    putChunkHeader(f, "pakt", (uint64_t)(24 + tableLength));
    putBE(f, (uint64_t)packets, 8);
    putBE(f, (uint64_t)validFrames, 8);
    putBE(f, (uint64_t)priming, 4);
    putBE(f, (uint64_t)remainder, 4);
    fwrite(table, 1, (size_t)tableLength, f);
    putChunkHeader(f, "data", (uint64_t)(4 + dataBytes));
    putBE(f, 0, 4); /* edit count */
    for (long i = 0; i < packets; i++) fwrite(a + offsets[i], 1, (size_t)sizes[i], f);
    int ok = fclose(f) == 0;
    free(a);
    free(table);
    return ok;
}

/* ---- the media ------------------------------------------------------------------------ */

typedef struct {
    const char *name;    /* the file in the folder */
    const char *command; /* what makes it (run in the folder); NULL: made here */
    double seconds;
    int fitsInPrimedBuffers;
    int optional; /* an encoder this ffmpeg may lack: skipped, with the reason printed */
} Media;

static const Media media[] = {
    {"short.m4a", "ffmpeg -nostdin -y -i short.wav -c:a aac -b:a 128k short.m4a", 0.4, 1, 0},
    {"short.adts", "ffmpeg -nostdin -y -i short.wav -c:a aac -b:a 128k -f adts short.adts", 0.4, 1, 0},
    {"short.caf", NULL, 0.4, 1, 0},
    {"short.mp3", "ffmpeg -nostdin -y -i short.wav -c:a libmp3lame -b:a 128k short.mp3", 0.4, 1, 0},
    {"short-ima4.caf", "ffmpeg -nostdin -y -i short.wav -c:a adpcm_ima_qt -f caf short-ima4.caf", 0.4, 1, 1},
    {"short-ulaw.wav", "sox short.wav -r 8000 -c 1 -e u-law short-ulaw.wav", 0.4, 1, 0},
    {"long.m4a", "ffmpeg -nostdin -y -i long.wav -c:a aac -b:a 128k long.m4a", 3.0, 0, 0},
};
enum { MEDIA = sizeof media / sizeof media[0] };
static int made[MEDIA];

static void makeMedia(void)
{
    CHECK(run("sox -n -r 44100 -b 16 -c 2 short.wav synth 0.4 sine 440 vol 0.5") == 0, "sox makes the 0.4 s tone");
    CHECK(run("sox -n -r 44100 -b 16 -c 2 long.wav synth 3 sine 440 vol 0.5") == 0, "sox makes the 3 s tone");
    for (int i = 0; i < MEDIA; i++) {
        if (media[i].command) {
            made[i] = run(media[i].command) == 0;
            if (!made[i] && media[i].optional)
                printf("SKIP %s: `%s` failed (this ffmpeg cannot make it)\n", media[i].name, media[i].command);
            else
                CHECK(made[i], "`%s` makes %s", media[i].command, media[i].name);
        }
    }
    /* The AAC CAF from the ADTS file (media[1]). */
    char adts[256], caf[256];
    snprintf(adts, sizeof adts, "%s/short.adts", folder);
    snprintf(caf, sizeof caf, "%s/short.caf", folder);
    made[2] = made[1] && cafFromADTS(adts, caf, 17640);
    CHECK(made[2], "an AAC CAF put together from the ADTS frames");
    if (made[2]) CHECK(run("ffmpeg -nostdin -v error -i short.caf -f null -") == 0, "ffmpeg decodes the AAC CAF");
}

/* ---- one play --------------------------------------------------------------------------- */

/* Turns the run loop (or sleeps, for a queue on its own thread) a moment. */
static void moment(int useRunLoop)
{
    if (useRunLoop) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    else usleep(10000);
}

/* What the card heard: the loud part's length, and the pitch of its middle (the start of
 * a decoder's output, an MP3's or AAC's priming, is not the tone). */
static long heardMiddle(double *hz, long *peak)
{
    long frames = 0, first = -1, last = -1;
    short *s = cardRecording(&frames);
    for (long i = 0; i < frames; i++) if (s && abs(s[2 * i]) > 64) { if (first < 0) first = i; last = i; }
    *hz = 0;
    *peak = 0;
    long length = first < 0 ? 0 : last - first + 1;
    if (length > 0) {
        /* The middle's left channel, without runs of silence: a restart after the device
         * ran dry (a busy machine) inserts up to a buffer of it, which is not the tone's
         * pitch. Gaps are the length check's business. */
        long edge = length / 8, kept = 0;
        short *tone = (short *)malloc(sizeof(short) * (size_t)length);
        for (long i = first + edge; tone && i < last - edge; i++) {
            long quiet = 0;
            while (i + quiet < last - edge && abs(s[2 * (i + quiet)]) <= 64) quiet++;
            if (quiet >= 32) { i += quiet - 1; continue; }
            tone[kept++] = s[2 * i];
        }
        if (tone) *hz = pitchOf(tone, kept, 1, cardPlaybackRate(), peak);
        free(tone);
    }
    free(s);
    return length;
}

static void play(const Media *m, int useRunLoop)
{
    char label[96], path[256];
    snprintf(label, sizeof label, "%s, %s", m->name, useRunLoop ? "run loop" : "queue's thread");
    snprintf(path, sizeof path, "%s/%s", folder, m->name);
    watchdogName = label;
    alarm(20);
    if (onALSA) vcard("record-reset");

    long status = aq_player_open(path, useRunLoop);
    CHECK(status == 0, "%s: the player opens the file and makes its queue (%s)", label, statusText((OSStatus)status));
    if (status != 0) { aq_player_dispose(); return; }
    status = aq_player_start();
    CHECK(status == 0, "%s: AudioQueueStart returned %s", label, statusText((OSStatus)status));
    CHECK(aq_player_stopped_before_start() == m->fitsInPrimedBuffers,
          "%s: Stop(false) came %s the start, as the file's length makes it", label,
          m->fitsInPrimedBuffers ? "before" : "after");
    aq_player_wait();
    CHECK(aq_player_is_running() == 0, "%s: IsRunning reads 0 when the wait ends", label);
    for (int i = 0; i < 50 && strcmp(aq_player_running_changes(), "10") != 0; i++) moment(useRunLoop);
    CHECK(strcmp(aq_player_running_changes(), "10") == 0, "%s: the IsRunning listener saw 1 then 0 (\"%s\")", label,
          aq_player_running_changes());

    long enqueued = 0, returned = 0;
    for (int i = 0; i < 3; i++) {
        CHECK(aq_player_returned(i) == aq_player_enqueued(i), "%s: buffer %d came back %ld times, enqueued %ld", label, i,
              aq_player_returned(i), aq_player_enqueued(i));
        enqueued += aq_player_enqueued(i);
        returned += aq_player_returned(i);
    }
    CHECK(enqueued > 0, "%s: buffers were enqueued", label);
    CHECK(aq_player_returned_when_stopped() == enqueued,
          "%s: every buffer had played when IsRunning went to 0 (%ld of %ld back then)", label,
          aq_player_returned_when_stopped(), enqueued);
    if (useRunLoop) {
        CHECK(aq_player_callbacks_elsewhere() == 0, "%s: every callback on the run loop's thread (%ld elsewhere)", label,
              aq_player_callbacks_elsewhere());
    } else {
        CHECK(aq_player_callbacks_on_opening_thread() == 0,
              "%s: every callback on the queue's thread, none on the program's (%ld there)", label,
              aq_player_callbacks_on_opening_thread());
    }
    CHECK(aq_player_enqueue_failures() == 0, "%s: no enqueue was refused (%ld)", label, aq_player_enqueue_failures());
    long packets = aq_player_packets_in_file();
    CHECK(packets > 0 && aq_player_packets_read() == packets, "%s: the whole file was read (%ld of %ld packets)", label,
          aq_player_packets_read(), packets);

    double hz = 0;
    long peak = 0, heard = 0;
    int rate = 0;
    if (onALSA) {
        heard = heardMiddle(&hz, &peak);
        rate = cardPlaybackRate();
        CHECK(rate > 0 && heard >= (m->seconds - 0.05) * rate && heard <= (m->seconds + 0.1) * rate,
              "%s: the card heard %ld frames at %d Hz (the file is %.1f s)", label, heard, rate, m->seconds);
        CHECK(hz > 435 && hz < 445, "%s: the card heard %.1f Hz (peak %ld)", label, hz, peak);
    }
    printf("%s: %s, %ld buffers played, IsRunning \"%s\"", label, aq_player_is_vbr() ? "VBR" : "CBR", returned,
           aq_player_running_changes());
    if (onALSA) printf(", the card heard %ld frames at %d Hz: %.1f Hz, peak %ld", heard, rate, hz, peak);
    printf("\n");
    aq_player_dispose();
    alarm(0);
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "aq player");
    CHECK(mkdtemp(folder) != NULL, "a scratch folder");
    makeMedia();
    CHECK(aq_player_init(), "the player opens its session");
    harnessAttach();
    for (int i = 0; i < MEDIA; i++) {
        if (!made[i]) continue;
        play(&media[i], 1);
        play(&media[i], 0);
    }
    watchdogName = "aq player";
    char command[128];
    snprintf(command, sizeof command, "rm -rf %s", folder);
    CHECK(system(command) == 0, "scratch folder removed");
    return finish("aq player");
}
