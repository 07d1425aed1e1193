/*
 * AudioToolbox for Linux — <AudioToolbox/ExtendedAudioFile.h>.
 *
 * An audio file with a converter attached: the program reads and writes frames of
 * linear PCM in a "client" format of its choosing, and the file keeps its own (possibly
 * compressed) format. Names, values and signatures are the iPhone SDK's (iOS 7); the
 * FSRef-based calls of the Mac are not declared.
 */
#ifndef __ExtendedAudioFile_h__
#define __ExtendedAudioFile_h__

#include <CoreAudio/CoreAudioTypes.h>
#include <CoreFoundation/CoreFoundation.h>
#include <AudioToolbox/AudioFile.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct OpaqueExtAudioFile *ExtAudioFileRef;

/* ---- properties ------------------------------------------------------------------- */

/* Each comment gives the value's type. The file's format and the converter, audio file
 * and packet sizes are read-only; the client format must be linear PCM and is set
 * before the client channel layout (and after the codec manufacturer, when that is
 * chosen). kExtAudioFileProperty_AudioConverter yields an AudioConverterRef. */
enum {
    kExtAudioFileProperty_FileDataFormat      = 0x66666D74, /* 'ffmt' AudioStreamBasicDescription */
    kExtAudioFileProperty_FileChannelLayout   = 0x66636C6F, /* 'fclo' AudioChannelLayout */
    kExtAudioFileProperty_ClientDataFormat    = 0x63666D74, /* 'cfmt' AudioStreamBasicDescription */
    kExtAudioFileProperty_ClientChannelLayout = 0x63636C6F, /* 'cclo' AudioChannelLayout */
    kExtAudioFileProperty_CodecManufacturer   = 0x636D616E, /* 'cman' UInt32 */
    kExtAudioFileProperty_AudioConverter      = 0x61636E76, /* 'acnv' AudioConverterRef */
    kExtAudioFileProperty_AudioFile           = 0x6166696C, /* 'afil' AudioFileID */
    kExtAudioFileProperty_FileMaxPacketSize   = 0x666D7073, /* 'fmps' UInt32 */
    kExtAudioFileProperty_ClientMaxPacketSize = 0x636D7073, /* 'cmps' UInt32 */
    kExtAudioFileProperty_FileLengthFrames    = 0x2366726D, /* '#frm' SInt64 */
    kExtAudioFileProperty_ConverterConfig     = 0x61636366, /* 'accf' CFPropertyListRef */
    kExtAudioFileProperty_IOBufferSizeBytes   = 0x696F6273, /* 'iobs' UInt32 */
    kExtAudioFileProperty_IOBuffer            = 0x696F6266, /* 'iobf' void * */
    kExtAudioFileProperty_PacketTable         = 0x78707469  /* 'xpti' AudioFilePacketTableInfo */
};

/* ---- result codes ----------------------------------------------------------------- */

/* On the phone an interruption can take the codec away in the middle of ExtAudioFileWrite:
 * the first two codes say whether the buffer was written anyway or must be written
 * again. */
enum {
#if TARGET_OS_IPHONE
    kExtAudioFileError_CodecUnavailableInputConsumed    = -66559,
    kExtAudioFileError_CodecUnavailableInputNotConsumed = -66560,
#endif
    kExtAudioFileError_InvalidProperty                  = -66561,
    kExtAudioFileError_InvalidPropertySize              = -66562,
    kExtAudioFileError_NonPCMClientFormat               = -66563,
    kExtAudioFileError_InvalidChannelMap                = -66564,
    kExtAudioFileError_InvalidOperationOrder            = -66565,
    kExtAudioFileError_InvalidDataFormat                = -66566,
    kExtAudioFileError_MaxPacketSizeUnknown             = -66567,
    kExtAudioFileError_InvalidSeek                      = -66568,
    kExtAudioFileError_AsyncWriteTooLarge               = -66569,
    kExtAudioFileError_AsyncWriteBufferOverflow         = -66570
};

typedef UInt32 ExtAudioFilePropertyID;

/* ---- opening, creating and closing ------------------------------------------------ */

/* Opens an existing file for reading. */
extern OSStatus ExtAudioFileOpenURL(CFURLRef inURL, ExtAudioFileRef *outExtAudioFile);

/* Puts a converter around a file already opened with AudioFile; the AudioFileID stays
 * the program's to close, after the ExtAudioFileRef is disposed of. */
extern OSStatus ExtAudioFileWrapAudioFileID(AudioFileID inFileID, Boolean inForWriting,
                                            ExtAudioFileRef *outExtAudioFile);

/* Makes a new file in format inStreamDesc (inChannelLayout may be NULL); inFlags as for
 * AudioFileCreateWithURL. */
extern OSStatus ExtAudioFileCreateWithURL(CFURLRef inURL, AudioFileTypeID inFileType,
                                          const AudioStreamBasicDescription *inStreamDesc,
                                          const AudioChannelLayout *inChannelLayout, UInt32 inFlags,
                                          ExtAudioFileRef *outExtAudioFile);

/* Closes the file (flushing what is still to be written) and frees the object. */
extern OSStatus ExtAudioFileDispose(ExtAudioFileRef inExtAudioFile);

/* ---- frames ----------------------------------------------------------------------- */

/* Reads up to *ioNumberFrames frames in the client format; 0 frames back means the end
 * of the file. */
extern OSStatus ExtAudioFileRead(ExtAudioFileRef inExtAudioFile, UInt32 *ioNumberFrames, AudioBufferList *ioData);

/* Writes frames in the client format, waiting until they are written. */
extern OSStatus ExtAudioFileWrite(ExtAudioFileRef inExtAudioFile, UInt32 inNumberFrames,
                                  const AudioBufferList *ioData);

/* Writes frames without waiting: they are copied and written later, on another thread.
 * Calling it once with 0 frames and NULL data sets up its buffers ahead of time. */
extern OSStatus ExtAudioFileWriteAsync(ExtAudioFileRef inExtAudioFile, UInt32 inNumberFrames,
                                       const AudioBufferList *ioData);

/* Moves the read position to frame inFrameOffset, counted in the file's own format
 * (its sample rate), not the client's. */
extern OSStatus ExtAudioFileSeek(ExtAudioFileRef inExtAudioFile, SInt64 inFrameOffset);

extern OSStatus ExtAudioFileTell(ExtAudioFileRef inExtAudioFile, SInt64 *outFrameOffset);

/* ---- property access -------------------------------------------------------------- */

extern OSStatus ExtAudioFileGetPropertyInfo(ExtAudioFileRef inExtAudioFile, ExtAudioFilePropertyID inPropertyID,
                                            UInt32 *outSize, Boolean *outWritable);

extern OSStatus ExtAudioFileGetProperty(ExtAudioFileRef inExtAudioFile, ExtAudioFilePropertyID inPropertyID,
                                        UInt32 *ioPropertyDataSize, void *outPropertyData);

extern OSStatus ExtAudioFileSetProperty(ExtAudioFileRef inExtAudioFile, ExtAudioFilePropertyID inPropertyID,
                                        UInt32 inPropertyDataSize, const void *inPropertyData);

#ifdef __cplusplus
}
#endif
#endif /* __ExtendedAudioFile_h__ */
