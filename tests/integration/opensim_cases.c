/* Integration cases against a real OpenSimulator 0.9.2.2 region (started once by
 * tests/integration/opensim_region.sh, which runs this program inside the region's
 * loopback-only network namespace). Every case runs the animesh CLI as a user would, then checks
 * the region on its own terms: the region's console `save oar` (not animesh's admin_save_oar),
 * unpacked with libarchive and read with libxml2 here, the bytes compared with the files animesh
 * wrote and with the ExtraParams and SOPAnims layouts (docs/reference/opensim-oar.md#the-object-xml).
 * Each case prints what was observed (animesh's output and exit code, the region's log lines) for the
 * record.
 *
 * Environment (set by the driver): AM_OSIM_RUN_REGION (run_region.sh), OSIM_RUN (the region's
 * run directory: OpenSim.log, opensim.pid, Regions/Regions.ini), OSIM_PASSWORD, OSIM_REGION,
 * TMUX_TMPDIR (the region console's private tmux server). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <openssl/evp.h>
#include <uuid/uuid.h>

#include "core/io.h"
#include "support/test_support.h"
#include "world/remoteadmin.h"
#include "support/world_fixtures.h"

#define URL "http://127.0.0.1:9000/"

typedef struct world {
    char dir[512];
    char skel[4096];
    char run_region[1024], run[1024], log[1200], region[128], region_uuid[37];
    char bendbox[1024], quadruped[1024]; /* the two archives */
    int saves;
} world;

static const char *env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !v[0])
        fail_msg("%s is not set: run this through tests/integration/opensim_region.sh", name);
    return v;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t log_size(const world *w)
{
    struct stat st;
    return stat(w->log, &st) == 0 ? (size_t)st.st_size : 0;
}

/* The region's log from byte `from` on (malloc'd text). */
static char *log_since(const world *w, size_t from)
{
    uint8_t *d = NULL;
    size_t n = 0;
    am_error err;
    if (am_read_file(w->log, &d, &n, &err))
        fail_msg("cannot read %s", w->log);
    size_t k = from < n ? from : n;
    memmove(d, d + k, n - k + 1);
    return (char *)d;
}

/* Print a case's observation: animesh's exit code and output, the region's RADMIN/ARCHIVER
 * lines since `from`. */
static void observed(const world *w, const char *what, int rc, const char *out, size_t from)
{
    print_message("---- %s\n  animesh exit %d:\n", what, rc);
    for (const char *p = out; *p;) {
        size_t n = strcspn(p, "\n");
        print_message("    | %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    char *log = log_since(w, from);
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, "[RADMIN]") || strstr(line, "[ARCHIVER]"))
            print_message("    region: %s\n", strstr(line, "[") ? strstr(line, "[") : line);
    free(log);
}

static void console(const world *w, const char *cmd)
{
    char sh[2048];
    snprintf(sh, sizeof sh, "bash '%s' console '%s' >/dev/null 2>&1", w->run_region, cmd);
    assert_int_equal(system(sh), 0);
}

/* The region's own `save oar` (console), whole once the log says so; unpacked into e. */
static size_t region_save(world *w, am_test_tar_entry *e, size_t cap)
{
    char path[1024], cmd[1100];
    snprintf(path, sizeof path, "%s/region-save-%d.oar", w->dir, ++w->saves);
    size_t from = log_size(w);
    snprintf(cmd, sizeof cmd, "save oar %s", path);
    console(w, cmd);
    double t0 = now_s();
    for (;;) {
        char *log = log_since(w, from);
        bool done = strstr(log, "Finished writing out OAR") != NULL;
        free(log);
        if (done)
            break;
        if (now_s() - t0 > 30)
            fail_msg("the region's save %s did not finish in 30 s", path);
        sleep_s(0.1);
    }
    am_buf b = {0};
    am_error err;
    if (am_read_file(path, &b.data, &b.size, &err))
        fail_msg("cannot read the region's save %s", path);
    size_t n = am_test_untar(&b, e, cap);
    am_buf_free(&b);
    unlink(path);
    return n;
}

/* The region's objects whose sculpt is this mesh (OpenSim writes <SculptTexture><UUID>). */
static size_t objects_with_mesh(const am_test_tar_entry *e, size_t n, const char *mesh, const am_test_tar_entry **out,
                                size_t cap)
{
    char needle[128];
    snprintf(needle, sizeof needle, "<SculptTexture><UUID>%s</UUID></SculptTexture>", mesh);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(e[i].path, "objects/", 8) == 0 && strstr((const char *)e[i].data, needle) && k < cap)
            out[k++] = &e[i];
    return k;
}

