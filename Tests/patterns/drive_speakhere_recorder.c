/*
 * Drives the SpeakHere-shaped recorder (speakhere_recorder.c): on the virtual ALSA card
 * the card's microphone plays a 440 Hz tone; the recorder records 2 s of AAC into a CAF.
 * Checked: the cookie copies (before the first packet and after the stop) both succeed;
 * each buffer's start time is where the packets before it end (contiguous); the file
 * holds every packet written, and reads back (AudioFile, ExtAudioFile decoding it, and
 * ffprobe, another tool) as the card's tone. On the in-process virtual device the
 * microphone is silent: the same checks but the pitch.
 */
#include "patterns.h"
#include "speakhere_recorder.h"
#include <math.h>
#include <unistd.h>

static double recordedPitch(const char *path, long *frames, long *peak)
{
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    ExtAudioFileRef file = NULL;
    OSStatus opened = ExtAudioFileOpenURL(url, &file);
    CFRelease(url);
    CHECK_STATUS(opened, noErr);
    *frames = 0;
    *peak = 0;
    if (opened != noErr) return 0;
    AudioStreamBasicDescription mono = {44100, kAudioFormatLinearPCM,
                                        kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked, 2, 1, 2, 1, 16, 0};
    AudioStreamBasicDescription fileFormat;
    UInt32 size = sizeof fileFormat;
    CHECK_STATUS(ExtAudioFileGetProperty(file, kExtAudioFileProperty_FileDataFormat, &size, &fileFormat), noErr);
    mono.mSampleRate = fileFormat.mSampleRate;
    CHECK_STATUS(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof mono, &mono), noErr);
    static short pcm[44100 * 8];
    long total = 0;
    while (total < (long)(sizeof pcm / sizeof *pcm)) {
        UInt32 n = (UInt32)(sizeof pcm / sizeof *pcm - total);
        if (n > 4096) n = 4096;
        AudioBufferList list = {1, {{1, n * 2, pcm + total}}};
        if (ExtAudioFileRead(file, &n, &list) != noErr || n == 0) break;
        total += n;
    }
    ExtAudioFileDispose(file);
    *frames = total;
    /* Past the first 0.2 s (the recording's start: the microphone's first period). */
    long skip = (long)(0.2 * mono.mSampleRate);
    return total > skip + 4410 ? pitchOf(pcm + skip, total - skip, 1, mono.mSampleRate, peak) : 0;
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "SpeakHere recorder");
    char folder[] = "/tmp/speakhere.XXXXXX";
    CHECK(mkdtemp(folder) != NULL, "a scratch folder");
    char path[256], command[512];
    snprintf(path, sizeof path, "%s/recording.caf", folder);
    if (onALSA) vcard("capture-signal tone 440 0.5");

    CHECK(speakhere_record_start(path), "the recorder starts (AAC input queue, CAF file)");
    CHECK_STATUS(speakhere_cookie_status_at_start(), noErr);
    harnessAttach();
    while (speakhere_packets() < 2 * 44100 / 1024) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, true);
    speakhere_record_stop();
    CHECK_STATUS(speakhere_cookie_status_at_stop(), noErr);

    int count = speakhere_buffer_count();
    int contiguous = 1;
    double expected = 0;
    for (int i = 0; i < count; i++) {
        if (speakhere_buffer_start(i) != expected) {
            contiguous = 0;
            printf("buffer %d starts at %.0f, the packets before it end at %.0f\n", i, speakhere_buffer_start(i), expected);
        }
        expected += speakhere_buffer_packets(i) * 1024.0;
    }
    CHECK(count >= 3 && contiguous, "%d buffers, each starting where the packets before it end", count);

    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    AudioFileID file = NULL;
    CHECK_STATUS(AudioFileOpenURL(url, kAudioFileReadPermission, 0, &file), noErr);
    CFRelease(url);
    UInt64 packets = 0;
    UInt32 size = sizeof packets;
    if (file) {
        CHECK_STATUS(AudioFileGetProperty(file, kAudioFilePropertyAudioDataPacketCount, &size, &packets), noErr);
        UInt32 cookieSize = 0;
        CHECK_STATUS(AudioFileGetPropertyInfo(file, kAudioFilePropertyMagicCookieData, &cookieSize, NULL), noErr);
        CHECK(cookieSize > 0, "the file has the encoder's cookie (%u bytes)", (unsigned)cookieSize);
        AudioFileClose(file);
    }
    CHECK((long)packets == speakhere_packets(), "the file holds every packet written (%llu of %ld)",
          (unsigned long long)packets, speakhere_packets());
    long frames = 0, peak = 0;
    double hz = recordedPitch(path, &frames, &peak);
    printf("measured: %ld packets, %ld frames decoded, %.1f Hz, peak %ld\n", speakhere_packets(), frames, hz, peak);
    CHECK(frames >= (long)(packets - 2) * 1024, "ExtAudioFile decodes the recording (%ld frames)", frames);
    if (onALSA) CHECK(fabs(hz - 440) < 5 && peak > 3000, "the recording is the card's 440 Hz tone (%.1f Hz, peak %ld)", hz, peak);
    snprintf(command, sizeof command, "ffprobe -v error -show_entries stream=codec_name -of csv=p=0 %s | grep -qx aac", path);
    CHECK(system(command) == 0, "ffprobe reads the CAF as AAC");
    snprintf(command, sizeof command, "rm -rf %s", folder);
    CHECK(system(command) == 0, "scratch folder removed");
    return finish("SpeakHere recorder");
}
