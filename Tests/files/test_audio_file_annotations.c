/* Markers, regions and user data (extra chunks) in Audio File Services. The WAV, AIFF
 * and CAF files read here are assembled byte by byte by this program from the container
 * specifications (no encoder involved); the CAF we write is walked chunk by chunk here
 * too, so our writer is not only checked against our own reader.
 * Usage: test_audio_file_annotations MEDIA_DIR (a writable folder) */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../c/check.h"

static const char *media;

/* A four-character code from its text (the multi-character constant spelled portably). */
#define CODE(s) ((UInt32)(s)[0] << 24 | (UInt32)(s)[1] << 16 | (UInt32)(s)[2] << 8 | (UInt32)(s)[3])

static const char *mediaPath(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", media, name);
    return path;
}

static CFURLRef urlOf(const char *name)
{
    const char *path = mediaPath(name);
    return CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
}

/* ---- a growing byte buffer with fixed-endian writers -------------------------------- */

typedef struct { unsigned char *bytes; size_t size, capacity; } Bytes;

static void put(Bytes *o, const void *data, size_t n)
{
    if (o->size + n > o->capacity) {
        o->capacity = (o->size + n) * 2;
        o->bytes = realloc(o->bytes, o->capacity);
    }
    memcpy(o->bytes + o->size, data, n);
    o->size += n;
}
static void putText(Bytes *o, const char *s) { put(o, s, strlen(s)); }
static void u8(Bytes *o, unsigned v) { unsigned char b = (unsigned char)v; put(o, &b, 1); }
static void be(Bytes *o, uint64_t v, int n) { for (int i = n - 1; i >= 0; i--) u8(o, (unsigned)(v >> (8 * i)) & 0xff); }
static void le(Bytes *o, uint64_t v, int n) { for (int i = 0; i < n; i++) u8(o, (unsigned)(v >> (8 * i)) & 0xff); }
static void beF64(Bytes *o, double d) { uint64_t v; memcpy(&v, &d, 8); be(o, v, 8); }
static void patchLE32(Bytes *o, size_t at, uint32_t v) { for (int i = 0; i < 4; i++) o->bytes[at + i] = (unsigned char)(v >> (8 * i)); }
static void patchBE32(Bytes *o, size_t at, uint32_t v) { for (int i = 0; i < 4; i++) o->bytes[at + i] = (unsigned char)(v >> (24 - 8 * i)); }
static uint64_t readBE(const unsigned char *p, int n) { uint64_t v = 0; for (int i = 0; i < n; i++) v = v << 8 | p[i]; return v; }
static double readBEF64(const unsigned char *p) { uint64_t v = readBE(p, 8); double d; memcpy(&d, &v, 8); return d; }

static int saveFile(const char *name, const Bytes *o)
{
    FILE *f = fopen(mediaPath(name), "wb");
    if (!f) return 0;
    int ok = fwrite(o->bytes, 1, o->size, f) == o->size;
    return fclose(f) == 0 && ok;
}

/* One second of a 441 Hz tone, 16-bit stereo at 44100 Hz, as interleaved samples. */
enum { kFrames = 44100, kAudioBytes = kFrames * 4 };
static short tone[kFrames * 2];

static void putSamples(Bytes *o, int bigEndian)
{
    for (int i = 0; i < kFrames * 2; i++) (bigEndian ? be : le)(o, (uint16_t)tone[i], 2);
}

/* ---- the hand-built files --------------------------------------------------------- */

/* A RIFF chunk: ID, little-endian size, data, and a pad byte when the size is odd. */
static void riffChunk(Bytes *o, const char *id, const void *data, size_t n)
{
    putText(o, id); le(o, n, 4); put(o, data, n);
    if (n & 1) u8(o, 0);
}

