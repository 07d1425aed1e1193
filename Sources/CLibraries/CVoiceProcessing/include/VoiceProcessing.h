/* A C face for the WebRTC audio processing library (Debian's
 * libwebrtc-audio-processing, 0.3), for VoiceProcessingIO: echo cancellation against
 * what the unit plays, and automatic gain control, on mono Float frames of 10 ms. */
#ifndef AT_VOICE_PROCESSING_H
#define AT_VOICE_PROCESSING_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct VoiceProcessor VoiceProcessor;

/* A processor for mono audio at `sampleRate` (8000, 16000, 32000, 44100 or 48000), echo
 * cancellation on, gain control as `automaticGain` says. NULL when the library refuses. */
VoiceProcessor *VoiceProcessorCreate(int sampleRate, int automaticGain);
void VoiceProcessorDestroy(VoiceProcessor *processor);

/* The frames per call: 10 ms at the processor's rate. */
int VoiceProcessorFrameLength(const VoiceProcessor *processor);

/* Turns automatic gain control on or off (between frames). */
int VoiceProcessorSetAutomaticGain(VoiceProcessor *processor, int on);

/* Tells the processor one frame of what is played (the far end). 0 or the library's error. */
int VoiceProcessorFarEnd(VoiceProcessor *processor, const float *frame);

/* Processes one frame of what was recorded (the near end) in place; `delayMilliseconds`
 * is the time between a frame given to VoiceProcessorFarEnd and its echo arriving here. */
int VoiceProcessorNearEnd(VoiceProcessor *processor, float *frame, int delayMilliseconds);

#ifdef __cplusplus
}
#endif
#endif
