/* Mutated files never hurt: every medium of make-media.sh, mutated many times (bytes
 * flipped, runs overwritten with 0xFF or 0x00, sizes in headers made huge, the file cut
 * short), is opened with AudioFileOpenURL and ExtAudioFileOpenURL and read to its end,
 * and fed to Audio File Stream's parser in pieces of random size.
 * Each must give a code or its audio: no crash, no hang (a watchdog), and the reading of
 * one bounded (the frames read of a 1-second file stay below a limit). Deterministic:
 * the mutations come from a fixed seed. Usage: fuzz_audio_files MEDIA_DIR ROUNDS */
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../c/check.h"

static unsigned long long state = 0x9E3779B97F4A7C15ull;
static unsigned next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned)state;
}

static void mutate(unsigned char *data, long *size)
{
    int kind = next() % 5;
    long n = *size;
    if (n < 16) return;
    switch (kind) {
    case 0: for (int i = 0; i < 1 + (int)(next() % 8); i++) data[next() % n] ^= (unsigned char)(1u << (next() % 8)); break;
    case 1: { long at = next() % n, len = 1 + next() % 16; for (long i = at; i < at + len && i < n; i++) data[i] = 0xFF; } break;
    case 2: { long at = next() % n, len = 1 + next() % 64; for (long i = at; i < at + len && i < n; i++) data[i] = 0; } break;
    case 3: { long at = (next() % (n < 256 ? n : 256)) & ~3L; if (at + 4 <= n) memset(data + at, 0x7F, 4); } break;
    case 4: *size = 1 + next() % n; break;
    }
}

/* What the stream parser's callbacks saw of one mutated file. */
struct StreamSeen {
    long packets, bytes, badDescriptions;
};

static void streamListener(void *user, AudioFileStreamID stream, AudioFileStreamPropertyID id, UInt32 *flags)
{
    (void)user, (void)flags;
    /* Read every property as a program would, whatever the stream said. */
    unsigned char value[512];
    UInt32 size = sizeof value;
    AudioFileStreamGetProperty(stream, id, &size, value);
}

static void streamPackets(void *user, UInt32 bytes, UInt32 packets, const void *data, AudioStreamPacketDescription *descriptions)
{
    struct StreamSeen *seen = user;
    volatile unsigned char sink = 0;
    for (UInt32 i = 0; i < packets && descriptions; i++) {
        if (descriptions[i].mStartOffset < 0 || descriptions[i].mStartOffset + descriptions[i].mDataByteSize > bytes) {
            seen->badDescriptions++;
            continue;
        }
        /* Touch the packet's last byte: it must be readable. */
        if (descriptions[i].mDataByteSize) sink ^= ((const unsigned char *)data)[descriptions[i].mStartOffset + descriptions[i].mDataByteSize - 1];
    }
    if (!descriptions && bytes) sink ^= ((const unsigned char *)data)[bytes - 1];
    (void)sink;
    seen->packets += packets;
    seen->bytes += bytes;
}

static long streamed, streamRefused;

