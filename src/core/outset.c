/* Output sets (outset.h): temp files beside their targets, locked while alive, renamed
 * together at commit. */
#include "core/outset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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
#include "core/notes.h"
#include "core/parallel.h"

#define TMP_TAG ".tmp"
#define TMP_RANDOM 6 /* "XXXXXX", as mkstemp: the pattern earlier versions left too */
#define JOURNAL_NAME ".animesh-outset-journal"
#define JOURNAL_MAGIC "animesh output set journal 2\n"
#define MANIFEST_MAGIC "animesh output set 2\n"
#define OLD_MANIFEST_MAGIC "animesh output set 1\n" /* names without identities: nothing removed */
#define IDENT_SIZE 96 /* "DEV:INO:SIZE:SEC.NSEC" */
#define WARNING_SIZE 1200
#define SMALL_FILE_MAX ((size_t)1 << 20) /* a journal or a manifest */
#define SYNCS_AT_ONCE 4 /* temps being fsync'd beside the caller; a fifth waits for the first */

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* An added temp's fsync, on a thread of its own: the caller goes on with its work while
 * the disk catches up (each fsync waits for a journal commit: 0.2-8 ms each on the test
 * machine, 14-46 ms for a bind's eleven files one after another), and the commit waits for
 * every one. Its own
 * allocation, as the entries move when the set grows. */
typedef struct temp_sync {
    am_task task;
    int fd;
    int error; /* errno of a failed fsync, or 0 */
} temp_sync;

typedef struct entry {
    char *name; /* as declared */
    char *path; /* dir/name: the name itself is replaced, a symbolic link there is never followed */
    char *temp; /* path + ".tmpXXXXXX" once added, until commit */
    int fd;     /* open temp, holding its lock; -1 */
    temp_sync *sync; /* its fsync, started when added, until joined */
    bool added, stale, removed;
    bool owned_only; /* stale because the previous manifest listed it: only a regular file goes */
    char ident[IDENT_SIZE]; /* added: the temp as written; stale: the file to remove, as seen ("" none) */
} entry;

struct am_outset {
    char *dir;
    int dir_fd;     /* the folder, open for its lock (flock on the folder itself) */
    int dir_locked; /* nesting depth of our exclusive hold on it */
    entry *e;
    size_t n, cap;
    size_t swept, rolled_forward;
    char *manifest; /* the name of the set's manifest (am_outset_own), or NULL */
    bool committed;
    bool failed; /* an add failed: the set must not be committed */
    char **warnings; /* files a journal or manifest named but this run left (outset.h) */
    size_t warning_count;
};

/* A file's identity as this product records it when it writes the file: device, inode,
 * size and modification time (ns). A journal's or manifest's entry acts on a file only
 * while it still is that file: a planted journal or manifest cannot name another one. */
static void ident_of(const struct stat *st, char *out, size_t size)
{
    snprintf(out, size, "%llu:%llu:%lld:%lld.%09ld", (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
             (long long)st->st_size, (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
}

/* True when dir/NAME (a regular file, or a link itself: never followed) has identity `ident`. */
static bool ident_matches(int dir_fd, const char *name, const char *ident)
{
    struct stat st;
    char now[IDENT_SIZE];
    if (!ident || !ident[0] || fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
        return false;
    ident_of(&st, now, sizeof now);
    return strcmp(now, ident) == 0;
}

static void warn(am_outset *set, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(am_outset *set, const char *fmt, ...)
{
    am_error ignored;
    va_list ap;
    va_start(ap, fmt);
    (void)am_notes_vadd(&set->warnings, &set->warning_count, WARNING_SIZE, "output set", &ignored, fmt, ap);
    va_end(ap);
}

/* "left DIR/NAME: why" for the caller to show (am_outset_warning); dropped when out of memory. */
static void warn_left(am_outset *set, const char *name, const char *why)
{
    size_t dl = strlen(set->dir);
    warn(set, "left %s%s%s: %s", set->dir, dl && set->dir[dl - 1] == '/' ? "" : "/", name, why);
}

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

static am_status io_fail(am_error *err, int e, const char *path, const char *what)
{
    am_fail(err, AM_ERR_IO, "%s: %s", what, strerror(e));
    am_error_where(err, "%s", path);
    return AM_ERR_IO;
}

/* What stands at dir/NAME now may be replaced by a file: nothing, a file, or a symbolic
 * link (the link itself is replaced, never written through: it may lead out of the folder). */
static am_status check_target(const char *path, am_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? AM_OK : io_fail(err, errno, path, "cannot look at the output");
    if (S_ISDIR(st.st_mode))
        return io_fail(err, EISDIR, path, "cannot replace the output");
    return AM_OK;
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


/* The folder's lock: held (exclusively, flock on the folder itself) while temps are swept,
 * while a temp is created and locked, and for a whole commit. So a sweep never sees a temp
 * between its creation and its lock, and two commits into one folder never interleave. */
static am_status lock_folder(am_outset *set, am_error *err)
{
    if (set->dir_locked++ > 0)
        return AM_OK;
    while (flock(set->dir_fd, LOCK_EX) != 0) {
        if (errno == EINTR)
            continue;
        set->dir_locked--;
        return io_fail(err, errno, set->dir, "cannot lock the output folder");
    }
    return AM_OK;
}

static void unlock_folder(am_outset *set)
{
    if (set->dir_locked > 0 && --set->dir_locked == 0)
        (void)flock(set->dir_fd, LOCK_UN);
}

/* Remove "NAME.tmpXXXXXX" files in the folder that no live writer holds (the caller holds
 * the folder's lock: a temp not locked now belongs to a run that is gone). */
static void sweep(am_outset *set, const char *name)
{
    DIR *dh = opendir(set->dir);
    for (struct dirent *de; dh && (de = readdir(dh));) {
        if (!is_temp_of(de->d_name, name))
            continue;
        char *p = join2(set->dir, de->d_name);
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
}

static entry *find(const am_outset *set, const char *name)
{
    for (size_t i = 0; set && name && i < set->n; i++)
        if (strcmp(set->e[i].name, name) == 0)
            return &set->e[i];
    return NULL;
}

static bool plain_name(const char *name)
{
    return name && name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static am_status declare(am_outset *set, const char *name, entry **out, am_error *err)
{
    if ((*out = find(set, name)))
        return AM_OK;
    if (!plain_name(name))
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
    am_status s = !e->name || !e->path ? am_fail_nomem(err, "output set") : check_target(e->path, err);
    if (!s)
        s = lock_folder(set, err);
    if (s) {
        free(e->name);
        free(e->path);
        return s;
    }
    set->n++;
    sweep(set, e->name);
    unlock_folder(set);
    *out = e;
    return AM_OK;
}

/* A small file of ours in the folder (journal, manifest): never through a link, never a
 * FIFO, at most SMALL_FILE_MAX bytes. AM_OK with *data NULL when there is none. */
static am_status read_small(am_outset *set, const char *name, char **data, size_t *size, am_error *err)
{
    *data = NULL;
    *size = 0;
    int fd = openat(set->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    char *p = join2(set->dir, name);
    am_status s = p ? AM_OK : am_fail_nomem(err, "output set");
    struct stat st;
    if (fd < 0) {
        if (!s && errno != ENOENT && errno != ELOOP)
            s = io_fail(err, errno, p, "cannot read");
    } else if (!s && fstat(fd, &st) != 0) {
        s = io_fail(err, errno, p, "cannot read");
    } else if (!s && S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > SMALL_FILE_MAX) {
            s = am_fail(err, AM_ERR_INVALID, "over %zu bytes: not written by animesh", SMALL_FILE_MAX);
            am_error_where(err, "%s", p);
        } else if (!(*data = malloc((size_t)st.st_size + 1))) {
            s = am_fail_nomem(err, p);
        } else {
            ssize_t r = pread(fd, *data, (size_t)st.st_size, 0);
            if (r != (ssize_t)st.st_size) {
                s = io_fail(err, r < 0 ? errno : EIO, p, "cannot read");
                free(*data);
                *data = NULL;
            } else {
                (*data)[r] = '\0';
                *size = (size_t)r;
            }
        }
    }
    if (fd >= 0)
        close(fd);
    free(p);
    return s;
}

/* Make the renames in the folder durable. */
static void sync_folder(am_outset *set)
{
    (void)fsync(set->dir_fd); /* some file systems refuse a directory fsync: nothing to do then */
}

/* Finish what a run killed inside its commit journaled (the caller holds the folder's lock,
 * so the journal's writer is gone): its stale files removed, its temps renamed into place. */
static am_status roll_forward(am_outset *set, am_error *err)
{
    (void)unlinkat(set->dir_fd, JOURNAL_NAME ".tmp", 0); /* never completed: never acted on */
    char *j;
    size_t n;
    am_status s = read_small(set, JOURNAL_NAME, &j, &n, err);
    if (s || !j)
        return s;
    size_t magic = sizeof JOURNAL_MAGIC - 1;
    bool ok = n >= magic && memcmp(j, JOURNAL_MAGIC, magic) == 0 && j[n - 1] == '\0';
    /* records: 'D' NAME NUL IDENT NUL (remove) or 'R' TEMP NUL NAME NUL IDENT NUL (rename),
     * first checked whole; IDENT is what the journal's writer recorded of the file (the
     * temp it wrote, the stale file it saw): a file that is no longer that one is left */
    for (int pass = 0; ok && pass < 2; pass++) {
        for (size_t at = magic; ok && at < n;) {
            char op = j[at++];
            const char *a = j + at, *b = NULL, *id = NULL;
            at += strlen(a) + 1;
            if (op == 'R' && at < n) {
                b = j + at;
                at += strlen(b) + 1;
            }
            if (at < n) {
                id = j + at;
                at += strlen(id) + 1;
            }
            ok = at <= n && id && id[0] && strlen(id) < IDENT_SIZE && plain_name(a) &&
                 (op == 'D' || (op == 'R' && b && plain_name(b) && is_temp_of(a, b)));
            if (!ok || pass == 0)
                continue;
            struct stat st;
            if (fstatat(set->dir_fd, a, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue; /* done before the kill */
            if (!ident_matches(set->dir_fd, a, id)) {
                warn_left(set, a, op == 'D' ? "an output set journal named it for removal, but it is not the file "
                                              "animesh saw there (planted, or changed since): not removed"
                                            : "an output set journal named it as a temporary file of animesh's, but "
                                              "it is not the one animesh wrote: not renamed");
                continue;
            }
            if (op == 'D')
                (void)unlinkat(set->dir_fd, a, 0);
            if (op == 'R') {
                if (renameat(set->dir_fd, a, set->dir_fd, b) != 0) {
                    free(j);
                    char *p = join2(set->dir, b);
                    s = io_fail(err, errno, p ? p : b, "cannot finish the interrupted run's commit");
                    free(p);
                    return s;
                }
                set->rolled_forward++;
            }
        }
    }
    free(j);
    if (!ok) {
        char *p = join2(set->dir, JOURNAL_NAME);
        am_fail(err, AM_ERR_INVALID, "not an output set journal animesh wrote: look at it, then remove it");
        am_error_where(err, "%s", p ? p : JOURNAL_NAME);
        free(p);
        return AM_ERR_INVALID;
    }
    sync_folder(set);
    (void)unlinkat(set->dir_fd, JOURNAL_NAME, 0);
    sync_folder(set);
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
    set->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    am_status s = set->dir_fd < 0 ? io_fail(err, errno, dir, "cannot write into the output folder")
                                  : lock_folder(set, err);
    if (!s) {
        s = roll_forward(set, err);
        for (size_t i = 0; i < count && !s; i++) {
            entry *e;
            s = declare(set, names[i], &e, err);
        }
        unlock_folder(set);
    }
    if (s) {
        am_outset_free(set);
        return s;
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
        int fd = open(t, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
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

/* The temp, created and locked while the folder's lock is held: no sweep can come between. */
static am_status open_temp(am_outset *set, entry *e, am_error *err)
{
    am_status s = lock_folder(set, err);
    if (s)
        return s;
    int fd = create_temp(e->path, &e->temp);
    if (fd < 0)
        s = io_fail(err, errno, e->path, "cannot create a temporary file beside it");
    else {
        e->fd = fd;
        e->added = true;
        e->stale = false;
        /* Nobody else can hold it yet; the lock tells a sweeping run that we are alive. */
        if (flock(fd, LOCK_EX | LOCK_NB) != 0)
            s = io_fail(err, errno, e->path, "cannot lock its temporary file");
    }
    unlock_folder(set);
    return s;
}

static void sync_run(void *user)
{
    temp_sync *ts = user;
    ts->error = fsync(ts->fd) != 0 ? errno : 0;
}

/* The entry's fsync waited for: its error, as finish_temp's "cannot finish writing". */
static am_status sync_join(entry *e, am_error *err)
{
    if (!e->sync)
        return AM_OK;
    am_task_join(&e->sync->task);
    int error = e->sync->error;
    free(e->sync);
    e->sync = NULL;
    return error ? io_fail(err, error, e->path, "cannot finish writing") : AM_OK;
}

/* Every fsync still running waited for; the first error (in the order added) reported. */
static am_status sync_join_all(am_outset *set, am_error *err)
{
    am_status s = AM_OK;
    for (size_t i = 0; i < set->n; i++) {
        am_error ignored;
        am_status si = sync_join(&set->e[i], s ? &ignored : err);
        if (!s)
            s = si;
    }
    return s;
}

/* The temp's mode, then its fsync started beside the caller (in the caller when no memory
 * is left for it); at most SYNCS_AT_ONCE run, the oldest waited for first. */
static am_status finish_temp(am_outset *set, entry *e, am_error *err)
{
    struct stat old, mine; /* a link is replaced, so only a regular file's mode is kept */
    if (lstat(e->path, &old) == 0 && S_ISREG(old.st_mode) && fchmod(e->fd, old.st_mode & 0777) != 0)
        return io_fail(err, errno, e->path, "cannot keep the mode of the file it replaces");
    if (fstat(e->fd, &mine) != 0) /* written in full: what the journal and the manifest record */
        return io_fail(err, errno, e->path, "cannot look at its temporary file");
    ident_of(&mine, e->ident, sizeof e->ident);
    size_t running = 0, oldest = set->n; /* the first added of those still running */
    for (size_t i = 0; i < set->n; i++)
        if (set->e[i].sync) {
            if (running++ == 0)
                oldest = i;
        }
    if (running >= SYNCS_AT_ONCE) {
        am_status s = sync_join(&set->e[oldest], err);
        if (s)
            return s;
    }
    e->sync = malloc(sizeof *e->sync);
    if (!e->sync) {
        if (fsync(e->fd) != 0)
            return io_fail(err, errno, e->path, "cannot finish writing");
        return AM_OK;
    }
    e->sync->fd = e->fd;
    e->sync->error = 0;
    am_task_start(&e->sync->task, sync_run, e->sync);
    return AM_OK;
}

static am_status write_temp(am_outset *set, entry *e, const void *data, size_t size, am_error *err)
{
    am_status s = open_temp(set, e, err);
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
    return finish_temp(set, e, err);
}

/* The temp file written by `fill` through a stream of its own (a duplicate descriptor, so
 * the entry keeps its locked one). */
static am_status stream_temp(am_outset *set, entry *e, am_outset_fill fill, void *user, am_error *err)
{
    am_status s = open_temp(set, e, err);
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
    return finish_temp(set, e, err);
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
        s = write_temp(set, e, data, size, err);
    if (s && set && !set->committed)
        set->failed = true; /* whatever failed, this set must not be committed */
    return s;
}

am_status am_outset_add_stream(am_outset *set, const char *name, am_outset_fill fill, void *user, am_error *err)
{
    entry *e = NULL;
    am_status s = entry_to_add(set, name, &e, err);
    if (!s)
        s = stream_temp(set, e, fill, user, err);
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

am_status am_outset_own(am_outset *set, const char *manifest, am_error *err)
{
    if (!set || set->committed || set->manifest)
        return am_fail(err, AM_ERR_USAGE, "output set: a manifest named twice or after commit");
    entry *e;
    am_status s = declare(set, manifest, &e, err);
    if (!s && !(set->manifest = am_strdup(manifest)))
        s = am_fail_nomem(err, "output set");
    if (s)
        set->failed = true;
    return s;
}

/* The previous manifest's names this set does not write become stale (regular files only);
 * the new manifest, listing what this set writes, joins the set. Under the folder's lock. */
static am_status update_manifest(am_outset *set, am_error *err)
{
    char *old;
    size_t n;
    am_status s = read_small(set, set->manifest, &old, &n, err);
    if (s)
        return s;
    size_t magic = sizeof MANIFEST_MAGIC - 1, old_magic = sizeof OLD_MANIFEST_MAGIC - 1;
    bool v2 = old && n >= magic && memcmp(old, MANIFEST_MAGIC, magic) == 0;
    bool v1 = old && !v2 && n >= old_magic && memcmp(old, OLD_MANIFEST_MAGIC, old_magic) == 0;
    /* v2 lines: "IDENT NAME" (IDENT: what this product recorded when it wrote NAME);
     * v1 lines: "NAME", with no record: such a file is left, and said so */
    for (char *line = old + (v2 ? magic : old_magic), *nl; (v1 || v2) && !s && *line; line = nl + 1) {
        if (!(nl = strchr(line, '\n')))
            break; /* a cut last line is not a name */
        *nl = '\0';
        char *name = line, *ident = NULL;
        if (v2) {
            char *sp = strchr(line, ' ');
            if (!sp)
                continue;
            *sp = '\0';
            ident = line;
            name = sp + 1;
        }
        entry *e = find(set, name);
        struct stat st;
        if (!plain_name(name) || strcmp(name, set->manifest) == 0 || (e && (e->added || e->stale)) ||
            fstatat(set->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue; /* only a regular file is the set's */
        if (!ident_matches(set->dir_fd, name, ident)) {
            warn_left(set, name,
                      v1 ? "the previous manifest lists it without a record of the file animesh wrote: not removed"
                         : "the previous manifest lists it, but it is not the file animesh wrote (planted, or "
                           "changed since): not removed");
            continue;
        }
        if (!(s = declare(set, name, &e, err))) {
            e->stale = e->owned_only = true;
            snprintf(e->ident, sizeof e->ident, "%s", ident);
        }
    }
    free(old);
    am_buf b = {0};
    if (!s)
        s = am_buf_append(&b, MANIFEST_MAGIC, magic, err);
    for (size_t i = 0; i < set->n && !s; i++)
        if (set->e[i].added && !strchr(set->e[i].name, '\n'))
            s = am_buf_printf(&b, err, "%s %s\n", set->e[i].ident, set->e[i].name);
    entry *m = find(set, set->manifest);
    if (!s)
        s = write_temp(set, m, b.data, b.size, err);
    am_buf_free(&b);
    return s;
}

/* The commit's plan, made durable before anything in place changes. */
static am_status write_journal(am_outset *set, am_error *err)
{
    am_buf b = {0};
    am_status s = am_buf_append(&b, JOURNAL_MAGIC, sizeof JOURNAL_MAGIC - 1, err);
    for (size_t i = 0; i < set->n && !s; i++) {
        entry *e = &set->e[i];
        const char *temp = e->temp && strrchr(e->temp, '/') ? strrchr(e->temp, '/') + 1 : e->temp;
        if (!e->stale && !e->added)
            continue;
        s = am_buf_append(&b, e->stale ? "D" : "R", 1, err);
        if (!s && !e->stale)
            s = am_buf_append(&b, temp, strlen(temp) + 1, err);
        if (!s)
            s = am_buf_append(&b, e->name, strlen(e->name) + 1, err);
        if (!s)
            s = am_buf_append(&b, e->ident, strlen(e->ident) + 1, err);
    }
    char *p = join2(set->dir, JOURNAL_NAME);
    if (!s && !p)
        s = am_fail_nomem(err, "output set");
    int fd = s ? -1 : openat(set->dir_fd, JOURNAL_NAME ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (!s && fd < 0)
        s = io_fail(err, errno, p, "cannot write the commit's journal");
    for (size_t at = 0; !s && at < b.size;) {
        ssize_t w = write(fd, b.data + at, b.size - at);
        if (w < 0 && errno != EINTR)
            s = io_fail(err, errno, p, "cannot write the commit's journal");
        at += w > 0 ? (size_t)w : 0;
    }
    if (!s && fsync(fd) != 0)
        s = io_fail(err, errno, p, "cannot write the commit's journal");
    if (fd >= 0)
        close(fd);
    if (!s && renameat(set->dir_fd, JOURNAL_NAME ".tmp", set->dir_fd, JOURNAL_NAME) != 0)
        s = io_fail(err, errno, p, "cannot write the commit's journal");
    if (s)
        (void)unlinkat(set->dir_fd, JOURNAL_NAME ".tmp", 0);
    else
        sync_folder(set);
    free(p);
    am_buf_free(&b);
    return s;
}

/* The stale names that will really go: an owned name only as a regular file; a named one
 * unless it is a folder (refused). */
static am_status check_stale(am_outset *set, am_error *err)
{
    for (size_t i = 0; i < set->n; i++) {
        entry *e = &set->e[i];
        struct stat st;
        if (!e->stale)
            continue;
        if (lstat(e->path, &st) != 0) {
            if (errno != ENOENT)
                return io_fail(err, errno, e->path, "cannot look at the stale file");
            e->stale = false; /* nothing to remove */
        } else if (e->owned_only && !S_ISREG(st.st_mode)) {
            e->stale = false;
        } else if (S_ISDIR(st.st_mode)) {
            return io_fail(err, EISDIR, e->path, "cannot remove the stale file");
        } else if (!e->owned_only) {
            ident_of(&st, e->ident, sizeof e->ident); /* the file seen now is the one removed */
        }
    }
    return AM_OK;
}

static am_status commit_locked(am_outset *set, am_error *err)
{
    am_status s = set->manifest ? update_manifest(set, err) : AM_OK;
    if (!s)
        s = check_stale(set, err);
    if (!s)
        s = write_journal(set, err);
    if (s)
        return s;
    /* From here the journal holds the plan: a failure or a kill is finished by the next run. */
    for (size_t i = 0; i < set->n; i++) {
        entry *e = &set->e[i];
        if (e->stale && !ident_matches(set->dir_fd, e->name, e->ident))
            warn_left(set, e->name, "changed while the run committed: not removed");
        else if (e->stale && unlink(e->path) == 0)
            e->removed = true;
        else if (e->stale && errno != ENOENT)
            s = io_fail(err, errno, e->path, "cannot remove the stale file; the next run into the folder finishes it");
        if (s)
            break;
    }
    for (size_t i = 0; i < set->n && !s; i++) {
        entry *e = &set->e[i];
        if (!e->added)
            continue;
        if (rename(e->temp, e->path) != 0)
            s = io_fail(err, errno, e->path, "cannot rename into place; the next run into the folder finishes it");
        else {
            free(e->temp);
            e->temp = NULL;
        }
    }
    if (s) {
        /* the journal names the temps left: keep them for the next run to rename */
        for (size_t i = 0; i < set->n; i++) {
            free(set->e[i].temp);
            set->e[i].temp = NULL;
        }
        return s;
    }
    sync_folder(set);
    (void)unlinkat(set->dir_fd, JOURNAL_NAME, 0);
    sync_folder(set);
    return AM_OK;
}

am_status am_outset_commit(am_outset *set, am_error *err)
{
    if (!set || set->committed)
        return am_fail(err, AM_ERR_USAGE, "output set committed twice");
    if (set->failed)
        return am_fail(err, AM_ERR_USAGE, "output set: an output failed to write; nothing is replaced");
    am_status s = sync_join_all(set, err); /* every temp on disk before the journal names it */
    if (s) {
        set->failed = true;
        return s;
    }
    s = lock_folder(set, err);
    if (s)
        return s;
    s = commit_locked(set, err);
    set->committed = !s;
    if (s)
        set->failed = true;
    for (size_t i = 0; i < set->n; i++) {
        entry *e = &set->e[i];
        if (!s && e->fd >= 0) {
            close(e->fd); /* after the rename: a live temp is never unlocked */
            e->fd = -1;
        }
    }
    unlock_folder(set);
    return s;
}

void am_outset_free(am_outset *set)
{
    if (!set)
        return;
    am_error ignored;
    (void)sync_join_all(set, &ignored); /* no fsync left running on a descriptor closed here */
    for (size_t i = 0; i < set->n; i++) {
        entry *e = &set->e[i];
        if (e->temp)
            unlink(e->temp);
        if (e->fd >= 0)
            close(e->fd);
        free(e->name);
        free(e->path);
        free(e->temp);
    }
    if (set->dir_fd >= 0)
        close(set->dir_fd);
    for (size_t i = 0; i < set->warning_count; i++)
        free(set->warnings[i]);
    free(set->warnings);
    free(set->e);
    free(set->dir);
    free(set->manifest);
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

size_t am_outset_rolled_forward(const am_outset *set)
{
    return set ? set->rolled_forward : 0;
}

bool am_outset_was_removed(const am_outset *set, const char *name)
{
    const entry *e = find(set, name);
    return e && e->removed;
}

const char *am_outset_removed_name(const am_outset *set, size_t i)
{
    for (size_t k = 0; set && k < set->n; k++)
        if (set->e[k].removed && i-- == 0)
            return set->e[k].name;
    return NULL;
}

const char *am_outset_warning(const am_outset *set, size_t i)
{
    return set && i < set->warning_count ? set->warnings[i] : NULL;
}
