/* Stereo AAC written through ExtAudioFile (issue 40, item 4) against FFmpeg's own `aac`
 * encoder given the same samples at the same bit rate: a music-like stereo signal (two
 * tones and coloured noise in each channel, different in left and right), written as an
 * M4A at the default bit rate and at ones set through kExtAudioFileProperty_AudioConverter,
 * from interleaved float, interleaved 16-bit and non-interleaved float clients. Each
 * channel, decoded by ffmpeg and compared with the source after the priming the file's
 * edit list states, must be within 1 dB of what ffmpeg's encode of the same samples reads
 * back at (and at 10 dB or better: a swap or an interleaving mistake reads below 0). Our
 * decoder must read our file as ffmpeg's does. Usage: test_aac_stereo_quality DIR */
#include <AudioToolbox/AudioToolbox.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../c/check.h"

enum { kFrames = 88200, kEdge = 4096 };
static const char *dir;
static float source[kFrames * 2];

static const char *pathIn(const char *name)
{
    static char buffer[4][1024];
    static int next;
    char *b = buffer[next++ % 4];
    snprintf(b, sizeof buffer[0], "%s/%s", dir, name);
    return b;
}

static unsigned nextRandom(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* Two tones and low-passed noise in each channel, never the same in both; or (`tones`)
 * make-media.sh's source: 440 Hz left, 660 Hz right, at half scale. */
static void makeSource(int pureTones)
{
    if (pureTones) {
        for (long i = 0; i < kFrames; i++) {
            source[i * 2] = (float)(0.5 * sin(2 * M_PI * 440 * i / 44100.0));
            source[i * 2 + 1] = (float)(0.5 * sin(2 * M_PI * 660 * i / 44100.0));
        }
        return;
    }
    unsigned seed[2] = {11, 29};
    double state[2] = {0, 0};
    const double tones[2][2] = {{440, 1320}, {660, 2500}}, levels[2][2] = {{0.25, 0.12}, {0.25, 0.10}};
    for (long i = 0; i < kFrames; i++) {
        for (int c = 0; c < 2; c++) {
            double white = (double)(nextRandom(&seed[c]) & 0xFFFF) / 32768.0 - 1.0;
            state[c] += 0.05 * (white - state[c]);
            double t = (double)i / 44100.0;
            source[i * 2 + c] = (float)(levels[c][0] * sin(2 * M_PI * tones[c][0] * t) + levels[c][1] * sin(2 * M_PI * tones[c][1] * t)
                                        + 0.5 * state[c]);
        }
    }
}

static int writeRaw(const char *name, const void *data, size_t bytes)
{
    FILE *f = fopen(pathIn(name), "wb");
    if (!f) return 0;
    int ok = fwrite(data, 1, bytes, f) == bytes;
    fclose(f);
    return ok;
}

/* `file` decoded by ffmpeg to interleaved float; the frames decoded, -1 on failure. */
static long ffmpegDecode(const char *file, float **out)
{
    char command[3072];
    snprintf(command, sizeof command, "ffmpeg -nostdin -v error -y -i '%s' -f f32le -ac 2 -ar 44100 '%s'", file, pathIn("aacq-decoded.f32"));
    if (system(command) != 0) return -1;
    long size = 0;
    *out = readWholeFile(pathIn("aacq-decoded.f32"), &size);
    return *out ? size / 8 : -1;
}

/* SNR of one channel of `got` against the source, past the edges. */
static double channelSNR(const float *got, int channel, const float *want)
{
    double signal = 0, noise = 0;
    for (long i = kEdge; i < kFrames - kEdge; i++) {
        double w = want[i * 2 + channel], e = got[i * 2 + channel] - w;
        signal += w * w;
        noise += e * e;
    }
    return noise > 0 ? 10 * log10(signal / noise) : 200;
}

enum Client { kFloat, kInt16, kFloatPlanar };
static const char *clientNames[] = {"interleaved float", "interleaved 16-bit", "non-interleaved float"};

static AudioStreamBasicDescription clientFormat(enum Client client)
{
    AudioStreamBasicDescription d = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsPacked, 0, 1, 0, 2, 32, 0};
    if (client == kInt16) {
        d.mFormatFlags |= kAudioFormatFlagIsSignedInteger;
        d.mBitsPerChannel = 16;
        d.mBytesPerFrame = d.mBytesPerPacket = 4;
    } else {
        d.mFormatFlags |= kAudioFormatFlagIsFloat | (client == kFloatPlanar ? kAudioFormatFlagIsNonInterleaved : 0);
        d.mBytesPerFrame = d.mBytesPerPacket = client == kFloatPlanar ? 4 : 8;
    }
    return d;
}

