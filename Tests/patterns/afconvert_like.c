/* The client side: see afconvert_like.h. */
#include "afconvert_like.h"
#include <string.h>

static UInt32 readBack, offered;

static CFURLRef urlOf(const char *path)
{
    return CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
}

OSStatus afconvert_to_aac(const char *source, const char *destination, UInt32 bitRate)
{
    ExtAudioFileRef sourceFile = NULL, destinationFile = NULL;
    CFURLRef sourceURL = urlOf(source), destinationURL = urlOf(destination);
    OSStatus status = ExtAudioFileOpenURL(sourceURL, &sourceFile);
    CFRelease(sourceURL);
    if (status) { CFRelease(destinationURL); return status; }

    AudioStreamBasicDescription sourceFormat;
    UInt32 size = sizeof sourceFormat;
    ExtAudioFileGetProperty(sourceFile, kExtAudioFileProperty_FileDataFormat, &size, &sourceFormat);

    AudioStreamBasicDescription destinationFormat;
    memset(&destinationFormat, 0, sizeof destinationFormat);
    destinationFormat.mFormatID = kAudioFormatMPEG4AAC;
    destinationFormat.mSampleRate = sourceFormat.mSampleRate;
    destinationFormat.mChannelsPerFrame = sourceFormat.mChannelsPerFrame;
    size = sizeof destinationFormat;
    AudioFormatGetProperty(kAudioFormatProperty_FormatInfo, 0, NULL, &size, &destinationFormat);

    status = ExtAudioFileCreateWithURL(destinationURL, kAudioFileM4AType, &destinationFormat, NULL, kAudioFileFlags_EraseFile,
                                       &destinationFile);
    CFRelease(destinationURL);
    if (status) { ExtAudioFileDispose(sourceFile); return status; }

    /* The client format: 16-bit interleaved at the source's rate and channels. */
    AudioStreamBasicDescription client;
    memset(&client, 0, sizeof client);
    client.mSampleRate = sourceFormat.mSampleRate;
    client.mFormatID = kAudioFormatLinearPCM;
    client.mFormatFlags = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked;
    client.mChannelsPerFrame = sourceFormat.mChannelsPerFrame;
    client.mBitsPerChannel = 16;
    client.mBytesPerFrame = client.mBytesPerPacket = 2 * client.mChannelsPerFrame;
    client.mFramesPerPacket = 1;
    ExtAudioFileSetProperty(sourceFile, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client);
    ExtAudioFileSetProperty(destinationFile, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client);

    if (bitRate) {
        AudioConverterRef converter = NULL;
        size = sizeof converter;
        status = ExtAudioFileGetProperty(destinationFile, kExtAudioFileProperty_AudioConverter, &size, &converter);
        if (status == noErr) {
            Boolean writable = false;
            status = AudioConverterGetPropertyInfo(converter, kAudioConverterApplicableEncodeBitRates, &size, &writable);
            offered = status == noErr ? size / (UInt32)sizeof(AudioValueRange) : 0;
        }
        if (status == noErr)
            status = AudioConverterSetProperty(converter, kAudioConverterEncodeBitRate, sizeof bitRate, &bitRate);
        if (status == noErr) {
            size = sizeof readBack;
            AudioConverterGetProperty(converter, kAudioConverterEncodeBitRate, &size, &readBack);
            CFArrayRef config = NULL;
            status = ExtAudioFileSetProperty(destinationFile, kExtAudioFileProperty_ConverterConfig, sizeof config, &config);
        }
        if (status) {
            ExtAudioFileDispose(sourceFile);
            ExtAudioFileDispose(destinationFile);
            return status;
        }
    }

    static char buffer[32768];
    while (status == noErr) {
        AudioBufferList list;
        list.mNumberBuffers = 1;
        list.mBuffers[0].mNumberChannels = client.mChannelsPerFrame;
        list.mBuffers[0].mDataByteSize = sizeof buffer;
        list.mBuffers[0].mData = buffer;
        UInt32 frames = sizeof buffer / client.mBytesPerFrame;
        status = ExtAudioFileRead(sourceFile, &frames, &list);
        if (status || frames == 0) break;
        status = ExtAudioFileWrite(destinationFile, frames, &list);
    }
    ExtAudioFileDispose(sourceFile);
    OSStatus closed = ExtAudioFileDispose(destinationFile);
    return status ? status : closed;
}

UInt32 afconvert_bit_rate_read_back(void) { return readBack; }
UInt32 afconvert_offered_bit_rates(void) { return offered; }
