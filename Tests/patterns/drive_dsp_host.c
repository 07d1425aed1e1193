/*
 * Drives the DSP host (dsp_host.c): compiled against the iPhone SDK's switch
 * (AudioToolbox-ios: AudioUnitSampleType is 8.24 fixed point), the card's microphone (a
 * 440 Hz capture tone at half scale) comes out of the card through the host's gain of
 * one half; headphones plugged while it plays call its route listener and the sound
 * goes on.
 */
#include "patterns.h"
#include "dsp_host.h"
#include <math.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "dsp_host");
    CHECK(sizeof(AudioUnitSampleType) == 4 && kAudioFormatFlagsAudioUnitCanonical == 0xC2C,
          "the iPhone SDK's canonical format: 8.24 (flags %#x)", (unsigned)kAudioFormatFlagsAudioUnitCanonical);
    if (onALSA) {
        vcard("capture-signal tone 440 0.5");
        vcard("record-reset");
    }
    int started = dsp_start(0.5f);
    CHECK(started == 0, "the host starts (%s)", statusText(started));
    harnessAttach();
    const dsp_status *s = dsp_get_status();
    while (s->renders < 100) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(s->pull_errors == 0, "the render callback pulls the microphone (%d failures)", s->pull_errors);
    if (onALSA) {
        double hz = 0;
        long peak = 0, heard = cardHeard(&hz, &peak);
        printf("measured: play-through at the card: %ld frames, %.1f Hz, peak %ld\n", heard, hz, peak);
        CHECK(heard > 0 && fabs(hz - 440) < 5, "the microphone's 440 Hz comes out (%.1f Hz)", hz);
        CHECK(labs(peak - 8192) < 800, "through the gain of one half (peak %ld, expected about 8192)", peak);
    }
    int routeChanges = s->route_changes;
    plug("headphones");
    CHECK(s->route_changes == routeChanges + 1, "the host's route listener heard the headphones (%d)",
          s->route_changes);
    CHECK(s->hardware_rate > 0, "and read the hardware rate there (%.0f)", s->hardware_rate);
    long renders = s->renders;
    if (onALSA) vcard("record-reset");
    while (s->renders < renders + 50) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    if (onALSA) {
        /* The reopened stream reaches the card some periods after its first callbacks
         * (more under load): wait for it by callbacks, not by time, up to a bound. */
        double hz = 0;
        long peak = 0, heard = 0;
        for (long bound = s->renders + 2000; (heard = cardHeard(&hz, &peak)) < 4800 && s->renders < bound;) {
            long before = s->renders;
            while (s->renders < before + 50) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
        }
        CHECK(heard > 0 && fabs(hz - 440) < 5, "the sound goes on after the route change (%ld frames, %.1f Hz)", heard, hz);
    }
    unplug("headphones");
    dsp_stop();
    return finish("dsp_host");
}
