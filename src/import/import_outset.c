/* The run's outputs held in memory, then one core output set per folder (import_outset.h). */
#include "import/import_outset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/outset.h"

static am_status add_entry(am_import_outset *o, const char *given, am_buf *data, bool stale, am_error *err)
{
    /* A bare name ("--oar bear.oar") is a file in the current folder. */
    char bare[sizeof o->files[0].path];
    const char *path = given;
    if (!strchr(given, '/') && snprintf(bare, sizeof bare, "./%s", given) < (int)sizeof bare)
        path = bare;
    for (size_t i = 0; i < o->count; i++)
        if (strcmp(o->files[i].path, path) == 0) {
            am_buf_free(data);
            return am_fail(err, AM_ERR_INVALID, "two outputs of this run would be %s", path);
        }
    if (strlen(path) >= sizeof o->files[0].path || !strrchr(path, '/') || !strrchr(path, '/')[1]) {
        am_buf_free(data);
        return am_fail(err, AM_ERR_IO, "output path too long or not DIR/NAME: %s", given);
    }
    if (o->count == o->cap) {
        size_t nc = o->cap ? 2 * o->cap : 16;
        am_import_output *nf = realloc(o->files, nc * sizeof *nf);
        if (!nf) {
            am_buf_free(data);
            return am_fail_nomem(err, "outputs");
        }
        o->files = nf;
        o->cap = nc;
    }
    am_import_output *f = &o->files[o->count++];
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    f->stale = stale;
    if (data) {
        f->data = *data;
        memset(data, 0, sizeof *data);
    }
    return AM_OK;
}

am_status am_import_outset_add(am_import_outset *o, const char *path, am_buf *data, am_error *err)
{
    return add_entry(o, path, data, false, err);
}

am_status am_import_outset_add_copy(am_import_outset *o, const char *path, const void *data, size_t size,
                                    am_error *err)
{
    am_buf b = {0};
    am_status st = am_buf_append(&b, data, size, err);
    if (st) {
        am_buf_free(&b);
        return st;
    }
    return am_import_outset_add(o, path, &b, err);
}

am_status am_import_outset_stale(am_import_outset *o, const char *path, am_error *err)
{
    return add_entry(o, path, NULL, true, err);
}

am_status am_import_outset_own(am_import_outset *o, const char *dir, const char *manifest, am_error *err)
{
    if (strchr(manifest, '/') || snprintf(o->manifest, sizeof o->manifest, "%s", manifest) >= (int)sizeof o->manifest ||
        snprintf(o->owner_dir, sizeof o->owner_dir, "%s", dir[0] ? dir : ".") >= (int)sizeof o->owner_dir) {
        o->manifest[0] = '\0';
        return am_fail(err, AM_ERR_IO, "output manifest name too long or not a plain name: %s", manifest);
    }
    /* the folder as dir_of sees DIR/NAME: "out/" is "out" */
    for (size_t n = strlen(o->owner_dir); n > 1 && o->owner_dir[n - 1] == '/'; n--)
        o->owner_dir[n - 1] = '\0';
    return AM_OK;
}

/* The names each set removed, as DIR/NAME, and the files it left (am_outset_warning). */
static am_status collect_removed(am_import_outset *o, const char *dir, const am_outset *set, am_error *err)
{
    for (size_t i = 0; am_outset_warning(set, i); i++) {
        char (*nl)[1200] = realloc(o->left, (o->left_count + 1) * sizeof *nl);
        if (!nl)
            return am_fail_nomem(err, "outputs");
        o->left = nl;
        snprintf(o->left[o->left_count++], sizeof o->left[0], "%s", am_outset_warning(set, i));
    }
    for (size_t i = 0; am_outset_removed_name(set, i); i++) {
        char (*nr)[1024] = realloc(o->removed, (o->removed_count + 1) * sizeof *nr);
        if (!nr)
            return am_fail_nomem(err, "outputs");
        o->removed = nr;
        snprintf(o->removed[o->removed_count++], sizeof o->removed[0], "%s/%s", dir, am_outset_removed_name(set, i));
    }
    return AM_OK;
}

/* The folder part of a DIR/NAME path ("." for a bare name). */
static void dir_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, size, ".");
    else if (slash == path)
        snprintf(out, size, "/");
    else
        snprintf(out, size, "%.*s", (int)(slash - path), path);
}

am_status am_import_outset_commit(am_import_outset *o, am_error *err)
{
    /* one core output set per folder (the archive may go elsewhere than DIR) */
    char (*dirs)[1024] = calloc(o->count ? o->count : 1, sizeof *dirs);
    am_outset **sets = calloc(o->count ? o->count : 1, sizeof *sets);
    char **created = calloc(o->count ? o->count : 1, sizeof *created); /* the folders made here */
    size_t nd = 0;
    am_status st = AM_OK;
    if (!dirs || !sets || !created)
        st = am_fail_nomem(err, "outputs");
    for (size_t i = 0; i < o->count && !st; i++) {
        char d[1024];
        dir_of(o->files[i].path, d, sizeof d);
        size_t k = 0;
        while (k < nd && strcmp(dirs[k], d) != 0)
            k++;
        if (k == nd) {
            snprintf(dirs[nd++], sizeof dirs[0], "%s", d);
            /* the folders appear only now, when every output is complete in memory */
            if (!(st = am_mkdir_p_new(d, &created[k], err)))
                st = am_outset_begin(&sets[k], d, NULL, 0, err);
            if (!st && o->manifest[0] && strcmp(d, o->owner_dir) == 0)
                st = am_outset_own(sets[k], o->manifest, err);
            if (st)
                break;
        }
        const char *name = strrchr(o->files[i].path, '/') + 1;
        st = o->files[i].stale ? am_outset_remove_stale(sets[k], name, err)
                               : am_outset_add(sets[k], name, o->files[i].data.data, o->files[i].data.size, err);
    }
    for (size_t k = 0; k < nd && !st; k++)
        st = am_outset_commit(sets[k], err);
    for (size_t k = 0; k < nd && !st; k++)
        st = collect_removed(o, dirs[k], sets[k], err);
    for (size_t k = 0; sets && k < nd; k++)
        am_outset_free(sets[k]);
    /* a failed run leaves no folder it created (one holding anything is kept) */
    for (size_t k = 0; created && k < nd; k++) {
        if (st)
            am_rmdir_new(dirs[k], created[k]);
        free(created[k]);
    }
    free(created);
    free(sets);
    free(dirs);
    return st;
}

void am_import_outset_free(am_import_outset *o)
{
    for (size_t i = 0; i < o->count; i++)
        am_buf_free(&o->files[i].data);
    free(o->files);
    free(o->removed);
    free(o->left);
    memset(o, 0, sizeof *o);
}
