/* `animesh import` from the command line: usage, bad input (a clear error naming the file,
 * exit 1, nothing written), the report as JSON, the written files accepted by `mesh
 * decode`, `bench` and `skin` (which rebuilds the same .llmesh from NAME.rig.json) without
 * options, the OAR linkset of a five-mesh file, and outputs replaced only together. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "core/io.h"
#include "support/test_support.h"

typedef struct fixture {
    char dir[512], skel[1024], data[1024];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_test_shared_path(f->skel, sizeof f->skel, "viewer/avatar_skeleton.xml");
    am_test_shared_path(f->data, sizeof f->data, "data/realdata");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_rmtree(f->dir);
    free(f);
    return 0;
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static size_t files_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
    closedir(d);
    return n;
}

static void test_usage_and_help(void **state)
{
    fixture *f = *state;
    char out[16384];
    assert_int_equal(am_test_run_cli(out, sizeof out, "import --help"), 0);
    assert_non_null(strstr(out, "--normalize-binds"));
    assert_non_null(strstr(out, "--merge"));
    assert_non_null(strstr(out, "MODEL: COLLADA .dae, glTF .gltf/.glb, FBX .fbx"));
    assert_non_null(strstr(out, "a motion-only file (BVH, Mixamo FBX without skin, glTF pack) goes with --anim"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "import"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s/r2ROOTPRIM_rigged.dae'", f->data), 2);
    assert_non_null(strstr(out, "--out DIR is required"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "import x.dae --out '%s/o' --anim ''", f->dir), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "import x.dae --out '%s/o' --bogus", f->dir), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "import x.dae --out '%s/o' --name 'a b'", f->dir), 2);
    assert_false(exists("o"));
}

/* Each bad input: exit code, the file and a fragment in the message, nothing written. */
static void bad(fixture *f, const char *model, int want_rc, const char *frag)
{
    char out[16384], dir[700];
    snprintf(dir, sizeof dir, "%s/never", f->dir);
    int rc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --oar '%s/never.oar' --skeleton '%s'", model,
                             dir, f->dir, f->skel);
    if (rc != want_rc || !strstr(out, frag))
        fail_msg("import %s: exit %d (wanted %d), output: %s", model, rc, want_rc, out);
    const char *base = strrchr(model, '/');
    assert_non_null(strstr(out, base ? base + 1 : model));
    assert_false(exists(dir));
    snprintf(dir, sizeof dir, "%s/never.oar", f->dir);
    assert_false(exists(dir));
}

static void test_bad_input_writes_nothing(void **state)
{
    fixture *f = *state;
    char path[700];
    snprintf(path, sizeof path, "%s/garbage.dae", f->dir);
    am_test_write_text(path, "this is not a COLLADA file\n");
    bad(f, path, 1, "not XML");
    snprintf(path, sizeof path, "%s/ElfEar.dae", f->data);
    bad(f, path, 1, "see animesh bind");
    snprintf(path, sizeof path, "%s/missing.dae", f->dir);
    bad(f, path, 3, "cannot open");
    /* over the region's triangle limit with --max-tris none: refused after building, still
     * nothing written */
    char out[16384], dir[700];
    snprintf(dir, sizeof dir, "%s/never", f->dir);
    snprintf(path, sizeof path, "%s/Little Bear_90.dae", f->data);
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "import '%s' --out '%s' --region-max-tris 100 --max-tris none --skeleton '%s'", path,
                                     dir, f->skel),
                     1);
    assert_non_null(strstr(out, "exceed the region limit 100"));
    assert_non_null(strstr(out, "Little Bear_90.dae: part 'Little_Bear_90'")); /* names the file */
    assert_false(exists(dir));
    /* the default (--max-tris auto) fits the budget as skin does, decided before the LODs: a
     * limit no reduction keeping the weights can reach is refused before them, saying what
     * would fit, nothing written */
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --region-max-tris 100 --skeleton '%s'",
                                     path, dir, f->skel),
                     1);
    assert_non_null(strstr(out, "Little Bear_90.dae: part 'Little_Bear_90': the region limit 100"));
    const char *pass = strstr(out, "pass --region-max-tris ");
    assert_non_null(pass);
    long would_fit = strtol(pass + strlen("pass --region-max-tris "), NULL, 10);
    assert_in_range(would_fit, 101, 6638); /* more than refused, at most the whole mesh */
    assert_null(strstr(out, "skin built and encoded"));
    assert_false(exists(dir));
    /* the limit it names is one that works */
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --region-max-tris %ld --skeleton '%s'",
                                     path, dir, would_fit, f->skel),
                     0);
    assert_true(exists(dir));
    am_test_rmtree(dir);
    /* ... and a reachable one is met: 6638 triangles (estimate 5542) fitted under 3000 */
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --region-max-tris 3000 --verbose --skeleton '%s'",
                                     path, dir, f->skel),
                     0);
    const char *est = strstr(out, "animesh estimate ");
    assert_non_null(est);
    long e = strtol(est + strlen("animesh estimate "), NULL, 10);
    assert_true(e > 2000 && e <= 3000);
    assert_non_null(strstr(out, "reduced from 6638"));
    am_test_rmtree(dir);
    /* --out naming a file: refused before any part is built, the file untouched */
    char file[700];
    snprintf(file, sizeof file, "%s/afile", f->dir);
    am_test_write_text(file, "mine\n");
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --skeleton '%s'", path, file, f->skel), 3);
    assert_non_null(strstr(out, "afile"));
    assert_non_null(strstr(out, "not a directory"));
    assert_null(strstr(out, "building part"));
    size_t n;
    uint8_t *mine = am_test_slurp(file, &n);
    assert_true(n == 5 && memcmp(mine, "mine\n", 5) == 0);
    free(mine);
}