static void makeWAV(const char *name, int annotated)
{
    Bytes o = {0};
    putText(&o, "RIFF"); le(&o, 0, 4); putText(&o, "WAVE");
    putText(&o, "fmt "); le(&o, 16, 4);
    le(&o, 1, 2); le(&o, 2, 2); le(&o, 44100, 4); le(&o, 44100 * 4, 4); le(&o, 4, 2); le(&o, 16, 2);
    if (annotated) riffChunk(&o, "abcd", "hello", 5); /* odd: one pad byte follows */
    putText(&o, "data"); le(&o, kAudioBytes, 4); putSamples(&o, 0);
    if (annotated) {
        /* Two cue points (ID, play position, 'data', chunk start, block start, sample offset). */
        const uint32_t ids[2] = {1, 2}, frames[2] = {1000, 22050};
        putText(&o, "cue "); le(&o, 4 + 2 * 24, 4); le(&o, 2, 4);
        for (int i = 0; i < 2; i++) {
            le(&o, ids[i], 4); le(&o, frames[i], 4); putText(&o, "data"); le(&o, 0, 4); le(&o, 0, 4); le(&o, frames[i], 4);
        }
        /* The associated-data list: a label (cue ID, then text with its NUL) per cue. */
        const char *labels[2] = {"intro", "chorus"};
        Bytes list = {0};
        putText(&list, "adtl");
        for (int i = 0; i < 2; i++) {
            Bytes label = {0};
            le(&label, ids[i], 4);
            put(&label, labels[i], strlen(labels[i]) + 1);
            riffChunk(&list, "labl", label.bytes, label.size);
            free(label.bytes);
        }
        riffChunk(&o, "LIST", list.bytes, list.size);
        free(list.bytes);
    }
    patchLE32(&o, 4, (uint32_t)(o.size - 8));
    CHECK(saveFile(name, &o), "%s: written to the media folder", name);
    free(o.bytes);
}

/* An integral rate as an 80-bit extended float: sign+exponent, then a 64-bit mantissa
 * with its leading 1 explicit. */
static void putExtended(Bytes *o, uint32_t rate)
{
    int exponent = 31;
    while (!(rate & (1u << exponent))) exponent--;
    be(o, 16383 + exponent, 2);
    be(o, (uint64_t)rate << (63 - exponent), 8);
}

static void makeAIFF(const char *name)
{
    Bytes o = {0};
    putText(&o, "FORM"); be(&o, 0, 4); putText(&o, "AIFF");
    putText(&o, "COMM"); be(&o, 18, 4); be(&o, 2, 2); be(&o, kFrames, 4); be(&o, 16, 2); putExtended(&o, 44100);
    /* Markers: ID, position, then a Pascal string padded to an even length in all. */
    Bytes marks = {0};
    const char *names[2] = {"a", "bc"};
    const uint32_t positions[2] = {500, 30000};
    be(&marks, 2, 2);
    for (int i = 0; i < 2; i++) {
        be(&marks, (uint64_t)i + 1, 2); be(&marks, positions[i], 4);
        size_t length = strlen(names[i]);
        u8(&marks, (unsigned)length); put(&marks, names[i], length);
        if (!(length & 1)) u8(&marks, 0);
    }
    putText(&o, "MARK"); be(&o, marks.size, 4); put(&o, marks.bytes, marks.size);
    free(marks.bytes);
    putText(&o, "SSND"); be(&o, 8 + kAudioBytes, 4); be(&o, 0, 4); be(&o, 0, 4); putSamples(&o, 1);
    patchBE32(&o, 4, (uint32_t)(o.size - 8));
    CHECK(saveFile(name, &o), "%s: written to the media folder", name);
    free(o.bytes);
}

/* A 28-byte CAF marker: type, frame position, ID, SMPTE time (zero), channel. */
static void cafMarker(Bytes *o, double position, int32_t id)
{
    be(o, 0, 4); beF64(o, position); be(o, (uint32_t)id, 4); be(o, 0, 8); be(o, 0, 4);
}

static void cafChunk(Bytes *o, const char *type, const Bytes *body)
{
    putText(o, type); be(o, body->size, 8); put(o, body->bytes, body->size);
}

