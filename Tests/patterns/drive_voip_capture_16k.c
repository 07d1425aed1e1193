/*
 * Drives the 16 kHz VoIP sound device (voip_capture_16k.c) in its three shapes while the
 * card's microphone hears a steady 440 Hz tone at half scale: mediastreamer2's input
 * callback, the same set-up pulling element 1 from the render callback (play-through),
 * and pjproject's RemoteIO input callback with mData NULL; the device at the session's
 * 44.1 kHz, and the play-through once more on a 48 kHz-only device. Every call the
 * clients make must return noErr. About 3 s of the captured 16 kHz samples are kept;
 * after the first 200 ms no step may exceed what the tone can move in one sample (plus a
 * margin) and no sample may be exactly 0 next to a large one: the clicks are counted and
 * must be 0, but for one per playback restart the card recorded (the link's designed skip
 * after running dry); the pitch must be 440 Hz. On the virtual device the microphone is silent:
 * the click count is skipped and the result codes (and the silence) are checked.
 */
#include "patterns.h"
#include "voip_capture_16k.h"
#include <math.h>
#include <unistd.h>

#define RATE 16000
#define TONE_HZ 440.0

static const char *variantName(int variant)
{
    switch (variant) {
    case VC_MS2_INPUT_CALLBACK: return "mediastreamer2 msiounit, input callback";
    case VC_MS2_RENDER_CALLBACK: return "msiounit set-up, AudioUnitRender from the render callback";
    default: return "pjproject coreaudio_dev, RemoteIO input callback (mData NULL)";
    }
}


static void run(int variant, double deviceRate)
{
    static int attached;
    static short captured[VC_CAPTURE_MAX];
    char label[160];
    snprintf(label, sizeof label, "%s (device %s)", variantName(variant), deviceRate == 48000 ? "48 kHz" : "44.1 kHz");
    alarm(30);
    watchdogName = variantName(variant);

    if (onALSA) {
        vcard(deviceRate == 48000 ? "rates 48000" : "rates 44100,48000");
        vcard("record-reset"); /* counts the playback's starts from here */
    } else if (attached) {
        Float64 rates[2] = {deviceRate, 48000};
        CHECK_STATUS(AudioSessionVirtualDeviceSetSampleRates(rates, deviceRate == 48000 ? 1 : 2), noErr);
    }
    int opened = vc_open(variant, RATE);
    if (!attached) {
        harnessAttach();
        attached = 1;
    }
    int started = opened == 0 ? vc_start() : -1;
    const vc_status *s = vc_get_status();
    CHECK(opened == 0 && started == 0, "%s: opens and starts (open %s, start %s)", label, statusText(opened),
          statusText(started));
    Float64 hwRate = 0;
    Float32 ioBuffer = 0;
    UInt32 size = sizeof hwRate;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareSampleRate, &size, &hwRate);
    size = sizeof ioBuffer;
    AudioSessionGetProperty(kAudioSessionProperty_CurrentHardwareIOBufferDuration, &size, &ioBuffer);

    if (started == 0) runUntil((volatile long *)&s->played_frames, (long)(RATE * 3.2));
    long played = s->played_frames;
    vc_close();

    /* Every call must return noErr, as the clients' own calls do on the phone. One of them
     * is mediastreamer2's SetInputCallback on the INPUT scope of element 0 (not the global
     * scope the property is documented for): msiounit has installed its capture callback
     * that way from 2012 to this day (msiounit.c, .m, .mm at HEAD), and Linphone records
     * on iOS through it, so the phone's I/O unit takes it. */
    for (int i = 0; i < s->calls; i++)
        CHECK(s->result[i] == noErr, "%s: %s returned %s, expected noErr (the client makes this call as shipped, "
              "logs a failure and goes on)", label, s->call[i], statusText(s->result[i]));
    printf("measured: %s: device %.0f Hz, IO buffer %.4f s, render callback %u..%u frames, %ld input callbacks, "
           "%ld frames played, %ld captured\n",
           label, hwRate, (double)ioBuffer, (unsigned)s->min_render_frames, (unsigned)s->max_render_frames,
           s->input_calls, played, s->captured_frames);
    CHECK(hwRate == deviceRate, "%s: the device runs at %.0f Hz, not the program's 16 kHz (%.0f)", label, deviceRate,
          hwRate);
    CHECK(s->render_errors == 0, "%s: AudioUnitRender succeeds (%ld failures, the first %s)", label, s->render_errors,
          statusText(s->first_render_error));
    CHECK(s->captured_frames >= played - 2 * 1024 && s->captured_frames <= played + 2 * 1024,
          "%s: the microphone keeps pace with the 16 kHz playback (%ld captured, %ld played)", label,
          s->captured_frames, played);

    long got = vc_copy_capture(captured, VC_CAPTURE_MAX);
    long skip = RATE / 5, peak = 0;
    if (got < skip + RATE) {
        CHECK(0, "%s: about 3 s captured (%ld frames)", label, got);
        return;
    }
    double hz = pitchOf(captured + skip, got - skip, 1, RATE, &peak);
    if (!onALSA) {
        printf("SKIP %s: click count [virtual device]: its microphone is silent, no tone to find clicks in\n", label);
        CHECK(peak == 0, "%s: the virtual device's silent microphone arrives (%ld frames, peak %ld)", label, got, peak);
        return;
    }
    long worst = 0, firstAt = -1, starts[64];
    /* Clicks within 2 ms of one another are one event: a step rings through the resampler. */
    long clicks = toneClickEvents(captured, got, 1, RATE, TONE_HZ, (double)peak, skip, RATE / 500, &worst, &firstAt);
    /* A playback that ran dry (a thread late on a loaded machine) starts again, and the
     * device link then skips the capture heard meanwhile, by design, so that the two
     * directions stay a buffer apart: one step per restart in the tone is that skip, not
     * a click made by the capture path. The card records every start. */
    int restarts = cardStarts(starts, 64) - 1;
    if (restarts < 0) restarts = 0;
    printf("measured: %s: %ld samples after 200 ms, %.1f Hz, peak %ld, largest step %ld (a sine's: %.0f), "
           "playback restarts %d, click events %ld%s",
           label, got - skip, hz, peak, worst, peak * 2 * M_PI * TONE_HZ / RATE, restarts, clicks,
           clicks ? " (first at " : "\n");
    if (clicks) {
        printf("%.3f s:", firstAt / (double)RATE);
        for (long i = firstAt - 3; i <= firstAt + 3; i++) if (i >= 0 && i < got) printf(" %d", captured[i]);
        printf(")\n");
    }
    CHECK(clicks <= restarts, "%s: no clicks in the captured tone but one per playback restart (%ld click events, %d restarts)",
          label, clicks, restarts);
    CHECK(fabs(hz - TONE_HZ) < 3, "%s: the card's %.0f Hz at 16 kHz (%.1f Hz)", label, TONE_HZ, hz);
    CHECK(peak > 3000, "%s: at a level (peak %ld)", label, peak);
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "voip_capture_16k");
    if (onALSA) vcard("capture-signal tone 440 0.5");
    run(VC_MS2_RENDER_CALLBACK, 44100);
    run(VC_MS2_INPUT_CALLBACK, 44100);
    run(VC_PJ_INPUT_CALLBACK, 44100);
    run(VC_MS2_RENDER_CALLBACK, 48000);
    return finish("voip_capture_16k");
}
