/* A VoIP stack's 16 kHz iPhone sound device (client side of the pattern test), in three
 * shapes: mediastreamer2's msiounit (VoiceProcessingIO, the microphone pulled in the
 * input callback), the same unit set up the same way but the microphone pulled from the
 * render callback (play-through), and pjproject's coreaudio_dev (RemoteIO, the input
 * callback rendering with mData NULL). Program format 16 kHz mono SInt16 on element 1's
 * output and element 0's input; the device runs at the session's rate. */
#ifndef VOIP_CAPTURE_16K_H
#define VOIP_CAPTURE_16K_H
#include <AudioToolbox/AudioToolbox.h>

enum { VC_MS2_INPUT_CALLBACK = 0, VC_MS2_RENDER_CALLBACK = 1, VC_PJ_INPUT_CALLBACK = 2 };

#define VC_MAX_CALLS 48
#define VC_CAPTURE_MAX (16000 * 6)

typedef struct {
    /* every AudioSession/AudioUnit call the module made, in order, with its result (what
     * the clients log with check_au_unit_result / PJ_LOG and go on) */
    int calls;
    const char *call[VC_MAX_CALLS];
    OSStatus result[VC_MAX_CALLS];
    volatile long render_calls, input_calls;
    volatile long played_frames, captured_frames;
    volatile long render_errors;  /* AudioUnitRender failures */
    volatile OSStatus first_render_error;
    volatile long lost_frames;    /* silence played for want of far-end audio */
    volatile UInt32 min_render_frames, max_render_frames;
    Float64 hardware_rate;        /* as msiounit reads it before AudioOutputUnitStart */
    Float32 io_buffer;
    Float64 unit_latency;
    UInt32 render_quality;
} vc_status;

int vc_open(int variant, int clock_rate); /* 0, or the status that made the client give up */
int vc_start(void);
void vc_close(void);
const vc_status *vc_get_status(void);
/* Every captured sample so far (at most VC_CAPTURE_MAX), oldest first; returns how many. */
long vc_copy_capture(short *out, long max);
#endif
