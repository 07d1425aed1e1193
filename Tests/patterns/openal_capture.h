/* OpenAL Soft's CoreAudio capture backend as it runs on iOS (client side of the pattern
 * test), with the alcCapture* entry points an app calls and the app's own session set-up.
 * Mono 16-bit; see openal_capture.c for the source followed. */
#ifndef OPENAL_CAPTURE_H
#define OPENAL_CAPTURE_H
#include <AudioToolbox/AudioToolbox.h>

#define OAC_MAX_CALLS 24

typedef struct {
    int calls; /* every AudioSession/AudioUnit call made, in order, with its result */
    const char *call[OAC_MAX_CALLS];
    OSStatus result[OAC_MAX_CALLS];
    const char *error;                  /* the backend_exception's text, NULL if none */
    AudioStreamBasicDescription hardware_format; /* element 1's input scope, after Initialize */
    AudioStreamBasicDescription output_format;   /* what was set on element 1's output scope */
    UInt32 max_frames_per_slice;
    int converting;                     /* the hardware's rate differs from the app's */
    volatile long record_calls, recorded_frames, dropped_frames, render_errors;
    volatile OSStatus first_render_error;
} oac_status;

int oac_app_session(void); /* the app: AudioSessionInitialize, PlayAndRecord, SetActive */

/* alcCaptureOpenDevice(name, frequency, AL_FORMAT_MONO16, buffersize): 0 or -1 (the
 * backend threw; oac_get_status()->error says why). */
int oac_capture_open(const char *name, unsigned frequency, unsigned buffersize);
int oac_capture_start(void);        /* alcCaptureStart */
void oac_capture_stop(void);        /* alcCaptureStop */
void oac_capture_close(void);       /* alcCaptureCloseDevice */
unsigned oac_capture_available(void); /* alcGetIntegerv(ALC_CAPTURE_SAMPLES) */
void oac_capture_samples(short *out, unsigned frames); /* alcCaptureSamples */
const oac_status *oac_get_status(void);
AudioUnit oac_capture_unit(void); /* for the driver's read-back */
#endif
