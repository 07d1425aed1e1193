/* libpipewire for the sound-server watch of audiosessiond (Debian: libpipewire-0.3-dev). */
#include <pipewire/pipewire.h>
