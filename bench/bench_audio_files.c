/*
 * The audio file services against the libraries they stand on, measured in the same run:
 *
 *   - decoding to interleaved Float32 stereo at 44.1 kHz: ExtAudioFileOpenURL with a
 *     Float32 client format, read in 4096-frame calls to the end, against FFmpeg's
 *     libavformat/libavcodec called directly (each decoded frame interleaved to Float32
 *     by hand into a reused buffer), for 60 s of AAC (.m4a), MP3, ALAC (.m4a) and 16-bit
 *     WAV made at the start with sox and ffmpeg. Each side opens, decodes everything and
 *     closes; the two alternate RUNS times and the best time of each counts. Reported as
 *     "x real time" (seconds of audio per second of wall time) and our / their ratio;
 *   - rate conversion of 60 s of Float32 stereo from 44.1 to 48 kHz: AudioConverter fed in
 *     4096-frame slices and drained in 4096-frame calls, against libsamplerate alone with
 *     the converter type ours uses (SRC_SINC_MEDIUM_QUALITY, FloatPipeline's default) and
 *     the same slices;
 *   - quality: THD+N of a 1 kHz sine (amplitude 0.5) taken from 44.1 to 48 kHz by ours, by
 *     libsamplerate alone and by libsoxr (very high quality): the 1 kHz component fitted
 *     by least squares over the middle of the output and removed; what is left, against
 *     the fitted sine, in dB.
 *
 * Timings are printed, never judged: the program exits 1 only when something is broken
 * (a tool or call fails, or the two sides' outputs differ in length beyond priming).
 *
 * Usage: bench_audio_files MEDIA_DIR   (a scratch folder the program fills; needs sox and
 * ffmpeg with libmp3lame on the PATH)
 */
#include <AudioToolbox/AudioToolbox.h>
#include "bench_common.h"
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <math.h>
#include <samplerate.h>
#include <soxr.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
    RATE_IN = 44100,
    RATE_OUT = 48000,
    CHANNELS = 2,
    CHUNK = 4096,            /* frames per read, per converter call, per input slice */
    RUNS = 5,                /* timed runs of each side, alternating */
    MEDIA_SECONDS = 60,
    SINE_SECONDS = 3,        /* the THD+N test tone */
    PRIMING_TOLERANCE = 5000 /* frames two decoders may differ by (priming, trimming) */
};

/* The converter's input procedure returns this with 0 packets once the input is used up. */
static const OSStatus kInputDone = 0x646F6E65; /* 'done' */

/* libsamplerate's converter type the services use (FloatPipeline's default quality). */
#define OUR_SRC_TYPE SRC_SINC_MEDIUM_QUALITY

static void fail(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    fprintf(stderr, "bench_audio_files: ");
    vfprintf(stderr, format, arguments);
    fprintf(stderr, "\n");
    va_end(arguments);
    exit(1);
}

static void *allocate(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) fail("out of memory (%zu bytes)", bytes);
    return p;
}

static double seconds(void) { return nowNanoseconds() / 1e9; }

static double minimum(const double *values, int count)
{
    double best = values[0];
    for (int i = 1; i < count; i++) if (values[i] < best) best = values[i];
    return best;
}

/* ---- the media ------------------------------------------------------------------------ */

typedef struct {
    const char *label;  /* as printed */
    const char *file;   /* name in MEDIA_DIR */
    const char *codec;  /* ffmpeg's arguments from the source WAV, NULL: the WAV itself */
    char path[4096];
} Medium;

static Medium media[] = {
    {"AAC (m4a)", "aac.m4a", "-c:a aac -b:a 256k", ""},
    {"MP3", "mp3.mp3", "-c:a libmp3lame -b:a 320k", ""},
    {"ALAC (m4a)", "alac.m4a", "-c:a alac", ""},
    {"PCM 16-bit (wav)", "source.wav", NULL, ""},
};
enum { MEDIA_COUNT = sizeof media / sizeof media[0] };

static void run(const char *command)
{
    int status = system(command);
    if (status != 0) fail("`%s` failed (status %d)", command, status);
}

