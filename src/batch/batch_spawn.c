/* Spawning a catalogue into a grid (batch.h "spawning", docs/batch.md "Spawning").
 *
 * Each region takes its turn on one lane (a thread): first the deletes (earlier copies of
 * creatures converted again, or moved, or --remove), then one admin_load_oar per creature
 * (merge "true": the region keeps everything else), then ONE save of the region
 * (admin_save_oar into CATALOG/spawn/, which the region host names by the grid's catalogue
 * path), from which each creature's object is found (its root mesh and its name) to learn the
 * UUID OpenSim gave it (the UUID is in the object's entry, objects/NAME_X-Y-Z__UUID.xml, and
 * its root part) and, with --verify, compared as push --verify compares. Every spawn is a row
 * of catalog.db's spawns table, written as soon as the load returned and completed with the
 * object's UUID after the save: a rerun skips what is recorded under the same spawn key, and a
 * creature spawned under another key has that object deleted (`delete object id UUID` on the
 * region's console through admin_console_command) before it is loaded again. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "batch/batch_internal.h"
#include "core/io.h"
#include "core/parallel.h"
#include "core/sha256.h"
#include "world/digest.h"
#include "world/oar_check.h"
#include "world/oar_pack.h"
#include "world/oar_verify.h"
#include "world/remoteadmin.h"

#define SPAWN_DIR "spawn"

static const char spawns_schema[] =
    "CREATE TABLE IF NOT EXISTS spawns(creature TEXT, region TEXT, key TEXT, object_uuid TEXT,"
    " spawned_at TEXT, PRIMARY KEY(creature, region));";

const char *am_batch_spawn_outcome_name(am_batch_spawn_outcome o)
{
    switch (o) {
    case AM_SPAWN_SKIPPED: return "skipped";
    case AM_SPAWN_ALREADY: return "already spawned";
    case AM_SPAWN_SPAWNED: return "spawned";
    case AM_SPAWN_REPLACED: return "replaced";
    case AM_SPAWN_REMOVED: return "removed";
    case AM_SPAWN_FAILED: return "failed";
    }
    return "?";
}

/* A recorded spawn. Texts are whole (a list of UUIDs has no limit). */
typedef struct row {
    am_string creature;
    am_string region;
    char key[65];
    am_string uuids;
} row;

/* One creature's turn in its region. */
typedef struct task {
    size_t item;
    char key[65];           /* the spawn key */
    char oar[AM_BATCH_PATH_MAX]; /* the archive sent (local path) */
    bool load;              /* false: recorded already (found again, verified) */
    am_string known;        /* its recorded UUIDs when not loaded */
    am_string old;          /* an earlier copy in this region, deleted first */
    am_oar_contents ours;
    bool have_ours;
} task;

/* An earlier copy in this region of a creature now elsewhere, or a --remove. */
typedef struct deletion {
    size_t item;
    am_string creature;
    am_string uuids;
    bool ok;
    am_string error;
} deletion;

typedef struct region_work {
    task *tasks;
    size_t ntask;
    deletion *dels;
    size_t ndel;
    bool nomem;          /* a text of this region's turn could not be kept (its lane's only) */
} region_work;

typedef struct spawn_ctx {
    const am_batch_plan *plan;
    const am_batch_grid *grid;
    const am_batch_spawn_options *opts;
    am_batch_spawn_result *result;
    region_work *work;   /* per grid region */
    row *rows;
    size_t nrows;
    size_t **lanes;      /* per lane: region indices, ended by SIZE_MAX */
    size_t nlanes;
    char db_path[AM_BATCH_PATH_MAX];
    char spawn_dir[AM_BATCH_PATH_MAX];
    bool nomem;          /* a text set while planning could not be kept (the calling thread's) */
} spawn_ctx;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *region_text(const am_batch_grid_region *r)
{
    return r->name ? r->name : r->id;
}

static void note(const spawn_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const spawn_ctx *c, const char *fmt, ...)
{
    if (!c->opts->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    am_progress_v(c->opts->progress, c->opts->progress_user, fmt, ap);
    va_end(ap);
}

/* --- the spawns table ---------------------------------------------------------------------- */

static am_status db_open(const char *path, sqlite3 **db, am_error *err)
{
    *db = NULL;
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK ||
        sqlite3_busy_timeout(*db, 30000) != SQLITE_OK ||
        sqlite3_exec(*db, spawns_schema, NULL, NULL, NULL) != SQLITE_OK) {
        am_status s = am_fail_where(err, AM_ERR_IO, path, "the catalogue database: %s",
                                    *db ? sqlite3_errmsg(*db) : "cannot open");
        sqlite3_close(*db);
        *db = NULL;
        return s;
    }
    return AM_OK;
}

/* Run one statement with text parameters (NULL or "" binds NULL). */
static bool db_exec(sqlite3 *db, const char *sql, const char *const *params, int n, char *why, size_t why_size)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    for (int i = 0; rc == SQLITE_OK && i < n; i++)
        rc = params[i] && params[i][0] ? sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_TRANSIENT)
                                       : sqlite3_bind_null(st, i + 1);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    if (rc != SQLITE_OK && why)
        snprintf(why, why_size, "the catalogue database: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_OK;
}

