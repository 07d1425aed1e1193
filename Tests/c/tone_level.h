/*
 * The level of one frequency in a run of samples, for the C suites that measure what a
 * unit made (test_mixer, test_effects).
 */
#ifndef TONE_LEVEL_H
#define TONE_LEVEL_H

#include <math.h>

/* The amplitude of `hz` in `n` samples at `rate` (a Goertzel filter over a Hann window,
 * so a neighbouring tone does not leak in). */
static inline double amplitudeAt(const float *s, long n, double hz, double rate)
{
    double w = 2 * M_PI * hz / rate, c = 2 * cos(w), s1 = 0, s2 = 0;
    for (long i = 0; i < n; i++) {
        double hann = 0.5 * (1 - cos(2 * M_PI * i / (n - 1)));
        double s0 = s[i] * hann + c * s1 - s2;
        s2 = s1;
        s1 = s0;
    }
    double power = s1 * s1 + s2 * s2 - c * s1 * s2;
    return 4 * sqrt(power > 0 ? power : 0) / n;
}

#endif