/* A chord (440 Hz left, 660 Hz right) with a little pink noise, 16-bit stereo, and the
 * three encodings of it. */
static void makeMedia(const char *directory)
{
    if (strchr(directory, '\'')) fail("MEDIA_DIR must not contain a single quote");
    mkdir(directory, 0755);
    struct stat s;
    if (stat(directory, &s) != 0 || !S_ISDIR(s.st_mode)) fail("%s is not a folder", directory);
    for (int i = 0; i < MEDIA_COUNT; i++) snprintf(media[i].path, sizeof media[i].path, "%s/%s", directory, media[i].file);
    const char *source = media[MEDIA_COUNT - 1].path;
    char command[16384];
    snprintf(command, sizeof command,
             "sox -n -r %d -b 16 -c 2 '%s/tones.wav' synth %d sine 440 sine 660 vol 0.5 && "
             "sox -n -r %d -b 16 -c 2 '%s/noise.wav' synth %d pinknoise vol 0.05 && "
             "sox -m '%s/tones.wav' '%s/noise.wav' -b 16 '%s' && rm -f '%s/tones.wav' '%s/noise.wav'",
             RATE_IN, directory, MEDIA_SECONDS, RATE_IN, directory, MEDIA_SECONDS, directory, directory, source,
             directory, directory);
    run(command);
    for (int i = 0; i < MEDIA_COUNT; i++) {
        if (!media[i].codec) continue;
        snprintf(command, sizeof command, "ffmpeg -nostdin -loglevel error -y -i '%s' %s '%s'", source, media[i].codec,
                 media[i].path);
        run(command);
    }
}

/* ---- decoding --------------------------------------------------------------------------- */

typedef struct {
    long long frames;
    double sumSquares; /* over every sample, when asked for (the untimed check) */
} Decoded;

static double sumOfSquares(const float *samples, size_t count)
{
    double sum = 0;
    for (size_t i = 0; i < count; i++) sum += (double)samples[i] * samples[i];
    return sum;
}

/* Ours: the file through ExtAudioFile, read as Float32 interleaved stereo at 44.1 kHz. */
static Decoded decodeOurs(const char *path, float *buffer, int check)
{
    Decoded result = {0, 0};
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    if (!url) fail("CFURLCreateFromFileSystemRepresentation(%s) failed", path);
    ExtAudioFileRef file = NULL;
    OSStatus status = ExtAudioFileOpenURL(url, &file);
    CFRelease(url);
    if (status != noErr) fail("ExtAudioFileOpenURL(%s): %d", path, (int)status);
    AudioStreamBasicDescription client = {
        .mSampleRate = RATE_IN,
        .mFormatID = kAudioFormatLinearPCM,
        .mFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
        .mBytesPerPacket = 4 * CHANNELS,
        .mFramesPerPacket = 1,
        .mBytesPerFrame = 4 * CHANNELS,
        .mChannelsPerFrame = CHANNELS,
        .mBitsPerChannel = 32,
    };
    status = ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client);
    if (status != noErr) fail("ExtAudioFileSetProperty(ClientDataFormat) on %s: %d", path, (int)status);
    AudioBufferList list;
    list.mNumberBuffers = 1;
    for (;;) {
        UInt32 frames = CHUNK;
        list.mBuffers[0].mNumberChannels = CHANNELS;
        list.mBuffers[0].mDataByteSize = CHUNK * 4 * CHANNELS;
        list.mBuffers[0].mData = buffer;
        status = ExtAudioFileRead(file, &frames, &list);
        if (status != noErr) fail("ExtAudioFileRead(%s): %d", path, (int)status);
        if (frames == 0) break;
        result.frames += frames;
        if (check) result.sumSquares += sumOfSquares(buffer, (size_t)frames * CHANNELS);
    }
    status = ExtAudioFileDispose(file);
    if (status != noErr) fail("ExtAudioFileDispose(%s): %d", path, (int)status);
    return result;
}

