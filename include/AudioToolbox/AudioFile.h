/*
 * AudioToolbox for Linux — <AudioToolbox/AudioFile.h>.
 *
 * Reading and writing whole audio files (CAF, WAVE, AIFF, MPEG-4 and the rest) by
 * bytes or by packets, with their properties, markers, regions and metadata, and the
 * global queries about which file types exist. Names, values, layouts and signatures
 * are the iPhone SDK's (iOS 7); the FSRef-based calls of the Mac are not declared.
 */
#ifndef __AudioFile_h__
#define __AudioFile_h__

#include <stddef.h>   /* offsetof, for the marker and region macros below */
#include <CoreAudio/CoreAudioTypes.h>
#include <CoreFoundation/CoreFoundation.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- file types ------------------------------------------------------------------- */

/* The container formats, as AudioFileTypeID values (four-character codes). */
enum {
    kAudioFileAIFFType           = 0x41494646, /* 'AIFF' */
    kAudioFileAIFCType           = 0x41494643, /* 'AIFC' */
    kAudioFileWAVEType           = 0x57415645, /* 'WAVE' */
    kAudioFileSoundDesigner2Type = 0x53643266, /* 'Sd2f' */
    kAudioFileNextType           = 0x4E655854, /* 'NeXT' */
    kAudioFileMP3Type            = 0x4D504733, /* 'MPG3' */
    kAudioFileMP2Type            = 0x4D504732, /* 'MPG2' */
    kAudioFileMP1Type            = 0x4D504731, /* 'MPG1' */
    kAudioFileAC3Type            = 0x61632D33, /* 'ac-3' */
    kAudioFileAAC_ADTSType       = 0x61647473, /* 'adts' */
    kAudioFileMPEG4Type          = 0x6D703466, /* 'mp4f' */
    kAudioFileM4AType            = 0x6D346166, /* 'm4af' */
    kAudioFileM4BType            = 0x6D346266, /* 'm4bf' */
    kAudioFileCAFType            = 0x63616666, /* 'caff' */
    kAudioFile3GPType            = 0x33677070, /* '3gpp' */
    kAudioFile3GP2Type           = 0x33677032, /* '3gp2' */
    kAudioFileAMRType            = 0x616D7266  /* 'amrf' */
};

typedef UInt32 AudioFileTypeID;

/* ---- result codes ----------------------------------------------------------------- */

/* What the AudioFile calls return besides noErr. The last four are the classic file
 * manager numbers. */
enum {
    kAudioFileUnspecifiedError               = 0x7768743F, /* 'wht?' */
    kAudioFileUnsupportedFileTypeError       = 0x7479703F, /* 'typ?' */
    kAudioFileUnsupportedDataFormatError     = 0x666D743F, /* 'fmt?' */
    kAudioFileUnsupportedPropertyError       = 0x7074793F, /* 'pty?' */
    kAudioFileBadPropertySizeError           = 0x2173697A, /* '!siz' */
    kAudioFilePermissionsError               = 0x70726D3F, /* 'prm?' */
    kAudioFileNotOptimizedError              = 0x6F70746D, /* 'optm' */
    kAudioFileInvalidChunkError              = 0x63686B3F, /* 'chk?' */
    kAudioFileDoesNotAllow64BitDataSizeError = 0x6F66663F, /* 'off?' */
    kAudioFileInvalidPacketOffsetError       = 0x70636B3F, /* 'pck?' */
    kAudioFileInvalidFileError               = 0x6474613F, /* 'dta?' */
    kAudioFileOperationNotSupportedError     = 0x6F703F3F, /* 'op??' */
    kAudioFileNotOpenError                   = -38,
    kAudioFileEndOfFileError                 = -39,
    kAudioFilePositionError                  = -40,
    kAudioFileFileNotFoundError              = -43
};

/* ---- flags, permissions and small enumerations ------------------------------------ */

/* inFlags of AudioFileCreateWithURL / AudioFileInitializeWithCallbacks: replace an
 * existing file; do not pad the start of the audio data to a page boundary. */
