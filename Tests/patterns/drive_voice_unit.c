/*
 * Drives the SIP client's voice-processing sound device (voice_unit.c) through a call:
 * the far end's 600 Hz voice reaches the card from 16 kHz mono, the card's microphone
 * (a 440 Hz capture tone) arrives at 16 kHz mono through AudioUnitRender in the input
 * callback, a phone call stops the unit before the module's Begin handler runs (no
 * callback after it), and the module's own restart after End brings the audio back.
 */
#include "patterns.h"
#include "voice_unit.h"
#include <math.h>
#include <unistd.h>

static void awaitFrames(const voice_status *s, long captured)
{
    while (s->captured_frames < captured) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
}

int main(int argc, char **argv)
{
    harnessStart(argc, argv, "voice_unit");
    if (onALSA) {
        vcard("capture-signal tone 440 0.5");
        vcard("record-reset");
    }
    int opened = voice_open();
    CHECK(opened == 0, "the module opens its VoiceProcessingIO unit (%s)", statusText(opened));
    harnessAttach();
    const voice_status *s = voice_get_status();
    CHECK(voice_start() == 0, "the unit starts");
    awaitFrames(s, 16000 + 3200);
    CHECK(s->render_errors == 0, "AudioUnitRender in the input callback succeeds (%d failures)", s->render_errors);

    static short captured[16000];
    long got = voice_copy_capture(captured, 16000);
    long peak = 0;
    double hz = pitchOf(captured, got, 1, 16000, &peak);
    printf("measured: microphone at 16 kHz: %.1f Hz, peak %ld\n", hz, peak);
    if (onALSA) {
        CHECK(fabs(hz - 440) < 5 && peak > 3000, "the card's 440 Hz reaches the module (%.1f Hz, peak %ld)", hz, peak);
        double heardHz = 0;
        long heardPeak = 0, heard = cardHeard(&heardHz, &heardPeak);
        printf("measured: the far end at the card: %ld frames, %.1f Hz, peak %ld\n", heard, heardHz, heardPeak);
        CHECK(heard > 0 && fabs(heardHz - 600) < 6, "the far end's 600 Hz reaches the card (%.1f Hz)", heardHz);
    } else {
        CHECK(got == 16000 && peak == 0, "the virtual device's silent microphone arrives (%ld frames)", got);
    }

    /* A phone call: the module's Begin handler stops its unit, as SIP clients do. */
    phoneCall(1);
    while (s->begins < 1) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    long rendersAtBegin = s->render_calls, inputsAtBegin = s->input_calls;
    if (onALSA) vcard("record-reset");
    usleep(200000);
    CHECK(s->render_calls == rendersAtBegin && s->input_calls == inputsAtBegin,
          "no callback during the call (%ld/%ld then %ld/%ld)", rendersAtBegin, inputsAtBegin, s->render_calls,
          s->input_calls);
    if (onALSA) {
        double quietHz = 0;
        long quietPeak = 0;
        CHECK(cardHeard(&quietHz, &quietPeak) == 0, "nothing reaches the card during the call");
    }
    phoneCall(0);
    while (s->ends < 1) CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.01, true);
    CHECK(s->restart_status == 0, "the module restarts its unit after End (%s)", statusText(s->restart_status));
    long after = s->captured_frames;
    awaitFrames(s, after + 3200);
    CHECK(s->render_calls > rendersAtBegin, "the call's audio is back");
    voice_close();
    return finish("voice_unit");
}
