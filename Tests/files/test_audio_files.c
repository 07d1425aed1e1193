/* Audio File, Extended Audio File, Audio Converter and Audio Format Services against
 * media made by independent encoders (Tests/files/make-media.sh: sox and ffmpeg): every
 * container and codec iPhone apps ship decodes to the samples sox says it holds (exactly
 * for PCM and ALAC, at 30 dB SNR or better for the lossy codecs once their priming is
 * trimmed), with exact lengths; the properties are Apple's; files we write read back in
 * ffprobe and sox; bad files get Apple's codes. Usage: test_audio_files MEDIA_DIR */
#include <AudioToolbox/AudioToolbox.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../c/check.h"

static const char *media;
static char pathBuffer[1024];

static const char *mediaPath(const char *name)
{
    snprintf(pathBuffer, sizeof pathBuffer, "%s/%s", media, name);
    return pathBuffer;
}

static CFURLRef urlOf(const char *path)
{
    return CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
}

/* The whole of a file's raw samples (what sox says the audio is). */
static void *slurp(const char *name, long *size)
{
    return readWholeFile(mediaPath(name), size);
}

static AudioStreamBasicDescription pcmFormat(Float64 rate, UInt32 channels, UInt32 bits, int isFloat)
{
    AudioStreamBasicDescription d = {0};
    d.mSampleRate = rate;
    d.mFormatID = kAudioFormatLinearPCM;
    d.mFormatFlags = kAudioFormatFlagIsPacked | (isFloat ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger);
    d.mBitsPerChannel = bits;
    d.mChannelsPerFrame = channels;
    d.mFramesPerPacket = 1;
    d.mBytesPerFrame = d.mBytesPerPacket = bits / 8 * channels;
    return d;
}

/* Reads a whole file through ExtAudioFile in `client`, in chunks of `chunk` frames, the
 * way the OpenAL loaders do; returns the frames read (-1 if it could not open). */
static long readAll(const char *name, AudioStreamBasicDescription client, void **out, UInt32 chunk, OSStatus *status)
{
    ExtAudioFileRef file = NULL;
    CFURLRef url = urlOf(mediaPath(name));
    *status = ExtAudioFileOpenURL(url, &file);
    CFRelease(url);
    if (*status) return -1;
    *status = ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client);
    if (*status) { ExtAudioFileDispose(file); return -1; }
    long capacity = 1 << 16, frames = 0;
    char *data = malloc((size_t)capacity * client.mBytesPerFrame);
    for (;;) {
        if (frames + chunk > capacity) {
            capacity *= 2;
            data = realloc(data, (size_t)capacity * client.mBytesPerFrame);
        }
        AudioBufferList list;
        list.mNumberBuffers = 1;
        list.mBuffers[0].mNumberChannels = client.mChannelsPerFrame;
        list.mBuffers[0].mDataByteSize = chunk * client.mBytesPerFrame;
        list.mBuffers[0].mData = data + frames * client.mBytesPerFrame;
        UInt32 n = chunk;
        *status = ExtAudioFileRead(file, &n, &list);
        if (*status || n == 0) break;
        frames += n;
    }
    ExtAudioFileDispose(file);
    *out = data;
    return frames;
}

static void exactPCM(void)
{
    long size16 = 0, sizeF = 0;
    short *s16 = slurp("source.s16", &size16);
    float *f32 = slurp("source.f32", &sizeF);
    CHECK(s16 && size16 == 44100 * 4 && f32 && sizeF == 44100 * 8, "sox made the reference samples");
    /* 16-bit sources read as 16-bit: byte for byte. */
    const char *sixteen[] = {"pcm16.wav", "pcm16.aiff", "pcm16.aifc", "pcm16le.caf"};
    for (unsigned i = 0; i < sizeof sixteen / sizeof *sixteen; i++) {
        void *data = NULL;
        OSStatus status;
        long frames = readAll(sixteen[i], pcmFormat(44100, 2, 16, 0), &data, 1000, &status);
        CHECK(frames == 44100, "%s: %ld frames (status %d)", sixteen[i], frames, (int)status);
        CHECK(frames == 44100 && memcmp(data, s16, (size_t)size16) == 0, "%s: the samples are sox's, exactly", sixteen[i]);
        free(data);
    }
    /* Every PCM source read as float: the same values as sox's float conversion. */
    const char *any[] = {"pcm16.wav", "pcm24.wav", "float32.wav", "pcm24.aiff", "pcm24be.caf", "float32.caf"};
    for (unsigned i = 0; i < sizeof any / sizeof *any; i++) {
        void *data = NULL;
        OSStatus status;
        long frames = readAll(any[i], pcmFormat(44100, 2, 32, 1), &data, 4096, &status);
        CHECK(frames == 44100, "%s: %ld frames as float (status %d)", any[i], frames, (int)status);
        int same = frames == 44100;
        for (long k = 0; same && k < 88200; k++) same = fabsf(((float *)data)[k] - f32[k]) <= 1.0f / 8388608;
        CHECK(same, "%s: as float, sox's values", any[i]);
        free(data);
    }
    /* 8-bit unsigned WAV: within one 8-bit step of the 16-bit source. */
    void *data = NULL;
    OSStatus status;
    long frames = readAll("pcm8.wav", pcmFormat(44100, 2, 32, 1), &data, 4096, &status);
    CHECK(frames == 44100 && snr(data, f32, 88200) > 35, "pcm8.wav: 8-bit unsigned PCM decodes (%.1f dB)",
          frames == 44100 ? snr(data, f32, 88200) : 0.0);
    free(data);
    /* µ-law and A-law: exactly what sox's decoder makes. */
    const char *companded[][2] = {{"ulaw.wav", "ulaw.s16"}, {"alaw.wav", "alaw.s16"}};
    for (int i = 0; i < 2; i++) {
        long size = 0;
        short *want = slurp(companded[i][1], &size);
        frames = readAll(companded[i][0], pcmFormat(44100, 2, 16, 0), &data, 4096, &status);
        CHECK(frames == 44100 && want && memcmp(data, want, (size_t)size) == 0, "%s: decodes as sox decodes it (%ld frames)",
              companded[i][0], frames);
        free(data);
        free(want);
    }
    free(s16);
    free(f32);
}

/* 32-bit integer PCM read in its own format is exact: more bits than a Float32 holds,
 * so a path through floats would change them (the test checks the file has such bits). */
static void exact32(void)
{
    long size = 0;
    int *want = slurp("pcm32.s32", &size);
    int lowBits = 0;
    for (long i = 0; want && i < size / 4; i++) lowBits |= want[i] & 0xFF;
    CHECK(want && size == 44100 * 8 && lowBits, "sox's 32-bit samples use their low bits (%ld bytes)", size);
    void *got = NULL;
    OSStatus status;
    long frames = readAll("pcm32.wav", pcmFormat(44100, 2, 32, 0), &got, 1000, &status);
    CHECK(frames == 44100 && got && want && memcmp(got, want, (size_t)size) == 0,
          "pcm32.wav through ExtAudioFile as 32-bit integers equals sox's samples exactly (%ld frames)", frames);
    free(got);
    free(want);
}

static void compressed(void)
{
    long sizeF = 0;
    float *f32 = slurp("source.f32", &sizeF);
    struct { const char *name; double minimumSNR; } cases[] = {
        {"alac.caf", 200}, {"alac.m4a", 200}, {"aac.m4a", 30}, {"mp3.mp3", 30}, {"ima4.caf", 30}, {"ima4.aifc", 30},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        void *data = NULL;
        OSStatus status;
        long frames = readAll(cases[i].name, pcmFormat(44100, 2, 32, 1), &data, 1024, &status);
        /* IMA4 holds whole blocks of 64 frames: the last one is padded. */
        long expected = strncmp(cases[i].name, "ima4", 4) == 0 ? (44100 + 63) / 64 * 64 : 44100;
        CHECK(frames == expected, "%s: %ld frames, expected %ld (status %d)", cases[i].name, frames, expected, (int)status);
        /* Past the first and last 2048 frames: the sine starts and stops abruptly, which
         * no lossy encoder renders well, and that is not what is measured here. */
        double quality = frames >= 44100 ? snr((float *)data + 4096, f32 + 4096, 88200 - 8192) : 0;
        CHECK(quality >= cases[i].minimumSNR, "%s: %.1f dB against the source (at least %.0f)", cases[i].name, quality,
              cases[i].minimumSNR);
        printf("measured: %s decodes at %.1f dB SNR, %ld frames\n", cases[i].name, quality, frames);
        free(data);
    }
    /* ADTS carries no priming information: the length is whole packets, the sound the
     * source's somewhere in it. */
    void *data = NULL;
    OSStatus status;
    long frames = readAll("aac.aac", pcmFormat(44100, 2, 32, 1), &data, 1024, &status);
    CHECK(frames >= 44100 && frames % 1024 == 0, "aac.aac: %ld frames (whole packets)", frames);
    free(data);
    free(f32);
}

