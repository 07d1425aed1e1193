/* Two looping sounds mixed by an AUGraph, as Apple's MixerHost sample builds it (client
 * side of the pattern test): each file read whole by ExtAudioFile into memory in the
 * units' canonical sample type, a RemoteIO node fed by a MultiChannelMixer node of two
 * buses with an input callback each that loops its sound, the buses' enable and gain
 * moved from the UI's thread, and the graph stopped in the interruption's Begin and
 * started again after its End. */
#ifndef MIXER_HOST_H
#define MIXER_HOST_H
typedef struct {
    volatile long frames[2];   /* frames each bus's callback gave */
    volatile int begins, ends;
    volatile int running_in_begin; /* AUGraphIsRunning in the Begin handler, after its stop */
    volatile int restart_status;   /* AUGraphStart's after End */
} mixer_host_state;

int mixer_host_load(const char *guitar, const char *beats); /* 0, or the failing call's status */
int mixer_host_start(void);                    /* 0, or the failing call's status */
int mixer_host_enable(int bus, int on);        /* kMultiChannelMixerParam_Enable */
int mixer_host_gain(int bus, float gain);      /* a bus's volume; bus -1 is the output's */
int mixer_host_running(void);
int mixer_host_stop(void);                     /* stopped, uninitialized and disposed of: 0 or a status */
mixer_host_state *mixer_host_status(void);
#endif