/* Bare names, as a user types them in their own folder: "--out o --oar c.oar". */
static void test_bare_names_in_the_current_folder(void **state)
{
    fixture *f = *state;
    char out[16384], cwd[1024], path[1200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->dir), 0);
    int rc = am_test_run_cli(out, sizeof out, "import '%s/r2ROOTPRIM_rigged.dae' --out o --oar c.oar --skeleton '%s'",
                             f->data, f->skel);
    assert_int_equal(chdir(cwd), 0);
    if (rc != 0)
        fail_msg("import with bare names failed (%d): %s", rc, out);
    snprintf(path, sizeof path, "%s/c.oar", f->dir);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/o/r2ROOTPRIM_rigged.llmesh", f->dir);
    assert_true(exists(path));
}

static json_t *run_json(fixture *f, const char *model, const char *extra, const char *dir)
{
    char out[262144];
    int rc = am_test_run_cli(out, sizeof out, "import '%s/%s' --out '%s' --json --skeleton '%s' %s", f->data, model,
                             dir, f->skel, extra);
    if (rc != 0)
        fail_msg("import %s failed (%d): %s", model, rc, out);
    /* stdout and stderr are captured together: the JSON starts at the first line with '{' */
    const char *start = out[0] == '{' ? out : strstr(out, "\n{");
    assert_non_null(start);
    if (*start == '\n')
        start++;
    json_error_t je;
    json_t *j = json_loads(start, JSON_DISABLE_EOF_CHECK, &je);
    if (!j)
        fail_msg("not JSON (%s): %.400s", je.text, out);
    return j;
}

static void test_json_report_and_written_files_reread(void **state)
{
    fixture *f = *state;
    char dir[700], out[65536], a[800], b[800];
    snprintf(dir, sizeof dir, "%s/r2", f->dir);
    json_t *j = run_json(f, "r2ROOTPRIM_rigged.dae", "", dir);
    assert_string_equal(json_string_value(json_object_get(j, "route")), "faithful");
    json_t *part = json_array_get(json_object_get(j, "parts"), 0);
    assert_int_equal(json_integer_value(json_object_get(part, "triangles")), 12);
    assert_int_equal(json_integer_value(json_object_get(part, "joints")), 8);
    assert_int_equal(json_array_size(json_object_get(part, "joint_list")), 8);
    assert_int_equal(json_array_size(json_object_get(j, "written")), 5); /* and the full report, .import.txt */
    bool quirk = false;
    json_t *fs = json_object_get(j, "findings");
    for (size_t i = 0; i < json_array_size(fs); i++)
        quirk |= strstr(json_string_value(json_object_get(json_array_get(fs, i), "text")), "count=\"12\"") != NULL;
    assert_true(quirk);
    json_decref(j);
    /* the written files, read back without options */
    assert_int_equal(am_test_run_cli(out, sizeof out, "mesh decode '%s/r2ROOTPRIM_rigged.llmesh' --skeleton '%s'", dir,
                                     f->skel),
                     0);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench '%s/r2ROOTPRIM_rigged.llmesh' --skeleton '%s'", dir,
                                     f->skel),
                     0);
    snprintf(a, sizeof a, "%s/rebuilt", f->dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin '%s/r2ROOTPRIM_rigged.rig.json' --out '%s' --skeleton '%s'",
                                     dir, a, f->skel),
                     0);
    snprintf(b, sizeof b, "cmp -s '%s/r2ROOTPRIM_rigged.llmesh' '%s/r2ROOTPRIM_rigged.llmesh'", dir, a);
    assert_int_equal(system(b), 0); /* NAME.rig.json rebuilds the same asset */
    assert_int_equal(files_in(dir), 6); /* no staged leftovers: the 4 files, NAME.import.txt and the set's NAME.outset */
}

