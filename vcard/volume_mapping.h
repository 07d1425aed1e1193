/*
 * Perceptual volume: the mapping between a mixer control's dB value and a 0..1 slider
 * position that alsamixer uses. Ranges of at most 24 dB map linearly in dB; wider
 * ranges map through 10^(dB/60), rescaled so the control's minimum is 0 (a curve
 * close to how loud the sound seems). Shared by the vcard driver, which turns
 * `vcard volume 0.3` into a control value, and by the tests.
 */
#ifndef VCARD_VOLUME_MAPPING_H
#define VCARD_VOLUME_MAPPING_H
#include <math.h>

#define VOLUME_LINEAR_RANGE_CENTIBELS 2400

/* dB values in hundredths of a dB. */
static inline double volumeFromDecibels(long value, long minimum, long maximum)
{
    if (maximum <= minimum) return 0;
    if (maximum - minimum <= VOLUME_LINEAR_RANGE_CENTIBELS) return (double)(value - minimum) / (double)(maximum - minimum);
    double normalized = pow(10, (double)(value - maximum) / 6000.0);
    double floor = pow(10, (double)(minimum - maximum) / 6000.0);
    return (normalized - floor) / (1 - floor);
}

static inline double decibelsFromVolume(double volume, long minimum, long maximum)
{
    if (maximum - minimum <= VOLUME_LINEAR_RANGE_CENTIBELS) return minimum + volume * (double)(maximum - minimum);
    double floor = pow(10, (double)(minimum - maximum) / 6000.0);
    double normalized = volume * (1 - floor) + floor;
    return 6000.0 * log10(normalized) + (double)maximum;
}
#endif