static bool db_put(sqlite3 *db, const char *creature, const char *region, const char *key, const char *uuids,
                   char *why, size_t why_size)
{
    const char *p[4] = {creature, region, key, uuids};
    return db_exec(db,
                   "INSERT OR REPLACE INTO spawns VALUES(?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))", p,
                   4, why, why_size);
}

static bool db_set_uuids(sqlite3 *db, const char *creature, const char *region, const char *uuids, char *why,
                         size_t why_size)
{
    const char *p[3] = {uuids, creature, region};
    return db_exec(db, "UPDATE spawns SET object_uuid = ?1 WHERE creature = ?2 AND region = ?3", p, 3, why,
                   why_size);
}

static bool db_del(sqlite3 *db, const char *creature, const char *region, char *why, size_t why_size)
{
    const char *p[2] = {creature, region};
    return db_exec(db, "DELETE FROM spawns WHERE creature = ?1 AND region = ?2", p, 2, why, why_size);
}

static am_status rows_load(spawn_ctx *c, am_error *err)
{
    sqlite3 *db;
    am_status s = db_open(c->db_path, &db, err);
    if (s)
        return s;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT creature, region, key, object_uuid FROM spawns ORDER BY creature, region", -1,
                           &st, NULL) != SQLITE_OK)
        s = am_fail_where(err, AM_ERR_IO, c->db_path, "the catalogue database: %s", sqlite3_errmsg(db));
    size_t cap = 0;
    while (!s && sqlite3_step(st) == SQLITE_ROW) {
        if (c->nrows == cap) {
            size_t nc = cap ? cap * 2 : 64;
            row *n = realloc(c->rows, nc * sizeof *n);
            if (!n) {
                s = am_fail_nomem(err, "spawns");
                break;
            }
            c->rows = n;
            cap = nc;
        }
        row *r = &c->rows[c->nrows++];
        const char *v[4];
        for (int i = 0; i < 4; i++)
            v[i] = (const char *)sqlite3_column_text(st, i);
        memset(r, 0, sizeof *r);
        snprintf(r->key, sizeof r->key, "%s", v[2] ? v[2] : ""); /* a SHA-256 hex, or not ours */
        if (!am_string_set(&r->creature, v[0] ? v[0] : "") || !am_string_set(&r->region, v[1] ? v[1] : "") ||
            !am_string_set(&r->uuids, v[3] ? v[3] : ""))
            s = am_fail_nomem(err, "spawns");
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return s;
}

static void rows_free(spawn_ctx *c)
{
    for (size_t i = 0; i < c->nrows; i++) {
        am_string_free(&c->rows[i].creature);
        am_string_free(&c->rows[i].region);
        am_string_free(&c->rows[i].uuids);
    }
    free(c->rows);
    c->rows = NULL;
    c->nrows = 0;
}

/* --- placing and keys ------------------------------------------------------------------------ */

static am_status spawn_key(const char *job_key, const char *region, const double p[3], char out[65], am_error *err)
{
    char text[600];
    int n = snprintf(text, sizeof text, "animesh batch spawn 1\n%s\n%s\n%.3f,%.3f,%.3f\n", job_key, region, p[0], p[1],
                     p[2]);
    return am_sha256_hex(text, (size_t)n, out, err);
}

/* The layout's place number `slot` on a region: rows along x, then y. */
static bool layout_place(const am_batch_grid *g, size_t slot, double p[3])
{
    double room = g->layout_size - g->layout_origin[0];
    size_t cols = (size_t)floor(room / g->layout_spacing);
    if (cols < 1)
        cols = 1;
    p[0] = g->layout_origin[0] + (double)(slot % cols) * g->layout_spacing;
    p[1] = g->layout_origin[1] + (double)(slot / cols) * g->layout_spacing;
    p[2] = g->layout_origin[2];
    return p[1] < g->layout_size;
}

static am_status read_oar(const char *path, am_oar_contents *out, am_error *err)
{
    uint8_t *data = NULL;
    size_t size = 0;
    am_status s = am_read_file_as(path, &am_oar_file_format, &data, &size, err);
    if (!s)
        s = am_oar_read(data, size, out, err);
    free(data);
    if (s && !strstr(err ? err->where : "", path))
        am_error_where(err, "%s", path);
    return s;
}

/* The creature's archive moved to the layout's place: CATALOG/spawn/NAME.oar. */
static am_status place_oar(const char *from, const char *to, const double p[3], am_error *err)
{
    am_oar_contents c;
    am_status s = read_oar(from, &c, err);
    if (s)
        return s;
    am_buf out = {0};
    s = am_oar_place(&c, p, 0, &out, err);
    if (!s)
        s = am_write_file_atomic(to, out.data, out.size, err);
    am_buf_free(&out);
    am_oar_contents_free(&c);
    return s;
}

/* The path the region opens for a local catalogue file. */
static void region_path(const spawn_ctx *c, const am_batch_grid_region *r, const char *local, char *out, size_t size)
{
    size_t n = strlen(c->plan->catalog);
    if (r->catalog && strncmp(local, c->plan->catalog, n) == 0 && local[n] == '/')
        snprintf(out, size, "%s%s", r->catalog, local + n);
    else
        snprintf(out, size, "%s", local);
}