static size_t b64(const char *text, uint8_t *out, size_t cap)
{
    size_t len = strlen(text);
    assert_true(len / 4 * 3 <= cap);
    int n = EVP_DecodeBlock(out, (const unsigned char *)text, (int)len);
    assert_true(n >= 0);
    n -= (len > 0 && text[len - 1] == '=') + (len > 1 && text[len - 2] == '=');
    return (size_t)n;
}

/* The text of the first node expr selects in the object's XML ("" when none; malloc'd). */
static char *xpath_first(const am_test_tar_entry *obj, const char *expr)
{
    xmlDoc *doc = xmlReadMemory((const char *)obj->data, (int)obj->size, obj->path, "UTF-8",
                                XML_PARSE_NONET | XML_PARSE_IGNORE_ENC);
    assert_non_null(doc);
    xmlXPathContext *ctx = xmlXPathNewContext(doc);
    xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
    char *r;
    if (o && o->nodesetval && o->nodesetval->nodeNr > 0) {
        xmlChar *t = xmlNodeGetContent(o->nodesetval->nodeTab[0]);
        r = strdup((const char *)t);
        xmlFree(t);
    } else {
        r = strdup("");
    }
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    xmlFreeDoc(doc);
    return r;
}

static int xpath_count(const am_test_tar_entry *obj, const char *expr)
{
    xmlDoc *doc = xmlReadMemory((const char *)obj->data, (int)obj->size, obj->path, "UTF-8",
                                XML_PARSE_NONET | XML_PARSE_IGNORE_ENC);
    xmlXPathContext *ctx = xmlXPathNewContext(doc);
    xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
    int n = o && o->nodesetval ? o->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    xmlFreeDoc(doc);
    return n;
}

/* The ExtraParams of docs/reference/opensim-oar.md#the-object-xml for an animesh mesh prim: count 2;
 * sculpt 0x30, 17 bytes (mesh UUID, type 5); mesh flags 0x70, 4 bytes, bit 0 set. Without the flag
 * entry for a child prim. */
static size_t expected_extra_params(const char *mesh, bool animesh, uint8_t out[34])
{
    static const uint8_t head[7] = {0x02, 0x30, 0x00, 0x11, 0x00, 0x00, 0x00};
    static const uint8_t flags[11] = {0x05, 0x70, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00};
    memcpy(out, head, 7);
    uuid_t u;
    assert_int_equal(uuid_parse(mesh, u), 0);
    memcpy(out + 7, u, 16);
    memcpy(out + 23, flags, 11);
    if (!animesh)
        out[0] = 1;
    return animesh ? 34 : 24;
}

/* A part's ExtraParams (part 1 = the root) against the reference's bytes. */
static void expect_extra_params(const am_test_tar_entry *obj, int part, const char *mesh, bool animesh)
{
    char q[128];
    snprintf(q, sizeof q, "(//SceneObjectPart)[%d]/Shape/ExtraParams", part);
    char *t = xpath_first(obj, q);
    uint8_t got[128], want[34];
    size_t n = b64(t, got, sizeof got), m = expected_extra_params(mesh, animesh, want);
    free(t);
    if (n != m || memcmp(got, want, m) != 0)
        fail_msg("%s part %d: ExtraParams (%zu bytes) are not the spec's %zu bytes for mesh %s%s", obj->path, part, n,
                 m, mesh, animesh ? " with the animesh flag" : "");
}

/* Whether the root's SOPAnims (u16 count; per animation 16 UUID bytes, a length byte, the
 * name) holds this animation under this name. */
static bool playing(const am_test_tar_entry *obj, const char *anim_uuid, const char *name)
{
    char *t = xpath_first(obj, "(//SceneObjectPart)[1]/SOPAnims");
    uint8_t d[1024];
    size_t n = t[0] ? b64(t, d, sizeof d) : 0;
    free(t);
    uuid_t want;
    assert_int_equal(uuid_parse(anim_uuid, want), 0);
    size_t count = n >= 2 ? (size_t)(d[0] | d[1] << 8) : 0, off = 2;
    for (size_t i = 0; i < count && off + 17 <= n; i++) {
        size_t len = d[off + 16];
        if (off + 17 + len > n)
            break;
        if (memcmp(d + off, want, 16) == 0 && len == strlen(name) && memcmp(d + off + 17, name, len) == 0)
            return true;
        off += 17 + len;
    }
    return false;
}

