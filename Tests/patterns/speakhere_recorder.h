/* A voice recorder written as Apple's SpeakHere sample records (its AQRecorder class,
 * rewritten here in C): an input audio queue in AAC at the hardware's rate and channels,
 * a CAF file created from the queue's full format, the encoder's magic cookie copied to
 * the file before the first packet and again after the stop, three buffers of half a
 * second, each written with AudioFileWritePackets and enqueued again while recording. */
#ifndef SPEAKHERE_RECORDER_H
#define SPEAKHERE_RECORDER_H
#include <AudioToolbox/AudioToolbox.h>

/* Opens the session (PlayAndRecord) and starts recording into `path`; 0 on failure. */
int speakhere_record_start(const char *path);
/* Stops (Stop(true)), copies the cookie again, disposes of the queue, closes the file. */
void speakhere_record_stop(void);
/* What the recorder saw: packets written, callbacks, the last cookie copy's status. */
long speakhere_packets(void);
long speakhere_callbacks(void);
OSStatus speakhere_cookie_status_at_start(void);
OSStatus speakhere_cookie_status_at_stop(void);
/* The callbacks' start sample times and packet counts, in order (at most 256). */
int speakhere_buffer_count(void);
double speakhere_buffer_start(int index);
UInt32 speakhere_buffer_packets(int index);
#endif
