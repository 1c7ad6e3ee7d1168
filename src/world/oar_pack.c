#include "world/oar_pack.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world/archive_lib.h"
#include "world/oar.h"

typedef struct sink {
    const am_archive_api *ar;
    am_buf *out;
    int failed;
} sink;

static la_ssize_t on_write(struct archive *a, void *user, const void *buf, size_t n)
{
    sink *k = user;
    if (am_buf_append(k->out, buf, n, NULL)) {
        k->failed = 1;
        k->ar->set_error(a, 12, "out of memory");
        return -1;
    }
    return (la_ssize_t)n;
}

static am_status add_entry(const am_archive_api *ar, struct archive *a, const char *path, const void *data, size_t n,
                           int64_t mtime, am_error *err)
{
    if (strlen(path) > AM_OAR_MAX_PATH)
        return am_fail(err, AM_ERR_INVALID, "archive path longer than %d bytes: %s", AM_OAR_MAX_PATH, path);
    struct archive_entry *e = ar->entry_new();
    if (!e)
        return am_fail_nomem(err, "tar entry");
    ar->entry_set_pathname(e, path);
    ar->entry_set_size(e, (la_int64_t)n);
    ar->entry_set_filetype(e, AE_IFREG);
    ar->entry_set_perm(e, 0644);
    ar->entry_set_mtime(e, (time_t)mtime, 0);
    ar->entry_set_uid(e, 0);
    ar->entry_set_gid(e, 0);
    am_status s = AM_OK;
    if (ar->write_header(a, e) != ARCHIVE_OK)
        s = am_fail(err, AM_ERR_IO, "tar header for %s: %s", path, ar->error_string(a));
    else if (n && ar->write_data(a, data, n) != (la_ssize_t)n)
        s = am_fail(err, AM_ERR_IO, "tar data for %s: %s", path, ar->error_string(a));
    ar->entry_free(e);
    return s;
}

am_status am_oar_pack(const am_oar_entry *entries, size_t count, int64_t mtime, am_buf *out, am_error *err)
{
    am_archive_api ar = {0};
    am_status s = am_archive_open(&ar, err);
    if (s)
        return s;
    struct archive *a = ar.write_new();
    if (!a)
        return am_fail_nomem(err, "libarchive");
    sink k = {&ar, out, 0};
    if (ar.write_set_format_ustar(a) != ARCHIVE_OK || ar.write_add_filter_gzip(a) != ARCHIVE_OK ||
        ar.write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
        ar.write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
        ar.write_open2(a, &k, NULL, on_write, NULL, NULL) != ARCHIVE_OK)
        s = am_fail(err, AM_ERR_IO, "libarchive: %s", ar.error_string(a));
    for (size_t i = 0; !s && i < count; i++)
        s = add_entry(&ar, a, entries[i].path, entries[i].data, entries[i].size, mtime, err);
    if (ar.write_close(a) != ARCHIVE_OK && !s)
        s = k.failed ? am_fail_nomem(err, "OAR") : am_fail(err, AM_ERR_IO, "libarchive: %s", ar.error_string(a));
    ar.write_free(a);
    return s;
}

/* The object XML with every <GroupPosition>...</GroupPosition> replaced. */
static am_status move_xml(const am_oar_entry *e, const double p[3], am_buf *out, am_error *err)
{
    static const char open[] = "<GroupPosition>", close[] = "</GroupPosition>";
    const char *s = (const char *)e->data, *end = s + e->size;
    am_status st = AM_OK;
    size_t moved = 0;
    while (!st) {
        const char *o = strstr(s, open);
        const char *c = o ? strstr(o, close) : NULL;
        if (!o || !c || c > end) {
            st = am_buf_append(out, s, (size_t)(end - s), err);
            break;
        }
        st = am_buf_append(out, s, (size_t)(o - s), err);
        if (!st)
            st = am_buf_printf(out, err, "<GroupPosition><X>%.9g</X><Y>%.9g</Y><Z>%.9g</Z></GroupPosition>", p[0],
                               p[1], p[2]);
        s = c + strlen(close);
        moved++;
    }
    if (!st && !moved)
        st = am_fail_where(err, AM_ERR_INVALID, e->path, "no <GroupPosition> to move");
    return st;
}

/* objects/<Name>_<x>-<y>-<z>__<UUID>.xml with the new position (the name is kept as read when
 * it does not have that form: OpenSim reads the position from the XML, not the name). */
static am_status move_path(const char *path, const double p[3], char **out, am_error *err)
{
    const char *uu = strstr(path, "__");
    for (const char *n; uu && (n = strstr(uu + 2, "__"));)
        uu = n;
    const char *us = NULL;
    for (const char *q = uu ? uu - 1 : NULL; q && q > path; q--)
        if (*q == '_') {
            us = q;
            break;
        }
    size_t cap = strlen(path) + 64;
    char *b = malloc(cap);
    if (!b)
        return am_fail_nomem(err, "archive path");
    if (us && uu)
        snprintf(b, cap, "%.*s_%d-%d-%d%s", (int)(us - path), path, (int)lround(p[0]), (int)lround(p[1]),
                 (int)lround(p[2]), uu);
    else
        snprintf(b, cap, "%s", path);
    *out = b;
    return AM_OK;
}

am_status am_oar_place(const am_oar_contents *c, const double position[3], int64_t mtime, am_buf *out,
                       am_error *err)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(position[k]) || position[k] < 0 || position[k] > 10000)
            return am_fail(err, AM_ERR_INVALID, "position %g is not a region coordinate (0..10000 m)", position[k]);
    am_oar_entry *moved = calloc(c->entry_count ? c->entry_count : 1, sizeof *moved);
    am_buf *xml = calloc(c->entry_count ? c->entry_count : 1, sizeof *xml);
    char **paths = calloc(c->entry_count ? c->entry_count : 1, sizeof *paths);
    am_status s = moved && xml && paths ? AM_OK : am_fail_nomem(err, "moved archive");
    for (size_t i = 0; !s && i < c->entry_count; i++) {
        const am_oar_entry *e = &c->entries[i];
        moved[i] = *e;
        if (strncmp(e->path, "objects/", 8) != 0)
            continue;
        if (!(s = move_xml(e, position, &xml[i], err)) && !(s = move_path(e->path, position, &paths[i], err))) {
            moved[i].path = paths[i];
            moved[i].data = xml[i].data;
            moved[i].size = xml[i].size;
        }
    }
    if (!s)
        s = am_oar_pack(moved, c->entry_count, mtime, out, err);
    for (size_t i = 0; xml && paths && i < c->entry_count; i++) {
        am_buf_free(&xml[i]);
        free(paths[i]);
    }
    free(moved);
    free(xml);
    free(paths);
    return s;
}