enum {
    kAudioFileFlags_EraseFile               = 1,
    kAudioFileFlags_DontPageAlignAudioData  = 2
};

/* inPermissions of AudioFileOpenURL. */
enum {
    kAudioFileReadPermission      = 0x01,
    kAudioFileWritePermission     = 0x02,
    kAudioFileReadWritePermission = 0x03
};

typedef struct OpaqueAudioFileID *AudioFileID;
typedef UInt32 AudioFilePropertyID;

/* How a region loops. */
enum {
    kAudioFileLoopDirection_NoLooping          = 0,
    kAudioFileLoopDirection_Forward            = 1,
    kAudioFileLoopDirection_ForwardAndBackward = 2,
    kAudioFileLoopDirection_Backward           = 3
};

/* ---- markers and regions ---------------------------------------------------------- */

/* A SMPTE position carried by a marker, with a sample offset inside the frame. */
struct AudioFile_SMPTE_Time {
    SInt8  mHours;
    UInt8  mMinutes;
    UInt8  mSeconds;
    UInt8  mFrames;
    UInt32 mSubFrameSampleOffset;
};
typedef struct AudioFile_SMPTE_Time AudioFile_SMPTE_Time;

/* Marker kinds (mType). */
enum {
    kAudioFileMarkerType_Generic = 0
};

/* A named point in the file; mName belongs to whoever fetched the marker. */
struct AudioFileMarker {
    Float64              mFramePosition;
    CFStringRef          mName;
    SInt32               mMarkerID;
    AudioFile_SMPTE_Time mSMPTETime;
    UInt32               mType;
    UInt16               mReserved;
    UInt16               mChannel;
};
typedef struct AudioFileMarker AudioFileMarker;

/* kAudioFilePropertyMarkerList: mNumberMarkers markers really follow (allocate with
 * NumAudioFileMarkersToNumBytes). */
struct AudioFileMarkerList {
    UInt32          mSMPTE_TimeType;
    UInt32          mNumberMarkers;
    AudioFileMarker mMarkers[1];
};
typedef struct AudioFileMarkerList AudioFileMarkerList;

/* How many markers a marker list of inNumBytes bytes holds, and the reverse. */
#define NumBytesToNumAudioFileMarkers(inNumBytes) \
    (((inNumBytes) < offsetof(AudioFileMarkerList, mMarkers)) ? 0 \
     : (((inNumBytes) - offsetof(AudioFileMarkerList, mMarkers)) / sizeof(AudioFileMarker)))

#define NumAudioFileMarkersToNumBytes(inNumMarkers) \
    (offsetof(AudioFileMarkerList, mMarkers) + (inNumMarkers) * sizeof(AudioFileMarker))

/* Region flags (mFlags). */
enum {
    kAudioFileRegionFlag_LoopEnable   = 1,
    kAudioFileRegionFlag_PlayForward  = 2,
    kAudioFileRegionFlag_PlayBackward = 4
};

/* A span of the file described by its markers; mNumberMarkers of them really follow,
 * so regions differ in size. */
struct AudioFileRegion {
    UInt32          mRegionID;
    CFStringRef     mName;
    UInt32          mFlags;
    UInt32          mNumberMarkers;
    AudioFileMarker mMarkers[1];
};
typedef struct AudioFileRegion AudioFileRegion;

/* kAudioFilePropertyRegionList: step from one region to the next with
 * NextAudioFileRegion, not by indexing mRegions. */
struct AudioFileRegionList {
    UInt32          mSMPTE_TimeType;
    UInt32          mNumberRegions;
    AudioFileRegion mRegions[1];
};
typedef struct AudioFileRegionList AudioFileRegionList;

/* The region stored just after *inAFRegionPtr. */
#define NextAudioFileRegion(inAFRegionPtr) \
    ((AudioFileRegion *)((char *)(inAFRegionPtr) + offsetof(AudioFileRegion, mMarkers) \
                         + ((inAFRegionPtr)->mNumberMarkers) * sizeof(AudioFileMarker)))