static void makeCAF(const char *name)
{
    Bytes o = {0}, c = {0};
    putText(&o, "caff"); be(&o, 1, 2); be(&o, 0, 2);
    beF64(&c, 44100); putText(&c, "lpcm"); be(&c, 0, 4); be(&c, 4, 4); be(&c, 1, 4); be(&c, 2, 4); be(&c, 16, 4);
    cafChunk(&o, "desc", &c); c.size = 0;
    /* Strings: count, {ID, offset into the text} per string, then the NUL-ended texts. */
    const char *strings[3] = {"start", "middle", "loop"};
    be(&c, 3, 4);
    for (uint32_t i = 0, at = 0; i < 3; at += (uint32_t)strlen(strings[i]) + 1, i++) { be(&c, i + 1, 4); be(&c, at, 8); }
    for (int i = 0; i < 3; i++) put(&c, strings[i], strlen(strings[i]) + 1);
    cafChunk(&o, "strg", &c); c.size = 0;
    be(&c, 0, 4); be(&c, 2, 4); cafMarker(&c, 100.0, 1); cafMarker(&c, 4410.0, 2);
    cafChunk(&o, "mark", &c); c.size = 0;
    putText(&c, "xyz");
    cafChunk(&o, "user", &c); c.size = 0;
    be(&c, 0, 4); putSamples(&c, 1);
    cafChunk(&o, "data", &c); c.size = 0;
    /* The region chunk comes after the (sized) audio data, which CAF allows. */
    be(&c, 0, 4); be(&c, 1, 4); be(&c, 3, 4); be(&c, kAudioFileRegionFlag_LoopEnable, 4); be(&c, 2, 4);
    cafMarker(&c, 1000.0, 4); cafMarker(&c, 2000.0, 5);
    cafChunk(&o, "regn", &c);
    free(c.bytes);
    CHECK(saveFile(name, &o), "%s: written to the media folder", name);
    free(o.bytes);
}

/* ---- checks shared by the readers ------------------------------------------------- */

static AudioFileID openFile(const char *name)
{
    AudioFileID file = NULL;
    CFURLRef url = urlOf(name);
    OSStatus status = AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file);
    CFRelease(url);
    CHECK(status == noErr && file, "%s: AudioFileOpenURL gave %d, expected noErr", name, (int)status);
    return status == noErr ? file : NULL;
}

/* Whether `s` is the string `want` (the text found goes to `got` for messages). */
static int stringIs(CFStringRef s, const char *want, char got[64])
{
    strcpy(got, s ? "?" : "(null)");
    if (s) CFStringGetCString(s, got, 64, kCFStringEncodingUTF8);
    return s && strcmp(got, want) == 0;
}

static void checkMarkers(AudioFileID f, const char *name, UInt32 n, const double *positions, const SInt32 *ids,
                         const char *const *names)
{
    UInt32 size = 0, writable = 0;
    CHECK_STATUS(AudioFileGetPropertyInfo(f, kAudioFilePropertyMarkerList, &size, &writable), noErr);
    CHECK(size == NumAudioFileMarkersToNumBytes(n), "%s: marker list size %u, expected %u", name, (unsigned)size,
          (unsigned)NumAudioFileMarkersToNumBytes(n));
    size = (UInt32)NumAudioFileMarkersToNumBytes(n);
    AudioFileMarkerList *list = calloc(1, size);
    CHECK_STATUS(AudioFileGetProperty(f, kAudioFilePropertyMarkerList, &size, list), noErr);
    CHECK(list->mNumberMarkers == n, "%s: %u markers, expected %u", name, (unsigned)list->mNumberMarkers, (unsigned)n);
    for (UInt32 i = 0; i < n && i < list->mNumberMarkers; i++) {
        AudioFileMarker *m = &list->mMarkers[i];
        char got[64];
        CHECK(m->mFramePosition == positions[i], "%s: marker %u at frame %g, expected %g", name, (unsigned)i, m->mFramePosition, positions[i]);
        CHECK(m->mMarkerID == ids[i], "%s: marker %u has ID %d, expected %d", name, (unsigned)i, (int)m->mMarkerID, (int)ids[i]);
        CHECK(stringIs(m->mName, names[i], got), "%s: marker %u named '%s', expected '%s'", name, (unsigned)i, got, names[i]);
        if (m->mName) CFRelease(m->mName);
    }
    free(list);
}

