/* <CoreAudio/CoreAudioTypes.h> against the iPhone SDK (iOS 7): sizes and offsets of the
 * structures (LP64), and the values of the format identifiers and flags, written here
 * as numbers taken from the SDK's header (not from ours). Reached through
 * <AudioToolbox/AudioToolbox.h> as on the phone. Compiled as C and as C++ (where the
 * SDK's inline helpers exist) by run-tests.sh, with each module; EXPECT_IPHONE says
 * which (the canonical formats differ). Prints "core-audio-types ok". */
#include <AudioToolbox/AudioToolbox.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
#define STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

STATIC_ASSERT(sizeof(AudioStreamBasicDescription) == 40, "ASBD size");
STATIC_ASSERT(offsetof(AudioStreamBasicDescription, mFormatID) == 8, "ASBD mFormatID");
STATIC_ASSERT(offsetof(AudioStreamBasicDescription, mBitsPerChannel) == 32, "ASBD mBitsPerChannel");
STATIC_ASSERT(offsetof(AudioStreamBasicDescription, mReserved) == 36, "ASBD mReserved");
STATIC_ASSERT(sizeof(AudioStreamPacketDescription) == 16, "packet description");
STATIC_ASSERT(offsetof(AudioStreamPacketDescription, mDataByteSize) == 12, "packet description size field");
STATIC_ASSERT(sizeof(SMPTETime) == 24, "SMPTETime");
STATIC_ASSERT(sizeof(AudioTimeStamp) == 64, "AudioTimeStamp");
STATIC_ASSERT(offsetof(AudioTimeStamp, mHostTime) == 8, "mHostTime");
STATIC_ASSERT(offsetof(AudioTimeStamp, mSMPTETime) == 32, "mSMPTETime");
STATIC_ASSERT(offsetof(AudioTimeStamp, mFlags) == 56, "mFlags");
STATIC_ASSERT(sizeof(AudioBuffer) == 16, "AudioBuffer (LP64)");
STATIC_ASSERT(offsetof(AudioBuffer, mData) == 8, "AudioBuffer mData");
STATIC_ASSERT(sizeof(AudioBufferList) == 24, "AudioBufferList with one buffer (LP64)");
STATIC_ASSERT(offsetof(AudioBufferList, mBuffers) == 8, "mBuffers");
STATIC_ASSERT(sizeof(AudioValueRange) == 16, "AudioValueRange");
STATIC_ASSERT(sizeof(AudioClassDescription) == 12, "AudioClassDescription");
STATIC_ASSERT(sizeof(AudioChannelDescription) == 20, "AudioChannelDescription");
STATIC_ASSERT(sizeof(AudioChannelLayout) == 32, "AudioChannelLayout with one description");

STATIC_ASSERT(kAudioFormatLinearPCM == 0x6C70636D, "lpcm");
STATIC_ASSERT(kAudioFormatAppleIMA4 == 0x696D6134, "ima4");
STATIC_ASSERT(kAudioFormatMPEG4AAC == 0x61616320, "aac ");
STATIC_ASSERT(kAudioFormatULaw == 0x756C6177, "ulaw");
STATIC_ASSERT(kAudioFormatALaw == 0x616C6177, "alaw");
STATIC_ASSERT(kAudioFormatMPEGLayer3 == 0x2E6D7033, ".mp3");
STATIC_ASSERT(kAudioFormatAppleLossless == 0x616C6163, "alac");
STATIC_ASSERT(kAudioFormatMPEG4AAC_HE == 0x61616368, "aach");
STATIC_ASSERT(kAudioFormatAMR == 0x73616D72, "samr");
STATIC_ASSERT(kAudioFormatiLBC == 0x696C6263, "ilbc");
STATIC_ASSERT(kAudioFormatDVIIntelIMA == 0x6D730011, "DVI IMA");
STATIC_ASSERT(kAudioFormatMicrosoftGSM == 0x6D730031, "GSM");

STATIC_ASSERT(kAudioFormatFlagIsFloat == 0x1 && kAudioFormatFlagIsBigEndian == 0x2, "float, big endian");
STATIC_ASSERT(kAudioFormatFlagIsSignedInteger == 0x4 && kAudioFormatFlagIsPacked == 0x8, "signed, packed");
STATIC_ASSERT(kAudioFormatFlagIsAlignedHigh == 0x10 && kAudioFormatFlagIsNonInterleaved == 0x20, "aligned, non-interleaved");
STATIC_ASSERT(kAudioFormatFlagIsNonMixable == 0x40, "non-mixable");
STATIC_ASSERT((UInt32)kAudioFormatFlagsAreAllClear == 0x80000000u, "all clear");
STATIC_ASSERT(kLinearPCMFormatFlagsSampleFractionShift == 7 && kLinearPCMFormatFlagsSampleFractionMask == 0x1F80,
              "fraction bits field");
