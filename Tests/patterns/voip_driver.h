/* An old VoIP program's iPhone audio driver (client side of the pattern test). */
#ifndef VOIP_DRIVER_H
#define VOIP_DRIVER_H
#include <AudioToolbox/AudioToolbox.h>

/* What the driver found and did, shown on its "audio info" screen. */
struct voip_audio_info {
    Float32 input_latency, output_latency, io_buffer, output_volume;
    char route[64];               /* the route name the last decision was made on */
    int loudspeaker;              /* the driver asked for the speaker */
    OSStatus category_err, override_err, bluetooth_err, activate_err;
    int running;                  /* the stream */
    int begin_count, end_count;
    OSStatus deactivate_in_begin_err, type_err, reactivate_err;
    UInt32 end_type;
};

/* Opens the device the way release 1 did: route tweaks first, then the category. */
int voip_driver_open_v1(void);
/* Opens the device with the category set first. */
int voip_driver_open(void);
void voip_driver_close(void);
const struct voip_audio_info *voip_driver_info(void);
#endif
