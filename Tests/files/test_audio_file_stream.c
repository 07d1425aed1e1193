/* Audio File Stream Services against media made by sox and ffmpeg (make-media.sh): each
 * file fed in pieces of random size (1 byte to 8 KiB, three seeds) yields the format,
 * cookie, counts and the very packets Audio File Services reads from the whole file; a
 * radio stream joined mid-frame finds its frames; seeking gives the packet's offset and
 * the packets from there; the streaming-radio pattern (converter made in the listener,
 * packets decoded as they come) gives the source back; files not made for streaming and
 * bad input get Apple's codes; a program that closes or re-enters the parser from its
 * callbacks is safe. Usage: test_audio_file_stream MEDIA_DIR */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../c/check.h"

static const char *media;
/* The valid frames the streamable CAF's 'pakt' states (read from the file's bytes). */
static long long streamableValidFrames = -1;

static unsigned char *readMedia(const char *name, long *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", media, name);
    return readWholeFile(path, size);
}

/* Packets, as bytes back to back and a size per packet. */
typedef struct {
    unsigned char *bytes;
    long byteCount, byteCapacity;
    UInt32 *sizes;
    long packets, sizeCapacity;
} Packets;

static void addPacket(Packets *p, const void *data, UInt32 size)
{
    if (p->byteCount + size > p->byteCapacity) {
        p->byteCapacity = (p->byteCount + size) * 2 + 4096;
        p->bytes = realloc(p->bytes, (size_t)p->byteCapacity);
    }
    if (p->packets == p->sizeCapacity) {
        p->sizeCapacity = p->sizeCapacity * 2 + 64;
        p->sizes = realloc(p->sizes, sizeof *p->sizes * (size_t)p->sizeCapacity);
    }
    memcpy(p->bytes + p->byteCount, data, size);
    p->byteCount += size;
    p->sizes[p->packets++] = size;
}

static void freePackets(Packets *p)
{
    free(p->bytes);
    free(p->sizes);
    memset(p, 0, sizeof *p);
}

/* What a file says through Audio File Services (the reference) or a stream through its
 * listener (what is tested). */
typedef struct {
    UInt32 fileType;
    AudioStreamBasicDescription format;
    unsigned char cookie[4096];
    UInt32 cookieSize;
    SInt64 packetCount; /* -1: not stated */
    AudioFilePacketTableInfo table;
    int hasTable;
    SInt64 dataOffset;
    Packets packets;
} Description;

static int reference(const char *name, Description *d)
{
    memset(d, 0, sizeof *d);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", media, name);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    AudioFileID file = NULL;
    OSStatus status = AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file);
    CFRelease(url);
    CHECK(status == noErr, "%s opens with AudioFileOpenURL (%d)", name, (int)status);
    if (status) return 0;
    UInt32 size = sizeof d->fileType;
    AudioFileGetProperty(file, kAudioFilePropertyFileFormat, &size, &d->fileType);
    size = sizeof d->format;
    AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &size, &d->format);
    d->cookieSize = sizeof d->cookie;
    if (AudioFileGetProperty(file, kAudioFilePropertyMagicCookieData, &d->cookieSize, d->cookie)) d->cookieSize = 0;
    UInt64 count = 0;
    size = sizeof count;
    AudioFileGetProperty(file, kAudioFilePropertyAudioDataPacketCount, &size, &count);
    d->packetCount = (SInt64)count;
    size = sizeof d->table;
    d->hasTable = AudioFileGetProperty(file, kAudioFilePropertyPacketTableInfo, &size, &d->table) == noErr;
    size = sizeof d->dataOffset;
    AudioFileGetProperty(file, kAudioFilePropertyDataOffset, &size, &d->dataOffset);
    static unsigned char buffer[1 << 16];
    AudioStreamPacketDescription descriptions[64];
    for (SInt64 p = 0; p < (SInt64)count;) {
        UInt32 n = 64, bytes = sizeof buffer;
        if (AudioFileReadPacketData(file, false, &bytes, descriptions, p, &n, buffer) || n == 0) break;
        for (UInt32 i = 0; i < n; i++) {
            if (d->format.mBytesPerPacket) addPacket(&d->packets, buffer + i * d->format.mBytesPerPacket, d->format.mBytesPerPacket);
            else addPacket(&d->packets, buffer + descriptions[i].mStartOffset, descriptions[i].mDataByteSize);
        }
        p += n;
    }
    AudioFileClose(file);
    return 1;
}

/* A stream being fed, and what its callbacks saw. */
typedef struct {
    AudioFileStreamID stream;
    Description d;
    UInt32 announced[32];
    int announcedCount, ready;
    int closeInPackets, closedStatus, reenterInPackets;
    OSStatus reentered;
    long packetCalls, callsAfterClose;
    int closed;
    int seekInPackets;
    SInt64 seekPacket;
    /* The streaming-radio pattern: a converter made in the listener decodes as packets come. */
    int decode;
    AudioConverterRef converter;
    float *pcm;
    long frames, capacity;
    const void *feedData;
    AudioStreamPacketDescription *feedDescriptions;
    UInt32 feedPackets, feedBytes;
} Feed;

