/*
 * AudioToolbox for Linux — <AudioUnit/AudioUnitParameters.h>.
 *
 * Parameter IDs of Apple's units, as the iPhone SDK (iOS 7) numbers them: the output
 * units' volume, the multichannel mixer's, Varispeed's and the effects' (the two-pole
 * filters, the N-band EQ, the limiter, the dynamics processor, the delay, the distortion
 * and the reverb), the time and pitch units', the sampler's, the matrix mixer's and, for
 * the iPhone, the 3D mixer's. Unless its comment says otherwise, a parameter named here is in the global
 * scope, element 0.
 */
#ifndef __AudioUnitParameters
#define __AudioUnitParameters

#include <TargetConditionals.h>

/* A music device's per-channel controls, set in the group scope with the MIDI channel as
 * the element: the MIDI controller numbers, and the status bytes of the channel messages
 * that are not controllers (pitch bend, channel pressure, key pressure by key). */
enum {
    kAUGroupParameterID_Volume              = 7,
    kAUGroupParameterID_Sustain             = 64,
    kAUGroupParameterID_Sostenuto           = 66,
    kAUGroupParameterID_AllNotesOff         = 123,
    kAUGroupParameterID_ModWheel            = 1,
    kAUGroupParameterID_PitchBend           = 0xE0,
    kAUGroupParameterID_AllSoundOff         = 120,
    kAUGroupParameterID_ResetAllControllers = 121,
    kAUGroupParameterID_Pan                 = 10,
    kAUGroupParameterID_Foot                = 4,
    kAUGroupParameterID_ChannelPressure     = 0xD0,
    kAUGroupParameterID_KeyPressure         = 0xA0,
    kAUGroupParameterID_Expression          = 11,
    kAUGroupParameterID_DataEntry           = 6,
    kAUGroupParameterID_Volume_LSB          = kAUGroupParameterID_Volume + 32,
    kAUGroupParameterID_ModWheel_LSB        = kAUGroupParameterID_ModWheel + 32,
    kAUGroupParameterID_Pan_LSB             = kAUGroupParameterID_Pan + 32,
    kAUGroupParameterID_Foot_LSB            = kAUGroupParameterID_Foot + 32,
    kAUGroupParameterID_Expression_LSB      = kAUGroupParameterID_Expression + 32,
    kAUGroupParameterID_DataEntry_LSB       = kAUGroupParameterID_DataEntry + 32,
    kAUGroupParameterID_KeyPressure_FirstKey = 256,
    kAUGroupParameterID_KeyPressure_LastKey  = 383
};

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

/* The matrix mixer (AUMatrixMixer). Volume is a linear gain (0 and up; every gain starts
 * at 0): in the global scope, of a crosspoint (element: the input channel shifted left 16
 * bits, or'd with the output channel) or, at element 0xFFFFFFFF, the master gain; in the
 * input scope, of an input channel; in the output scope, of an output channel. Channels
 * are counted across the buses of a side. Enable is per bus, input or output scope. The
 * levels are per channel (input scope: an input channel; output scope: an output
 * channel), read-only, with metering on: in dB (1000..4000), or linear (5000..8000). */
enum {
    kMatrixMixerParam_Volume                   = 0,
    kMatrixMixerParam_Enable                   = 1,
    kMatrixMixerParam_PreAveragePower          = 1000,
    kMatrixMixerParam_PrePeakHoldLevel         = 2000,
    kMatrixMixerParam_PostAveragePower         = 3000,
    kMatrixMixerParam_PostPeakHoldLevel        = 4000,
    kMatrixMixerParam_PreAveragePowerLinear    = 5000,
    kMatrixMixerParam_PrePeakHoldLevelLinear   = 6000,
    kMatrixMixerParam_PostAveragePowerLinear   = 7000,
    kMatrixMixerParam_PostPeakHoldLevelLinear  = 8000
};

#if TARGET_OS_IPHONE
/* AU3DMixerEmbedded, numbered as the iPhone numbers them (the Mac's 3D mixer orders them
 * otherwise). Per input bus: azimuth in degrees (-180..180; -90 is hard left, 90 hard
 * right), elevation (-90..90), distance in metres (0..10000; beyond 1 m the level falls
 * as 1/distance), gain in dB (-120..20), playback rate (0.5..2), enable (0/1), the
 * lowest and highest linear gain the distance may give (0..1), the reverb blend
 * (0..100), and occlusion and obstruction in dB (-100..0). Gain also applies to the
 * output (output scope, element 0); the global reverb gain (-40..40 dB) is global.
 * docs/API.md says which of them change the sound here. */
