/*
 * AudioToolbox for Linux — <AudioToolbox/AudioFileStream.h>.
 *
 * A parser for audio files that arrive piece by piece (from the network, say): the
 * program hands it the bytes in order, and it calls back with each property it learns
 * and with the audio packets it finds. Names, values and signatures are the iPhone
 * SDK's (iOS 7).
 */
#ifndef __AudioFileStream_h__
#define __AudioFileStream_h__

#include <CoreAudio/CoreAudioTypes.h>
#include <AudioToolbox/AudioFile.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- flags ------------------------------------------------------------------------ */

/* The property listener's *ioFlags (the parser says the value is kept; the program asks
 * it to keep it), AudioFileStreamParseBytes' inFlags and AudioFileStreamSeek's *ioFlags.
 * Equal values are meant: each pair belongs to a different call. */
enum {
    kAudioFileStreamPropertyFlag_PropertyIsCached = 1,
    kAudioFileStreamPropertyFlag_CacheProperty    = 2,
    kAudioFileStreamParseFlag_Discontinuity       = 1,
    kAudioFileStreamSeekFlag_OffsetIsEstimated    = 1
};

/* ---- result codes ----------------------------------------------------------------- */

enum {
    kAudioFileStreamError_UnsupportedFileType      = 0x7479703F, /* 'typ?' */
    kAudioFileStreamError_UnsupportedDataFormat    = 0x666D743F, /* 'fmt?' */
    kAudioFileStreamError_UnsupportedProperty      = 0x7074793F, /* 'pty?' */
    kAudioFileStreamError_BadPropertySize          = 0x2173697A, /* '!siz' */
    kAudioFileStreamError_NotOptimized             = 0x6F70746D, /* 'optm' */
    kAudioFileStreamError_InvalidPacketOffset      = 0x70636B3F, /* 'pck?' */
    kAudioFileStreamError_InvalidFile              = 0x6474613F, /* 'dta?' */
    kAudioFileStreamError_ValueUnknown             = 0x756E6B3F, /* 'unk?' */
    kAudioFileStreamError_DataUnavailable          = 0x6D6F7265, /* 'more' */
    kAudioFileStreamError_IllegalOperation         = 0x6E6F7065, /* 'nope' */
    kAudioFileStreamError_UnspecifiedError         = 0x7768743F, /* 'wht?' */
    kAudioFileStreamError_DiscontinuityCantRecover = 0x64736321  /* 'dsc!' */
};

/* ---- types and callbacks ---------------------------------------------------------- */

typedef UInt32 AudioFileStreamPropertyID;
typedef struct OpaqueAudioFileStreamID *AudioFileStreamID;
/* Names later SDKs gave the three flag words above. iOS 7's prototypes say UInt32; code
 * written for a later SDK declares its listener with these, and compiles unchanged. */
typedef UInt32 AudioFileStreamPropertyFlags;
typedef UInt32 AudioFileStreamParseFlags;
typedef UInt32 AudioFileStreamSeekFlags;

/* Called from inside AudioFileStreamParseBytes when the parser has found the value of
 * a property. */
typedef void (*AudioFileStream_PropertyListenerProc)(void *inClientData, AudioFileStreamID inAudioFileStream,
                                                     AudioFileStreamPropertyID inPropertyID, UInt32 *ioFlags);

/* Called from inside AudioFileStreamParseBytes with the audio packets found. */
typedef void (*AudioFileStream_PacketsProc)(void *inClientData, UInt32 inNumberBytes, UInt32 inNumberPackets,
                                            const void *inInputData,
                                            AudioStreamPacketDescription *inPacketDescriptions);

/* ---- properties ------------------------------------------------------------------- */