/* The baseline's reused output buffer, grown to the largest decoded frame. */
typedef struct {
    float *samples;
    int frames;
} Interleaved;

/* One decoded frame as interleaved Float32 in `out`: by hand for the formats the four
 * decoders give (planar and packed float, 16- and 32-bit integers). */
static void interleave(const AVFrame *frame, Interleaved *out)
{
    int frames = frame->nb_samples, channels = frame->ch_layout.nb_channels;
    if (channels != CHANNELS) fail("FFmpeg decoded %d channels, not %d", channels, CHANNELS);
    if (frames > out->frames) {
        free(out->samples);
        out->samples = allocate((size_t)frames * CHANNELS * sizeof(float));
        out->frames = frames;
    }
    float *o = out->samples;
    switch ((enum AVSampleFormat)frame->format) {
    case AV_SAMPLE_FMT_FLT:
        memcpy(o, frame->extended_data[0], (size_t)frames * CHANNELS * sizeof(float));
        break;
    case AV_SAMPLE_FMT_FLTP: {
        const float *l = (const float *)frame->extended_data[0], *r = (const float *)frame->extended_data[1];
        for (int i = 0; i < frames; i++) { o[2 * i] = l[i]; o[2 * i + 1] = r[i]; }
        break;
    }
    case AV_SAMPLE_FMT_S16: {
        const int16_t *s = (const int16_t *)frame->extended_data[0];
        for (int i = 0; i < frames * CHANNELS; i++) o[i] = (float)s[i] * (1.0f / 32768.0f);
        break;
    }
    case AV_SAMPLE_FMT_S16P: {
        const int16_t *l = (const int16_t *)frame->extended_data[0], *r = (const int16_t *)frame->extended_data[1];
        for (int i = 0; i < frames; i++) {
            o[2 * i] = (float)l[i] * (1.0f / 32768.0f);
            o[2 * i + 1] = (float)r[i] * (1.0f / 32768.0f);
        }
        break;
    }
    case AV_SAMPLE_FMT_S32: {
        const int32_t *s = (const int32_t *)frame->extended_data[0];
        for (int i = 0; i < frames * CHANNELS; i++) o[i] = (float)s[i] * (1.0f / 2147483648.0f);
        break;
    }
    case AV_SAMPLE_FMT_S32P: {
        const int32_t *l = (const int32_t *)frame->extended_data[0], *r = (const int32_t *)frame->extended_data[1];
        for (int i = 0; i < frames; i++) {
            o[2 * i] = (float)l[i] * (1.0f / 2147483648.0f);
            o[2 * i + 1] = (float)r[i] * (1.0f / 2147483648.0f);
        }
        break;
    }
    default:
        fail("FFmpeg decoded an unexpected sample format: %s", av_get_sample_fmt_name(frame->format));
    }
}

/* Receives every frame the decoder has ready; returns when it needs input or has ended. */
static void drain(AVCodecContext *codec, AVFrame *frame, Interleaved *out, Decoded *result, int check)
{
    for (;;) {
        int r = avcodec_receive_frame(codec, frame);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
        if (r < 0) fail("avcodec_receive_frame: %s", av_err2str(r));
        interleave(frame, out);
        result->frames += frame->nb_samples;
        if (check) result->sumSquares += sumOfSquares(out->samples, (size_t)frame->nb_samples * CHANNELS);
        av_frame_unref(frame);
    }
}