enum {
    k3DMixerParam_Azimuth                = 0,
    k3DMixerParam_Elevation              = 1,
    k3DMixerParam_Distance               = 2,
    k3DMixerParam_Gain                   = 3,
    k3DMixerParam_PlaybackRate           = 4,
    k3DMixerParam_Enable                 = 5,
    k3DMixerParam_MinGain                = 6,
    k3DMixerParam_MaxGain                = 7,
    k3DMixerParam_ReverbBlend            = 8,
    k3DMixerParam_GlobalReverbGain       = 9,
    k3DMixerParam_OcclusionAttenuation   = 10,
    k3DMixerParam_ObstructionAttenuation = 11
};
#endif

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

/* The peak limiter (kAudioUnitSubType_PeakLimiter): the attack in seconds (0.001 to
 * 0.03, 0.012), which is also how long the signal is held back (the unit's latency); the
 * decay in seconds (0.001 to 0.06, 0.024); the gain before limiting in dB (-40 to 40, 0).
 * The output never goes above full scale. */
enum {
    kLimiterParam_AttackTime = 0,
    kLimiterParam_DecayTime  = 1,
    kLimiterParam_PreGain    = 2
};

/* The dynamics processor (kAudioUnitSubType_DynamicsProcessor): a compressor above the
 * threshold (-40 to 20 dB, -20) whose output stays below the threshold plus the headroom
 * (0.1 to 40 dB, 5), a downward expander below the expansion threshold (-120 to 0 dB,
 * -100) by the expansion ratio (1 to 50, 2), the attack (0.0001 to 0.2 s, 0.001) and
 * release (0.01 to 3 s, 0.05) of its level detector, and a gain after (-40 to 40 dB, 0).
 * The last three are meters in dB, read-only: the compressor's gain change (0 or less),
 * the input's level and the output's. */
enum {
    kDynamicsProcessorParam_Threshold          = 0,
    kDynamicsProcessorParam_HeadRoom           = 1,
    kDynamicsProcessorParam_ExpansionRatio     = 2,
    kDynamicsProcessorParam_ExpansionThreshold = 3,
    kDynamicsProcessorParam_AttackTime         = 4,
    kDynamicsProcessorParam_ReleaseTime        = 5,
    kDynamicsProcessorParam_MasterGain         = 6,
    kDynamicsProcessorParam_OverallGain        = 6,
    kDynamicsProcessorParam_CompressionAmount  = 1000,
    kDynamicsProcessorParam_InputAmplitude     = 2000,
    kDynamicsProcessorParam_OutputAmplitude    = 3000
};

/* The delay (kAudioUnitSubType_Delay): the equal-power blend of dry and delayed signal
 * (0 to 100, 50), the delay in seconds (0 to 2, 1), the feedback in percent (-100 to 100,
 * 50) and the cutoff of the low-pass in the delayed path in Hz (10 to half the sample
 * rate, 15000). */
enum {
    kDelayParam_WetDryMix    = 0,
    kDelayParam_DelayTime    = 1,
    kDelayParam_Feedback     = 2,
    kDelayParam_LopassCutoff = 3
};

/* The distortion (kAudioUnitSubType_Distortion): five stages, each with its own mix in
 * percent, then a final mix with the input. Echo: delay in ms (0.1 to 500, 0.1), decay
 * (0.1 to 50, 1), mix (50). Decimation: amount (%, 50), rounding to fewer bits (%, 0),
 * mix (50). Polynomial: linear (0 to 1, 1), squared and cubic terms (0 to 20, 0), mix
 * (50). Ring modulator: two frequencies (0.5 to 8000 Hz, 100), their balance (%, 50), mix
 * (0). Soft clip: the gain into it in dB (-80 to 20, -6). Final mix (%, 50). */
enum {
    kDistortionParam_Delay          = 0,
    kDistortionParam_Decay          = 1,
    kDistortionParam_DelayMix       = 2,
    kDistortionParam_Decimation     = 3,
    kDistortionParam_Rounding       = 4,
    kDistortionParam_DecimationMix  = 5,
    kDistortionParam_LinearTerm     = 6,
    kDistortionParam_SquaredTerm    = 7,
    kDistortionParam_CubicTerm      = 8,
    kDistortionParam_PolynomialMix  = 9,
    kDistortionParam_RingModFreq1   = 10,
    kDistortionParam_RingModFreq2   = 11,
    kDistortionParam_RingModBalance = 12,
    kDistortionParam_RingModMix     = 13,
    kDistortionParam_SoftClipGain   = 14,
    kDistortionParam_FinalMix       = 15
};

