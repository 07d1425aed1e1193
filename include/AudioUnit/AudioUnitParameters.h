/*
 * AudioToolbox for Linux — <AudioUnit/AudioUnitParameters.h>.
 *
 * Parameter IDs of Apple's units, as the iPhone SDK (iOS 7) numbers them. The output units
 * have one, a volume.
 */
#ifndef __AudioUnitParameters
#define __AudioUnitParameters

/* Output units: the output volume, 0..1, global scope. */
enum { kHALOutputParam_Volume = 14 };

/* The multichannel mixer (for code that names them; the unit is not provided yet). */
enum {
    kMultiChannelMixerParam_Volume            = 0,
    kMultiChannelMixerParam_Enable            = 1,
    kMultiChannelMixerParam_Pan               = 2,
    kMultiChannelMixerParam_PreAveragePower   = 1000,
    kMultiChannelMixerParam_PrePeakHoldLevel  = 2000,
    kMultiChannelMixerParam_PostAveragePower  = 3000,
    kMultiChannelMixerParam_PostPeakHoldLevel = 4000
};

#endif /* __AudioUnitParameters */