static void properties(void)
{
    struct { const char *name; AudioFileTypeID type; UInt32 format; UInt32 framesPerPacket; } cases[] = {
        {"pcm16.wav", kAudioFileWAVEType, kAudioFormatLinearPCM, 1},
        {"pcm16.aiff", kAudioFileAIFFType, kAudioFormatLinearPCM, 1},
        {"pcm16.aifc", kAudioFileAIFCType, kAudioFormatLinearPCM, 1},
        {"pcm16le.caf", kAudioFileCAFType, kAudioFormatLinearPCM, 1},
        {"aac.m4a", kAudioFileM4AType, kAudioFormatMPEG4AAC, 1024},
        {"aac.aac", kAudioFileAAC_ADTSType, kAudioFormatMPEG4AAC, 1024},
        {"mp3.mp3", kAudioFileMP3Type, kAudioFormatMPEGLayer3, 1152},
        {"alac.caf", kAudioFileCAFType, kAudioFormatAppleLossless, 4096},
        {"ima4.caf", kAudioFileCAFType, kAudioFormatAppleIMA4, 64},
        {"ulaw.wav", kAudioFileWAVEType, kAudioFormatULaw, 1},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        AudioFileID file = NULL;
        CFURLRef url = urlOf(mediaPath(cases[i].name));
        OSStatus status = AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file);
        CFRelease(url);
        CHECK(status == noErr, "%s: AudioFileOpenURL %d", cases[i].name, (int)status);
        if (status) continue;
        UInt32 type = 0, size = sizeof type;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyFileFormat, &size, &type), noErr);
        CHECK(type == cases[i].type, "%s: file type %08x", cases[i].name, (unsigned)type);
        AudioStreamBasicDescription d;
        size = sizeof d;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &size, &d), noErr);
        CHECK(d.mFormatID == cases[i].format && d.mSampleRate == 44100 && d.mChannelsPerFrame == 2
                  && d.mFramesPerPacket == cases[i].framesPerPacket,
              "%s: data format %08x %.0f Hz %u ch %u frames/packet", cases[i].name, (unsigned)d.mFormatID, d.mSampleRate,
              (unsigned)d.mChannelsPerFrame, (unsigned)d.mFramesPerPacket);
        UInt64 packets = 0, bytes = 0;
        size = sizeof packets;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyAudioDataPacketCount, &size, &packets), noErr);
        size = sizeof bytes;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyAudioDataByteCount, &size, &bytes), noErr);
        /* Reading every packet gives the packet count and the byte count. */
        UInt32 maxPacket = 0;
        size = sizeof maxPacket;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyMaximumPacketSize, &size, &maxPacket), noErr);
        UInt64 readPackets = 0, readBytes = 0;
        char *buffer = malloc((size_t)maxPacket * 64 + 1);
        AudioStreamPacketDescription descriptions[64];
        for (;;) {
            UInt32 n = 64, byteCount = maxPacket * 64;
            status = AudioFileReadPacketData(file, false, &byteCount, descriptions, (SInt64)readPackets, &n, buffer);
            if (n == 0) break;
            readPackets += n;
            readBytes += byteCount;
            if (status) break;
        }
        free(buffer);
        CHECK(packets > 0 && readPackets == packets && readBytes == bytes, "%s: %llu packets / %llu bytes read, %llu / %llu reported",
              cases[i].name, (unsigned long long)readPackets, (unsigned long long)readBytes, (unsigned long long)packets,
              (unsigned long long)bytes);
        UInt32 one = 1, byteCount = maxPacket;
        char small[8192];
        CHECK_STATUS(AudioFileReadPacketData(file, false, &byteCount, descriptions, (SInt64)packets, &one, small), kAudioFileEndOfFileError);
        if (cases[i].format == kAudioFormatMPEG4AAC && cases[i].type == kAudioFileM4AType) {
            AudioFilePacketTableInfo table;
            size = sizeof table;
            CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyPacketTableInfo, &size, &table), noErr);
            CHECK(table.mNumberValidFrames == 44100 && table.mPrimingFrames == 1024
                      && table.mNumberValidFrames + table.mPrimingFrames + table.mRemainderFrames == (SInt64)packets * 1024,
                  "aac.m4a: packet table %lld valid, %d priming, %d remainder", (long long)table.mNumberValidFrames,
                  (int)table.mPrimingFrames, (int)table.mRemainderFrames);
            UInt32 cookieSize = 0, writable = 1;
            CHECK_STATUS(AudioFileGetPropertyInfo(file, kAudioFilePropertyMagicCookieData, &cookieSize, &writable), noErr);
            CHECK(cookieSize > 2 && writable == 0, "aac.m4a: a magic cookie of %u bytes, read-only", (unsigned)cookieSize);
        }
        /* The format list as a program walks it: size / sizeof(AudioFormatListItem) items,
         * the first the data format (Apple's samples pick the playable one this way). */
        UInt32 listSize = 0;
        CHECK_STATUS(AudioFileGetPropertyInfo(file, kAudioFilePropertyFormatList, &listSize, NULL), noErr);
        CHECK(listSize >= sizeof(AudioFormatListItem) && listSize % sizeof(AudioFormatListItem) == 0,
              "%s: the format list is whole AudioFormatListItems (%u bytes, sizeof %zu)", cases[i].name, (unsigned)listSize,
              sizeof(AudioFormatListItem));
        AudioFormatListItem items[4];
        memset(items, 0, sizeof items);
        size = sizeof items;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyFormatList, &size, items), noErr);
        CHECK(size == listSize && items[0].mASBD.mFormatID == d.mFormatID && items[0].mASBD.mSampleRate == d.mSampleRate
                  && items[0].mASBD.mChannelsPerFrame == d.mChannelsPerFrame
                  && (items[0].mChannelLayoutTag & 0xFFFF) == d.mChannelsPerFrame,
              "%s: the format list's item is the data format (%08x, %.0f Hz, %u ch, tag 0x%x)", cases[i].name,
              (unsigned)items[0].mASBD.mFormatID, items[0].mASBD.mSampleRate, (unsigned)items[0].mASBD.mChannelsPerFrame,
              (unsigned)items[0].mChannelLayoutTag);
        /* The translations, as a player seeking by time or by byte asks them: the
         * question written into the structure, the answer read from it. */
        UInt32 translationSize = 0;
        CHECK_STATUS(AudioFileGetPropertyInfo(file, kAudioFilePropertyPacketToFrame, &translationSize, NULL), noErr);
        CHECK(translationSize == sizeof(AudioFramePacketTranslation), "%s: the frame translation is C's %zu bytes (%u)",
              cases[i].name, sizeof(AudioFramePacketTranslation), (unsigned)translationSize);
        AudioFramePacketTranslation frames = {0, 3, 0};
        size = sizeof frames;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyPacketToFrame, &size, &frames), noErr);
        CHECK(frames.mFrame == 3 * (SInt64)d.mFramesPerPacket, "%s: packet 3 starts at frame %lld", cases[i].name,
              (long long)frames.mFrame);
        frames.mFrame = 2 * (SInt64)d.mFramesPerPacket + (d.mFramesPerPacket > 1 ? 1 : 0);
        frames.mPacket = -1;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyFrameToPacket, &size, &frames), noErr);
        CHECK(frames.mPacket == 2 && frames.mFrameOffsetInPacket == (d.mFramesPerPacket > 1 ? 1 : 0),
              "%s: a frame of packet 2 is in packet %lld at %u", cases[i].name, (long long)frames.mPacket,
              (unsigned)frames.mFrameOffsetInPacket);
        AudioBytePacketTranslation where = {0, 2, 0, 99};
        size = sizeof where;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyPacketToByte, &size, &where), noErr);
        SInt64 second = where.mByte;
        CHECK(second > 0 && where.mFlags == 0, "%s: packet 2 starts at byte %lld, exactly", cases[i].name, (long long)second);
        where.mByte = second + 1;
        where.mPacket = -1;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyByteToPacket, &size, &where), noErr);
        CHECK(where.mPacket == 2 && where.mByteOffsetInPacket == 1, "%s: byte %lld is in packet %lld at %u", cases[i].name,
              (long long)(second + 1), (long long)where.mPacket, (unsigned)where.mByteOffsetInPacket);
        frames.mPacket = -1;
        size = sizeof frames;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyPacketToFrame, &size, &frames), kAudioFileInvalidPacketOffsetError);
        size = 8;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyPacketToByte, &size, &where), kAudioFileBadPropertySizeError);
        /* Questions no packet answers: the same codes for every kind of file. */
        size = sizeof where;
        where.mPacket = -1;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyPacketToByte, &size, &where), kAudioFileInvalidPacketOffsetError);
        where.mByte = -1;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyByteToPacket, &size, &where), kAudio_ParamError);
        frames.mPacket = INT64_MAX / 2;
        size = sizeof frames;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyPacketToFrame, &size, &frames),
                     d.mFramesPerPacket > 2 ? kAudioFileInvalidPacketOffsetError : noErr);
        Float64 duration = 0;
        size = sizeof duration;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyEstimatedDuration, &size, &duration), noErr);
        CHECK(fabs(duration - 1.0) < 0.05, "%s: estimated duration %.3f s", cases[i].name, duration);
        /* Wrong sizes, unknown properties, writing a read-only file. */
        size = 2;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyDataFormat, &size, &d), kAudioFileBadPropertySizeError);
        size = 4;
        CHECK_STATUS(AudioFileGetProperty(file, 0x78787878, &size, &type), kAudioFileUnsupportedPropertyError);
        CHECK_STATUS(AudioFileSetProperty(file, kAudioFilePropertyDataFormat, sizeof d, &d), kAudioFilePermissionsError);
        CHECK_STATUS(AudioFileClose(file), noErr);
        CHECK_STATUS(AudioFileClose(file), kAudioFileNotOpenError);
    }
}

/* ExtAudioFileSeek lands on the frame it names, in every codec. */
static void seeking(void)
{
    long sizeF = 0;
    float *f32 = slurp("source.f32", &sizeF);
    const char *names[] = {"pcm16.wav", "aac.m4a", "mp3.mp3", "alac.caf"};
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
        ExtAudioFileRef file = NULL;
        CFURLRef url = urlOf(mediaPath(names[i]));
        CHECK_STATUS(ExtAudioFileOpenURL(url, &file), noErr);
        CFRelease(url);
        if (!file) continue;
        AudioStreamBasicDescription client = pcmFormat(44100, 2, 32, 1);
        CHECK_STATUS(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client), noErr);
        SInt64 length = 0;
        UInt32 size = sizeof length;
        CHECK_STATUS(ExtAudioFileGetProperty(file, kExtAudioFileProperty_FileLengthFrames, &size, &length), noErr);
        CHECK(length == 44100, "%s: FileLengthFrames %lld", names[i], (long long)length);
        /* A UInt32 property is four bytes, in size and in value. */
        UInt32 manufacturerSize = 0, manufacturer = 0;
        CHECK_STATUS(ExtAudioFileGetPropertyInfo(file, kExtAudioFileProperty_CodecManufacturer, &manufacturerSize, NULL), noErr);
        size = sizeof manufacturer;
        CHECK_STATUS(ExtAudioFileGetProperty(file, kExtAudioFileProperty_CodecManufacturer, &size, &manufacturer), noErr);
        /* 'appl': kAppleSoftwareAudioCodecManufacturer, declared for iPhone code only. */
        CHECK(manufacturerSize == 4 && size == 4 && manufacturer == 0x6170706C,
              "%s: CodecManufacturer is a UInt32 'appl' (%u bytes, %08x)", names[i], (unsigned)manufacturerSize,
              (unsigned)manufacturer);
        CHECK_STATUS(ExtAudioFileSeek(file, 30000), noErr);
        float block[2 * 4096];
        AudioBufferList list = {1, {{2, sizeof block, block}}};
        UInt32 n = 4096;
        CHECK_STATUS(ExtAudioFileRead(file, &n, &list), noErr);
        SInt64 where = 0;
        CHECK_STATUS(ExtAudioFileTell(file, &where), noErr);
        double quality = n == 4096 ? snr(block, f32 + 2 * 30000, 2 * 4096) : 0;
        CHECK(n == 4096 && where == 34096 && quality >= 25, "%s: after a seek to 30000, 4096 frames at %.1f dB, tell %lld",
              names[i], quality, (long long)where);
        CHECK_STATUS(ExtAudioFileSeek(file, 44101), kExtAudioFileError_InvalidSeek);
        CHECK_STATUS(ExtAudioFileSeek(file, -1), kExtAudioFileError_InvalidSeek);
        /* The client format must be linear PCM. */
        AudioStreamBasicDescription aac = {44100, kAudioFormatMPEG4AAC, 0, 0, 1024, 0, 2, 0, 0};
        CHECK_STATUS(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof aac, &aac),
                     kExtAudioFileError_NonPCMClientFormat);
        CHECK_STATUS(ExtAudioFileDispose(file), noErr);
    }
    free(f32);
}