/* The reverb (kAudioUnitSubType_Reverb2): the dry-to-wet crossfade (0 to 100, 100: all
 * wet), the output gain in dB (-20 to 20, 0), the shortest and longest delay of its
 * reflections in seconds (0.0001 to 1, 0.008 and 0.050), the time to fall by 60 dB at
 * low frequencies and at the highest (0.001 to 20 s, 1 and 0.5), and a seed for the
 * reflections' pattern (1 to 1000, 1). Thirteen factory presets (kAudioUnitProperty_
 * FactoryPresets), the rooms of AVAudioUnitReverbPreset in its order. */
enum {
    kReverb2Param_DryWetMix            = 0,
    kReverb2Param_Gain                 = 1,
    kReverb2Param_MinDelayTime         = 2,
    kReverb2Param_MaxDelayTime         = 3,
    kReverb2Param_DecayTimeAt0Hz       = 4,
    kReverb2Param_DecayTimeAtNyquist   = 5,
    kReverb2Param_RandomizeReflections = 6
};

/* The N-band EQ (kAudioUnitSubType_NBandEQ): a gain over all bands in dB (-96 to 24, 0);
 * per band, the band-0 ID plus the band's index: bypassed (0 or 1, 1 at first), its
 * filter type (one of the kAUNBandEQFilterType_ values, 0), frequency in Hz (20 to half
 * the sample rate, 1000), gain in dB (-96 to 24, 0) and width in octaves (0.05 to 5, 0.5).
 * kAUNBandEQProperty_NumberOfBands says how many bands are in use. */
enum {
    kAUNBandEQParam_GlobalGain = 0,
    kAUNBandEQParam_BypassBand = 1000,
    kAUNBandEQParam_FilterType = 2000,
    kAUNBandEQParam_Frequency  = 3000,
    kAUNBandEQParam_Gain       = 4000,
    kAUNBandEQParam_Bandwidth  = 5000
};

/* A band's filter: a peak (the gain at the frequency, half of it in dB at the band's
 * edges); second-order Butterworth low-pass and high-pass (-3 dB at the frequency); the
 * same with a resonance set by the width; band-pass and band-stop (the width between the
 * -3 dB points); low and high shelves of the gain, and the same with a resonance set by
 * the width. */
enum {
    kAUNBandEQFilterType_Parametric                 = 0,
    kAUNBandEQFilterType_2ndOrderButterworthLowPass  = 1,
    kAUNBandEQFilterType_2ndOrderButterworthHighPass = 2,
    kAUNBandEQFilterType_ResonantLowPass            = 3,
    kAUNBandEQFilterType_ResonantHighPass           = 4,
    kAUNBandEQFilterType_BandPass                   = 5,
    kAUNBandEQFilterType_BandStop                   = 6,
    kAUNBandEQFilterType_LowShelf                   = 7,
    kAUNBandEQFilterType_HighShelf                  = 8,
    kAUNBandEQFilterType_ResonantLowShelf           = 9,
    kAUNBandEQFilterType_ResonantHighShelf          = 10,
    kNumAUNBandEQFilterTypes                        = 11
};

/* The time and pitch units (AUiPodTime, AUNewTimePitch): the playback rate, and for
 * AUNewTimePitch the pitch shift in cents, the overlap of its analysis frames and whether
 * it locks spectral peaks. */
enum { kTimePitchParam_Rate = 0 };
enum {
    kNewTimePitchParam_Rate              = 0,
    kNewTimePitchParam_Pitch             = 1,
    kNewTimePitchParam_Overlap           = 4,
    kNewTimePitchParam_EnablePeakLocking = 6
};

/* AURandom's bounds and curve (the SDK declares them; no unit here uses them). */
enum {
    kRandomParam_BoundA = 0,
    kRandomParam_BoundB = 1,
    kRandomParam_Curve  = 2
};

/* AUSampler (kAudioUnitSubType_Sampler): its output gain in dB (-90 to 12, 0), the
 * transposition in semitones (-24 to 24, 0) and in cents (-99 to 99, 0), and the balance
 * of its two sides (-1 to 1, 0). */
enum {
    kAUSamplerParam_Gain         = 900,
    kAUSamplerParam_CoarseTuning = 901,
    kAUSamplerParam_FineTuning   = 902,
    kAUSamplerParam_Pan          = 903
};

#endif /* __AudioUnitParameters */
