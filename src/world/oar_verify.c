#include "world/oar_verify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/io.h"
#include "world/digest.h"

void am_oar_verify_options_init(am_oar_verify_options *vo)
{
    memset(vo, 0, sizeof *vo);
    vo->appear_ms = 3000;
    vo->complete_ms = 0; /* the RemoteAdmin total timeout */
    vo->poll_ms = 200;
    vo->region_uid = 0; /* our own */
    vo->play_wait_ms = 20000;
    vo->play_poll_ms = 1000;
}

long am_oar_verify_uid(long uid)
{
    return uid < 0 ? 0 : uid == 0 ? AM_OPTION_ZERO : uid;
}

/* The save's options with their defaults in place, as the save begins (region_uid stays as
 * given; am_oar_verify reads the play fields itself). */
static am_oar_verify_options resolved(const am_oar_verify_options *in, const am_remoteadmin_options *ra)
{
    am_oar_verify_options vo = *in;
    vo.appear_ms = vo.appear_ms > 0 ? vo.appear_ms : 3000;
    vo.complete_ms = vo.complete_ms > 0 ? vo.complete_ms
                                        : am_option_int(ra->total_timeout_ms, AM_REMOTEADMIN_DEFAULT_TOTAL_TIMEOUT_MS);
    vo.poll_ms = vo.poll_ms > 0 ? vo.poll_ms : 200;
    return vo;
}

bool am_oar_starter_animation(const am_oar_contents *ours, char *name, size_t size)
{
    if (size)
        name[0] = '\0';
    if (ours->object_count == 0 || ours->objects[0].part_count == 0)
        return false;
    const am_oar_part *root = &ours->objects[0].parts[0];
    for (size_t i = 0; i < root->item_count; i++) {
        if (root->items[i].type != 10)
            continue;
        char u[37], path[64];
        am_uuid_format(&root->items[i].asset, u);
        snprintf(path, sizeof path, "assets/%s_script.lsl", u);
        const am_oar_entry *e = am_oar_find_entry(ours, path);
        const char *key = "string ANIMATION = \"";
        size_t kl = strlen(key);
        for (size_t at = 0; e && size && at + kl <= e->size; at++) {
            if (memcmp(e->data + at, key, kl) != 0)
                continue;
            size_t k = 0; /* the LSL string, its \" and \\ escapes undone */
            for (size_t j = at + kl; j < e->size && e->data[j] != '"' && e->data[j] != '\n' && k + 1 < size; j++) {
                if (e->data[j] == '\\' && j + 1 < e->size)
                    j++;
                name[k++] = (char)e->data[j];
            }
            name[k] = '\0';
            break;
        }
        return true;
    }
    return false;
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Which entries of the region's save matter: archive.xml, our assets, and the objects that name
 * one of our root meshes (OpenSim writes the sculpt texture as text in <SculptTexture>) or, for
 * a root without a mesh, its name. */
static bool keep_ours(const char *path, const uint8_t *data, size_t size, void *user)
{
    (void)size;
    const am_oar_contents *ours = user;
    if (strncmp(path, "assets/", 7) == 0)
        return am_oar_find_entry(ours, path) != NULL;
    if (strncmp(path, "objects/", 8) != 0)
        return false;
    for (size_t i = 0; i < ours->object_count; i++) {
        const am_oar_part *root = &ours->objects[i].parts[0];
        char needle[300];
        if (root->has_sculpt)
            am_uuid_format(&root->sculpt, needle);
        else
            snprintf(needle, sizeof needle, "<Name>%s</Name>", root->name);
        if (strstr((const char *)data, needle))
            return true;
    }
    return false;
}

/* What the region's save must be to be read: a regular file (never a link, a FIFO or a
 * device), one link, owned by the region's user, changed since the request was sent. */
typedef struct save_rules {
    struct timespec requested; /* CLOCK_REALTIME, just before admin_save_oar */
    uid_t owner;
} save_rules;

/* Open the save as it stands now: *fd -1 (AM_OK) when nothing is there yet. Never follows a
 * link and never waits on a FIFO (O_NOFOLLOW | O_NONBLOCK); anything but the save the rules
 * describe is refused at once (AM_ERR_INVALID). */
static am_status open_save(const char *path, const save_rules *r, int *fd, struct stat *st, am_error *err)
{
    *fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0) {
        if (errno == ENOENT)
            return AM_OK;
        am_status s = errno == ELOOP ? am_fail(err, AM_ERR_INVALID, "a symbolic link is where the region's save "
                                                                    "should be: refused, not followed")
                                     : am_fail(err, AM_ERR_IO, "cannot open the region's save: %s", strerror(errno));
        am_error_where(err, "%s", path);
        return s;
    }
    am_status s = AM_OK;
    if (fstat(*fd, st) != 0)
        s = am_fail(err, AM_ERR_IO, "cannot look at the region's save: %s", strerror(errno));
    else if (!S_ISREG(st->st_mode))
        s = am_fail(err, AM_ERR_INVALID, "not a regular file (%s) where the region's save should be: refused",
                    S_ISFIFO(st->st_mode) ? "a FIFO" : S_ISDIR(st->st_mode) ? "a directory" : "a special file");
    else if (st->st_uid != r->owner)
        s = am_fail(err, AM_ERR_INVALID,
                    "the file where the region's save should be belongs to uid %u, not the region's %u: refused "
                    "(the region_uid option names the user the region runs as)",
                    (unsigned)st->st_uid, (unsigned)r->owner);
    else if (st->st_nlink != 1)
        s = am_fail(err, AM_ERR_INVALID, "the file where the region's save should be has %lu links: refused",
                    (unsigned long)st->st_nlink);
    else if (st->st_mtim.tv_sec < r->requested.tv_sec || st->st_ctim.tv_sec < r->requested.tv_sec)
        s = am_fail(err, AM_ERR_INVALID,
                    "the file where the region's save should be is older than the request: refused (planted)");
    else if (fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0)
        s = am_fail(err, AM_ERR_IO, "cannot read the region's save: %s", strerror(errno));
    if (s) {
        am_error_where(err, "%s", path);
        close(*fd);
        *fd = -1;
    }
    return s;
}

