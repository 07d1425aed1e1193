/*
 * fd_list: prints one line per descriptor this process has open, "fd <n> <target>",
 * leaving out the one it opens itself to read /proc/self/fd. Used by the hostile tests
 * after an exec: whatever it lists besides 0, 1 and 2 was inherited.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    DIR *directory = opendir("/proc/self/fd");
    if (directory == NULL) {
        perror("opendir /proc/self/fd");
        return 1;
    }
    int own = dirfd(directory);
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (entry->d_name[0] == '.') continue;
        int fd = atoi(entry->d_name);
        if (fd == own) continue;
        char link[64], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        printf("fd %d %s\n", fd, target);
    }
    closedir(directory);
    return 0;
}
