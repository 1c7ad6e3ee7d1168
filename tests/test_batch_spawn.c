/* `animesh batch spawn` against stand-in regions: real HTTP servers on 127.0.0.1 that answer
 * RemoteAdmin as OpenSim 0.9.2.2 does (admin_load_oar reads the archive from the path it is
 * given and places its object under a NEW UUID, admin_save_oar writes the region's objects
 * and assets to the path given, admin_console_command `delete object id UUID` deletes one),
 * two regions on one host and one on another, the catalogue seen by the hosts through another
 * path (a link standing for the host's mount). A real catalogue of four creatures (Ruth's
 * prim, converted by `batch run`). Checked: grid file errors naming entry and field; merge
 * "true" in every load; the UUIDs the regions gave recorded; a rerun sends nothing; a
 * creature converted again has its old object deleted before it is loaded, and one moved is
 * deleted from its old region (with the console left on another region); --remove, proven by
 * the save; a region that refuses, answers too late or is not there fails its creatures only;
 * the layout's move of an archive. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "batch/batch.h"
#include "core/io.h"
#include "support/http_server.h"
#include "support/test_support.h"
#include "world/oar_check.h"
#include "world/oar_pack.h"
#include "world/remoteadmin.h"

#define PW "grid-Secret-77"
#define PW_ENV "AM_TEST_GRID_PASSWORD"
#define MAX_OBJ 32
#define MAX_LOG 128

#define assert_in(text, frag)                                                                                          \
    do {                                                                                                               \
        if (!strstr((text), (frag)))                                                                                   \
            fail_msg("wanted '%s' in:\n%s", (frag), (text));                                                           \
    } while (0)

typedef struct fobject {
    char region[64];
    char uuid[37];
    char name[64];
    char path[160];
    char *xml;
    size_t size;
} fobject;

/* One OpenSim instance: its regions, objects and assets, and what it was asked. */
typedef struct fake_host {
    const char *regions[2];
    fobject obj[MAX_OBJ];
    size_t nobj;
    am_oar_entry assets[MAX_OBJ];
    size_t nasset;
    char archive_xml[1024];
    unsigned counter, salt;
    bool refuse;           /* answer HTTP 500 to everything */
    bool deaf;             /* answer console commands but do nothing (as `delete object uuid` does) */
    char selected[64];     /* the console's region (`change region X`), "" = root: a delete acts there only */
    int hang_ms;           /* answer loads this late */
    int loads, saves, deletes, merge_false;
    char log[MAX_LOG][128]; /* "load alpha", "delete UUID", "save REGION" in order */
    size_t nlog;
} fake_host;

static void logf_(fake_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(fake_host *h, const char *fmt, ...)
{
    if (h->nlog == MAX_LOG)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->log[h->nlog++], sizeof h->log[0], fmt, ap);
    va_end(ap);
}

/* <member><name>N</name><value><string>V</string> as remoteadmin.c writes it. */
static bool member(const char *body, const char *name, char *out, size_t size)
{
    char needle[128];
    snprintf(needle, sizeof needle, "<name>%s</name><value><string>", name);
    const char *p = strstr(body, needle);
    if (!p)
        return false;
    p += strlen(needle);
    const char *e = strstr(p, "</string>");
    if (!e)
        return false;
    snprintf(out, size, "%.*s", (int)(e - p), p);
    return true;
}

static void reply(am_test_http_response *r, const char *members)
{
    snprintf(r->content_type, sizeof r->content_type, "text/xml");
    snprintf(r->body, sizeof r->body,
             "<?xml version=\"1.0\"?><methodResponse><params><param><value><struct>%s</struct></value></param>"
             "</params></methodResponse>",
             members);
}

static bool serves(const fake_host *h, const char *region)
{
    return (h->regions[0] && strcmp(h->regions[0], region) == 0) ||
           (h->regions[1] && strcmp(h->regions[1], region) == 0);
}

/* Every occurrence of `from` in text replaced by `to` (same length: UUIDs). */
static void replace_all(char *text, const char *from, const char *to)
{
    size_t n = strlen(from);
    for (char *p = strstr(text, from); p; p = strstr(p + n, from))
        memcpy(p, to, n);
}

