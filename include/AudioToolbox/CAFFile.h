/*
 * AudioToolbox for Linux — <AudioToolbox/CAFFile.h>: the chunks of a Core Audio Format
 * file, for programs that read or write CAF themselves, as the iPhone SDK (iOS 7)
 * declares them. Every number in a CAF file is big-endian, and the structures here are
 * packed: they describe the file's bytes, not the host's usual layout.
 *
 * The library's own CAF reader and writer (Audio File Services) use the same chunks:
 * 'desc', 'data' (an edit count, then the audio), 'pakt', 'kuki', 'chan', 'info',
 * 'free', 'strg', 'mark', 'regn' and 'inst'.
 */
#ifndef __CAFFile_h__
#define __CAFFile_h__

#include <CoreAudio/CoreAudioTypes.h>
#include <stddef.h>

#define ATTRIBUTE_PACKED __attribute__((__packed__))

#ifdef __cplusplus
extern "C" {
#endif

enum {
    kCAF_FileType                 = AT_FOURCC('c','a','f','f'),
    kCAF_FileVersion_Initial      = 1
};

/* The chunk types. */
enum {
    kCAF_StreamDescriptionChunkID = AT_FOURCC('d','e','s','c'),
    kCAF_AudioDataChunkID         = AT_FOURCC('d','a','t','a'),
    kCAF_ChannelLayoutChunkID     = AT_FOURCC('c','h','a','n'),
    kCAF_FillerChunkID            = AT_FOURCC('f','r','e','e'),
    kCAF_MarkerChunkID            = AT_FOURCC('m','a','r','k'),
    kCAF_RegionChunkID            = AT_FOURCC('r','e','g','n'),
    kCAF_InstrumentChunkID        = AT_FOURCC('i','n','s','t'),
    kCAF_MagicCookieID            = AT_FOURCC('k','u','k','i'),
    kCAF_InfoStringsChunkID       = AT_FOURCC('i','n','f','o'),
    kCAF_EditCommentsChunkID      = AT_FOURCC('e','d','c','t'),
    kCAF_PacketTableChunkID       = AT_FOURCC('p','a','k','t'),
    kCAF_StringsChunkID           = AT_FOURCC('s','t','r','g'),
    kCAF_UUIDChunkID              = AT_FOURCC('u','u','i','d'),
    kCAF_PeakChunkID              = AT_FOURCC('p','e','a','k'),
    kCAF_OverviewChunkID          = AT_FOURCC('o','v','v','w'),
    kCAF_MIDIChunkID              = AT_FOURCC('m','i','d','i'),
    kCAF_UMIDChunkID              = AT_FOURCC('u','m','i','d'),
    kCAF_FormatListID             = AT_FOURCC('l','d','s','c'),
    kCAF_iXMLChunkID              = AT_FOURCC('i','X','M','L')
};

/* The file's first eight bytes. */
typedef struct CAFFileHeader {
    UInt32 mFileType;
    UInt16 mFileVersion;
    UInt16 mFileFlags;
} ATTRIBUTE_PACKED CAFFileHeader;

/* Before every chunk: its type and the size of what follows (-1 for an audio data
 * chunk that runs to the end of the file). */
typedef struct CAFChunkHeader {
    UInt32 mChunkType;
    SInt64 mChunkSize;
} ATTRIBUTE_PACKED CAFChunkHeader;

typedef struct CAF_UUID_ChunkHeader {
    CAFChunkHeader mHeader;
    UInt8          mUUID[16];
} ATTRIBUTE_PACKED CAF_UUID_ChunkHeader;

/* A linear PCM stream's flags in a 'desc' chunk (the others are the format's own). */
enum {
    kCAFLinearPCMFormatFlagIsFloat        = (1L << 0),
    kCAFLinearPCMFormatFlagIsLittleEndian = (1L << 1)
};

/* The 'desc' chunk: AudioStreamBasicDescription without its reserved field. */
typedef struct CAFAudioDescription {
    Float64 mSampleRate;
    UInt32  mFormatID;
    UInt32  mFormatFlags;
    UInt32  mBytesPerPacket;
    UInt32  mFramesPerPacket;
    UInt32  mChannelsPerFrame;
    UInt32  mBitsPerChannel;
} ATTRIBUTE_PACKED CAFAudioDescription;

/* An entry of the 'ldsc' chunk (a format of a layered codec, with its layout tag). */
typedef struct CAFAudioFormatListItem {
    CAFAudioDescription mFormat;
    UInt32              mChannelLayoutTag;
} ATTRIBUTE_PACKED CAFAudioFormatListItem;

/* The 'pakt' chunk: the packets, the frames that are sound, the priming and remainder
 * frames, then each packet's size (and frames, for a variable count) as variable-length
 * integers. */
typedef struct CAFPacketTableHeader {
    SInt64 mNumberPackets;
    SInt64 mNumberValidFrames;
    SInt32 mPrimingFrames;
    SInt32 mRemainderFrames;
    UInt8  mPacketDescriptions[1];
} ATTRIBUTE_PACKED CAFPacketTableHeader;

/* The 'data' chunk: an edit count, then the audio. */
typedef struct CAFDataChunk {
    UInt32 mEditCount;
    UInt8  mData[1];
} ATTRIBUTE_PACKED CAFDataChunk;

/* A marker's type. */
enum {
    kCAFMarkerType_Generic              = 0,
    kCAFMarkerType_ProgramStart         = AT_FOURCC('p','b','e','g'),
    kCAFMarkerType_ProgramEnd           = AT_FOURCC('p','e','n','d'),
    kCAFMarkerType_TrackStart           = AT_FOURCC('t','b','e','g'),
    kCAFMarkerType_TrackEnd             = AT_FOURCC('t','e','n','d'),
    kCAFMarkerType_Index                = AT_FOURCC('i','n','d','x'),
    kCAFMarkerType_RegionStart          = AT_FOURCC('r','b','e','g'),
    kCAFMarkerType_RegionEnd            = AT_FOURCC('r','e','n','d'),
    kCAFMarkerType_RegionSyncPoint      = AT_FOURCC('r','s','y','c'),
    kCAFMarkerType_SelectionStart       = AT_FOURCC('s','b','e','g'),
    kCAFMarkerType_SelectionEnd         = AT_FOURCC('s','e','n','d'),
    kCAFMarkerType_EditSourceBegin      = AT_FOURCC('c','b','e','g'),
    kCAFMarkerType_EditSourceEnd        = AT_FOURCC('c','e','n','d'),
    kCAFMarkerType_EditDestinationBegin = AT_FOURCC('d','b','e','g'),
    kCAFMarkerType_EditDestinationEnd   = AT_FOURCC('d','e','n','d'),
    kCAFMarkerType_SustainLoopStart     = AT_FOURCC('s','l','b','g'),
    kCAFMarkerType_SustainLoopEnd       = AT_FOURCC('s','l','e','n'),
    kCAFMarkerType_ReleaseLoopStart     = AT_FOURCC('r','l','b','g'),
    kCAFMarkerType_ReleaseLoopEnd       = AT_FOURCC('r','l','e','n'),
    kCAFMarkerType_SavedPlayPosition    = AT_FOURCC('s','p','l','y'),
    kCAFMarkerType_Tempo                = AT_FOURCC('t','m','p','o'),
    kCAFMarkerType_TimeSignature        = AT_FOURCC('t','s','i','g'),
    kCAFMarkerType_KeySignature         = AT_FOURCC('k','s','i','g')
};

/* The SMPTE time base of a marker or region chunk. */
enum {
    kCAF_SMPTE_TimeTypeNone     = 0,
    kCAF_SMPTE_TimeType24       = 1,
    kCAF_SMPTE_TimeType25       = 2,
    kCAF_SMPTE_TimeType30Drop   = 3,
    kCAF_SMPTE_TimeType30       = 4,
    kCAF_SMPTE_TimeType2997     = 5,
    kCAF_SMPTE_TimeType2997Drop = 6,
    kCAF_SMPTE_TimeType60       = 7,
    kCAF_SMPTE_TimeType5994     = 8,
    kCAF_SMPTE_TimeType60Drop   = 9,
    kCAF_SMPTE_TimeType5994Drop = 10,
    kCAF_SMPTE_TimeType50       = 11,
    kCAF_SMPTE_TimeType2398     = 12
};

typedef struct CAF_SMPTE_Time {
    SInt8  mHours;
    SInt8  mMinutes;
    SInt8  mSeconds;
    SInt8  mFrames;
    UInt32 mSubFrameSampleOffset;
} ATTRIBUTE_PACKED CAF_SMPTE_Time;

typedef struct CAFMarker {
    UInt32         mType;
    Float64        mFramePosition;
    UInt32         mMarkerID;
    CAF_SMPTE_Time mSMPTETime;
    UInt32         mChannel;
} ATTRIBUTE_PACKED CAFMarker;

typedef struct CAFMarkerChunk {
    UInt32    mSMPTE_TimeType;
    UInt32    mNumberMarkers;
    CAFMarker mMarkers[1];
} ATTRIBUTE_PACKED CAFMarkerChunk;

/* The bytes of a marker chunk before its markers. */
#define kCAFMarkerChunkHdrSize offsetof(CAFMarkerChunk, mMarkers)

/* A region's flags. */
enum {
    kCAFRegionFlag_LoopEnable   = 1,
    kCAFRegionFlag_PlayForward  = 2,
    kCAFRegionFlag_PlayBackward = 4
};

typedef struct CAFRegion {
    UInt32    mRegionID;
    UInt32    mFlags;
    UInt32    mNumberMarkers;
    CAFMarker mMarkers[1];
} ATTRIBUTE_PACKED CAFRegion;

/* The region after `inRegionPtr` in a region chunk (regions are as long as their markers). */
#define NextCAFRegion(inRegionPtr) \
    ((CAFRegion *)((char *)(inRegionPtr) + offsetof(CAFRegion, mMarkers) + ((inRegionPtr)->mNumberMarkers) * sizeof(CAFMarker)))

typedef struct CAFRegionChunk {
    UInt32    mSMPTE_TimeType;
    UInt32    mNumberRegions;
    CAFRegion mRegions[1];
} ATTRIBUTE_PACKED CAFRegionChunk;

/* The bytes of a region chunk before its regions. */
#define kCAFRegionChunkHdrSize offsetof(CAFRegionChunk, mRegions)

/* The 'inst' chunk: the sound's note (fractional), its key and velocity ranges, its
 * gain, and the regions of its start, sustain and release. */
typedef struct CAFInstrumentChunk {
    Float32 mBaseNote;
    UInt8   mMIDILowNote;
    UInt8   mMIDIHighNote;
    UInt8   mMIDILowVelocity;
    UInt8   mMIDIHighVelocity;
    Float32 mdBGain;
    UInt32  mStartRegionID;
    UInt32  mSustainRegionID;
    UInt32  mReleaseRegionID;
    UInt32  mInstrumentID;
} ATTRIBUTE_PACKED CAFInstrumentChunk;

typedef struct CAFStringID {
    UInt32 mStringID;
    SInt64 mStringStartByteOffset;
} ATTRIBUTE_PACKED CAFStringID;

/* The 'strg' chunk: its entries, then the strings they point into. */
typedef struct CAFStrings {
    UInt32      mNumEntries;
    CAFStringID mStringsIDs[1];
} ATTRIBUTE_PACKED CAFStrings;

/* The 'info' chunk: its entries, then key and value strings, each NUL-terminated. */
typedef struct CAFInfoStrings {
    UInt32 mNumEntries;
} ATTRIBUTE_PACKED CAFInfoStrings;

typedef struct CAFPositionPeak {
    Float32 mValue;
    UInt64  mFrameNumber;
} ATTRIBUTE_PACKED CAFPositionPeak;

/* The 'peak' chunk: an edit count, then a peak a channel. */
typedef struct CAFPeakChunk {
    UInt32          mEditCount;
    CAFPositionPeak mPeaks[1];
} ATTRIBUTE_PACKED CAFPeakChunk;

typedef struct CAFOverviewSample {
    SInt16 mMinValue;
    SInt16 mMaxValue;
} ATTRIBUTE_PACKED CAFOverviewSample;

typedef struct CAFOverviewChunk {
    UInt32            mEditCount;
    UInt32            mNumFramesPerOVWSample;
    CAFOverviewSample mData[1];
} ATTRIBUTE_PACKED CAFOverviewChunk;

typedef struct CAFUMIDChunk {
    UInt8 mBytes[64];
} ATTRIBUTE_PACKED CAFUMIDChunk;

#ifdef __cplusplus
}
#endif

#endif /* __CAFFile_h__ */
