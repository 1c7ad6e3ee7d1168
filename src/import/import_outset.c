/* Stage all, then rename all (import_outset.h). */
#include "import/import_outset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

am_status am_import_outset_add(am_import_outset *o, const char *path, am_buf *data, am_error *err)
{
    for (size_t i = 0; i < o->count; i++)
        if (strcmp(o->files[i].path, path) == 0) {
            am_buf_free(data);
            return am_fail(err, AM_ERR_INVALID, "two outputs of this run would be %s", path);
        }
    if (strlen(path) >= sizeof o->files[0].path) {
        am_buf_free(data);
        return am_fail(err, AM_ERR_IO, "output path too long: %s", path);
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
    snprintf(f->path, sizeof f->path, "%s", path);
    f->data = *data;
    memset(data, 0, sizeof *data);
    return AM_OK;
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

/* "dir/.name.import-staged" next to the destination. */
static void staged_name(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(out, size, "%.*s/.%s.import-staged", (int)(slash - path), path, slash + 1);
    else
        snprintf(out, size, ".%s.import-staged", path);
}

static am_status parent_dir(const char *path, am_error *err)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return AM_OK;
    *slash = '\0';
    return am_mkdir_p(dir, err);
}

am_status am_import_outset_commit(am_import_outset *o, am_error *err)
{
    char staged[1100];
    size_t done = 0;
    am_status st = AM_OK;
    for (; done < o->count && !st; done++) {
        staged_name(o->files[done].path, staged, sizeof staged);
        if (!(st = parent_dir(o->files[done].path, err)))
            st = am_write_file_atomic(staged, o->files[done].data.data, o->files[done].data.size, err);
        if (st)
            break;
    }
    if (st) {
        for (size_t i = 0; i < done; i++) {
            staged_name(o->files[i].path, staged, sizeof staged);
            unlink(staged);
        }
        return st;
    }
    for (size_t i = 0; i < o->count; i++) {
        staged_name(o->files[i].path, staged, sizeof staged);
        if (rename(staged, o->files[i].path) != 0) {
            int e = errno;
            for (size_t k = i; k < o->count; k++) {
                staged_name(o->files[k].path, staged, sizeof staged);
                unlink(staged);
            }
            am_fail(err, AM_ERR_IO, "cannot rename into place: %s", strerror(e));
            am_error_where(err, "%s", o->files[i].path);
            return AM_ERR_IO;
        }
    }
    return AM_OK;
}

void am_import_outset_free(am_import_outset *o)
{
    for (size_t i = 0; i < o->count; i++)
        am_buf_free(&o->files[i].data);
    free(o->files);
    memset(o, 0, sizeof *o);
}
