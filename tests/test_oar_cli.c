/* `animesh oar` on the bend box's own outputs (the files `animesh bendbox` writes): the
 * archive holds those exact bytes, loads back with libarchive, is reproducible, and bad
 * inputs are refused; the bend box meshdata passes the WorldBridge schema check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>
#include <jansson.h>

#include "core/io.h"
#include "mesh/mesh_asset.h"
#include "support/test_support.h"
#include "world/meshdata.h"

typedef struct fixture {
    char dir[512], skel[4096];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_test_shared_path(f->skel, sizeof f->skel, "viewer/avatar_skeleton.xml");
    unsetenv("SOURCE_DATE_EPOCH");
    char out[8192];
    int rc = am_test_run_cli(out, sizeof out, "bendbox --out '%s' --skeleton '%s'", f->dir, f->skel);
    if (rc != 0)
        fail_msg("bendbox failed (%d): %s", rc, out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_rmtree(f->dir);
    free(f);
    unsetenv("SOURCE_DATE_EPOCH");
    return 0;
}

static uint8_t *slurp(const char *dir, const char *name, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint8_t *d;
    am_error err;
    if (am_read_file(path, &d, n, &err))
        fail_msg("cannot read %s", path);
    return d;
}

/* Find the entry whose path ends with suffix; returns its bytes (malloc'd) or NULL. */
static uint8_t *entry_with_suffix(const uint8_t *oar, size_t size, const char *suffix, size_t *n, int *index,
                                  int64_t *mtime)
{
    struct archive *a = archive_read_new();
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    assert_int_equal(archive_read_open_memory(a, oar, size), ARCHIVE_OK);
    struct archive_entry *e;
    uint8_t *found = NULL;
    int i = 0;
    while (!found && archive_read_next_header(a, &e) == ARCHIVE_OK) {
        const char *p = archive_entry_pathname(e);
        size_t pl = strlen(p), sl = strlen(suffix);
        if (pl >= sl && strcmp(p + pl - sl, suffix) == 0) {
            *n = (size_t)archive_entry_size(e);
            found = malloc(*n + 1);
            assert_int_equal(archive_read_data(a, found, *n), (la_ssize_t)*n);
            *index = i;
            *mtime = archive_entry_mtime(e);
        }
        i++;
    }
    archive_read_free(a);
    return found;
}

static void test_bendbox_outputs_become_an_oar(void **state)
{
    fixture *f = *state;
    char out[8192];
    setenv("SOURCE_DATE_EPOCH", "1712345678", 1);
    int rc = am_test_run_cli(out, sizeof out,
                             "oar --mesh '%s/bendbox.llmesh' --texture '%s/bendbox_atlas.j2c' "
                             "--anim fold='%s/bendbox_fold.anim' --play fold --object-name 'Bend box' --at 128,128,22 "
                             "--skeleton '%s' -o '%s/bb.oar'",
                             f->dir, f->dir, f->dir, f->skel, f->dir);
    if (rc != 0)
        fail_msg("oar failed (%d): %s", rc, out);
    assert_non_null(strstr(out, "objects/Bend_box_128-128-022__"));
    size_t n, m;
    uint8_t *oar = slurp(f->dir, "bb.oar", &n);
    static const struct {
        const char *file, *suffix;
    } pairs[] = {{"bendbox.llmesh", "_mesh.llmesh"},
                 {"bendbox_atlas.j2c", "_texture.jp2"},
                 {"bendbox_fold.anim", "_animation.bvh"}};
    for (size_t i = 0; i < 3; i++) {
        uint8_t *orig = slurp(f->dir, pairs[i].file, &m);
        size_t got_n;
        int idx;
        int64_t mtime;
        uint8_t *got = entry_with_suffix(oar, n, pairs[i].suffix, &got_n, &idx, &mtime);
        assert_non_null(got);
        assert_int_equal(got_n, m);
        assert_memory_equal(got, orig, m);
        assert_ge(idx, 2); /* after archive.xml and the object */
        assert_int_equal(mtime, 1712345678);
        free(got);
        free(orig);
    }
    size_t xn;
    int idx;
    int64_t mt;
    uint8_t *xml = entry_with_suffix(oar, n, "archive.xml", &xn, &idx, &mt);
    assert_int_equal(idx, 0);
    xml[xn] = 0;
    assert_non_null(strstr((char *)xml, "<datetime>1712345678</datetime>"));
    free(xml);

    /* Same command, same bytes. */
    rc = am_test_run_cli(out, sizeof out,
                         "oar --mesh '%s/bendbox.llmesh' --texture '%s/bendbox_atlas.j2c' "
                         "--anim fold='%s/bendbox_fold.anim' --play fold --object-name 'Bend box' --at 128,128,22 "
                         "--skeleton '%s' -o '%s/bb2.oar'",
                         f->dir, f->dir, f->dir, f->skel, f->dir);
    assert_int_equal(rc, 0);
    uint8_t *oar2 = slurp(f->dir, "bb2.oar", &m);
    assert_int_equal(m, n);
    assert_memory_equal(oar, oar2, n);
    free(oar2);
    free(oar);
}

