/* Job keys (batch.h): SHA-256 of the files a job reads, remembered in the catalogue's hash
 * cache so that a run with nothing changed stats its inputs instead of reading them; and the
 * catalogue's paths and its one-writer locks. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/batch_internal.h"
#include "core/io.h"
#include "core/sha256.h"

bool am_batch_path(char *buf, size_t size, const char *catalog, const char *a, const char *b)
{
    int n = b ? snprintf(buf, size, "%s/%s/%s", catalog, a, b) : snprintf(buf, size, "%s/%s", catalog, a);
    return n > 0 && (size_t)n < size;
}

/* --- the cache ------------------------------------------------------------------------------ */

static int entry_cmp(const void *a, const void *b)
{
    const am_batch_hash_entry *x = a, *y = b;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    if (x->mtime_s != y->mtime_s)
        return x->mtime_s < y->mtime_s ? -1 : 1;
    if (x->mtime_ns != y->mtime_ns)
        return x->mtime_ns < y->mtime_ns ? -1 : 1;
    return 0;
}

static am_status cache_push(am_batch_hash_cache *c, const am_batch_hash_entry *e, am_error *err)
{
    if (c->count == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        am_batch_hash_entry *grown = realloc(c->entries, cap * sizeof *grown);
        if (!grown)
            return am_fail_nomem(err, "the hash cache");
        c->entries = grown;
        c->cap = cap;
    }
    c->entries[c->count++] = *e;
    return AM_OK;
}

static bool is_hex64(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return s[64] == '\0';
}

am_status am_batch_lock(const char *catalog, const char *dir, const char *what, int *fd, am_error *err)
{
    char path[AM_BATCH_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/.lock", dir);
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0)
        return am_fail_where(err, AM_ERR_IO, path, "cannot create: %s", strerror(errno));
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        close(*fd);
        *fd = -1;
        return am_fail_where(err, AM_ERR_USAGE, catalog, "another batch %s is running on this catalogue", what);
    }
    return AM_OK;
}

am_status am_batch_hash_cache_load(am_batch_hash_cache *c, const char *catalog, am_error *err)
{
    memset(c, 0, sizeof *c);
    char path[AM_BATCH_PATH_MAX];
    if (!am_batch_path(path, sizeof path, catalog, AM_BATCH_HASH_FILE, NULL))
        return am_fail_where(err, AM_ERR_INVALID, catalog, "the catalogue's path is too long");
    uint8_t *data = NULL;
    size_t size = 0;
    am_error ignored;
    if (am_read_file(path, &data, &size, &ignored))
        return AM_OK; /* no cache yet (or unreadable: everything is hashed again) */
    char *line = (char *)data, *end = (char *)data + size;
    am_status s = AM_OK;
    while (line < end && !s) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl)
            break;
        *nl = '\0';
        am_batch_hash_entry e;
        char hex[80];
        if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNd64 " %" SCNd64 " %79s", &e.dev, &e.ino, &e.size,
                   &e.mtime_s, &e.mtime_ns, hex) == 6 &&
            strlen(hex) == 64 && is_hex64(hex)) {
            memcpy(e.hex, hex, 65);
            s = cache_push(c, &e, err);
        }
        line = nl + 1;
    }
    free(data);
    if (s) {
        am_batch_hash_cache_free(c);
        return s;
    }
    qsort(c->entries, c->count, sizeof *c->entries, entry_cmp);
    c->loaded = c->count;
    return AM_OK;
}

