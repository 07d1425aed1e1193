/* AudioToolbox for Linux — <AudioToolbox/MusicDevice.h>: where later SDKs put the music
 * device calls; the same declarations as <AudioUnit/MusicDevice.h>. */
#include <AudioUnit/MusicDevice.h>