STATIC_ASSERT(kAppleLosslessFormatFlag_24BitSourceData == 3, "alac 24-bit source");
STATIC_ASSERT(kAudioFormatFlagsNativeEndian == 0, "little endian");
STATIC_ASSERT(kAudioFormatFlagsNativeFloatPacked == 0x9, "native float packed");
STATIC_ASSERT(kAudioTimeStampSampleTimeValid == 1 && kAudioTimeStampHostTimeValid == 2, "time stamp flags");
STATIC_ASSERT(kAudioTimeStampSMPTETimeValid == 16 && kAudioTimeStampSampleHostTimeValid == 3, "time stamp flags 2");
STATIC_ASSERT(kAudio_ParamError == -50 && kAudio_MemFullError == -108 && kAudio_UnimplementedError == -4, "errors");
STATIC_ASSERT(kAudio_FileNotFoundError == -43 && kAudio_BadFilePathError == 0x21707468, "file errors");
STATIC_ASSERT(kAudioChannelLayoutTag_Stereo == 0x00650002 && kAudioChannelLayoutTag_Mono == 0x00640001, "layout tags");
STATIC_ASSERT(AudioChannelLayoutTag_GetNumberOfChannels(kAudioChannelLayoutTag_Octagonal) == 8, "channels of a tag");

#if EXPECT_IPHONE
/* The iPhone: 8.24 fixed point. */
STATIC_ASSERT(CA_PREFER_FIXED_POINT == 1, "fixed point on the iPhone");
STATIC_ASSERT(sizeof(AudioUnitSampleType) == 4 && (AudioUnitSampleType)-1 < 0, "SInt32 unit samples");
STATIC_ASSERT(sizeof(AudioSampleType) == 2 && (AudioSampleType)-1 < 0, "SInt16 samples");
STATIC_ASSERT(kAudioUnitSampleFractionBits == 24, "8.24");
STATIC_ASSERT(kAudioFormatFlagsCanonical == 0xC, "canonical (iPhone)");
STATIC_ASSERT(kAudioFormatFlagsAudioUnitCanonical == 0xC2C, "audio unit canonical (iPhone)");
#else
/* Plain Linux: floating point, as on a Mac. */
STATIC_ASSERT(CA_PREFER_FIXED_POINT == 0, "floating point on plain Linux");
STATIC_ASSERT(sizeof(AudioUnitSampleType) == 4 && (AudioUnitSampleType)0.5 > 0, "Float32 unit samples");
STATIC_ASSERT(kAudioFormatFlagsCanonical == 0x9, "canonical (Mac)");
STATIC_ASSERT(kAudioFormatFlagsAudioUnitCanonical == 0x29, "audio unit canonical (Mac)");
#endif

int main(void)
{
    AudioStreamBasicDescription asbd;
    memset(&asbd, 0, sizeof asbd);
#ifdef __cplusplus
    /* The SDK's C++ helpers: 16-bit stereo interleaved, then 8.24 non-interleaved. */
    FillOutASBDForLPCM(asbd, 44100, 2, 16, 16, false, false);
    if (asbd.mFormatFlags != 0xC || asbd.mBytesPerFrame != 4 || asbd.mBytesPerPacket != 4 || asbd.mFramesPerPacket != 1
        || asbd.mBitsPerChannel != 16 || asbd.mFormatID != 0x6C70636D) {
        printf("FillOutASBDForLPCM (16-bit stereo): flags %#x, bytes per frame %u\n", (unsigned)asbd.mFormatFlags,
               (unsigned)asbd.mBytesPerFrame);
        return 1;
    }
    FillOutASBDForLPCM(asbd, 48000, 2, 32, 32, false, false, true);
    if (asbd.mFormatFlags != 0x2C || asbd.mBytesPerFrame != 4) {
        printf("FillOutASBDForLPCM (non-interleaved): flags %#x, bytes per frame %u\n", (unsigned)asbd.mFormatFlags,
               (unsigned)asbd.mBytesPerFrame);
        return 1;
    }
    AudioTimeStamp ts;
    FillOutAudioTimeStampWithSampleAndHostTime(ts, 512, 99);
    if (ts.mFlags != 3 || ts.mSampleTime != 512 || ts.mHostTime != 99) {
        printf("FillOutAudioTimeStampWithSampleAndHostTime: flags %u\n", (unsigned)ts.mFlags);
        return 1;
    }
#endif
    asbd.mFormatID = kAudioFormatLinearPCM;
    asbd.mFormatFlags = kAudioFormatFlagIsSignedInteger;
    if (!TestAudioFormatNativeEndian(asbd)) {
        printf("TestAudioFormatNativeEndian: a little-endian description is not native\n");
        return 1;
    }
    printf("core-audio-types ok\n");
    return 0;
}