/* What the parser can report (none can be set). Each comment gives the value's type. */
enum {
    kAudioFileStreamProperty_ReadyToProducePackets = 0x72656479, /* 'redy' UInt32 */
    kAudioFileStreamProperty_FileFormat            = 0x66666D74, /* 'ffmt' AudioFileTypeID */
    kAudioFileStreamProperty_DataFormat            = 0x64666D74, /* 'dfmt' AudioStreamBasicDescription */
    kAudioFileStreamProperty_FormatList            = 0x666C7374, /* 'flst' AudioFormatListItem array */
    kAudioFileStreamProperty_MagicCookieData       = 0x6D676963, /* 'mgic' bytes */
    kAudioFileStreamProperty_AudioDataByteCount    = 0x62636E74, /* 'bcnt' UInt64 */
    kAudioFileStreamProperty_AudioDataPacketCount  = 0x70636E74, /* 'pcnt' UInt64 */
    kAudioFileStreamProperty_MaximumPacketSize     = 0x70737A65, /* 'psze' UInt32 */
    kAudioFileStreamProperty_DataOffset            = 0x646F6666, /* 'doff' SInt64 */
    kAudioFileStreamProperty_ChannelLayout         = 0x636D6170, /* 'cmap' AudioChannelLayout */
    kAudioFileStreamProperty_PacketToFrame         = 0x706B6672, /* 'pkfr' AudioFramePacketTranslation */
    kAudioFileStreamProperty_FrameToPacket         = 0x6672706B, /* 'frpk' AudioFramePacketTranslation */
    kAudioFileStreamProperty_PacketToByte          = 0x706B6279, /* 'pkby' AudioBytePacketTranslation */
    kAudioFileStreamProperty_ByteToPacket          = 0x6279706B, /* 'bypk' AudioBytePacketTranslation */
    kAudioFileStreamProperty_PacketTableInfo       = 0x706E666F, /* 'pnfo' AudioFilePacketTableInfo */
    kAudioFileStreamProperty_PacketSizeUpperBound  = 0x706B7562, /* 'pkub' UInt32 */
    kAudioFileStreamProperty_AverageBytesPerPacket = 0x61627070, /* 'abpp' Float64 */
    kAudioFileStreamProperty_BitRate               = 0x62726174  /* 'brat' UInt32 bits per second */
};

/* ---- functions -------------------------------------------------------------------- */

/* Makes a parser; inFileTypeHint may be 0. */
extern OSStatus AudioFileStreamOpen(void *inClientData, AudioFileStream_PropertyListenerProc inPropertyListenerProc,
                                    AudioFileStream_PacketsProc inPacketsProc, AudioFileTypeID inFileTypeHint,
                                    AudioFileStreamID *outAudioFileStream);

/* Feeds the next inDataByteSize bytes of the file; the callbacks run before it returns.
 * After a seek (or lost data) pass kAudioFileStreamParseFlag_Discontinuity. */
extern OSStatus AudioFileStreamParseBytes(AudioFileStreamID inAudioFileStream, UInt32 inDataByteSize,
                                          const void *inData, UInt32 inFlags);

/* Where packet inPacketOffset starts, counted from the start of the audio data (add
 * kAudioFileStreamProperty_DataOffset for a position in the file); *ioFlags says when
 * it is an estimate. */
extern OSStatus AudioFileStreamSeek(AudioFileStreamID inAudioFileStream, SInt64 inPacketOffset,
                                    SInt64 *outDataByteOffset, UInt32 *ioFlags);

extern OSStatus AudioFileStreamGetPropertyInfo(AudioFileStreamID inAudioFileStream,
                                               AudioFileStreamPropertyID inPropertyID, UInt32 *outPropertyDataSize,
                                               Boolean *outWritable);

extern OSStatus AudioFileStreamGetProperty(AudioFileStreamID inAudioFileStream,
                                           AudioFileStreamPropertyID inPropertyID, UInt32 *ioPropertyDataSize,
                                           void *outPropertyData);

extern OSStatus AudioFileStreamSetProperty(AudioFileStreamID inAudioFileStream,
                                           AudioFileStreamPropertyID inPropertyID, UInt32 inPropertyDataSize,
                                           const void *inPropertyData);

extern OSStatus AudioFileStreamClose(AudioFileStreamID inAudioFileStream);

#ifdef __cplusplus
}
#endif
#endif /* __AudioFileStream_h__ */