/* The region's save holds this file's bytes as the asset of this kind (content UUID). */
static void expect_asset(const am_test_tar_entry *e, size_t n, const char *kind, const char *suffix, const char *salt,
                         const uint8_t *data, size_t size)
{
    char u[37], path[128];
    am_test_content_uuid(kind, salt, data, size, u);
    snprintf(path, sizeof path, "assets/%s%s", u, suffix);
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].path, path) == 0) {
            if (e[i].size != size || memcmp(e[i].data, data, size) != 0)
                fail_msg("%s: the region's copy (%zu bytes) differs from ours (%zu bytes)", path, e[i].size, size);
            return;
        }
    fail_msg("%s is not in the region's save", path);
}

typedef struct creature {
    const char *name, *oar, *mesh, *texture, *anim, *anim_name;
} creature;

/* Push with the defaults a user gets (loopback: --verify on), then the region's own save:
 * the object with the reference's ExtraParams, our assets byte for byte, the starter script's
 * animation in SOPAnims (it may take a moment to start). Returns the number of objects that
 * carry the creature's mesh. */
static size_t push_and_inspect(world *w, const creature *c, const char *extra, const char *expect)
{
    char out[16384];
    size_t from = log_size(w);
    double t0 = now_s();
    int rc = am_test_run_cli(out, sizeof out, "push --remote-admin " URL " --oar '%s' --region '%s' %s", c->oar,
                             w->region, extra ? extra : "");
    double took = now_s() - t0;
    observed(w, c->name, rc, out, from);
    print_message("  push took %.1f s\n", took);
    if (rc != 0)
        fail_msg("push %s: exit %d", c->name, rc);
    assert_non_null(strstr(out, "loaded and verified: 1 object"));
    assert_non_null(strstr(out, "animesh flag set"));
    if (expect && !strstr(out, expect))
        fail_msg("push %s: no '%s' in the output", c->name, expect);
    /* --verify waits for the starter script: the save it reads shows the animation playing */
    char plays[300];
    snprintf(plays, sizeof plays, "; playing %s", c->anim_name);
    if (!strstr(out, plays))
        fail_msg("push %s: --verify does not say '%s': %s", c->name, plays, out);
    size_t mn, an, tn = 0;
    uint8_t *mesh = am_test_slurp(c->mesh, &mn), *anim = am_test_slurp(c->anim, &an);
    uint8_t *tex = c->texture ? am_test_slurp(c->texture, &tn) : NULL;
    char mesh_uuid[37], anim_uuid[37];
    am_test_content_uuid("mesh", NULL, mesh, mn, mesh_uuid);
    am_test_content_uuid("animation", NULL, anim, an, anim_uuid);
    am_buf ours = {0};
    ours.data = am_test_slurp(c->oar, &ours.size);
    am_test_tar_entry oe[16];
    size_t on = am_test_untar(&ours, oe, 16);
    size_t copies = 0;
    for (double t1 = now_s();;) {
        am_test_tar_entry e[64];
        size_t n = region_save(w, e, 64);
        const am_test_tar_entry *objs[8];
        copies = objects_with_mesh(e, n, mesh_uuid, objs, 8);
        assert_true(copies >= 1);
        bool all_playing = true;
        for (size_t k = 0; k < copies; k++) {
            expect_extra_params(objs[k], 1, mesh_uuid, true);
            all_playing &= playing(objs[k], anim_uuid, c->anim_name);
        }
        expect_asset(e, n, "mesh", "_mesh.llmesh", NULL, mesh, mn);
        expect_asset(e, n, "animation", "_animation.bvh", NULL, anim, an);
        if (tex)
            expect_asset(e, n, "texture", "_texture.jp2", NULL, tex, tn);
        for (size_t i = 0; i < on; i++) /* the starter script: the bytes in our archive */
            if (strstr(oe[i].path, "_script.lsl"))
                for (size_t j = 0; j < n; j++)
                    if (strcmp(e[j].path, oe[i].path) == 0)
                        assert_memory_equal(e[j].data, oe[i].data, oe[i].size);
        am_test_tar_free(e, n);
        if (all_playing) {
            print_message("  region's own save: %zu object(s) with mesh %s, ExtraParams as the spec, assets "
                          "byte-identical, SOPAnims plays %s (%s)\n",
                          copies, mesh_uuid, c->anim_name, anim_uuid);
            break;
        }
        if (now_s() - t1 > 20)
            fail_msg("%s: SOPAnims never showed %s playing (the starter script did not run)", c->name, c->anim_name);
        sleep_s(1);
    }
    am_test_tar_free(oe, on);
    am_buf_free(&ours);
    free(mesh);
    free(anim);
    free(tex);
    return copies;
}

