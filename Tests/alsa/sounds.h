/* Sound files for the system-sound tests on the virtual card: write 16-bit samples as
 * a WAV file in the test's folder, and create a system sound from a path (a CHECK on
 * the result). Include after ../c/check.h. */
#ifndef AT_TEST_SOUNDS_H
#define AT_TEST_SOUNDS_H
#include <AudioToolbox/AudioToolbox.h>
#include <sndfile.h>
#include <stdlib.h>
#include <string.h>

/* Writes interleaved 16-bit samples to `dir`/`name`; returns the path (a buffer of a
 * small ring, valid for the next few calls). */
static const char *writeWav(const char *dir, const char *name, int rate, int channels, const short *samples,
                            long frames)
{
    static char paths[8][512];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 512, "%s/%s", dir, name);
    SF_INFO info = {.samplerate = rate, .channels = channels, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
    SNDFILE *file = sf_open(path, SFM_WRITE, &info);
    if (!file) { fprintf(stderr, "cannot write %s\n", path); exit(2); }
    sf_writef_short(file, samples, frames);
    sf_close(file);
    return path;
}

static SystemSoundID createSound(const char *path)
{
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)path, (CFIndex)strlen(path), false);
    SystemSoundID id = 0;
    CHECK_STATUS(AudioServicesCreateSystemSoundID(url, &id), noErr);
    CFRelease(url);
    return id;
}
#endif
