/* animesh bind and animesh report from the command line: the files a bind writes (all of
 * them, together, nothing left in a staging folder), the rig feeding `animesh skin`, the
 * report read back from what was written, usage errors, and bad input writing nothing. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers/scene_load.h"
#include "support/test_support.h"

static char out[65536];

static bool exists(const char *dir, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat sb;
    return stat(p, &sb) == 0 && sb.st_size > 0;
}

static size_t entries(const char *dir, bool *hidden)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls -A '%s' 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    char line[512];
    *hidden = false;
    while (p && fgets(line, sizeof line, p)) {
        n++;
        *hidden |= line[0] == '.';
    }
    if (p)
        pclose(p);
    return n;
}

static json_t *load_json(const char *dir, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    json_error_t je;
    json_t *j = json_load_file(p, 0, &je);
    if (!j)
        fail_msg("%s: %s", p, je.text);
    return j;
}

static void test_bind_writes_every_file_together(void **state)
{
    (void)state;
    char dir[256], obj[4096], skel[4096], viewer[4096];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(obj, sizeof obj, "data/creature/creature_10k.obj");
    am_test_shared_path(skel, sizeof skel, "data/creature/creature_10k.skeleton.json");
    am_test_shared_path(viewer, sizeof viewer, "viewer/avatar_skeleton.xml");
    /* the skeleton from a path of more than 400 characters (the run's note on where the joints
     * came from was once cut at 300): the report and the summary name it whole */
    char deep[1024];
    size_t skel_size;
    uint8_t *skel_bytes = am_test_slurp(skel, &skel_size);
    snprintf(deep, sizeof deep, "%s", dir);
    for (char c = 'a'; c < 'd'; c++) {
        size_t n = strlen(deep);
        deep[n++] = '/';
        memset(deep + n, c, 130);
        deep[n + 130] = '\0';
        assert_int_equal(mkdir(deep, 0700), 0);
    }
    strcat(deep, "/creature_10k.skeleton.json");
    assert_true(strlen(deep) > 400);
    FILE *copy = fopen(deep, "wb");
    assert_non_null(copy);
    assert_int_equal(fwrite(skel_bytes, 1, skel_size, copy), skel_size);
    assert_int_equal(fclose(copy), 0);
    free(skel_bytes);
    int rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --out '%s/b' --skin --skeleton '%s'", obj,
                             deep, dir, viewer);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    char said[1100];
    snprintf(said, sizeof said, "skeleton: joints from %s, ", deep);
    assert_non_null(strstr(out, said));
    char b[300];
    snprintf(b, sizeof b, "%s/b", dir);
    static const char *files[] = {"creature_10k.rig.json", "creature_10k.bind.json", "creature_10k.report.json",
                                  "creature_10k.report.txt", "creature_10k_poses.png", "creature_10k.llmesh",
                                  "creature_10k.dae", "creature_10k.meshdata.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (!exists(b, files[i]))
            fail_msg("%s was not written: %s", files[i], out);
        assert_non_null(strstr(out, files[i]));
    }
    bool hidden;
    size_t n = entries(b, &hidden);
    assert_false(hidden); /* no staging folder or temp file left */
    assert_ge(n, 9);  /* the eight above and at least one close-up */
    assert_non_null(strstr(out, "route heat"));
    /* the bind report: one island, heat, nothing unweighted */
    json_t *bj = load_json(b, "creature_10k.bind.json");
    assert_int_equal(json_array_size(json_object_get(bj, "islands")), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(bj, "islands"), 0), "route")),
                        "heat");
    assert_int_equal(json_integer_value(json_object_get(bj, "unweighted")), 0);
    const char *note = json_string_value(json_object_get(bj, "skeleton"));
    assert_non_null(note);
    assert_int_equal(strncmp(note, said + strlen("skeleton: "), strlen(said) - strlen("skeleton: ")), 0);
    json_decref(bj);
    /* the rig feeds animesh skin */
    rc = am_test_run_cli(out, sizeof out, "skin '%s/creature_10k.rig.json' --out '%s/s' --skeleton '%s'", b, dir, viewer);
    if (rc != 0)
        fail_msg("skin: exit %d: %s", rc, out);
    /* the report of the WRITTEN .llmesh says what the bind's report said */
    rc = am_test_run_cli(out, sizeof out, "report '%s/creature_10k.llmesh' --json --skeleton '%s'", b, viewer);
    assert_int_equal(rc, 0);
    /* stdout is the JSON; the progress lines (stderr) come first in the captured text */
    const char *start = out[0] == '{' ? out : strstr(out, "\n{");
    assert_non_null(start);
    json_error_t je;
    json_t *again = json_loads(start, 0, &je);
    if (!again)
        fail_msg("report --json is not JSON: %s", je.text);
    json_t *first = load_json(b, "creature_10k.report.json");
    assert_int_equal(json_integer_value(json_object_get(again, "blockers")), 0);
    json_t *w1 = json_object_get(first, "weights"), *w2 = json_object_get(again, "weights");
    const char *keys[] = {"unweighted", "sum_dev", "max_influences", "cross_side_weight"};
    for (int k = 0; k < 4; k++)
        assert_near(json_real_value(json_object_get(json_object_get(w1, keys[k]), "value")),
                    json_real_value(json_object_get(json_object_get(w2, keys[k]), "value")), 1e-9);
    assert_int_equal(json_array_size(json_object_get(again, "poses")), json_array_size(json_object_get(first, "poses")));
    json_decref(again);
    json_decref(first);
    /* report --out writes its files, and takes the rig JSON too */
    rc = am_test_run_cli(out, sizeof out, "report '%s/creature_10k.rig.json' --out '%s/r' --skeleton '%s'", b, dir, viewer);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "rig JSON"));
    snprintf(b, sizeof b, "%s/r", dir);
    assert_true(exists(b, "creature_10k.report.json"));
    assert_true(exists(b, "creature_10k_poses.png"));
    am_test_rmtree(dir);
}

