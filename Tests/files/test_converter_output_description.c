/* kAudioConverterCurrentOutputStreamDescription of an encoding converter made with the
 * packet fields left 0 (issue 40, item 4: a media framework's AAC encoder element creates
 * its converter so, then times packets by the description's frames per packet): it reads
 * the completed description, the one kAudioFormatProperty_FormatInfo gives for the same
 * request: 1024 frames a packet for AAC, 64 and 34 bytes a channel for IMA4, 4096 frames for
 * Apple Lossless. The same through an ExtAudioFile's converter. Usage:
 * test_converter_output_description DIR (a folder to write one file in). */
#include <AudioToolbox/AudioToolbox.h>
#include <stdlib.h>
#include <string.h>
#include "../c/check.h"

static AudioStreamBasicDescription pcm16(UInt32 channels)
{
    AudioStreamBasicDescription d = {44100, kAudioFormatLinearPCM, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                     2 * channels, 1, 2 * channels, channels, 16, 0};
    return d;
}

static void describe(const char *what, const AudioStreamBasicDescription *d, char *out, size_t size)
{
    snprintf(out, size, "%s %.0f/flags %u/%u bytes a packet/%u frames a packet/%u bytes a frame/%u ch/%u bits", what,
             d->mSampleRate, (unsigned)d->mFormatFlags, (unsigned)d->mBytesPerPacket, (unsigned)d->mFramesPerPacket,
             (unsigned)d->mBytesPerFrame, (unsigned)d->mChannelsPerFrame, (unsigned)d->mBitsPerChannel);
}

static void currentOutput(const char *name, AudioStreamBasicDescription request, UInt32 framesPerPacket, UInt32 bytesPerPacket)
{
    AudioStreamBasicDescription in = pcm16(request.mChannelsPerFrame), completed = request;
    UInt32 size = sizeof completed;
    CHECK_STATUS(AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, NULL, &size, &completed), noErr);
    AudioConverterRef c = NULL;
    CHECK_STATUS(AudioConverterNew(&in, &request, &c), noErr);
    if (!c) return;
    AudioStreamBasicDescription current = {0};
    size = sizeof current;
    CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterCurrentOutputStreamDescription, &size, &current), noErr);
    char a[256], b[256];
    describe("reads", &current, a, sizeof a);
    describe("FormatInfo completes it as", &completed, b, sizeof b);
    printf("measured: %s: %s; %s\n", name, a, b);
    CHECK(current.mFramesPerPacket == framesPerPacket && current.mBytesPerPacket == bytesPerPacket,
          "%s: CurrentOutputStreamDescription %s (want %u frames, %u bytes a packet)", name, a, (unsigned)framesPerPacket,
          (unsigned)bytesPerPacket);
    CHECK(memcmp(&current, &completed, sizeof current) == 0, "%s: CurrentOutputStreamDescription %s; %s", name, a, b);
    AudioConverterDispose(c);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: test_converter_output_description DIR\n"); return 2; }
    installWatchdog("test_converter_output_description");
    alarm(60);
    AudioStreamBasicDescription aac = {44100, kAudioFormatMPEG4AAC, 0, 0, 0, 0, 2, 0, 0};
    AudioStreamBasicDescription ima4 = {44100, kAudioFormatAppleIMA4, 0, 0, 0, 0, 2, 0, 0};
    AudioStreamBasicDescription alac = {44100, kAudioFormatAppleLossless, kAppleLosslessFormatFlag_16BitSourceData, 0, 0, 0, 2, 0, 0};
    currentOutput("PCM to AAC", aac, 1024, 0);
    currentOutput("PCM to IMA4", ima4, 64, 68);
    currentOutput("PCM to Apple Lossless", alac, 4096, 0);

    /* ExtAudioFile's converter for an AAC file made from the same request. */
    char path[1024];
    snprintf(path, sizeof path, "%s/output-description.m4a", argv[1]);
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    ExtAudioFileRef file = NULL;
    CHECK_STATUS(ExtAudioFileCreateWithURL(url, kAudioFileM4AType, &aac, NULL, kAudioFileFlags_EraseFile, &file), noErr);
    CFRelease(url);
    if (file) {
        AudioStreamBasicDescription client = pcm16(2);
        CHECK_STATUS(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client), noErr);
        AudioConverterRef c = NULL;
        UInt32 size = sizeof c;
        CHECK_STATUS(ExtAudioFileGetProperty(file, kExtAudioFileProperty_AudioConverter, &size, &c), noErr);
        AudioStreamBasicDescription current = {0};
        size = sizeof current;
        if (c) CHECK_STATUS(AudioConverterGetProperty(c, kAudioConverterCurrentOutputStreamDescription, &size, &current), noErr);
        CHECK(current.mFramesPerPacket == 1024, "ExtAudioFile's converter: %u frames a packet", (unsigned)current.mFramesPerPacket);
        CHECK_STATUS(ExtAudioFileDispose(file), noErr);
        unlink(path);
    }
    return finish("test_converter_output_description");
}