static void do_load(fake_host *h, const char *file, const char *region)
{
    uint8_t *data = NULL;
    size_t size = 0;
    am_oar_contents c;
    assert_int_equal(am_read_file(file, &data, &size, NULL), AM_OK);
    assert_int_equal(am_oar_read(data, size, &c, NULL), AM_OK);
    free(data);
    snprintf(h->archive_xml, sizeof h->archive_xml, "%.*s", (int)c.entries[0].size, (const char *)c.entries[0].data);
    for (size_t i = 0; i < c.object_count; i++) {
        assert_true(h->nobj < MAX_OBJ);
        fobject *o = &h->obj[h->nobj++];
        snprintf(o->region, sizeof o->region, "%s", region);
        char uuid[37];
        snprintf(uuid, sizeof uuid, "%08x-%04x-4000-8000-%012x", h->salt, h->counter++, (unsigned)h->nobj);
        memcpy(o->uuid, uuid, sizeof uuid);
        snprintf(o->name, sizeof o->name, "%s", c.objects[i].parts[0].name);
        snprintf(o->path, sizeof o->path, "objects/%s_1-2-3__%s.xml", c.objects[i].parts[0].name, uuid);
        const am_oar_entry *e = am_oar_find_entry(&c, c.objects[i].path);
        o->xml = malloc(e->size + 1);
        memcpy(o->xml, e->data, e->size + 1);
        o->size = e->size;
        char old[37];
        am_uuid_format(&c.objects[i].parts[0].uuid, old);
        replace_all(o->xml, old, o->uuid); /* OpenSim gives every loaded object new UUIDs */
        logf_(h, "load %s into %s", o->name, region);
    }
    for (size_t i = 1; i < c.entry_count; i++) {
        if (strncmp(c.entries[i].path, "assets/", 7) != 0)
            continue;
        bool have = false;
        for (size_t k = 0; k < h->nasset && !have; k++)
            have = strcmp(h->assets[k].path, c.entries[i].path) == 0;
        if (have)
            continue; /* a known asset is skipped, as OpenSim does */
        assert_true(h->nasset < MAX_OBJ);
        am_oar_entry *a = &h->assets[h->nasset++];
        a->path = strdup(c.entries[i].path);
        a->data = malloc(c.entries[i].size + 1);
        memcpy(a->data, c.entries[i].data, c.entries[i].size + 1);
        a->size = c.entries[i].size;
    }
    am_oar_contents_free(&c);
}

static void do_save(fake_host *h, const char *file, const char *region)
{
    am_oar_entry e[2 * MAX_OBJ + 1];
    size_t n = 0;
    e[n++] = (am_oar_entry){"archive.xml", (uint8_t *)h->archive_xml, strlen(h->archive_xml)};
    for (size_t i = 0; i < h->nobj; i++)
        if (strcmp(h->obj[i].region, region) == 0)
            e[n++] = (am_oar_entry){h->obj[i].path, (uint8_t *)h->obj[i].xml, h->obj[i].size};
    for (size_t i = 0; i < h->nasset; i++)
        e[n++] = h->assets[i];
    am_buf out = {0};
    assert_int_equal(am_oar_pack(e, n, 1700000000, &out, NULL), AM_OK);
    assert_int_equal(am_write_file_atomic(file, out.data, out.size, NULL), AM_OK);
    am_buf_free(&out);
    logf_(h, "save %s", region);
}

static void handler(const am_test_http_request *rq, am_test_http_response *resp, void *user)
{
    fake_host *h = user;
    if (h->refuse) {
        resp->status = 500;
        snprintf(resp->body, sizeof resp->body, "region is down");
        return;
    }
    char method[64] = "", pw[64] = "", file[1024] = "", region[128] = "", merge[16] = "", cmd[256] = "";
    const char *m = strstr(rq->body, "<methodName>");
    if (m)
        sscanf(m + 12, "%63[^<]", method);
    member(rq->body, "password", pw, sizeof pw);
    if (strcmp(pw, PW) != 0) {
        reply(resp, "<member><name>success</name><value><boolean>0</boolean></value></member>"
                    "<member><name>error</name><value><string>wrong password</string></value></member>");
        return;
    }
    member(rq->body, "filename", file, sizeof file);
    member(rq->body, "region_name", region, sizeof region);
    if (strcmp(method, "admin_console_command") == 0) {
        member(rq->body, "command", cmd, sizeof cmd);
        char uuid[64];
        if (strncmp(cmd, "change region ", 14) == 0)
            snprintf(h->selected, sizeof h->selected, "%s", strcmp(cmd + 14, "root") == 0 ? "" : cmd + 14);
        if (sscanf(cmd, "delete object id %63s", uuid) == 1) {
            h->deletes++;
            logf_(h, "delete %s", uuid);
            for (size_t i = 0; i < h->nobj && !h->deaf; i++)
                if (strcmp(h->obj[i].uuid, uuid) == 0 &&
                    (!h->selected[0] || strcmp(h->selected, h->obj[i].region) == 0)) {
                    free(h->obj[i].xml);
                    h->obj[i] = h->obj[--h->nobj];
                    break;
                }
        }
        reply(resp, ""); /* OpenSim 0.9.2.2 answers a console command with an empty struct */
        return;
    }
    if (!serves(h, region)) {
        reply(resp, "<member><name>success</name><value><boolean>0</boolean></value></member>"
                    "<member><name>error</name><value><string>no such region</string></value></member>");
        return;
    }
    if (strcmp(method, "admin_load_oar") == 0) {
        member(rq->body, "merge", merge, sizeof merge);
        h->merge_false += strcmp(merge, "true") != 0;
        h->loads++;
        do_load(h, file, region);
        resp->hang_ms = h->hang_ms;
        reply(resp, "<member><name>success</name><value><boolean>1</boolean></value></member>"
                    "<member><name>loaded</name><value><boolean>1</boolean></value></member>");
    } else if (strcmp(method, "admin_save_oar") == 0) {
        h->saves++;
        do_save(h, file, region);
        reply(resp, "<member><name>success</name><value><boolean>1</boolean></value></member>"
                    "<member><name>saved</name><value><boolean>1</boolean></value></member>");
    } else {
        resp->status = 404;
    }
}