static void listener(void *user, AudioFileStreamID stream, AudioFileStreamPropertyID id, UInt32 *flags)
{
    Feed *f = user;
    (void)flags;
    if (f->announcedCount < 32) f->announced[f->announcedCount++] = id;
    if (id != kAudioFileStreamProperty_ReadyToProducePackets) return;
    f->ready++;
    UInt32 size = sizeof f->d.format;
    AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_DataFormat, &size, &f->d.format);
    size = sizeof f->d.fileType;
    AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_FileFormat, &size, &f->d.fileType);
    UInt32 cookieSize = 0;
    Boolean writable = 1;
    if (AudioFileStreamGetPropertyInfo(stream, kAudioFileStreamProperty_MagicCookieData, &cookieSize, &writable) == noErr &&
        cookieSize <= sizeof f->d.cookie) {
        f->d.cookieSize = cookieSize;
        AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_MagicCookieData, &f->d.cookieSize, f->d.cookie);
        CHECK(!writable, "the cookie is not writable");
    }
    UInt64 count = 0;
    size = sizeof count;
    f->d.packetCount = AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_AudioDataPacketCount, &size, &count) ? -1
                                                                                                                        : (SInt64)count;
    size = sizeof f->d.table;
    f->d.hasTable = AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_PacketTableInfo, &size, &f->d.table) == noErr;
    size = sizeof f->d.dataOffset;
    AudioFileStreamGetProperty(stream, kAudioFileStreamProperty_DataOffset, &size, &f->d.dataOffset);
    if (f->decode) {
        AudioStreamBasicDescription pcm = {f->d.format.mSampleRate, kAudioFormatLinearPCM,
                                           kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked, 8, 1, 8, 2, 32, 0};
        CHECK_STATUS(AudioConverterNew(&f->d.format, &pcm, &f->converter), noErr);
        if (f->converter && f->d.cookieSize)
            CHECK_STATUS(AudioConverterSetProperty(f->converter, kAudioConverterDecompressionMagicCookie, f->d.cookieSize, f->d.cookie),
                         noErr);
    }
}

static OSStatus decodeFeed(AudioConverterRef converter, UInt32 *ioPackets, AudioBufferList *data,
                           AudioStreamPacketDescription **descriptions, void *user)
{
    (void)converter;
    Feed *f = user;
    if (f->feedPackets == 0) { *ioPackets = 0; return 0x646F6E65; /* 'done': no more for now */ }
    data->mNumberBuffers = 1;
    data->mBuffers[0].mData = (void *)f->feedData;
    data->mBuffers[0].mDataByteSize = f->feedBytes;
    data->mBuffers[0].mNumberChannels = f->d.format.mChannelsPerFrame;
    if (descriptions) *descriptions = f->feedDescriptions;
    *ioPackets = f->feedPackets;
    f->feedPackets = 0;
    return noErr;
}

static void packetsProc(void *user, UInt32 bytes, UInt32 packets, const void *data, AudioStreamPacketDescription *descriptions)
{
    Feed *f = user;
    f->packetCalls++;
    if (f->closed) f->callsAfterClose++;
    CHECK(f->ready == 1, "packets come after ReadyToProducePackets");
    CHECK(packets > 0 && bytes > 0, "a packets call has packets (%u, %u bytes)", (unsigned)packets, (unsigned)bytes);
    for (UInt32 i = 0; i < packets; i++) {
        if (descriptions) {
            CHECK(descriptions[i].mStartOffset >= 0 && descriptions[i].mStartOffset + descriptions[i].mDataByteSize <= bytes,
                  "packet %u lies inside the bytes given", (unsigned)i);
            addPacket(&f->d.packets, (const unsigned char *)data + descriptions[i].mStartOffset, descriptions[i].mDataByteSize);
        } else {
            addPacket(&f->d.packets, (const unsigned char *)data + i * (bytes / packets), bytes / packets);
        }
    }
    if (f->decode && f->converter && descriptions) {
        f->feedData = data;
        f->feedDescriptions = descriptions;
        f->feedPackets = packets;
        f->feedBytes = bytes;
        for (;;) {
            if (f->frames + 8192 > f->capacity) {
                f->capacity = f->capacity * 2 + 65536;
                f->pcm = realloc(f->pcm, (size_t)f->capacity * 8);
            }
            UInt32 frames = 8192;
            AudioBufferList list = {1, {{2, frames * 8, f->pcm + f->frames * 2}}};
            OSStatus status = AudioConverterFillComplexBuffer(f->converter, decodeFeed, f, &frames, &list, NULL);
            f->frames += frames;
            if (status || frames == 0) break;
        }
    }
    if (f->reenterInPackets) f->reentered = AudioFileStreamParseBytes(f->stream, 4, "abcd", 0);
    if (f->seekInPackets) {
        SInt64 offset = 0;
        UInt32 flags = 0;
        CHECK_STATUS(AudioFileStreamSeek(f->stream, f->seekPacket, &offset, &flags), noErr);
        f->seekInPackets = 0;
    }
    if (f->closeInPackets && !f->closed) {
        f->closedStatus = AudioFileStreamClose(f->stream);
        f->closed = 1;
    }
}

