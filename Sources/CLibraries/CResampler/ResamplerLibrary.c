/* ResamplerLibrary.h: libsamplerate's functions through pointers of their own declared
 * types, resolved once from its Debian SONAME. */
#include "ResamplerLibrary.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

static __typeof__(src_new) *p_new;
static __typeof__(src_callback_new) *p_callback_new;
static __typeof__(src_process) *p_process;
static __typeof__(src_callback_read) *p_callback_read;
static __typeof__(src_reset) *p_reset;
static __typeof__(src_delete) *p_delete;
static __typeof__(src_is_valid_ratio) *p_is_valid_ratio;
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    /* Never closed: states made from it may live as long as the program. */
    void *library = dlopen("libsamplerate.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    p_new = (__typeof__(src_new) *)dlsym(library, "src_new");
    p_callback_new = (__typeof__(src_callback_new) *)dlsym(library, "src_callback_new");
    p_process = (__typeof__(src_process) *)dlsym(library, "src_process");
    p_callback_read = (__typeof__(src_callback_read) *)dlsym(library, "src_callback_read");
    p_reset = (__typeof__(src_reset) *)dlsym(library, "src_reset");
    p_delete = (__typeof__(src_delete) *)dlsym(library, "src_delete");
    p_is_valid_ratio = (__typeof__(src_is_valid_ratio) *)dlsym(library, "src_is_valid_ratio");
    loaded = p_new && p_callback_new && p_process && p_callback_read && p_reset && p_delete && p_is_valid_ratio;
}

int ResamplerLibraryAvailable(void) {
    pthread_once(&once, load);
    return loaded;
}

SRC_STATE *ResamplerNew(int converter, int channels, int *error) {
    if (!ResamplerLibraryAvailable()) { *error = 1; /* as libsamplerate says "malloc failed" */ return NULL; }
    return p_new(converter, channels, error);
}

SRC_STATE *ResamplerCallbackNew(src_callback_t callback, int converter, int channels, int *error, void *context) {
    if (!ResamplerLibraryAvailable()) { *error = 1; /* as libsamplerate says "malloc failed" */ return NULL; }
    return p_callback_new(callback, converter, channels, error, context);
}

/* A state exists only if the library loaded: the calls on one need no check. */
int ResamplerProcess(SRC_STATE *state, SRC_DATA *data) { return p_process(state, data); }
long ResamplerCallbackRead(SRC_STATE *state, double ratio, long frames, float *out) {
    return p_callback_read(state, ratio, frames, out);
}
int ResamplerReset(SRC_STATE *state) { return p_reset(state); }
void ResamplerDelete(SRC_STATE *state) { if (state) p_delete(state); }

int ResamplerIsValidRatio(double ratio) { return ResamplerLibraryAvailable() && p_is_valid_ratio(ratio); }
