/* libsndfile for decoding system sounds (Debian: libsndfile1-dev). */
#include <sndfile.h>