/* The OpenAL loader every game copied: 16-bit, the file's rate, mono or stereo; and the
 * same file at another rate and channel count (a client format for a 48 kHz device). */
static void clientConversions(void)
{
    void *data = NULL;
    OSStatus status;
    long frames = readAll("aac.m4a", pcmFormat(48000, 1, 16, 0), &data, 512, &status);
    CHECK(labs(frames - 48000) <= 2, "aac.m4a as 48 kHz mono: %ld frames (status %d)", frames, (int)status);
    /* Its pitch: 440 Hz and 660 Hz averaged; count upward zero crossings of the mix. */
    short *s = data;
    double energy = 0;
    for (long i = 0; i < frames; i++) energy += (double)s[i] * s[i];
    CHECK(frames > 0 && sqrt(energy / frames) > 3000, "the mono mix has its level (rms %.0f)", frames ? sqrt(energy / frames) : 0);
    free(data);
}

static void writing(void)
{
    long size16 = 0;
    short *s16 = slurp("source.s16", &size16);
    /* minSNR: what an encoded file must read back at (Apple Lossless: bit for bit, as
     * far as 16-bit samples go; IMA4 is 4-bit ADPCM). */
    struct { const char *name; AudioFileTypeID type; AudioStreamBasicDescription format; const char *codec; double minSNR; }
    cases[] = {
        {"out16.wav", kAudioFileWAVEType, pcmFormat(44100, 2, 16, 0), "pcm_s16le", 0},
        {"outf.wav", kAudioFileWAVEType, pcmFormat(44100, 2, 32, 1), "pcm_f32le", 0},
        {"out16.aiff", kAudioFileAIFFType, pcmFormat(44100, 2, 16, 0), "pcm_s16be", 0},
        {"out24.caf", kAudioFileCAFType, pcmFormat(44100, 2, 24, 0), "pcm_s24le", 0},
        {"out.m4a", kAudioFileM4AType, {44100, kAudioFormatMPEG4AAC, 0, 0, 0, 0, 2, 0, 0}, "aac", 30},
        {"outaac.caf", kAudioFileCAFType, {44100, kAudioFormatMPEG4AAC, 0, 0, 0, 0, 2, 0, 0}, "aac", 30},
        {"outalac.m4a", kAudioFileM4AType, {44100, kAudioFormatAppleLossless, kAppleLosslessFormatFlag_16BitSourceData, 0, 4096, 0, 2, 0, 0},
         "alac", 90},
        {"outalac.caf", kAudioFileCAFType, {44100, kAudioFormatAppleLossless, kAppleLosslessFormatFlag_16BitSourceData, 0, 4096, 0, 2, 0, 0},
         "alac", 90},
        {"outima4.caf", kAudioFileCAFType, {44100, kAudioFormatAppleIMA4, 0, 68, 64, 0, 2, 0, 0}, "adpcm_ima_qt", 20},
    };
    cases[2].format.mFormatFlags |= kAudioFormatFlagIsBigEndian;
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", media, cases[i].name);
        unlink(path);
        CFURLRef url = urlOf(path);
        ExtAudioFileRef file = NULL;
        CHECK_STATUS(ExtAudioFileCreateWithURL(url, cases[i].type, &cases[i].format, NULL, kAudioFileFlags_EraseFile, &file),
                     noErr);
        if (!file) { CFRelease(url); continue; }
        AudioStreamBasicDescription client = pcmFormat(44100, 2, 16, 0);
        CHECK_STATUS(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client), noErr);
        /* In uneven slices, as a recorder's input callback gives them. */
        for (long done = 0; done < 44100;) {
            UInt32 n = (UInt32)(done + 700 > 44100 ? 44100 - done : 700);
            AudioBufferList list = {1, {{2, n * 4, s16 + done * 2}}};
            OSStatus status = ExtAudioFileWrite(file, n, &list);
            if (status) { CHECK_STATUS(status, noErr); break; }
            done += n;
        }
        CHECK_STATUS(ExtAudioFileDispose(file), noErr);
        /* Without EraseFile an existing file is not replaced. */
        AudioFileID existing = NULL;
        CHECK(AudioFileCreateWithURL(url, cases[i].type, &cases[i].format, 0, &existing) != noErr && !existing,
              "%s: not replaced without kAudioFileFlags_EraseFile", cases[i].name);
        CFRelease(url);
        /* ffprobe, not our code, says what it is. */
        char command[2048], line[256] = "";
        snprintf(command, sizeof command,
                 "ffprobe -v error -select_streams a:0 -count_packets -show_entries stream=codec_name,sample_rate,channels,duration_ts "
                 "-of csv=p=0 '%s' 2>&1", path);
        FILE *p = popen(command, "r");
        if (p) { if (!fgets(line, sizeof line, p)) line[0] = 0; pclose(p); }
        line[strcspn(line, "\n")] = 0;
        char codec[64] = "";
        long rate = 0, channels = 0, duration = 0;
        sscanf(line, "%63[^,],%ld,%ld,%ld", codec, &rate, &channels, &duration);
        CHECK(strcmp(codec, cases[i].codec) == 0 && rate == 44100 && channels == 2, "%s: ffprobe says '%s'", cases[i].name, line);
        /* PCM reads back in sox sample for sample; AAC at the source's length and quality. */
        if (cases[i].format.mFormatID == kAudioFormatLinearPCM) {
            snprintf(command, sizeof command, "sox -D '%s' -t raw -e signed -b 16 -L '%s/readback.s16' 2>/dev/null", path, media);
            CHECK(system(command) == 0, "%s: sox reads it", cases[i].name);
            long size = 0;
            void *back = slurp("readback.s16", &size);
            CHECK(back && size == size16 && memcmp(back, s16, (size_t)size) == 0, "%s: sox reads back the samples written (%ld bytes)",
                  cases[i].name, size);
            free(back);
        } else {
            if (cases[i].type == kAudioFileM4AType)
                CHECK(duration == 44100, "%s: ffprobe's length %ld frames, after its priming", cases[i].name, duration);
            /* ffmpeg decodes all of it (its own decoder, not ours). */
            snprintf(command, sizeof command, "ffmpeg -nostdin -v error -i '%s' -f s16le -ac 2 -ar 44100 '%s/ffdecoded.s16' -y", path,
                     media);
            long decodedSize = 0;
            CHECK(system(command) == 0, "%s: ffmpeg decodes it", cases[i].name);
            free(slurp("ffdecoded.s16", &decodedSize));
            CHECK(decodedSize / 4 >= 44100, "%s: ffmpeg decodes %ld frames", cases[i].name, decodedSize / 4);
            float *data = NULL;
            OSStatus status;
            long frames = readAll(cases[i].name, pcmFormat(44100, 2, 32, 1), (void **)&data, 4096, &status);
            CHECK(frames == 44100, "%s reads back as %ld frames (the priming and padding it states trimmed)", cases[i].name, frames);
            long sizeF = 0;
            float *f32 = slurp("source.f32", &sizeF);
            double quality = frames == 44100 && f32 ? snr(data + 4096, f32 + 4096, 88200 - 8192) : 0;
            CHECK(quality >= cases[i].minSNR, "%s: what we encoded reads back as the source (%.1f dB, at least %.0f)",
                  cases[i].name, quality, cases[i].minSNR);
            printf("measured: %s written by us, read back at %.1f dB SNR\n", cases[i].name, quality);
            free(f32);
            free(data);
        }
    }
    free(s16);
}

/* A file written through the program's own callbacks (a memory buffer here), then read
 * back through callbacks: CAF, as AudioFileInitializeWithCallbacks writes it. */
struct Memory {
    unsigned char *bytes;
    long size, capacity;
    int writes;
};

static OSStatus memoryWrite(void *user, SInt64 position, UInt32 count, const void *buffer, UInt32 *actual)
{
    struct Memory *m = user;
    if (position + count > m->capacity) {
        m->capacity = (position + count) * 2;
        m->bytes = realloc(m->bytes, (size_t)m->capacity);
    }
    memcpy(m->bytes + position, buffer, count);
    if (position + count > m->size) m->size = position + count;
    *actual = count;
    m->writes++;
    return noErr;
}

static OSStatus memoryRead(void *user, SInt64 position, UInt32 count, void *buffer, UInt32 *actual)
{
    struct Memory *m = user;
    long n = position >= m->size ? 0 : (position + count > m->size ? m->size - position : count);
    if (n > 0) memcpy(buffer, m->bytes + position, (size_t)n);
    *actual = (UInt32)n;
    return n > 0 ? noErr : kAudioFileEndOfFileError;
}

static SInt64 memorySize(void *user) { return ((struct Memory *)user)->size; }

static OSStatus memorySetSize(void *user, SInt64 size)
{
    ((struct Memory *)user)->size = size;
    return noErr;
}

static OSStatus failingWrite(void *user, SInt64 position, UInt32 count, const void *buffer, UInt32 *actual)
{
    (void)user, (void)position, (void)count, (void)buffer;
    *actual = 0;
    return -36; /* an I/O error */
}

