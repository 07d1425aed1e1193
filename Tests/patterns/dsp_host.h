/* A DSP host (client side of the pattern test): the microphone played through a gain
 * stage to the output, in the iPhone's canonical 8.24 fixed-point non-interleaved
 * format, in PlayAndRecord, with a route listener that notes where the sound goes. */
#ifndef DSP_HOST_H
#define DSP_HOST_H
typedef struct {
    long renders;
    int pull_errors;        /* AudioUnitRender of the microphone failed in the render callback */
    int route_changes;
    double hardware_rate;   /* read again at each route change */
} dsp_status;

int dsp_start(float gain);  /* 0, or the failing call's status */
void dsp_stop(void);
const dsp_status *dsp_get_status(void);
#endif