/* The baseline: FFmpeg's demuxer and decoder called directly. */
static Decoded decodeFFmpeg(const char *path, Interleaved *out, int check)
{
    Decoded result = {0, 0};
    AVFormatContext *format = NULL;
    int r = avformat_open_input(&format, path, NULL, NULL);
    if (r < 0) fail("avformat_open_input(%s): %s", path, av_err2str(r));
    r = avformat_find_stream_info(format, NULL);
    if (r < 0) fail("avformat_find_stream_info(%s): %s", path, av_err2str(r));
    int stream = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
    if (stream < 0) fail("av_find_best_stream(%s): %s", path, av_err2str(stream));
    const AVCodecParameters *parameters = format->streams[stream]->codecpar;
    const AVCodec *decoder = avcodec_find_decoder(parameters->codec_id);
    if (!decoder) fail("no FFmpeg decoder for %s", path);
    AVCodecContext *codec = avcodec_alloc_context3(decoder);
    if (!codec) fail("avcodec_alloc_context3 failed");
    r = avcodec_parameters_to_context(codec, parameters);
    if (r < 0) fail("avcodec_parameters_to_context(%s): %s", path, av_err2str(r));
    r = avcodec_open2(codec, decoder, NULL);
    if (r < 0) fail("avcodec_open2(%s): %s", path, av_err2str(r));
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    if (!packet || !frame) fail("av_packet_alloc/av_frame_alloc failed");

    while ((r = av_read_frame(format, packet)) >= 0) {
        if (packet->stream_index == stream) {
            int sent = avcodec_send_packet(codec, packet);
            if (sent < 0) fail("avcodec_send_packet(%s): %s", path, av_err2str(sent));
            drain(codec, frame, out, &result, check);
        }
        av_packet_unref(packet);
    }
    if (r != AVERROR_EOF) fail("av_read_frame(%s): %s", path, av_err2str(r));
    r = avcodec_send_packet(codec, NULL);
    if (r < 0) fail("avcodec_send_packet(%s, end): %s", path, av_err2str(r));
    drain(codec, frame, out, &result, check);

    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&codec);
    avformat_close_input(&format);
    return result;
}

static void benchDecoding(void)
{
    float *buffer = allocate((size_t)CHUNK * CHANNELS * sizeof(float));
    Interleaved out = {NULL, 0};
    for (int m = 0; m < MEDIA_COUNT; m++) {
        const char *path = media[m].path;
        /* Untimed: both sides open and decode the file, and agree on what it holds. */
        Decoded ours = decodeOurs(path, buffer, 1), theirs = decodeFFmpeg(path, &out, 1);
        long long difference = llabs(ours.frames - theirs.frames);
        if (difference >= PRIMING_TOLERANCE)
            fail("%s: ExtAudioFile decoded %lld frames, FFmpeg %lld", media[m].label, ours.frames, theirs.frames);
        double oursRMS = sqrt(ours.sumSquares / (double)(ours.frames * CHANNELS));
        double theirsRMS = sqrt(theirs.sumSquares / (double)(theirs.frames * CHANNELS));
        if (fabs(oursRMS - theirsRMS) > 0.01 * theirsRMS)
            fail("%s: the decoded levels differ: RMS %.5f (ExtAudioFile) against %.5f (FFmpeg)", media[m].label, oursRMS,
                 theirsRMS);

        double oursTimes[RUNS], theirsTimes[RUNS];
        for (int i = 0; i < RUNS; i++) {
            double start = seconds();
            Decoded o = decodeOurs(path, buffer, 0);
            oursTimes[i] = seconds() - start;
            start = seconds();
            Decoded t = decodeFFmpeg(path, &out, 0);
            theirsTimes[i] = seconds() - start;
            if (o.frames != ours.frames || t.frames != theirs.frames) fail("%s: a run decoded another length", path);
        }
        double oursSpeed = (double)ours.frames / RATE_IN / minimum(oursTimes, RUNS);
        double theirsSpeed = (double)theirs.frames / RATE_IN / minimum(theirsTimes, RUNS);
        printf("ExtAudioFile decode %s: %.1fx real time; FFmpeg direct %.1fx; ratio %.2f (goal >= 0.9)\n", media[m].label,
               oursSpeed, theirsSpeed, oursSpeed / theirsSpeed);
        printf("    frames: ExtAudioFile %lld, FFmpeg %lld (difference %lld); RMS %.4f, %.4f; best of %d runs: "
               "%.1f ms, %.1f ms\n", ours.frames, theirs.frames, ours.frames - theirs.frames, oursRMS, theirsRMS, RUNS,
               minimum(oursTimes, RUNS) * 1e3, minimum(theirsTimes, RUNS) * 1e3);
        fflush(stdout);
    }
    free(out.samples);
    free(buffer);
}