static void writingThroughCallbacks(void)
{
    long size16 = 0;
    short *s16 = slurp("source.s16", &size16);
    struct Memory m = {0};
    AudioStreamBasicDescription format = pcmFormat(44100, 2, 16, 0);
    AudioFileID file = NULL;
    CHECK_STATUS(AudioFileInitializeWithCallbacks(&m, memoryRead, memoryWrite, memorySize, memorySetSize, kAudioFileCAFType, &format, 0,
                                                  &file),
                 noErr);
    if (file && s16) {
        /* As a recorder writes: bytes at the end, in uneven pieces. */
        for (long at = 0; at < size16;) {
            UInt32 n = (UInt32)(at + 2800 > size16 ? size16 - at : 2800);
            CHECK_STATUS(AudioFileWriteBytes(file, false, at, &n, (char *)s16 + at), noErr);
            at += n;
        }
        CHECK_STATUS(AudioFileClose(file), noErr);
        CHECK(m.writes > 10, "the program's write procedure did the writing (%d calls)", m.writes);
        /* Our reader, through callbacks, and sox, from a file, read the same samples. */
        AudioFileID back = NULL;
        CHECK_STATUS(AudioFileOpenWithCallbacks(&m, memoryRead, NULL, memorySize, NULL, 0, &back), noErr);
        if (back) {
            static short samples[44100 * 2];
            UInt32 bytes = sizeof samples;
            CHECK_STATUS(AudioFileReadBytes(back, false, 0, &bytes, samples), noErr);
            CHECK(bytes == size16 && memcmp(samples, s16, (size_t)bytes) == 0, "read back through callbacks: the samples written");
            AudioFileClose(back);
        }
        char path[1024], command[2048];
        snprintf(path, sizeof path, "%s/callbacks.caf", media);
        FILE *f = fopen(path, "wb");
        if (f) { fwrite(m.bytes, 1, (size_t)m.size, f); fclose(f); }
        snprintf(command, sizeof command, "sox -D '%s' -t raw -e signed -b 16 -L '%s/readback.s16' 2>/dev/null", path, media);
        CHECK(system(command) == 0, "sox reads the CAF the callbacks received");
        long size = 0;
        void *again = slurp("readback.s16", &size);
        CHECK(again && size == size16 && memcmp(again, s16, (size_t)size) == 0, "sox reads back the samples written (%ld bytes)", size);
        free(again);
    }
    /* Only CAF is written through callbacks; a write procedure that fails is reported. */
    file = NULL;
    CHECK_STATUS(AudioFileInitializeWithCallbacks(&m, memoryRead, memoryWrite, memorySize, memorySetSize, kAudioFileWAVEType, &format, 0,
                                                  &file),
                 kAudioFileOperationNotSupportedError);
    CHECK_STATUS(AudioFileInitializeWithCallbacks(&m, memoryRead, NULL, memorySize, memorySetSize, kAudioFileCAFType, &format, 0, &file),
                 kAudio_ParamError);
    CHECK_STATUS(AudioFileInitializeWithCallbacks(&m, memoryRead, failingWrite, memorySize, memorySetSize, kAudioFileCAFType, &format, 0,
                                                  &file),
                 noErr);
    if (file) {
        UInt32 n = 400;
        CHECK(AudioFileWriteBytes(file, false, 0, &n, s16) != noErr, "a failing write procedure gives an error code");
        AudioFileClose(file);
    }
    free(m.bytes);
    free(s16);
}

/* System sounds decode through the same services: IMA4 in CAF (the phone's own format
 * for them, which libsndfile does not read), ALAC and AAC load; garbage does not. */
static void systemSounds(void)
{
    struct { const char *name; OSStatus want; } cases[] = {
        {"ima4.caf", noErr}, {"ima4.aifc", noErr}, {"alac.caf", noErr}, {"aac.m4a", noErr}, {"pcm16.wav", noErr},
        {"garbage.wav", kAudioServicesUnsupportedPropertyError}, {"empty.wav", kAudioServicesUnsupportedPropertyError},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        CFURLRef url = urlOf(mediaPath(cases[i].name));
        SystemSoundID sound = 0;
        OSStatus status = AudioServicesCreateSystemSoundID(url, &sound);
        CFRelease(url);
        CHECK(cases[i].want == noErr ? status == noErr && sound != 0 : status != noErr && sound == 0,
              "system sound from %s: %d", cases[i].name, (int)status);
        if (sound) AudioServicesDisposeSystemSoundID(sound);
    }
}

static void badFiles(void)
{
    struct { const char *path; OSStatus expected; } cases[] = {
        {"missing.wav", kAudioFileFileNotFoundError},
        {"garbage.wav", kAudioFileUnsupportedFileTypeError},
        {"empty.wav", kAudioFileInvalidFileError},
        {".", kAudioFileInvalidFileError},
        {"/dev/zero", kAudioFileInvalidFileError},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *path = cases[i].path[0] == '/' ? cases[i].path : mediaPath(cases[i].path);
        CFURLRef url = urlOf(path);
        AudioFileID file = (AudioFileID)0x1;
        CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file), cases[i].expected);
        ExtAudioFileRef ext = NULL;
        CHECK_STATUS(ExtAudioFileOpenURL(url, &ext), cases[i].expected);
        CFRelease(url);
    }
    /* A FIFO nobody writes to is refused at once, not waited on. */
    char fifo[1024];
    snprintf(fifo, sizeof fifo, "%s/fifo.wav", media);
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    alarm(60);
    CFURLRef url = urlOf(fifo);
    AudioFileID file = NULL;
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file), kAudioFileInvalidFileError);
    CFRelease(url);
    alarm(0);
    /* A truncated M4A (its index cut off) and a WAV that is only a header. */
    const char *broken[] = {"truncated.m4a", "header-only.wav"};
    for (int i = 0; i < 2; i++) {
        url = urlOf(mediaPath(broken[i]));
        file = NULL;
        OSStatus status = AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file);
        CHECK(status != noErr || file != NULL, "%s: a code or a file", broken[i]);
        if (file) AudioFileClose(file);
        CFRelease(url);
    }
    /* Another local user got to a shared folder first: a symbolic link named as our file
     * is not followed, and a file they own is not erased for us, even if they let us. */
    char planted[1024], target[1024];
    snprintf(planted, sizeof planted, "%s/planted.wav", media);
    snprintf(target, sizeof target, "%s/victim.txt", media);
    unlink(planted);
    FILE *victim = fopen(target, "w");
    fputs("not yours\n", victim);
    fclose(victim);
    CHECK(symlink(target, planted) == 0, "symlink");
    AudioStreamBasicDescription pcm = pcmFormat(44100, 2, 16, 0);
    url = urlOf(planted);
    file = NULL;
    CHECK_STATUS(AudioFileCreateWithURL(url, kAudioFileWAVEType, &pcm, kAudioFileFlags_EraseFile, &file), kAudioFilePermissionsError);
    long victimSize = 0;
    char *victimText = readWholeFile(target, &victimSize);
    CHECK(victimSize == 10 && memcmp(victimText, "not yours\n", 10) == 0, "the link's target is untouched (%ld bytes)", victimSize);
    free(victimText);
    unlink(planted);
    if (geteuid() == 0) {
        victim = fopen(planted, "w");
        fclose(victim);
        CHECK(chown(planted, 65534, 65534) == 0 && chmod(planted, 0666) == 0, "a file of another user's");
        CHECK_STATUS(AudioFileCreateWithURL(url, kAudioFileWAVEType, &pcm, kAudioFileFlags_EraseFile, &file), kAudioFilePermissionsError);
        unlink(planted);
    } else {
        printf("not checked: a file another user owns (only root can make one here)\n");
    }
    CFRelease(url);
    /* NULL and foreign arguments. */
    CHECK_STATUS(AudioFileOpenURL(NULL, kAudioFileReadPermission, 0, &file), kAudio_ParamError);
    url = urlOf(mediaPath("pcm16.wav"));
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, NULL), kAudio_ParamError);
    CHECK_STATUS(AudioFileOpenURL(url, 0, 0, &file), kAudio_ParamError);
    CFRelease(url);
    UInt32 size = 4, value;
    CHECK_STATUS(AudioFileGetProperty((AudioFileID)&value, kAudioFilePropertyFileFormat, &size, &value), kAudioFileNotOpenError);
    CHECK_STATUS(ExtAudioFileDispose((ExtAudioFileRef)&value), kAudioFileNotOpenError);
    CHECK_STATUS(AudioConverterDispose((AudioConverterRef)&value), kAudio_ParamError);
}

/* The converter as iPhone code drives it: an input procedure that hands out its data in
 * slices, then says it has no more by returning an error with zero packets. */
struct Feed {
    const short *samples;
    long frames, offset;
    UInt32 slice;
    OSStatus endCode;
    int calls;
};

static OSStatus feed(AudioConverterRef converter, UInt32 *ioPackets, AudioBufferList *data,
                     AudioStreamPacketDescription **descriptions, void *user)
{
    (void)converter;
    (void)descriptions;
    struct Feed *f = user;
    f->calls++;
    if (f->offset >= f->frames) {
        *ioPackets = 0;
        return f->endCode;
    }
    UInt32 n = *ioPackets < f->slice ? *ioPackets : f->slice;
    if (f->offset + n > f->frames) n = (UInt32)(f->frames - f->offset);
    data->mBuffers[0].mData = (void *)(f->samples + f->offset * 2);
    data->mBuffers[0].mDataByteSize = n * 4;
    data->mBuffers[0].mNumberChannels = 2;
    *ioPackets = n;
    f->offset += n;
    return noErr;
}

static void converter(void)
{
    long size16 = 0, sizeF = 0;
    short *s16 = slurp("source.s16", &size16);
    float *f32 = slurp("source.f32", &sizeF);
    /* 16-bit to float, same rate: ConvertBuffer, exactly sox's values. */
    AudioStreamBasicDescription from = pcmFormat(44100, 2, 16, 0), to = pcmFormat(44100, 2, 32, 1);
    AudioConverterRef c = NULL;
    CHECK_STATUS(AudioConverterNew(&from, &to, &c), noErr);
    float *out = malloc(44100 * 8);
    UInt32 outSize = 44100 * 8;
    CHECK_STATUS(AudioConverterConvertBuffer(c, 44100 * 4, s16, &outSize, out), noErr);
    CHECK(outSize == 44100 * 8 && memcmp(out, f32, 44100 * 8) == 0, "ConvertBuffer: 16-bit to float as sox converts");
    outSize = 8;
    CHECK_STATUS(AudioConverterConvertBuffer(c, 44100 * 4, s16, &outSize, out), kAudioConverterErr_InvalidOutputSize);
    outSize = 44100 * 8;
    CHECK_STATUS(AudioConverterConvertBuffer(c, 3, s16, &outSize, out), kAudioConverterErr_InvalidInputSize);
    CHECK_STATUS(AudioConverterDispose(c), noErr);

    /* 44.1 kHz stereo to 48 kHz stereo float through FillComplexBuffer, fed in 333-frame
     * slices, ended by an error with zero packets. */
    to = pcmFormat(48000, 2, 32, 1);
    CHECK_STATUS(AudioConverterNew(&from, &to, &c), noErr);
    struct Feed f = {s16, 44100, 0, 333, 0x73746F70 /* 'stop' */, 0};
    float *resampled = malloc(50000 * 8);
    long made = 0;
    OSStatus status = noErr;
    while (made < 50000) {
        UInt32 packets = 512;
        AudioBufferList list = {1, {{2, packets * 8, resampled + made * 2}}};
        status = AudioConverterFillComplexBuffer(c, feed, &f, &packets, &list, NULL);
        made += packets;
        if (status || packets == 0) break;
    }
    CHECK(status == 0x73746F70 /* 'stop' */, "the input procedure's error comes back (%d)", (int)status);
    CHECK(labs(made - 48000) <= 64, "44.1 -> 48 kHz: %ld frames for 44100", made);
    /* The pitch is kept: count zero crossings of the left channel (440 Hz). */
    int crossings = 0;
    for (long i = 1; i < made; i++) crossings += resampled[2 * (i - 1)] < 0 && resampled[2 * i] >= 0;
    CHECK(crossings >= 438 && crossings <= 442, "the left channel crosses zero upward %d times in a second", crossings);
    CHECK_STATUS(AudioConverterReset(c), noErr);
    CHECK_STATUS(AudioConverterDispose(c), noErr);
    /* Formats it cannot convert. */
    AudioStreamBasicDescription bogus = pcmFormat(44100, 2, 16, 0);
    bogus.mBytesPerFrame = 3;
    CHECK_STATUS(AudioConverterNew(&bogus, &to, &c), kAudioConverterErr_FormatNotSupported);
    AudioStreamBasicDescription mp3 = {44100, kAudioFormatMPEGLayer3, 0, 0, 1152, 0, 2, 0, 0};
    CHECK_STATUS(AudioConverterNew(&from, &mp3, &c), kAudioConverterErr_FormatNotSupported);
    CHECK_STATUS(AudioConverterNew(NULL, &to, &c), kAudio_ParamError);
    free(out);
    free(resampled);
    free(s16);
    free(f32);
}