static int setup(void **state)
{
    world *w = calloc(1, sizeof *w);
    am_test_tmpdir(w->dir, sizeof w->dir);
    am_test_no_proxy();
    snprintf(w->run_region, sizeof w->run_region, "%s", env("AM_OSIM_RUN_REGION"));
    snprintf(w->run, sizeof w->run, "%s", env("OSIM_RUN"));
    snprintf(w->log, sizeof w->log, "%s/OpenSim.log", w->run);
    snprintf(w->region, sizeof w->region, "%s", env("OSIM_REGION"));
    setenv("OPENSIM_REMOTEADMIN_PASSWORD", env("OSIM_PASSWORD"), 1);
    am_test_shared_path(w->skel, sizeof w->skel, "viewer/avatar_skeleton.xml");
    setenv("ANIMESH_SKELETON", w->skel, 1);
    /* The region's UUID, from its own Regions.ini. */
    char ini[1200];
    snprintf(ini, sizeof ini, "%s/Regions/Regions.ini", w->run);
    size_t n;
    char *text = (char *)am_test_slurp(ini, &n);
    char *u = strstr(text, "RegionUUID = ");
    assert_non_null(u);
    snprintf(w->region_uuid, sizeof w->region_uuid, "%.36s", u + strlen("RegionUUID = "));
    free(text);
    /* The creatures, made the way a user makes them. */
    char out[16384];
    int rc = am_test_run_cli(out, sizeof out, "bendbox --out '%s/bb'", w->dir);
    if (rc)
        fail_msg("bendbox: %s", out);
    rc = am_test_run_cli(out, sizeof out, "skin '%s/assets/rigs/quadruped.json' --out '%s/q'", AM_SOURCE_DIR, w->dir);
    if (!rc)
        rc = am_test_run_cli(out, sizeof out, "anim encode '%s/assets/anims/quadruped_wag.json' -o '%s/q/wag.anim'",
                             AM_SOURCE_DIR, w->dir);
    if (rc)
        fail_msg("quadruped: %s", out);
    snprintf(w->bendbox, sizeof w->bendbox, "%s/bendbox.oar", w->dir);
    snprintf(w->quadruped, sizeof w->quadruped, "%s/quadruped.oar", w->dir);
    rc = am_test_run_cli(out, sizeof out,
                         "oar --mesh '%s/bb/bendbox.llmesh' --texture '%s/bb/bendbox_atlas.j2c' --anim "
                         "fold='%s/bb/bendbox_fold.anim' --play fold --object-name 'Bend box' --at 128,128,25 -o '%s'",
                         w->dir, w->dir, w->dir, w->bendbox);
    if (!rc)
        rc = am_test_run_cli(out, sizeof out,
                             "oar --mesh '%s/q/quadruped.llmesh' --anim wag='%s/q/wag.anim' --play wag --color "
                             "0.55,0.4,0.25 --object-name Quadruped --at 120,128,25 -o '%s'",
                             w->dir, w->dir, w->quadruped);
    if (rc)
        fail_msg("oar: %s", out);
    /* The imported creatures (animesh import: model file in, archive out, one command). */
    char data[1024];
    am_test_shared_path(data, sizeof data, "data/realdata");
    rc = am_test_run_cli(out, sizeof out,
                         "import '%s/Little Bear_90.dae' --out '%s/bear' --anim '%s/TeddyIdle.bvh' --oar '%s/bear.oar' "
                         "--at 136,128,25",
                         data, w->dir, data, w->dir);
    if (!rc)
        rc = am_test_run_cli(out, sizeof out,
                             "import '%s/female_2016_08_05.dae' --out '%s/female' --anim '%s/TeddyIdle.bvh' --oar "
                             "'%s/female.oar' --at 144,128,25",
                             data, w->dir, data, w->dir);
    if (rc)
        fail_msg("import: %s", out);
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", w->dir);
    assert_int_equal(system(cmd), 0);
    free(w);
    return 0;
}

