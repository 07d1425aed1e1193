/* libsamplerate for converting system sounds to the device rate (Debian: libsamplerate0-dev). */
#include <samplerate.h>