static void test_fit_writes_a_placement_sheet(void **state)
{
    (void)state;
    char dir[256], obj[4096], viewer[4096];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(obj, sizeof obj, "data/creature/creature_10k.obj");
    am_test_shared_path(viewer, sizeof viewer, "viewer/avatar_skeleton.xml");
    int rc = am_test_run_cli(out, sizeof out, "bind '%s' --fit humanoid --method segment --out '%s' --skeleton '%s'", obj,
                             dir, viewer);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_true(exists(dir, "creature_10k_placement.png"));
    assert_non_null(strstr(out, "fit humanoid"));
    assert_non_null(strstr(out, "route segment"));
    am_test_rmtree(dir);
}

static void test_usage_errors(void **state)
{
    (void)state;
    char obj[4096], skel[4096];
    am_test_shared_path(obj, sizeof obj, "data/creature/creature_10k.obj");
    am_test_shared_path(skel, sizeof skel, "data/creature/creature_10k.skeleton.json");
    assert_int_equal(am_test_run_cli(out, sizeof out, "bind --help"), 0);
    assert_non_null(strstr(out, "--skeleton-rig"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "report --help"), 0);
    assert_non_null(strstr(out, "empty_major"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s'", obj, skel), 2);
    assert_non_null(strstr(out, "--out DIR is required"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --fit humanoid --out /tmp/x", obj, skel), 2);
    assert_non_null(strstr(out, "give the joints once"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "bind '%s' --fit biped --out /tmp/x", obj), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bind '%s' --fit humanoid --method hot --out /tmp/x", obj), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bind '%s' --fit humanoid --up w --out /tmp/x", obj), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "report"), 2);
}

/* An unknown joint, a mesh that is no model: exit 1 naming the problem, nothing written,
 * an earlier output left as it was. */
static void test_bad_input_writes_nothing(void **state)
{
    (void)state;
    char dir[256], obj[4096], viewer[4096], path[600];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(obj, sizeof obj, "data/creature/creature_10k.obj");
    am_test_shared_path(viewer, sizeof viewer, "viewer/avatar_skeleton.xml");
    snprintf(path, sizeof path, "%s/skel.json", dir);
    am_test_write_text(path, "{\"joints\": [{\"name\": \"mPelvis\", \"world\": [0, 0, 1.067]},"
                             " {\"name\": \"mWing\", \"world\": [0, 0.3, 1.4]}]}");
    char outdir[400];
    snprintf(outdir, sizeof outdir, "%s/out", dir);
    int rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --out '%s' --skeleton '%s'", obj, path,
                             outdir, viewer);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "unknown joint 'mWing'"));
    struct stat sb;
    assert_int_not_equal(stat(outdir, &sb), 0); /* not even the folder */
    /* an earlier run's file stays untouched by a failing one */
    assert_int_equal(mkdir(outdir, 0777), 0);
    snprintf(path, sizeof path, "%s/creature_10k.rig.json", outdir);
    am_test_write_text(path, "earlier");
    char notmodel[600];
    snprintf(notmodel, sizeof notmodel, "%s/notes.txt", dir);
    am_test_write_text(notmodel, "hello");
    rc = am_test_run_cli(out, sizeof out, "bind '%s' --fit humanoid --out '%s' --skeleton '%s'", notmodel, outdir, viewer);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "not a model file"));
    bool hidden;
    assert_int_equal(entries(outdir, &hidden), 1);
    size_t n;
    uint8_t *d = am_test_slurp(path, &n);
    assert_int_equal(n, 7);
    assert_memory_equal(d, "earlier", 7);
    free(d);
    /* the viewer skeleton is read while the mesh is: a broken one is still the error named,
     * even beside a mesh that is not there, and nothing is written */
    char badviewer[600], missing[600];
    snprintf(badviewer, sizeof badviewer, "%s/avatar_skeleton.xml", dir);
    am_test_write_text(badviewer, "<linden_skeleton");
    snprintf(missing, sizeof missing, "%s/missing.obj", dir);
    rc = am_test_run_cli(out, sizeof out, "bind '%s' --fit humanoid --out '%s' --skeleton '%s'", missing, outdir,
                         badviewer);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "avatar_skeleton.xml"));
    assert_null(strstr(out, "missing.obj: "));
    rc = am_test_run_cli(out, sizeof out, "bind '%s' --fit humanoid --out '%s' --skeleton '%s'", obj, outdir, badviewer);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "not XML"));
    assert_int_equal(entries(outdir, &hidden), 1);
    /* report on an unrigged model: bind it first */
    rc = am_test_run_cli(out, sizeof out, "report '%s' --skeleton '%s'", obj, viewer);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "no skin"));
    am_test_rmtree(dir);
}

