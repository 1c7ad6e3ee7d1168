/* The catalogue database (batch.h: am_batch_index): the result records gathered into SQLite,
 * CATALOG/catalog.db. Only the coordinator writes it; a record is read again only when its
 * file changed (size or modification time), so indexing a large catalogue with nothing new
 * is a stat per job. Schema and example queries: docs/batch.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <sqlite3.h>

#include "batch/batch_internal.h"
#include "core/io.h"
#include "skin/skin_cost.h"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS creatures("
    " name TEXT PRIMARY KEY, model TEXT, key TEXT, status TEXT, error TEXT, exit_code INTEGER,"
    " started TEXT, wall_s REAL, cpu_s REAL, peak_rss_kb INTEGER, host TEXT, version TEXT,"
    " route TEXT, format TEXT, parts INTEGER, triangles INTEGER, estimated_triangles REAL,"
    " streaming_cost REAL, joints INTEGER, weighted_joints INTEGER, motions INTEGER,"
    " findings INTEGER, worst_finding TEXT, worst_direction_deg REAL, exploded INTEGER,"
    " record_mtime_ns INTEGER, record_size INTEGER, land_impact REAL);"
    "CREATE TABLE IF NOT EXISTS parts(creature TEXT, name TEXT, vertices INTEGER, triangles INTEGER,"
    " joints INTEGER, weighted_joints INTEGER, estimated_triangles REAL, streaming_cost REAL,"
    " rest_error_m REAL);"
    "CREATE INDEX IF NOT EXISTS parts_creature ON parts(creature);"
    "CREATE TABLE IF NOT EXISTS motions(creature TEXT, name TEXT, source TEXT, duration_s REAL,"
    " loop INTEGER, worst_direction_deg REAL);"
    "CREATE INDEX IF NOT EXISTS motions_creature ON motions(creature);"
    "CREATE TABLE IF NOT EXISTS findings(creature TEXT, code TEXT, text TEXT);"
    "CREATE INDEX IF NOT EXISTS findings_creature ON findings(creature);"
    "CREATE TABLE IF NOT EXISTS spawns(creature TEXT, region TEXT, key TEXT, object_uuid TEXT,"
    " spawned_at TEXT, PRIMARY KEY(creature, region));";

/* The schema's version (PRAGMA user_version): a database of another version is made again
 * from the records (it holds nothing else but the spawns, which are kept). */
#define SCHEMA_VERSION 2
#define AM_BATCH_STR2(x) #x
#define AM_BATCH_STR(x) AM_BATCH_STR2(x)

static am_status db_fail(sqlite3 *db, const char *path, am_error *err)
{
    return am_fail_where(err, AM_ERR_IO, path, "the catalogue database: %s", db ? sqlite3_errmsg(db) : "cannot open");
}

/* What the catalogue already holds of a record: read in one scan, found by name. */
typedef struct seen_row {
    char *name, *key, *status, *error;
    int64_t mtime_ns, size;
} seen_row;

typedef struct db_ctx {
    sqlite3 *db;
    const char *path;
    seen_row *rows;     /* sorted by name */
    size_t row_count;
    size_t changed;     /* records read again or dropped: the page is written anew */
    sqlite3_stmt *del[4], *creature, *part, *motion, *finding;
} db_ctx;

static void ctx_close(db_ctx *c)
{
    for (size_t i = 0; i < c->row_count; i++) {
        free(c->rows[i].name);
        free(c->rows[i].key);
        free(c->rows[i].status);
        free(c->rows[i].error);
    }
    free(c->rows);
    for (int i = 0; i < 4; i++)
        sqlite3_finalize(c->del[i]);
    sqlite3_finalize(c->creature);
    sqlite3_finalize(c->part);
    sqlite3_finalize(c->motion);
    sqlite3_finalize(c->finding);
    sqlite3_close(c->db);
}

static int row_cmp(const void *a, const void *b)
{
    return strcmp(((const seen_row *)a)->name, ((const seen_row *)b)->name);
}

static char *column_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return am_strdup(t ? (const char *)t : "");
}

/* Every record the catalogue holds, in one scan (a point query per job costs several times
 * more on a catalogue of 100,000). */
