/* LD_PRELOAD shim for the output-set race test (tests/test_outset.c): flock(fd, LOCK_EX |
 * LOCK_NB), the call a writer locks the temp file it has just created with, first waits
 * AM_FLOCK_DELAY_MS milliseconds. That widens the window between a temp's creation and its
 * lock, where another run's sweep of stale temps could take it for a dead run's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>

int flock(int fd, int op)
{
    void *sym = dlsym(RTLD_NEXT, "flock");
    int (*real)(int, int);
    memcpy(&real, &sym, sizeof real); /* object to function pointer, as dlsym(3) shows */
    const char *ms = getenv("AM_FLOCK_DELAY_MS");
    if (ms && (op & LOCK_EX) && (op & LOCK_NB)) {
        long v = strtol(ms, NULL, 10);
        struct timespec ts = {v / 1000, (v % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
    return real ? real(fd, op) : -1;
}
