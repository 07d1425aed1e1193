/* libsamplerate, loaded on first use rather than linked, so that a program that never
 * converts a rate does not map it. The types and constants are libsamplerate's own. */
#ifndef AUDIOTOOLBOX_RESAMPLER_LIBRARY_H
#define AUDIOTOOLBOX_RESAMPLER_LIBRARY_H
#include <samplerate.h>

/* 1 once libsamplerate.so.0 is loaded (the first call loads it), 0 when it is not
 * installed: every call below then fails as libsamplerate's own would without memory
 * (NULL state, nonzero error). */
int ResamplerLibraryAvailable(void);

SRC_STATE *ResamplerNew(int converter, int channels, int *error);
SRC_STATE *ResamplerCallbackNew(src_callback_t callback, int converter, int channels, int *error, void *context);
int ResamplerProcess(SRC_STATE *state, SRC_DATA *data);
long ResamplerCallbackRead(SRC_STATE *state, double ratio, long frames, float *out);
int ResamplerReset(SRC_STATE *state);
void ResamplerDelete(SRC_STATE *state);
int ResamplerIsValidRatio(double ratio);

#endif