/* --- a region's turn ----------------------------------------------------------------------- */

/* Set a text of the result; when memory runs out, *nomem says so (the run then fails). */
static void set_text(bool *nomem, am_string *s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_text(bool *nomem, am_string *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!am_string_vsetf(s, fmt, ap))
        *nomem = true;
    va_end(ap);
}

static void fail_item(bool *nomem, am_batch_spawn_item *it, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_item(bool *nomem, am_batch_spawn_item *it, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!am_string_vsetf(&it->error, fmt, ap))
        *nomem = true;
    va_end(ap);
    it->outcome = AM_SPAWN_FAILED;
}

/* `delete object id U` for each UUID of a comma-separated list. The console's commands act on
 * the region it has selected (all of them at "root"): an operator's `change region X` would make
 * a delete for another region do nothing, so the console is put back at root first (the same
 * line from every lane: no race). */
static am_status delete_objects(const am_remoteadmin_options *ra, const char *uuids, am_error *err)
{
    char *list = strdup(uuids);
    if (!list)
        return am_fail_nomem(err, "the UUIDs to delete");
    am_remoteadmin_reply root;
    am_status s = am_remoteadmin_console_call(ra, "change region root", &root, NULL, err);
    am_remoteadmin_reply_free(&root);
    char *save = NULL;
    for (char *u = s ? NULL : strtok_r(list, ",", &save); u && !s; u = strtok_r(NULL, ",", &save)) {
        if (!am_uuid_parse(u, NULL)) {
            s = am_fail(err, AM_ERR_INVALID, "'%s' in the spawns table is not a UUID", u);
            break;
        }
        char cmd[80];
        snprintf(cmd, sizeof cmd, "delete object id %s", u);
        am_remoteadmin_reply reply;
        s = am_remoteadmin_console_call(ra, cmd, &reply, NULL, err);
        am_remoteadmin_reply_free(&reply);
    }
    free(list);
    return s;
}

/* The save's entries that matter: objects naming one of the region's creatures' root meshes,
 * and (to verify) their assets. */
typedef struct keep_ctx {
    const region_work *w;
    bool assets;
} keep_ctx;

static bool keep_region(const char *path, const uint8_t *data, size_t size, void *user)
{
    (void)size;
    const keep_ctx *k = user;
    bool asset = strncmp(path, "assets/", 7) == 0;
    if (!asset && strncmp(path, "objects/", 8) != 0)
        return false;
    /* An object deleted before (its UUID ends its entry's name): kept to prove it gone. */
    const char *uu = asset ? NULL : strstr(path, "__");
    char id[37] = "";
    if (uu && strlen(uu) >= 2 + 36) {
        memcpy(id, uu + 2, 36);
        id[36] = '\0';
    }
    for (size_t i = 0; id[0] && i < k->w->ntask; i++)
        if (strstr(am_str(&k->w->tasks[i].old), id))
            return true;
    for (size_t i = 0; id[0] && i < k->w->ndel; i++)
        if (strstr(am_str(&k->w->dels[i].uuids), id))
            return true;
    for (size_t i = 0; i < k->w->ntask; i++) {
        const task *t = &k->w->tasks[i];
        if (!t->have_ours)
            continue;
        if (asset) {
            if (k->assets && am_oar_find_entry(&t->ours, path))
                return true;
            continue;
        }
        for (size_t o = 0; o < t->ours.object_count; o++) {
            const am_oar_part *root = &t->ours.objects[o].parts[0];
            char needle[40];
            if (root->has_sculpt && (am_uuid_format(&root->sculpt, needle), strstr((const char *)data, needle)))
                return true;
        }
    }
    return false;
}

static bool claimed_by_other(const spawn_ctx *c, const char *region, const char *creature, const char *uuid)
{
    for (size_t i = 0; i < c->nrows; i++)
        if (strcmp(am_str(&c->rows[i].region), region) == 0 && strcmp(am_str(&c->rows[i].creature), creature) != 0 &&
            strstr(am_str(&c->rows[i].uuids), uuid))
            return true;
    return false;
}

/* The objects of the save that are this creature's: its root mesh and its name, every one of
 * them listed in *uuids (comma-separated; *nomem set when the list cannot be kept). */
static size_t find_objects(const spawn_ctx *c, const char *region, const char *creature, const am_oar_contents *ours,
                           const am_oar_contents *saved, am_string *uuids, bool *nomem)
{
    am_string_free(uuids);
    size_t n = 0;
    if (!ours->object_count)
        return 0;
    const am_oar_part *root = &ours->objects[0].parts[0];
    for (size_t j = 0; j < saved->object_count; j++) {
        const am_oar_part *r = &saved->objects[j].parts[0];
        if (!root->has_sculpt || !r->has_sculpt || memcmp(r->sculpt.b, root->sculpt.b, 16) != 0 ||
            strcmp(r->name ? r->name : "", root->name ? root->name : "") != 0)
            continue;
        char u[37];
        am_uuid_format(&r->uuid, u);
        if (claimed_by_other(c, region, creature, u))
            continue;
        if (!am_string_setf(uuids, "%s%s%s", am_str(uuids), uuids->length ? "," : "", u))
            *nomem = true;
        n++;
    }
    return n;
}

