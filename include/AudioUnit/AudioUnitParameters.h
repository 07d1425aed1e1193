/*
 * AudioToolbox for Linux — <AudioUnit/AudioUnitParameters.h>.
 *
 * Parameter IDs of Apple's units, as the iPhone SDK (iOS 7) numbers them: the output
 * units' volume, the multichannel mixer's, Varispeed's and the effects' provided so far
 * (the low-pass and high-pass filters).
 */
#ifndef __AudioUnitParameters
#define __AudioUnitParameters

/* Output units: the output volume, 0..1, global scope. */
enum { kHALOutputParam_Volume = 14 };

/* The multichannel mixer: per input bus (input scope) volume 0..1, enable 0/1 and pan
 * -1..1; the output's volume (output scope, element 0); and, with metering on
 * (kAudioUnitProperty_MeteringMode), read-only levels in dB before and after the gains. */
enum {
    kMultiChannelMixerParam_Volume            = 0,
    kMultiChannelMixerParam_Enable            = 1,
    kMultiChannelMixerParam_Pan               = 2,
    kMultiChannelMixerParam_PreAveragePower   = 1000,
    kMultiChannelMixerParam_PrePeakHoldLevel  = 2000,
    kMultiChannelMixerParam_PostAveragePower  = 3000,
    kMultiChannelMixerParam_PostPeakHoldLevel = 4000
};

/* Varispeed, global scope: the rate (0.25..4, 1 is as recorded) and the same change in
 * cents (-2400..2400); setting one moves the other. */
enum {
    kVarispeedParam_PlaybackRate  = 0,
    kVarispeedParam_PlaybackCents = 1
};

/* The resonant low-pass filter (kAudioUnitSubType_LowPassFilter), global scope: the
 * cutoff in Hz (10 to half the sample rate, 6900 at first) and the resonance in dB (-20
 * to 40, 0 at first), which is the filter's gain at the cutoff. */
enum {
    kLowPassParam_CutoffFrequency = 0,
    kLowPassParam_Resonance       = 1
};

/* The resonant high-pass filter (kAudioUnitSubType_HighPassFilter): the same two
 * parameters, ranges and first values. */
enum {
    kHipassParam_CutoffFrequency = 0,
    kHipassParam_Resonance       = 1
};

#endif /* __AudioUnitParameters */