am_status am_batch_hash_cached(am_batch_hash_cache *c, const char *path, char hex[65], am_error *err)
{
    if (!c)
        return am_sha256_file_hex(path, hex, err);
    struct stat st;
    if (stat(path, &st) != 0)
        return am_fail_where(err, AM_ERR_IO, path, "cannot read: %s", strerror(errno));
    am_batch_hash_entry key = {(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
                               (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec, ""};
    const am_batch_hash_entry *hit = c->loaded ? bsearch(&key, c->entries, c->loaded, sizeof key, entry_cmp) : NULL;
    for (size_t i = c->loaded; !hit && i < c->count; i++)
        if (entry_cmp(&key, &c->entries[i]) == 0)
            hit = &c->entries[i];
    if (hit) {
        memcpy(hex, hit->hex, 65);
        return AM_OK;
    }
    am_status s = am_sha256_file_hex(path, hex, err);
    if (s)
        return s;
    memcpy(key.hex, hex, 65);
    s = cache_push(c, &key, err);
    if (!s)
        c->dirty = true;
    return s;
}

am_status am_batch_hash_cache_save(am_batch_hash_cache *c, const char *catalog, am_error *err)
{
    if (!c->dirty)
        return AM_OK;
    am_buf b = {0};
    am_status s = AM_OK;
    for (size_t i = 0; i < c->count && !s; i++) {
        const am_batch_hash_entry *e = &c->entries[i];
        s = am_buf_printf(&b, err, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %s\n", e->dev, e->ino,
                          e->size, e->mtime_s, e->mtime_ns, e->hex);
    }
    char path[AM_BATCH_PATH_MAX];
    if (!s && !am_batch_path(path, sizeof path, catalog, AM_BATCH_HASH_FILE, NULL))
        s = am_fail_where(err, AM_ERR_INVALID, catalog, "the catalogue's path is too long");
    if (!s)
        s = am_write_file_atomic(path, b.data ? b.data : (const uint8_t *)"", b.size, err);
    am_buf_free(&b);
    if (!s)
        c->dirty = false;
    return s;
}

void am_batch_hash_cache_free(am_batch_hash_cache *c)
{
    if (!c)
        return;
    free(c->entries);
    memset(c, 0, sizeof *c);
}

/* --- keys ------------------------------------------------------------------------------------ */

/* One part of the key's text: a label and a value, each ending in a NUL so no two different
 * lists of parts can make the same text. */
static am_status key_part(am_sha256_stream *sha, const char *label, const char *value, am_error *err)
{
    am_status s = am_sha256_update(sha, label, strlen(label) + 1, err);
    return s ? s : am_sha256_update(sha, value, strlen(value) + 1, err);
}

/* A motion reference "PATH[:CLIP]": the file part is hashed, the clip kept as text. */
static am_status motion_part(am_sha256_stream *sha, am_batch_hash_cache *cache, const char *ref, am_error *err)
{
    char hex[65];
    const char *colon = strrchr(ref, ':');
    const char *slash = strrchr(ref, '/');
    char path[AM_BATCH_PATH_MAX];
    const char *clip = "";
    snprintf(path, sizeof path, "%s", ref);
    if (colon && (!slash || colon > slash) && access(ref, F_OK) != 0) {
        path[colon - ref] = '\0';
        clip = colon + 1;
    }
    am_status s = am_batch_hash_cached(cache, path, hex, err);
    if (!s)
        s = key_part(sha, "motion", hex, err);
    return s ? s : key_part(sha, "clip", clip, err);
}

am_status am_batch_key_with(const am_batch_plan *plan, const am_batch_job *job, am_batch_hash_cache *cache,
                            char key[65], am_error *err)
{
    am_sha256_stream *sha = NULL;
    am_status s = am_sha256_begin(&sha, err);
    if (s)
        return s;
    char hex[65];
    if (!(s = key_part(sha, "animesh batch key", "1", err)) && !(s = key_part(sha, "version", AM_VERSION, err)))
        s = key_part(sha, "name", job->name, err);
    if (!s && !(s = am_batch_hash_cached(cache, plan->skeleton, hex, err)))
        s = key_part(sha, "skeleton", hex, err);
    if (!s && !(s = am_batch_hash_cached(cache, job->model, hex, err)))
        s = key_part(sha, "model", hex, err);
    for (size_t i = 0; !s && i < job->motion_count; i++)
        s = motion_part(sha, cache, job->motions[i], err);
    if (!s && job->map && !(s = am_batch_hash_cached(cache, job->map, hex, err)))
        s = key_part(sha, "map", hex, err);
    for (size_t i = 0; !s && i < job->option_count; i++)
        s = key_part(sha, "option", job->options[i], err);
    if (s) {
        am_sha256_abort(sha);
        return s;
    }
    return am_sha256_end_hex(sha, key, err);
}

am_status am_batch_job_key(const am_batch_plan *plan, const am_batch_job *job, bool cache, char key[65],
                           am_error *err)
{
    if (!cache)
        return am_batch_key_with(plan, job, NULL, key, err);
    am_batch_hash_cache c;
    am_status s = am_batch_hash_cache_load(&c, plan->catalog, err);
    if (!s)
        s = am_batch_key_with(plan, job, &c, key, err);
    if (!s)
        s = am_batch_hash_cache_save(&c, plan->catalog, err);
    am_batch_hash_cache_free(&c);
    return s;
}

am_status am_batch_plan_refresh(am_batch_plan *plan, size_t *changed, am_error *err)
{
    if (changed)
        *changed = 0;
    am_batch_hash_cache c;
    am_status s = am_batch_hash_cache_load(&c, plan->catalog, err);
    size_t n = 0;
    for (size_t i = 0; i < plan->job_count && !s; i++) {
        char key[65];
        am_error one;
        am_error_clear(&one);
        /* A file gone since planning: the job keeps its key and fails when it runs, naming it. */
        if (am_batch_key_with(plan, &plan->jobs[i], &c, key, &one) == AM_OK && strcmp(key, plan->jobs[i].key) != 0) {
            memcpy(plan->jobs[i].key, key, 65);
            n++;
        }
    }
    if (!s)
        s = am_batch_hash_cache_save(&c, plan->catalog, err);
    am_batch_hash_cache_free(&c);
    if (!s && n)
        s = am_batch_plan_save(plan, err);
    if (changed)
        *changed = n;
    return s;
}
