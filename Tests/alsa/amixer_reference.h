/* The volume alsamixer shows for the card's Master control, read with `amixer -M`
 * (alsa-utils' own mapping of a dB scale to what a person hears): an independent
 * reference for CurrentHardwareOutputVolume on plain ALSA, which promises the scale of
 * alsamixer. amixer rounds to whole percent, hence the tolerance. */
#ifndef AMIXER_REFERENCE_H
#define AMIXER_REFERENCE_H
#include <stdio.h>
#include <string.h>

#define AMIXER_TOLERANCE 0.0051

/* A fraction from 0 to 1, or -1 when amixer cannot say. */
static double amixerMappedVolume(void)
{
    FILE *pipe = popen("amixer -M sget Master 2>/dev/null", "r");
    if (!pipe) return -1;
    char line[256];
    double found = -1;
    while (fgets(line, sizeof line, pipe)) {
        const char *open = strstr(line, "Playback");
        const char *bracket = open ? strchr(open, '[') : NULL;
        int percent;
        if (bracket && sscanf(bracket, "[%d%%]", &percent) == 1) found = percent / 100.0;
    }
    pclose(pipe);
    return found;
}
#endif
