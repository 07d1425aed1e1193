/*
 * fork_prog: a program with an active session and a running run loop forks five times;
 * each child makes a session of its own, activates it (interrupting the parent),
 * then leaves with NotifyOthersOnDeactivation. The parent must hear every Begin, and
 * no ServerDied: a child's session must reach nothing of the parent's (its run loop
 * waits on the epoll set the parent's does). Prints "begins <n> ends <n> died <n>"
 * and exits 0 when it is "begins 5 ends 5 died 0".
 */
#include <AudioToolbox/AudioToolbox.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int begins, ends, died;

static void interruption(void *data, UInt32 state)
{
    (void)data;
    if (state == kAudioSessionBeginInterruption) begins++;
    else ends++;
}

static void serverDied(void *data, AudioSessionPropertyID id, UInt32 size, const void *value)
{
    (void)data, (void)id, (void)size, (void)value;
    died++;
}

int main(void)
{
    UInt32 category = kAudioSessionCategory_MediaPlayback;
    AudioSessionInitialize(NULL, NULL, interruption, NULL);
    AudioSessionAddPropertyListener(kAudioSessionProperty_ServerDied, serverDied, NULL);
    AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
    AudioSessionSetActive(true);
    CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.2, false);
    for (int round = 0; round < 5; round++) {
        pid_t child = fork();
        if (child == 0) {
            AudioSessionInitialize(NULL, NULL, NULL, NULL);
            AudioSessionSetProperty(kAudioSessionProperty_AudioCategory, sizeof category, &category);
            OSStatus status = AudioSessionSetActive(true);
            usleep(200000);
            AudioSessionSetActiveWithFlags(false, kAudioSessionSetActiveFlag_NotifyOthersOnDeactivation);
            _exit(status == 0 ? 0 : 1);
        }
        /* Until the child's Begin and End have come (or 5 s). */
        for (int waited = 0; waited < 50 && ends <= round; waited++)
            CFRunLoopRunInMode(kCFRunLoopDefaultMode, 0.1, false);
        waitpid(child, NULL, 0);
        AudioSessionSetActive(true);
    }
    printf("begins %d ends %d died %d\n", begins, ends, died);
    return !(begins == 5 && ends == 5 && died == 0);
}
