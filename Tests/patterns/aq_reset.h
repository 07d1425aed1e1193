/* A looping file player on an output audio queue (client side of the pattern test),
 * written as Apple's SpeakHere sample writes its AQPlayer class (AQPlayer.mm) with
 * looping on (mIsLooping: at the end of the file it reads again from packet 0), as a
 * game loops its background music: three buffers of about half a second
 * (CalculateBytesForTime), primed by calling the output callback itself, and a callback
 * that reads the next packets and enqueues them whenever it is called — also when the
 * queue is handing its buffers back because the program stopped, reset or disposed of
 * it (SpeakHere's StopQueue sets mIsDone first; much code ported from it does not).
 * Stop, reset (a seek: reset, move the read position, prime again) and dispose are the
 * queue's own calls.
 *
 * The rules this leans on (the header's, our SPEC section 12): Stop(queue, true), Reset
 * and Dispose(queue, true) hand every pending buffer back through the callback DURING
 * the call, on a run loop that is not being run too; an enqueue from those callbacks
 * gets kAudioQueueErr_EnqueueDuringReset; after Reset the queue runs on; after Dispose
 * returns, no callback comes.
 */
#ifndef AQ_RESET_H
#define AQ_RESET_H

/* The session (SoloAmbient, as a game's); 0 on failure. */
int aq_reset_init(void);
/* Opens the file and makes its queue with three buffers; with use_run_loop the queue
 * calls back on this thread's run loop, otherwise on a thread of its own. The first
 * failing call's result code (0: all went well). */
long aq_reset_open(const char *path, int use_run_loop);
/* Fills and enqueues the three buffers by calling the callback (from the read position). */
void aq_reset_prime(void);
/* The queue's calls, their result codes. */
long aq_reset_start(void);
long aq_reset_stop(int immediate);
long aq_reset_reset(void);
long aq_reset_dispose(int immediate);
int aq_reset_is_running(void);

/* ---- what the player saw (for the harness) ------------------------------------------ */

/* Calls of the output callback made by the queue (not the player's priming ones). */
long aq_reset_callbacks(void);
/* The callback's enqueues (from the queue's calls and the priming ones): accepted,
 * refused with kAudioQueueErr_EnqueueDuringReset, refused with another code (the last
 * such code). */
long aq_reset_enqueues_accepted(void);
long aq_reset_enqueues_during_reset(void);
long aq_reset_enqueues_refused_otherwise(void);
long aq_reset_last_other_refusal(void);
#endif