static void host_free(fake_host *h)
{
    for (size_t i = 0; i < h->nobj; i++)
        free(h->obj[i].xml);
    for (size_t i = 0; i < h->nasset; i++) {
        free(h->assets[i].path);
        free(h->assets[i].data);
    }
    memset(h->obj, 0, sizeof h->obj);
    h->nobj = h->nasset = 0;
}

typedef struct fixture {
    char dir[512], skel[1024], model[1024], lib[700], catalog[700], view[700], grid[700], manifest[700];
    fake_host near, far;
    am_test_http_server *s_near, *s_far;
} fixture;

static void write_manifest(fixture *f, const char *alpha_scale, const char *gamma_region)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"creatures\": [\n"
             " {\"name\": \"alpha\", \"model\": \"ruth.dae\", \"region\": \"Animesh Test\","
             " \"position\": [100, 100, 30],"
             " \"options\": [\"--scale\", \"%s\"]},\n"
             " {\"name\": \"beta\", \"model\": \"ruth.dae\", \"options\": [\"--scale\", \"2\"]},\n"
             " {\"name\": \"gamma\", \"model\": \"ruth.dae\", \"options\": [\"--scale\", \"3\"], \"region\": \"%s\"},\n"
             " {\"name\": \"delta\", \"model\": \"ruth.dae\", \"options\": [\"--scale\", \"4\"], \"region\": \"Far\","
             " \"position\": [50, 60, 25]}\n]}\n",
             alpha_scale, gamma_region);
    am_test_write_text(f->manifest, text);
}

static void convert(fixture *f)
{
    char out[8192];
    int rc = am_test_run_cli(out, sizeof out, "batch plan --manifest '%s' --out '%s' --skeleton '%s' --", f->manifest,
                             f->catalog, f->skel);
    if (rc)
        fail_msg("batch plan: %d\n%s", rc, out);
    rc = am_test_run_cli(out, sizeof out, "batch run '%s' --jobs 2", f->catalog);
    if (rc)
        fail_msg("batch run: %d\n%s", rc, out);
}

static void write_grid(fixture *f, const char *extra_region)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"animesh_grid\": 1, \"regions\": [\n"
             " {\"name\": \"Animesh Test\", \"url\": \"http://127.0.0.1:%u/\", \"password_env\": \"" PW_ENV "\","
             " \"catalog\": \"%s\"},\n"
             " {\"name\": \"Animesh Test 2\", \"url\": \"http://127.0.0.1:%u/\", \"password_env\": \"" PW_ENV "\","
             " \"catalog\": \"%s\"},\n"
             " {\"name\": \"Far\", \"url\": \"http://127.0.0.1:%u/\", \"password_env\": \"" PW_ENV "\","
             " \"catalog\": \"%s\"}%s\n],\n"
             " \"layout\": {\"origin\": [20, 30, 24], \"spacing\": 6}}\n",
             am_test_http_port(f->s_near), f->view, am_test_http_port(f->s_near), f->view,
             am_test_http_port(f->s_far), f->view, extra_region);
    am_test_write_text(f->grid, text);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_test_shared_path(f->skel, sizeof f->skel, "viewer/avatar_skeleton.xml");
    am_test_shared_path(f->model, sizeof f->model, "data/realdata/r2ROOTPRIM_rigged.dae");
    *state = f;
    if (access(f->model, R_OK) != 0 || access(f->skel, R_OK) != 0) {
        print_message("skipped: %s or %s is missing\n", f->model, f->skel);
        return 0;
    }
    snprintf(f->lib, sizeof f->lib, "%s/lib", f->dir);
    snprintf(f->catalog, sizeof f->catalog, "%s/cat", f->dir);
    snprintf(f->view, sizeof f->view, "%s/host-mount", f->dir);
    snprintf(f->grid, sizeof f->grid, "%s/grid.json", f->dir);
    snprintf(f->manifest, sizeof f->manifest, "%s/manifest.json", f->lib);
    assert_int_equal(mkdir(f->lib, 0755), 0);
    char ruth[800];
    snprintf(ruth, sizeof ruth, "%s/ruth.dae", f->lib);
    assert_int_equal(symlink(f->model, ruth), 0);
    write_manifest(f, "1", "Animesh Test 2");
    convert(f);
    /* The region hosts see the catalogue under another path (their mount of it). */
    assert_int_equal(symlink(f->catalog, f->view), 0);
    f->near.regions[0] = "Animesh Test";
    f->near.regions[1] = "Animesh Test 2";
    f->near.salt = 0xaaaa;
    f->far.regions[0] = "Far";
    f->far.salt = 0xbbbb;
    f->s_near = am_test_http_start(handler, &f->near);
    f->s_far = am_test_http_start(handler, &f->far);
    write_grid(f, "");
    setenv(PW_ENV, PW, 1);
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f->s_near)
        am_test_http_stop(f->s_near);
    if (f->s_far)
        am_test_http_stop(f->s_far);
    host_free(&f->near);
    host_free(&f->far);
    am_test_rmtree(f->dir);
    unsetenv(PW_ENV);
    free(f);
    return 0;
}

