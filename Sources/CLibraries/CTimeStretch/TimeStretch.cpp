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
    std::vector<float> block((size_t)(blockFrames > heldFrames ? blockFrames : heldFrames) * channels, 0.0f);
    // The input side is largest at the fastest tempo, the output side at the slowest: at
    // each, what may be held plus two blocks more than a render ever puts.
    for (double tempo : {fastest, slowest}) {
        stretch->touch.setTempo(tempo);
        stretch->touch.putSamples(block.data(), (unsigned)heldFrames);
        for (int i = 0; i < 3; i++) stretch->touch.putSamples(block.data(), (unsigned)blockFrames);
        stretch->touch.clear();
    }
    stretch->touch.setTempo(1.0);
}
