/*
 * Under valgrind in `make bench`: 300 creations of system sounds (a good file, a corrupt
 * one, a missing one, in turn), each good one disposed. Nothing may be definitely lost:
 * a failed creation keeps nothing, a disposed sound frees what it held.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <sndfile.h>
#include <string.h>
int main(void)
{
  static short s[4800];
  SF_INFO info = {.samplerate = 48000, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
  SNDFILE *f = sf_open("/tmp/leak.wav", SFM_WRITE, &info); sf_writef_short(f, s, 4800); sf_close(f);
  FILE *g = fopen("/tmp/leak-bad.wav","w"); fputs("RIFFxxxxWAVEgarbage", g); fclose(g);
  const char *paths[] = {"/tmp/leak.wav", "/tmp/leak-bad.wav", "/tmp/missing.wav"};
  for (int i = 0; i < 300; i++) {
    const char *p = paths[i % 3];
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)p, strlen(p), false);
    SystemSoundID id = 0;
    if (AudioServicesCreateSystemSoundID(url, &id) == 0) AudioServicesDisposeSystemSoundID(id);
    CFRelease(url);
  }
  return 0;
}
