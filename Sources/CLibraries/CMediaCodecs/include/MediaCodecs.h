/* A narrow C face of FFmpeg's libavformat/libavcodec (Debian: libavformat-dev,
 * libavcodec-dev) for the audio file services: demultiplexing a container read through
 * callbacks, decoding packets to interleaved Float32, encoding Float32 to AAC, and
 * multiplexing packets into a file. Everything Apple-specific (format IDs, file types,
 * packet tables) is decided in Swift; this layer only speaks FFmpeg. */
#ifndef MEDIA_CODECS_H
#define MEDIA_CODECS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where a demuxer reads its bytes: positioned reads and a size, so a file descriptor and
 * a program's read callbacks are the same thing to it. readAt returns the bytes read, 0 at
 * the end, a negative number on an error. size returns -1 when it is not known. */
typedef struct MediaSource {
    void *context;
    int (*readAt)(void *context, int64_t position, void *buffer, int count);
    int64_t (*size)(void *context);
} MediaSource;

/* The codecs the services know, by what they are (not FFmpeg's numbering). */
typedef enum MediaCodec {
    MediaCodecUnknown = 0,
    MediaCodecPCM,        /* integer or float, see the PCM fields */
    MediaCodecULaw,
    MediaCodecALaw,
    MediaCodecIMA4,       /* Apple's IMA ADPCM: 34-byte blocks of 64 frames per channel */
    MediaCodecAAC,
    MediaCodecMP3,
    MediaCodecMP2,
    MediaCodecMP1,
    MediaCodecALAC,
} MediaCodec;

typedef struct MediaStreamInfo {
    char container[48];          /* the demuxer's short name, e.g. "wav", "aiff", "caf", "mov,mp4,m4a,3gp,3g2,mj2", "mp3", "aac" */
    MediaCodec codec;
    int pcmBits;                 /* PCM: 8, 16, 24, 32, 64 */
    int pcmFloat, pcmBigEndian, pcmSigned;
    int sampleRate;
    int channels;
    int blockAlign;              /* bytes of one packet for block codecs (IMA4), of one frame for PCM */
    int frameSize;               /* frames per packet when the codec has a fixed one, else 0 */
    int aacProfile;              /* MPEG-4 audio object type (2 = LC, 5 = SBR, 29 = PS), 0 if not AAC */
    int64_t bitRate;
    int64_t durationFrames;      /* the container's duration, -1 if not known */
    const uint8_t *extradata;    /* the codec's configuration (AAC: AudioSpecificConfig; ALAC: its atom) */
    int extradataSize;
} MediaStreamInfo;

typedef struct MediaPacket {
    const uint8_t *data;         /* valid until the next MediaDemuxerRead or Close */
    int size;
    int64_t position;            /* byte offset in the file, -1 if not known */
    int64_t frames;              /* frames it decodes to, 0 if not known */
    int32_t skipStart;           /* frames to drop at its start (encoder priming) */
    int32_t discardEnd;          /* frames to drop at its end (the remainder) */
} MediaPacket;

typedef struct MediaDemuxer MediaDemuxer;

/* Whether FFmpeg's libraries could be loaded (on the first call that needs them: they are
 * not linked). Without them every Open and Create below fails: -4, or NULL. Loading also
 * quiets FFmpeg's own logging (bad files are the caller's business, not stderr's). */
int MediaCodecsAvailable(void);

/* Opens the first audio stream of a container. formatHint is a demuxer name or NULL.
 * Returns 0, or -1 (not a container FFmpeg knows, or, without a hint, one its probe is not
 * sure of: a score below 25, as a raw stream gets from a chance frame sync in noise),
 * -2 (no audio stream), -3 (no memory), -4 (FFmpeg is not installed). */
int MediaDemuxerOpen(const MediaSource *source, const char *formatHint, int64_t probeLimit, MediaDemuxer **outDemuxer);
const MediaStreamInfo *MediaDemuxerInfo(const MediaDemuxer *demuxer);
/* The next packet of the audio stream: 1, 0 at the end, negative on a damaged file. */
int MediaDemuxerRead(MediaDemuxer *demuxer, MediaPacket *outPacket);
void MediaDemuxerClose(MediaDemuxer *demuxer);
/* The container's tags (ID3, iTunes metadata, RIFF INFO ...) and then the audio stream's,
 * by index: the key's name (FFmpeg's: "title", "artist", "date" ...) and *value, or NULL
 * past the last. Valid until Close. */