/* One region of two markers is expected. */
static void checkRegion(AudioFileID f, const char *name, UInt32 id, const char *regionName, UInt32 flags, double first, double second)
{
    UInt32 size = 0, expected = (UInt32)(offsetof(AudioFileRegionList, mRegions) + offsetof(AudioFileRegion, mMarkers) + 2 * sizeof(AudioFileMarker));
    CHECK_STATUS(AudioFileGetPropertyInfo(f, kAudioFilePropertyRegionList, &size, NULL), noErr);
    CHECK(size == expected, "%s: region list size %u, expected %u", name, (unsigned)size, (unsigned)expected);
    size = expected;
    AudioFileRegionList *list = calloc(1, size);
    CHECK_STATUS(AudioFileGetProperty(f, kAudioFilePropertyRegionList, &size, list), noErr);
    CHECK(list->mNumberRegions == 1, "%s: %u regions, expected 1", name, (unsigned)list->mNumberRegions);
    if (list->mNumberRegions == 1) {
        AudioFileRegion *r = &list->mRegions[0];
        char got[64];
        CHECK(r->mRegionID == id, "%s: region ID %u, expected %u", name, (unsigned)r->mRegionID, (unsigned)id);
        CHECK(stringIs(r->mName, regionName, got), "%s: region named '%s', expected '%s'", name, got, regionName);
        CHECK(r->mFlags == flags, "%s: region flags %u, expected %u", name, (unsigned)r->mFlags, (unsigned)flags);
        CHECK(r->mNumberMarkers == 2, "%s: region has %u markers, expected 2", name, (unsigned)r->mNumberMarkers);
        if (r->mNumberMarkers == 2)
            CHECK(r->mMarkers[0].mFramePosition == first && r->mMarkers[1].mFramePosition == second,
                  "%s: region markers at %g and %g, expected %g and %g", name, r->mMarkers[0].mFramePosition,
                  r->mMarkers[1].mFramePosition, first, second);
        for (UInt32 i = 0; i < r->mNumberMarkers && i < 2; i++)
            if (r->mMarkers[i].mName) CFRelease(r->mMarkers[i].mName);
        if (r->mName) CFRelease(r->mName);
        CHECK((char *)NextAudioFileRegion(r) == (char *)list + expected, "%s: NextAudioFileRegion steps past the region", name);
    }
    free(list);
}

/* Exactly one chunk `id` holding the `n` bytes of `want`. */
static void checkUserData(AudioFileID f, const char *name, UInt32 id, const char *want, UInt32 n)
{
    UInt32 count = 99, size = 0;
    char buffer[64] = {0}, code[16];
    fourcc((SInt32)id, code);
    CHECK_STATUS(AudioFileCountUserData(f, id, &count), noErr);
    CHECK(count == 1, "%s: %u %s chunks, expected 1", name, (unsigned)count, code);
    CHECK_STATUS(AudioFileGetUserDataSize(f, id, 0, &size), noErr);
    CHECK(size == n, "%s: %s holds %u bytes, expected %u", name, code, (unsigned)size, (unsigned)n);
    size = sizeof buffer;
    CHECK_STATUS(AudioFileGetUserData(f, id, 0, &size, buffer), noErr);
    CHECK(size == n && memcmp(buffer, want, n) == 0, "%s: %s is '%.*s' (%u bytes), expected '%.*s'", name, code, (int)size,
          buffer, (unsigned)size, (int)n, want);
}

static void checkNotUserData(AudioFileID f, const char *name, UInt32 id)
{
    UInt32 count = 99;
    char code[16];
    CHECK_STATUS(AudioFileCountUserData(f, id, &count), noErr);
    CHECK(count == 0, "%s: %u %s chunks as user data, expected 0", name, (unsigned)count, fourcc((SInt32)id, code));
}

/* ---- reading ---------------------------------------------------------------------- */

