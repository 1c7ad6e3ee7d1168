/* Output sets (outset.h): temp files beside their targets, locked while alive, renamed
 * together at commit. */
#include "core/outset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/io.h"

#define TMP_TAG ".tmp"
#define TMP_RANDOM 6 /* "XXXXXX", as mkstemp: the pattern earlier versions left too */
#define MAX_LINK_HOPS 40

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

typedef struct entry {
    char *name;   /* as declared */
    char *path;   /* dir/name */
    char *target; /* path, or the file a symbolic link at path leads to */
    char *temp;   /* target + ".tmpXXXXXX" once added, until commit */
    int fd;       /* open temp, holding its lock; -1 */
    bool added, stale, removed;
} entry;

struct am_outset {
    char *dir;
    entry *e;
    size_t n, cap;
    size_t swept;
    bool committed;
    bool failed; /* an add failed: the set must not be committed */
};

static char *join2(const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    char *p = malloc(dl + nl + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, dl);
    size_t at = dl;
    if (dl && dir[dl - 1] != '/')
        p[at++] = '/';
    memcpy(p + at, name, nl + 1);
    return p;
}

/* The directory part of a path ("." when none). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return am_strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static am_status io_fail(am_error *err, int e, const char *path, const char *what)
{
    am_fail(err, AM_ERR_IO, "%s: %s", what, strerror(e));
    am_error_where(err, "%s", path);
    return AM_ERR_IO;
}

/* Follow symbolic links from path to the file the bytes belong in (which may not exist). */
static am_status resolve_target(const char *path, char **out, am_error *err)
{
    char *cur = am_strdup(path);
    if (!cur)
        return am_fail_nomem(err, "output path");
    for (int hops = 0;; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0) {
            if (errno == ENOENT) {
                *out = cur;
                return AM_OK;
            }
            int e = errno;
            am_status s = io_fail(err, e, path, "cannot look at the output");
            free(cur);
            return s;
        }
        if (!S_ISLNK(st.st_mode)) {
            if (S_ISDIR(st.st_mode)) {
                free(cur);
                return io_fail(err, EISDIR, path, "cannot replace the output");
            }
            *out = cur;
            return AM_OK;
        }
        if (hops == MAX_LINK_HOPS) {
            free(cur);
            return io_fail(err, ELOOP, path, "cannot follow the output's symbolic link");
        }
        char link[4096];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            int e = errno;
            free(cur);
            return io_fail(err, e, path, "cannot read the output's symbolic link");
        }
        link[n] = '\0';
        char *next;
        if (link[0] == '/') {
            next = am_strdup(link);
        } else {
            char *d = dir_of(cur);
            next = d ? join2(d, link) : NULL;
            free(d);
        }
        free(cur);
        if (!next)
            return am_fail_nomem(err, "output path");
        cur = next;
    }
}

static bool is_temp_of(const char *entry_name, const char *base)
{
    size_t bl = strlen(base), tl = sizeof TMP_TAG - 1;
    if (strncmp(entry_name, base, bl) != 0 || strncmp(entry_name + bl, TMP_TAG, tl) != 0)
        return false;
    const char *r = entry_name + bl + tl;
    if (strlen(r) != TMP_RANDOM)
        return false;
    for (; *r; r++)
        if (!memchr(alphabet, *r, sizeof alphabet - 1))
            return false;
    return true;
}