static unsigned nextRandom(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* Feeds `size` bytes in pieces of 1..maxPiece bytes (a third of them 1 to 16 bytes). */
static OSStatus feedBytes(Feed *f, const unsigned char *data, long size, unsigned seed, int maxPiece, UInt32 firstFlags)
{
    long at = 0;
    UInt32 flags = firstFlags;
    while (at < size) {
        unsigned r = nextRandom(&seed);
        long n = r % 3 == 0 ? 1 + (long)(nextRandom(&seed) % 16) : 1 + (long)(nextRandom(&seed) % (unsigned)maxPiece);
        if (n > size - at) n = size - at;
        OSStatus status = AudioFileStreamParseBytes(f->stream, (UInt32)n, data + at, flags);
        flags = 0;
        if (status) return status;
        at += n;
        if (f->closed) return noErr;
    }
    return noErr;
}

static int openFeed(Feed *f)
{
    OSStatus status = AudioFileStreamOpen(f, listener, packetsProc, 0, &f->stream);
    CHECK(status == noErr && f->stream, "AudioFileStreamOpen (%d)", (int)status);
    f->d.packetCount = -1;
    return status == noErr;
}

static void closeFeed(Feed *f)
{
    if (f->stream && !f->closed) CHECK_STATUS(AudioFileStreamClose(f->stream), noErr);
    if (f->converter) AudioConverterDispose(f->converter);
    freePackets(&f->d.packets);
    free(f->pcm);
    memset(f, 0, sizeof *f);
}

/* The format a cookie and description decode to (so two cookies of one stream compare). */
static AudioStreamBasicDescription cookieFormat(const Description *d)
{
    AudioStreamBasicDescription out = d->format;
    UInt32 size = sizeof out;
    if (d->cookieSize) AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, d->cookieSize, d->cookie, &size, &out);
    return out;
}

static int samePackets(const Packets *a, const Packets *b, long *firstDifference)
{
    long n = a->packets < b->packets ? a->packets : b->packets;
    long at = 0;
    for (long i = 0; i < n; i++) {
        if (a->sizes[i] != b->sizes[i] || memcmp(a->bytes + at, b->bytes + at, a->sizes[i]) != 0) { *firstDifference = i; return 0; }
        at += a->sizes[i];
    }
    *firstDifference = n;
    return a->packets == b->packets;
}

