/* An audio file player on an output audio queue (client side of the pattern test),
 * written the way Apple's SpeakHere sample writes its AQPlayer class (AQPlayer.mm) and
 * the way Apple's command-line player aqplay drives one: the file opened with
 * AudioFileOpenURL, buffers sized for half a second from the packet size upper bound
 * (CalculateBytesForTime), three buffers with room for packet descriptions, the file's
 * magic cookie and channel layout handed to the queue, an IsRunning listener, the
 * buffers primed by calling the output callback itself, then AudioQueueStart. The
 * callback reads the next packets (AudioFileReadPacketData) and, at the end of the
 * file, calls AudioQueueStop(queue, false) and marks the player done — for a short file
 * that is while priming, before the start. The program then waits, as aqplay does,
 * until the queue's IsRunning reads 0: turning the run loop in 0.25 s slices when the
 * callbacks come on it (SpeakHere's CFRunLoopGetCurrent()), sleeping as long when they
 * come on the queue's own thread (a NULL run loop).
 *
 * The rule this leans on (the header's, our SPEC section 12): Stop(false) — also before
 * Start — stops only after every enqueued buffer has played; IsRunning then goes to 0
 * and its listeners are told; then AudioQueueDispose(queue, true).
 */
#ifndef AQ_PLAYER_H
#define AQ_PLAYER_H

/* The session as SpeakHere sets it up (MediaPlayback: this player only plays); 0 on
 * failure. */
int aq_player_init(void);
/* Opens the file and makes its queue; with use_run_loop the queue calls back on this
 * thread's run loop, otherwise on a thread of its own. Returns the first failing call's
 * result code (0: all went well). */
long aq_player_open(const char *path, int use_run_loop);
/* Primes the three buffers and starts the queue; AudioQueueStart's result. */
long aq_player_start(void);
/* Until the queue says it is no longer running (aqplay's loop). */
void aq_player_wait(void);
/* AudioQueueDispose(queue, true) and the file closed. */
void aq_player_dispose(void);

/* ---- what the player saw (for the harness) ------------------------------------------ */

/* IsRunning as its listener read it, one character per call ("10": started, stopped). */
const char *aq_player_running_changes(void);
/* How many buffers the queue had handed back when the listener read IsRunning 0 (-1:
 * it never did). */
long aq_player_returned_when_stopped(void);
/* The queue's IsRunning now. */
int aq_player_is_running(void);
/* Whether the end of the file (and so Stop(false)) came while priming, before Start. */
int aq_player_stopped_before_start(void);
/* Buffers the player enqueued and the queue gave back, in all and for buffer `i` (0-2);
 * enqueues the queue refused. */
long aq_player_enqueued(int i);
long aq_player_returned(int i);
long aq_player_enqueue_failures(void);
/* The queue's calls of the output callback on the thread that opened the player, and on
 * others. */
long aq_player_callbacks_on_opening_thread(void);
long aq_player_callbacks_elsewhere(void);
/* Packets read from the file, and how many it has. */
long aq_player_packets_read(void);
long aq_player_packets_in_file(void);
/* Whether the buffers carried packet descriptions (variable-rate data). */
int aq_player_is_vbr(void);
#endif