/* Remove "BASE.tmpXXXXXX" files in the target's folder that no live writer holds. */
static void sweep(am_outset *set, const char *target)
{
    char *d = dir_of(target);
    DIR *dh = d ? opendir(d) : NULL;
    const char *base = base_of(target);
    for (struct dirent *de; dh && (de = readdir(dh));) {
        if (!is_temp_of(de->d_name, base))
            continue;
        char *p = join2(d, de->d_name);
        int fd = p ? open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
        struct stat a, b;
        /* Locked: a live run's temp. Re-check the name still is this inode before removing. */
        if (fd >= 0 && fstat(fd, &a) == 0 && S_ISREG(a.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
            lstat(p, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino && unlink(p) == 0)
            set->swept++;
        if (fd >= 0)
            close(fd);
        free(p);
    }
    if (dh)
        closedir(dh);
    free(d);
}

static entry *find(const am_outset *set, const char *name)
{
    for (size_t i = 0; set && name && i < set->n; i++)
        if (strcmp(set->e[i].name, name) == 0)
            return &set->e[i];
    return NULL;
}

static am_status declare(am_outset *set, const char *name, entry **out, am_error *err)
{
    if ((*out = find(set, name)))
        return AM_OK;
    if (!name || !name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return am_fail(err, AM_ERR_USAGE, "output name '%s' is not a plain file name", name ? name : "(null)");
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 8;
        entry *ne = realloc(set->e, cap * sizeof *ne);
        if (!ne)
            return am_fail_nomem(err, "output set");
        set->e = ne;
        set->cap = cap;
    }
    entry *e = &set->e[set->n];
    memset(e, 0, sizeof *e);
    e->fd = -1;
    e->name = am_strdup(name);
    e->path = join2(set->dir, name);
    if (!e->name || !e->path) {
        free(e->name);
        free(e->path);
        return am_fail_nomem(err, "output set");
    }
    am_status s = resolve_target(e->path, &e->target, err);
    if (s) {
        free(e->name);
        free(e->path);
        return s;
    }
    set->n++;
    sweep(set, e->target);
    *out = e;
    return AM_OK;
}

am_status am_outset_begin(am_outset **out, const char *dir, const char *const *names, size_t count, am_error *err)
{
    *out = NULL;
    if (!dir || !dir[0])
        dir = ".";
    struct stat st;
    if (stat(dir, &st) != 0)
        return io_fail(err, errno, dir, "cannot write into the output folder");
    if (!S_ISDIR(st.st_mode))
        return io_fail(err, ENOTDIR, dir, "cannot write into the output folder");
    am_outset *set = calloc(1, sizeof *set);
    if (!set || !(set->dir = am_strdup(dir))) {
        free(set);
        return am_fail_nomem(err, "output set");
    }
    for (size_t i = 0; i < count; i++) {
        entry *e;
        am_status s = declare(set, names[i], &e, err);
        if (s) {
            am_outset_free(set);
            return s;
        }
    }
    *out = set;
    return AM_OK;
}

/* "TARGET.tmpXXXXXX", created exclusively: mode 0666 minus the umask (the kernel applies
 * it, as for any new file). */
static int create_temp(const char *target, char **temp_out)
{
    size_t tl = strlen(target);
    char *t = malloc(tl + sizeof TMP_TAG + TMP_RANDOM);
    if (!t) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(t, target, tl);
    memcpy(t + tl, TMP_TAG, sizeof TMP_TAG - 1);
    char *x = t + tl + sizeof TMP_TAG - 1;
    for (int attempt = 0; attempt < 100; attempt++) {
        uint8_t r[TMP_RANDOM];
        if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
            /* no entropy yet (early boot): the clock and the attempt still differ */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t v = (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)getpid() << 20 ^ (uint64_t)attempt;
            for (int i = 0; i < TMP_RANDOM; i++, v >>= 8)
                r[i] = (uint8_t)(v ^ (v >> 29));
        }
        for (int i = 0; i < TMP_RANDOM; i++)
            x[i] = alphabet[r[i] % (sizeof alphabet - 1)];
        x[TMP_RANDOM] = '\0';
        int fd = open(t, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *temp_out = t;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(t);
    errno = e;
    return -1;
}

static am_status open_temp(entry *e, am_error *err)
{
    int fd = create_temp(e->target, &e->temp);
    if (fd < 0)
        return io_fail(err, errno, e->path, "cannot create a temporary file beside it");
    e->fd = fd;
    e->added = true;
    e->stale = false;
    /* Nobody else can hold it yet; the lock tells a sweeping run that we are alive. */
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        return io_fail(err, errno, e->path, "cannot lock its temporary file");
    return AM_OK;
}

static am_status finish_temp(entry *e, am_error *err)
{
    struct stat old;
    if (stat(e->target, &old) == 0 && S_ISREG(old.st_mode) && fchmod(e->fd, old.st_mode & 0777) != 0)
        return io_fail(err, errno, e->path, "cannot keep the mode of the file it replaces");
    if (fsync(e->fd) != 0)
        return io_fail(err, errno, e->path, "cannot finish writing");
    return AM_OK;
}

static am_status write_temp(entry *e, const void *data, size_t size, am_error *err)
{
    am_status s = open_temp(e, err);
    if (s)
        return s;
    const uint8_t *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t w = write(e->fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return io_fail(err, errno, e->path, "write failed");
        }
        p += w;
        left -= (size_t)w;
    }
    return finish_temp(e, err);
}

/* The temp file written by `fill` through a stream of its own (a duplicate descriptor, so
 * the entry keeps its locked one). */
static am_status stream_temp(entry *e, am_outset_fill fill, void *user, am_error *err)
{
    am_status s = open_temp(e, err);
    if (s)
        return s;
    int fd = dup(e->fd);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        return io_fail(err, saved, e->path, "cannot open its temporary file for writing");
    }
    s = fill(f, user, err);
    int bad = fflush(f) != 0 || ferror(f);
    int saved = errno;
    if (fclose(f) != 0 && !bad)
        bad = 1, saved = errno;
    if (s)
        return s;
    if (bad)
        return io_fail(err, saved, e->path, "write failed");
    return finish_temp(e, err);
}

/* The entry a name is added as (once per set, before the commit). */
static am_status entry_to_add(am_outset *set, const char *name, entry **e, am_error *err)
{
    if (!set || set->committed)
        return am_fail(err, AM_ERR_USAGE, "output set: add after commit");
    am_status s = declare(set, name, e, err);
    if (!s && (*e)->added)
        s = am_fail(err, AM_ERR_USAGE, "output '%s' added twice to one set", name);
    return s;
}

am_status am_outset_add(am_outset *set, const char *name, const void *data, size_t size, am_error *err)
{
    entry *e = NULL;
    am_status s = entry_to_add(set, name, &e, err);
    if (!s)
        s = write_temp(e, data, size, err);
    if (s && set && !set->committed)
        set->failed = true; /* whatever failed, this set must not be committed */
    return s;
}

am_status am_outset_add_stream(am_outset *set, const char *name, am_outset_fill fill, void *user, am_error *err)
{
    entry *e = NULL;
    am_status s = entry_to_add(set, name, &e, err);
    if (!s)
        s = stream_temp(e, fill, user, err);
    if (s && set && !set->committed)
        set->failed = true;
    return s;
}

am_status am_outset_remove_stale(am_outset *set, const char *name, am_error *err)
{
    if (!set || set->committed)
        return am_fail(err, AM_ERR_USAGE, "output set: remove after commit");
    entry *e;
    am_status s = declare(set, name, &e, err);
    if (s) {
        set->failed = true;
        return s;
    }
    if (!e->added)
        e->stale = true;
    return AM_OK;
}

/* Make the renames in a folder durable. */
static void sync_folder(const char *dir)
{
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        (void)fsync(fd); /* some file systems refuse a directory fsync: nothing to do then */
        close(fd);
    }
}

