/* A streaming radio player (client side of the pattern test), written as iPhone
 * streamers of the AudioStreamer kind were: Audio File Stream parses the bytes a network
 * thread hands it, the packets go into three audio queue buffers, the network thread
 * waits on a condition for a free buffer, the queue calls back on its own thread (NULL
 * run loop), and the session's interruption listener pauses in Begin and starts the
 * queue again after End. */
#ifndef RADIO_PLAYER_H
#define RADIO_PLAYER_H

/* Initialises the session (MediaPlayback) and the stream parser; 0 on failure. */
int radio_player_init(void);
/* The network thread's call: the next bytes of the stream. May wait for a free buffer. */
void radio_player_bytes(const void *data, unsigned long size);
/* The stream ended: what is buffered is enqueued and the queue stops after it. */
void radio_player_end(void);
/* What the player saw: buffers played, IsRunning changes (1 then 0 ...), Begin and End. */
long radio_player_buffers(void);
const char *radio_player_running_changes(void);
int radio_player_begins(void);
int radio_player_ends(void);
/* The queue's IsRunning now. */
int radio_player_is_running(void);
void radio_player_shutdown(void);
#endif