/* ---- rate conversion -------------------------------------------------------------------- */

/* Interleaved stereo sines, amplitude 0.5, `left` Hz and `right` Hz at `rate`. */
static float *sines(long frames, double rate, double left, double right)
{
    float *samples = allocate((size_t)frames * CHANNELS * sizeof(float));
    for (long i = 0; i < frames; i++) {
        samples[2 * i] = (float)(0.5 * sin(2 * M_PI * left * (double)i / rate));
        samples[2 * i + 1] = (float)(0.5 * sin(2 * M_PI * right * (double)i / rate));
    }
    return samples;
}

/* Converted output: where it goes when kept (NULL: counted only) and how much fits. */
typedef struct {
    float *samples;
    long capacity; /* frames */
    long frames;
} Output;

static void keep(Output *out, const float *samples, long frames)
{
    if (out->samples) {
        if (out->frames + frames > out->capacity) fail("converted output overflows its buffer");
        memcpy(out->samples + out->frames * CHANNELS, samples, (size_t)frames * CHANNELS * sizeof(float));
    }
    out->frames += frames;
}

/* The input procedure's state: the whole input, handed out CHUNK frames at a time. */
typedef struct {
    const float *samples;
    long frames, next;
} Feed;

static OSStatus feedSlices(AudioConverterRef converter, UInt32 *ioPackets, AudioBufferList *data,
                           AudioStreamPacketDescription **descriptions, void *context)
{
    (void)converter;
    (void)descriptions;
    Feed *feed = context;
    long left = feed->frames - feed->next;
    if (left <= 0) {
        *ioPackets = 0;
        return kInputDone;
    }
    long slice = left < CHUNK ? left : CHUNK;
    data->mBuffers[0].mNumberChannels = CHANNELS;
    data->mBuffers[0].mDataByteSize = (UInt32)(slice * CHANNELS * (long)sizeof(float));
    data->mBuffers[0].mData = (void *)(feed->samples + feed->next * CHANNELS);
    *ioPackets = (UInt32)slice;
    feed->next += slice;
    return noErr;
}

static AudioStreamBasicDescription floatStereo(double rate)
{
    AudioStreamBasicDescription d = {
        .mSampleRate = rate,
        .mFormatID = kAudioFormatLinearPCM,
        .mFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
        .mBytesPerPacket = 4 * CHANNELS,
        .mFramesPerPacket = 1,
        .mBytesPerFrame = 4 * CHANNELS,
        .mChannelsPerFrame = CHANNELS,
        .mBitsPerChannel = 32,
    };
    return d;
}

/* Ours: AudioConverter from 44.1 to 48 kHz, drained in CHUNK-frame calls. */
static void convertOurs(const float *input, long frames, float *scratch, Output *out)
{
    AudioStreamBasicDescription from = floatStereo(RATE_IN), to = floatStereo(RATE_OUT);
    AudioConverterRef converter = NULL;
    OSStatus status = AudioConverterNew(&from, &to, &converter);
    if (status != noErr) fail("AudioConverterNew: %d", (int)status);
    Feed feed = {input, frames, 0};
    AudioBufferList list;
    list.mNumberBuffers = 1;
    for (;;) {
        UInt32 packets = CHUNK;
        list.mBuffers[0].mNumberChannels = CHANNELS;
        list.mBuffers[0].mDataByteSize = CHUNK * CHANNELS * sizeof(float);
        list.mBuffers[0].mData = scratch;
        status = AudioConverterFillComplexBuffer(converter, feedSlices, &feed, &packets, &list, NULL);
        if (status != noErr && status != kInputDone) fail("AudioConverterFillComplexBuffer: %d", (int)status);
        if (packets == 0) break;
        keep(out, scratch, packets);
    }
    status = AudioConverterDispose(converter);
    if (status != noErr) fail("AudioConverterDispose: %d", (int)status);
}