/* The first object of the save whose UUID is in the list, or NULL. */
static const char *still_there(const am_oar_contents *saved, const char *uuids)
{
    for (size_t j = 0; j < saved->object_count; j++) {
        char u[37];
        am_uuid_format(&saved->objects[j].parts[0].uuid, u);
        const char *at = strstr(uuids, u);
        if (at)
            return at;
    }
    return NULL;
}

static void serve_region(spawn_ctx *c, size_t ri)
{
    const am_batch_grid_region *r = &c->grid->regions[ri];
    region_work *w = &c->work[ri];
    am_batch_spawn_region *rr = &c->result->regions[ri];
    const char *rname = region_text(r);
    double t0 = now_s();
    if (!w->ntask && !w->ndel)
        return;
    bool *nomem = &w->nomem;
    const char *password = getenv(r->password_env);
    if (!password || !password[0])
        set_text(nomem, &rr->error, "the environment variable %s (%s: regions[%zu].password_env) is not set",
                 r->password_env, c->grid->path, ri);
    am_remoteadmin_options ra;
    am_remoteadmin_options_init(&ra);
    ra.url = r->url;
    ra.password = password;
    if (c->opts->connect_timeout_ms)
        ra.connect_timeout_ms = c->opts->connect_timeout_ms;
    if (c->opts->total_timeout_ms)
        ra.total_timeout_ms = c->opts->total_timeout_ms;
    sqlite3 *db = NULL;
    am_error err;
    am_error_clear(&err);
    char b[AM_ERROR_TEXT_MAX];
    if (am_string_empty(&rr->error) && db_open(c->db_path, &db, &err))
        set_text(nomem, &rr->error, "%s", am_error_format(&err, b, sizeof b));
    char why[600];

    /* Earlier copies of creatures now elsewhere (or --remove). */
    for (size_t i = 0; i < w->ndel; i++) {
        deletion *d = &w->dels[i];
        if (!am_string_empty(&rr->error)) {
            *nomem |= !am_string_copy(&d->error, &rr->error);
            continue;
        }
        if (delete_objects(&ra, am_str(&d->uuids), &err)) {
            set_text(nomem, &d->error, "%s", am_error_format(&err, b, sizeof b));
            if (err.code == AM_ERR_NETWORK || err.code == AM_ERR_USAGE)
                *nomem |= !am_string_copy(&rr->error, &d->error);
            continue;
        }
        rr->deleted++;
        d->ok = true; /* its row goes below: with --verify, once the save shows it gone */
        note(c, "%s: deleted %s from %s", am_str(&d->creature), am_str(&d->uuids), rname);
    }

    /* The loads. */
    bool need_save = c->opts->verify;
    for (size_t i = 0; i < w->ntask; i++) {
        task *t = &w->tasks[i];
        am_batch_spawn_item *it = &c->result->items[t->item];
        if (!am_string_empty(&rr->error)) {
            fail_item(nomem, it, "%s", am_str(&rr->error));
            continue;
        }
        if (!t->load) {
            *nomem |= !am_string_copy(&it->object, &t->known);
            need_save |= am_string_empty(&t->known);
            continue;
        }
        /* Checked whole before it is sent, as push checks: OpenSim answers `loaded` for a
         * cut-short archive and keeps its broken assets for good. */
        am_oar_check_report rep;
        if (read_oar(t->oar, &t->ours, &err) || (t->have_ours = true, am_oar_check(&t->ours, &rep, &err))) {
            fail_item(nomem, it, "not sent: %s", am_error_format(&err, b, sizeof b));
            continue;
        }
        double t1 = now_s();
        if (!am_string_empty(&t->old)) {
            if (delete_objects(&ra, am_str(&t->old), &err)) {
                fail_item(nomem, it, "its earlier copy (%s) could not be deleted, so it was not loaded beside it: %s",
                          am_str(&t->old), am_error_format(&err, b, sizeof b));
                if (err.code == AM_ERR_NETWORK)
                    set_text(nomem, &rr->error, "%s", b);
                continue;
            }
            rr->deleted++;
            *nomem |= !am_string_copy(&it->replaced, &t->old);
            /* The old object is gone: so is its row, until the load below writes the new one. */
            if (!db_del(db, am_str(&it->creature), rname, why, sizeof why)) {
                fail_item(nomem, it, "deleted its earlier copy %s, but not its row: %s", am_str(&t->old), why);
                continue;
            }
        }
        char theirs[AM_BATCH_PATH_MAX + 256];
        region_path(c, r, t->oar, theirs, sizeof theirs);
        am_remoteadmin_load_oar req = {theirs, r->name, r->id, true, false};
        am_remoteadmin_reply reply;
        am_status s = am_remoteadmin_load_oar_call(&ra, &req, &reply, NULL, &err);
        am_remoteadmin_reply_free(&reply); /* its error is in err */
        it->seconds = now_s() - t1;
        if (s) {
            fail_item(nomem, it, "%s", am_error_format(&err, b, sizeof b));
            if (err.code == AM_ERR_NETWORK)
                set_text(nomem, &rr->error, "%s", b);
            continue;
        }
        rr->loaded++;
        it->outcome = !am_string_empty(&t->old) ? AM_SPAWN_REPLACED : AM_SPAWN_SPAWNED;
        if (!db_put(db, am_str(&it->creature), rname, t->key, NULL, why, sizeof why)) {
            fail_item(nomem, it, "loaded into %s, but not recorded (a rerun would load it again): %s", rname, why);
            continue;
        }
        need_save = true;
        note(c, "%s: %s into %s at %.1f,%.1f,%.1f (%.2f s)", am_str(&it->creature),
             am_batch_spawn_outcome_name(it->outcome), rname, it->position[0], it->position[1], it->position[2],
             it->seconds);
    }

    /* One save: each creature's object found (its UUID recorded) and, with --verify, compared. */
    size_t live = 0;
    for (size_t i = 0; i < w->ntask; i++)
        live += c->result->items[w->tasks[i].item].outcome != AM_SPAWN_FAILED;
    for (size_t i = 0; c->opts->verify && i < w->ndel; i++)
        live += w->dels[i].ok;
    if (need_save && live && am_string_empty(&rr->error)) {
        for (size_t i = 0; i < w->ntask; i++) {
            task *t = &w->tasks[i];
            am_batch_spawn_item *it = &c->result->items[t->item];
            if (it->outcome == AM_SPAWN_FAILED || t->have_ours)
                continue;
            if (read_oar(t->oar, &t->ours, &err)) {
                fail_item(nomem, it, "cannot read the archive it was loaded from: %s",
                          am_error_format(&err, b, sizeof b));
            } else {
                t->have_ours = true;
            }
        }
        am_oar_verify_options vo;
        am_oar_verify_options_init(&vo);
        vo.dir = c->spawn_dir;
        char theirs[AM_BATCH_PATH_MAX + 16];
        if (r->catalog) {
            snprintf(theirs, sizeof theirs, "%s/%s", r->catalog, SPAWN_DIR);
            vo.region_dir = theirs;
        }
        vo.region_uid = am_oar_verify_uid(r->uid);
        if (c->opts->save_appear_ms)
            vo.appear_ms = c->opts->save_appear_ms;
        keep_ctx k = {w, c->opts->verify};
        am_oar_contents saved;
        double t1 = now_s();
        am_status s = am_oar_region_save(&ra, r->name, r->id, keep_region, &k, &vo, &saved, &err);
        rr->save_seconds = now_s() - t1;
        if (s)
            am_error_format(&err, b, sizeof b);
        for (size_t i = 0; i < w->ntask; i++) {
            task *t = &w->tasks[i];
            am_batch_spawn_item *it = &c->result->items[t->item];
            if (it->outcome == AM_SPAWN_FAILED || !t->have_ours)
                continue;
            if (s) {
                if (c->opts->verify)
                    fail_item(nomem, it, "not verified: %s", b);
                else
                    set_text(nomem, &it->error,
                             "its object's UUID is not known (the region's save: %s): a later replace cannot delete it",
                             b);
                continue;
            }
            am_string found = {0};
            size_t copies = find_objects(c, rname, am_str(&it->creature), &t->ours, &saved, &found, nomem);
            if (!t->load && !am_string_empty(&t->known)) {
                /* recorded before: it must still be there */
            } else if (copies) {
                *nomem |= !am_string_copy(&it->object, &found);
                if (!db_set_uuids(db, am_str(&it->creature), rname, am_str(&found), why, sizeof why))
                    fail_item(nomem, it, "spawned, but its object's UUID was not recorded: %s", why);
            }
            if (!c->opts->verify || it->outcome == AM_SPAWN_FAILED) {
                am_string_free(&found);
                continue;
            }
            am_oar_diff diff;
            if (am_oar_compare(&t->ours, &saved, &diff, &err)) {
                fail_item(nomem, it, "not verified: %s", am_error_format(&err, b, sizeof b));
            } else if (diff.count) {
                fail_item(nomem, it, "NOT verified: %s%s", diff.lines[0], diff.count > 1 ? " (and more)" : "");
            } else if (copies != 1) {
                fail_item(nomem, it, "NOT verified: the region holds %zu copies of it (%s)", copies,
                          copies ? am_str(&found) : "none");
            } else if (!t->load && !am_string_empty(&t->known) && strcmp(am_str(&found), am_str(&t->known)) != 0) {
                fail_item(nomem, it,
                          "NOT verified: its recorded object %s is not in the region (found %s): remove it (the remove "
                          "option), then spawn again",
                          am_str(&t->known), am_str(&found));
            } else {
                it->verified = true;
            }
            am_oar_diff_free(&diff);
            am_string_free(&found);
        }
        /* Deleted objects must be gone. */
        for (size_t i = 0; !s && c->opts->verify && i < w->ndel; i++) {
            deletion *d = &w->dels[i];
            const char *left = still_there(&saved, am_str(&d->uuids));
            if (d->ok && left) {
                d->ok = false;
                set_text(nomem, &d->error, "NOT verified: object %.36s is still in %s after `delete object id`", left,
                         rname);
            }
        }
        for (size_t i = 0; !s && c->opts->verify && i < w->ntask; i++) {
            task *t = &w->tasks[i];
            am_batch_spawn_item *it = &c->result->items[t->item];
            const char *left = !am_string_empty(&t->old) ? still_there(&saved, am_str(&t->old)) : NULL;
            if (left && it->outcome != AM_SPAWN_FAILED) {
                it->verified = false;
                fail_item(nomem, it, "NOT verified: its earlier copy %.36s is still in %s after `delete object id`",
                          left, rname);
            }
        }
        am_oar_contents_free(&saved);
        if (!s && c->opts->verify)
            note(c, "%s: saved and read back in %.2f s", rname, rr->save_seconds);
        for (size_t i = 0; s && c->opts->verify && i < w->ndel; i++)
            if (w->dels[i].ok) {
                w->dels[i].ok = false;
                set_text(nomem, &w->dels[i].error, "deleted, NOT verified: %s", b);
            }
    }
    for (size_t i = 0; i < w->ndel; i++) {
        deletion *d = &w->dels[i];
        if (d->ok && !db_del(db, am_str(&d->creature), rname, why, sizeof why)) {
            d->ok = false;
            set_text(nomem, &d->error, "deleted from %s, but not from the spawns table: %s", rname, why);
        }
    }
    for (size_t i = 0; i < w->ntask; i++)
        rr->failed += c->result->items[w->tasks[i].item].outcome == AM_SPAWN_FAILED;
    for (size_t i = 0; i < w->ndel; i++)
        rr->failed += !w->dels[i].ok;
    sqlite3_close(db);
    rr->seconds = now_s() - t0;
}