/* Every medium streamed in random pieces gives what AudioFile reads from the whole file. */
static void streamsMatchFiles(void)
{
    static const char *names[] = {"pcm16.wav", "pcm24.wav", "float32.wav", "pcm8.wav", "ulaw.wav", "alaw.wav", "pcm16.aiff",
                                  "pcm24.aiff", "pcm16.aifc", "ima4.aifc", "pcm16le.caf", "pcm24be.caf", "float32.caf", "ima4.caf",
                                  "alac-stream.caf", "aac.aac", "mp3.mp3", "mp3-vbr.mp3", "mp3-radio.mp3", "aac-fast.m4a",
                                  "alac-fast.m4a"};
    for (unsigned n = 0; n < sizeof names / sizeof *names; n++) {
        Description want;
        if (!reference(names[n], &want)) continue;
        long size = 0;
        unsigned char *data = readMedia(names[n], &size);
        /* Seed 4, for CAF: one byte at a time, so the 'data' chunk's header arrives before
           its edit count (which is not audio). */
        unsigned seeds = strstr(names[n], ".caf") ? 4 : 3;
        for (unsigned seed = 1; seed <= seeds; seed++) {
            Feed f = {0};
            if (!openFeed(&f)) continue;
            OSStatus status = noErr;
            if (seed == 4)
                for (long at = 0; at < size && status == noErr && !f.closed; at++)
                    status = AudioFileStreamParseBytes(f.stream, 1, data + at, 0);
            else
                status = feedBytes(&f, data, size, seed * 7919u, seed == 3 ? 65536 : 8192, 0);
            CHECK(status == noErr, "%s (seed %u): ParseBytes gives %d", names[n], seed, (int)status);
            CHECK(f.ready == 1, "%s: ReadyToProducePackets once (%d)", names[n], f.ready);
            CHECK(f.announcedCount > 0 && f.announced[f.announcedCount - 1] == kAudioFileStreamProperty_ReadyToProducePackets,
                  "%s: ready is announced last", names[n]);
            int formatFirst = 0;
            for (int i = 0; i < f.announcedCount; i++) formatFirst |= f.announced[i] == kAudioFileStreamProperty_DataFormat;
            CHECK(formatFirst, "%s: DataFormat is announced", names[n]);
            CHECK(f.d.fileType == want.fileType, "%s: file type %08x, AudioFile says %08x", names[n], (unsigned)f.d.fileType,
                  (unsigned)want.fileType);
            CHECK(memcmp(&f.d.format, &want.format, sizeof want.format) == 0,
                  "%s: format %.0f/%08x/%u/%u/%u/%u/%u/%u, AudioFile says %.0f/%08x/%u/%u/%u/%u/%u/%u", names[n],
                  f.d.format.mSampleRate, (unsigned)f.d.format.mFormatID, (unsigned)f.d.format.mFormatFlags,
                  (unsigned)f.d.format.mBytesPerPacket, (unsigned)f.d.format.mFramesPerPacket, (unsigned)f.d.format.mBytesPerFrame,
                  (unsigned)f.d.format.mChannelsPerFrame, (unsigned)f.d.format.mBitsPerChannel, want.format.mSampleRate,
                  (unsigned)want.format.mFormatID, (unsigned)want.format.mFormatFlags, (unsigned)want.format.mBytesPerPacket,
                  (unsigned)want.format.mFramesPerPacket, (unsigned)want.format.mBytesPerFrame,
                  (unsigned)want.format.mChannelsPerFrame, (unsigned)want.format.mBitsPerChannel);
            CHECK((f.d.cookieSize > 0) == (want.cookieSize > 0), "%s: a cookie when AudioFile has one (%u, %u)", names[n],
                  (unsigned)f.d.cookieSize, (unsigned)want.cookieSize);
            if (want.cookieSize) {
                AudioStreamBasicDescription a = cookieFormat(&f.d), b = cookieFormat(&want);
                CHECK(memcmp(&a, &b, sizeof a) == 0, "%s: the cookie describes the same stream", names[n]);
                /* A player hands the stream's cookie to the converter AudioFile's would
                 * have had: the same bytes, not only the same meaning (issue 30). */
                CHECK(f.d.cookieSize == want.cookieSize && memcmp(f.d.cookie, want.cookie, want.cookieSize) == 0,
                      "%s (seed %u): the stream's cookie (%u bytes) is not AudioFile's (%u bytes)", names[n], seed,
                      (unsigned)f.d.cookieSize, (unsigned)want.cookieSize);
            }
            if (f.d.packetCount >= 0)
                CHECK(f.d.packetCount == want.packetCount, "%s: %lld packets stated, AudioFile has %lld", names[n],
                      (long long)f.d.packetCount, (long long)want.packetCount);
            if (!strcmp(names[n], "alac-stream.caf")) {
                /* ffmpeg's 'pakt' states whole packets (no remainder): the stream reports
                 * what the file says; AudioFile, with the whole file, decodes the last packet. */
                CHECK(f.d.hasTable && f.d.table.mNumberValidFrames == streamableValidFrames && f.d.table.mPrimingFrames == 0,
                      "%s: the packet table the file states (%lld valid)", names[n], (long long)streamableValidFrames);
            } else if (f.d.hasTable && want.hasTable)
                CHECK(f.d.table.mNumberValidFrames == want.table.mNumberValidFrames &&
                          f.d.table.mPrimingFrames == want.table.mPrimingFrames &&
                          f.d.table.mRemainderFrames == want.table.mRemainderFrames,
                      "%s: packet table %lld/%d/%d, AudioFile says %lld/%d/%d", names[n], (long long)f.d.table.mNumberValidFrames,
                      (int)f.d.table.mPrimingFrames, (int)f.d.table.mRemainderFrames, (long long)want.table.mNumberValidFrames,
                      (int)want.table.mPrimingFrames, (int)want.table.mRemainderFrames);
            CHECK(f.d.dataOffset == want.dataOffset, "%s: data offset %lld, AudioFile says %lld", names[n], (long long)f.d.dataOffset,
                  (long long)want.dataOffset);
            long difference = 0;
            CHECK(samePackets(&f.d.packets, &want.packets, &difference),
                  "%s (seed %u): %ld packets, %ld bytes; AudioFile reads %ld, %ld bytes; first difference at packet %ld", names[n],
                  seed, f.d.packets.packets, f.d.packets.byteCount, want.packets.packets, want.packets.byteCount, difference);
            closeFeed(&f);
        }
        /* The same packets whether the stream's sizes and tables are stated or not. */
        if (strstr(names[n], "mp3") || strstr(names[n], ".aac"))
            CHECK(want.packets.packets > 30, "%s has its packets (%ld)", names[n], want.packets.packets);
        free(data);
        freePackets(&want.packets);
    }
}

/* Moves a CAF's 'pakt' chunk before its 'data' (what a CAF made for streaming has):
 * ffmpeg writes it after the data. Returns 0 when the file is not laid out as expected. */
static int makeStreamableCAF(const char *from, const char *to)
{
    long size = 0;
    unsigned char *in = readMedia(from, &size);
    if (!in) return 0;
    long dataAt = -1, paktAt = -1, paktSize = 0;
    for (long at = 8; at + 12 <= size;) {
        long long n = 0;
        for (int i = 0; i < 8; i++) n = n << 8 | in[at + 4 + i];
        if (!memcmp(in + at, "data", 4)) dataAt = at;
        if (!memcmp(in + at, "pakt", 4) && at + 28 <= size) {
            paktAt = at;
            paktSize = 12 + (long)n;
            streamableValidFrames = 0;
            for (int i = 0; i < 8; i++) streamableValidFrames = streamableValidFrames << 8 | in[at + 20 + i];
        }
        if (n < 0) break;
        at += 12 + (long)n;
    }
    int ok = dataAt > 0 && paktAt > dataAt;
    if (ok) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", media, to);
        FILE *out = fopen(path, "wb");
        ok = out != NULL;
        if (out) {
            fwrite(in, 1, (size_t)dataAt, out);
            fwrite(in + paktAt, 1, (size_t)paktSize, out);
            fwrite(in + dataAt, 1, (size_t)(paktAt - dataAt), out);
            fwrite(in + paktAt + paktSize, 1, (size_t)(size - paktAt - paktSize), out);
            fclose(out);
        }
    }
    free(in);
    return ok;
}

