/* Reader slots as lock files (child_slots.h). */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC */
#include "readers/assimp/child_slots.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void am_child_slots_config(unsigned default_count, const char **dir, unsigned *count)
{
    const char *d = getenv("ANIMESH_READER_SLOT_DIR");
    if (!d || !*d)
        d = getenv("TMPDIR");
    /* a TMPDIR that is gone must not stop the reader */
    *dir = d && *d && access(d, W_OK | X_OK) == 0 ? d : "/tmp";
    *count = default_count;
    const char *n = getenv("ANIMESH_READER_SLOTS");
    if (n && *n) {
        char *end;
        unsigned long v = strtoul(n, &end, 10);
        if (!*end && v >= 1 && v <= 64)
            *count = (unsigned)v;
    }
}

/* 1 taken, 0 busy (or not ours), -1 the folder cannot hold it (err set). */
static int try_slot(const char *dir, unsigned k, am_child_slot *slot, am_error *err)
{
    char path[sizeof slot->path];
    if ((size_t)snprintf(path, sizeof path, "%s/animesh-reader-slot-%u.lock", dir, k) >= sizeof path) {
        am_fail(err, AM_ERR_IO, "reader slot folder path too long: %s", dir);
        return -1;
    }
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            if (errno == ENOENT || errno == ENOTDIR) {
                am_fail(err, AM_ERR_IO, "cannot use reader slot folder %s: %s", dir, strerror(errno));
                return -1;
            }
            return 0; /* a link, another user's file: not a slot we can take */
        }
        struct stat held, named;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &held) != 0 || !S_ISREG(held.st_mode)) {
            close(fd);
            return 0;
        }
        /* the file may have been given back (removed) between our open and our lock */
        if (stat(path, &named) == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino) {
            slot->fd = fd;
            memcpy(slot->path, path, sizeof path);
            return 1;
        }
        close(fd);
    }
    return 0;
}

am_status am_child_slot_take(const char *dir, unsigned count, unsigned wait_seconds, am_child_slot *slot,
                             am_error *err)
{
    slot->fd = -1;
    slot->path[0] = '\0';
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long pause_ms = 10;
    for (;;) {
        for (unsigned k = 0; k < count; k++) {
            int got = try_slot(dir, k, slot, err);
            if (got)
                return got > 0 ? AM_OK : AM_ERR_IO;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        double waited = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) * 1e-9;
        if (waited >= wait_seconds)
            return am_fail(err, AM_ERR_IO,
                           "all %u reader slots in %s stayed busy for %u s (other models being read on this host; "
                           "ANIMESH_READER_SLOTS sets how many at once)",
                           count, dir, wait_seconds);
        struct timespec pause = {0, pause_ms * 1000000L};
        nanosleep(&pause, NULL);
        pause_ms = pause_ms < 200 ? pause_ms * 2 : 200;
    }
}

void am_child_slot_give(am_child_slot *slot)
{
    if (slot->fd < 0)
        return;
    unlink(slot->path); /* while still locked: a waiter that opened it sees it gone and retries */
    close(slot->fd);
    slot->fd = -1;
    slot->path[0] = '\0';
}
