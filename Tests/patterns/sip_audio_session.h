/* The audio-session module of a SIP softphone (client side of the pattern test). */
#ifndef SIP_AUDIO_SESSION_H
#define SIP_AUDIO_SESSION_H
#include <AudioToolbox/AudioToolbox.h>

/* What the module noticed, kept for the call screen and its log. */
typedef struct sip_audio_status {
    int interruptions;          /* Begin callbacks */
    int resumes;                /* End callbacks */
    int call_on_hold;           /* held by an interruption */
    OSStatus resume_result;     /* reactivation on End */
    int route_changes;
    SInt32 last_reason;
    char old_route[64];         /* the legacy name under the OldRoute key */
    char previous_input[64], previous_output[64];
    char current_input[64], current_output[64];
    int mic_available;          /* last AudioInputAvailable value, -1 before any */
    int mic_changes;
    OSStatus category_result;   /* the last category set */
    OSStatus activate_result;   /* the last call start */
} sip_audio_status;

int sip_audio_init(void);
int sip_audio_start_call(void);
void sip_audio_end_call(void);
void sip_audio_shutdown(void);
const sip_audio_status *sip_audio_get_status(void);
#endif