static am_status load_rows(db_ctx *c, am_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->db,
                           "SELECT name, record_mtime_ns, record_size, key, status, error FROM creatures ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(c->db, c->path, err);
    size_t cap = 0;
    am_status s = AM_OK;
    int rc;
    while (!s && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (c->row_count == cap) {
            size_t n = cap ? 2 * cap : 1024;
            seen_row *grown = realloc(c->rows, n * sizeof *grown);
            if (!grown) {
                s = am_fail_nomem(err, "the catalogue");
                break;
            }
            c->rows = grown;
            cap = n;
        }
        seen_row *r = &c->rows[c->row_count];
        *r = (seen_row){column_text(st, 0), column_text(st, 3), column_text(st, 4), column_text(st, 5),
                        sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
        c->row_count++;
        if (!r->name || !r->key || !r->status || !r->error)
            s = am_fail_nomem(err, "the catalogue");
    }
    sqlite3_finalize(st);
    if (!s && c->row_count) /* sorted with strcmp, whatever SQLite's collation */
        qsort(c->rows, c->row_count, sizeof *c->rows, row_cmp);
    return s;
}

static const seen_row *find_row(const db_ctx *c, const char *name)
{
    seen_row key = {(char *)name, NULL, NULL, NULL, 0, 0};
    return c->row_count ? bsearch(&key, c->rows, c->row_count, sizeof key, row_cmp) : NULL;
}

static am_status ctx_open(db_ctx *c, const char *path, am_error *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK ||
        sqlite3_busy_timeout(c->db, 10000) != SQLITE_OK)
        return db_fail(c->db, path, err);
    sqlite3_stmt *v = NULL;
    int version = -1;
    if (sqlite3_prepare_v2(c->db, "PRAGMA user_version", -1, &v, NULL) == SQLITE_OK && sqlite3_step(v) == SQLITE_ROW)
        version = sqlite3_column_int(v, 0);
    sqlite3_finalize(v);
    if (version != SCHEMA_VERSION &&
        (sqlite3_exec(c->db, "DROP TABLE IF EXISTS creatures; DROP TABLE IF EXISTS parts; DROP TABLE IF EXISTS "
                             "motions; DROP TABLE IF EXISTS findings",
                      NULL, NULL, NULL) != SQLITE_OK ||
         sqlite3_exec(c->db, "PRAGMA user_version=" AM_BATCH_STR(SCHEMA_VERSION), NULL, NULL, NULL) != SQLITE_OK))
        return db_fail(c->db, path, err);
    if (sqlite3_exec(c->db, schema, NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(c->db, path, err);
    static const char *const del[4] = {"DELETE FROM creatures WHERE name=?1", "DELETE FROM parts WHERE creature=?1",
                                       "DELETE FROM motions WHERE creature=?1",
                                       "DELETE FROM findings WHERE creature=?1"};
    bool ok = true;
    for (int i = 0; ok && i < 4; i++)
        ok = sqlite3_prepare_v2(c->db, del[i], -1, &c->del[i], NULL) == SQLITE_OK;
    ok = ok &&
         sqlite3_prepare_v2(c->db,
                            "INSERT INTO creatures VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,"
                            "?18,?19,?20,?21,?22,?23,?24,?25,?26,?27,?28)",
                            -1, &c->creature, NULL) == SQLITE_OK &&
         sqlite3_prepare_v2(c->db, "INSERT INTO parts VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)", -1, &c->part, NULL) ==
             SQLITE_OK &&
         sqlite3_prepare_v2(c->db, "INSERT INTO motions VALUES(?1,?2,?3,?4,?5,?6)", -1, &c->motion, NULL) == SQLITE_OK &&
         sqlite3_prepare_v2(c->db, "INSERT INTO findings VALUES(?1,?2,?3)", -1, &c->finding, NULL) == SQLITE_OK;
    return ok ? load_rows(c, err) : db_fail(c->db, path, err);
}

static bool step_done(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE;
}

static void bind_text(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_string(v))
        sqlite3_bind_text(st, i, json_string_value(v), -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_num(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_integer(v))
        sqlite3_bind_int64(st, i, json_integer_value(v));
    else if (json_is_number(v))
        sqlite3_bind_double(st, i, json_number_value(v));
    else if (json_is_boolean(v))
        sqlite3_bind_int(st, i, json_is_true(v));
    else
        sqlite3_bind_null(st, i);
}

/* The worst finding: the first of the report's, else the worst motion's state. */
static bool insert_record(db_ctx *c, const char *name, json_t *rec, int64_t mtime_ns, int64_t size)
{
    json_t *report = json_object_get(rec, "report");
    json_t *parts = json_object_get(report, "parts"), *findings = json_object_get(report, "findings");
    json_t *motions = json_object_get(report, "motion_details");
    int64_t tris = 0, joints = 0, weighted = 0;
    double est = 0, cost = 0, worst_dir = -1;
    bool exploded = false;
    size_t i;
    json_t *p;
    json_array_foreach(parts, i, p)
    {
        tris += json_integer_value(json_object_get(p, "triangles"));
        joints += json_integer_value(json_object_get(p, "joints"));
        weighted += json_integer_value(json_object_get(p, "weighted_joints"));
        est += json_number_value(json_object_get(p, "estimated_triangles"));
        cost += json_number_value(json_object_get(p, "streaming_cost"));
        size_t k;
        json_t *b;
        json_array_foreach(json_object_get(p, "bench"), k, b) exploded |= json_is_true(json_object_get(b, "exploded"));
        sqlite3_bind_text(c->part, 1, name, -1, SQLITE_TRANSIENT);
        bind_text(c->part, 2, json_object_get(p, "name"));
        bind_num(c->part, 3, json_object_get(p, "vertices"));
        bind_num(c->part, 4, json_object_get(p, "triangles"));
        bind_num(c->part, 5, json_object_get(p, "joints"));
        bind_num(c->part, 6, json_object_get(p, "weighted_joints"));
        bind_num(c->part, 7, json_object_get(p, "estimated_triangles"));
        bind_num(c->part, 8, json_object_get(p, "streaming_cost"));
        bind_num(c->part, 9, json_object_get(p, "rest_error_m"));
        if (!step_done(c->part))
            return false;
    }
    json_array_foreach(motions, i, p)
    {
        json_t *d = json_object_get(p, "worst_direction_deg");
        if (json_is_number(d) && json_number_value(d) > worst_dir)
            worst_dir = json_number_value(d);
        sqlite3_bind_text(c->motion, 1, name, -1, SQLITE_TRANSIENT);
        bind_text(c->motion, 2, json_object_get(p, "name"));
        bind_text(c->motion, 3, json_object_get(p, "source"));
        bind_num(c->motion, 4, json_object_get(p, "duration_s"));
        bind_num(c->motion, 5, json_object_get(p, "loop"));
        bind_num(c->motion, 6, d);
        if (!step_done(c->motion))
            return false;
    }
    json_array_foreach(findings, i, p)
    {
        sqlite3_bind_text(c->finding, 1, name, -1, SQLITE_TRANSIENT);
        bind_text(c->finding, 2, json_object_get(p, "code"));
        bind_text(c->finding, 3, json_object_get(p, "text"));
        if (!step_done(c->finding))
            return false;
    }
    sqlite3_stmt *st = c->creature;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    bind_text(st, 2, json_object_get(rec, "model"));
    bind_text(st, 3, json_object_get(rec, "key"));
    bind_text(st, 4, json_object_get(rec, "status"));
    bind_text(st, 5, json_object_get(rec, "error"));
    bind_num(st, 6, json_object_get(rec, "exit"));
    bind_text(st, 7, json_object_get(rec, "started"));
    bind_num(st, 8, json_object_get(rec, "wall_s"));
    bind_num(st, 9, json_object_get(rec, "cpu_s"));
    bind_num(st, 10, json_object_get(rec, "peak_rss_kb"));
    bind_text(st, 11, json_object_get(rec, "host"));
    bind_text(st, 12, json_object_get(rec, "version"));
    bind_text(st, 13, json_object_get(report, "route"));
    bind_text(st, 14, json_object_get(report, "format"));
    if (report && json_is_object(report)) {
        sqlite3_bind_int64(st, 15, (sqlite3_int64)json_array_size(parts));
        sqlite3_bind_int64(st, 16, tris);
        sqlite3_bind_double(st, 17, est);
        sqlite3_bind_double(st, 18, cost);
        sqlite3_bind_int64(st, 19, joints);
        sqlite3_bind_int64(st, 20, weighted);
        sqlite3_bind_int64(st, 21, (sqlite3_int64)json_array_size(motions));
        sqlite3_bind_int64(st, 22, (sqlite3_int64)json_array_size(findings));
        json_t *first = json_array_get(findings, 0);
        if (exploded)
            sqlite3_bind_text(st, 23, "exploded: a motion tears the mesh", -1, SQLITE_STATIC);
        else
            bind_text(st, 23, json_object_get(first, "text"));
        if (worst_dir >= 0)
            sqlite3_bind_double(st, 24, worst_dir);
        sqlite3_bind_int(st, 25, exploded);
    }
    sqlite3_bind_int64(st, 26, mtime_ns);
    sqlite3_bind_int64(st, 27, size);
    /* The viewer's estimate for an animated object (skin_cost.h): a base cost and a cost per
     * thousand estimated triangles, for the whole linkset. */
    if (report && json_is_object(report))
        sqlite3_bind_double(st, 28, AM_ANIMATED_OBJECT_BASE_COST + AM_ANIMATED_OBJECT_COST_PER_KTRI * est / 1000.0);
    return step_done(st);
}

static bool delete_creature(db_ctx *c, const char *name)
{
    for (int i = 0; i < 4; i++) {
        sqlite3_bind_text(c->del[i], 1, name, -1, SQLITE_TRANSIENT);
        if (!step_done(c->del[i]))
            return false;
    }
    return true;
}

/* Whether the catalogue has a row for this creature. */
static bool had_row(db_ctx *c, const char *name)
{
    return find_row(c, name) != NULL;
}

/* Bring one job's rows up to date with its record file; its state into *state. */
static am_status index_job(db_ctx *c, const am_batch_plan *plan, const am_batch_job *job, am_batch_state *state,
                           char **error, am_error *err)
{
    char path[AM_BATCH_PATH_MAX], file[160];
    snprintf(file, sizeof file, "%s.json", job->name);
    if (!am_batch_path(path, sizeof path, plan->catalog, AM_BATCH_RESULTS_DIR, file))
        return am_fail_where(err, AM_ERR_INVALID, plan->catalog, "the catalogue's path is too long");
    struct stat st;
    if (stat(path, &st) != 0) {
        *state = AM_BATCH_PENDING;
        if (!had_row(c, job->name))
            return AM_OK;
        c->changed++;
        return delete_creature(c, job->name) ? AM_OK : db_fail(c->db, c->path, err);
    }
    int64_t mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, size = (int64_t)st.st_size;
    bool fresh = false;
    char key[65] = "", status[16] = "", message[512] = "";
    const seen_row *row = find_row(c, job->name);
    if (row && row->mtime_ns == mtime_ns && row->size == size) {
        snprintf(key, sizeof key, "%s", row->key);
        snprintf(status, sizeof status, "%s", row->status);
        snprintf(message, sizeof message, "%s", row->error);
        fresh = true;
    }
    if (!fresh) {
        c->changed++;
        json_error_t jerr;
        json_t *rec = json_load_file(path, 0, &jerr);
        json_t *k = json_object_get(rec, "key"), *s = json_object_get(rec, "status");
        if (!delete_creature(c, job->name)) {
            json_decref(rec);
            return db_fail(c->db, c->path, err);
        }
        if (!json_is_string(k) || !json_is_string(s)) {
            json_decref(rec);
            *state = AM_BATCH_PENDING; /* a damaged record: the job runs again */
            return AM_OK;
        }
        snprintf(key, sizeof key, "%s", json_string_value(k));
        snprintf(status, sizeof status, "%s", json_string_value(s));
        const char *e = json_string_value(json_object_get(rec, "error"));
        snprintf(message, sizeof message, "%s", e ? e : "");
        bool ok = insert_record(c, job->name, rec, mtime_ns, size);
        json_decref(rec);
        if (!ok)
            return db_fail(c->db, c->path, err);
    }
    *state = strcmp(key, job->key) != 0 ? AM_BATCH_STALE : strcmp(status, "done") == 0 ? AM_BATCH_DONE : AM_BATCH_FAILED;
    if (*state == AM_BATCH_FAILED && !(*error = am_strdup(message)))
        return am_fail_nomem(err, "the catalogue");
    return AM_OK;
}

/* Creatures no longer in the plan leave the catalogue; *dropped counts their rows. */
static bool drop_unplanned(db_ctx *c, const am_batch_plan *plan, size_t *dropped)
{
    *dropped = 0;
    if (sqlite3_exec(c->db, "CREATE TEMP TABLE IF NOT EXISTS planned(name TEXT PRIMARY KEY); DELETE FROM planned;",
                     NULL, NULL, NULL) != SQLITE_OK)
        return false;
    sqlite3_stmt *ins = NULL;
    if (sqlite3_prepare_v2(c->db, "INSERT OR IGNORE INTO planned VALUES(?1)", -1, &ins, NULL) != SQLITE_OK)
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < plan->job_count; i++) {
        sqlite3_bind_text(ins, 1, plan->jobs[i].name, -1, SQLITE_STATIC);
        ok = step_done(ins);
    }
    sqlite3_finalize(ins);
    static const char *const gone[] = {
        "DELETE FROM parts WHERE creature NOT IN (SELECT name FROM planned)",
        "DELETE FROM motions WHERE creature NOT IN (SELECT name FROM planned)",
        "DELETE FROM findings WHERE creature NOT IN (SELECT name FROM planned)",
        "DELETE FROM creatures WHERE name NOT IN (SELECT name FROM planned)"};
    for (size_t i = 0; ok && i < 4; i++) {
        ok = sqlite3_exec(c->db, gone[i], NULL, NULL, NULL) == SQLITE_OK;
        *dropped += ok ? (size_t)sqlite3_changes(c->db) : 0;
    }
    return ok;
}

am_status am_batch_index(const am_batch_plan *plan, am_batch_status *status, am_error *err)
{
    memset(status, 0, sizeof *status);
    status->states = calloc(plan->job_count ? plan->job_count : 1, sizeof *status->states);
    status->errors = calloc(plan->job_count ? plan->job_count : 1, sizeof *status->errors);
    if (!status->states || !status->errors) {
        am_batch_status_free(status);
        return am_fail_nomem(err, "the catalogue's states");
    }
    char path[AM_BATCH_PATH_MAX];
    if (!am_batch_path(path, sizeof path, plan->catalog, AM_BATCH_DB_FILE, NULL))
        return am_fail_where(err, AM_ERR_INVALID, plan->catalog, "the catalogue's path is too long");
    db_ctx c;
    am_status s = ctx_open(&c, path, err);
    if (!s && sqlite3_exec(c.db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        s = db_fail(c.db, path, err);
    for (size_t i = 0; !s && i < plan->job_count; i++) {
        am_batch_state st = AM_BATCH_PENDING;
        s = index_job(&c, plan, &plan->jobs[i], &st, &status->errors[i], err);
        status->states[i] = st;
        status->total++;
        switch (st) {
        case AM_BATCH_DONE: status->done++; break;
        case AM_BATCH_FAILED: status->failed++; break;
        case AM_BATCH_STALE: status->stale++; break;
        default: status->pending++; break;
        }
    }
    size_t dropped = 0;
    if (!s && !drop_unplanned(&c, plan, &dropped))
        s = db_fail(c.db, path, err);
    c.changed += dropped;
    if (!s && sqlite3_exec(c.db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        s = db_fail(c.db, path, err);
    if (s && c.db)
        sqlite3_exec(c.db, "ROLLBACK", NULL, NULL, NULL);
    size_t changed = c.changed;
    ctx_close(&c);
    /* The page anew when a record changed, the plan is newer (keys, jobs: the states), or
     * there is none; a catalogue with nothing new is not written again. */
    char page[AM_BATCH_PATH_MAX], plan_path[AM_BATCH_PATH_MAX];
    struct stat ps, pl;
    bool fresh_page = am_batch_path(page, sizeof page, plan->catalog, "index.html", NULL) &&
                      am_batch_path(plan_path, sizeof plan_path, plan->catalog, AM_BATCH_PLAN_FILE, NULL) &&
                      stat(page, &ps) == 0 && stat(plan_path, &pl) == 0 &&
                      (ps.st_mtim.tv_sec > pl.st_mtim.tv_sec ||
                       (ps.st_mtim.tv_sec == pl.st_mtim.tv_sec && ps.st_mtim.tv_nsec >= pl.st_mtim.tv_nsec));
    if (!s && (changed || !fresh_page))
        s = am_batch_page_write(plan, status, err);
    if (s)
        am_batch_status_free(status);
    return s;
}

void am_batch_status_free(am_batch_status *status)
{
    if (!status)
        return;
    for (size_t i = 0; status->errors && i < status->total; i++)
        free(status->errors[i]);
    free(status->errors);
    free(status->states);
    memset(status, 0, sizeof *status);
}