/* Files whose packets cannot be found before their end: Apple's 'optm', no packets. */
static void notOptimized(void)
{
    static const char *names[] = {"aac.m4a", "alac.caf"};
    for (unsigned n = 0; n < 2; n++) {
        long size = 0;
        unsigned char *data = readMedia(names[n], &size);
        Feed f = {0};
        if (!data || !openFeed(&f)) { free(data); continue; }
        OSStatus status = feedBytes(&f, data, size, 5, 4096, 0);
        CHECK(status == kAudioFileStreamError_NotOptimized, "%s: 'optm' (got %d)", names[n], (int)status);
        CHECK(f.d.packets.packets == 0, "%s: no packets", names[n]);
        CHECK_STATUS(AudioFileStreamParseBytes(f.stream, 16, data, 0), kAudioFileStreamError_NotOptimized);
        closeFeed(&f);
        free(data);
    }
}

/* A radio stream joined at any byte: the frames are found, and they are the file's frames. */
static void joinedMidStream(void)
{
    Description want;
    if (!reference("mp3-radio.mp3", &want)) return;
    long size = 0;
    unsigned char *data = readMedia("mp3-radio.mp3", &size);
    long starts[] = {1, 417, 1234, 5555, size / 2};
    for (unsigned s = 0; s < sizeof starts / sizeof *starts; s++) {
        Feed f = {0};
        if (!openFeed(&f)) continue;
        CHECK_STATUS(feedBytes(&f, data + starts[s], size - starts[s], 11 + s, 3000, 0), noErr);
        CHECK(f.ready == 1, "joined at %ld: ready", starts[s]);
        /* The first packet found is one of the file's, and every later one follows it. */
        long first = -1, at = 0;
        for (long i = 0; i < want.packets.packets && f.d.packets.packets > 0; i++) {
            if (want.packets.sizes[i] == f.d.packets.sizes[0] && !memcmp(want.packets.bytes + at, f.d.packets.bytes, f.d.packets.sizes[0])) {
                first = i;
                break;
            }
            at += want.packets.sizes[i];
        }
        CHECK(first >= 0, "joined at %ld: the first packet is one of the file's", starts[s]);
        if (first >= 0) {
            CHECK(f.d.packets.packets == want.packets.packets - first && !memcmp(f.d.packets.bytes, want.packets.bytes + at,
                                                                                 (size_t)f.d.packets.byteCount),
                  "joined at %ld: packets %ld.. of %ld follow (%ld got)", starts[s], first, want.packets.packets, f.d.packets.packets);
            CHECK(first * 418 <= starts[s] + 1044 && at >= starts[s] - 1044, "joined at %ld: nothing skipped (first packet %ld)",
                  starts[s], first);
        }
        closeFeed(&f);
    }
    free(data);
    freePackets(&want.packets);
}

/* AudioFileStreamSeek, then the bytes from the offset it gives (with the discontinuity
 * flag): the first packet delivered is the packet asked for (for CBR and indexed data
 * exactly; for MP3 an estimate, flagged as one, that lands on a nearby packet). */