static void test_bendbox_meshdata_passes_the_schema_and_dry_run(void **state)
{
    fixture *f = *state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    char path[1024];
    snprintf(path, sizeof path, "%s/bendbox.meshdata.json", f->dir);
    json_t *doc;
    am_meshdata_summary sum;
    am_error err;
    if (am_meshdata_load(path, &skel, &doc, &sum, &err)) {
        char buf[512];
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    }
    assert_true(sum.skinned);
    assert_int_equal(sum.submeshes, 1);
    assert_ge(sum.joints, 2);
    json_decref(doc);
    am_skeleton_free(&skel);
    char out[8192];
    int rc = am_test_run_cli(out, sizeof out,
                             "push --mesh '%s' --texture '%s/bendbox_atlas.j2c' --anim fold='%s/bendbox_fold.anim' "
                             "--play fold --save --skeleton '%s' --dry-run '%s/dry'",
                             path, f->dir, f->dir, f->skel, f->dir);
    if (rc != 0)
        fail_msg("push --dry-run failed (%d): %s", rc, out);
    assert_non_null(strstr(out, "dry-run: wrote 4 requests"));
}

static void test_bad_mesh_inputs_are_refused(void **state)
{
    fixture *f = *state;
    char out[8192], path[1024];
    /* Not a mesh asset at all. */
    int rc = am_test_run_cli(out, sizeof out, "oar --mesh '%s/bendbox_fold.anim' -o '%s/x.oar'", f->dir, f->dir);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "bendbox_fold.anim"));
    /* A valid mesh without a skin: no animesh can come of it. */
    am_mesh_asset asset;
    am_error err;
    snprintf(path, sizeof path, "%s/bendbox.llmesh", f->dir);
    assert_int_equal(am_mesh_asset_load(path, &asset, &err), AM_OK);
    for (int l = 0; l < AM_LOD_COUNT; l++)
        for (size_t i = 0; i < asset.lods[l].face_count; i++)
            asset.lods[l].faces[i].has_weights = false;
    asset.has_skin = false;
    am_buf b = {0};
    assert_int_equal(am_mesh_asset_encode(&asset, &b, &err), AM_OK);
    snprintf(path, sizeof path, "%s/static.llmesh", f->dir);
    assert_int_equal(am_write_file_atomic(path, b.data, b.size, &err), AM_OK);
    am_buf_free(&b);
    am_mesh_asset_free(&asset);
    rc = am_test_run_cli(out, sizeof out, "oar --mesh '%s' -o '%s/x.oar'", path, f->dir);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "static.llmesh: the mesh has no skin block"));
    /* Usage. */
    assert_int_equal(am_test_run_cli(out, sizeof out, "oar --mesh '%s/bendbox.llmesh'", f->dir), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "oar --mesh '%s/bendbox.llmesh' --play x -o '%s/x.oar'", f->dir,
                                     f->dir),
                     2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "oar --mesh '%s/missing.llmesh' -o '%s/x.oar'", f->dir, f->dir),
                     3);
    assert_int_equal(am_test_run_cli(out, sizeof out, "oar --help"), 0);
    /* a position out of any region names the position, not a scale nobody gave */
    rc =
        am_test_run_cli(out, sizeof out, "oar --mesh '%s/bendbox.llmesh' --at 1e308,0,0 -o '%s/x.oar'", f->dir, f->dir);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "position x 1e+308 m is outside any region"));
    assert_null(strstr(out, "scale"));
    snprintf(path, sizeof path, "%s/x.oar", f->dir);
    FILE *fp = fopen(path, "rb");
    assert_null(fp); /* nothing written on failure */
}

/* The UUID printed after `label` (e.g. "  mesh ") in oar's output. */
static void printed_uuid(const char *out, const char *label, char uuid[37])
{
    const char *p = strstr(out, label);
    if (!p)
        fail_msg("no '%s' in: %s", label, out);
    snprintf(uuid, 37, "%.36s", p + strlen(label));
}