/* The baseline: libsamplerate with our converter type, fed the same slices, drained into
 * CHUNK frames at a time, the end of the input told once the last slice is used. */
static void convertLibsamplerate(const float *input, long frames, float *scratch, Output *out)
{
    int error = 0;
    SRC_STATE *state = src_new(OUR_SRC_TYPE, CHANNELS, &error);
    if (!state) fail("src_new: %s", src_strerror(error));
    long next = 0, sliceLeft = 0;
    const float *slice = input;
    int ended = 0;
    for (;;) {
        if (sliceLeft == 0 && !ended) {
            if (next < frames) {
                slice = input + next * CHANNELS;
                sliceLeft = frames - next < CHUNK ? frames - next : CHUNK;
                next += sliceLeft;
            } else {
                ended = 1;
            }
        }
        SRC_DATA data = {
            .data_in = slice,
            .data_out = scratch,
            .input_frames = sliceLeft,
            .output_frames = CHUNK,
            .end_of_input = ended,
            .src_ratio = (double)RATE_OUT / RATE_IN,
        };
        error = src_process(state, &data);
        if (error) fail("src_process: %s", src_strerror(error));
        slice += data.input_frames_used * CHANNELS;
        sliceLeft -= data.input_frames_used;
        keep(out, scratch, data.output_frames_gen);
        if (ended && data.output_frames_gen == 0) break;
    }
    src_delete(state);
}

/* libsoxr in one call, very high quality, Float32 interleaved in and out. */
static void convertSoxr(const float *input, long frames, Output *out)
{
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_quality_spec_t quality = soxr_quality_spec(SOXR_VHQ, 0);
    size_t used = 0, made = 0;
    soxr_error_t error = soxr_oneshot(RATE_IN, RATE_OUT, CHANNELS, input, (size_t)frames, &used, out->samples,
                                      (size_t)out->capacity, &made, &io, &quality, NULL);
    if (error) fail("soxr_oneshot: %s", error);
    if ((long)used != frames) fail("soxr_oneshot used %zu of %ld frames", used, frames);
    out->frames = (long)made;
}

static long expectedFrames(long frames) { return (long)((double)frames * RATE_OUT / RATE_IN + 0.5); }

static void benchConversion(void)
{
    long frames = (long)MEDIA_SECONDS * RATE_IN;
    float *input = sines(frames, RATE_IN, 440, 660);
    float *scratch = allocate((size_t)CHUNK * CHANNELS * sizeof(float));
    double oursTimes[RUNS], theirsTimes[RUNS];
    long oursFrames = 0, theirsFrames = 0;
    for (int i = 0; i < RUNS; i++) {
        Output ours = {NULL, 0, 0}, theirs = {NULL, 0, 0};
        double start = seconds();
        convertOurs(input, frames, scratch, &ours);
        oursTimes[i] = seconds() - start;
        start = seconds();
        convertLibsamplerate(input, frames, scratch, &theirs);
        theirsTimes[i] = seconds() - start;
        oursFrames = ours.frames;
        theirsFrames = theirs.frames;
    }
    long expected = expectedFrames(frames);
    /* A resampler's latency (tens of frames) may be left unflushed; more is broken. */
    if (labs(oursFrames - expected) > CHUNK || labs(theirsFrames - expected) > CHUNK)
        fail("rate conversion lengths: AudioConverter %ld frames, libsamplerate %ld, expected %ld", oursFrames,
             theirsFrames, expected);
    double oursSpeed = MEDIA_SECONDS / minimum(oursTimes, RUNS);
    double theirsSpeed = MEDIA_SECONDS / minimum(theirsTimes, RUNS);
    printf("AudioConverter 44.1->48 kHz: %.1fx real time; libsamplerate alone %.1fx; ratio %.2f (goal >= 0.9)\n",
           oursSpeed, theirsSpeed, oursSpeed / theirsSpeed);
    printf("    frames out: AudioConverter %ld, libsamplerate %ld (60 s at 48 kHz: %ld); converter type %s; best of %d "
           "runs: %.1f ms, %.1f ms\n", oursFrames, theirsFrames, expected, src_get_name(OUR_SRC_TYPE), RUNS,
           minimum(oursTimes, RUNS) * 1e3, minimum(theirsTimes, RUNS) * 1e3);
    if (oursFrames != theirsFrames)
        printf("    (AudioConverter's input ends with the 'done' error, not noErr with 0 packets: %ld frames fewer, "
               "the resampler's buffered frames and tail not drained)\n", theirsFrames - oursFrames);
    fflush(stdout);
    free(scratch);
    free(input);
}

