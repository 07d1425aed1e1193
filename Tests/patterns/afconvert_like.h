/* A file converter written as Apple's afconvert-style ExtAudioFile samples convert (the
 * "ConvertFile" routine of the iPhone ExtAudioFileConvert sample, rewritten here in C):
 * the source opened with ExtAudioFile and read in a linear PCM client format, the
 * destination created as AAC in an M4A, the same client format set on it, the encoder's
 * bit rate chosen through the file's own converter (kExtAudioFileProperty_AudioConverter,
 * kAudioConverterEncodeBitRate, then kExtAudioFileProperty_ConverterConfig), and the
 * audio copied in 32 KiB reads. */
#ifndef AFCONVERT_LIKE_H
#define AFCONVERT_LIKE_H
#include <AudioToolbox/AudioToolbox.h>

/* Converts `source` to AAC in an M4A at `bitRate` (0: the encoder's default). Returns the
 * first failing call's status, or noErr. */
OSStatus afconvert_to_aac(const char *source, const char *destination, UInt32 bitRate);
/* The bit rate the file's converter read back after it was set. */
UInt32 afconvert_bit_rate_read_back(void);
/* How many bit rates the converter offered (kAudioConverterApplicableEncodeBitRates). */
UInt32 afconvert_offered_bit_rates(void);
#endif
