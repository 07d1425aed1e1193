/* Audio File Stream on an AAC CAF (issue 40, item 4): a CAF written by ExtAudioFile
 * (kAudioFileCAFType, kAudioFormatMPEG4AAC, stereo), its 'pakt' moved before 'data' as a
 * file made for streaming has it, fed whole, one byte at a time, one byte at a time and
 * then in small pieces, and in random pieces, gives the data format and the very magic
 * cookie AudioFileOpenURL reports for the same file. Usage: test_aac_caf_stream MEDIA_DIR
 * (make-media.sh's: source.s16 is read). */
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>
#include "../c/check.h"

static const char *media;

typedef struct {
    AudioFileStreamID stream;
    AudioStreamBasicDescription format;
    unsigned char cookie[1024];
    UInt32 cookieSize;
    int ready;
    long packets;
} Feed;

static void listener(void *user, AudioFileStreamID stream, AudioFileStreamPropertyID id, UInt32 *flags)
{
    Feed *f = user;
    (void)flags;
    UInt32 size = sizeof f->format;
    if (id == kAudioFileStreamProperty_DataFormat) AudioFileStreamGetProperty(stream, id, &size, &f->format);
    if (id == kAudioFileStreamProperty_MagicCookieData) {
        f->cookieSize = sizeof f->cookie;
        if (AudioFileStreamGetProperty(stream, id, &f->cookieSize, f->cookie)) f->cookieSize = 0;
    }
    if (id == kAudioFileStreamProperty_ReadyToProducePackets) f->ready++;
}

static void packetsProc(void *user, UInt32 bytes, UInt32 packets, const void *data, AudioStreamPacketDescription *descriptions)
{
    (void)bytes; (void)data; (void)descriptions;
    ((Feed *)user)->packets += packets;
}

static unsigned nextRandom(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* Writes 44100 frames of 16-bit stereo as AAC into a CAF through ExtAudioFile. */
static int writeAACCAF(const char *path)
{
    long size = 0;
    char source[1024];
    snprintf(source, sizeof source, "%s/source.s16", media);
    short *s16 = readWholeFile(source, &size);
    CHECK(s16 && size == 44100 * 4, "make-media.sh's source.s16 (%ld bytes)", size);
    if (!s16 || size != 44100 * 4) { free(s16); return 0; }
    AudioStreamBasicDescription aac = {44100, kAudioFormatMPEG4AAC, 0, 0, 0, 0, 2, 0, 0};
    AudioStreamBasicDescription client = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                          4, 1, 4, 2, 16, 0};
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    ExtAudioFileRef file = NULL;
    CHECK_STATUS(ExtAudioFileCreateWithURL(url, kAudioFileCAFType, &aac, NULL, kAudioFileFlags_EraseFile, &file), noErr);
    CFRelease(url);
    if (!file) { free(s16); return 0; }
    CHECK_STATUS(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client), noErr);
    for (long done = 0; done < 44100;) {
        UInt32 n = (UInt32)(done + 700 > 44100 ? 44100 - done : 700);
        AudioBufferList list = {1, {{2, n * 4, s16 + done * 2}}};
        OSStatus status = ExtAudioFileWrite(file, n, &list);
        if (status) { CHECK_STATUS(status, noErr); break; }
        done += n;
    }
    CHECK_STATUS(ExtAudioFileDispose(file), noErr);
    free(s16);
    return 1;
}

/* The CAF with its 'pakt' moved before its 'data' (our writer puts it after). */
static unsigned char *streamable(const char *path, long *size)
{
    unsigned char *in = readWholeFile(path, size);
    if (!in) return NULL;
    long dataAt = -1, paktAt = -1, paktSize = 0;
    for (long at = 8; at + 12 <= *size;) {
        long long n = 0;
        for (int i = 0; i < 8; i++) n = n << 8 | in[at + 4 + i];
        if (!memcmp(in + at, "data", 4)) dataAt = at;
        if (!memcmp(in + at, "pakt", 4)) { paktAt = at; paktSize = 12 + (long)n; }
        if (n < 0) break;
        at += 12 + (long)n;
    }
    CHECK(dataAt > 0 && paktAt > dataAt, "the CAF has 'data' then 'pakt' (%ld, %ld)", dataAt, paktAt);
    if (!(dataAt > 0 && paktAt > dataAt)) { free(in); return NULL; }
    unsigned char *out = malloc((size_t)*size);
    long k = dataAt;
    memcpy(out, in, (size_t)dataAt);
    memcpy(out + k, in + paktAt, (size_t)paktSize);
    k += paktSize;
    memcpy(out + k, in + dataAt, (size_t)(paktAt - dataAt));
    k += paktAt - dataAt;
    memcpy(out + k, in + paktAt + paktSize, (size_t)(*size - paktAt - paktSize));
    free(in);
    FILE *f = fopen(path, "wb");
    if (f) { fwrite(out, 1, (size_t)*size, f); fclose(f); }
    return out;
}