/* Wait until the save exists (appear_ms), then until it reads as a whole archive
 * (complete_ms); every look goes through open_save, and the file must stay the one first
 * seen (same inode). */
static am_status read_when_whole(const char *path, const save_rules *rules, am_oar_keep_fn keep, void *user,
                                 const am_oar_verify_options *vo, long complete_ms, am_oar_contents *saved,
                                 am_error *err)
{
    long t0 = now_ms();
    int fd;
    struct stat first;
    for (;;) {
        am_status s = open_save(path, rules, &fd, &first, err);
        if (s)
            return s;
        if (fd >= 0)
            break;
        if (now_ms() - t0 > vo->appear_ms)
            return am_fail(err, AM_ERR_IO,
                           "the region answered `saved` but its save %s is not on this machine after %.1f s: the "
                           "region host's file system is not this one (give the dir option a directory both see "
                           "at the same path, or do not verify)",
                           path, vo->appear_ms / 1000.0);
        sleep_ms(vo->poll_ms);
    }
    t0 = now_ms();
    for (;;) {
        uint8_t *data = NULL;
        size_t size = 0;
        am_error rerr;
        am_status s = am_read_fd_as(fd, path, &am_oar_file_format, &data, &size, &rerr);
        close(fd);
        if (!s)
            s = keep ? am_oar_read_filtered(data, size, keep, user, saved, &rerr)
                     : am_oar_read(data, size, saved, &rerr);
        free(data);
        if (!s)
            return AM_OK;
        if (s == AM_ERR_NOMEM) {
            *err = rerr;
            return s;
        }
        if (now_ms() - t0 > complete_ms) {
            char b[400];
            s = am_fail(err, AM_ERR_INVALID, "the region's save is not whole after %.0f s: %s", complete_ms / 1000.0,
                        am_error_format(&rerr, b, sizeof b));
            am_error_where(err, "%s", path);
            return s;
        }
        sleep_ms(vo->poll_ms);
        struct stat now;
        if ((s = open_save(path, rules, &fd, &now, err)))
            return s;
        if (fd < 0 || now.st_dev != first.st_dev || now.st_ino != first.st_ino) {
            if (fd >= 0)
                close(fd);
            s = am_fail(err, AM_ERR_INVALID, "the region's save was removed or replaced while it was read: refused");
            am_error_where(err, "%s", path);
            return s;
        }
    }
}

/* "region-<32 hex digits>.oar": 128 random bits, so nobody can derive the name the region is
 * asked to save to (the folder's own name is visible to anyone listing its parent). */
static am_status save_name(char *out, size_t size, am_error *err)
{
    uint8_t r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n < 0 && errno != EINTR)
            return am_fail(err, AM_ERR_IO, "no random bytes for the save's name: %s", strerror(errno));
        got += n > 0 ? (size_t)n : 0;
    }
    char hex[33];
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(hex + 2 * i, 3, "%02x", r[i]);
    snprintf(out, size, "region-%s.oar", hex);
    return AM_OK;
}

