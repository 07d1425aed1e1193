// FFmpeg (libavformat/libavcodec 5.x) behind MediaCodecs.h. Only FFmpeg's vocabulary
// lives here; the Swift services decide what a packet means to an iPhone program.
#include "MediaCodecs.h"
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/intreadwrite.h>
#include <libavutil/opt.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// MARK: loading FFmpeg on first use

/* FFmpeg is not linked: a program that never opens a file or converts a compressed
 * format maps none of it (FFmpeg brings dozens of libraries with it). Its libraries are
 * opened by their SONAMEs, taken from the headers this file is compiled with, on the
 * first call that needs them, and every function used is called through a pointer of
 * its own declared type, written ff_<name>: `make check` finds no FFmpeg symbol among
 * the library's undefined ones. */
#define SONAME_(name, major) "lib" #name ".so." #major
#define SONAME(name, major) SONAME_(name, major)

#define FFMPEG_FUNCTIONS(X) \
    X(avutil, av_channel_layout_copy) X(avutil, av_channel_layout_default) X(avutil, av_dict_count) \
    X(avutil, av_dict_get) X(avutil, av_frame_alloc) X(avutil, av_frame_free) X(avutil, av_frame_get_buffer) \
    X(avutil, av_frame_unref) X(avutil, av_free) X(avutil, av_freep) X(avutil, av_get_bytes_per_sample) \
    X(avutil, av_get_packed_sample_fmt) X(avutil, av_log_set_level) X(avutil, av_malloc) X(avutil, av_mallocz) \
    X(avutil, av_rescale_q) X(avutil, av_sample_fmt_is_planar) \
    X(avcodec, av_new_packet) X(avcodec, av_packet_alloc) X(avcodec, av_packet_free) \
    X(avcodec, av_packet_get_side_data) X(avcodec, av_packet_rescale_ts) X(avcodec, av_packet_unref) \
    X(avcodec, avcodec_alloc_context3) X(avcodec, avcodec_find_decoder) X(avcodec, avcodec_find_encoder) \
    X(avcodec, avcodec_flush_buffers) X(avcodec, avcodec_free_context) X(avcodec, avcodec_open2) \
    X(avcodec, avcodec_parameters_to_context) \
    X(avcodec, avcodec_receive_frame) X(avcodec, avcodec_receive_packet) X(avcodec, avcodec_send_frame) \
    X(avcodec, avcodec_send_packet) \
    X(avformat, av_find_input_format) X(avformat, av_read_frame) X(avformat, av_write_frame) \
    X(avformat, av_write_trailer) X(avformat, avformat_alloc_context) X(avformat, avformat_alloc_output_context2) \
    X(avformat, avformat_close_input) X(avformat, avformat_find_stream_info) X(avformat, avformat_free_context) \
    X(avformat, avformat_new_stream) X(avformat, avformat_open_input) X(avformat, avformat_write_header) \
    X(avformat, avio_alloc_context) X(avformat, avio_closep) X(avformat, avio_context_free) X(avformat, avio_open)

#define DECLARE(library, name) static __typeof__(name) *ff_##name;
FFMPEG_FUNCTIONS(DECLARE)
#undef DECLARE

static pthread_once_t ffmpegOnce = PTHREAD_ONCE_INIT;
static int ffmpegLoaded;