static void lane_job(void *user, size_t lane, int worker)
{
    (void)worker;
    spawn_ctx *c = user;
    for (const size_t *ri = c->lanes[lane]; *ri != (size_t)-1; ri++)
        serve_region(c, *ri);
}

/* --- planning the turns ---------------------------------------------------------------------- */

static am_status add_task(region_work *w, task **out, am_error *err)
{
    task *n = realloc(w->tasks, (w->ntask + 1) * sizeof *n);
    if (!n)
        return am_fail_nomem(err, "spawn");
    w->tasks = n;
    *out = &n[w->ntask++];
    memset(*out, 0, sizeof **out);
    return AM_OK;
}

static am_status add_deletion(region_work *w, size_t item, const char *creature, const char *uuids, am_error *err)
{
    deletion *n = realloc(w->dels, (w->ndel + 1) * sizeof *n);
    if (!n)
        return am_fail_nomem(err, "spawn");
    w->dels = n;
    deletion *d = &n[w->ndel++];
    memset(d, 0, sizeof *d);
    d->item = item;
    if (!am_string_set(&d->creature, creature) || !am_string_set(&d->uuids, uuids))
        return am_fail_nomem(err, "spawn");
    return AM_OK;
}

/* Where job i goes and what its turn does. */
static am_status plan_job(spawn_ctx *c, size_t i, size_t *layout_slots, am_error *err)
{
    const am_batch_job *j = &c->plan->jobs[i];
    am_batch_spawn_item *it = &c->result->items[i];
    bool *nomem = &c->nomem;
    set_text(nomem, &it->creature, "%s", j->name);
    it->region = j->region ? am_batch_grid_find(c->grid, j->region) : (long)c->grid->layout_region;
    if (it->region < 0) {
        fail_item(nomem, it, "%s/plan.json: jobs[%zu].region: '%s' is not a region of %s (regions[].name or .id)",
                  c->plan->catalog, i, j->region, c->grid->path);
        return AM_OK;
    }
    const am_batch_grid_region *r = &c->grid->regions[it->region];
    const char *rname = region_text(r);
    bool placed = j->has_position;
    if (placed) {
        memcpy(it->position, j->position, sizeof it->position);
    } else {
        it->layout = true;
        if (!layout_place(c->grid, layout_slots[it->region]++, it->position)) {
            fail_item(nomem, it,
                      "%s: layout: no room on %s for creature %zu at %g m spacing (layout.spacing, layout.size)",
                      c->grid->path, rname, layout_slots[it->region], c->grid->layout_spacing);
            return AM_OK;
        }
    }
    am_string state_error = {0};
    am_batch_state st = am_batch_job_state(c->plan, i, &state_error);
    if (st != AM_BATCH_DONE) {
        it->outcome = AM_SPAWN_SKIPPED;
        set_text(nomem, &it->error, "not converted (%s%s%s): run `animesh batch run` first", am_batch_state_name(st),
                 am_string_empty(&state_error) ? "" : ": ", am_str(&state_error));
        am_string_free(&state_error);
        return AM_OK;
    }
    char key[65];
    am_status s = spawn_key(j->key, rname, it->position, key, err);
    if (s)
        return s;
    /* What is recorded of it. */
    const row *here = NULL;
    for (size_t k = 0; k < c->nrows; k++)
        if (strcmp(am_str(&c->rows[k].creature), j->name) == 0 && strcmp(am_str(&c->rows[k].region), rname) == 0)
            here = &c->rows[k];
    bool already = here && strcmp(here->key, key) == 0;
    if (already) {
        it->outcome = AM_SPAWN_ALREADY;
        *nomem |= !am_string_copy(&it->object, &here->uuids);
        if (!c->opts->verify && !am_string_empty(&here->uuids))
            return AM_OK;
    }
    for (size_t k = 0; !already && k < c->nrows; k++) {
        const row *o = &c->rows[k];
        if (strcmp(am_str(&o->creature), j->name) != 0 || o == here)
            continue;
        long oi = am_batch_grid_find(c->grid, am_str(&o->region));
        if (oi < 0 || am_string_empty(&o->uuids)) {
            set_text(nomem, &it->error, "its earlier copy in %s stays there (%s)", am_str(&o->region),
                     oi < 0 ? "that region is not in the grid" : "its object's UUID was never learned");
            continue;
        }
        if ((s = add_deletion(&c->work[oi], i, j->name, am_str(&o->uuids), err)))
            return s;
    }
    task *t = NULL;
    if ((s = add_task(&c->work[it->region], &t, err)))
        return s;
    t->item = i;
    memcpy(t->key, key, sizeof t->key);
    t->load = !already;
    if (already && !am_string_copy(&t->known, &here->uuids))
        return am_fail_nomem(err, "spawn");
    if (here && !already) {
        if (!am_string_empty(&here->uuids)) {
            if (!am_string_copy(&t->old, &here->uuids))
                return am_fail_nomem(err, "spawn");
        } else {
            set_text(nomem, &it->error, "its earlier copy in %s stays there (its object's UUID was never learned)",
                     rname);
        }
    }
    char own[AM_BATCH_PATH_MAX];
    if (snprintf(own, sizeof own, "%s/%s/%s/%s.oar", c->plan->catalog, AM_BATCH_CREATURES_DIR, j->name, j->name) >=
        (int)sizeof own)
        return am_fail_where(err, AM_ERR_INVALID, c->plan->catalog, "the catalogue's path is too long");
    if (placed) {
        snprintf(t->oar, sizeof t->oar, "%s", own);
        return AM_OK;
    }
    snprintf(t->oar, sizeof t->oar, "%s/%s.oar", c->spawn_dir, j->name);
    am_error perr;
    if (place_oar(own, t->oar, it->position, &perr)) {
        char b[AM_ERROR_TEXT_MAX];
        fail_item(nomem, it, "cannot place its archive: %s", am_error_format(&perr, b, sizeof b));
        t->load = false;
    }
    return AM_OK;
}

