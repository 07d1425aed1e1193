/* A C face for the WebRTC audio processing library (Debian's
 * libwebrtc-audio-processing, 0.3), for VoiceProcessingIO: automatic gain control and a
 * high-pass filter on mono Float frames of 10 ms of what the unit records, its echo
 * already cancelled. */
#ifndef AT_VOICE_PROCESSING_H
#define AT_VOICE_PROCESSING_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct VoiceProcessor VoiceProcessor;

/* 1 once the WebRTC audio processing library is loaded (the first call loads it), 0
 * when it is not installed: VoiceProcessorCreate then returns NULL. */
int VoiceProcessingAvailable(void);

/* A processor for mono audio at `sampleRate` (8000, 16000, 32000, 44100 or 48000), gain
 * control as `automaticGain` says. NULL when the library refuses or is not installed. */
VoiceProcessor *VoiceProcessorCreate(int sampleRate, int automaticGain);
void VoiceProcessorDestroy(VoiceProcessor *processor);

/* The frames per call: 10 ms at the processor's rate. */
int VoiceProcessorFrameLength(const VoiceProcessor *processor);

/* Turns automatic gain control on or off (between frames). */
int VoiceProcessorSetAutomaticGain(VoiceProcessor *processor, int on);

/* Processes one frame of what was recorded (the near end, echo cancelled) in place.
 * 0 or the library's error. */
int VoiceProcessorNearEnd(VoiceProcessor *processor, float *frame);

#ifdef __cplusplus
}
#endif
#endif