/* Writes the source as AAC through ExtAudioFile; the bit rate the encoder used (0 on failure). */
static UInt32 writeOurs(const char *path, enum Client client, UInt32 bitRate, const short *s16, const float *planes)
{
    unlink(path);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    AudioStreamBasicDescription aac = {44100, kAudioFormatMPEG4AAC, 0, 0, 0, 0, 2, 0, 0};
    ExtAudioFileRef file = NULL;
    CHECK_STATUS(ExtAudioFileCreateWithURL(url, kAudioFileM4AType, &aac, NULL, kAudioFileFlags_EraseFile, &file), noErr);
    CFRelease(url);
    if (!file) return 0;
    AudioStreamBasicDescription c = clientFormat(client);
    CHECK_STATUS(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof c, &c), noErr);
    AudioConverterRef converter = NULL;
    UInt32 size = sizeof converter, used = 0;
    CHECK_STATUS(ExtAudioFileGetProperty(file, kExtAudioFileProperty_AudioConverter, &size, &converter), noErr);
    if (bitRate && converter) {
        CHECK_STATUS(AudioConverterSetProperty(converter, kAudioConverterEncodeBitRate, sizeof bitRate, &bitRate), noErr);
        CFArrayRef config = NULL;
        CHECK_STATUS(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ConverterConfig, sizeof config, &config), noErr);
    }
    size = sizeof used;
    if (converter) CHECK_STATUS(AudioConverterGetProperty(converter, kAudioConverterEncodeBitRate, &size, &used), noErr);
    for (long done = 0; done < kFrames;) {
        UInt32 n = (UInt32)(done + 700 > kFrames ? kFrames - done : 700);
        struct { UInt32 count; AudioBuffer buffers[2]; } list;
        if (client == kFloatPlanar) {
            list.count = 2;
            list.buffers[0] = (AudioBuffer){1, n * 4, (void *)(planes + done)};
            list.buffers[1] = (AudioBuffer){1, n * 4, (void *)(planes + kFrames + done)};
        } else {
            list.count = 1;
            list.buffers[0] = (AudioBuffer){2, n * c.mBytesPerFrame,
                                            client == kInt16 ? (void *)(s16 + done * 2) : (void *)(source + done * 2)};
        }
        OSStatus status = ExtAudioFileWrite(file, n, (AudioBufferList *)&list);
        if (status) { CHECK_STATUS(status, noErr); break; }
        done += n;
    }
    CHECK_STATUS(ExtAudioFileDispose(file), noErr);
    return used;
}

