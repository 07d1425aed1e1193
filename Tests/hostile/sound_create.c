/*
 * sound_create PATH: AudioServicesCreateSystemSoundID on a file URL of PATH (which the
 * hostile tests make a FIFO). Prints one line, "create <status> <id>", and exits 0.
 * The test turns a hang into a failure; the status must not be noErr.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH\n", argv[0]);
        return 2;
    }
    CFURLRef url = CFURLCreateFromFileSystemRepresentation(NULL, (const UInt8 *)argv[1], (CFIndex)strlen(argv[1]),
                                                           false);
    if (url == NULL) {
        printf("no-url\n");
        return 1;
    }
    SystemSoundID sound = 0;
    OSStatus status = AudioServicesCreateSystemSoundID(url, &sound);
    printf("create %d %u\n", (int)status, (unsigned)sound);
    fflush(stdout);
    CFRelease(url);
    return 0;
}
