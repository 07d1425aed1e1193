#define _GNU_SOURCE
#include "CDescriptors.h"
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

/* Room for this many descriptors in one message; more are refused by the kernel's
 * truncation (MSG_CTRUNC) and closed by it. */
enum { CONTROL_ROOM = 8 };

ssize_t DescriptorPassingSend(int socket, const void *bytes, size_t count, int descriptor)
{
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct iovec io = {(void *)bytes, count};
    struct msghdr message = {0};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    return sendmsg(socket, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
}

ssize_t DescriptorPassingReceive(int socket, void *buffer, size_t capacity, int *descriptors, int maxDescriptors,
                                 int *received, int *truncated)
{
    union {
        char buffer[CMSG_SPACE(CONTROL_ROOM * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec io = {buffer, capacity};
    struct msghdr message = {0};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    *received = 0;
    *truncated = 0;
    ssize_t n = recvmsg(socket, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) return n;
    /* At the descriptor limit the kernel drops what it cannot install and says so. */
    if (message.msg_flags & MSG_CTRUNC) *truncated = 1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
            if (*received < maxDescriptors) descriptors[(*received)++] = fd;
            else close(fd);
        }
    }
    return n;
}

int DescriptorsEventFD(void)
{
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int DescriptorsPipe(int ends[2])
{
    return pipe2(ends, O_CLOEXEC | O_NONBLOCK);
}

int DescriptorsOpenPath(const char *path, int followSymlinks)
{
    return open(path, O_PATH | O_CLOEXEC | (followSymlinks ? 0 : O_NOFOLLOW));
}

int DescriptorsAnonymousFile(const char *directory)
{
    int fd = directory ? open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600) : -1;
    if (fd >= 0) return fd;
    return memfd_create("audiotoolbox-scratch", MFD_CLOEXEC);
}

int DescriptorsAccept(int listener)
{
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

extern char **environ;

pid_t DescriptorsSpawnHelper(const char *path, char *const argv[])
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    if (posix_spawn_file_actions_init(&actions) != 0) return -1;
    if (posix_spawnattr_init(&attributes) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return -1;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    int failed = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        || posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        /* A locked pid file or a listening socket held by a helper would outlive the
         * daemon: nothing but 0, 1 and 2 goes across, close-on-exec or not. */
        || posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        || posix_spawnattr_setsigmask(&attributes, &none)
        || posix_spawnattr_setsigdefault(&attributes, &all)
        || posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    int error = failed ? EINVAL : posix_spawn(&pid, path, &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0) {
        errno = error;
        return -1;
    }
    return pid;
}

int DescriptorsForbidNewPrivileges(void)
{
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}