/* Empty the save's folder and remove it: whatever is in it (the save, or anything another
 * user put there: the folder takes anyone's files), links removed, never followed. */
static void remove_folder(const char *dir)
{
    for (int attempt = 0; attempt < 3 && rmdir(dir) != 0; attempt++) {
        DIR *d = opendir(dir);
        if (!d)
            return;
        for (struct dirent *e; (e = readdir(d));)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && unlinkat(dirfd(d), e->d_name, 0) != 0)
                (void)unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
        closedir(d);
    }
}

am_status am_oar_region_save(const am_remoteadmin_options *ra, const char *region_name, const char *region_id,
                             am_oar_keep_fn keep, void *user, const am_oar_verify_options *vo,
                             am_oar_contents *saved, am_error *err)
{
    memset(saved, 0, sizeof *saved);
    am_oar_verify_options given = resolved(vo, ra);
    vo = &given;
    const char *base = vo->dir;
    if (!base || !base[0])
        base = getenv("TMPDIR");
    if (!base || !base[0])
        base = "/tmp";
    char dir[PATH_MAX], path[PATH_MAX + 64], theirs[PATH_MAX + 128], name[64];
    if (snprintf(dir, sizeof dir, "%s/animesh-verify-XXXXXX", base) >= (int)sizeof dir)
        return am_fail(err, AM_ERR_USAGE, "the dir option's path is too long");
    am_status s = save_name(name, sizeof name, err);
    if (s)
        return s;
    if (!mkdtemp(dir))
        return am_fail(err, AM_ERR_IO, "cannot make a directory for the region's save in %s: %s", base,
                       strerror(errno));
    /* The region may run as another user: it must be able to create the file here. */
    s = chmod(dir, 0733) == 0 ? AM_OK : am_fail(err, AM_ERR_IO, "chmod %s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    /* The region names the same file through its own mount of the folder. */
    if (vo->region_dir && vo->region_dir[0])
        snprintf(theirs, sizeof theirs, "%s/%s/%s", vo->region_dir, strrchr(dir, '/') + 1, name);
    else
        snprintf(theirs, sizeof theirs, "%s", path);
    save_rules rules = {.owner = vo->region_uid > 0                  ? (uid_t)vo->region_uid
                                : vo->region_uid == AM_OPTION_ZERO ? (uid_t)0
                                                                   : geteuid()};
    clock_gettime(CLOCK_REALTIME, &rules.requested);
    if (!s) {
        am_remoteadmin_save_oar req = {theirs, region_name, region_id};
        am_remoteadmin_reply reply;
        s = am_remoteadmin_save_oar_call(ra, &req, &reply, NULL, err);
        am_remoteadmin_reply_free(&reply);
    }
    if (!s)
        s = read_when_whole(path, &rules, keep, user, vo,
                            vo->complete_ms, saved, err);
    remove_folder(dir);
    return s;
}

/* One save of the region, read back and compared with ours. */
static am_status save_and_compare(const am_remoteadmin_options *ra, const char *region_name, const char *region_id,
                                  const am_oar_contents *ours, const am_oar_verify_options *vo, am_oar_diff *diff,
                                  am_error *err)
{
    memset(diff, 0, sizeof *diff);
    am_oar_contents saved;
    am_status s = am_oar_region_save(ra, region_name, region_id, keep_ours, (void *)ours, vo, &saved, err);
    if (!s)
        s = am_oar_compare(ours, &saved, diff, err);
    am_oar_contents_free(&saved);
    return s;
}

am_status am_oar_verify(const am_remoteadmin_options *ra, const char *region_name, const char *region_id,
                        const am_oar_contents *ours, const am_oar_verify_options *vo, am_oar_diff *diff,
                        am_error *err)
{
    char anim[256];
    bool starter = am_oar_starter_animation(ours, anim, sizeof anim);
    long t0 = now_ms(), poll = vo->play_poll_ms > 0 ? vo->play_poll_ms : 1000;
    long wait = am_option_int(vo->play_wait_ms, 20000);
    unsigned saves = 0;
    for (;;) {
        am_status s = save_and_compare(ra, region_name, region_id, ours, vo, diff, err);
        if (s)
            return s;
        saves++;
        /* a save that differs is the finding already; one that plays is what we wait for */
        long waited = now_ms() - t0;
        if (!starter || diff->count || diff->playing[0] || waited + poll > wait)
            break;
        am_oar_diff_free(diff);
        sleep_ms(poll);
    }
    diff->starter = starter;
    snprintf(diff->starter_anim, sizeof diff->starter_anim, "%s", anim);
    diff->saves = saves;
    diff->waited_s = (now_ms() - t0) / 1000.0;
    return AM_OK;
}