/* The five meshes of the Bento female become one object: the first the animesh root, the
 * other four its child prims, every mesh asset in the archive. */
static void test_oar_linkset_of_the_bento_female(void **state)
{
    fixture *f = *state;
    char dir[700], oar[800];
    snprintf(dir, sizeof dir, "%s/female", f->dir);
    snprintf(oar, sizeof oar, "--oar '%s/female.oar'", f->dir);
    json_t *j = run_json(f, "female_2016_08_05.dae", oar, dir);
    assert_int_equal(json_array_size(json_object_get(j, "parts")), 5);
    json_decref(j);
    snprintf(oar, sizeof oar, "%s/female.oar", f->dir);
    uint8_t *data;
    size_t size;
    am_error err;
    assert_int_equal(am_read_file(oar, &data, &size, &err), AM_OK);
    struct archive *a = archive_read_new();
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    assert_int_equal(archive_read_open_memory(a, data, size), ARCHIVE_OK);
    struct archive_entry *e;
    size_t meshes = 0, parts = 0;
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
        const char *p = archive_entry_pathname(e);
        meshes += strstr(p, "_mesh.llmesh") != NULL;
        if (strncmp(p, "objects/", 8) == 0) {
            size_t n = (size_t)archive_entry_size(e);
            char *x = malloc(n + 1);
            assert_int_equal(archive_read_data(a, x, n), (la_ssize_t)n);
            x[n] = '\0';
            for (const char *q = x; (q = strstr(q, "<Part>")); q++)
                parts++;
            assert_non_null(strstr(x, "<LinkNum>5</LinkNum>"));
            free(x);
        }
    }
    archive_read_free(a);
    free(data);
    assert_int_equal(meshes, 5);
    assert_int_equal(parts, 4);
}

/* A failed run leaves the previous run's files as they were. */
static void test_outputs_replaced_only_together(void **state)
{
    fixture *f = *state;
    char dir[700], out[65536], path[800];
    snprintf(dir, sizeof dir, "%s/bear", f->dir);
    int rc = am_test_run_cli(out, sizeof out, "import '%s/Little Bear_90.dae' --out '%s' --skeleton '%s'", f->data, dir,
                             f->skel);
    assert_int_equal(rc, 0);
    snprintf(path, sizeof path, "%s/Little_Bear_90.llmesh", dir);
    uint8_t *before;
    size_t nb;
    am_error err;
    assert_int_equal(am_read_file(path, &before, &nb, &err), AM_OK);
    size_t n = files_in(dir);
    /* the same name, now refused (--meshdata on a 6-face mesh) after building everything */
    rc = am_test_run_cli(out, sizeof out, "import '%s/Little Bear_90.dae' --out '%s' --meshdata --skeleton '%s'",
                         f->data, dir, f->skel);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "Little Bear_90.dae: part 'Little_Bear_90' has 6 faces"));
    uint8_t *after;
    size_t na;
    assert_int_equal(am_read_file(path, &after, &na, &err), AM_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(after, before, nb);
    assert_int_equal(files_in(dir), n);
    free(before);
    free(after);
}

/* An output set owns what its earlier runs of the same NAME wrote (NAME.outset): a re-run
 * without --bench and without the motion removes the pose sheet and the .anim, says so,
 * and leaves the user's own files, even ones of the same name pattern. */
static void test_a_rerun_with_fewer_outputs_removes_the_earlier_ones_and_says_so(void **state)
{
    fixture *f = *state;
    char dir[700], out[65536], path[800];
    snprintf(dir, sizeof dir, "%s/r2", f->dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s/r2ROOTPRIM_rigged.dae' --out '%s' --bench --anim "
                                                      "'%s/TeddyIdle.bvh' --skeleton '%s'",
                                     f->data, dir, f->data, f->skel),
                     0);
    snprintf(path, sizeof path, "%s/r2ROOTPRIM_rigged_poses.png", dir);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/r2ROOTPRIM_rigged_notes.txt", dir);
    am_test_write_text(path, "mine\n");
    size_t before = files_in(dir);
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "import '%s/r2ROOTPRIM_rigged.dae' --out '%s' --verbose --skeleton '%s'", f->data,
                                     dir, f->skel),
                     0);
    assert_non_null(strstr(out, "removed "));
    assert_non_null(strstr(out, "/r2ROOTPRIM_rigged_poses.png (the previous run's, not written by this one)"));
    assert_non_null(strstr(out, "/TeddyIdle.anim (the previous run's"));
    assert_int_equal(files_in(dir), before - 2);
    assert_true(exists(path)); /* not the set's: never listed in its manifest */
    snprintf(path, sizeof path, "%s/TeddyIdle.anim", dir);
    assert_false(exists(path));
}