static void readingWAV(void)
{
    AudioFileID f = openFile("cues.wav");
    if (!f) return;
    checkMarkers(f, "cues.wav", 2, (const double[]){1000, 22050}, (const SInt32[]){1, 2}, (const char *const[]){"intro", "chorus"});
    checkUserData(f, "cues.wav", CODE("abcd"), "hello", 5);
    checkNotUserData(f, "cues.wav", CODE("zzzz"));
    checkNotUserData(f, "cues.wav", CODE("data"));
    checkNotUserData(f, "cues.wav", CODE("fmt "));
    UInt32 size = 0, count = 0;
    char buffer[16];
    CHECK_STATUS(AudioFileGetUserDataSize(f, CODE("abcd"), 1, &size), kAudioFileInvalidChunkError);
    size = sizeof buffer;
    CHECK_STATUS(AudioFileGetUserData(f, CODE("abcd"), 1, &size, buffer), kAudioFileInvalidChunkError);

    /* A marker list buffer too small for both markers: an error, and the buffer untouched. */
    const UInt32 small[] = {(UInt32)NumAudioFileMarkersToNumBytes(2) - 1, (UInt32)NumAudioFileMarkersToNumBytes(1), 4};
    for (size_t i = 0; i < sizeof small / sizeof *small; i++) {
        unsigned char guard[NumAudioFileMarkersToNumBytes(2)];
        memset(guard, 0xA5, sizeof guard);
        size = small[i];
        CHECK_STATUS(AudioFileGetProperty(f, kAudioFilePropertyMarkerList, &size, guard), kAudioFileBadPropertySizeError);
        int untouched = 1;
        for (size_t k = 0; k < sizeof guard; k++) untouched &= guard[k] == 0xA5;
        CHECK(untouched, "cues.wav: a %u-byte marker list buffer was written to, expected it untouched", (unsigned)small[i]);
    }
    /* A user-data buffer smaller than the chunk gets the chunk's first bytes. */
    memset(buffer, 0, sizeof buffer);
    size = 2;
    CHECK_STATUS(AudioFileGetUserData(f, CODE("abcd"), 0, &size, buffer), noErr);
    CHECK(size == 2 && memcmp(buffer, "he\0", 3) == 0, "cues.wav: 2 bytes of 'abcd' gave %u bytes '%s', expected 2 'he'", (unsigned)size, buffer);

    /* Missing pointers. */
    struct { const char *what; OSStatus got; } nulls[] = {
        {"CountUserData(NULL count)", AudioFileCountUserData(f, CODE("abcd"), NULL)},
        {"GetUserDataSize(NULL size)", AudioFileGetUserDataSize(f, CODE("abcd"), 0, NULL)},
        {"GetUserData(NULL size)", AudioFileGetUserData(f, CODE("abcd"), 0, NULL, buffer)},
        {"GetUserData(NULL buffer)", (size = 5, AudioFileGetUserData(f, CODE("abcd"), 0, &size, NULL))},
        {"GetProperty MarkerList(NULL size)", AudioFileGetProperty(f, kAudioFilePropertyMarkerList, NULL, buffer)},
    };
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
        CHECK(nulls[i].got == kAudio_ParamError, "cues.wav: %s gave %d, expected -50", nulls[i].what, (int)nulls[i].got);
    CHECK_STATUS(AudioFileClose(f), noErr);

    /* A file ID that is no longer open. */
    size = sizeof buffer;
    struct { const char *what; OSStatus got; } closed[] = {
        {"CountUserData", AudioFileCountUserData(f, CODE("abcd"), &count)},
        {"GetUserDataSize", AudioFileGetUserDataSize(f, CODE("abcd"), 0, &size)},
        {"GetUserData", AudioFileGetUserData(f, CODE("abcd"), 0, &size, buffer)},
        {"SetUserData", AudioFileSetUserData(f, CODE("abcd"), 0, 2, "no")},
        {"RemoveUserData", AudioFileRemoveUserData(f, CODE("abcd"), 0)},
    };
    for (size_t i = 0; i < sizeof closed / sizeof *closed; i++)
        CHECK(closed[i].got != noErr, "cues.wav: %s on a closed file gave noErr, expected an error", closed[i].what);
}