/* The audio-queue pattern: packets read with AudioFile, decoded by a converter given the
 * file's magic cookie, with packet descriptions. */
struct PacketFeed {
    AudioFileID file;
    SInt64 next;
    char buffer[1 << 16];
    AudioStreamPacketDescription description;
};

static OSStatus packetFeed(AudioConverterRef converter, UInt32 *ioPackets, AudioBufferList *data,
                           AudioStreamPacketDescription **descriptions, void *user)
{
    (void)converter;
    struct PacketFeed *f = user;
    UInt32 bytes = sizeof f->buffer, packets = 1;
    OSStatus status = AudioFileReadPacketData(f->file, false, &bytes, &f->description, f->next, &packets, f->buffer);
    if (packets == 0) {
        *ioPackets = 0;
        return status == kAudioFileEndOfFileError ? noErr : status;
    }
    f->next += packets;
    data->mBuffers[0].mData = f->buffer;
    data->mBuffers[0].mDataByteSize = bytes;
    if (descriptions) *descriptions = &f->description;
    *ioPackets = packets;
    return noErr;
}

static void decodingConverter(void)
{
    CFURLRef url = urlOf(mediaPath("aac.m4a"));
    static struct PacketFeed f;
    memset(&f, 0, sizeof f);
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &f.file), noErr);
    CFRelease(url);
    if (!f.file) return;
    AudioStreamBasicDescription from, to = pcmFormat(44100, 2, 32, 1);
    UInt32 size = sizeof from;
    CHECK_STATUS(AudioFileGetProperty(f.file, kAudioFilePropertyDataFormat, &size, &from), noErr);
    AudioConverterRef c = NULL;
    CHECK_STATUS(AudioConverterNew(&from, &to, &c), noErr);
    UInt32 cookieSize = 0;
    CHECK_STATUS(AudioFileGetPropertyInfo(f.file, kAudioFilePropertyMagicCookieData, &cookieSize, NULL), noErr);
    void *cookie = malloc(cookieSize);
    CHECK_STATUS(AudioFileGetProperty(f.file, kAudioFilePropertyMagicCookieData, &cookieSize, cookie), noErr);
    CHECK_STATUS(AudioConverterSetProperty(c, kAudioConverterDecompressionMagicCookie, cookieSize, cookie), noErr);
    free(cookie);
    float *pcm = malloc(60000 * 8);
    long made = 0;
    for (;;) {
        UInt32 packets = 1024;
        AudioBufferList list = {1, {{2, packets * 8, pcm + made * 2}}};
        OSStatus status = AudioConverterFillComplexBuffer(c, packetFeed, &f, &packets, &list, NULL);
        made += packets;
        if (status || packets == 0 || made > 58000) break;
    }
    /* Untrimmed: every packet's frames, priming included. */
    UInt64 packetCount = 0;
    size = sizeof packetCount;
    AudioFileGetProperty(f.file, kAudioFilePropertyAudioDataPacketCount, &size, &packetCount);
    CHECK(made == (long)packetCount * 1024, "the converter decodes %ld frames of %llu packets", made, (unsigned long long)packetCount);
    long sizeF = 0;
    float *f32 = slurp("source.f32", &sizeF);
    double quality = made >= 44100 + 1024 ? snr(pcm + 2 * 1024 + 4096, f32 + 4096, 88200 - 8192) : 0;
    CHECK(quality >= 30, "after the 1024 priming frames it is the source (%.1f dB)", quality);
    free(f32);
    free(pcm);
    AudioConverterDispose(c);
    AudioFileClose(f.file);
}

/* Encoding as Apple's ConvertFile sample does it: a converter from PCM to the file's
 * format, its compression cookie given to the file, then FillComplexBuffer into a
 * buffer of MaximumOutputPacketSize packets, written with AudioFileWritePackets; FFmpeg
 * (not our decoder) reads the file back. Apple Lossless gives packet descriptions;
 * IMA4, of fixed-size packets, is pulled without them. */
static void encodingConverter(void)
{
    long size16 = 0;
    short *s16 = slurp("source.s16", &size16);
    struct {
        const char *name;
        AudioStreamBasicDescription format;
        int descriptions;
        double minSNR;
    } cases[] = {
        {"convalac.caf", {44100, kAudioFormatAppleLossless, kAppleLosslessFormatFlag_16BitSourceData, 0, 4096, 0, 2, 0, 0}, 1, 90},
        {"convima4.caf", {44100, kAudioFormatAppleIMA4, 0, 68, 64, 0, 2, 0, 0}, 0, 20},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        AudioStreamBasicDescription from = pcmFormat(44100, 2, 16, 0);
        AudioConverterRef c = NULL;
        CHECK_STATUS(AudioConverterNew(&from, &cases[i].format, &c), noErr);
        if (!c) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", media, cases[i].name);
        CFURLRef url = urlOf(path);
        AudioFileID file = NULL;
        CHECK_STATUS(AudioFileCreateWithURL(url, kAudioFileCAFType, &cases[i].format, kAudioFileFlags_EraseFile, &file), noErr);
        CFRelease(url);
        UInt32 cookieSize = 0;
        if (AudioConverterGetPropertyInfo(c, kAudioConverterCompressionMagicCookie, &cookieSize, NULL) == noErr && cookieSize) {
            void *cookie = malloc(cookieSize);
            CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterCompressionMagicCookie, &cookieSize, cookie), noErr);
            CHECK_STATUS(AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, cookieSize, cookie), noErr);
            free(cookie);
        }
        UInt32 maximum = 0, size = sizeof maximum;
        CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterPropertyMaximumOutputPacketSize, &size, &maximum), noErr);
        CHECK(maximum > 0, "%s: a maximum packet size (%u)", cases[i].name, (unsigned)maximum);
        enum { PACKETS = 8 };
        char *buffer = malloc((size_t)maximum * PACKETS);
        AudioStreamPacketDescription descriptions[PACKETS];
        struct Feed f = {s16, 44100, 0, 1000, noErr, 0};
        SInt64 written = 0;
        OSStatus status = noErr;
        for (int turns = 0; turns < 100000; turns++) {
            UInt32 packets = PACKETS;
            AudioBufferList list = {1, {{2, maximum * PACKETS, buffer}}};
            status = AudioConverterFillComplexBuffer(c, feed, &f, &packets, &list,
                                                     cases[i].descriptions ? descriptions : NULL);
            if (status || packets == 0) break;
            OSStatus wrote = AudioFileWritePackets(file, false, list.mBuffers[0].mDataByteSize,
                                                   cases[i].descriptions ? descriptions : NULL, written, &packets, buffer);
            if (wrote) { CHECK_STATUS(wrote, noErr); break; }
            written += packets;
        }
        CHECK_STATUS(status, noErr);
        CHECK_STATUS(AudioFileClose(file), noErr);
        CHECK_STATUS(AudioConverterDispose(c), noErr);
        free(buffer);
        /* FFmpeg reads it: the source's samples back, the length whole packets make. */
        char command[2048];
        snprintf(command, sizeof command, "ffmpeg -nostdin -v error -i '%s' -f s16le -ac 2 -ar 44100 '%s/convdecoded.s16' -y", path,
                 media);
        CHECK(system(command) == 0, "%s: ffmpeg decodes it", cases[i].name);
        long decodedSize = 0;
        short *decoded = slurp("convdecoded.s16", &decodedSize);
        long frames = decodedSize / 4;
        CHECK(frames >= 44100 && frames < 44100 + 4096, "%s: %lld packets decode to %ld frames", cases[i].name,
              (long long)written, frames);
        double signal = 0, noise = 0;
        for (long k = 0; decoded && frames >= 44100 && k < 88200; k++) {
            signal += (double)s16[k] * s16[k];
            noise += ((double)decoded[k] - s16[k]) * ((double)decoded[k] - s16[k]);
        }
        double quality = noise > 0 ? 10 * log10(signal / noise) : 200;
        CHECK(quality >= cases[i].minSNR, "%s: FFmpeg reads back the source at %.1f dB (at least %.0f)", cases[i].name, quality,
              cases[i].minSNR);
        printf("measured: %s encoded by AudioConverter, read by FFmpeg at %.1f dB SNR\n", cases[i].name, quality);
        free(decoded);
    }
    free(s16);
}

/* A media framework's AudioToolbox AAC encoder (FFmpeg's aac_at, as it drives the
 * phone's converter): the destination with 0 frames per packet, the input layout by
 * channel descriptions, the output layout by the stereo tag (in a buffer sized for the
 * descriptions), the bit-rate control mode and VBR quality, an applicable bit rate, the
 * codec quality; then the cookie, the completed output description (its frame is each
 * packet's duration, as the framework times packets), the priming and the largest packet;
 * one frame of input per call (1 when it has none yet, as the framework answers), one
 * packet out per fill. The packets, written to an M4A, have the input's duration and
 * FFmpeg decodes them. */
static OSStatus frameworkFeed(AudioConverterRef converter, UInt32 *ioPackets, AudioBufferList *data,
                              AudioStreamPacketDescription **descriptions, void *user)
{
    (void)converter; (void)descriptions;
    struct Feed *f = user;
    /* `slice` is the frame the framework holds for this fill (0: none yet, answered 1);
     * past the input's end, the end of stream (0 packets, no error). */
    if (f->offset >= f->frames) { *ioPackets = 0; return noErr; }
    if (f->slice == 0) { *ioPackets = 0; return 1; }
    UInt32 n = (UInt32)(f->frames - f->offset < f->slice ? f->frames - f->offset : f->slice);
    f->slice = 0;
    if (*ioPackets > n) *ioPackets = n;
    data->mNumberBuffers = 1;
    data->mBuffers[0].mNumberChannels = 2;
    data->mBuffers[0].mDataByteSize = *ioPackets * 4;
    data->mBuffers[0].mData = (void *)(f->samples + f->offset * 2);
    f->offset += *ioPackets;
    return noErr;
}