static void test_salt_gives_new_uuids_and_the_archive_is_checked(void **state)
{
    fixture *f = *state;
    char plain[8192], salted[8192], out[8192];
    const char *args = "oar --mesh '%s/bendbox.llmesh' --texture '%s/bendbox_atlas.j2c' --anim fold='%s/bendbox_fold.anim' "
                       "--play fold %s -o '%s/%s'";
    char cmd[4096];
    snprintf(cmd, sizeof cmd, args, f->dir, f->dir, f->dir, "", f->dir, "plain.oar");
    assert_int_equal(am_test_run_cli(plain, sizeof plain, "%s", cmd), 0);
    snprintf(cmd, sizeof cmd, args, f->dir, f->dir, f->dir, "--salt retry-2", f->dir, "salted.oar");
    assert_int_equal(am_test_run_cli(salted, sizeof salted, "%s", cmd), 0);
    assert_non_null(strstr(plain, "checked: read back whole, 4 assets decode and match their UUIDs"));
    assert_non_null(strstr(salted, "UUID salt retry-2"));
    static const char *labels[] = {"  mesh ", "  texture ", "  animation fold ", "  script (plays fold) "};
    for (size_t i = 0; i < 4; i++) {
        char a[37], b[37];
        printed_uuid(plain, labels[i], a);
        printed_uuid(salted, labels[i], b);
        if (strcmp(a, b) == 0)
            fail_msg("%s is %s with and without the salt", labels[i], a);
    }
    /* The same salt, the same archive; the salt is in archive.xml. */
    snprintf(cmd, sizeof cmd, args, f->dir, f->dir, f->dir, "--salt retry-2", f->dir, "salted2.oar");
    assert_int_equal(am_test_run_cli(out, sizeof out, "%s", cmd), 0);
    size_t n1, n2, xn;
    uint8_t *a = slurp(f->dir, "salted.oar", &n1), *b = slurp(f->dir, "salted2.oar", &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    int idx;
    int64_t mt;
    uint8_t *xml = entry_with_suffix(a, n1, "archive.xml", &xn, &idx, &mt);
    xml[xn] = 0;
    assert_non_null(strstr((char *)xml, "<animesh uuid_salt=\"retry-2\" />"));
    free(xml);
    free(a);
    free(b);
    /* A salt outside A-Z a-z 0-9 . _ - is a usage error, nothing written. */
    snprintf(cmd, sizeof cmd, args, f->dir, f->dir, f->dir, "--salt 'two words'", f->dir, "bad.oar");
    assert_int_equal(am_test_run_cli(out, sizeof out, "%s", cmd), 2);
    assert_non_null(strstr(out, "--salt"));
    char path[1024];
    snprintf(path, sizeof path, "%s/bad.oar", f->dir);
    assert_null(fopen(path, "rb"));
}

/* Names become object XML: a name that is not UTF-8 would make it ill-formed. */
static void test_a_name_that_is_not_utf8_is_refused(void **state)
{
    fixture *f = *state;
    char out[8192], path[1024];
    int rc = am_test_run_cli(out, sizeof out,
                             "oar --mesh '%s/bendbox.llmesh' --anim \"$(printf 'fold\\377')=%s/bendbox_fold.anim\" "
                             "-o '%s/x.oar'",
                             f->dir, f->dir, f->dir);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--anim name \"fold\\xFF\" is not valid UTF-8 (byte 4)"));
    rc = am_test_run_cli(out, sizeof out,
                         "oar --mesh '%s/bendbox.llmesh' --object-name \"$(printf 'Box \\303\\050')\" -o '%s/x.oar'",
                         f->dir, f->dir);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--object-name name \"Box \\xC3(\" is not valid UTF-8 (byte 4)"));
    snprintf(path, sizeof path, "%s/x.oar", f->dir);
    FILE *fp = fopen(path, "rb");
    assert_null(fp); /* nothing written */
    /* well-formed UTF-8 is fine ("Boete" with a grave accent) */
    rc = am_test_run_cli(out, sizeof out,
                         "oar --mesh '%s/bendbox.llmesh' --object-name \"$(printf 'Bo\\303\\250te')\" -o '%s/x.oar'",
                         f->dir, f->dir);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    fp = fopen(path, "rb");
    assert_non_null(fp);
    fclose(fp);
}

static void test_unwritable_output_is_an_io_error_without_leaks(void **state)
{
    fixture *f = *state;
    char out[8192], plain[1024];
    /* The output's parent is a regular file: exit 3 naming the path. The archive plan
     * (animation and script UUIDs) was made before the write failed; under ASan a leak of
     * it would turn the exit code into 134. */
    snprintf(plain, sizeof plain, "%s/plain", f->dir);
    am_test_write_text(plain, "x");
    int rc = am_test_run_cli(out, sizeof out,
                             "oar --mesh '%s/bendbox.llmesh' --anim fold='%s/bendbox_fold.anim' --play fold "
                             "-o '%s/x.oar'",
                             f->dir, f->dir, plain);
    if (rc != 3)
        fail_msg("expected exit 3, got %d: %s", rc, out);
    assert_non_null(strstr(out, "plain/x.oar"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bendbox_outputs_become_an_oar, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bendbox_meshdata_passes_the_schema_and_dry_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_mesh_inputs_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_salt_gives_new_uuids_and_the_archive_is_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_name_that_is_not_utf8_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwritable_output_is_an_io_error_without_leaks, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
