/* An emulator's sound output (client side of the pattern test): the emulated machine
 * writes 16-bit stereo frames into a ring buffer from its own thread; the RemoteIO
 * render callback pulls them, and plays silence when the ring runs dry. No session
 * calls at all, as emulators wrote it. */
#ifndef EMULATOR_AUDIO_H
#define EMULATOR_AUDIO_H
int emu_audio_init(int rate);          /* 0, or the failing call's status */
int emu_audio_write(const short *frames, int count);   /* frames taken (the ring may be full) */
long emu_audio_consumed(void);         /* frames the render callback took from the ring */
long emu_audio_underruns(void);        /* callbacks that found the ring short */
void emu_audio_shutdown(void);
#endif