static void loadFFmpeg(void) {
    /* Local: FFmpeg's symbols never become the program's. Never closed: decoders and
     * their threads may outlive any one call. */
    void *avutil = dlopen(SONAME(avutil, LIBAVUTIL_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    void *avcodec = avutil ? dlopen(SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL) : NULL;
    void *avformat = avcodec ? dlopen(SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!avformat) return;
    int missing = 0;
#define RESOLVE(library, name) \
    ff_##name = (__typeof__(name) *)dlsym(library, #name); \
    if (!ff_##name) missing = 1;
    FFMPEG_FUNCTIONS(RESOLVE)
#undef RESOLVE
    if (!missing) {
        ff_av_log_set_level(AV_LOG_QUIET);
        ffmpegLoaded = 1;
    }
}

int MediaCodecsAvailable(void) {
    pthread_once(&ffmpegOnce, loadFFmpeg);
    return ffmpegLoaded;
}


// MARK: demuxing

struct MediaDemuxer {
    MediaSource source;
    int64_t position;
    AVFormatContext *format;
    AVIOContext *io;
    int stream;
    AVPacket *packet;
    MediaStreamInfo info;
};

static int sourceRead(void *opaque, uint8_t *buffer, int count) {
    MediaDemuxer *d = opaque;
    int got = d->source.readAt(d->source.context, d->position, buffer, count);
    if (got < 0) return AVERROR(EIO);
    if (got == 0) return AVERROR_EOF;
    d->position += got;
    return got;
}

static int64_t sourceSeek(void *opaque, int64_t offset, int whence) {
    MediaDemuxer *d = opaque;
    int64_t size = d->source.size ? d->source.size(d->source.context) : -1;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return size >= 0 ? size : AVERROR(ENOSYS);
    case SEEK_SET: break;
    case SEEK_CUR: offset += d->position; break;
    case SEEK_END: if (size < 0) return AVERROR(ENOSYS); offset += size; break;
    default: return AVERROR(EINVAL);
    }
    if (offset < 0) return AVERROR(EINVAL);
    d->position = offset;
    return offset;
}

static MediaCodec codecOf(enum AVCodecID id, MediaStreamInfo *info) {
    info->pcmSigned = 1;
    switch (id) {
    case AV_CODEC_ID_PCM_U8: info->pcmBits = 8; info->pcmSigned = 0; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_S8: info->pcmBits = 8; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_S16LE: info->pcmBits = 16; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_S16BE: info->pcmBits = 16; info->pcmBigEndian = 1; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_S24LE: info->pcmBits = 24; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_S24BE: info->pcmBits = 24; info->pcmBigEndian = 1; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_S32LE: info->pcmBits = 32; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_S32BE: info->pcmBits = 32; info->pcmBigEndian = 1; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_F32LE: info->pcmBits = 32; info->pcmFloat = 1; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_F32BE: info->pcmBits = 32; info->pcmFloat = 1; info->pcmBigEndian = 1; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_F64LE: info->pcmBits = 64; info->pcmFloat = 1; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_F64BE: info->pcmBits = 64; info->pcmFloat = 1; info->pcmBigEndian = 1; return MediaCodecPCM;
    case AV_CODEC_ID_PCM_MULAW: return MediaCodecULaw;
    case AV_CODEC_ID_PCM_ALAW: return MediaCodecALaw;
    case AV_CODEC_ID_ADPCM_IMA_QT: return MediaCodecIMA4;
    case AV_CODEC_ID_AAC: return MediaCodecAAC;
    case AV_CODEC_ID_MP3: return MediaCodecMP3;
    case AV_CODEC_ID_MP2: return MediaCodecMP2;
    case AV_CODEC_ID_MP1: return MediaCodecMP1;
    case AV_CODEC_ID_ALAC: return MediaCodecALAC;
    default: return MediaCodecUnknown;
    }
}

int MediaDemuxerOpen(const MediaSource *source, const char *formatHint, int64_t probeLimit, MediaDemuxer **outDemuxer) {
    if (!MediaCodecsAvailable()) return -4;
    *outDemuxer = NULL;
    MediaDemuxer *d = ff_av_mallocz(sizeof *d);
    if (!d) return -3;
    d->source = *source;
    d->stream = -1;
    enum { bufferSize = 32768 };
    uint8_t *buffer = ff_av_malloc(bufferSize);
    d->io = buffer ? ff_avio_alloc_context(buffer, bufferSize, 0, d, sourceRead, NULL, sourceSeek) : NULL;
    d->format = ff_avformat_alloc_context();
    d->packet = ff_av_packet_alloc();
    if (!d->io || !d->format || !d->packet) {
        if (!d->io) ff_av_free(buffer);
        MediaDemuxerClose(d);
        return -3;
    }
    d->format->pb = d->io;
    d->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    // Bounded work on any input: probing reads at most probeLimit bytes.
    d->format->probesize = probeLimit > 32 ? probeLimit : 1 << 20;
    d->format->max_analyze_duration = 2 * AV_TIME_BASE;
    const AVInputFormat *hint = formatHint ? ff_av_find_input_format(formatHint) : NULL;
    AVFormatContext *format = d->format;
    if (ff_avformat_open_input(&format, NULL, hint, NULL) < 0) {
        d->format = NULL; // freed by avformat_open_input on failure
        MediaDemuxerClose(d);
        return -1;
    }
    d->format = format;
    // FFmpeg takes the best score its probes give, however small: on bytes that are no
    // file at all, a raw stream's probe (no header to check, only frame syncs) may find a
    // frame or two by chance. A container or stream it is sure of scores 25 or more.
    if (!hint && format->probe_score < AVPROBE_SCORE_RETRY) {
        MediaDemuxerClose(d);
        return -1;
    }
    if (ff_avformat_find_stream_info(d->format, NULL) < 0) {
        MediaDemuxerClose(d);
        return -1;
    }
    for (unsigned i = 0; i < d->format->nb_streams; i++) {
        if (d->format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) { d->stream = (int)i; break; }
    }
    if (d->stream < 0) { MediaDemuxerClose(d); return -2; }
    AVStream *stream = d->format->streams[d->stream];
    AVCodecParameters *p = stream->codecpar;
    MediaStreamInfo *info = &d->info;
    snprintf(info->container, sizeof info->container, "%s", d->format->iformat->name);
    info->codec = codecOf(p->codec_id, info);
    info->sampleRate = p->sample_rate;
    info->channels = p->ch_layout.nb_channels;
    info->blockAlign = p->block_align;
    info->frameSize = p->frame_size;
    info->aacProfile = p->codec_id == AV_CODEC_ID_AAC ? p->profile + 1 : 0;
    info->bitRate = p->bit_rate;
    info->durationFrames = stream->duration != AV_NOPTS_VALUE && p->sample_rate > 0
        ? ff_av_rescale_q(stream->duration, stream->time_base, (AVRational){1, p->sample_rate}) : -1;
    info->extradata = p->extradata;
    info->extradataSize = p->extradata_size;
    for (unsigned i = 0; i < d->format->nb_streams; i++) {
        if ((int)i != d->stream) d->format->streams[i]->discard = AVDISCARD_ALL;
    }
    *outDemuxer = d;
    return 0;
}

const MediaStreamInfo *MediaDemuxerInfo(const MediaDemuxer *demuxer) { return &demuxer->info; }

const char *MediaDemuxerTag(const MediaDemuxer *d, int index, const char **value) {
    const AVDictionary *lists[2] = {d->format->metadata, d->stream >= 0 ? d->format->streams[d->stream]->metadata : NULL};
    for (int l = 0; l < 2; l++) {
        int count = lists[l] ? ff_av_dict_count(lists[l]) : 0;
        if (index < count) {
            const AVDictionaryEntry *entry = NULL;
            for (int i = 0; i <= index; i++) entry = ff_av_dict_get(lists[l], "", entry, AV_DICT_IGNORE_SUFFIX);
            if (!entry) return NULL;
            *value = entry->value;
            return entry->key;
        }
        index -= count;
    }
    return NULL;
}

int MediaDemuxerRead(MediaDemuxer *d, MediaPacket *out) {
    memset(out, 0, sizeof *out);
    for (;;) {
        ff_av_packet_unref(d->packet);
        int result = ff_av_read_frame(d->format, d->packet);
        if (result == AVERROR_EOF) return 0;
        if (result < 0) return -1;
        if (d->packet->stream_index != d->stream) continue;
        AVStream *stream = d->format->streams[d->stream];
        out->data = d->packet->data;
        out->size = d->packet->size;
        out->position = d->packet->pos;
        int rate = stream->codecpar->sample_rate;
        out->frames = d->packet->duration > 0 && rate > 0
            ? ff_av_rescale_q(d->packet->duration, stream->time_base, (AVRational){1, rate}) : 0;
        size_t sideSize = 0;
        const uint8_t *skip = ff_av_packet_get_side_data(d->packet, AV_PKT_DATA_SKIP_SAMPLES, &sideSize);
        if (skip && sideSize >= 8) {
            out->skipStart = (int32_t)AV_RL32(skip);
            out->discardEnd = (int32_t)AV_RL32(skip + 4);
        }
        return 1;
    }
}

void MediaDemuxerClose(MediaDemuxer *d) {
    if (!d) return;
    if (d->format) ff_avformat_close_input(&d->format);
    if (d->io) { ff_av_freep(&d->io->buffer); ff_avio_context_free(&d->io); }
    ff_av_packet_free(&d->packet);
    ff_av_free(d);
}

// MARK: decoding

struct MediaDecoder {
    AVCodecContext *context;
    AVPacket *packet;
    AVFrame *frame;
    int offset;        // frames of `frame` already handed out
    int pending;       // frame holds undelivered frames
    int channels;      // what each delivered frame has: the count given at open
};

static enum AVCodecID avCodecFor(MediaCodec codec, int bits, int isFloat, int bigEndian) {
    switch (codec) {
    case MediaCodecULaw: return AV_CODEC_ID_PCM_MULAW;
    case MediaCodecALaw: return AV_CODEC_ID_PCM_ALAW;
    case MediaCodecIMA4: return AV_CODEC_ID_ADPCM_IMA_QT;
    case MediaCodecAAC: return AV_CODEC_ID_AAC;
    case MediaCodecMP3: return AV_CODEC_ID_MP3;
    case MediaCodecMP2: return AV_CODEC_ID_MP2;
    case MediaCodecMP1: return AV_CODEC_ID_MP1;
    case MediaCodecALAC: return AV_CODEC_ID_ALAC;
    case MediaCodecPCM:
        if (isFloat) return bits == 64 ? (bigEndian ? AV_CODEC_ID_PCM_F64BE : AV_CODEC_ID_PCM_F64LE)
                                       : (bigEndian ? AV_CODEC_ID_PCM_F32BE : AV_CODEC_ID_PCM_F32LE);
        switch (bits) {
        case 16: return bigEndian ? AV_CODEC_ID_PCM_S16BE : AV_CODEC_ID_PCM_S16LE;
        case 24: return bigEndian ? AV_CODEC_ID_PCM_S24BE : AV_CODEC_ID_PCM_S24LE;
        case 32: return bigEndian ? AV_CODEC_ID_PCM_S32BE : AV_CODEC_ID_PCM_S32LE;
        default: return AV_CODEC_ID_NONE;
        }
    default: return AV_CODEC_ID_NONE;
    }
}

MediaDecoder *MediaDecoderOpen(MediaCodec codec, int sampleRate, int channels, int blockAlign, int bitsPerSample,
                               const uint8_t *config, int configSize) {
    if (!MediaCodecsAvailable()) return NULL;
    enum AVCodecID id = avCodecFor(codec, bitsPerSample, 0, 0);
    const AVCodec *decoder = id == AV_CODEC_ID_NONE ? NULL : ff_avcodec_find_decoder(id);
    if (!decoder || channels < 1 || channels > 64 || sampleRate < 1 || configSize < 0) return NULL;
    MediaDecoder *d = ff_av_mallocz(sizeof *d);
    if (!d) return NULL;
    d->context = ff_avcodec_alloc_context3(decoder);
    d->packet = ff_av_packet_alloc();
    d->frame = ff_av_frame_alloc();
    if (!d->context || !d->packet || !d->frame) { MediaDecoderClose(d); return NULL; }
    d->context->sample_rate = sampleRate;
    d->channels = channels;
    ff_av_channel_layout_default(&d->context->ch_layout, channels);
    d->context->block_align = blockAlign;
    d->context->bits_per_coded_sample = bitsPerSample;
    if (config && configSize > 0) {
        d->context->extradata = ff_av_mallocz((size_t)configSize + AV_INPUT_BUFFER_PADDING_SIZE);
        if (!d->context->extradata) { MediaDecoderClose(d); return NULL; }
        memcpy(d->context->extradata, config, (size_t)configSize);
        d->context->extradata_size = configSize;
    }
    d->context->request_sample_fmt = AV_SAMPLE_FMT_FLT;
    if (ff_avcodec_open2(d->context, decoder, NULL) < 0) { MediaDecoderClose(d); return NULL; }
    return d;
}

MediaDecoder *MediaDecoderOpenStream(const MediaDemuxer *demuxer) {
    if (!MediaCodecsAvailable()) return NULL;
    if (!demuxer || demuxer->stream < 0) return NULL;
    const AVCodecParameters *p = demuxer->format->streams[demuxer->stream]->codecpar;
    const AVCodec *decoder = ff_avcodec_find_decoder(p->codec_id);
    int channels = p->ch_layout.nb_channels;
    if (!decoder || channels < 1 || channels > 64 || p->sample_rate < 1) return NULL;
    MediaDecoder *d = ff_av_mallocz(sizeof *d);
    if (!d) return NULL;
    d->context = ff_avcodec_alloc_context3(decoder);
    d->packet = ff_av_packet_alloc();
    d->frame = ff_av_frame_alloc();
    if (!d->context || !d->packet || !d->frame || ff_avcodec_parameters_to_context(d->context, p) < 0) {
        MediaDecoderClose(d);
        return NULL;
    }
    d->channels = channels;
    d->context->request_sample_fmt = AV_SAMPLE_FMT_FLT;
    if (ff_avcodec_open2(d->context, decoder, NULL) < 0) { MediaDecoderClose(d); return NULL; }
    return d;
}

int MediaDecoderSend(MediaDecoder *d, const uint8_t *data, int size) {
    if (!data || size <= 0) return ff_avcodec_send_packet(d->context, NULL) < 0 ? 0 : 0;
    // Not reference-counted: the decoder makes its own padded copy, so the caller's
    // bytes need no padding and are not copied twice.
    ff_av_packet_unref(d->packet);
    d->packet->data = (uint8_t *)data;
    d->packet->size = size;
    int result = ff_avcodec_send_packet(d->context, d->packet);
    d->packet->data = NULL;
    d->packet->size = 0;
    if (result == AVERROR(EAGAIN)) {
        // The decoder holds output not yet received: the caller drains before sending.
        return -2;
    }
    return result < 0 ? -1 : 0;
}

/* One channel of `count` frames from `from` (every `step` samples) into `out` (every
 * `stride` floats), in the frame's sample format. The format is looked at once per
 * call, not per sample: this loop is most of what decoding costs beyond the codec. */
static void convertChannel(enum AVSampleFormat format, const uint8_t *from, int first, int step, int count, float *out,
                           int stride) {
    switch (format) {
    case AV_SAMPLE_FMT_FLT: {
        const float *p = (const float *)from + (size_t)first * (size_t)step;
        for (int i = 0; i < count; i++) out[(size_t)i * (size_t)stride] = p[(size_t)i * (size_t)step];
        break;
    }
    case AV_SAMPLE_FMT_DBL: {
        const double *p = (const double *)from + (size_t)first * (size_t)step;
        for (int i = 0; i < count; i++) out[(size_t)i * (size_t)stride] = (float)p[(size_t)i * (size_t)step];
        break;
    }
    case AV_SAMPLE_FMT_S16: {
        const int16_t *p = (const int16_t *)from + (size_t)first * (size_t)step;
        for (int i = 0; i < count; i++) out[(size_t)i * (size_t)stride] = p[(size_t)i * (size_t)step] / 32768.0f;
        break;
    }
    case AV_SAMPLE_FMT_S32: {
        const int32_t *p = (const int32_t *)from + (size_t)first * (size_t)step;
        for (int i = 0; i < count; i++) out[(size_t)i * (size_t)stride] = (float)(p[(size_t)i * (size_t)step] / 2147483648.0);
        break;
    }
    case AV_SAMPLE_FMT_U8: {
        const uint8_t *p = from + (size_t)first * (size_t)step;
        for (int i = 0; i < count; i++) out[(size_t)i * (size_t)stride] = (p[(size_t)i * (size_t)step] - 128) / 128.0f;
        break;
    }
    default:
        for (int i = 0; i < count; i++) out[(size_t)i * (size_t)stride] = 0;
    }
}

int MediaDecoderReceive(MediaDecoder *d, float *out, int capacity) {
    int made = 0;
    while (made < capacity) {
        if (!d->pending) {
            ff_av_frame_unref(d->frame);
            int result = ff_avcodec_receive_frame(d->context, d->frame);
            if (result < 0) break; // EAGAIN (needs input), EOF or an error: nothing more now
            d->pending = 1;
            d->offset = 0;
        }
        // The caller's buffer holds the channels it opened the decoder with; a damaged
        // stream that changes its channel count mid-way must not write past it (its
        // extra channels are dropped, missing ones silent).
        int channels = d->frame->ch_layout.nb_channels;
        int want = d->channels;
        int take = d->frame->nb_samples - d->offset;
        if (take > capacity - made) take = capacity - made;
        int planar = ff_av_sample_fmt_is_planar(d->frame->format);
        enum AVSampleFormat format = ff_av_get_packed_sample_fmt(d->frame->format);
        float *base = out + (size_t)made * (size_t)want;
        for (int c = 0; c < want; c++) {
            if (c >= channels) {
                for (int i = 0; i < take; i++) base[(size_t)i * (size_t)want + (size_t)c] = 0;
            } else if (planar) {
                convertChannel(format, d->frame->extended_data[c], d->offset, 1, take, base + c, want);
            } else {
                // Interleaved: this channel's samples start `c` samples in, `channels` apart.
                int bytes = ff_av_get_bytes_per_sample(format);
                convertChannel(format, d->frame->extended_data[0] + (size_t)c * (size_t)bytes, d->offset, channels, take, base + c, want);
            }
        }
        made += take;
        d->offset += take;
        if (d->offset >= d->frame->nb_samples) d->pending = 0;
    }
    return made;
}

int MediaDecoderChannels(const MediaDecoder *d) { return d->channels; }
int MediaDecoderSampleRate(const MediaDecoder *d) { return d->context->sample_rate; }

void MediaDecoderReset(MediaDecoder *d) {
    ff_avcodec_flush_buffers(d->context);
    ff_av_frame_unref(d->frame);
    d->pending = 0;
    d->offset = 0;
}

void MediaDecoderClose(MediaDecoder *d) {
    if (!d) return;
    ff_avcodec_free_context(&d->context);
    ff_av_packet_free(&d->packet);
    ff_av_frame_free(&d->frame);
    ff_av_free(d);
}

// MARK: encoding

struct MediaEncoder {
    AVCodecContext *context;
    AVFrame *frame;
    AVPacket *packet;
    int ended;
    int padsLast; /* the codec takes whole packets only: a short last one is padded */
};

MediaEncoder *MediaEncoderOpen(MediaCodec codec, int sampleRate, int channels, int64_t bitRate, int bits) {
    if (!MediaCodecsAvailable()) return NULL;
    if (channels < 1 || channels > 8 || sampleRate < 8000 || sampleRate > (codec == MediaCodecAAC ? 96000 : 384000))
        return NULL;
    if (bits == 0) bits = 16;
    enum AVCodecID id;
    enum AVSampleFormat format;
    switch (codec) {
    case MediaCodecAAC: id = AV_CODEC_ID_AAC; format = AV_SAMPLE_FMT_FLTP; break;
    case MediaCodecALAC:
        if (bits != 16 && bits != 24) return NULL;
        id = AV_CODEC_ID_ALAC;
        format = bits == 16 ? AV_SAMPLE_FMT_S16P : AV_SAMPLE_FMT_S32P;
        break;
    case MediaCodecIMA4:
        if (channels > 2) return NULL; /* FFmpeg's encoder takes mono or stereo */
        id = AV_CODEC_ID_ADPCM_IMA_QT;
        format = AV_SAMPLE_FMT_S16P;
        break;
    default: return NULL;
    }
    const AVCodec *encoder = ff_avcodec_find_encoder(id);
    if (!encoder) return NULL;
    MediaEncoder *e = ff_av_mallocz(sizeof *e);
    if (!e) return NULL;
    e->context = ff_avcodec_alloc_context3(encoder);
    e->frame = ff_av_frame_alloc();
    e->packet = ff_av_packet_alloc();
    if (!e->context || !e->frame || !e->packet) { MediaEncoderClose(e); return NULL; }
    e->context->sample_rate = sampleRate;
    ff_av_channel_layout_default(&e->context->ch_layout, channels);
    e->context->sample_fmt = format;
    e->context->time_base = (AVRational){1, sampleRate};
    if (codec == MediaCodecAAC) {
        e->context->bit_rate = bitRate > 0 ? bitRate : 64000 * channels;
        // Global header: the configuration goes to extradata (the magic cookie), not ADTS.
        e->context->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    }
    if (codec == MediaCodecALAC) e->context->bits_per_raw_sample = bits;
    if (ff_avcodec_open2(e->context, encoder, NULL) < 0) { MediaEncoderClose(e); return NULL; }
    e->padsLast = !(encoder->capabilities & AV_CODEC_CAP_SMALL_LAST_FRAME);
    return e;
}

int MediaEncoderFrameSize(const MediaEncoder *e) { return e->context->frame_size; }
int MediaEncoderPriming(const MediaEncoder *e) { return e->context->initial_padding; }
int64_t MediaEncoderBitRate(const MediaEncoder *e) { return e->context->bit_rate; }

const uint8_t *MediaEncoderConfig(const MediaEncoder *e, int *outSize) {
    *outSize = e->context->extradata_size;
    return e->context->extradata;
}

/* A float sample as a signed integer of full scale `scale`, rounded, clipped. */
static int32_t scaled(float v, float scale) {
    float x = v * scale;
    x = x < -scale ? -scale : x > scale - 1 ? scale - 1 : x;
    return (int32_t)(x < 0 ? x - 0.5f : x + 0.5f);
}

int MediaEncoderSend(MediaEncoder *e, const float *interleaved, int frames) {
    if (!interleaved || frames <= 0) {
        if (e->ended) return 0;
        e->ended = 1;
        return ff_avcodec_send_frame(e->context, NULL) < 0 ? -1 : 0;
    }
    int channels = e->context->ch_layout.nb_channels;
    if (frames > e->context->frame_size) return -1;
    int size = e->padsLast ? e->context->frame_size : frames;
    ff_av_frame_unref(e->frame);
    e->frame->format = e->context->sample_fmt;
    e->frame->nb_samples = size;
    e->frame->sample_rate = e->context->sample_rate;
    if (ff_av_channel_layout_copy(&e->frame->ch_layout, &e->context->ch_layout) < 0) return -1;
    if (ff_av_frame_get_buffer(e->frame, 0) < 0) return -1;
    for (int c = 0; c < channels; c++) {
        void *plane = e->frame->extended_data[c];
        for (int i = 0; i < size; i++) {
            float v = i < frames ? interleaved[(size_t)i * (size_t)channels + (size_t)c] : 0;
            switch (e->context->sample_fmt) {
            case AV_SAMPLE_FMT_S16P: ((int16_t *)plane)[i] = (int16_t)scaled(v, 32768.0f); break;
            /* 24 bits, high-aligned in 32 as FFmpeg's ALAC encoder reads them */
            case AV_SAMPLE_FMT_S32P: ((int32_t *)plane)[i] = scaled(v, 8388608.0f) * 256; break;
            default: ((float *)plane)[i] = v; break;
            }
        }
    }
    return ff_avcodec_send_frame(e->context, e->frame) < 0 ? -1 : 0;
}

int MediaEncoderReceive(MediaEncoder *e, const uint8_t **data, int *size, int64_t *frames) {
    ff_av_packet_unref(e->packet);
    int result = ff_avcodec_receive_packet(e->context, e->packet);
    if (result == AVERROR(EAGAIN)) return 0;
    if (result < 0) return -1;
    *data = e->packet->data;
    *size = e->packet->size;
    *frames = e->packet->duration > 0 ? e->packet->duration : e->context->frame_size;
    return 1;
}

void MediaEncoderClose(MediaEncoder *e) {
    if (!e) return;
    ff_avcodec_free_context(&e->context);
    ff_av_frame_free(&e->frame);
    ff_av_packet_free(&e->packet);
    ff_av_free(e);
}

// MARK: multiplexing

struct MediaMuxer {
    AVFormatContext *format;
    AVStream *stream;
    AVPacket *packet;
    int64_t next;      // time stamp of the next packet, in frames
    int priming;
};

int MediaMuxerCreate(const char *path, const char *container, const MediaMuxerStream *s, MediaMuxer **outMuxer) {
    if (!MediaCodecsAvailable()) { *outMuxer = NULL; return -4; }
    *outMuxer = NULL;
    enum AVCodecID id = avCodecFor(s->codec, s->pcmBits, s->pcmFloat, s->pcmBigEndian);
    if (s->codec == MediaCodecPCM && s->pcmBits == 8) id = strcmp(container, "wav") == 0 ? AV_CODEC_ID_PCM_U8 : AV_CODEC_ID_PCM_S8;
    if (id == AV_CODEC_ID_NONE) return -1;
    MediaMuxer *m = ff_av_mallocz(sizeof *m);
    if (!m) return -3;
    if (ff_avformat_alloc_output_context2(&m->format, NULL, container, path) < 0 || !m->format) { ff_av_free(m); return -1; }
    m->packet = ff_av_packet_alloc();
    m->stream = ff_avformat_new_stream(m->format, NULL);
    if (!m->packet || !m->stream) { MediaMuxerAbandon(m); return -3; }
    AVCodecParameters *p = m->stream->codecpar;
    p->codec_type = AVMEDIA_TYPE_AUDIO;
    p->codec_id = id;
    p->sample_rate = s->sampleRate;
    ff_av_channel_layout_default(&p->ch_layout, s->channels);
    p->bit_rate = s->bitRate;
    p->frame_size = s->frameSize;
    p->initial_padding = s->priming;
    if (s->codec == MediaCodecPCM) {
        p->bits_per_coded_sample = s->pcmBits;
        p->block_align = s->pcmBits / 8 * s->channels;
    }
    if (s->config && s->configSize > 0) {
        p->extradata = ff_av_mallocz((size_t)s->configSize + AV_INPUT_BUFFER_PADDING_SIZE);
        if (!p->extradata) { MediaMuxerAbandon(m); return -3; }
        memcpy(p->extradata, s->config, (size_t)s->configSize);
        p->extradata_size = s->configSize;
    }
    m->stream->time_base = (AVRational){1, s->sampleRate};
    m->priming = s->priming;
    m->next = -s->priming;
    if (ff_avio_open(&m->format->pb, path, AVIO_FLAG_WRITE) < 0) { MediaMuxerAbandon(m); return -2; }
    if (ff_avformat_write_header(m->format, NULL) < 0) { MediaMuxerAbandon(m); return -1; }
    *outMuxer = m;
    return 0;
}

int MediaMuxerWrite(MediaMuxer *m, const uint8_t *data, int size, int64_t frames) {
    ff_av_packet_unref(m->packet);
    if (ff_av_new_packet(m->packet, size) < 0) return -3;
    memcpy(m->packet->data, data, (size_t)size);
    m->packet->stream_index = 0;
    m->packet->pts = m->packet->dts = m->next;
    m->packet->duration = frames;
    m->next += frames;
    ff_av_packet_rescale_ts(m->packet, (AVRational){1, m->stream->codecpar->sample_rate}, m->stream->time_base);
    return ff_av_write_frame(m->format, m->packet) < 0 ? -1 : 0;
}

int MediaMuxerFinish(MediaMuxer *m) {
    int result = ff_av_write_trailer(m->format) < 0 ? -1 : 0;
    if (ff_avio_closep(&m->format->pb) < 0) result = -1;
    ff_avformat_free_context(m->format);
    ff_av_packet_free(&m->packet);
    ff_av_free(m);
    return result;
}

void MediaMuxerAbandon(MediaMuxer *m) {
    if (!m) return;
    if (m->format) {
        if (m->format->pb) ff_avio_closep(&m->format->pb);
        ff_avformat_free_context(m->format);
    }
    ff_av_packet_free(&m->packet);
    ff_av_free(m);
}
