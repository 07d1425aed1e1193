/*
 * Drives the offline renderer (aq_offline.c, Apple's AQOfflineRenderTest): a 2 s 440 Hz
 * tone made at run time as 16-bit WAVE (sox) and as AAC in M4A (ffmpeg) is rendered
 * through an output queue whose callbacks were given to a run loop nobody runs — in the
 * sample's order (one buffer, primed after the start), with three buffers primed before
 * the start, and on a background thread as the sample itself calls it.
 *
 * For each: the render loop reaches the end of the source (a cap on the frames asked
 * for turns "never" into a failure; the watchdog bounds the rest), every output callback
 * came inside AudioQueueOfflineRender on the rendering thread, the WAVE written (read
 * back with Extended Audio File) is the source's length within one read buffer and the
 * encoder's priming, is the tone at 440 Hz without a gap, and for the PCM source holds
 * exactly the source's samples. On the virtual ALSA card the card hears nothing: an
 * offline queue never opens a device.
 */
#include "patterns.h"
#include "aq_offline.h"
#include <pthread.h>
#include <unistd.h>

#define SOURCE_FRAMES 88200L /* 2 s at 44.1 kHz */
#define PRIMING_SLACK 2112L  /* an AAC encoder's priming and remainder, at most */

static char folder[] = "/tmp/aq-offline.XXXXXX";

static int run(const char *command)
{
    char full[1024];
    snprintf(full, sizeof full, "cd %s && %s >/dev/null 2>&1", folder, command);
    return system(full);
}

/* A file's frames as 16-bit interleaved stereo at its own rate (the caller frees them);
 * NULL when it cannot be read. */
static short *readPCM16(const char *path, long *frames)
{
    *frames = 0;
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(kCFAllocatorDefault, (const UInt8 *)path,
                                                           (CFIndex)strlen(path), false);
    ExtAudioFileRef file = NULL;
    OSStatus status = ExtAudioFileOpenURL(url, &file);
    CFRelease(url);
    CHECK(status == noErr, "ExtAudioFileOpenURL(%s) returned %s", path, statusText(status));
    if (status != noErr) return NULL;
    AudioStreamBasicDescription fileFormat, client;
    UInt32 size = sizeof fileFormat;
    CHECK_STATUS(ExtAudioFileGetProperty(file, kExtAudioFileProperty_FileDataFormat, &size, &fileFormat), noErr);
    memset(&client, 0, sizeof client);
    client.mSampleRate = fileFormat.mSampleRate;
    client.mFormatID = kAudioFormatLinearPCM;
    client.mFormatFlags = kLinearPCMFormatFlagIsSignedInteger | kLinearPCMFormatFlagIsPacked;
    client.mChannelsPerFrame = 2;
    client.mBitsPerChannel = 16;
    client.mBytesPerFrame = client.mBytesPerPacket = 4;
    client.mFramesPerPacket = 1;
    CHECK_STATUS(ExtAudioFileSetProperty(file, kExtAudioFileProperty_ClientDataFormat, sizeof client, &client), noErr);
    long capacity = 4 * SOURCE_FRAMES;
    short *samples = (short *)calloc((size_t)capacity * 2, sizeof(short));
    for (;;) {
        UInt32 want = 4096;
        if (*frames + want > capacity) break;
        AudioBufferList list;
        list.mNumberBuffers = 1;
        list.mBuffers[0].mNumberChannels = 2;
        list.mBuffers[0].mDataByteSize = want * 4;
        list.mBuffers[0].mData = samples + 2 * *frames;
        status = ExtAudioFileRead(file, &want, &list);
        CHECK(status == noErr, "ExtAudioFileRead(%s) returned %s", path, statusText(status));
        if (status != noErr || want == 0) break;
        *frames += want;
    }
    ExtAudioFileDispose(file);
    return samples;
}

typedef struct {
    const char *source;
    int buffers;
    long result;
} Render;

static void *renderInBackground(void *argument)
{
    Render *r = (Render *)argument;
    char source[256], destination[256];
    snprintf(source, sizeof source, "%s/%s", folder, r->source);
    snprintf(destination, sizeof destination, "%s/rendered.wav", folder);
    r->result = aq_offline_render(source, destination, r->buffers, 20 * SOURCE_FRAMES);
    return NULL;
}

