/* The public headers, as the Swift layers see them: the ABI layer uses the C types of
 * the callbacks and the exported CFString constants from here, so the Swift side and
 * the header a C program compiles against cannot drift apart. */
#ifndef CAUDIOTOOLBOX_H
#define CAUDIOTOOLBOX_H
#include "../../../../../include/AudioToolbox/AudioSession.h"
#include "../../../../../include/AudioToolbox/AudioServices.h"
#include "../../../../../include/AudioToolbox/AudioSessionLinux.h"
#include "../../../../../include/AudioUnit/AudioUnit.h"
#include "../../../../../include/AudioToolbox/AudioFile.h"
#include "../../../../../include/AudioToolbox/AudioFileStream.h"
#include "../../../../../include/AudioToolbox/AudioFormat.h"
#include "../../../../../include/AudioToolbox/AudioConverter.h"
#include "../../../../../include/AudioToolbox/ExtendedAudioFile.h"
#include "../../../../../include/AudioToolbox/AudioQueue.h"
#include "../../../../../include/AudioToolbox/AUGraph.h"
#include "../../../../../include/AudioToolbox/MusicPlayer.h"
#include "../../../../../include/AudioToolbox/CAFFile.h"

/* Internal (ProcessFacts.c): the path the library was loaded from (NULL if unknown),
 * the program's own path (NULL if unknown), and the program's short name. */
const char *AudioToolboxLibraryPath(void);
const char *AudioToolboxProgramPath(void);
const char *AudioToolboxProgramName(void);
/* Internal: whether this process is the child of a fork made after the library was
 * loaded (and not exec'd since). */
int AudioToolboxInForkedChild(void);
/* Internal: the library's one fork registration (made when it is loaded) runs these
 * too, from then on: `prepare` before each fork, `parent` after it in the parent,
 * `child` in the child. Set once (ForkCoordinator); a fork already under way when they
 * are set runs none of them. */
void AudioToolboxSetForkHooks(void (*prepare)(void), void (*parent)(void), void (*child)(void));
#endif