/* Lanes: the regions of one host dealt round-robin onto per_host lanes. */
static am_status make_lanes(spawn_ctx *c, am_error *err)
{
    const am_batch_grid *g = c->grid;
    unsigned per = c->opts->per_host ? c->opts->per_host : g->per_host;
    if (per < 1)
        per = 1;
    c->lanes = calloc(g->region_count, sizeof *c->lanes);
    if (!c->lanes)
        return am_fail_nomem(err, "spawn lanes");
    bool *done = calloc(g->region_count, sizeof *done);
    if (!done)
        return am_fail_nomem(err, "spawn lanes");
    am_status s = AM_OK;
    for (size_t h = 0; h < g->region_count && !s; h++) {
        if (done[h])
            continue;
        size_t n = 0;
        for (size_t i = h; i < g->region_count; i++)
            n += strcmp(am_str(&g->regions[i].host), am_str(&g->regions[h].host)) == 0;
        size_t lanes = n < per ? n : per, first = c->nlanes;
        for (size_t l = 0; l < lanes && !s; l++) {
            if (!(c->lanes[c->nlanes] = malloc((n + 1) * sizeof **c->lanes)))
                s = am_fail_nomem(err, "spawn lanes");
            else
                c->lanes[c->nlanes++][0] = (size_t)-1;
        }
        size_t k = 0;
        for (size_t i = h; i < g->region_count && !s; i++) {
            if (strcmp(am_str(&g->regions[i].host), am_str(&g->regions[h].host)) != 0)
                continue;
            done[i] = true;
            size_t *lane = c->lanes[first + k % lanes];
            size_t m = 0;
            while (lane[m] != (size_t)-1)
                m++;
            lane[m] = i;
            lane[m + 1] = (size_t)-1;
            k++;
        }
    }
    free(done);
    return s;
}