/* ---- translations between frames, packets and bytes ------------------------------- */

/* kAudioFilePropertyPacketToFrame / kAudioFilePropertyFrameToPacket. */
struct AudioFramePacketTranslation {
    SInt64 mFrame;
    SInt64 mPacket;
    UInt32 mFrameOffsetInPacket;
};
typedef struct AudioFramePacketTranslation AudioFramePacketTranslation;

/* Set in AudioBytePacketTranslation.mFlags when the answer is only an estimate. */
enum {
    kBytePacketTranslationFlag_IsEstimate = 1
};

/* kAudioFilePropertyPacketToByte / kAudioFilePropertyByteToPacket. */
struct AudioBytePacketTranslation {
    SInt64 mByte;
    SInt64 mPacket;
    UInt32 mByteOffsetInPacket;
    UInt32 mFlags;
};
typedef struct AudioBytePacketTranslation AudioBytePacketTranslation;

/* kAudioFilePropertyPacketTableInfo: valid frames plus the encoder's priming and
 * remainder frames make up every frame the packets hold. */
struct AudioFilePacketTableInfo {
    SInt64 mNumberValidFrames;
    SInt32 mPrimingFrames;
    SInt32 mRemainderFrames;
};
typedef struct AudioFilePacketTableInfo AudioFilePacketTableInfo;

/* ---- info dictionary keys --------------------------------------------------------- */

/* Keys of the kAudioFilePropertyInfoDictionary dictionary, as C strings (make CFStrings
 * of them to look values up). */
#define kAFInfoDictionary_Artist                       "artist"
#define kAFInfoDictionary_Album                        "album"
#define kAFInfoDictionary_Tempo                        "tempo"
#define kAFInfoDictionary_KeySignature                 "key signature"
#define kAFInfoDictionary_TimeSignature                "time signature"
#define kAFInfoDictionary_TrackNumber                  "track number"
#define kAFInfoDictionary_Year                         "year"
#define kAFInfoDictionary_Composer                     "composer"
#define kAFInfoDictionary_Lyricist                     "lyricist"
#define kAFInfoDictionary_Genre                        "genre"
#define kAFInfoDictionary_Title                        "title"
#define kAFInfoDictionary_RecordedDate                 "recorded date"
#define kAFInfoDictionary_Comments                     "comments"
#define kAFInfoDictionary_Copyright                    "copyright"
#define kAFInfoDictionary_SourceEncoder                "source encoder"
#define kAFInfoDictionary_EncodingApplication          "encoding application"
#define kAFInfoDictionary_NominalBitRate               "nominal bit rate"
#define kAFInfoDictionary_ChannelLayout                "channel layout"
#define kAFInfoDictionary_ApproximateDurationInSeconds "approximate duration in seconds"
#define kAFInfoDictionary_SourceBitDepth               "source bit depth"
#define kAFInfoDictionary_ISRC                         "ISRC"
#define kAFInfoDictionary_SubTitle                     "subtitle"

/* ---- opening, creating and closing ------------------------------------------------ */

/* Makes a new file at inFileRef; an existing file there is an error unless inFlags
 * has kAudioFileFlags_EraseFile. */
extern OSStatus AudioFileCreateWithURL(CFURLRef inFileRef, AudioFileTypeID inFileType,
                                       const AudioStreamBasicDescription *inFormat, UInt32 inFlags,
                                       AudioFileID *outAudioFile);

/* Opens an existing file; inFileTypeHint may be 0 when the type is not known. */
extern OSStatus AudioFileOpenURL(CFURLRef inFileRef, SInt8 inPermissions, AudioFileTypeID inFileTypeHint,
                                 AudioFileID *outAudioFile);

/* Where the program supplies the storage itself: read from inClientData at a position,
 * write to it, report its total size (not only the audio), and change that size (only
 * called when writing). */
