/*
 * 100,000 add/remove listener cycles must not grow memory: heap in use (glibc
 * mallinfo2) after a warm-up of 1,000 cycles is compared with the heap after all of them.
 */
#include <AudioToolbox/AudioToolbox.h>
#include <malloc.h>
#include <stdlib.h>
#include <stdio.h>

static void listener(void *c, AudioSessionPropertyID id, UInt32 size, const void *data)
{
    (void)c; (void)id; (void)size; (void)data;
}

static void cycles(long count)
{
    for (long i = 0; i < count; i++) {
        void *clientData = (void *)(i % 64 + 1);
        AudioSessionAddPropertyListener(kAudioSessionProperty_AudioRouteChange, listener, clientData);
        AudioSessionRemovePropertyListenerWithUserData(kAudioSessionProperty_AudioRouteChange, listener, clientData);
    }
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : 100000;
    AudioSessionInitialize(NULL, NULL, NULL, NULL);
    cycles(1000);
    size_t before = mallinfo2().uordblks;
    cycles(count);
    size_t after = mallinfo2().uordblks;
    long growth = (long)after - (long)before;
    printf("listener-memory: %ld add/remove cycles, heap in use %zu -> %zu bytes, growth %ld bytes (%.3f bytes/cycle)\n",
           count, before, after, growth, (double)growth / (double)count);
    return growth > 4096 ? 1 : 0;
}
