#include "world/oar_verify.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/io.h"

void am_oar_verify_options_default(am_oar_verify_options *vo)
{
    memset(vo, 0, sizeof *vo);
    vo->appear_ms = 3000;
    vo->complete_ms = 0; /* the RemoteAdmin total timeout */
    vo->poll_ms = 200;
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

/* Wait until path exists (appear_ms), then until it reads as a whole archive (complete_ms). */
static am_status read_when_whole(const char *path, const am_oar_contents *ours, const am_oar_verify_options *vo,
                                 long complete_ms, am_oar_contents *saved, am_error *err)
{
    long t0 = now_ms();
    struct stat st;
    while (stat(path, &st) != 0) {
        if (now_ms() - t0 > vo->appear_ms)
            return am_fail(err, AM_ERR_IO,
                           "the region answered `saved` but its save %s is not on this machine after %.1f s: the "
                           "region host's file system is not this one (give --verify-dir DIR, a directory both see "
                           "at the same path, or --no-verify)",
                           path, vo->appear_ms / 1000.0);
        sleep_ms(vo->poll_ms);
    }
    t0 = now_ms();
    for (;;) {
        uint8_t *data = NULL;
        size_t size = 0;
        am_error rerr;
        am_status s = am_read_file_as(path, &am_oar_file_format, &data, &size, &rerr);
        if (!s)
            s = am_oar_read_filtered(data, size, keep_ours, (void *)ours, saved, &rerr);
        free(data);
        if (!s)
            return AM_OK;
        if (s == AM_ERR_NOMEM || (s == AM_ERR_IO && stat(path, &st) != 0)) {
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
    }
}

am_status am_oar_verify(const am_ra_options *ra, const char *region_name, const char *region_id,
                        const am_oar_contents *ours, const am_oar_verify_options *vo, am_oar_diff *diff,
                        am_error *err)
{
    memset(diff, 0, sizeof *diff);
    const char *base = vo->dir;
    if (!base || !base[0])
        base = getenv("TMPDIR");
    if (!base || !base[0])
        base = "/tmp";
    char dir[PATH_MAX], path[PATH_MAX + 32];
    if (snprintf(dir, sizeof dir, "%s/animesh-verify-XXXXXX", base) >= (int)sizeof dir)
        return am_fail(err, AM_ERR_USAGE, "--verify-dir path too long");
    if (!mkdtemp(dir))
        return am_fail(err, AM_ERR_IO, "cannot make a directory for the region's save in %s: %s", base,
                       strerror(errno));
    /* The region may run as another user: it must be able to create the file here. */
    am_status s = chmod(dir, 0733) == 0 ? AM_OK : am_fail(err, AM_ERR_IO, "chmod %s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/region-%s.oar", dir, dir + strlen(dir) - 6);
    if (!s) {
        am_ra_save_oar req = {path, region_name, region_id};
        am_ra_reply reply;
        s = am_ra_save_oar_call(ra, &req, &reply, NULL, err);
    }
    am_oar_contents saved;
    memset(&saved, 0, sizeof saved);
    if (!s)
        s = read_when_whole(path, ours, vo, vo->complete_ms > 0 ? vo->complete_ms : ra->total_timeout_ms, &saved, err);
    if (!s)
        s = am_oar_compare(ours, &saved, diff, err);
    am_oar_contents_free(&saved);
    unlink(path);
    rmdir(dir);
    return s;
}