static creature bendbox(const world *w, char paths[3][1024])
{
    snprintf(paths[0], 1024, "%s/bb/bendbox.llmesh", w->dir);
    snprintf(paths[1], 1024, "%s/bb/bendbox_atlas.j2c", w->dir);
    snprintf(paths[2], 1024, "%s/bb/bendbox_fold.anim", w->dir);
    return (creature){"bend box", w->bendbox, paths[0], paths[1], paths[2], "fold"};
}

static void test_bendbox_loads_and_saves_back(void **state)
{
    world *w = *state;
    char p[3][1024];
    creature c = bendbox(w, p);
    assert_int_equal(push_and_inspect(w, &c, NULL, NULL), 1);
}

static void test_quadruped_loads_and_saves_back(void **state)
{
    world *w = *state;
    char mesh[1024], anim[1024];
    snprintf(mesh, sizeof mesh, "%s/q/quadruped.llmesh", w->dir);
    snprintf(anim, sizeof anim, "%s/q/wag.anim", w->dir);
    creature c = {"quadruped", w->quadruped, mesh, NULL, anim, "wag"};
    assert_int_equal(push_and_inspect(w, &c, NULL, NULL), 1);
}

/* The creatures `animesh import` makes from real files, archive included (--oar): Linden
 * Lab's animesh teddy bear playing its own TeddyIdle.bvh, and the Bento reference female,
 * whose five rigged meshes become one object of five prims (the root flagged, four child
 * prims with their own meshes). */
static void test_imported_creature_loads_and_saves_back(void **state)
{
    world *w = *state;
    char mesh[1024], anim[1024], oar[1024];
    snprintf(mesh, sizeof mesh, "%s/bear/Little_Bear_90.llmesh", w->dir);
    snprintf(anim, sizeof anim, "%s/bear/TeddyIdle.anim", w->dir);
    snprintf(oar, sizeof oar, "%s/bear.oar", w->dir);
    creature bear = {"imported Little Bear (animesh import --oar)", oar, mesh, NULL, anim, "TeddyIdle"};
    assert_int_equal(push_and_inspect(w, &bear, NULL, "1 object (1 part, animesh flag set)"), 1);

    static const char *const parts[5] = {"eyeBallLeftMesh", "eyeBallRightMesh", "headMesh", "lowerBodyMesh",
                                         "upperBodyMesh"};
    char meshes[5][1024];
    for (int i = 0; i < 5; i++)
        snprintf(meshes[i], sizeof meshes[i], "%s/female/female_2016_08_05_%s.llmesh", w->dir, parts[i]);
    snprintf(anim, sizeof anim, "%s/female/TeddyIdle.anim", w->dir);
    snprintf(oar, sizeof oar, "%s/female.oar", w->dir);
    creature female = {"imported Bento female, a five-prim linkset", oar, meshes[0], NULL, anim, "TeddyIdle"};
    assert_int_equal(push_and_inspect(w, &female, NULL, "1 object (5 parts, animesh flag set)"), 1);
    /* the region's own save: one object of five parts, every mesh byte-identical, only the
     * root carrying the animesh flag */
    char root[37];
    size_t mn;
    uint8_t *m0 = am_test_slurp(meshes[0], &mn);
    am_test_content_uuid("mesh", NULL, m0, mn, root);
    free(m0);
    am_test_tar_entry e[64];
    size_t n = region_save(w, e, 64);
    const am_test_tar_entry *objs[4];
    assert_int_equal(objects_with_mesh(e, n, root, objs, 4), 1);
    assert_int_equal(xpath_count(objs[0], "//SceneObjectPart"), 5);
    expect_extra_params(objs[0], 1, root, true);
    for (int i = 1; i < 5; i++) {
        uint8_t *m = am_test_slurp(meshes[i], &mn);
        char uuid[37];
        am_test_content_uuid("mesh", NULL, m, mn, uuid);
        expect_asset(e, n, "mesh", "_mesh.llmesh", NULL, m, mn);
        bool found = false;
        for (int part = 2; part <= 5 && !found; part++) {
            char q[200];
            snprintf(q, sizeof q, "(//SceneObjectPart)[%d]/Shape/SculptTexture/UUID[text()='%s']", part, uuid);
            if (xpath_count(objs[0], q) == 1) {
                expect_extra_params(objs[0], part, uuid, false);
                found = true;
            }
        }
        if (!found)
            fail_msg("the region's copy has no child prim with mesh %s (%s)", uuid, parts[i]);
        free(m);
    }
    print_message("  region's own save: 1 object, 5 parts, root %s flagged, 4 child prims without the flag\n", root);
    am_test_tar_free(e, n);
}