/* ---- quality ------------------------------------------------------------------------------ */

/* THD+N of channel 0 of `out` (a 1 kHz sine at 48 kHz): least squares with sin and cos at
 * exactly 1 kHz over the middle (half a second skipped at each end), the fit removed; the
 * residual's power against the fit's, in dB. */
static double thdPlusNoise(const Output *out)
{
    long skip = RATE_OUT / 2, first = skip, last = out->frames - skip;
    if (last - first < RATE_OUT) fail("too little converted output to measure (%ld frames)", out->frames);
    double ss = 0, cc = 0, sc = 0, xs = 0, xc = 0;
    for (long i = first; i < last; i++) {
        double phase = 2 * M_PI * 1000.0 * (double)i / RATE_OUT, s = sin(phase), c = cos(phase);
        double x = out->samples[i * CHANNELS];
        ss += s * s; cc += c * c; sc += s * c; xs += x * s; xc += x * c;
    }
    double determinant = ss * cc - sc * sc;
    double a = (xs * cc - xc * sc) / determinant, b = (xc * ss - xs * sc) / determinant;
    double signal = 0, residual = 0;
    for (long i = first; i < last; i++) {
        double phase = 2 * M_PI * 1000.0 * (double)i / RATE_OUT;
        double fit = a * sin(phase) + b * cos(phase), x = out->samples[i * CHANNELS];
        signal += fit * fit;
        residual += (x - fit) * (x - fit);
    }
    if (signal <= 0) fail("no 1 kHz component in the converted output");
    return 10 * log10(residual / signal);
}

static void benchQuality(void)
{
    long frames = (long)SINE_SECONDS * RATE_IN;
    float *input = sines(frames, RATE_IN, 1000, 1000);
    float *scratch = allocate((size_t)CHUNK * CHANNELS * sizeof(float));
    long capacity = expectedFrames(frames) + 2 * CHUNK;
    Output ours = {allocate((size_t)capacity * CHANNELS * sizeof(float)), capacity, 0};
    Output src = {allocate((size_t)capacity * CHANNELS * sizeof(float)), capacity, 0};
    Output soxr = {allocate((size_t)capacity * CHANNELS * sizeof(float)), capacity, 0};
    convertOurs(input, frames, scratch, &ours);
    convertLibsamplerate(input, frames, scratch, &src);
    convertSoxr(input, frames, &soxr);
    printf("THD+N 1 kHz 44.1->48 kHz: AudioConverter %.1f dB, libsamplerate %.1f dB, libsoxr %.1f dB\n",
           thdPlusNoise(&ours), thdPlusNoise(&src), thdPlusNoise(&soxr));
    printf("    (amplitude 0.5, %d s, Float32; libsamplerate %s, libsoxr very high quality; frames out %ld, %ld, %ld)\n",
           SINE_SECONDS, src_get_name(OUR_SRC_TYPE), ours.frames, src.frames, soxr.frames);
    free(soxr.samples);
    free(src.samples);
    free(ours.samples);
    free(scratch);
    free(input);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MEDIA_DIR\n", argv[0]);
        return 2;
    }
    av_log_set_level(AV_LOG_ERROR);
    double start = seconds();
    makeMedia(argv[1]);
    printf("media: 60 s stereo 44.1 kHz (chord and pink noise) made in %.1f s in %s\n", seconds() - start, argv[1]);
    fflush(stdout);
    benchDecoding();
    benchConversion();
    benchQuality();
    printf("total %.1f s\n", seconds() - start);
    return 0;
}
