/*
 * Drives the afconvert-like converter (afconvert_like.c): 4 s of a 440 Hz stereo tone made
 * by ffmpeg as a WAV, converted to AAC in M4A at 32 kbit/s and at 192 kbit/s through the
 * file's own converter. Checked: each call succeeds, the rate set reads back, the two
 * files differ in size as their rates do, ffprobe (another tool) reads each as AAC at
 * about its rate, and each decodes back to the tone. The codec lists that choose an
 * encoder for AudioConverterNewSpecific (Encoders, AvailableEncodeBitRates) answer too.
 * No device is involved: both modes run the same.
 */
#include "patterns.h"
#include "afconvert_like.h"
#include <math.h>
#include <sys/stat.h>

static long fileSize(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (long)info.st_size : -1;
}

static long probedBitRate(const char *path)
{
    char command[600];
    snprintf(command, sizeof command, "ffprobe -v error -select_streams a:0 -show_entries stream=codec_name,bit_rate -of csv=p=0 %s",
             path);
    FILE *p = popen(command, "r");
    char codec[32] = "";
    long rate = -1;
    if (p) {
        if (fscanf(p, "%31[^,],%ld", codec, &rate) != 2) rate = -1;
        pclose(p);
    }
    return strcmp(codec, "aac") == 0 ? rate : -1;
}

