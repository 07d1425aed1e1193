// SoundTouch behind the C face of TimeStretch.h.
#include "TimeStretch.h"
#include <SoundTouch.h>
#include <new>
#include <vector>

struct TimeStretch {
    soundtouch::SoundTouch touch;
};

extern "C" TimeStretch *TimeStretchNew(int sampleRate, int channels) {
    if (sampleRate < 8000 || sampleRate > 192000 || channels < 1 || channels > 8) return nullptr;
    TimeStretch *stretch = new (std::nothrow) TimeStretch;
    if (!stretch) return nullptr;
    stretch->touch.setSampleRate((unsigned)sampleRate);
    stretch->touch.setChannels((unsigned)channels);
    // Speech and music alike: the algorithm's own sequence and seek lengths.
    stretch->touch.setSetting(SETTING_USE_QUICKSEEK, 0);
    stretch->touch.setSetting(SETTING_USE_AA_FILTER, 1);
    return stretch;
}

extern "C" void TimeStretchFree(TimeStretch *stretch) { delete stretch; }

extern "C" void TimeStretchSet(TimeStretch *stretch, double tempo, double rate, double semitones) {
    stretch->touch.setTempo(tempo);
    stretch->touch.setRate(rate);
    stretch->touch.setPitchSemiTones(semitones);
}

extern "C" void TimeStretchPut(TimeStretch *stretch, const float *samples, int frames) {
    if (frames > 0) stretch->touch.putSamples(samples, (unsigned)frames);
}

extern "C" int TimeStretchReceive(TimeStretch *stretch, float *samples, int maxFrames) {
    return maxFrames > 0 ? (int)stretch->touch.receiveSamples(samples, (unsigned)maxFrames) : 0;
}

extern "C" int TimeStretchAvailable(TimeStretch *stretch) { return (int)stretch->touch.numSamples(); }

extern "C" void TimeStretchFlush(TimeStretch *stretch) { stretch->touch.flush(); }

extern "C" void TimeStretchClear(TimeStretch *stretch) { stretch->touch.clear(); }

extern "C" void TimeStretchSetTempo(TimeStretch *stretch, double tempo) { stretch->touch.setTempo(tempo); }

extern "C" void TimeStretchPrepare(TimeStretch *stretch, int blockFrames, int heldFrames, double slowest,
                                   double fastest) {
    unsigned channels = stretch->touch.numChannels();
    // At each extreme tempo, one put far larger than rendering ever holds: the stretcher
    // keeps less than a sequence of input unprocessed, and a render puts a block on it
    // (the input side is largest at the fastest tempo); it holds less than a render's
    // output, and a block makes at most 1/slowest blocks more (the output side, at the
    // slowest). Filling up block by block instead leaves the peak to chance: a harness
    // that did so saw 3 allocations in 200000 renders of random tempos and blocks.
    for (double tempo : {fastest, slowest}) {
        stretch->touch.setTempo(tempo);
        int sequence = stretch->touch.getSetting(SETTING_NOMINAL_INPUT_SEQUENCE);
        size_t frames = 2 * ((size_t)(sequence > 0 ? sequence : 0) + (size_t)blockFrames + (size_t)heldFrames);
        std::vector<float> block(frames * channels, 0.0f);
        stretch->touch.putSamples(block.data(), (unsigned)frames);
        stretch->touch.clear();
    }
    stretch->touch.setTempo(1.0);
}
