/* Offline rendering of a file through an output audio queue (client side of the
 * pattern test), written as Apple's AQOfflineRenderTest sample (aqofflinerender.cpp,
 * DoAQOfflineRender) writes it: the queue made with CFRunLoopGetCurrent() and
 * kCFRunLoopCommonModes — on a thread whose run loop nobody runs (the sample calls it
 * on a background thread) — one read buffer of about a second (CalculateBytesForTime),
 * the file's cookie and channel layout, AudioQueueSetOfflineRenderFormat with 16-bit
 * interleaved PCM at the file's rate and channels, a capture buffer of half the read
 * buffer, AudioQueueStart, AudioQueueOfflineRender for 0 frames, the read buffer primed
 * by calling the output callback, then AudioQueueOfflineRender for a capture buffer's
 * worth at a time, each result written to a WAVE file with ExtAudioFileWrite, until
 * the callback has met the end of the file (it calls AudioQueueFlush and
 * AudioQueueStop(queue, false) there and sets the flag the loop breaks on).
 *
 * Nothing turns the run loop, so the loop advances only because the queue calls the
 * output callback synchronously, inside AudioQueueOfflineRender, on the caller's
 * thread (our SPEC section 12).
 */
#ifndef AQ_OFFLINE_H
#define AQ_OFFLINE_H

/* Renders `source` into `destination` (16-bit WAVE). `buffers` 1 is the sample's own
 * order (the buffer primed after the start and the first render; the loop breaks as
 * soon as the callback has met the end); 3 primes three buffers before
 * AudioQueueStart, as players do, and, the other buffers still holding the rest when
 * the callback meets the end, the loop then goes on until the queue says it is no
 * longer running (Stop(false) done) or a render gives back fewer frames than asked, or
 * silence. The loop gives up after `max_frames`
 * frames of render requests (the sample has no such bound; the harness needs one).
 * Returns 0 when the loop reached the end of the source, 1 when it gave up, otherwise
 * the result code of the call that failed (aq_offline_failed_call names it). */
long aq_offline_render(const char *source, const char *destination, int buffers, long max_frames);
const char *aq_offline_failed_call(void);

/* What the last render saw (for the harness). */
/* The queue's calls of the output callback during the render loop, and of those the
 * ones made on another thread than the one rendering, or outside AudioQueueOfflineRender. */
long aq_offline_queue_callbacks(void);
long aq_offline_callbacks_on_other_threads(void);
long aq_offline_callbacks_outside_render(void);
/* Frames written to the destination; frames one read buffer holds; renders made. */
long aq_offline_frames_written(void);
long aq_offline_buffer_frames(void);
long aq_offline_renders(void);
/* The first failure of AudioFileReadPackets (0: none; the sample exits on one). */
long aq_offline_read_error(void);
#endif