static void readingAIFFAndCAF(void)
{
    AudioFileID f = openFile("marks.aiff");
    if (f) {
        checkMarkers(f, "marks.aiff", 2, (const double[]){500, 30000}, (const SInt32[]){1, 2}, (const char *const[]){"a", "bc"});
        AudioFileClose(f);
    }
    f = openFile("annotated.caf");
    if (f) {
        checkMarkers(f, "annotated.caf", 2, (const double[]){100, 4410}, (const SInt32[]){1, 2}, (const char *const[]){"start", "middle"});
        checkRegion(f, "annotated.caf", 3, "loop", kAudioFileRegionFlag_LoopEnable, 1000, 2000);
        checkUserData(f, "annotated.caf", CODE("user"), "xyz", 3);
        checkNotUserData(f, "annotated.caf", CODE("desc"));
        checkNotUserData(f, "annotated.caf", CODE("data"));
        AudioFileClose(f);
    }
}

/* No markers, no regions; and a file open for reading only refuses changes. */
static void plainAndReadOnly(void)
{
    const char *names[] = {"plain.wav", "annotated.caf"};
    for (int n = 0; n < 2; n++) {
        AudioFileID f = openFile(names[n]);
        if (!f) continue;
        if (n == 0) {
            checkMarkers(f, names[n], 0, NULL, NULL, NULL);
            UInt32 size = 0;
            CHECK_STATUS(AudioFileGetPropertyInfo(f, kAudioFilePropertyRegionList, &size, NULL), noErr);
            if (size < sizeof(AudioFileRegionList)) size = sizeof(AudioFileRegionList);
            AudioFileRegionList *regions = calloc(1, size);
            regions->mNumberRegions = 77;
            CHECK_STATUS(AudioFileGetProperty(f, kAudioFilePropertyRegionList, &size, regions), noErr);
            CHECK(regions->mNumberRegions == 0, "%s: %u regions, expected 0", names[n], (unsigned)regions->mNumberRegions);
            free(regions);
        }
        AudioFileMarkerList one = {0};
        one.mNumberMarkers = 1;
        one.mMarkers[0].mFramePosition = 5;
        one.mMarkers[0].mName = CFSTR("x");
        char code[16];
        OSStatus status = AudioFileSetUserData(f, CODE("mine"), 0, 2, "hi");
        CHECK(status == kAudioFilePermissionsError, "%s read-only: SetUserData gave %s, expected 'prm?'", names[n], fourcc(status, code));
        status = AudioFileSetProperty(f, kAudioFilePropertyMarkerList, (UInt32)NumAudioFileMarkersToNumBytes(1), &one);
        CHECK(status == kAudioFilePermissionsError, "%s read-only: SetProperty MarkerList gave %s, expected 'prm?'", names[n], fourcc(status, code));
        AudioFileClose(f);
    }
}

/* ---- writing ---------------------------------------------------------------------- */