am_status am_outset_commit(am_outset *set, am_error *err)
{
    if (!set || set->committed)
        return am_fail(err, AM_ERR_USAGE, "output set committed twice");
    if (set->failed)
        return am_fail(err, AM_ERR_USAGE, "output set: an output failed to write; nothing is replaced");
    /* Stale files first: a kill after this leaves the old set minus what cannot be
     * rewritten, never an old file beside new ones. */
    for (size_t i = 0; i < set->n; i++) {
        entry *e = &set->e[i];
        if (!e->stale)
            continue;
        if (unlink(e->path) == 0)
            e->removed = true;
        else if (errno != ENOENT)
            return io_fail(err, errno, e->path, "cannot remove the stale file");
    }
    for (size_t i = 0; i < set->n; i++) {
        entry *e = &set->e[i];
        if (!e->added)
            continue;
        if (rename(e->temp, e->target) != 0)
            return io_fail(err, errno, e->path, "cannot rename into place");
        free(e->temp);
        e->temp = NULL;
    }
    set->committed = true;
    sync_folder(set->dir);
    for (size_t i = 0; i < set->n; i++) {
        entry *e = &set->e[i];
        if (e->added && strcmp(e->target, e->path) != 0) {
            char *d = dir_of(e->target);
            sync_folder(d);
            free(d);
        }
        if (e->fd >= 0) {
            close(e->fd); /* after the rename: a live temp is never unlocked */
            e->fd = -1;
        }
    }
    return AM_OK;
}

void am_outset_free(am_outset *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++) {
        entry *e = &set->e[i];
        if (e->temp)
            unlink(e->temp);
        if (e->fd >= 0)
            close(e->fd);
        free(e->name);
        free(e->path);
        free(e->target);
        free(e->temp);
    }
    free(set->e);
    free(set->dir);
    free(set);
}

const char *am_outset_path(const am_outset *set, const char *name)
{
    const entry *e = find(set, name);
    return e ? e->path : NULL;
}

const char *am_outset_temp_path(const am_outset *set, const char *name)
{
    const entry *e = find(set, name);
    return e && e->added ? e->temp : NULL;
}

size_t am_outset_swept(const am_outset *set)
{
    return set ? set->swept : 0;
}

bool am_outset_was_removed(const am_outset *set, const char *name)
{
    const entry *e = find(set, name);
    return e && e->removed;
}
