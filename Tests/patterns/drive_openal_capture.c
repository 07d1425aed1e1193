/*
 * Drives OpenAL Soft's iOS CoreAudio capture backend (openal_capture.c) as an app's
 * alcCaptureOpenDevice / alcCaptureStart / alcCaptureSamples loop does: every call of
 * its open — the stream format set on element 1's output scope AFTER
 * AudioUnitInitialize, at the hardware's rate read back from element 1's input scope —
 * must return noErr, the format must read back, and the card's 440 Hz capture tone must
 * arrive (pitch, level, no clicks after the first 200 ms, nothing dropped), once at the
 * hardware's 44.1 kHz and once at 16 kHz through OpenAL's own rate conversion. On the
 * virtual device the microphone is silent: the tone checks are skipped, the calls and
 * the silence checked.
 */
#include "patterns.h"
#include "openal_capture.h"
#include <math.h>
#include <unistd.h>

#define TONE_HZ 440.0
#define SECONDS 2.5

static void run(unsigned frequency)
{
    static short captured[48000 * 4];
    char label[96];
    snprintf(label, sizeof label, "alcCaptureOpenDevice(NULL, %u, AL_FORMAT_MONO16, %u)", frequency, frequency / 2);
    alarm(30);
    int opened = oac_capture_open(NULL, frequency, frequency / 2);
    const oac_status *s = oac_get_status();
    CHECK(opened == 0, "%s: the backend opens (%s)", label, s->error ? s->error : "no error");
    for (int i = 0; i < s->calls; i++)
        CHECK(s->result[i] == noErr, "%s: %s returned %s", label, s->call[i], statusText(s->result[i]));
    if (opened != 0) return;

    Float64 sessionRate = 0;
    UInt32 size = sizeof sessionRate;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &sessionRate);
    printf("measured: %s: hardware format %.0f Hz %u ch, output format set %.0f Hz, MaximumFramesPerSlice %u, "
           "OpenAL converting: %s\n",
           label, s->hardware_format.mSampleRate, (unsigned)s->hardware_format.mChannelsPerFrame,
           s->output_format.mSampleRate, (unsigned)s->max_frames_per_slice, s->converting ? "yes" : "no");
    CHECK(s->hardware_format.mSampleRate == sessionRate, "%s: element 1's input scope is the hardware's rate (%.0f, "
          "session %.0f)", label, s->hardware_format.mSampleRate, sessionRate);

    /* The format set after AudioUnitInitialize is the unit's. */
    AudioStreamBasicDescription now;
    memset(&now, 0, sizeof now);
    size = sizeof now;
    CHECK_STATUS(AudioUnitGetProperty(oac_capture_unit(), kAudioUnitProperty_StreamFormat, kAudioUnitScope_Output, 1,
                                      &now, &size),
                 noErr);
    CHECK(now.mSampleRate == s->output_format.mSampleRate && now.mFormatFlags == s->output_format.mFormatFlags &&
              now.mBitsPerChannel == 16 && now.mChannelsPerFrame == 1 && now.mBytesPerFrame == 2,
          "%s: the format set after AudioUnitInitialize reads back (%.0f Hz, flags %#x, %u bits, %u ch)", label,
          now.mSampleRate, (unsigned)now.mFormatFlags, (unsigned)now.mBitsPerChannel, (unsigned)now.mChannelsPerFrame);
    int started = oac_capture_start();
    CHECK(started == 0, "%s: alcCaptureStart (%s)", label, s->error ? s->error : "no error");
    if (started != 0) {
        oac_capture_close();
        return;
    }
    long want = (long)(frequency * SECONDS), got = 0;
    while (got < want) {
        CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
        unsigned avail = oac_capture_available();
        if (avail > (unsigned)(want - got)) avail = (unsigned)(want - got);
        if (avail) {
            oac_capture_samples(captured + got, avail);
            got += avail;
        }
    }
    oac_capture_stop();
    oac_capture_close();
    for (int i = 0; i < s->calls; i++)
        if (strcmp(s->call[i], "AudioOutputUnitStop") == 0 || strcmp(s->call[i], "AudioComponentInstanceDispose") == 0)
            CHECK(s->result[i] == noErr, "%s: %s returned %s", label, s->call[i], statusText(s->result[i]));
    CHECK(s->render_errors == 0, "%s: AudioUnitRender in RecordProc succeeds (%ld failures, the first %s)", label,
          s->render_errors, statusText(s->first_render_error));
    CHECK(s->dropped_frames == 0, "%s: nothing dropped (%ld frames did not fit the ring)", label, s->dropped_frames);

    long skip = frequency / 5, peak = 0, worst = 0;
    double hz = pitchOf(captured + skip, got - skip, 1, frequency, &peak);
    if (!onALSA) {
        printf("SKIP %s: the capture tone [virtual device]: its microphone is silent\n", label);
        CHECK(peak == 0, "%s: the virtual device's silent microphone arrives (%ld frames, peak %ld)", label, got, peak);
        return;
    }
    long firstAt = -1;
    long clicks = toneClicks(captured, got, 1, frequency, TONE_HZ, (double)peak, skip, &worst, &firstAt);
    printf("measured: %s: %ld samples after 200 ms, %.1f Hz, peak %ld, largest step %ld, clicks %ld\n", label,
           got - skip, hz, peak, worst, clicks);
    CHECK(fabs(hz - TONE_HZ) < 3, "%s: the card's %.0f Hz arrives (%.1f Hz)", label, TONE_HZ, hz);
    CHECK(peak > 16384 * 0.9 && peak < 16384 * 1.1, "%s: at the card's level (peak %ld, expected about 16384)", label,
          peak);
    CHECK(clicks == 0, "%s: no clicks (%ld, largest step %ld)", label, clicks, worst);
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "openal_capture");
    if (onALSA) vcard("capture-signal tone 440 0.5");
    int session = oac_app_session();
    CHECK(session == 0, "the app's session records (%s)", statusText(session));
    harnessAttach();
    run(44100);
    run(16000);
    return finish("openal_capture");
}