static const char *ways[] = {"whole", "one byte at a time", "200 single bytes, then 1-16", "random 1-16", "random 1-100",
                             "random 1-8192"};

/* Pieces for way `way`. */
static long piece(int way, long at, unsigned *seed)
{
    switch (way) {
    case 0: return 1L << 30;
    case 1: return 1;
    case 2: return at < 200 ? 1 : 1 + (long)(nextRandom(seed) % 16);
    case 3: return 1 + (long)(nextRandom(seed) % 16);
    case 4: return 1 + (long)(nextRandom(seed) % 100);
    default: return 1 + (long)(nextRandom(seed) % 8192);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: test_aac_caf_stream MEDIA_DIR\n"); return 2; }
    media = argv[1];
    installWatchdog("test_aac_caf_stream");
    alarm(120);
    char path[1024];
    snprintf(path, sizeof path, "%s/aac-ours-stream.caf", media);
    if (!writeAACCAF(path)) return finish("test_aac_caf_stream");
    long size = 0;
    unsigned char *data = streamable(path, &size);
    if (!data) return finish("test_aac_caf_stream");

    /* The reference: Audio File Services on the same (streamable) file. */
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    AudioFileID file = NULL;
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file), noErr);
    CFRelease(url);
    AudioStreamBasicDescription want = {0};
    unsigned char cookie[1024];
    UInt32 n = sizeof want, cookieSize = sizeof cookie;
    UInt64 packets = 0;
    if (file) {
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &n, &want), noErr);
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyMagicCookieData, &cookieSize, cookie), noErr);
        n = sizeof packets;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyAudioDataPacketCount, &n, &packets), noErr);
        AudioFileClose(file);
    }
    CHECK(want.mFormatID == kAudioFormatMPEG4AAC && want.mChannelsPerFrame == 2 && want.mFramesPerPacket == 1024,
          "AudioFile: stereo AAC of 1024 frames a packet");

    for (int way = 0; way < 6; way++) {
        Feed f = {0};
        CHECK_STATUS(AudioFileStreamOpen(&f, listener, packetsProc, 0, &f.stream), noErr);
        if (!f.stream) continue;
        unsigned seed = 7919u * (unsigned)(way + 1);
        OSStatus status = noErr;
        for (long at = 0; at < size && status == noErr;) {
            long m = piece(way, at, &seed);
            if (m > size - at) m = size - at;
            status = AudioFileStreamParseBytes(f.stream, (UInt32)m, data + at, 0);
            at += m;
        }
        CHECK(status == noErr && f.ready == 1, "%s: parsed (%d), ready once (%d)", ways[way], (int)status, f.ready);
        CHECK(memcmp(&f.format, &want, sizeof want) == 0,
              "%s: DataFormat %.0f/'aac '/flags %u/%u/%u/%u/%u/%u, AudioFile says flags %u/%u/%u/%u/%u/%u", ways[way],
              f.format.mSampleRate, (unsigned)f.format.mFormatFlags, (unsigned)f.format.mBytesPerPacket,
              (unsigned)f.format.mFramesPerPacket, (unsigned)f.format.mBytesPerFrame, (unsigned)f.format.mChannelsPerFrame,
              (unsigned)f.format.mBitsPerChannel, (unsigned)want.mFormatFlags, (unsigned)want.mBytesPerPacket,
              (unsigned)want.mFramesPerPacket, (unsigned)want.mBytesPerFrame, (unsigned)want.mChannelsPerFrame,
              (unsigned)want.mBitsPerChannel);
        int firstDifference = -1;
        for (UInt32 i = 0; i < cookieSize && i < f.cookieSize && firstDifference < 0; i++)
            if (f.cookie[i] != cookie[i]) firstDifference = (int)i;
        CHECK(f.cookieSize == cookieSize && firstDifference < 0,
              "%s: MagicCookieData %u bytes, AudioFile's %u bytes (first difference at byte %d)", ways[way],
              (unsigned)f.cookieSize, (unsigned)cookieSize, firstDifference);
        CHECK(f.packets == (long)packets, "%s: %ld packets, AudioFile has %llu", ways[way], f.packets, (unsigned long long)packets);
        CHECK_STATUS(AudioFileStreamClose(f.stream), noErr);
    }
    free(data);
    return finish("test_aac_caf_stream");
}
