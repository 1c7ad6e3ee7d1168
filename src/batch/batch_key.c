/* Job keys (batch.h): SHA-256 of the files a job reads, remembered in the catalogue's hash
 * cache so that a run with nothing changed stats its inputs instead of reading them. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "batch/batch_internal.h"
#include "core/io.h"

bool am_batch_path(char *buf, size_t size, const char *catalog, const char *a, const char *b)
{
    int n = b ? snprintf(buf, size, "%s/%s/%s", catalog, a, b) : snprintf(buf, size, "%s/%s", catalog, a);
    return n > 0 && (size_t)n < size;
}

static void to_hex(const uint8_t *d, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[2 * n] = '\0';
}

am_status am_batch_hash_file(const char *path, char hex[65], am_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return am_fail_where(err, AM_ERR_IO, path, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return am_fail_where(err, AM_ERR_IO, path, "not a regular file");
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint8_t *block = malloc(1 << 20);
    am_status s = AM_OK;
    if (!ctx || !block || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        s = am_fail_nomem(err, "a file hash");
    } else {
        for (;;) {
            ssize_t got = read(fd, block, 1 << 20);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                s = am_fail_where(err, AM_ERR_IO, path, "cannot read: %s", strerror(errno));
                break;
            }
            if (got == 0)
                break;
            if (EVP_DigestUpdate(ctx, block, (size_t)got) != 1) {
                s = am_fail_where(err, AM_ERR_INVALID, path, "SHA-256 failed (libcrypto)");
                break;
            }
        }
        uint8_t d[32];
        unsigned len = 0;
        if (!s && (EVP_DigestFinal_ex(ctx, d, &len) != 1 || len != 32))
            s = am_fail_where(err, AM_ERR_INVALID, path, "SHA-256 failed (libcrypto)");
        if (!s)
            to_hex(d, 32, hex);
    }
    free(block);
    EVP_MD_CTX_free(ctx);
    close(fd);
    return s;
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
        return am_batch_hash_file(path, hex, err);
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
    am_status s = am_batch_hash_file(path, hex, err);
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
static bool key_part(EVP_MD_CTX *ctx, const char *label, const char *value)
{
    return EVP_DigestUpdate(ctx, label, strlen(label) + 1) == 1 && EVP_DigestUpdate(ctx, value, strlen(value) + 1) == 1;
}

/* A motion reference "PATH[:CLIP]": the file part is hashed, the clip kept as text. */
static am_status motion_part(EVP_MD_CTX *ctx, am_batch_hash_cache *cache, const char *ref, am_error *err)
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
    if (s)
        return s;
    if (!key_part(ctx, "motion", hex) || !key_part(ctx, "clip", clip))
        return am_fail(err, AM_ERR_INVALID, "SHA-256 failed (libcrypto)");
    return AM_OK;
}

am_status am_batch_key_with(const am_batch_plan *plan, const am_batch_job *job, am_batch_hash_cache *cache,
                            char key[65], am_error *err)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        return am_fail_nomem(err, "a job key");
    }
    char hex[65];
    am_status s = AM_OK;
    bool ok = key_part(ctx, "animesh batch key", "1") && key_part(ctx, "version", AM_VERSION) &&
              key_part(ctx, "name", job->name);
    if (ok && !(s = am_batch_hash_cached(cache, plan->skeleton, hex, err)))
        ok = key_part(ctx, "skeleton", hex);
    if (ok && !s && !(s = am_batch_hash_cached(cache, job->model, hex, err)))
        ok = key_part(ctx, "model", hex);
    for (size_t i = 0; ok && !s && i < job->motion_count; i++)
        s = motion_part(ctx, cache, job->motions[i], err);
    if (ok && !s && job->map && !(s = am_batch_hash_cached(cache, job->map, hex, err)))
        ok = key_part(ctx, "map", hex);
    for (size_t i = 0; ok && !s && i < job->option_count; i++)
        ok = key_part(ctx, "option", job->options[i]);
    uint8_t d[32];
    unsigned len = 0;
    if (ok && !s && (EVP_DigestFinal_ex(ctx, d, &len) != 1 || len != 32))
        ok = false;
    EVP_MD_CTX_free(ctx);
    if (s)
        return s;
    if (!ok)
        return am_fail(err, AM_ERR_INVALID, "SHA-256 failed (libcrypto)");
    to_hex(d, 32, key);
    return AM_OK;
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