/* One push with extra arguments; returns animesh's exit code, output in out. */
static int push(world *w, const char *what, char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int push(world *w, const char *what, char *out, size_t size, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    size_t from = log_size(w);
    int rc = am_test_run_cli(out, size, "push --remote-admin " URL " %s", args);
    observed(w, what, rc, out, from);
    return rc;
}

static void test_region_uuid(void **state)
{
    world *w = *state;
    char out[16384], oar[1100];
    snprintf(oar, sizeof oar, "%s/bendbox-uuid.oar", w->dir);
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "oar --mesh '%s/bb/bendbox.llmesh' --anim fold='%s/bb/bendbox_fold.anim' --play "
                                     "fold --salt region-uuid -o '%s'",
                                     w->dir, w->dir, oar),
                     0);
    int rc = push(w, "--region-uuid (the region's own UUID)", out, sizeof out, "--oar '%s' --region-uuid %s", oar,
                  w->region_uuid);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "loaded and verified"));
    rc = push(w, "--region-uuid (a UUID no region has)", out, sizeof out,
              "--oar '%s' --region-uuid 11111111-2222-3333-4444-555555555555", oar);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "Region ID 11111111-2222-3333-4444-555555555555 not found"));
}

static void test_wrong_password(void **state)
{
    world *w = *state;
    char out[16384];
    setenv("OPENSIM_REMOTEADMIN_PASSWORD", "not-the-password-42", 1);
    int rc = push(w, "wrong password", out, sizeof out, "--oar '%s' --region '%s'", w->bendbox, w->region);
    setenv("OPENSIM_REMOTEADMIN_PASSWORD", env("OSIM_PASSWORD"), 1);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "admin_load_oar: the region did not load the archive: wrong password"));
    assert_null(strstr(out, "not-the-password-42"));
    assert_null(strstr(out, env("OSIM_PASSWORD")));
}

static void test_wrong_region(void **state)
{
    world *w = *state;
    char out[16384];
    int rc = push(w, "wrong region", out, sizeof out, "--oar '%s' --region Nowhere", w->bendbox);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "the region did not load the archive: Region Nowhere not found"));
}

static void test_missing_file_on_the_region_host(void **state)
{
    world *w = *state;
    char out[16384];
    int rc = push(w, "missing file on the region host", out, sizeof out, "--oar /nonexistent/animesh/creature.oar "
                                                                         "--region '%s'",
                  w->region);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "not checked before sending (taken as a path on the region host)"));
    assert_non_null(strstr(out, "the region did not load the archive: Could not find"));
}

static void test_bad_archives_are_refused_before_sending(void **state)
{
    world *w = *state;
    size_t n;
    uint8_t *good = am_test_slurp(w->bendbox, &n);
    static const struct {
        const char *what;
        int num, den; /* keep num/den of the file */
        const char *says;
    } cuts[] = {{"empty archive", 0, 1, "empty file"},
                {"100-byte archive", -100, 1, "cut short"},
                {"truncated archive (two thirds)", 2, 3, "the file is cut short"}};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char path[1100], out[16384];
        snprintf(path, sizeof path, "%s/bad-%zu.oar", w->dir, i);
        size_t keep = cuts[i].num < 0 ? (size_t)-cuts[i].num : n * (size_t)cuts[i].num / (size_t)cuts[i].den;
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(good, 1, keep, f), keep);
        fclose(f);
        size_t from = log_size(w);
        int rc = push(w, cuts[i].what, out, sizeof out, "--oar '%s' --region '%s'", path, w->region);
        assert_int_equal(rc, 1);
        assert_non_null(strstr(out, cuts[i].says));
        assert_non_null(strstr(out, "not sent"));
        char *log = log_since(w, from);
        assert_null(strstr(log, "Received Load OAR")); /* the region never heard of it */
        free(log);
    }
    free(good);
}

static void test_loading_twice(void **state)
{
    world *w = *state;
    char p[3][1024];
    creature c = bendbox(w, p);
    size_t from = log_size(w);
    /* The same archive as the first case, again: a second object; the assets are skipped. */
    assert_int_equal(push_and_inspect(w, &c, NULL, "the region holds 2 copies (it was loaded before)"), 2);
    char *log = log_since(w, from);
    assert_non_null(strstr(log, "Skipped 4 asset uploads"));
    free(log);
}