static double decodedPitch(const char *path, long *peak)
{
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    ExtAudioFileRef file = NULL;
    OSStatus status = ExtAudioFileOpenURL(url, &file);
    CFRelease(url);
    *peak = 0;
    if (status) return 0;
    AudioStreamBasicDescription mono = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                        2, 1, 2, 1, 16, 0};
    ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof mono, &mono);
    static short pcm[44100];
    UInt32 frames = 44100;
    AudioBufferList list = {1, {{1, sizeof pcm, pcm}}};
    status = ExtAudioFileRead(file, &frames, &list);
    ExtAudioFileDispose(file);
    return status == noErr && frames > 20000 ? pitchOf(pcm + 4096, frames - 4096, 1, 44100, peak) : 0;
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "afconvert-like");
    char folder[] = "/tmp/afconvert.XXXXXX";
    CHECK(mkdtemp(folder) != NULL, "a scratch folder");
    char source[256], low[256], high[256], command[600];
    snprintf(source, sizeof source, "%s/tone.wav", folder);
    snprintf(low, sizeof low, "%s/low.m4a", folder);
    snprintf(high, sizeof high, "%s/high.m4a", folder);
    snprintf(command, sizeof command,
             "ffmpeg -nostdin -loglevel error -y -f lavfi -i 'aevalsrc=0.5*sin(440*2*PI*t)|0.5*sin(440*2*PI*t):s=44100:d=4' "
             "-c:a pcm_s16le %s", source);
    CHECK(system(command) == 0, "ffmpeg makes the source");

    /* What a program asks before AudioConverterNewSpecific. */
    UInt32 aac = kAudioFormatMPEG4AAC, size = 0;
    CHECK_STATUS(AudioFormatGetPropertyInfo(kAudioFormatProperty_Encoders, sizeof aac, &aac, &size), noErr);
    AudioClassDescription encoders[8];
    UInt32 count = size / (UInt32)sizeof(AudioClassDescription);
    CHECK(count >= 1 && count <= 8, "an AAC encoder is listed (%u)", (unsigned)count);
    size = sizeof encoders;
    CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_Encoders, sizeof aac, &aac, &size, encoders), noErr);
    CHECK(encoders[0].mType == kAudioEncoderComponentType && encoders[0].mSubType == kAudioFormatMPEG4AAC,
          "the encoder is an 'aenc' for 'aac '");
    AudioStreamBasicDescription pcm = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                       4, 1, 4, 2, 16, 0};
    AudioStreamBasicDescription out = {44100, kAudioFormatMPEG4AAC, 0, 0, 1024, 0, 2, 0, 0};
    AudioConverterRef specific = NULL;
    CHECK_STATUS(AudioConverterNewSpecific(&pcm, &out, 1, encoders, &specific), noErr);
    /* The bit rate on a plain converter: a value out of range refused and nothing
       changed; a good one read back; a PCM converter has no encoder to set. */
    if (specific) {
        UInt32 before = 0, after = 0, rate = 5;
        size = sizeof before;
        CHECK_STATUS(AudioConverterGetProperty(specific, kAudioConverterEncodeBitRate, &size, &before), noErr);
        CHECK_STATUS(AudioConverterSetProperty(specific, kAudioConverterEncodeBitRate, sizeof rate, &rate), kAudio_ParamError);
        CHECK_STATUS(AudioConverterGetProperty(specific, kAudioConverterEncodeBitRate, &size, &after), noErr);
        CHECK(after == before && before > 0, "a refused bit rate leaves %u", (unsigned)before);
        rate = 96000;
        CHECK_STATUS(AudioConverterSetProperty(specific, kAudioConverterEncodeBitRate, sizeof rate, &rate), noErr);
        CHECK_STATUS(AudioConverterGetProperty(specific, kAudioConverterEncodeBitRate, &size, &after), noErr);
        CHECK(after == 96000, "96000 reads back (%u)", (unsigned)after);
        AudioConverterDispose(specific);
    }
    AudioStreamBasicDescription pcm48 = pcm;
    pcm48.mSampleRate = 48000;
    AudioConverterRef plain = NULL;
    CHECK_STATUS(AudioConverterNew(&pcm, &pcm48, &plain), noErr);
    UInt32 anyRate = 64000;
    CHECK_STATUS(AudioConverterSetProperty(plain, kAudioConverterEncodeBitRate, sizeof anyRate, &anyRate),
                 kAudioConverterErr_PropertyNotSupported);
    AudioConverterDispose(plain);
    CHECK_STATUS(AudioFormatGetPropertyInfo(kAudioFormatProperty_AvailableEncodeBitRates, sizeof aac, &aac, &size), noErr);
    CHECK(size >= 4 * sizeof(AudioValueRange), "AAC offers bit rates (%u)", (unsigned)(size / sizeof(AudioValueRange)));
    UInt32 mp3 = kAudioFormatMPEGLayer3;
    CHECK_STATUS(AudioFormatGetPropertyInfo(kAudioFormatProperty_Encoders, sizeof mp3, &mp3, &size),
                 kAudioFormatUnsupportedDataFormatError);
    CHECK_STATUS(AudioFormatGetPropertyInfo(kAudioFormatProperty_Decoders, sizeof mp3, &mp3, &size), noErr);

    CHECK_STATUS(afconvert_to_aac(source, low, 32000), noErr);
    CHECK(afconvert_bit_rate_read_back() == 32000, "32000 reads back (%u)", (unsigned)afconvert_bit_rate_read_back());
    CHECK(afconvert_offered_bit_rates() >= 4, "the converter offers bit rates (%u)", (unsigned)afconvert_offered_bit_rates());
    CHECK_STATUS(afconvert_to_aac(source, high, 192000), noErr);
    CHECK(afconvert_bit_rate_read_back() == 192000, "192000 reads back (%u)", (unsigned)afconvert_bit_rate_read_back());
    long lowSize = fileSize(low), highSize = fileSize(high);
    long lowRate = probedBitRate(low), highRate = probedBitRate(high);
    printf("measured: 32 kbit/s -> %ld bytes (ffprobe %ld b/s), 192 kbit/s -> %ld bytes (ffprobe %ld b/s)\n", lowSize, lowRate,
           highSize, highRate);
    CHECK(lowSize > 0 && highSize > 3 * lowSize, "the 192 kbit/s file is over 3 times the 32 kbit/s one (%ld, %ld)", highSize,
          lowSize);
    CHECK(lowRate > 20000 && lowRate < 45000, "ffprobe reads AAC at about 32 kbit/s (%ld)", lowRate);
    CHECK(highRate > 150000 && highRate < 230000, "ffprobe reads AAC at about 192 kbit/s (%ld)", highRate);
    long peak = 0;
    double hz = decodedPitch(low, &peak);
    CHECK(fabs(hz - 440) < 3 && peak > 8000, "the 32 kbit/s file decodes to the tone (%.1f Hz, peak %ld)", hz, peak);
    hz = decodedPitch(high, &peak);
    CHECK(fabs(hz - 440) < 3 && peak > 8000, "the 192 kbit/s file decodes to the tone (%.1f Hz, peak %ld)", hz, peak);
    snprintf(command, sizeof command, "rm -rf %s", folder);
    CHECK(system(command) == 0, "scratch folder removed");
    return finish("afconvert-like");
}