typedef OSStatus (*AudioFile_ReadProc)(void *inClientData, SInt64 inPosition, UInt32 requestCount, void *buffer,
                                       UInt32 *actualCount);
typedef OSStatus (*AudioFile_WriteProc)(void *inClientData, SInt64 inPosition, UInt32 requestCount,
                                        const void *buffer, UInt32 *actualCount);
typedef SInt64 (*AudioFile_GetSizeProc)(void *inClientData);
typedef OSStatus (*AudioFile_SetSizeProc)(void *inClientData, SInt64 inSize);

/* Starts a new, empty file in storage reached through the callbacks. */
extern OSStatus AudioFileInitializeWithCallbacks(void *inClientData, AudioFile_ReadProc inReadFunc,
                                                 AudioFile_WriteProc inWriteFunc,
                                                 AudioFile_GetSizeProc inGetSizeFunc,
                                                 AudioFile_SetSizeProc inSetSizeFunc, AudioFileTypeID inFileType,
                                                 const AudioStreamBasicDescription *inFormat, UInt32 inFlags,
                                                 AudioFileID *outAudioFile);

/* Opens an existing file in storage reached through the callbacks (inWriteFunc and
 * inSetSizeFunc may be NULL for reading only). */
extern OSStatus AudioFileOpenWithCallbacks(void *inClientData, AudioFile_ReadProc inReadFunc,
                                           AudioFile_WriteProc inWriteFunc, AudioFile_GetSizeProc inGetSizeFunc,
                                           AudioFile_SetSizeProc inSetSizeFunc, AudioFileTypeID inFileTypeHint,
                                           AudioFileID *outAudioFile);

extern OSStatus AudioFileClose(AudioFileID inAudioFile);

/* Rewrites the file's layout so that it is ready for reading (see
 * kAudioFilePropertyIsOptimized). */
extern OSStatus AudioFileOptimize(AudioFileID inAudioFile);

/* ---- audio data ------------------------------------------------------------------- */

/* Bytes of audio data, counted from the start of the audio data; at the end of the file
 * the call returns kAudioFileEndOfFileError with *ioNumBytes reduced to what was read. */
extern OSStatus AudioFileReadBytes(AudioFileID inAudioFile, Boolean inUseCache, SInt64 inStartingByte,
                                   UInt32 *ioNumBytes, void *outBuffer);

extern OSStatus AudioFileWriteBytes(AudioFileID inAudioFile, Boolean inUseCache, SInt64 inStartingByte,
                                    UInt32 *ioNumBytes, const void *inBuffer);

/* Whole packets: *ioNumBytes is the buffer's size going in; both it and *ioNumPackets
 * come back as what fitted. Descriptions are not filled for constant-bit-rate data. */
extern OSStatus AudioFileReadPacketData(AudioFileID inAudioFile, Boolean inUseCache, UInt32 *ioNumBytes,
                                        AudioStreamPacketDescription *outPacketDescriptions,
                                        SInt64 inStartingPacket, UInt32 *ioNumPackets, void *outBuffer);

/* The older form: the buffer must hold *ioNumPackets packets of the largest size; fewer
 * packets coming back means the end of the file. */
extern OSStatus AudioFileReadPackets(AudioFileID inAudioFile, Boolean inUseCache, UInt32 *outNumBytes,
                                     AudioStreamPacketDescription *outPacketDescriptions, SInt64 inStartingPacket,
                                     UInt32 *ioNumPackets, void *outBuffer);

extern OSStatus AudioFileWritePackets(AudioFileID inAudioFile, Boolean inUseCache, UInt32 inNumBytes,
                                      const AudioStreamPacketDescription *inPacketDescriptions,
                                      SInt64 inStartingPacket, UInt32 *ioNumPackets, const void *inBuffer);

/* ---- user data (chunks by four-character ID and index) ---------------------------- */

extern OSStatus AudioFileCountUserData(AudioFileID inAudioFile, UInt32 inUserDataID, UInt32 *outNumberItems);

