/* libasound for the Swift ALSA backend (Debian: libasound2-dev). */
#include <alsa/asoundlib.h>