/* How long FFmpeg says the file at `path` lasts (0 if it cannot tell). */
static double probeSeconds(const char *path)
{
    char command[2048];
    snprintf(command, sizeof command, "ffprobe -v error -show_entries format=duration -of csv=p=0 '%s'", path);
    FILE *probe = popen(command, "r");
    double seconds = 0;
    if (probe) {
        if (fscanf(probe, "%lf", &seconds) != 1) seconds = 0;
        pclose(probe);
    }
    return seconds;
}

static void frameworkEncoder(void)
{
    long size16 = 0;
    short *s16 = slurp("source.s16", &size16);
    AudioStreamBasicDescription in = pcmFormat(44100, 2, 16, 0);
    AudioStreamBasicDescription out = {44100, kAudioFormatMPEG4AAC, 0, 0, 0, 0, 2, 0, 0};
    AudioConverterRef c = NULL;
    CHECK_STATUS(AudioConverterNew(&in, &out, &c), noErr);
    if (!c) { free(s16); return; }
    UInt32 layoutSize = sizeof(AudioChannelLayout) + 2 * sizeof(AudioChannelDescription);
    AudioChannelLayout *layout = calloc(1, layoutSize);
    layout->mChannelLayoutTag = kAudioChannelLayoutTag_UseChannelDescriptions;
    layout->mNumberChannelDescriptions = 2;
    layout->mChannelDescriptions[0].mChannelLabel = kAudioChannelLabel_Left;
    ((AudioChannelDescription *)layout->mChannelDescriptions)[1].mChannelLabel = kAudioChannelLabel_Right;
    CHECK_STATUS(AudioConverterSetProperty(c, kAudioConverterInputChannelLayout, layoutSize, layout), noErr);
    layout->mChannelLayoutTag = kAudioChannelLayoutTag_Stereo;
    layout->mNumberChannelDescriptions = 0;
    CHECK_STATUS(AudioConverterSetProperty(c, kAudioConverterOutputChannelLayout, layoutSize, layout), noErr);
    layout->mChannelLayoutTag = kAudioChannelLayoutTag_Mono;
    CHECK_STATUS(AudioConverterSetProperty(c, kAudioConverterOutputChannelLayout, layoutSize, layout), kAudio_ParamError);
    UInt32 size = layoutSize;
    CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterOutputChannelLayout, &size, layout), noErr);
    CHECK(layout->mChannelLayoutTag == kAudioChannelLayoutTag_Stereo, "a refused layout leaves the stereo tag");
    free(layout);
    UInt32 mode = kAudioCodecBitRateControlMode_Constant, quality = 127 - 2 * 9, value = 0;
    CHECK_STATUS(AudioConverterSetProperty(c, kAudioCodecPropertyBitRateControlMode, sizeof mode, &mode), noErr);
    CHECK_STATUS(AudioConverterSetProperty(c, kAudioCodecPropertySoundQualityForVBR, sizeof quality, &quality), noErr);
    size = sizeof value;
    CHECK_STATUS(AudioConverterGetProperty(c, kAudioCodecPropertySoundQualityForVBR, &size, &value), noErr);
    CHECK(value == quality, "the VBR quality reads back (%u)", (unsigned)value);
    UInt32 rate = 128000, rangesSize = 0;
    CHECK_STATUS(AudioConverterGetPropertyInfo(c, kAudioConverterApplicableEncodeBitRates, &rangesSize, NULL), noErr);
    CHECK(rangesSize >= sizeof(AudioValueRange), "applicable bit rates (%u bytes)", (unsigned)rangesSize);
    CHECK_STATUS(AudioConverterSetProperty(c, kAudioConverterEncodeBitRate, sizeof rate, &rate), noErr);
    UInt32 codecQuality = 96;
    CHECK_STATUS(AudioConverterSetProperty(c, kAudioConverterCodecQuality, sizeof codecQuality, &codecQuality), noErr);
    UInt32 cookieSize = 0;
    CHECK_STATUS(AudioConverterGetPropertyInfo(c, kAudioConverterCompressionMagicCookie, &cookieSize, NULL), noErr);
    void *cookie = calloc(1, cookieSize + 1);
    CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterCompressionMagicCookie, &cookieSize, cookie), noErr);
    AudioStreamBasicDescription current = {0};
    size = sizeof current;
    CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterCurrentOutputStreamDescription, &size, &current), noErr);
    CHECK(current.mFramesPerPacket == 1024, "the completed output description has 1024 frames per packet (%u)",
          (unsigned)current.mFramesPerPacket);
    AudioConverterPrimeInfo prime = {0, 0};
    size = sizeof prime;
    CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterPrimeInfo, &size, &prime), noErr);
    UInt32 packetSize = 0;
    size = sizeof packetSize;
    CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterPropertyMaximumOutputPacketSize, &size, &packetSize), noErr);

    /* Two files of the same packets: one without a packet table, and one whose table is
     * set after the last packet, just before closing, as an afconvert-style program does
     * once the converter's priming is known. */
    char path[1024], tablePath[1024];
    snprintf(path, sizeof path, "%s/framework.m4a", media);
    snprintf(tablePath, sizeof tablePath, "%s/framework-table.m4a", media);
    AudioFileID file = NULL, tableFile = NULL;
    CFURLRef url = urlOf(path);
    CHECK_STATUS(AudioFileCreateWithURL(url, kAudioFileM4AType, &current, kAudioFileFlags_EraseFile, &file), noErr);
    CFRelease(url);
    url = urlOf(tablePath);
    CHECK_STATUS(AudioFileCreateWithURL(url, kAudioFileM4AType, &current, kAudioFileFlags_EraseFile, &tableFile), noErr);
    CFRelease(url);
    if (file) CHECK_STATUS(AudioFileSetProperty(file, kAudioFilePropertyMagicCookieData, cookieSize, cookie), noErr);
    if (tableFile) CHECK_STATUS(AudioFileSetProperty(tableFile, kAudioFilePropertyMagicCookieData, cookieSize, cookie), noErr);
    free(cookie);
    char *packet = malloc(packetSize ? packetSize : 1);
    struct Feed f = {s16, 44100, 0, 0, noErr, 0};
    long duration = 0, packets = 0;
    for (int turn = 0; turn < 1000; turn++) {
        f.slice = 1024;  /* one frame of input per fill */
        UInt32 got = 1;
        AudioBufferList list = {1, {{2, packetSize, packet}}};
        AudioStreamPacketDescription description = {0, 0, 0};
        OSStatus status = AudioConverterFillComplexBuffer(c, frameworkFeed, &f, &got, &list, &description);
        if ((status == noErr || status == 1) && got) {
            duration += description.mVariableFramesInPacket ? description.mVariableFramesInPacket : current.mFramesPerPacket;
            description.mStartOffset = 0;
            if (file) CHECK_STATUS(AudioFileWritePackets(file, false, list.mBuffers[0].mDataByteSize, &description, packets, &got,
                                                         packet), noErr);
            UInt32 one = 1;
            if (tableFile)
                CHECK_STATUS(AudioFileWritePackets(tableFile, false, list.mBuffers[0].mDataByteSize, &description, packets, &one,
                                                   packet), noErr);
            packets++;
        } else {
            CHECK(status == noErr || status == 1, "the encoder fills (%d)", (int)status);
            if (f.offset >= f.frames) break;  /* drained */
        }
    }
    free(packet);
    printf("measured: the framework's encoder: %ld packets timed %ld frames for 44100 fed (%u priming)\n", packets, duration,
           (unsigned)prime.leadingFrames);
    CHECK(duration >= 44100 && duration <= 44100 + prime.leadingFrames + 2048, "its packets last as long as the input (%ld frames)",
          duration);
    if (file) CHECK_STATUS(AudioFileClose(file), noErr);
    size = sizeof prime;
    CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterPrimeInfo, &size, &prime), noErr);
    AudioFilePacketTableInfo table = {44100, (SInt32)prime.leadingFrames, (SInt32)(duration - 44100 - prime.leadingFrames)};
    CHECK(table.mPrimingFrames > 0 && table.mRemainderFrames >= 0, "the converter's priming (%d) leaves a remainder (%d)",
          (int)table.mPrimingFrames, (int)table.mRemainderFrames);
    if (tableFile) {
        CHECK_STATUS(AudioFileSetProperty(tableFile, kAudioFilePropertyPacketTableInfo, sizeof table, &table), noErr);
        CHECK_STATUS(AudioFileClose(tableFile), noErr);
    }
    CHECK_STATUS(AudioConverterDispose(c), noErr);
    double seconds = probeSeconds(path), tableSeconds = probeSeconds(tablePath);
    printf("measured: the M4A of its packets lasts %.3f s for FFmpeg; with the packet table set after them %.3f s\n", seconds,
           tableSeconds);
    CHECK(fabs(seconds - duration / 44100.0) < 0.002, "FFmpeg reads the M4A as long as its packets (%.3f s)", seconds);
    CHECK(fabs(tableSeconds - 1.0) < 0.001, "FFmpeg reads the M4A whose table was set last as the 44100 frames fed (%.4f s)",
          tableSeconds);
    /* Read back by us: the table, and ExtAudioFile's length, are the program's. */
    url = urlOf(tablePath);
    AudioFileID back = NULL;
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, kAudioFileM4AType, &back), noErr);
    if (back) {
        AudioFilePacketTableInfo read = {0, 0, 0};
        size = sizeof read;
        CHECK_STATUS(AudioFileGetProperty(back, kAudioFilePropertyPacketTableInfo, &size, &read), noErr);
        CHECK(read.mNumberValidFrames == 44100 && read.mPrimingFrames == table.mPrimingFrames,
              "the table reads back: %lld valid, %d priming (set %d)", (long long)read.mNumberValidFrames, (int)read.mPrimingFrames,
              (int)table.mPrimingFrames);
        AudioFileClose(back);
    }
    ExtAudioFileRef ext = NULL;
    CHECK_STATUS(ExtAudioFileOpenURL(url, &ext), noErr);
    CFRelease(url);
    if (ext) {
        SInt64 length = 0;
        size = sizeof length;
        CHECK_STATUS(ExtAudioFileGetProperty(ext, kExtAudioFileProperty_FileLengthFrames, &size, &length), noErr);
        CHECK(length == 44100, "ExtAudioFile reads 44100 frames (%lld)", (long long)length);
        ExtAudioFileDispose(ext);
    }
    free(s16);
}

/* Audio Format's completion and its two yes/no questions, format by format, against
 * the facts the formats themselves fix (IMA4 packs 64 frames in 34 bytes a channel;
 * MPEG-2's layer III frame is half of MPEG-1's; the companded formats are a byte a
 * sample). */