/* Our file read back by our decoder, against ffmpeg's decode of it. */
static double ourDecoderAgainstFFmpeg(const char *path, const float *ffmpegDecoded, long ffmpegFrames)
{
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    ExtAudioFileRef file = NULL;
    OSStatus status = ExtAudioFileOpenURL(url, &file);
    CFRelease(url);
    if (status) return 0;
    AudioStreamBasicDescription f = clientFormat(kFloat);
    ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof f, &f);
    float *ours = calloc(kFrames * 2 + 8192, sizeof *ours);
    long frames = 0;
    for (;;) {
        UInt32 n = 4096;
        AudioBufferList list = {1, {{2, n * 8, ours + frames * 2}}};
        if (ExtAudioFileRead(file, &n, &list) || n == 0) break;
        frames += n;
        if (frames + 4096 > kFrames + 4096) break;
    }
    ExtAudioFileDispose(file);
    double quality = 0;
    if (frames >= kFrames && ffmpegFrames >= kFrames) quality = snr(ours + kEdge * 2, ffmpegDecoded + kEdge * 2, (kFrames - 2 * kEdge) * 2);
    free(ours);
    return quality;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: test_aac_stereo_quality DIR\n"); return 2; }
    dir = argv[1];
    installWatchdog("test_aac_stereo_quality");
    alarm(300);
    for (int tones = 0; tones < 2; tones++) {
        makeSource(tones);
        static short s16[kFrames * 2];
        static float planes[kFrames * 2], fromS16[kFrames * 2];
        for (long i = 0; i < kFrames * 2; i++) {
            long v = lrintf(source[i] * 32768.0f);
            s16[i] = (short)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
            fromS16[i] = s16[i] / 32768.0f;
        }
        for (long i = 0; i < kFrames; i++) { planes[i] = source[i * 2]; planes[kFrames + i] = source[i * 2 + 1]; }
        CHECK(writeRaw("aacq-source.f32", source, sizeof source) && writeRaw("aacq-source.s16", s16, sizeof s16), "the source is written");

        const UInt32 rates[] = {0, 96000, 192000};
        const char *signal = tones ? "440/660 Hz tones" : "music-like";
        for (unsigned r = 0; r < (tones ? 1u : 3u); r++) {
            for (enum Client client = kFloat; client <= kFloatPlanar; client++) {
                const float *want = client == kInt16 ? fromS16 : source;
                char ours[1024];
                snprintf(ours, sizeof ours, "%s", pathIn("aacq-ours.m4a"));
                UInt32 used = writeOurs(ours, client, rates[r], s16, planes);
                CHECK(rates[r] ? used == rates[r] : used == 128000, "%s at %u: the encoder runs at %u bit/s (stereo's default: 128000)",
                      clientNames[client], (unsigned)rates[r], (unsigned)used);
                /* The priming the file states (FFmpeg's encoder delay) and every frame written. */
                CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)ours, (CFIndex)strlen(ours), false);
                AudioFileID af = NULL;
                AudioFilePacketTableInfo table = {0, 0, 0};
                UInt32 size = sizeof table;
                if (AudioFileOpenURL(url, kAudioFileReadPermission, 0, &af) == noErr) {
                    AudioFileGetProperty(af, kAudioFilePropertyPacketTableInfo, &size, &table);
                    AudioFileClose(af);
                }
                CFRelease(url);
                CHECK(table.mNumberValidFrames == kFrames && table.mPrimingFrames == 1024,
                      "%s at %u: packet table %lld valid, %d priming", clientNames[client], (unsigned)used,
                      (long long)table.mNumberValidFrames, (int)table.mPrimingFrames);
                /* FFmpeg's encoder on the same samples (16-bit ones for the 16-bit client). */
                char command[3072];
                snprintf(command, sizeof command,
                         "ffmpeg -nostdin -v error -y -f %s -ar 44100 -ac 2 -i '%s' -c:a aac -b:a %u '%s'",
                         client == kInt16 ? "s16le" : "f32le", pathIn(client == kInt16 ? "aacq-source.s16" : "aacq-source.f32"), (unsigned)used,
                         pathIn("aacq-ffmpeg.m4a"));
                CHECK(system(command) == 0, "ffmpeg encodes the source");
                float *a = NULL, *b = NULL;
                long framesA = ffmpegDecode(ours, &a);
                double oursL = framesA >= kFrames ? channelSNR(a, 0, want) : 0, oursR = framesA >= kFrames ? channelSNR(a, 1, want) : 0;
                long framesB = ffmpegDecode(pathIn("aacq-ffmpeg.m4a"), &b);
                double theirsL = framesB >= kFrames ? channelSNR(b, 0, want) : 0, theirsR = framesB >= kFrames ? channelSNR(b, 1, want) : 0;
                printf("measured: %s, %s at %u bit/s: ours L %.2f R %.2f dB, ffmpeg's aac L %.2f R %.2f dB\n", signal,
                       clientNames[client], (unsigned)used, oursL, oursR, theirsL, theirsR);
                CHECK(fabs(oursL - theirsL) <= 1 && fabs(oursR - theirsR) <= 1,
                      "%s at %u: ours L %.2f R %.2f dB within 1 dB of ffmpeg's L %.2f R %.2f dB", clientNames[client], (unsigned)used,
                      oursL, oursR, theirsL, theirsR);
                CHECK(oursL >= 10 && oursR >= 10, "%s at %u: each channel is its own (L %.2f, R %.2f dB)", clientNames[client],
                      (unsigned)used, oursL, oursR);
                double decoders = ourDecoderAgainstFFmpeg(ours, a, framesA);
                CHECK(decoders >= 90, "%s at %u: our decoder reads our file as ffmpeg's does (%.1f dB)", clientNames[client],
                      (unsigned)used, decoders);
                free(a);
                free(b);
            }
        }
    }
    return finish("test_aac_stereo_quality");
}