am_status am_batch_spawn(const am_batch_plan *plan, const am_batch_grid *grid, const am_batch_spawn_options *opts,
                         am_batch_spawn_result *result, am_error *err)
{
    memset(result, 0, sizeof *result);
    double t0 = now_s();
    spawn_ctx c = {plan, grid, opts, result, NULL, NULL, 0, NULL, 0, "", "", false};
    if (!am_batch_path(c.db_path, sizeof c.db_path, plan->catalog, AM_BATCH_DB_FILE, NULL) ||
        !am_batch_path(c.spawn_dir, sizeof c.spawn_dir, plan->catalog, SPAWN_DIR, NULL))
        return am_fail_where(err, AM_ERR_INVALID, plan->catalog, "the catalogue's path is too long");
    int lock = -1;
    am_status s = am_mkdir_p(c.spawn_dir, err);
    if (!s)
        s = am_batch_lock(plan->catalog, c.spawn_dir, "spawn", &lock, err);
    if (!s)
        s = rows_load(&c, err);
    size_t nitems = opts->remove ? c.nrows : plan->job_count;
    result->regions = calloc(grid->region_count, sizeof *result->regions);
    result->items = calloc(nitems ? nitems : 1, sizeof *result->items);
    c.work = calloc(grid->region_count, sizeof *c.work);
    size_t *slots = calloc(grid->region_count, sizeof *slots);
    if (!s && (!result->regions || !result->items || !c.work || !slots))
        s = am_fail_nomem(err, "spawn");
    if (result->regions)
        result->region_count = grid->region_count;
    if (!s)
        result->item_count = nitems;
    for (size_t i = 0; !s && !opts->remove && i < plan->job_count; i++)
        s = plan_job(&c, i, slots, err);
    for (size_t i = 0; !s && opts->remove && i < c.nrows; i++) {
        am_batch_spawn_item *it = &result->items[i];
        const row *rw = &c.rows[i];
        c.nomem |= !am_string_copy(&it->creature, &rw->creature) || !am_string_copy(&it->object, &rw->uuids);
        it->region = am_batch_grid_find(grid, am_str(&rw->region));
        if (it->region < 0)
            fail_item(&c.nomem, it, "recorded in region '%s', which is not in %s", am_str(&rw->region), grid->path);
        else if (am_string_empty(&rw->uuids))
            fail_item(&c.nomem, it,
                      "its object's UUID in %s was never learned (the save after its spawn failed): delete it "
                      "there by hand, then remove its row",
                      am_str(&rw->region));
        else
            s = add_deletion(&c.work[it->region], i, am_str(&rw->creature), am_str(&rw->uuids), err);
    }
    if (!s)
        s = make_lanes(&c, err);
    if (!s)
        am_parallel_for(c.nlanes, (int)c.nlanes, lane_job, &c);
    /* Deletions back onto their items. */
    for (size_t ri = 0; !s && ri < grid->region_count; ri++) {
        for (size_t k = 0; k < c.work[ri].ndel; k++) {
            const deletion *d = &c.work[ri].dels[k];
            am_batch_spawn_item *it = &result->items[d->item];
            if (opts->remove) {
                if (d->ok) {
                    it->outcome = AM_SPAWN_REMOVED;
                    it->verified = opts->verify; /* the save showed it gone */
                }
                else
                    fail_item(&c.nomem, it, "%s", am_str(&d->error));
            } else if (d->ok) {
                set_text(&c.nomem, &it->replaced, "%s%s%s (%s)", am_str(&it->replaced),
                         am_string_empty(&it->replaced) ? "" : ",", am_str(&d->uuids), region_text(&grid->regions[ri]));
            } else if (it->outcome != AM_SPAWN_FAILED) {
                set_text(&c.nomem, &it->error, "its earlier copy %s in %s was not deleted: %s", am_str(&d->uuids),
                         region_text(&grid->regions[ri]), am_str(&d->error));
            }
        }
    }
    for (size_t ri = 0; !s && c.work && ri < grid->region_count; ri++)
        c.nomem |= c.work[ri].nomem;
    if (!s && c.nomem)
        s = am_fail_nomem(err, "the spawn's results");
    for (size_t i = 0; !s && i < result->item_count; i++) {
        switch (result->items[i].outcome) {
        case AM_SPAWN_SKIPPED: result->skipped++; break;
        case AM_SPAWN_ALREADY: result->already++; break;
        case AM_SPAWN_SPAWNED: result->spawned++; break;
        case AM_SPAWN_REPLACED: result->replaced++; break;
        case AM_SPAWN_REMOVED: result->removed++; break;
        case AM_SPAWN_FAILED: result->failed++; break;
        }
    }
    for (size_t ri = 0; c.work && ri < grid->region_count; ri++) {
        for (size_t k = 0; k < c.work[ri].ntask; k++) {
            task *t = &c.work[ri].tasks[k];
            if (t->have_ours)
                am_oar_contents_free(&t->ours);
            am_string_free(&t->known);
            am_string_free(&t->old);
        }
        for (size_t k = 0; k < c.work[ri].ndel; k++) {
            deletion *d = &c.work[ri].dels[k];
            am_string_free(&d->creature);
            am_string_free(&d->uuids);
            am_string_free(&d->error);
        }
        free(c.work[ri].tasks);
        free(c.work[ri].dels);
    }
    for (size_t l = 0; l < c.nlanes; l++)
        free(c.lanes[l]);
    free(c.lanes);
    free(c.work);
    rows_free(&c);
    free(slots);
    if (lock >= 0)
        close(lock);
    result->seconds = now_s() - t0;
    if (s)
        am_batch_spawn_result_free(result);
    return s;
}

void am_batch_spawn_result_free(am_batch_spawn_result *result)
{
    for (size_t i = 0; result->items && i < result->item_count; i++) {
        am_batch_spawn_item *it = &result->items[i];
        am_string_free(&it->creature);
        am_string_free(&it->object);
        am_string_free(&it->replaced);
        am_string_free(&it->error);
    }
    for (size_t i = 0; result->regions && i < result->region_count; i++)
        am_string_free(&result->regions[i].error);
    free(result->items);
    free(result->regions);
    memset(result, 0, sizeof *result);
}