static void formatFactsTable(void)
{
    static const struct {
        const char *name;
        UInt32 formatID;
        Float64 rate;
        UInt32 channels;
        UInt32 framesPerPacket, bytesPerPacket, bytesPerFrame, bitsPerChannel, vbr, externallyFramed;
    } rows[] = {
        {"AAC 44.1k stereo", kAudioFormatMPEG4AAC, 44100, 2, 1024, 0, 0, 0, 1, 1},
        {"MP3 44.1k", kAudioFormatMPEGLayer3, 44100, 2, 1152, 0, 0, 0, 1, 0},
        {"MP3 22.05k (MPEG-2)", kAudioFormatMPEGLayer3, 22050, 1, 576, 0, 0, 0, 1, 0},
        {"MP2 48k", kAudioFormatMPEGLayer2, 48000, 2, 1152, 0, 0, 0, 1, 0},
        {"MP1 44.1k", kAudioFormatMPEGLayer1, 44100, 2, 384, 0, 0, 0, 1, 0},
        {"IMA4 stereo", kAudioFormatAppleIMA4, 44100, 2, 64, 68, 0, 0, 0, 0},
        {"IMA4 mono", kAudioFormatAppleIMA4, 22050, 1, 64, 34, 0, 0, 0, 0},
        {"µ-law stereo", kAudioFormatULaw, 8000, 2, 1, 2, 2, 8, 0, 0},
        {"A-law mono", kAudioFormatALaw, 8000, 1, 1, 1, 1, 8, 0, 0},
        {"Apple Lossless, no cookie", kAudioFormatAppleLossless, 44100, 2, 4096, 0, 0, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        AudioStreamBasicDescription d = {0};
        d.mFormatID = rows[i].formatID;
        d.mSampleRate = rows[i].rate;
        d.mChannelsPerFrame = rows[i].channels;
        d.mBitsPerChannel = 99; /* a value the codec overrides, except where it keeps the program's */
        if (rows[i].formatID == kAudioFormatAppleLossless) d.mBitsPerChannel = 0;
        UInt32 size = sizeof d;
        CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, NULL, &size, &d), noErr);
        CHECK(d.mFramesPerPacket == rows[i].framesPerPacket && d.mBytesPerPacket == rows[i].bytesPerPacket
                  && d.mBytesPerFrame == rows[i].bytesPerFrame && d.mBitsPerChannel == rows[i].bitsPerChannel,
              "FormatInfo completes %s: %u frames, %u bytes a packet, %u a frame, %u bits (want %u, %u, %u, %u)",
              rows[i].name, (unsigned)d.mFramesPerPacket, (unsigned)d.mBytesPerPacket, (unsigned)d.mBytesPerFrame,
              (unsigned)d.mBitsPerChannel, (unsigned)rows[i].framesPerPacket, (unsigned)rows[i].bytesPerPacket,
              (unsigned)rows[i].bytesPerFrame, (unsigned)rows[i].bitsPerChannel);
        UInt32 vbr = 99, framed = 99;
        size = sizeof vbr;
        CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FormatIsVBR, sizeof d, &d, &size, &vbr), noErr);
        size = sizeof framed;
        CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FormatIsExternallyFramed, sizeof d, &d, &size, &framed), noErr);
        CHECK(vbr == rows[i].vbr && framed == rows[i].externallyFramed, "%s: VBR %u, externally framed %u (want %u, %u)",
              rows[i].name, (unsigned)vbr, (unsigned)framed, (unsigned)rows[i].vbr, (unsigned)rows[i].externallyFramed);
    }
    /* A format ID nothing here knows: FormatInfo's documented refusal, the buffer untouched. */
    AudioStreamBasicDescription unknown = {0};
    unknown.mFormatID = 0x61632d33; /* 'ac-3' */
    unknown.mSampleRate = 48000;
    unknown.mChannelsPerFrame = 2;
    AudioStreamBasicDescription before = unknown;
    UInt32 size = sizeof unknown;
    CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, NULL, &size, &unknown), kAudioFormatUnknownFormatError);
    CHECK(memcmp(&before, &unknown, sizeof unknown) == 0, "a refused FormatInfo leaves the description as it was");
}

static void formats(void)
{
    AudioStreamBasicDescription d = {0};
    d.mFormatID = kAudioFormatMPEG4AAC;
    d.mSampleRate = 44100;
    d.mChannelsPerFrame = 2;
    UInt32 size = sizeof d;
    CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, NULL, &size, &d), noErr);
    CHECK(d.mFramesPerPacket == 1024, "FormatInfo completes AAC: %u frames per packet", (unsigned)d.mFramesPerPacket);
    /* The format list of a description and cookie (none here): whole items, as a
     * program that divides by sizeof(AudioFormatListItem) counts them. */
    AudioFormatInfo info;
    memset(&info, 0, sizeof info);
    info.mASBD = d;
    UInt32 listSize = 0;
    CHECK_STATUS(AudioFormatGetPropertyInfo(kAudioFormatProperty_FormatList, sizeof info, &info, &listSize), noErr);
    CHECK(listSize == sizeof(AudioFormatListItem), "AudioFormat's format list is one whole item (%u bytes, sizeof %zu)",
          (unsigned)listSize, sizeof(AudioFormatListItem));
    /* A list whose first item nothing here decodes: the playable one is the second,
     * found at sizeof(AudioFormatListItem) into the program's array. */
    AudioFormatListItem list[2];
    memset(list, 0, sizeof list);
    list[0].mASBD = d;
    list[0].mASBD.mFormatID = 0x61632d33; /* 'ac-3' */
    list[1].mASBD = d;
    UInt32 playable = 99;
    size = sizeof playable;
    CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FirstPlayableFormatFromList, sizeof list, list, &size, &playable),
                 noErr);
    CHECK(playable == 1, "the first playable format of [AC-3, AAC] is item 1 (got %u)", (unsigned)playable);
    UInt32 vbr = 0;
    size = sizeof vbr;
    CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FormatIsVBR, sizeof d, &d, &size, &vbr), noErr);
    CHECK(vbr == 1, "AAC is VBR");
    UInt32 idsSize = 0;
    CHECK_STATUS(AudioFormatGetPropertyInfo(kAudioFormatProperty_EncodeFormatIDs, 0, NULL, &idsSize), noErr);
    UInt32 ids[16] = {0};
    CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_EncodeFormatIDs, 0, NULL, &idsSize, ids), noErr);
    int aac = 0, alac = 0, ima4 = 0;
    for (UInt32 i = 0; i < idsSize / 4; i++) {
        aac |= ids[i] == kAudioFormatMPEG4AAC;
        alac |= ids[i] == kAudioFormatAppleLossless;
        ima4 |= ids[i] == kAudioFormatAppleIMA4;
    }
    CHECK(aac && alac && ima4, "AAC, Apple Lossless and IMA4 are among the encoders (%d %d %d)", aac, alac, ima4);
    CFStringRef name = NULL;
    size = sizeof name;
    CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FormatName, sizeof d, &d, &size, &name), noErr);
    CHECK(name && CFStringGetLength(name) > 0, "AAC has a name");
    if (name) CFRelease(name);
    CHECK_STATUS(AudioFormatGetProperty(0x78787878, 0, NULL, &size, &vbr), kAudioFormatUnsupportedPropertyError);
    CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FormatIsVBR, 2, &d, &size, &vbr), kAudioFormatBadSpecifierSizeError);
    UInt32 typesSize = 0;
    CHECK_STATUS(AudioFileGetGlobalInfoSize(kAudioFileGlobalInfo_ReadableTypes, 0, NULL, &typesSize), noErr);
    CHECK(typesSize >= 4 * 6, "readable types: %u bytes", (unsigned)typesSize);
}

/* Whether a CFArray of CFStrings holds `text`. */
static int arrayHolds(CFArrayRef array, const char *text)
{
    CFStringRef wanted = CFStringCreateWithCString(NULL, text, kCFStringEncodingUTF8);
    int found = CFArrayContainsValue(array, CFRangeMake(0, CFArrayGetCount(array)), wanted);
    CFRelease(wanted);
    return found;
}

/* AudioFileGetGlobalInfo as a program that offers a save panel asks it: the types it can
 * write, the formats of one, each type's name and extensions, every extension and MIME
 * type; then the mistakes, each with its code and nothing returned. */
static void globalInfo(void)
{
    UInt32 size = 0;
    CHECK_STATUS(AudioFileGetGlobalInfoSize(kAudioFileGlobalInfo_WritableTypes, 0, NULL, &size), noErr);
    AudioFileTypeID types[64] = {0};
    CHECK(size >= 4 && size <= sizeof types && size % 4 == 0, "writable types: %u bytes", (unsigned)size);
    if (size > sizeof types) size = sizeof types;
    CHECK_STATUS(AudioFileGetGlobalInfo(kAudioFileGlobalInfo_WritableTypes, 0, NULL, &size, types), noErr);
    int caf = 0, wave = 0, m4a = 0;
    for (UInt32 i = 0; i < size / 4; i++) {
        caf |= types[i] == kAudioFileCAFType;
        wave |= types[i] == kAudioFileWAVEType;
        m4a |= types[i] == kAudioFileM4AType;
    }
    CHECK(caf && wave && m4a, "CAF, WAVE and M4A are writable (%d %d %d)", caf, wave, m4a);

    AudioFileTypeID type = kAudioFileCAFType;
    AudioFormatID formats[32] = {0};
    size = sizeof formats;
    CHECK_STATUS(AudioFileGetGlobalInfo(kAudioFileGlobalInfo_AvailableFormatIDs, sizeof type, &type, &size, formats), noErr);
    int lpcm = 0, aac = 0;
    for (UInt32 i = 0; i < size / 4; i++) {
        lpcm |= formats[i] == kAudioFormatLinearPCM;
        aac |= formats[i] == kAudioFormatMPEG4AAC;
    }
    CHECK(lpcm && aac, "a CAF takes linear PCM and AAC (%d %d)", lpcm, aac);

    /* The text answers: a pointer's size, a new object the caller releases. */
    CHECK_STATUS(AudioFileGetGlobalInfoSize(kAudioFileGlobalInfo_FileTypeName, sizeof type, &type, &size), noErr);
    CHECK(size == sizeof(CFStringRef), "a type's name is a CFStringRef (%u bytes)", (unsigned)size);
    CFStringRef name = NULL;
    size = sizeof name;
    CHECK_STATUS(AudioFileGetGlobalInfo(kAudioFileGlobalInfo_FileTypeName, sizeof type, &type, &size, &name), noErr);
    CHECK(name && CFStringGetLength(name) > 0, "CAF has a name");
    if (name) CFRelease(name);
    struct { UInt32 id; AudioFileTypeID type; const char *holds; } lists[] = {
        {kAudioFileGlobalInfo_ExtensionsForType, kAudioFileWAVEType, "wav"},
        {kAudioFileGlobalInfo_ExtensionsForType, kAudioFileM4AType, "m4a"},
        {kAudioFileGlobalInfo_MIMETypesForType, kAudioFileMP3Type, "audio/mpeg"},
        {kAudioFileGlobalInfo_AllExtensions, 0, "caf"},
        {kAudioFileGlobalInfo_AllMIMETypes, 0, "audio/x-caf"},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        CFArrayRef array = NULL;
        size = sizeof array;
        UInt32 specifierSize = lists[i].type ? sizeof lists[i].type : 0;
        CHECK_STATUS(AudioFileGetGlobalInfo(lists[i].id, specifierSize, lists[i].type ? &lists[i].type : NULL, &size, &array),
                     noErr);
        CHECK(array && arrayHolds(array, lists[i].holds), "global info %u holds \"%s\"", (unsigned)lists[i].id, lists[i].holds);
        if (array) CFRelease(array);
    }

    /* Mistakes: each its code, and the caller's value untouched. */
    AudioFileTypeID unknown = 0x78787878;
    struct { UInt32 id; UInt32 specifierSize; void *specifier; UInt32 ioSize; OSStatus expected; } bad[] = {
        {kAudioFileGlobalInfo_FileTypeName, 3, &type, sizeof(CFStringRef), kAudioFileBadPropertySizeError},
        {kAudioFileGlobalInfo_FileTypeName, 0, NULL, sizeof(CFStringRef), kAudioFileBadPropertySizeError},
        {kAudioFileGlobalInfo_ExtensionsForType, 4, &unknown, sizeof(CFArrayRef), kAudioFileUnsupportedFileTypeError},
        {kAudioFileGlobalInfo_AvailableFormatIDs, 4, &unknown, 64, kAudioFileUnsupportedFileTypeError},
        {kAudioFileGlobalInfo_FileTypeName, 4, &type, 4, kAudioFileBadPropertySizeError},
        {kAudioFileGlobalInfo_TypesForExtension, 0, NULL, 64, kAudioFileUnsupportedPropertyError},
        {0x78787878, 0, NULL, 64, kAudioFileUnsupportedPropertyError},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char out[64];
        memset(out, 0xA5, sizeof out);
        size = bad[i].ioSize;
        CHECK_STATUS(AudioFileGetGlobalInfo(bad[i].id, bad[i].specifierSize, bad[i].specifier, &size, out), bad[i].expected);
        int untouched = 1;
        for (size_t b = 0; b < sizeof out; b++) untouched &= out[b] == 0xA5;
        CHECK(untouched, "global info %u refused (case %zu): nothing written", (unsigned)bad[i].id, i);
    }
    CHECK_STATUS(AudioFileGetGlobalInfoSize(kAudioFileGlobalInfo_ReadableTypes, 0, NULL, NULL), kAudio_ParamError);
}