/* An FBX is read in a child process: bind reads it with no thread of its own beside the
 * fork (am_scene_reads_in_child), and runs to its end. */
static void test_fbx_is_read_with_nothing_beside(void **state)
{
    (void)state;
    char dir[256], fbx[4096], obj[4096], viewer[4096], path[600];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(fbx, sizeof fbx, "data/realdata/rpm_avatar.fbx");
    am_test_shared_path(obj, sizeof obj, "data/creature/creature_10k.obj");
    am_test_shared_path(viewer, sizeof viewer, "viewer/avatar_skeleton.xml");
    assert_true(am_scene_reads_in_child(fbx));
    assert_false(am_scene_reads_in_child(obj));
    snprintf(path, sizeof path, "%s/missing.fbx", dir);
    assert_false(am_scene_reads_in_child(path));
    snprintf(path, sizeof path, "%s/pipe.fbx", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_false(am_scene_reads_in_child(path)); /* looked at, not waited on */
    char outdir[400];
    snprintf(outdir, sizeof outdir, "%s/fbx", dir);
    int rc = am_test_run_cli(out, sizeof out, "bind '%s' --fit humanoid --out '%s' --skeleton '%s'", fbx, outdir,
                             viewer);
    assert_true(rc == 0 || rc == 1); /* 1: the report's blockers, not a failure to run */
    assert_true(exists(outdir, "rpm_avatar.rig.json"));
    assert_true(exists(outdir, "rpm_avatar_poses.png"));
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bind_writes_every_file_together),
        cmocka_unit_test(test_fit_writes_a_placement_sheet),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_bad_input_writes_nothing),
        cmocka_unit_test(test_fbx_is_read_with_nothing_beside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