static void renderCase(const char *sourceName, int buffers, int onBackgroundThread, int exactPCM)
{
    char label[128], destination[256], source[256];
    snprintf(label, sizeof label, "%s, %d buffer%s, %s", sourceName, buffers, buffers > 1 ? "s primed before the start" : "",
             onBackgroundThread ? "background thread" : "main thread");
    snprintf(destination, sizeof destination, "%s/rendered.wav", folder);
    snprintf(source, sizeof source, "%s/%s", folder, sourceName);
    watchdogName = label;
    alarm(20);
    if (onALSA) vcard("record-reset");

    Render r = {sourceName, buffers, -1};
    if (onBackgroundThread) {
        pthread_t thread;
        CHECK(pthread_create(&thread, NULL, renderInBackground, &r) == 0, "%s: the thread starts", label);
        pthread_join(thread, NULL);
    } else {
        renderInBackground(&r);
    }
    CHECK(r.result == 0, "%s: the render loop reached the end of the source (%s%s)", label,
          r.result == 1 ? "gave up after 20 times the source's frames: the callback never met the end" : "",
          r.result > 1 || r.result < 0 ? aq_offline_failed_call() : "");
    CHECK(aq_offline_read_error() == 0,
          "%s: AudioFileReadPackets never failed (first failure %s; the sample exits on one)", label,
          statusText((OSStatus)aq_offline_read_error()));
    CHECK(aq_offline_queue_callbacks() > 0, "%s: the queue called the output callback (%ld times)", label,
          aq_offline_queue_callbacks());
    CHECK(aq_offline_callbacks_on_other_threads() == 0,
          "%s: every callback ran on the thread calling AudioQueueOfflineRender (%ld of %ld elsewhere)", label,
          aq_offline_callbacks_on_other_threads(), aq_offline_queue_callbacks());
    CHECK(aq_offline_callbacks_outside_render() == 0,
          "%s: every callback came inside AudioQueueOfflineRender (%ld of %ld outside)", label,
          aq_offline_callbacks_outside_render(), aq_offline_queue_callbacks());
    if (r.result != 0) { alarm(0); return; }

    long frames = 0;
    short *s = readPCM16(destination, &frames);
    CHECK(frames == aq_offline_frames_written(), "%s: the WAVE holds the %ld frames written (reads %ld)", label,
          aq_offline_frames_written(), frames);
    long slack = aq_offline_buffer_frames() + PRIMING_SLACK;
    CHECK(labs(frames - SOURCE_FRAMES) <= slack, "%s: %ld frames rendered of the source's %ld (within %ld)", label,
          frames, SOURCE_FRAMES, slack);
    /* The tone: from its first sample above a quarter of full scale to its last (an AAC
     * decoder's priming output before it is quiet, not silent); inside it, a quiet run
     * longer than the one sample or two around a zero crossing is a gap. */
    long first = -1, last = -1, quiet = 0, longestQuiet = 0;
    for (long i = 0; s && i < frames; i++) if (abs(s[2 * i]) > 8192) { if (first < 0) first = i; last = i; }
    for (long i = first; first >= 0 && i <= last; i++) {
        quiet = abs(s[2 * i]) <= 64 ? quiet + 1 : 0;
        if (quiet > longestQuiet) longestQuiet = quiet;
    }
    double hz = 0;
    long peak = 0, loud = first < 0 ? 0 : last - first + 1;
    if (loud > 0) hz = pitchOf(s + 2 * (first + loud / 8), loud - loud / 4, 2, 44100, &peak);
    CHECK(hz > 435 && hz < 445, "%s: the rendered tone is %.1f Hz (peak %ld)", label, hz, peak);
    CHECK(peak > 0.4 * 32767 && peak < 0.6 * 32767, "%s: at the source's level (peak %ld of %ld)", label, peak,
          (long)(0.5 * 32767));
    CHECK(longestQuiet <= 3, "%s: no gap in the rendered tone (longest quiet run %ld frames)", label, longestQuiet);
    if (exactPCM) {
        long sourceFrames = 0, differ = 0;
        short *want = readPCM16(source, &sourceFrames);
        CHECK(sourceFrames == SOURCE_FRAMES, "%s: the source reads %ld frames", label, sourceFrames);
        long common = frames < sourceFrames ? frames : sourceFrames;
        for (long i = 0; want && s && i < 2 * common; i++) if (abs(s[i] - want[i]) > 1) differ++;
        CHECK(frames >= sourceFrames && differ == 0,
              "%s: the rendering holds the source's samples from its first frame (%ld of %ld differ, %ld frames)",
              label, differ, 2 * common, frames);
        for (long i = 2 * common; s && i < 2 * frames; i++) if (s[i] != 0) differ++;
        CHECK(differ == 0, "%s: and silence after them", label);
        free(want);
    }
    if (onALSA) {
        double heardHz = 0;
        long heardPeak = 0, heard = cardHeard(&heardHz, &heardPeak);
        CHECK(heard == 0, "%s: the card heard nothing (%ld frames): an offline queue opens no device", label, heard);
    }
    printf("%s: %ld renders, %ld callbacks, %ld frames written (source %ld, one buffer %ld), %.1f Hz, peak %ld, "
           "longest quiet %ld\n", label, aq_offline_renders(), aq_offline_queue_callbacks(), frames, SOURCE_FRAMES,
           aq_offline_buffer_frames(), hz, peak, longestQuiet);
    free(s);
    alarm(0);
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "aq offline");
    CHECK(mkdtemp(folder) != NULL, "a scratch folder");
    CHECK(run("sox -n -r 44100 -b 16 -c 2 tone.wav synth 2 sine 440 vol 0.5") == 0, "sox makes the tone (16-bit WAVE)");
    CHECK(run("ffmpeg -nostdin -y -i tone.wav -c:a aac -b:a 128k tone.m4a") == 0, "ffmpeg makes the tone in AAC");
    renderCase("tone.m4a", 1, 0, 0);
    renderCase("tone.wav", 1, 0, 1);
    renderCase("tone.m4a", 3, 0, 0);
    renderCase("tone.m4a", 1, 1, 0);
    renderCase("tone.wav", 3, 1, 1);
    watchdogName = "aq offline";
    char command[128];
    snprintf(command, sizeof command, "rm -rf %s", folder);
    CHECK(system(command) == 0, "scratch folder removed");
    return finish("aq offline");
}