static void seeking(void)
{
    static const char *names[] = {"pcm16.wav", "ima4.caf", "aac-fast.m4a", "alac-fast.m4a", "alac-stream.caf", "mp3.mp3", "aac.aac"};
    for (unsigned n = 0; n < sizeof names / sizeof *names; n++) {
        Description want;
        if (!reference(names[n], &want)) continue;
        long size = 0;
        unsigned char *data = readMedia(names[n], &size);
        Feed f = {0};
        if (!data || !openFeed(&f)) { free(data); continue; }
        /* The header and a little more, then the seek. */
        long head = want.dataOffset + 3000 < size ? want.dataOffset + 3000 : size;
        CHECK_STATUS(feedBytes(&f, data, head, 3, 700, 0), noErr);
        CHECK(f.ready == 1, "%s: ready before seeking", names[n]);
        SInt64 target = want.packetCount > 40 ? 20 : want.packetCount / 2, offset = -1;
        UInt32 flags = 0;
        CHECK_STATUS(AudioFileStreamSeek(f.stream, target, &offset, &flags), noErr);
        int estimated = (flags & kAudioFileStreamSeekFlag_OffsetIsEstimated) != 0;
        int framed = want.format.mFormatID == kAudioFormatMPEGLayer3 || strstr(names[n], ".aac") != NULL;
        CHECK(estimated == framed, "%s: the offset is %s", names[n], framed ? "an estimate" : "exact");
        long before = f.d.packets.packets, beforeBytes = f.d.packets.byteCount;
        CHECK(offset >= 0 && want.dataOffset + offset < size, "%s: offset %lld inside the file", names[n], (long long)offset);
        if (offset >= 0 && want.dataOffset + offset < size)
            CHECK_STATUS(feedBytes(&f, data + want.dataOffset + offset, size - want.dataOffset - offset, 9, 900,
                                   kAudioFileStreamParseFlag_Discontinuity), noErr);
        long got = f.d.packets.packets - before;
        /* Which of the file's packets the first one after the seek is. */
        long at = 0, which = -1;
        for (long i = 0; i < want.packets.packets && got > 0; i++) {
            if (want.packets.sizes[i] == f.d.packets.sizes[before] &&
                !memcmp(want.packets.bytes + at, f.d.packets.bytes + beforeBytes, want.packets.sizes[i])) {
                which = i;
                if (i >= target - 3) break;
            }
            at += want.packets.sizes[i];
        }
        if (framed)
            CHECK(which >= target - 3 && which <= target + 3, "%s: the estimate lands on packet %ld (asked %lld)", names[n], which,
                  (long long)target);
        else
            CHECK(which == target, "%s: the first packet after the seek is packet %ld (asked %lld)", names[n], which, (long long)target);
        CHECK(got == want.packets.packets - which, "%s: then every packet to the end (%ld of %ld)", names[n], got,
              want.packets.packets - which);
        closeFeed(&f);
        free(data);
        freePackets(&want.packets);
    }
}

/* The streaming-radio pattern: the listener makes a converter when the stream is ready
 * (format and cookie from the stream), the packets procedure decodes what arrives. After
 * the priming the stream states, the audio is the source. */
static void streamingRadioPattern(void)
{
    long sourceSize = 0;
    float *source = (float *)readMedia("source.f32", &sourceSize);
    static const char *names[] = {"mp3.mp3", "aac-fast.m4a", "mp3-vbr.mp3", "alac-fast.m4a"};
    for (unsigned n = 0; n < sizeof names / sizeof *names && source; n++) {
        long size = 0;
        unsigned char *data = readMedia(names[n], &size);
        Feed f = {0};
        f.decode = 1;
        if (!data || !openFeed(&f)) { free(data); continue; }
        CHECK_STATUS(feedBytes(&f, data, size, 21, 1500, 0), noErr);
        CHECK(f.d.hasTable, "%s: the stream states its priming", names[n]);
        long priming = f.d.table.mPrimingFrames, valid = (long)f.d.table.mNumberValidFrames;
        CHECK(valid == 44100, "%s: 44100 valid frames stated (%ld)", names[n], valid);
        double quality = 0;
        /* The first and last 2048 frames are left out: a lossy codec's edges. */
        if (f.frames >= priming + 44100) quality = snr(f.pcm + 2 * (priming + 2048), source + 2 * 2048, 2 * (44100 - 4096));
        double floor = strstr(names[n], "alac") ? 100 : 30;
        CHECK(quality >= floor, "%s: decoded as it streams, after %ld priming frames it is the source at %.1f dB (%ld frames)", names[n],
              priming, quality, f.frames);
        printf("measured: %s streamed and decoded: %.1f dB after %ld priming frames\n", names[n], quality, priming);
        closeFeed(&f);
        free(data);
    }
    free(source);
}

/* The program's callbacks may close the stream, call ParseBytes again, or seek. */
static void hostileCallbacks(void)
{
    long size = 0;
    unsigned char *data = readMedia("aac.aac", &size);
    if (!data) { CHECK(0, "aac.aac"); return; }
    Feed f = {0};
    if (openFeed(&f)) {
        f.reenterInPackets = 1;
        CHECK_STATUS(feedBytes(&f, data, 20000, 1, 4096, 0), noErr);
        CHECK(f.reentered == kAudioFileStreamError_IllegalOperation, "ParseBytes from the packets procedure: 'nope' (%d)",
              (int)f.reentered);
        closeFeed(&f);
    }
    if (openFeed(&f)) {
        AudioFileStreamID id = f.stream;
        f.closeInPackets = 1;
        CHECK_STATUS(feedBytes(&f, data, size, 2, 4096, 0), noErr);
        CHECK(f.closedStatus == noErr, "Close from the packets procedure succeeds");
        CHECK(f.callsAfterClose == 0, "no callback after Close (%ld)", f.callsAfterClose);
        CHECK_STATUS(AudioFileStreamParseBytes(id, 16, data, 0), kAudioFileStreamError_IllegalOperation);
        CHECK_STATUS(AudioFileStreamClose(id), kAudioFileStreamError_IllegalOperation);
        f.closed = 1;
        closeFeed(&f);
    }
    /* A seek from inside the packets procedure: what was held of the old position (a
     * partial packet) is dropped and the next bytes are taken from the offset. */
    Description want;
    if (reference("aac.aac", &want) && openFeed(&f)) {
        f.seekInPackets = 1;
        f.seekPacket = 0;
        OSStatus status = AudioFileStreamParseBytes(f.stream, 3001, data, 0);
        CHECK(status == noErr, "ParseBytes around a seek from the packets procedure (%d)", (int)status);
        long first = f.d.packets.packets;
        CHECK(first > 0 && first < 10, "packets before the seek (%ld)", first);
        CHECK_STATUS(AudioFileStreamParseBytes(f.stream, (UInt32)size, data, kAudioFileStreamParseFlag_Discontinuity), noErr);
        CHECK(f.d.packets.packets - first == want.packets.packets &&
                  !memcmp(f.d.packets.bytes + (f.d.packets.byteCount - want.packets.byteCount), want.packets.bytes,
                          (size_t)want.packets.byteCount),
              "then the file's packets again from its start, none damaged (%ld of %ld)", f.d.packets.packets - first,
              want.packets.packets);
        closeFeed(&f);
        freePackets(&want.packets);
    }
    free(data);
}

