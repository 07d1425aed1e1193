/* A SIP client's sound device on the voice-processing I/O unit (client side of the
 * pattern test): 16 kHz mono both ways, the microphone pulled with AudioUnitRender from
 * the input callback, the far end played from the render callback; the unit stopped in
 * the interruption's Begin and started again after its End. */
#ifndef VOICE_UNIT_H
#define VOICE_UNIT_H

typedef struct {
    long captured_frames;   /* microphone frames received */
    long played_frames;     /* far-end frames rendered */
    long render_calls, input_calls;
    int render_errors;      /* AudioUnitRender failures in the input callback */
    int begins, ends;
    int restart_status;     /* AudioOutputUnitStart's result after End */
} voice_status;

int voice_open(void);       /* 0, or the failing call's status */
int voice_start(void);
void voice_stop(void);
void voice_close(void);
const voice_status *voice_get_status(void);
/* The last `count` captured samples (count at most 16000) into `out`; returns how many. */
long voice_copy_capture(short *out, long count);
#endif
