/* Shared inside the batch module only: the catalogue's paths, the file hash cache, the
 * plan's JSON and the result records. */
#ifndef AM_BATCH_INTERNAL_H
#define AM_BATCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "batch/batch.h"
#include "core/error.h"

/* The catalogue's layout (docs/batch.md). */
#define AM_BATCH_PLAN_FILE "plan.json"
#define AM_BATCH_HASH_FILE ".hashes"
#define AM_BATCH_DB_FILE "catalog.db"
#define AM_BATCH_RESULTS_DIR "results"
#define AM_BATCH_CREATURES_DIR "creatures"
#define AM_BATCH_RUN_DIR "run"
#define AM_BATCH_PATH_MAX 4096

/* One writer of a kind at a time per catalogue: an exclusive flock on DIR/.lock (created),
 * held while *fd stays open (close it to release; a killed holder releases it). Another
 * holder: AM_ERR_USAGE "another batch WHAT is running on this catalogue". */
am_status am_batch_lock(const char *catalog, const char *dir, const char *what, int *fd, am_error *err);

/* "CATALOG/part/part..." into buf; false when it does not fit. */
bool am_batch_path(char *buf, size_t size, const char *catalog, const char *a, const char *b);

/* The hash cache: a file's SHA-256 remembered by device, inode, size and modification time
 * (a file rewritten in place changes its time; replaced, its inode). */
typedef struct am_batch_hash_entry {
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns;
    char hex[65];
} am_batch_hash_entry;
typedef struct am_batch_hash_cache {
    am_batch_hash_entry *entries;
    size_t count, cap;
    size_t loaded;      /* entries sorted and searchable (the file's); later ones appended */
    bool dirty;
} am_batch_hash_cache;
/* Load CATALOG/.hashes (missing: empty; a damaged line is ignored: the file is rehashed). */
am_status am_batch_hash_cache_load(am_batch_hash_cache *c, const char *catalog, am_error *err);
/* A file's hash through the cache (c may be NULL: always hashed). */
am_status am_batch_hash_cached(am_batch_hash_cache *c, const char *path, char hex[65], am_error *err);
/* Write the cache back when it changed. */
am_status am_batch_hash_cache_save(am_batch_hash_cache *c, const char *catalog, am_error *err);
void am_batch_hash_cache_free(am_batch_hash_cache *c);

/* A job's key with the given cache (NULL: no cache). */
am_status am_batch_key_with(const am_batch_plan *plan, const am_batch_job *job, am_batch_hash_cache *cache,
                            char key[65], am_error *err);

/* Write plan.json (replaced whole). */
am_status am_batch_plan_save(const am_batch_plan *plan, am_error *err);

/* The result record of a job (results/NAME.json), as much as status and index need. */
typedef struct am_batch_record {
    char key[65];
    bool ok;
    am_string error; /* whole (owned: am_batch_record_free) */
} am_batch_record;
/* Read a record; AM_ERR_IO when there is none (or it cannot be read), AM_ERR_INVALID when
 * it is damaged, AM_ERR_NOMEM when its error cannot be kept. Free it with
 * am_batch_record_free after any outcome. */
am_status am_batch_record_peek(const char *catalog, const char *name, am_batch_record *rec, am_error *err);
void am_batch_record_free(am_batch_record *rec);

/* A creature's thumbnail (NAME.thumb.png, 240 pixels wide) from its pose sheet. */
am_status am_batch_thumbnail(const char *sheet_png, const char *thumb_png, am_error *err);
/* CATALOG/index.html from the catalogue database and the states (batch_page.c). */
am_status am_batch_page_write(const am_batch_plan *plan, const am_batch_status *status, am_error *err);

/* True when `key` is one of the `n` names in `allowed` (a JSON object's fields checked against
 * those a manifest or a grid file may hold). */
bool am_batch_field_known(const char *key, const char *const *allowed, size_t n);

/* Valid creature name: 1-100 of A-Z a-z 0-9 _ - . not starting with '.' or '-'. */
bool am_batch_name_ok(const char *name);

#endif