extern OSStatus AudioFileGetUserDataSize(AudioFileID inAudioFile, UInt32 inUserDataID, UInt32 inIndex,
                                         UInt32 *outUserDataSize);

extern OSStatus AudioFileGetUserData(AudioFileID inAudioFile, UInt32 inUserDataID, UInt32 inIndex,
                                     UInt32 *ioUserDataSize, void *outUserData);

extern OSStatus AudioFileSetUserData(AudioFileID inAudioFile, UInt32 inUserDataID, UInt32 inIndex,
                                     UInt32 inUserDataSize, const void *inUserData);

extern OSStatus AudioFileRemoveUserData(AudioFileID inAudioFile, UInt32 inUserDataID, UInt32 inIndex);

/* ---- properties ------------------------------------------------------------------- */

/* A file's properties. Each comment gives the value's type. */
enum {
    kAudioFilePropertyFileFormat            = 0x66666D74, /* 'ffmt' AudioFileTypeID */
    kAudioFilePropertyDataFormat            = 0x64666D74, /* 'dfmt' AudioStreamBasicDescription */
    kAudioFilePropertyIsOptimized           = 0x6F70746D, /* 'optm' UInt32, 1 when optimized */
    kAudioFilePropertyMagicCookieData       = 0x6D676963, /* 'mgic' bytes */
    kAudioFilePropertyAudioDataByteCount    = 0x62636E74, /* 'bcnt' UInt64 */
    kAudioFilePropertyAudioDataPacketCount  = 0x70636E74, /* 'pcnt' UInt64 */
    kAudioFilePropertyMaximumPacketSize     = 0x70737A65, /* 'psze' UInt32 */
    kAudioFilePropertyDataOffset            = 0x646F6666, /* 'doff' SInt64 */
    kAudioFilePropertyChannelLayout         = 0x636D6170, /* 'cmap' AudioChannelLayout */
    kAudioFilePropertyDeferSizeUpdates      = 0x64737A75, /* 'dszu' UInt32 */
    kAudioFilePropertyDataFormatName        = 0x666E6D65, /* 'fnme' superseded by kAudioFormatProperty_FormatName */
    kAudioFilePropertyMarkerList            = 0x6D6B6C73, /* 'mkls' AudioFileMarkerList */
    kAudioFilePropertyRegionList            = 0x72676C73, /* 'rgls' AudioFileRegionList */
    kAudioFilePropertyPacketToFrame         = 0x706B6672, /* 'pkfr' AudioFramePacketTranslation */
    kAudioFilePropertyFrameToPacket         = 0x6672706B, /* 'frpk' AudioFramePacketTranslation */
    kAudioFilePropertyPacketToByte          = 0x706B6279, /* 'pkby' AudioBytePacketTranslation */
    kAudioFilePropertyByteToPacket          = 0x6279706B, /* 'bypk' AudioBytePacketTranslation */
    kAudioFilePropertyChunkIDs              = 0x63686964, /* 'chid' UInt32 array */
    kAudioFilePropertyInfoDictionary        = 0x696E666F, /* 'info' CFDictionaryRef */
    kAudioFilePropertyPacketTableInfo       = 0x706E666F, /* 'pnfo' AudioFilePacketTableInfo */
    kAudioFilePropertyFormatList            = 0x666C7374, /* 'flst' AudioFormatListItem array */
    kAudioFilePropertyPacketSizeUpperBound  = 0x706B7562, /* 'pkub' UInt32 */
    kAudioFilePropertyReserveDuration       = 0x72737276, /* 'rsrv' Float64 seconds */
    kAudioFilePropertyEstimatedDuration     = 0x65647572, /* 'edur' Float64 seconds */
    kAudioFilePropertyBitRate               = 0x62726174, /* 'brat' UInt32 bits per second */
    kAudioFilePropertyID3Tag                = 0x69643374, /* 'id3t' bytes */
    kAudioFilePropertySourceBitDepth        = 0x73627464, /* 'sbtd' SInt32 */
    kAudioFilePropertyAlbumArtwork          = 0x61617274, /* 'aart' CFDataRef */
    kAudioFilePropertyAudioTrackCount       = 0x61746374, /* 'atct' UInt32 */
    kAudioFilePropertyUseAudioTrack         = 0x7561746B  /* 'uatk' UInt32 */
};

