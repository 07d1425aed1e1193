/*
 * AudioToolbox for Linux — <AudioUnit/AudioUnitParameters.h>.
 *
 * Parameter IDs of Apple's units, as the iPhone SDK (iOS 7) numbers them: the output
 * units' volume, the multichannel mixer's, Varispeed's and the effects' provided so far
 * (the two-pole filters: low-pass, high-pass, band-pass, the shelves, the parametric EQ).
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

/* The band-pass filter (kAudioUnitSubType_BandPassFilter), global scope: the centre in
 * Hz (20 to half the sample rate, 5000) and the bandwidth in cents between the -3 dB
 * points (100 to 12000, 600). */
enum {
    kBandpassParam_CenterFrequency = 0,
    kBandpassParam_Bandwidth       = 1
};

/* The high shelf (kAudioUnitSubType_HighShelfFilter): the cutoff in Hz (10000 to half the
 * sample rate, 10000) and the gain in dB far above it (-40 to 40, 0). */
enum {
    kHighShelfParam_CutOffFrequency = 0,
    kHighShelfParam_Gain            = 1
};

/* The low shelf (kAudioUnitSubType_LowShelfFilter): the cutoff in Hz (10 to 200, 80) and
 * the gain in dB far below it (-40 to 40, 0). */
enum {
    kAULowShelfParam_CutoffFrequency = 0,
    kAULowShelfParam_Gain            = 1
};

/* The parametric EQ (kAudioUnitSubType_ParametricEQ): the centre in Hz (20 to half the
 * sample rate, 2000), Q (0.1 to 20, 1) and the gain at the centre in dB (-20 to 20, 0). */
enum {
    kParametricEQParam_CenterFreq = 0,
    kParametricEQParam_Q          = 1,
    kParametricEQParam_Gain       = 2
};

#endif /* __AudioUnitParameters */