/* A symbolic link planted inside --out at an output's name is replaced, never written
 * through; a run that fails leaves no --out folder it created. */
static void test_a_link_inside_out_is_replaced_and_a_failed_run_leaves_no_new_folder(void **state)
{
    fixture *f = *state;
    char dir[700], out[65536], path[800], outside[800];
    snprintf(dir, sizeof dir, "%s/linked", f->dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(outside, sizeof outside, "%s/outside.dae", f->dir);
    am_test_write_text(outside, "mine\n");
    snprintf(path, sizeof path, "%s/r2ROOTPRIM_rigged.dae", dir);
    assert_int_equal(symlink("../outside.dae", path), 0);
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s/r2ROOTPRIM_rigged.dae' --out '%s' --skeleton '%s'",
                                     f->data, dir, f->skel),
                     0);
    size_t n;
    uint8_t *mine = am_test_slurp(outside, &n);
    assert_true(n == 5 && memcmp(mine, "mine\n", 5) == 0);
    free(mine);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode) && st.st_size > 1000);

    /* the archive's folder cannot be made (a file is in the way): exit 3, no new --out */
    char file[700], fresh[700];
    snprintf(file, sizeof file, "%s/afile", f->dir);
    am_test_write_text(file, "x\n");
    snprintf(fresh, sizeof fresh, "%s/new/deeper", f->dir);
    assert_int_equal(am_test_run_cli(out, sizeof out,
                                     "import '%s/r2ROOTPRIM_rigged.dae' --out '%s' --oar '%s/sub/x.oar' --skeleton '%s'",
                                     f->data, fresh, file, f->skel),
                     3);
    assert_non_null(strstr(out, "afile"));
    snprintf(fresh, sizeof fresh, "%s/new", f->dir);
    assert_false(exists(fresh));
}

/* --anim with a BVH whose names are not the viewer's (CMU's Hips, LeftUpLeg, ...): another
 * skeleton, retargeted by bone directions as a Mixamo FBX is (finding motion_joint_map);
 * with --align-rest the BVH converter through the suggested map, byte for byte anim from-bvh
 * --align-rest's, the zero pose's difference reported (motion_rest_pose). */
static void test_cmu_bvh_motion_through_the_suggested_map(void **state)
{
    fixture *f = *state;
    const char *cmu = "/usr/share/assimp/models/BVH/01_01.bvh";
    char dir[700], ref[800], cmd[2400];
    static char out[1 << 20];
    snprintf(dir, sizeof dir, "%s/cmu", f->dir);
    snprintf(ref, sizeof ref, "%s/ref.anim", f->dir);
    int rc = am_test_run_cli(out, sizeof out,
                             "import '%s/r2ROOTPRIM_rigged.dae' --out '%s' --anim '%s' --verbose --skeleton '%s'",
                             f->data, dir, cmu, f->skel);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "[motion_joint_map] motion '/usr/share/assimp/models/BVH/01_01.bvh': its joint names "
                                "are not the viewer's (root 'Hips'): a BVH made on another skeleton, retargeted"));
    assert_null(strstr(out, "[motion_rest_pose]")); /* the retarget follows the BVH's own bones */
    assert_non_null(strstr(out, "motion 01_01: clip '01_01' of /usr/share/assimp/models/BVH/01_01.bvh: 28 joints "
                                "mapped"));
    snprintf(cmd, sizeof cmd, "cmp -s '%s/01_01.anim' '%s'", dir, ref);
    /* --align-rest: the same corrected .anim as from-bvh --align-rest */
    rc = am_test_run_cli(out, sizeof out,
                         "import '%s/r2ROOTPRIM_rigged.dae' --out '%s' --anim '%s' --align-rest --verbose --skeleton '%s'",
                         f->data, dir, cmu, f->skel);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "[motion_joint_map] motion '/usr/share/assimp/models/BVH/01_01.bvh': its joint names "
                                "are not the viewer's: converted with the map"));
    assert_non_null(strstr(out, "[motion_rest_pose] motion '/usr/share/assimp/models/BVH/01_01.bvh': the BVH's zero "
                                "pose is not the viewer's rest:"));
    assert_non_null(strstr(out, "corrected (--align-rest)"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "anim from-bvh '%s' --align-rest -o '%s' --skeleton '%s'", cmu,
                                     ref, f->skel),
                     0);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_usage_and_help, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input_writes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bare_names_in_the_current_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_report_and_written_files_reread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oar_linkset_of_the_bento_female, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outputs_replaced_only_together, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_rerun_with_fewer_outputs_removes_the_earlier_ones_and_says_so, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_link_inside_out_is_replaced_and_a_failed_run_leaves_no_new_folder, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_cmu_bvh_motion_through_the_suggested_map, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