/* The size of a property's value, and whether it can be set (*isWritable is a UInt32). */
extern OSStatus AudioFileGetPropertyInfo(AudioFileID inAudioFile, AudioFilePropertyID inPropertyID,
                                         UInt32 *outDataSize, UInt32 *isWritable);

extern OSStatus AudioFileGetProperty(AudioFileID inAudioFile, AudioFilePropertyID inPropertyID,
                                     UInt32 *ioDataSize, void *outPropertyData);

extern OSStatus AudioFileSetProperty(AudioFileID inAudioFile, AudioFilePropertyID inPropertyID,
                                     UInt32 inDataSize, const void *inPropertyData);

/* ---- global information ----------------------------------------------------------- */

/* What AudioFileGetGlobalInfo can answer; the comment names the specifier it takes. */
enum {
    kAudioFileGlobalInfo_ReadableTypes                        = 0x61667266, /* 'afrf' none */
    kAudioFileGlobalInfo_WritableTypes                        = 0x61667766, /* 'afwf' none */
    kAudioFileGlobalInfo_FileTypeName                         = 0x66746E6D, /* 'ftnm' AudioFileTypeID */
    kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat = 0x73646964, /* 'sdid' AudioFileTypeAndFormatID */
    kAudioFileGlobalInfo_AvailableFormatIDs                   = 0x666D6964, /* 'fmid' AudioFileTypeID */
    kAudioFileGlobalInfo_AllExtensions                        = 0x616C7874, /* 'alxt' none */
    kAudioFileGlobalInfo_AllHFSTypeCodes                      = 0x61686673, /* 'ahfs' none */
    kAudioFileGlobalInfo_AllUTIs                              = 0x61757469, /* 'auti' none */
    kAudioFileGlobalInfo_AllMIMETypes                         = 0x616D696D, /* 'amim' none */
    kAudioFileGlobalInfo_ExtensionsForType                    = 0x66657874, /* 'fext' AudioFileTypeID */
    kAudioFileGlobalInfo_HFSTypeCodesForType                  = 0x66686673, /* 'fhfs' AudioFileTypeID */
    kAudioFileGlobalInfo_UTIsForType                          = 0x66757469, /* 'futi' AudioFileTypeID */
    kAudioFileGlobalInfo_MIMETypesForType                     = 0x666D696D, /* 'fmim' AudioFileTypeID */
    kAudioFileGlobalInfo_TypesForMIMEType                     = 0x746D696D, /* 'tmim' CFStringRef */
    kAudioFileGlobalInfo_TypesForUTI                          = 0x74757469, /* 'tuti' CFStringRef */
    kAudioFileGlobalInfo_TypesForHFSTypeCode                  = 0x74686673, /* 'thfs' HFSTypeCode */
    kAudioFileGlobalInfo_TypesForExtension                    = 0x74657874  /* 'text' CFStringRef */
};

/* Specifier of kAudioFileGlobalInfo_AvailableStreamDescriptionsForFormat. */
struct AudioFileTypeAndFormatID {
    AudioFileTypeID mFileType;
    UInt32          mFormatID;
};
typedef struct AudioFileTypeAndFormatID AudioFileTypeAndFormatID;

extern OSStatus AudioFileGetGlobalInfoSize(AudioFilePropertyID inPropertyID, UInt32 inSpecifierSize,
                                           void *inSpecifier, UInt32 *outDataSize);

extern OSStatus AudioFileGetGlobalInfo(AudioFilePropertyID inPropertyID, UInt32 inSpecifierSize, void *inSpecifier,
                                       UInt32 *ioDataSize, void *outPropertyData);

#ifdef __cplusplus
}
#endif
#endif /* __AudioFile_h__ */