/* Every bad input gets its code and changes nothing. */
static void badInput(void)
{
    AudioFileStreamID s = NULL;
    CHECK_STATUS(AudioFileStreamOpen(NULL, NULL, packetsProc, 0, &s), kAudio_ParamError);
    CHECK_STATUS(AudioFileStreamOpen(NULL, listener, NULL, 0, &s), kAudio_ParamError);
    CHECK_STATUS(AudioFileStreamOpen(NULL, listener, packetsProc, 0, NULL), kAudio_ParamError);
    CHECK_STATUS(AudioFileStreamParseBytes(NULL, 4, "abcd", 0), kAudio_ParamError);
    CHECK_STATUS(AudioFileStreamClose(NULL), kAudio_ParamError);
    Feed f = {0};
    if (!openFeed(&f)) return;
    UInt32 size = 4, value = 0;
    AudioStreamBasicDescription d;
    SInt64 offset = 0;
    UInt32 flags = 0;
    struct { UInt32 id; UInt32 size; OSStatus want; } table[] = {
        {kAudioFileStreamProperty_DataFormat, sizeof d, kAudioFileStreamError_ValueUnknown},
        {kAudioFileStreamProperty_FileFormat, 4, kAudioFileStreamError_ValueUnknown},
        {kAudioFileStreamProperty_MagicCookieData, 64, kAudioFileStreamError_ValueUnknown},
        {0x7A7A7A7A, 4, kAudioFileStreamError_UnsupportedProperty},
    };
    for (unsigned i = 0; i < sizeof table / sizeof *table; i++) {
        size = table[i].size;
        CHECK_STATUS(AudioFileStreamGetProperty(f.stream, table[i].id, &size, &d), table[i].want);
    }
    size = 4;
    CHECK_STATUS(AudioFileStreamGetProperty(f.stream, kAudioFileStreamProperty_ReadyToProducePackets, &size, &value), noErr);
    CHECK(value == 0, "not ready before any bytes");
    CHECK_STATUS(AudioFileStreamSeek(f.stream, 0, &offset, &flags), kAudioFileStreamError_DataUnavailable);
    CHECK_STATUS(AudioFileStreamParseBytes(f.stream, 4, NULL, 0), kAudio_ParamError);
    CHECK_STATUS(AudioFileStreamParseBytes(f.stream, 0, NULL, 0), noErr);
    long wavSize = 0;
    unsigned char *wav = readMedia("pcm16.wav", &wavSize);
    if (wav) {
        CHECK_STATUS(AudioFileStreamParseBytes(f.stream, 4000, wav, 0), noErr);
        size = 2;
        CHECK_STATUS(AudioFileStreamGetProperty(f.stream, kAudioFileStreamProperty_DataFormat, &size, &d), kAudioFileStreamError_BadPropertySize);
        CHECK_STATUS(AudioFileStreamGetProperty(f.stream, kAudioFileStreamProperty_DataFormat, NULL, &d), kAudio_ParamError);
        CHECK_STATUS(AudioFileStreamSeek(f.stream, -1, &offset, &flags), kAudioFileStreamError_InvalidPacketOffset);
        CHECK_STATUS(AudioFileStreamSeek(f.stream, 44100, &offset, &flags), kAudioFileStreamError_InvalidPacketOffset);
        CHECK_STATUS(AudioFileStreamSeek(f.stream, 10, NULL, &flags), kAudio_ParamError);
        CHECK_STATUS(AudioFileStreamSetProperty(f.stream, kAudioFileStreamProperty_DataOffset, 8, &offset),
                     kAudioFileStreamError_IllegalOperation);
        CHECK_STATUS(AudioFileStreamSetProperty(f.stream, 0x7A7A7A7A, 4, &value), kAudioFileStreamError_UnsupportedProperty);
        /* The translations, for a constant-rate stream: exact. */
        AudioBytePacketTranslation t = {0, 100, 0, 0};
        size = sizeof t;
        CHECK_STATUS(AudioFileStreamGetProperty(f.stream, kAudioFileStreamProperty_PacketToByte, &size, &t), noErr);
        CHECK(t.mByte == 400 && t.mFlags == 0, "packet 100 is byte 400, exactly (%lld, %u)", (long long)t.mByte, (unsigned)t.mFlags);
        t.mByte = 401;
        t.mPacket = -1;
        CHECK_STATUS(AudioFileStreamGetProperty(f.stream, kAudioFileStreamProperty_ByteToPacket, &size, &t), noErr);
        CHECK(t.mPacket == 100 && t.mByteOffsetInPacket == 1 && t.mFlags == 0, "byte 401 is packet 100 at 1 (%lld at %u)",
              (long long)t.mPacket, (unsigned)t.mByteOffsetInPacket);
        AudioFramePacketTranslation frames = {4410, 0, 0};
        UInt32 framesSize = 0;
        CHECK_STATUS(AudioFileStreamGetPropertyInfo(f.stream, kAudioFileStreamProperty_FrameToPacket, &framesSize, NULL), noErr);
        CHECK(framesSize == sizeof frames, "the frame translation is C's %zu bytes (%u)", sizeof frames, (unsigned)framesSize);
        size = sizeof frames;
        CHECK_STATUS(AudioFileStreamGetProperty(f.stream, kAudioFileStreamProperty_FrameToPacket, &size, &frames), noErr);
        CHECK(frames.mPacket == 4410, "frame 4410 of PCM is packet 4410 (%lld)", (long long)frames.mPacket);
        UInt32 bitRate = 0;
        size = 4;
        CHECK_STATUS(AudioFileStreamGetProperty(f.stream, kAudioFileStreamProperty_BitRate, &size, &bitRate), noErr);
        CHECK(bitRate == 44100 * 32, "16-bit stereo 44.1 kHz is %u bits/s", (unsigned)bitRate);
        free(wav);
    }
    closeFeed(&f);
    /* Not audio: 'typ?' once enough has been seen, then the same code again. */
    unsigned char *noise = malloc(100000);
    unsigned seed = 99;
    for (int i = 0; i < 100000; i++) noise[i] = (unsigned char)(nextRandom(&seed) & 0xFF);
    noise[0] = 'J'; /* no container's magic */
    if (openFeed(&f)) {
        CHECK_STATUS(feedBytes(&f, noise, 100000, 4, 4096, 0), kAudioFileStreamError_UnsupportedFileType);
        CHECK_STATUS(AudioFileStreamParseBytes(f.stream, 8, noise, 0), kAudioFileStreamError_UnsupportedFileType);
        CHECK(f.ready == 0 && f.packetCalls == 0, "no properties, no packets from noise");
        closeFeed(&f);
    }
    /* Lying headers: a WAVE 'fmt ' of a format not read, a CAF packet table that ends
     * early, a 'moov' whose sample table points backwards. */
    unsigned char wave[64] = "RIFF\x38\0\0\0WAVEfmt \x10\0\0\0\x55\0\x02\0\x44\xac\0\0\0\0\0\0\x04\0\x10\0data\x10\0\0\0";
    if (openFeed(&f)) {
        CHECK_STATUS(AudioFileStreamParseBytes(f.stream, 60, wave, 0), kAudioFileStreamError_UnsupportedDataFormat);
        closeFeed(&f);
    }
    /* A CAF of AAC whose packet table says 16 packets and holds the sizes of 2. */
    unsigned char caf[128];
    size_t n = 0;
#define PUT(bytes, count) (memcpy(caf + n, bytes, count), n += count)
#define PUT32(v) do { UInt32 v_ = (UInt32)(v); unsigned char b_[4] = {v_ >> 24, v_ >> 16, v_ >> 8, v_}; PUT(b_, 4); } while (0)
    PUT("caff\0\x01\0\0", 8);
    PUT("desc", 4); PUT32(0); PUT32(32);
    Float64 rate = 44100;
    UInt64 bits;
    memcpy(&bits, &rate, 8);
    PUT32(bits >> 32); PUT32(bits);
    PUT32(kAudioFormatMPEG4AAC); PUT32(2); PUT32(0); PUT32(1024); PUT32(2); PUT32(0);
    PUT("pakt", 4); PUT32(0); PUT32(26);
    PUT32(0); PUT32(16); PUT32(0); PUT32(16 * 1024); PUT32(0); PUT32(0);
    PUT("\x81\x01", 2);
    PUT("data", 4); PUT32(0); PUT32(1000);
#undef PUT32
#undef PUT
    if (openFeed(&f)) {
        CHECK_STATUS(AudioFileStreamParseBytes(f.stream, (UInt32)n, caf, 0), kAudioFileStreamError_InvalidFile);
        CHECK(f.ready == 0, "nothing announced from a lying CAF");
        closeFeed(&f);
    }
    free(noise);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: test_audio_file_stream MEDIA_DIR\n"); return 2; }
    media = argv[1];
    installWatchdog("test_audio_file_stream");
    alarm(600);
    CHECK(makeStreamableCAF("alac.caf", "alac-stream.caf"), "a streamable ALAC CAF made from ffmpeg's");
    streamsMatchFiles();
    notOptimized();
    joinedMidStream();
    seeking();
    streamingRadioPattern();
    hostileCallbacks();
    badInput();
    return finish("test_audio_file_stream");
}