/* Callbacks that call back in: an input procedure that reads its converter's
 * properties, and one that disposes of its converter and says the input ended. */
struct Reentrant {
    const short *samples;
    long offset;
    OSStatus propertyStatus;
    AudioStreamBasicDescription seen;
    int dispose;
};

static OSStatus reentrantFeed(AudioConverterRef converter, UInt32 *ioPackets, AudioBufferList *data,
                              AudioStreamPacketDescription **descriptions, void *user)
{
    (void)descriptions;
    struct Reentrant *r = user;
    UInt32 size = sizeof r->seen;
    r->propertyStatus = AudioConverterGetProperty(converter, kAudioConverterCurrentInputStreamDescription, &size, &r->seen);
    if (r->dispose) {
        AudioConverterDispose(converter);
        *ioPackets = 0;
        return noErr;
    }
    UInt32 n = *ioPackets > 512 ? 512 : *ioPackets;
    if (r->offset + n > 44100) n = (UInt32)(44100 - r->offset);
    data->mBuffers[0].mData = (void *)(r->samples + r->offset * 2);
    data->mBuffers[0].mDataByteSize = n * 4;
    r->offset += n;
    *ioPackets = n;
    return noErr;
}

/* One ExtAudioFile read by four threads at once: the reads take turns, so together they
 * deliver every frame once. */
struct SharedRead {
    ExtAudioFileRef file;
    long frames;
    pthread_mutex_t lock;
};

static void *sharedReader(void *argument)
{
    struct SharedRead *shared = argument;
    short block[2 * 333];
    for (;;) {
        AudioBufferList list = {1, {{2, sizeof block, block}}};
        UInt32 n = 333;
        if (ExtAudioFileRead(shared->file, &n, &list) || n == 0) break;
        pthread_mutex_lock(&shared->lock);
        shared->frames += n;
        pthread_mutex_unlock(&shared->lock);
    }
    return NULL;
}

static void hostile(void)
{
    long size16 = 0;
    short *s16 = slurp("source.s16", &size16);
    AudioStreamBasicDescription from = pcmFormat(44100, 2, 16, 0), to = pcmFormat(48000, 2, 32, 1);
    AudioConverterRef c = NULL;
    CHECK_STATUS(AudioConverterNew(&from, &to, &c), noErr);
    struct Reentrant r;
    memset(&r, 0, sizeof r);
    r.samples = s16;
    r.propertyStatus = -1;
    static float out[2 * 4096];
    UInt32 packets = 4096;
    AudioBufferList list = {1, {{2, sizeof out, out}}};
    alarm(60);
    CHECK_STATUS(AudioConverterFillComplexBuffer(c, reentrantFeed, &r, &packets, &list, NULL), noErr);
    CHECK(r.propertyStatus == noErr && r.seen.mSampleRate == 44100 && packets == 4096,
          "an input procedure reads its own converter's properties (status %d, %u packets)", (int)r.propertyStatus,
          (unsigned)packets);
    r.dispose = 1;
    packets = 4096;
    list.mBuffers[0].mDataByteSize = sizeof out;
    OSStatus status = AudioConverterFillComplexBuffer(c, reentrantFeed, &r, &packets, &list, NULL);
    CHECK(status == noErr, "a converter disposed of inside its own input procedure finishes the fill (%d)", (int)status);
    CHECK_STATUS(AudioConverterDispose(c), kAudio_ParamError);
    alarm(0);

    struct SharedRead shared = {NULL, 0, PTHREAD_MUTEX_INITIALIZER};
    CFURLRef url = urlOf(mediaPath("aac.m4a"));
    CHECK_STATUS(ExtAudioFileOpenURL(url, &shared.file), noErr);
    AudioStreamBasicDescription client = pcmFormat(44100, 2, 16, 0);
    ExtAudioFileSetProperty(shared.file, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client);
    pthread_t threads[4];
    alarm(120);
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, sharedReader, &shared);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    alarm(0);
    CHECK(shared.frames == 44100, "four threads reading one file get its 44100 frames once (%ld)", shared.frames);

    /* fork while a file is open: the child reads it to the end on its own, the parent's
     * position does not move. */
    CHECK_STATUS(ExtAudioFileSeek(shared.file, 0), noErr);
    pid_t child = fork();
    if (child == 0) {
        struct SharedRead mine = {shared.file, 0, PTHREAD_MUTEX_INITIALIZER};
        sharedReader(&mine);
        _exit(mine.frames == 44100 ? 0 : 1);
    }
    int waitStatus = 0;
    waitpid(child, &waitStatus, 0);
    CHECK(WIFEXITED(waitStatus) && WEXITSTATUS(waitStatus) == 0, "the forked child reads the open file to its end");
    SInt64 where = -1;
    CHECK_STATUS(ExtAudioFileTell(shared.file, &where), noErr);
    CHECK(where == 0, "the parent's position is its own (%lld)", (long long)where);
    ExtAudioFileDispose(shared.file);
    CFRelease(url);
    free(s16);
}

/* kAudioFilePropertyInfoDictionary, as a player reads it to show a title: ID3 (MP3) and
 * iTunes metadata (M4A) written by ffmpeg, under Apple's keys. */
static void infoDictionaries(void)
{
    static const char *names[] = {"tagged.mp3", "tagged.m4a"};
    for (int n = 0; n < 2; n++) {
        AudioFileID file = NULL;
        CFURLRef url = urlOf(mediaPath(names[n]));
        CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file), noErr);
        CFRelease(url);
        if (!file) continue;
        UInt32 size = 0, writable = 1;
        CHECK_STATUS(AudioFileGetPropertyInfo(file, kAudioFilePropertyInfoDictionary, &size, &writable), noErr);
        CHECK(size == sizeof(CFDictionaryRef) && writable == 0, "%s: the info dictionary is a CFDictionaryRef", names[n]);
        CFDictionaryRef info = NULL;
        size = sizeof info;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyInfoDictionary, &size, &info), noErr);
        struct { const char *key, *want; } expected[] = {
            {kAFInfoDictionary_Title, "Tone Poem"}, {kAFInfoDictionary_Artist, "Sine Ensemble"},
            {kAFInfoDictionary_Album, "Test Signals"}, {kAFInfoDictionary_Genre, "Electronic"},
            {kAFInfoDictionary_Year, "2014"}, {kAFInfoDictionary_TrackNumber, "3"},
            {kAFInfoDictionary_Comments, "made by ffmpeg"},
        };
        for (size_t i = 0; info && i < sizeof expected / sizeof *expected; i++) {
            CFStringRef key = CFStringCreateWithCString(NULL, expected[i].key, kCFStringEncodingUTF8);
            CFStringRef value = (CFStringRef)CFDictionaryGetValue(info, key);
            char text[128] = "";
            if (value && CFGetTypeID(value) == CFStringGetTypeID()) CFStringGetCString(value, text, sizeof text, kCFStringEncodingUTF8);
            CHECK(strcmp(text, expected[i].want) == 0, "%s: '%s' is '%s' (got '%s')", names[n], expected[i].key, expected[i].want, text);
            CFRelease(key);
        }
        CFStringRef durationKey = CFStringCreateWithCString(NULL, kAFInfoDictionary_ApproximateDurationInSeconds, kCFStringEncodingUTF8);
        CFStringRef duration = info ? (CFStringRef)CFDictionaryGetValue(info, durationKey) : NULL;
        double seconds = duration ? CFStringGetDoubleValue(duration) : 0;
        CHECK(seconds > 0.9 && seconds < 1.2, "%s: about one second long (%.3f)", names[n], seconds);
        CFRelease(durationKey);
        if (info) CFRelease(info);
        size = 2;
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyInfoDictionary, &size, &info), kAudioFileBadPropertySizeError);
        AudioFileClose(file);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: test_audio_files MEDIA_DIR\n"); return 2; }
    media = argv[1];
    installWatchdog("audio files");
    alarm(600);
    exactPCM();
    exact32();
    compressed();
    properties();
    seeking();
    clientConversions();
    writing();
    writingThroughCallbacks();
    systemSounds();
    badFiles();
    converter();
    decodingConverter();
    encodingConverter();
    frameworkEncoder();
    formats();
    formatFactsTable();
    globalInfo();
    infoDictionaries();
    hostile();
    return finish("test_audio_files");
}