#define SKIP_WITHOUT_DATA(f)                                                                                           \
    do {                                                                                                               \
        if (!(f)->s_near)                                                                                              \
            skip();                                                                                                    \
    } while (0)

static int spawn(fixture *f, char *out, size_t size, const char *flags)
{
    return am_test_run_cli(out, size, "batch spawn '%s' --grid '%s' %s", f->catalog, f->grid, flags);
}

/* The spawns table's object UUID of creature in region ("" none, "-" no row). */
static void recorded(const fixture *f, const char *creature, const char *region, char *out, size_t size)
{
    char path[800];
    snprintf(path, sizeof path, "%s/catalog.db", f->catalog);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT object_uuid FROM spawns WHERE creature=?1 AND region=?2", -1, &st,
                                        NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, creature, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, region, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        snprintf(out, size, "%s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
    else
        snprintf(out, size, "-");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static const fobject *object_named(const fake_host *h, const char *name, size_t *count)
{
    const fobject *o = NULL;
    *count = 0;
    for (size_t i = 0; i < h->nobj; i++)
        if (strcmp(h->obj[i].name, name) == 0) {
            o = &h->obj[i];
            ++*count;
        }
    return o;
}

static size_t log_index(const fake_host *h, const char *line)
{
    for (size_t i = 0; i < h->nlog; i++)
        if (strcmp(h->log[i], line) == 0)
            return i;
    fail_msg("'%s' was never asked of the region", line);
    return 0;
}

static void test_grid_file_errors(void **state)
{
    fixture *f = *state;
    SKIP_WITHOUT_DATA(f);
    static const struct {
        const char *grid, *want;
    } cases[] = {
        {"{\"regions\": [{\"name\": \"A\", \"password_env\": \"X\"}]}", "regions[0].url: required"},
        {"{\"regions\": [{\"name\": \"A\", \"url\": \"http://h:1/\", \"password\": \"s3cret\", \"password_env\": "
         "\"X\"}]}",
         "regions[0].password: never the password itself"},
        {"{\"regions\": [{\"name\": \"A\", \"url\": \"http://h:1/\", \"password_env\": \"NOT-A-NAME\"}]}",
         "regions[0].password_env: 'NOT-A-NAME' is not an environment variable's name"},
        {"{\"regions\": [{\"name\": \"A\", \"url\": \"http://h:1/\", \"password_env\": \"X\"},"
         " {\"url\": \"ftp://h/\", \"name\": \"B\", \"password_env\": \"X\"}]}",
         "regions[1].url: 'ftp://h/' does not start with http://"},
        {"{\"regions\": [{\"url\": \"http://h:1/\", \"password_env\": \"X\"}]}", "regions[0]: needs \"name\""},
        {"{\"regions\": [{\"name\": \"A\", \"url\": \"http://h:1/\", \"password_env\": \"X\", \"catalog\": \"rel\"}]}",
         "regions[0].catalog: 'rel' is not an absolute path"},
        {"{\"regions\": [{\"name\": \"A\", \"url\": \"http://h:1/\", \"password_env\": \"X\", \"colour\": 1}]}",
         "regions[0].colour: unknown field"},
        {"{\"regions\": [{\"name\": \"A\", \"url\": \"http://h:1/\", \"password_env\": \"X\"},"
         " {\"name\": \"A\", \"url\": \"http://h:1/x\", \"password_env\": \"X\"}]}",
         "regions[1]: the same region as regions[0]"},
        {"{\"regions\": [{\"name\": \"A\", \"url\": \"http://h:1/\", \"password_env\": \"X\"}], \"layout\": "
         "{\"region\": \"B\"}}",
         "layout.region: names no region"},
        {"{\"regions\": [{\"name\": \"A\", \"url\": \"http://h:1/\", \"password_env\": \"X\"}], \"layout\": "
         "{\"spacing\": 0}}",
         "layout.spacing: expected metres"},
        {"{\"regions\": []}", "regions: required"},
        {"{\"regions\": [{\"name\": \"A\", \"url\": \"http://h:1/\", \"password_env\": \"X\", \"id\": \"nope\"}]}",
         "regions[0].id: 'nope' is not a UUID"},
    };
    char out[8192], path[800];
    snprintf(path, sizeof path, "%s/bad-grid.json", f->dir);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        am_test_write_text(path, cases[i].grid);
        int rc = am_test_run_cli(out, sizeof out, "batch spawn '%s' --grid '%s'", f->catalog, path);
        assert_int_equal(rc, 1);
        assert_in(out, "bad-grid.json");
        assert_in(out, cases[i].want);
        assert_null(strstr(out, "s3cret"));
    }
    assert_int_equal(f->near.loads + f->far.loads, 0);
    /* A creature whose plan names a region the grid does not have fails alone, naming it. */
    write_grid(f, "");
    char text[4096];
    snprintf(text, sizeof text,
             "{\"regions\": [{\"name\": \"Animesh Test\", \"url\": \"http://127.0.0.1:%u/\", \"password_env\": "
             "\"" PW_ENV "\", \"catalog\": \"%s\"}, {\"name\": \"Animesh Test 2\", \"url\": \"http://127.0.0.1:%u/\","
             " \"password_env\": \"" PW_ENV "\", \"catalog\": \"%s\"}]}",
             am_test_http_port(f->s_near), f->view, am_test_http_port(f->s_near), f->view);
    am_test_write_text(path, text);
    int rc = am_test_run_cli(out, sizeof out, "batch spawn '%s' --grid '%s'", f->catalog, path);
    assert_int_equal(rc, 1);
    assert_in(out, "plan.json: jobs[3].region: 'Far' is not a region of");
    assert_in(out, "3 spawned, 0 replaced, 0 already there, 0 removed, 0 skipped (not converted), 1 failed");
    assert_int_equal(f->near.loads, 3);
    /* No password in the environment: that region's creatures fail, naming the variable. */
    unsetenv(PW_ENV);
    rc = spawn(f, out, sizeof out, "");
    setenv(PW_ENV, PW, 1);
    assert_int_equal(rc, 1);
    assert_in(out, "the environment variable " PW_ENV " (");
    assert_in(out, "regions[2].password_env) is not set");
    assert_int_equal(f->far.loads, 0);
}

static void test_spawn_verify_and_rerun(void **state)
{
    fixture *f = *state;
    SKIP_WITHOUT_DATA(f);
    char out[16384];
    int rc = spawn(f, out, sizeof out, "--verify");
    if (rc)
        fail_msg("spawn: %d\n%s", rc, out);
    assert_in(out, "4 spawned, 0 replaced, 0 already there, 0 removed, 0 skipped (not converted), 0 failed");
    assert_int_equal(f->near.loads, 3);
    assert_int_equal(f->far.loads, 1);
    assert_int_equal(f->near.merge_false + f->far.merge_false, 0);
    /* One save per region, not one per creature. */
    assert_int_equal(f->near.saves, 2);
    assert_int_equal(f->far.saves, 1);
    /* Each creature where it belongs, under the UUID the region gave it, recorded. */
    static const char *const where[4][2] = {
        {"alpha", "Animesh Test"}, {"beta", "Animesh Test"}, {"gamma", "Animesh Test 2"}, {"delta", "Far"}};
    for (int i = 0; i < 4; i++) {
        const fake_host *h = i == 3 ? &f->far : &f->near;
        size_t n;
        const fobject *o = object_named(h, where[i][0], &n);
        assert_int_equal(n, 1);
        assert_string_equal(o->region, where[i][1]);
        char rec[400];
        recorded(f, where[i][0], where[i][1], rec, sizeof rec);
        assert_string_equal(rec, o->uuid);
        char line[200];
        snprintf(line, sizeof line, "object %s verified", o->uuid);
        assert_in(out, line);
    }
    /* Placed by the manifest, and by the layout (origin 20,30; 6 m apart). */
    size_t n;
    assert_non_null(strstr(object_named(&f->near, "alpha", &n)->xml, "<GroupPosition><X>100</X><Y>100</Y><Z>30</Z>"));
    assert_non_null(strstr(object_named(&f->near, "beta", &n)->xml, "<GroupPosition><X>20</X><Y>30</Y><Z>24</Z>"));
    assert_non_null(strstr(object_named(&f->near, "gamma", &n)->xml, "<GroupPosition><X>20</X><Y>30</Y><Z>24</Z>"));
    assert_non_null(strstr(object_named(&f->far, "delta", &n)->xml, "<GroupPosition><X>50</X><Y>60</Y><Z>25</Z>"));
    /* The region's save folder is left empty. */
    char spawn_dir[800];
    snprintf(spawn_dir, sizeof spawn_dir, "%s/spawn", f->catalog);
    assert_int_equal(am_test_count_entries(spawn_dir), 3); /* .lock, beta.oar, gamma.oar */

    /* Rerun: nothing sent twice. */
    rc = spawn(f, out, sizeof out, "");
    assert_int_equal(rc, 0);
    assert_in(out, "0 spawned, 0 replaced, 4 already there");
    assert_int_equal(f->near.loads + f->far.loads, 4);
    assert_int_equal(f->near.saves + f->far.saves, 3);
    /* Rerun with --verify: still nothing loaded, every creature found once and verified. */
    rc = spawn(f, out, sizeof out, "--verify --json");
    if (rc)
        fail_msg("spawn --verify: %d\n%s", rc, out);
    assert_in(out, "\"already\": 4");
    assert_in(out, "\"verified\": true");
    assert_null(strstr(out, "\"verified\": false"));
    assert_int_equal(f->near.loads + f->far.loads, 4);
    assert_int_equal(f->near.nobj + f->far.nobj, 4);
}

static void test_reconverted_replaces_and_moved_leaves(void **state)
{
    fixture *f = *state;
    SKIP_WITHOUT_DATA(f);
    char out[16384];
    int rc = spawn(f, out, sizeof out, "");
    if (rc)
        fail_msg("spawn: %d\n%s", rc, out);
    size_t n;
    char alpha_old[37], gamma_old[37];
    snprintf(alpha_old, sizeof alpha_old, "%s", object_named(&f->near, "alpha", &n)->uuid);
    snprintf(gamma_old, sizeof gamma_old, "%s", object_named(&f->near, "gamma", &n)->uuid);
    /* An operator left the near host's console on its other region: the delete must still
     * reach alpha's (batch spawn puts the console back at root). */
    snprintf(f->near.selected, sizeof f->near.selected, "Animesh Test 2");
    /* alpha converted again (another scale); gamma moved to the far host's region. */
    write_manifest(f, "1.5", "Far");
    convert(f);
    rc = spawn(f, out, sizeof out, "--verify");
    if (rc)
        fail_msg("spawn again: %d\n%s", rc, out);
    assert_in(out, "1 spawned, 1 replaced, 2 already there");
    /* alpha's old object deleted BEFORE the new one was loaded, and only one alpha stands. */
    char line[200];
    snprintf(line, sizeof line, "delete %s", alpha_old);
    size_t del = log_index(&f->near, line);
    size_t load = 0;
    for (size_t i = del; i < f->near.nlog; i++)
        if (strcmp(f->near.log[i], "load alpha into Animesh Test") == 0)
            load = i;
    assert_true(load > del);
    const fobject *alpha = object_named(&f->near, "alpha", &n);
    assert_int_equal(n, 1);
    assert_string_not_equal(alpha->uuid, alpha_old);
    char rec[400];
    recorded(f, "alpha", "Animesh Test", rec, sizeof rec);
    assert_string_equal(rec, alpha->uuid);
    snprintf(line, sizeof line, "(replaced %s)", alpha_old);
    assert_in(out, line);
    /* gamma left Animesh Test 2 and stands in Far; its old row is gone. */
    snprintf(line, sizeof line, "delete %s", gamma_old);
    log_index(&f->near, line);
    assert_null(object_named(&f->near, "gamma", &n));
    assert_non_null(object_named(&f->far, "gamma", &n));
    recorded(f, "gamma", "Animesh Test 2", rec, sizeof rec);
    assert_string_equal(rec, "-");
    recorded(f, "gamma", "Far", rec, sizeof rec);
    assert_string_equal(rec, object_named(&f->far, "gamma", &n)->uuid);
    assert_int_equal(f->near.nobj + f->far.nobj, 4);
}

static void test_remove(void **state)
{
    fixture *f = *state;
    SKIP_WITHOUT_DATA(f);
    char out[16384];
    assert_int_equal(spawn(f, out, sizeof out, ""), 0);
    assert_int_equal(f->near.nobj + f->far.nobj, 4);
    /* A console that answers but deletes nothing: --verify sees the object still there, and
     * the row stays (a later --remove tries again). */
    f->far.deaf = true;
    int rc = spawn(f, out, sizeof out, "--remove --verify");
    assert_int_equal(rc, 1);
    assert_in(out, "NOT verified: object ");
    assert_in(out, "is still in Far after `delete object id`");
    assert_in(out, "3 removed");
    assert_int_equal(f->far.nobj, 1);
    char rec[400];
    recorded(f, "delta", "Far", rec, sizeof rec);
    assert_string_equal(rec, f->far.obj[0].uuid);
    f->far.deaf = false;
    rc = spawn(f, out, sizeof out, "--remove --verify");
    if (rc)
        fail_msg("remove: %d\n%s", rc, out);
    assert_in(out, "0 spawned, 0 replaced, 0 already there, 1 removed");
    assert_int_equal(f->near.nobj + f->far.nobj, 0);
    assert_int_equal(f->near.deletes + f->far.deletes, 5);
    recorded(f, "alpha", "Animesh Test", rec, sizeof rec);
    assert_string_equal(rec, "-");
    /* Nothing recorded: removing again does nothing; spawning brings them back. */
    assert_int_equal(spawn(f, out, sizeof out, "--remove"), 0);
    assert_int_equal(f->near.deletes + f->far.deletes, 5);
    assert_int_equal(spawn(f, out, sizeof out, ""), 0);
    assert_in(out, "4 spawned");
    assert_int_equal(f->near.nobj + f->far.nobj, 4);
}

static void test_refusing_region_fails_its_creatures_only(void **state)
{
    fixture *f = *state;
    SKIP_WITHOUT_DATA(f);
    f->far.refuse = true;
    char out[16384];
    int rc = spawn(f, out, sizeof out, "--verify");
    assert_int_equal(rc, 1);
    assert_in(out, "3 spawned, 0 replaced, 0 already there, 0 removed, 0 skipped (not converted), 1 failed");
    assert_in(out, "delta");
    assert_in(out, "HTTP 500");
    assert_int_equal(f->near.nobj, 3);
    char rec[400];
    recorded(f, "delta", "Far", rec, sizeof rec);
    assert_string_equal(rec, "-");
    /* The region is back: only delta is sent. */
    f->far.refuse = false;
    rc = spawn(f, out, sizeof out, "--verify");
    if (rc)
        fail_msg("spawn again: %d\n%s", rc, out);
    assert_in(out, "1 spawned, 0 replaced, 3 already there");
    assert_int_equal(f->near.loads, 3);
    assert_int_equal(f->far.loads, 1);
    /* A region that answers too late: its creature fails with the timeout, the others stand. */
    rc = spawn(f, out, sizeof out, "--remove");
    assert_int_equal(rc, 0);
    f->far.hang_ms = 4000;
    rc = spawn(f, out, sizeof out, "--timeout 800");
    assert_int_equal(rc, 1);
    assert_in(out, "3 spawned, 0 replaced, 0 already there, 0 removed, 0 skipped (not converted), 1 failed");
    assert_in(out, "timed out");
    recorded(f, "delta", "Far", rec, sizeof rec);
    assert_string_equal(rec, "-");
    assert_int_equal(f->near.nobj, 3);
    /* The late load did happen in the region: spawning again loads a second copy, which the save
     * shows (both recorded, --verify fails, saying so) and --remove then deletes both. */
    f->far.hang_ms = 0;
    rc = spawn(f, out, sizeof out, "--verify");
    assert_int_equal(rc, 1);
    assert_in(out, "NOT verified: the region holds 2 copies of it");
    assert_int_equal(f->far.nobj, 2);
    recorded(f, "delta", "Far", rec, sizeof rec);
    char both[80];
    snprintf(both, sizeof both, "%s,%s", f->far.obj[0].uuid, f->far.obj[1].uuid);
    if (strcmp(rec, both) != 0)
        snprintf(both, sizeof both, "%s,%s", f->far.obj[1].uuid, f->far.obj[0].uuid);
    assert_string_equal(rec, both);
    assert_int_equal(spawn(f, out, sizeof out, "--remove --verify"), 0);
    assert_int_equal(f->near.nobj + f->far.nobj, 0);
    assert_int_equal(spawn(f, out, sizeof out, ""), 0);
    /* A region that never answers (nothing listens): the same, within the timeout. */
    char text[4096];
    snprintf(text, sizeof text,
             "{\"regions\": [{\"name\": \"Animesh Test\", \"url\": \"http://127.0.0.1:%u/\", \"password_env\": "
             "\"" PW_ENV "\", \"catalog\": \"%s\"}, {\"name\": \"Animesh Test 2\", \"url\": \"http://127.0.0.1:%u/\","
             " \"password_env\": \"" PW_ENV "\", \"catalog\": \"%s\"}, {\"name\": \"Far\", \"url\": "
             "\"http://127.0.0.1:%u/\", \"password_env\": \"" PW_ENV "\", \"catalog\": \"%s\"}]}",
             am_test_http_port(f->s_near), f->view, am_test_http_port(f->s_near), f->view, am_test_closed_port(),
             f->view);
    am_test_write_text(f->grid, text);
    write_manifest(f, "1", "Animesh Test 2");
    rc = spawn(f, out, sizeof out, "--remove");
    assert_int_equal(rc, 1);
    assert_in(out, "3 removed");
    assert_in(out, "connection refused");
    assert_int_equal(f->near.nobj, 0);
    assert_int_equal(f->far.nobj, 1);
}

/* The layout's move: every part at the new place, the entry named for it, assets untouched,
 * the archive still passing the whole check; a place outside any region refused. */
static void test_place_moves_the_archive(void **state)
{
    fixture *f = *state;
    SKIP_WITHOUT_DATA(f);
    char path[900];
    snprintf(path, sizeof path, "%s/creatures/alpha/alpha.oar", f->catalog);
    uint8_t *data = NULL;
    size_t size = 0;
    am_oar_contents c, moved;
    assert_int_equal(am_read_file(path, &data, &size, NULL), AM_OK);
    assert_int_equal(am_oar_read(data, size, &c, NULL), AM_OK);
    free(data);
    assert_double_equal(c.objects[0].parts[0].group_position[0], 100, 1e-9);
    const double at[3] = {12.4, 200.6, 31};
    am_buf out = {0};
    assert_int_equal(am_oar_place(&c, at, 0, &out, NULL), AM_OK);
    assert_int_equal(am_oar_read(out.data, out.size, &moved, NULL), AM_OK);
    assert_int_equal(moved.object_count, 1);
    assert_int_equal(moved.entry_count, c.entry_count);
    for (int k = 0; k < 3; k++)
        assert_double_equal(moved.objects[0].parts[0].group_position[k], at[k], 1e-9);
    assert_non_null(strstr(moved.objects[0].path, "objects/alpha_12-201-31__"));
    for (size_t i = 0; i < c.entry_count; i++)
        if (strncmp(c.entries[i].path, "assets/", 7) == 0) {
            const am_oar_entry *e = am_oar_find_entry(&moved, c.entries[i].path);
            assert_non_null(e);
            assert_int_equal(e->size, c.entries[i].size);
            assert_memory_equal(e->data, c.entries[i].data, e->size);
        }
    assert_int_equal(am_oar_check(&moved, NULL, NULL), AM_OK);
    am_oar_contents_free(&moved);
    am_buf_free(&out);
    const double nowhere[3] = {-1, 5, 5};
    am_error err;
    assert_int_equal(am_oar_place(&c, nowhere, 0, &out, &err), AM_ERR_INVALID);
    assert_in(err.msg, "not a region coordinate");
    am_buf_free(&out);
    am_oar_contents_free(&c);
}

/* admin_console_command as the library sends it: password and command, the empty struct
 * OpenSim answers is success, a refused password an error that never shows the password. */
/* A region's host is kept whole (it was cut at 255 bytes): two regions of one name on hosts
 * whose 300-character names differ only at byte 290 are two regions, each its own host. */
static void test_grid_keeps_long_hosts_whole(void **state)
{
    (void)state;
    char dir[512], path[700], host_a[301], host_b[301];
    am_test_tmpdir(dir, sizeof dir);
    for (size_t i = 0; i < 300; i++)
        host_a[i] = (char)('a' + i % 26);
    host_a[300] = '\0';
    memcpy(host_b, host_a, sizeof host_b);
    host_b[290] = 'z' == host_a[290] ? 'y' : 'z';
    char text[1200];
    snprintf(text, sizeof text,
             "{\"regions\": [{\"name\": \"A\", \"url\": \"http://%s:9000/\", \"password_env\": \"X\"},"
             " {\"name\": \"A\", \"url\": \"http://%s:9000/x\", \"password_env\": \"X\"}]}",
             host_a, host_b);
    snprintf(path, sizeof path, "%s/grid.json", dir);
    am_test_write_text(path, text);
    am_batch_grid grid;
    am_error err;
    assert_int_equal(am_batch_grid_load(path, &grid, &err), AM_OK);
    assert_int_equal(grid.region_count, 2);
    assert_int_equal(grid.regions[0].host.length, 305);
    assert_memory_equal(am_str(&grid.regions[0].host), host_a, 300);
    assert_string_equal(am_str(&grid.regions[0].host) + 300, ":9000");
    assert_memory_equal(am_str(&grid.regions[1].host), host_b, 300);
    assert_string_not_equal(am_str(&grid.regions[0].host), am_str(&grid.regions[1].host));
    am_batch_grid_free(&grid);
    am_test_rmtree(dir);
}

static void test_console_call(void **state)
{
    fixture *f = *state;
    SKIP_WITHOUT_DATA(f);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", am_test_http_port(f->s_near));
    am_remoteadmin_options ra;
    am_remoteadmin_options_init(&ra);
    ra.url = url;
    ra.password = PW;
    am_remoteadmin_reply reply;
    am_error err;
    assert_int_equal(am_remoteadmin_console_call(&ra, "change region Animesh Test 2", &reply, NULL, &err), AM_OK);
    am_remoteadmin_reply_free(&reply);
    assert_string_equal(f->near.selected, "Animesh Test 2");
    size_t n = am_test_http_count(f->s_near);
    am_test_http_request rq;
    am_test_http_get(f->s_near, n - 1, &rq);
    assert_in(rq.body, "<methodName>admin_console_command</methodName>");
    assert_in(rq.body, "<name>command</name><value><string>change region Animesh Test 2</string>");
    free(rq.body);
    ra.password = "not-" PW;
    assert_int_equal(am_remoteadmin_console_call(&ra, "change region root", &reply, NULL, &err), AM_ERR_INVALID);
    assert_string_equal(am_str(&reply.error), "wrong password");
    am_remoteadmin_reply_free(&reply);
    assert_in(err.msg, "admin_console_command: the region did not run the command: wrong password");
    assert_null(strstr(err.msg, PW));
    assert_string_equal(f->near.selected, "Animesh Test 2");
    assert_int_equal(am_remoteadmin_console_call(&ra, "two\nlines", &reply, NULL, &err), AM_ERR_USAGE);
    assert_int_equal(am_test_http_count(f->s_near), n + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_grid_file_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_place_moves_the_archive, setup, teardown),
        cmocka_unit_test(test_grid_keeps_long_hosts_whole),
        cmocka_unit_test_setup_teardown(test_console_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spawn_verify_and_rerun, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reconverted_replaces_and_moved_leaves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remove, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusing_region_fails_its_creatures_only, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