/* Walks the CAF at `name` chunk by chunk and checks what our writer put there. */
static void parseWrittenCAF(const char *name)
{
    long length = 0;
    unsigned char *b = readWholeFile(mediaPath(name), &length);
    int sawMark = 0, sawStrg = 0, sawRegn = 0, mineCount = 0, dataOK = 0;
    CHECK(b && length > 8 && memcmp(b, "caff", 4) == 0, "%s: starts with a 'caff' header", name);
    for (long at = 8; b && at + 12 <= length;) {
        const unsigned char *type = b + at, *body = b + at + 12;
        int64_t size = (int64_t)readBE(b + at + 4, 8);
        if (size < 0 || size > length - at - 12) size = length - at - 12; /* a last chunk of unknown size */
        if (!memcmp(type, "mark", 4) && size >= 8) {
            sawMark = 1;
            UInt32 n = (UInt32)readBE(body + 4, 4);
            CHECK(n == 2 && size >= 8 + 2 * 28, "%s: its 'mark' chunk holds %u markers, expected 2", name, (unsigned)n);
            if (n == 2 && size >= 8 + 2 * 28)
                CHECK(readBEF64(body + 8 + 4) == 10 && readBEF64(body + 8 + 28 + 4) == 20000,
                      "%s: 'mark' positions %g and %g, expected 10 and 20000", name, readBEF64(body + 12), readBEF64(body + 40));
        } else if (!memcmp(type, "strg", 4)) {
            sawStrg = 1;
            int one = 0, two = 0;
            for (int64_t k = 0; k + 4 <= size; k++) {
                one |= !memcmp(body + k, "one", 4);
                two |= !memcmp(body + k, "two", 4);
            }
            CHECK(one && two, "%s: its 'strg' chunk holds 'one' (%d) and 'two' (%d), expected both", name, one, two);
        } else if (!memcmp(type, "regn", 4) && size >= 20) {
            sawRegn = 1;
            UInt32 count = (UInt32)readBE(body + 4, 4), id = (UInt32)readBE(body + 8, 4), flags = (UInt32)readBE(body + 12, 4),
                   markers = (UInt32)readBE(body + 16, 4);
            CHECK(count == 1 && id == 9 && flags == 2 && markers == 2 && size >= 20 + 56,
                  "%s: 'regn' has %u regions, ID %u, flags %u, %u markers; expected 1, 9, 2, 2", name, (unsigned)count, (unsigned)id,
                  (unsigned)flags, (unsigned)markers);
            if (markers == 2 && size >= 20 + 56)
                CHECK(readBEF64(body + 24) == 5 && readBEF64(body + 24 + 28) == 6, "%s: 'regn' markers at %g and %g, expected 5 and 6",
                      name, readBEF64(body + 24), readBEF64(body + 52));
        } else if (!memcmp(type, "mine", 4)) {
            mineCount++;
            CHECK(size == 3 && !memcmp(body, "ABC", 3), "%s: its 'mine' chunk is %lld bytes '%.*s', expected 3 'ABC'", name,
                  (long long)size, (int)(size < 16 ? size : 16), (const char *)body);
        } else if (!memcmp(type, "data", 4)) {
            dataOK = size == 4 + kAudioBytes && !memcmp(body + 4, tone, kAudioBytes);
        }
        at += 12 + size;
    }
    CHECK(sawMark && sawStrg && sawRegn, "%s: has 'mark' (%d), 'strg' (%d) and 'regn' (%d) chunks", name, sawMark, sawStrg, sawRegn);
    CHECK(mineCount == 1, "%s: %d 'mine' chunks, expected 1", name, mineCount);
    CHECK(dataOK, "%s: its 'data' chunk holds the 44100 frames written, unchanged", name);
    free(b);
}

static AudioFileID create(const char *name, AudioFileTypeID type)
{
    AudioStreamBasicDescription d = {.mSampleRate = 44100, .mFormatID = kAudioFormatLinearPCM,
        .mFormatFlags = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, .mBytesPerPacket = 4,
        .mFramesPerPacket = 1, .mBytesPerFrame = 4, .mChannelsPerFrame = 2, .mBitsPerChannel = 16};
    AudioFileID f = NULL;
    CFURLRef url = urlOf(name);
    CHECK_STATUS(AudioFileCreateWithURL(url, type, &d, kAudioFileFlags_EraseFile, &f), noErr);
    CFRelease(url);
    return f;
}