/* Feeds a mutated file to the stream parser in pieces of 1 to 4096 bytes. */
static void fuzzStream(const char *name, int round, const unsigned char *data, long size)
{
    struct StreamSeen seen = {0, 0, 0};
    AudioFileStreamID stream = NULL;
    if (AudioFileStreamOpen(&seen, streamListener, streamPackets, 0, &stream)) { CHECK(0, "AudioFileStreamOpen"); return; }
    OSStatus status = noErr;
    for (long at = 0; at < size && !status;) {
        long n = 1 + (long)(next() % 4096);
        if (n > size - at) n = size - at;
        status = AudioFileStreamParseBytes(stream, (UInt32)n, data + at, next() % 50 == 0 ? kAudioFileStreamParseFlag_Discontinuity : 0);
        at += n;
    }
    if (status) streamRefused++; else streamed++;
    CHECK(seen.badDescriptions == 0, "%s round %d: %ld packet descriptions outside the bytes given", name, round, seen.badDescriptions);
    CHECK(seen.bytes <= size, "%s round %d: %ld bytes of packets from a %ld-byte file", name, round, seen.bytes, size);
    AudioFileStreamClose(stream);
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: fuzz_audio_files MEDIA_DIR ROUNDS\n"); return 2; }
    const char *media = argv[1];
    int rounds = atoi(argv[2]);
    const char *names[] = {"pcm16.wav", "pcm24.aiff", "pcm16.aifc", "pcm16le.caf", "ulaw.wav", "ima4.caf", "ima4.aifc",
                           "aac.m4a", "aac.aac", "mp3.mp3", "alac.caf", "alac.m4a", "aac-fast.m4a", "alac-fast.m4a",
                           "mp3-vbr.mp3", "mp3-radio.mp3",
                           /* Markers, regions and user chunks: made by test_audio_file_annotations,
                              which run-tests.sh runs first in the same folder. */
                           "annotated.caf", "cues.wav", "marks.aiff", "written.caf"};
    installWatchdog("fuzz");
    char target[1024];
    snprintf(target, sizeof target, "%s/fuzzed.bin", media);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)target, (CFIndex)strlen(target), false);
    long opened = 0, refused = 0, total = 0;
    float buffer[2 * 4096];
    for (unsigned f = 0; f < sizeof names / sizeof *names; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", media, names[f]);
        FILE *in = fopen(path, "rb");
        if (!in) { CHECK(0, "cannot read %s", path); continue; }
        fseek(in, 0, SEEK_END);
        long size = ftell(in);
        fseek(in, 0, SEEK_SET);
        unsigned char *original = malloc((size_t)size), *copy = malloc((size_t)size);
        if (fread(original, 1, (size_t)size, in) != (size_t)size) size = 0;
        fclose(in);
        for (int r = 0; r < rounds; r++) {
            long n = size;
            memcpy(copy, original, (size_t)size);
            for (int m = 0; m < 1 + (int)(next() % 3); m++) mutate(copy, &n);
            FILE *out = fopen(target, "wb");
            fwrite(copy, 1, (size_t)n, out);
            fclose(out);
            alarm(60);
            fuzzStream(names[f], r, copy, n);
            AudioFileID file = NULL;
            if (AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file) == noErr) {
                UInt64 packets = 0;
                UInt32 s = sizeof packets;
                AudioFileGetProperty(file, kAudioFilePropertyAudioDataPacketCount, &s, &packets);
                /* The marker and region lists and the user data, read as a program would. */
                static const UInt32 lists[] = {kAudioFilePropertyMarkerList, kAudioFilePropertyRegionList};
                for (int l = 0; l < 2; l++) {
                    UInt32 listSize = 0;
                    if (AudioFileGetPropertyInfo(file, lists[l], &listSize, NULL) || listSize > (1u << 24)) continue;
                    void *list = calloc(1, listSize + 1);
                    UInt32 got = listSize;
                    if (AudioFileGetProperty(file, lists[l], &got, list) == noErr) {
                        CHECK(got == listSize, "%s round %d: a list of %u bytes said %u", names[f], r, (unsigned)got,
                              (unsigned)listSize);
                        if (l == 0) {
                            AudioFileMarkerList *m = list;
                            for (UInt32 i = 0; i < m->mNumberMarkers; i++)
                                if (m->mMarkers[i].mName) CFRelease(m->mMarkers[i].mName);
                        } else {
                            AudioFileRegionList *rl = list;
                            AudioFileRegion *region = rl->mRegions;
                            for (UInt32 i = 0; i < rl->mNumberRegions; i++, region = NextAudioFileRegion(region)) {
                                if (region->mName) CFRelease(region->mName);
                                for (UInt32 k = 0; k < region->mNumberMarkers; k++)
                                    if (region->mMarkers[k].mName) CFRelease(region->mMarkers[k].mName);
                            }
                        }
                    }
                    free(list);
                }
                static const UInt32 chunkTypes[] = {0x61626364 /* abcd */, 0x75736572 /* user */, 0x6D696E65 /* mine */,
                                                    0x4C495354 /* LIST */, 0x66726565 /* free */};
                for (int c = 0; c < 5; c++) {
                    UInt32 items = 0;
                    AudioFileCountUserData(file, chunkTypes[c], &items);
                    for (UInt32 i = 0; i < items && i < 4; i++) {
                        UInt32 chunkSize = 0;
                        if (AudioFileGetUserDataSize(file, chunkTypes[c], i, &chunkSize) || chunkSize > (1u << 24)) continue;
                        void *chunk = malloc(chunkSize + 1);
                        AudioFileGetUserData(file, chunkTypes[c], i, &chunkSize, chunk);
                        free(chunk);
                    }
                }
                static char bytes[1 << 16];
                AudioStreamPacketDescription descriptions[16];
                for (SInt64 p = 0; p < (SInt64)packets;) {
                    UInt32 count = 16, byteCount = sizeof bytes;
                    OSStatus status = AudioFileReadPacketData(file, false, &byteCount, descriptions, p, &count, bytes);
                    if (count == 0 || status) break;
                    p += count;
                }
                AudioFileClose(file);
            }
            ExtAudioFileRef ext = NULL;
            if (ExtAudioFileOpenURL(url, &ext) == noErr) {
                opened++;
                AudioStreamBasicDescription client = {44100, kAudioFormatLinearPCM,
                                                      kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked, 8, 1, 8, 2, 32, 0};
                ExtAudioFileSetProperty(ext, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client);
                long frames = 0;
                for (;;) {
                    AudioBufferList list = {1, {{2, sizeof buffer, buffer}}};
                    UInt32 count = 4096;
                    if (ExtAudioFileRead(ext, &count, &list) || count == 0) break;
                    frames += count;
                    if (frames > 50 * 44100) break;
                }
                CHECK(frames <= 50 * 44100, "%s round %d: a 1-second file read as %ld frames", names[f], r, frames);
                ExtAudioFileDispose(ext);
            } else {
                refused++;
            }
            alarm(0);
            total++;
        }
        free(original);
        free(copy);
    }
    CFRelease(url);
    unlink(target);
    CHECK(total > 0, "files tried");
    printf("measured: %ld mutated files: %ld opened and read to the end, %ld refused with a code\n", total, opened, refused);
    printf("measured: the same %ld through Audio File Stream in random pieces: %ld parsed to the end, %ld stopped with a code\n",
           total, streamed, streamRefused);
    return finish("fuzz_audio_files");
}