static void test_poisoned_grid_recovers_with_a_new_salt(void **state)
{
    world *w = *state;
    char out[16384], good[1100], cut[1100], fresh[1100];
    snprintf(good, sizeof good, "%s/poison-1.oar", w->dir);
    snprintf(cut, sizeof cut, "%s/poison-1-cut.oar", w->dir);
    snprintf(fresh, sizeof fresh, "%s/poison-2.oar", w->dir);
    const char *args = "oar --mesh '%s/bb/bendbox.llmesh' --texture '%s/bb/bendbox_atlas.j2c' --anim "
                       "fold='%s/bb/bendbox_fold.anim' --play fold --object-name Poisoned --at 100,128,25 --salt %s "
                       "-o '%s'";
    assert_int_equal(am_test_run_cli(out, sizeof out, args, w->dir, w->dir, w->dir, "poison-1", good), 0);
    assert_int_equal(am_test_run_cli(out, sizeof out, args, w->dir, w->dir, w->dir, "poison-2", fresh), 0);
    /* Cut the archive inside the texture (the largest asset), as a broken upload would. */
    am_buf b = {0};
    b.data = am_test_slurp(good, &b.size);
    size_t keep = 0;
    char entry[128] = "";
    for (keep = b.size / 3; keep < b.size; keep += 64) {
        am_test_entry_at_cut(&b, keep, entry, sizeof entry);
        if (strstr(entry, "_texture.jp2"))
            break;
    }
    assert_non_null(strstr(entry, "_texture.jp2"));
    FILE *f = fopen(cut, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.data, 1, keep, f), keep);
    fclose(f);
    am_buf_free(&b);
    /* Sent without animesh's check (the library call alone): OpenSim answers loaded: true. */
    am_remoteadmin_options opt;
    am_remoteadmin_options_init(&opt);
    am_remoteadmin_options_from_env(&opt);
    opt.url = URL;
    am_remoteadmin_load_oar req = {cut, w->region, NULL, true, false};
    am_remoteadmin_reply reply;
    am_error err;
    size_t from = log_size(w);
    am_status s = am_remoteadmin_load_oar_call(&opt, &req, &reply, NULL, &err);
    observed(w, "truncated archive sent unchecked (library call)", (int)s,
             reply.loaded ? "loaded: true" : "loaded: false", from);
    bool loaded = reply.loaded;
    am_remoteadmin_reply_free(&reply);
    assert_int_equal(s, AM_OK);
    assert_true(loaded);
    /* The good archive with the same UUIDs: the region skips the damaged texture, and says so only
     * in its log; --verify finds it. */
    int rc = push(w, "the good archive after the cut one (same UUIDs)", out, sizeof out, "--oar '%s' --region '%s'", good,
                  w->region);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "NOT verified"));
    assert_non_null(strstr(out, "_texture.jp2: the region holds"));
    assert_non_null(strstr(out, "animesh oar --salt NEW"));
    /* A new salt: new UUIDs, the creature whole. */
    rc = push(w, "rebuilt with a new --salt", out, sizeof out, "--oar '%s' --region '%s'", fresh, w->region);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "loaded and verified: 1 object (1 part, animesh flag set), 4 assets byte-identical"));
}

