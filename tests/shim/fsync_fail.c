/* LD_PRELOAD shim for the output-set test of a failed fsync (tests/test_outset.c): fsync(fd)
 * of a file whose path holds AM_FSYNC_FAIL_NAME fails with EIO, as a disk that lost the
 * data would; every other fsync is the real one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fsync(int fd)
{
    void *sym = dlsym(RTLD_NEXT, "fsync");
    int (*real)(int);
    memcpy(&real, &sym, sizeof real); /* object to function pointer, as dlsym(3) shows */
    const char *name = getenv("AM_FSYNC_FAIL_NAME");
    if (name && name[0]) {
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, path, sizeof path - 1);
        if (n > 0) {
            path[n] = '\0';
            if (strstr(path, name)) {
                errno = EIO;
                return -1;
            }
        }
    }
    return real ? real(fd) : -1;
}