const char *MediaDemuxerTag(const MediaDemuxer *demuxer, int index, const char **value);

/* Decoding to interleaved Float32. config is the codec's configuration as FFmpeg takes it
 * (MediaStreamInfo.extradata). */
typedef struct MediaDecoder MediaDecoder;
MediaDecoder *MediaDecoderOpen(MediaCodec codec, int sampleRate, int channels, int blockAlign, int bitsPerSample,
                               const uint8_t *config, int configSize);
/* A decoder for the demuxer's audio stream with whatever codec FFmpeg has for it (FLAC,
 * Vorbis, Opus ... as well as the ones MediaCodec names), configured from the container.
 * NULL when FFmpeg has no decoder for it. The decoder keeps its own copy of the
 * configuration: the demuxer may be closed before it. */
MediaDecoder *MediaDecoderOpenStream(const MediaDemuxer *demuxer);
/* Sends one packet (NULL, 0: the end of the stream). 0, or negative if the codec refuses it. */
int MediaDecoderSend(MediaDecoder *decoder, const uint8_t *data, int size);
/* Up to capacity frames of what the packets sent so far decode to; 0 when it needs more.
 * Every frame has the channel count given at open, whatever the stream says later. */
int MediaDecoderReceive(MediaDecoder *decoder, float *interleaved, int capacity);
int MediaDecoderChannels(const MediaDecoder *decoder);
int MediaDecoderSampleRate(const MediaDecoder *decoder);
void MediaDecoderReset(MediaDecoder *decoder);
void MediaDecoderClose(MediaDecoder *decoder);

/* Encoding interleaved Float32 to AAC-LC, Apple Lossless (16 or 24 bits: `bits`) or
 * IMA4. bitRate is AAC's (0: the default); bits is ALAC's (0: 16). */
typedef struct MediaEncoder MediaEncoder;
MediaEncoder *MediaEncoderOpen(MediaCodec codec, int sampleRate, int channels, int64_t bitRate, int bits);
int MediaEncoderFrameSize(const MediaEncoder *encoder);       /* frames per packet */
int MediaEncoderPriming(const MediaEncoder *encoder);         /* frames of encoder delay */
/* AAC: the AudioSpecificConfig; ALAC: the 'alac' atom (12 bytes, then the 24-byte
 * ALACSpecificConfig); IMA4: none (size 0). */
const uint8_t *MediaEncoderConfig(const MediaEncoder *encoder, int *outSize);
/* Sends exactly FrameSize frames (fewer only for the last, which a codec of fixed-size
 * packets gets padded with silence); NULL, 0 ends the stream. */
int MediaEncoderSend(MediaEncoder *encoder, const float *interleaved, int frames);
/* The next packet: 1, 0 if it needs more input, -1 at the end. data is valid until the next call. */
int MediaEncoderReceive(MediaEncoder *encoder, const uint8_t **data, int *size, int64_t *frames);
int64_t MediaEncoderBitRate(const MediaEncoder *encoder);
void MediaEncoderClose(MediaEncoder *encoder);

/* Writing a container to a path: "wav", "aiff", "caf", "ipod" (M4A), "adts". */
typedef struct MediaMuxer MediaMuxer;
typedef struct MediaMuxerStream {
    MediaCodec codec;
    int pcmBits, pcmFloat, pcmBigEndian;
    int sampleRate, channels;
    int frameSize;               /* frames per packet for AAC */
    int priming;                 /* encoder delay the container records */
    int64_t bitRate;
    const uint8_t *config;       /* AAC: AudioSpecificConfig */
    int configSize;
} MediaMuxerStream;
int MediaMuxerCreate(const char *path, const char *container, const MediaMuxerStream *stream, MediaMuxer **outMuxer);
int MediaMuxerWrite(MediaMuxer *muxer, const uint8_t *data, int size, int64_t frames);
/* Writes the trailer and closes the file. */
int MediaMuxerFinish(MediaMuxer *muxer);
void MediaMuxerAbandon(MediaMuxer *muxer);

#ifdef __cplusplus
}
#endif
#endif