static void test_two_part_linkset(void **state)
{
    world *w = *state;
    size_t mn, tn, an, qn, wn;
    char p[1100];
    snprintf(p, sizeof p, "%s/bb/bendbox.llmesh", w->dir);
    uint8_t *mesh = am_test_slurp(p, &mn);
    snprintf(p, sizeof p, "%s/bb/bendbox_atlas.j2c", w->dir);
    uint8_t *tex = am_test_slurp(p, &tn);
    snprintf(p, sizeof p, "%s/bb/bendbox_fold.anim", w->dir);
    uint8_t *anim = am_test_slurp(p, &an);
    snprintf(p, sizeof p, "%s/q/quadruped.llmesh", w->dir);
    uint8_t *qmesh = am_test_slurp(p, &qn);
    snprintf(p, sizeof p, "%s/q/wag.anim", w->dir);
    uint8_t *wag = am_test_slurp(p, &wn);
    am_oar_anim ra[1] = {{"fold", anim, an}}, ca[1] = {{"wag", wag, wn}};
    am_oar_input root = {0}, child = {0};
    root.mesh = mesh;
    root.mesh_size = mn;
    root.texture = tex;
    root.texture_size = tn;
    root.anims = ra;
    root.anim_count = 1;
    root.play = "fold";
    root.position[0] = 140;
    root.position[1] = 128;
    root.position[2] = 25;
    root.object_name = "Linkset";
    root.uuid_salt = "linkset";
    child = root;
    child.mesh = qmesh;
    child.mesh_size = qn;
    child.texture = NULL;
    child.anims = ca;
    child.play = NULL;
    child.object_name = "Linkset tail";
    const double offset[3] = {-2, 0, 0.5};
    am_buf oar = {0};
    am_test_linkset_oar(&root, &child, offset, &oar);
    snprintf(p, sizeof p, "%s/linkset.oar", w->dir);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(oar.data, 1, oar.size, f), oar.size);
    fclose(f);
    am_buf_free(&oar);
    char out[16384];
    int rc = push(w, "two-part linkset (hand-built)", out, sizeof out, "--oar '%s' --region '%s'", p, w->region);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "loaded and verified: 1 object (2 parts, animesh flag set)"));
    /* The region's own save: one object, two parts, the root flagged, the child a plain mesh prim. */
    char root_mesh[37], child_mesh[37];
    am_test_content_uuid("mesh", "linkset", mesh, mn, root_mesh);
    am_test_content_uuid("mesh", "linkset", qmesh, qn, child_mesh);
    am_test_tar_entry e[64];
    size_t n = region_save(w, e, 64);
    const am_test_tar_entry *objs[4];
    assert_int_equal(objects_with_mesh(e, n, root_mesh, objs, 4), 1);
    assert_int_equal(xpath_count(objs[0], "//SceneObjectPart"), 2);
    expect_extra_params(objs[0], 1, root_mesh, true);
    expect_extra_params(objs[0], 2, child_mesh, false);
    expect_asset(e, n, "mesh", "_mesh.llmesh", "linkset", mesh, mn);
    expect_asset(e, n, "mesh", "_mesh.llmesh", "linkset", qmesh, qn);
    expect_asset(e, n, "animation", "_animation.bvh", "linkset", wag, wn);
    print_message("  region's own save: 1 object, 2 parts, root %s flagged, child %s without the flag\n", root_mesh,
                  child_mesh);
    am_test_tar_free(e, n);
    free(mesh);
    free(tex);
    free(anim);
    free(qmesh);
    free(wag);
}

/* Last: the region stops (its console's `quit`), and a push finds nothing listening. */
static void test_region_down(void **state)
{
    world *w = *state;
    char pidfile[1100];
    snprintf(pidfile, sizeof pidfile, "%s/opensim.pid", w->run);
    size_t n;
    char *t = (char *)am_test_slurp(pidfile, &n);
    pid_t pid = (pid_t)atol(t);
    free(t);
    assert_true(pid > 0);
    double t0 = now_s();
    console(w, "quit");
    while (kill(pid, 0) == 0) {
        if (now_s() - t0 > 60)
            fail_msg("the region (pid %ld) did not quit in 60 s", (long)pid);
        sleep_s(0.2);
    }
    print_message("  region quit in %.1f s\n", now_s() - t0);
    char out[16384];
    t0 = now_s();
    int rc = push(w, "region down", out, sizeof out, "--oar '%s' --region '%s'", w->bendbox, w->region);
    print_message("  push took %.1f s\n", now_s() - t0);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "admin_load_oar: connection refused after 4 attempts"));
}

int main(void)
{
    /* In order: each case leaves the region as the next expects (loading twice counts the first
     * case's copy; the region goes down last). */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bendbox_loads_and_saves_back),
        cmocka_unit_test(test_quadruped_loads_and_saves_back),
        cmocka_unit_test(test_imported_creature_loads_and_saves_back),
        cmocka_unit_test(test_region_uuid),
        cmocka_unit_test(test_wrong_password),
        cmocka_unit_test(test_wrong_region),
        cmocka_unit_test(test_missing_file_on_the_region_host),
        cmocka_unit_test(test_bad_archives_are_refused_before_sending),
        cmocka_unit_test(test_loading_twice),
        cmocka_unit_test(test_poisoned_grid_recovers_with_a_new_salt),
        cmocka_unit_test(test_two_part_linkset),
        cmocka_unit_test(test_region_down),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
