/* Descriptor-level calls the Swift layers cannot make themselves: passing a descriptor
 * over a Unix socket (SCM_RIGHTS, whose control-message layout is defined by macros
 * that differ between 32- and 64-bit machines), and eventfd and epoll, whose headers
 * Swift's Glibc module does not import (included here for the Swift side). */
#ifndef CDESCRIPTORS_H
#define CDESCRIPTORS_H
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/types.h>

/* Sends `count` bytes (at least 1) with `descriptor` attached to them, without blocking
 * and without SIGPIPE. Returns what send(2) returns; errno as it leaves it. */
ssize_t DescriptorPassingSend(int socket, const void *bytes, size_t count, int descriptor);

/* Receives up to `capacity` bytes without blocking, like recv(2); descriptors that came
 * with them are stored in `descriptors` (at most `maxDescriptors`, close-on-exec) and
 * counted in `*received`. Descriptors beyond `maxDescriptors`, or cut off because the
 * sender attached more than fit, are closed here, never leaked. `*truncated` is set
 * when the kernel dropped descriptors it could not give this process (MSG_CTRUNC: at
 * its descriptor limit, or more than fit the control buffer). */
ssize_t DescriptorPassingReceive(int socket, void *buffer, size_t capacity, int *descriptors, int maxDescriptors,
                                 int *received, int *truncated);

/* A new eventfd with a count of 0, non-blocking and close-on-exec; -1 and errno on
 * failure. */
int DescriptorsEventFD(void);

/* pipe2(2) with O_CLOEXEC | O_NONBLOCK on both ends: a pipe no exec'd program
 * inherits, made in one call (no window in which another thread's fork+exec could
 * take it). 0, or -1 and errno. */
int DescriptorsPipe(int ends[2]);

/* open(2) with O_PATH | O_CLOEXEC (and O_NOFOLLOW unless followSymlinks): a handle to
 * look at what is at `path` without opening it for reading (Swift does not see O_PATH). */
int DescriptorsOpenPath(const char *path, int followSymlinks);

/* A file with no name, read-write and close-on-exec, for scratch data: in `directory`
 * (O_TMPFILE: on that file system, and gone with its last descriptor), or where the
 * file system cannot do that, in memory (memfd_create). -1 and errno on failure. */
int DescriptorsAnonymousFile(const char *directory);

/* accept4(2) with SOCK_CLOEXEC | SOCK_NONBLOCK: the new connection is never inherited
 * by a program another thread execs. */
int DescriptorsAccept(int listener);

/* Starts the program at `path` with `argv` (NULL-terminated) and the caller's
 * environment: standard input and output on /dev/null, standard error shared (the
 * daemon's log), every other descriptor closed in the child whether close-on-exec or
 * not, default signal dispositions and an empty signal mask. Returns the child's pid, or
 * -1 with errno. */
pid_t DescriptorsSpawnHelper(const char *path, char *const argv[]);

/* prctl(PR_SET_NO_NEW_PRIVS, 1) (variadic, so Swift cannot call it): nothing this
 * process execs gains privileges. 0, or -1 with errno. */
int DescriptorsForbidNewPrivileges(void);
#endif
