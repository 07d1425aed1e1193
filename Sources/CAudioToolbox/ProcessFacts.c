/* Facts about the running process that Swift's Glibc module does not show (they need
 * _GNU_SOURCE): where the library was loaded from, and the program's name. Internal:
 * the version script keeps them out of the library's exports. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include "CAudioToolbox.h"

const char *AudioToolboxLibraryPath(void)
{
    Dl_info info;
    if (dladdr((const void *)&AudioToolboxLibraryPath, &info) == 0) return NULL;
    return info.dli_fname;
}

const char *AudioToolboxProgramName(void)
{
    return program_invocation_short_name;
}
