/*
 * exec_after_init PROGRAM [ARGS...]: a ported program that initialises its audio
 * session, sets MediaPlayback and activates it (so the backend has its devices, the
 * arbiter its connection, the run loop its doorbell), then execs PROGRAM, as a program
 * that launches a helper would. Whatever descriptor the library left without
 * close-on-exec is inherited by PROGRAM (the hostile tests exec fd_list).
 *
 * Prints "init <status>", "category <status>", "activate <status>" on stderr; exits 1
 * on the first failure (or 127 if the exec fails).
 */
#include <AudioToolbox/AudioToolbox.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void onInterruption(void *data, UInt32 state)
{
    (void)data;
    (void)state;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    OSStatus status = AudioSessionInitialize(NULL, NULL, onInterruption, NULL);
    fprintf(stderr, "init %d\n", (int)status);
    if (status != noErr) return 1;
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    status = AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    fprintf(stderr, "category %d\n", (int)status);
    if (status != noErr) return 1;
    status = AudioSessionSetActive(true);
    fprintf(stderr, "activate %d\n", (int)status);
    if (status != noErr) return 1;
    /* Let the run loop do one pass, as a program's would before it launches anything. */
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.05, false);
    fflush(stdout);
    fflush(stderr);
    execv(argv[1], argv + 1);
    fprintf(stderr, "exec %s: %s\n", argv[1], strerror(errno));
    return 127;
}