static void writing(void)
{
    AudioFileID f = create("written.caf", kAudioFileCAFType);
    if (!f) return;
    UInt32 packets = kFrames, count = 0;
    CHECK_STATUS(AudioFileWritePackets(f, false, kAudioBytes, NULL, 0, &packets, tone), noErr);
    CHECK_STATUS(AudioFileSetUserData(f, CODE("mine"), 0, 4, "abcd"), noErr);
    CHECK_STATUS(AudioFileSetUserData(f, CODE("mine"), 1, 2, "xy"), noErr); /* index == count: appends */
    CHECK_STATUS(AudioFileSetUserData(f, CODE("mine"), 0, 3, "ABC"), noErr); /* replaces the first */
    CHECK_STATUS(AudioFileCountUserData(f, CODE("mine"), &count), noErr);
    CHECK(count == 2, "written.caf: %u 'mine' chunks after two additions, expected 2", (unsigned)count);
    CHECK_STATUS(AudioFileRemoveUserData(f, CODE("mine"), 1), noErr);
    CHECK_STATUS(AudioFileCountUserData(f, CODE("mine"), &count), noErr);
    CHECK(count == 1, "written.caf: %u 'mine' chunks after a removal, expected 1", (unsigned)count);
    CHECK_STATUS(AudioFileSetUserData(f, CODE("mine"), 5, 2, "zz"), kAudioFileInvalidChunkError);
    CHECK_STATUS(AudioFileSetUserData(f, CODE("mine"), 0, 2, NULL), kAudio_ParamError);

    UInt32 size = 0, writable = 0;
    CHECK_STATUS(AudioFileGetPropertyInfo(f, kAudioFilePropertyMarkerList, &size, &writable), noErr);
    CHECK(writable == 1, "written.caf: the marker list is writable (%u), expected 1", (unsigned)writable);
    AudioFileMarkerList *marks = calloc(1, NumAudioFileMarkersToNumBytes(2));
    marks->mNumberMarkers = 2;
    marks->mMarkers[0] = (AudioFileMarker){.mFramePosition = 10, .mName = CFSTR("one"), .mMarkerID = 7};
    marks->mMarkers[1] = (AudioFileMarker){.mFramePosition = 20000, .mName = CFSTR("two"), .mMarkerID = 8};
    CHECK_STATUS(AudioFileSetProperty(f, kAudioFilePropertyMarkerList, (UInt32)NumAudioFileMarkersToNumBytes(2), marks), noErr);
    free(marks);
    size_t regionBytes = offsetof(AudioFileRegionList, mRegions) + offsetof(AudioFileRegion, mMarkers) + 2 * sizeof(AudioFileMarker);
    AudioFileRegionList *regions = calloc(1, regionBytes);
    regions->mNumberRegions = 1;
    AudioFileRegion *r = &regions->mRegions[0];
    r->mRegionID = 9;
    r->mName = CFSTR("r");
    r->mFlags = kAudioFileRegionFlag_PlayForward;
    r->mNumberMarkers = 2;
    r->mMarkers[0] = (AudioFileMarker){.mFramePosition = 5};
    r->mMarkers[1] = (AudioFileMarker){.mFramePosition = 6};
    CHECK_STATUS(AudioFileSetProperty(f, kAudioFilePropertyRegionList, (UInt32)regionBytes, regions), noErr);
    free(regions);
    CHECK_STATUS(AudioFileClose(f), noErr);

    /* Read back through the library... */
    f = openFile("written.caf");
    if (f) {
        checkUserData(f, "written.caf", CODE("mine"), "ABC", 3);
        checkMarkers(f, "written.caf", 2, (const double[]){10, 20000}, (const SInt32[]){7, 8}, (const char *const[]){"one", "two"});
        checkRegion(f, "written.caf", 9, "r", kAudioFileRegionFlag_PlayForward, 5, 6);
        AudioFileClose(f);
    }
    /* ...and straight from the bytes. */
    parseWrittenCAF("written.caf");

    /* WAV files being written take neither. */
    f = create("written.wav", kAudioFileWAVEType);
    if (!f) return;
    AudioFileMarkerList one = {0};
    one.mNumberMarkers = 1;
    one.mMarkers[0].mName = CFSTR("x");
    CHECK_STATUS(AudioFileSetUserData(f, CODE("mine"), 0, 2, "hi"), kAudioFileOperationNotSupportedError);
    CHECK_STATUS(AudioFileSetProperty(f, kAudioFilePropertyMarkerList, (UInt32)NumAudioFileMarkersToNumBytes(1), &one),
                 kAudioFileOperationNotSupportedError);
    AudioFileClose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: test_audio_file_annotations MEDIA_DIR\n"); return 2; }
    media = argv[1];
    installWatchdog("audio file annotations");
    alarm(120);
    for (int i = 0; i < kFrames; i++) tone[2 * i] = tone[2 * i + 1] = (short)lrint(8000 * sin(2 * M_PI * 441 * i / 44100.0));
    makeWAV("cues.wav", 1);
    makeWAV("plain.wav", 0);
    makeAIFF("marks.aiff");
    makeCAF("annotated.caf");
    readingWAV();
    readingAIFFAndCAF();
    plainAndReadOnly();
    writing();
    alarm(0);
    return finish("audio file annotations");
}
