/* Every command agrees (issue 28): `report`, `bench` and `preview` load a model through
 * import's own route and judge what import writes (same exit code, no blocker where import
 * writes it; import's own .llmesh without a blocker for the joints the retarget leaves empty
 * on purpose); the thresholds come from one table (help, text and JSON say the same); a
 * command ends with a summary of at most 15 lines in which a repeated finding is said once
 * with its count and every finding says what to do; an empty or truncated file says so; no
 * temporary name reaches a title. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "core/io.h"
#include "import/import_text.h"
#include "report/quality_limits.h"
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

static size_t lines_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static size_t count_of(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static json_t *load_json(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j)
        fail_msg("%s: %s", path, je.text);
    return j;
}

/* report on each real model gives import's verdict: import writes it (exit 0), report
 * exits 0 with no blocker; before, the avatar (GLB, FBX) exited 1 ("vertex 0: no influence
 * with a positive weight"), the bear had a blocker (empty_major mSpine4) and Roth2's body
 * exited 1 ("125 joints in the skin"; through import's route: empty_major mFaceJaw, the
 * Bento face its author left out). */
static void test_report_gives_imports_verdict_on_every_real_model(void **state)
{
    fixture *f = *state;
    static const char *models[] = {"rpm_avatar.glb",    "rpm_avatar.fbx",   "Little Bear_90.dae",
                                   "female_2016_08_05.dae", "Roth2-v2-Body.dae", "Ruth2v4Hands.dae",
                                   "r2ROOTPRIM_rigged.dae"};
    static const char *routes[] = {"retarget", "retarget", "faithful", "faithful", "faithful", "faithful", "faithful"};
    static char out[1 << 16];
    char dir[900], path[1200];
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", f->data, models[i]);
        snprintf(dir, sizeof dir, "%s/imp%zu", f->dir, i);
        int irc = am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --skeleton '%s'", path, dir, f->skel);
        snprintf(dir, sizeof dir, "%s/rep%zu", f->dir, i);
        int rrc = am_test_run_cli(out, sizeof out, "report '%s' --out '%s' --skeleton '%s'", path, dir, f->skel);
        if (irc != 0 || rrc != irc)
            fail_msg("%s: import exit %d, report exit %d: %s", models[i], irc, rrc, out);
        char route[64];
        snprintf(route, sizeof route, "%s route as import takes it", routes[i]);
        assert_non_null(strstr(out, route));
        assert_true(lines_of(out) <= 15);
        char stem[200];
        snprintf(stem, sizeof stem, "%s", models[i]);
        *strrchr(stem, '.') = '\0';
        snprintf(path, sizeof path, "%s/%s.report.json", dir, stem);
        json_t *j = load_json(path);
        json_t *ws = json_object_get(j, "weights");
        json_t *em = json_object_get(json_object_get(ws, "empty_major"), "joints");
        if (json_array_size(em))
            fail_msg("%s: empty_major %s", models[i], json_string_value(json_array_get(em, 0)));
        assert_string_not_equal(json_string_value(json_object_get(j, "worst")), "blocker");
        json_decref(j);
    }
}

/* Import's own .llmesh of the avatar's top: the retarget leaves mSpine2 and mSpine4 empty
 * (Mixamo's spine has 3 joints, the viewer's 7): no blocker (before: empty_major, exit 1). */
static void test_imports_own_asset_has_no_blocker_for_joints_left_empty(void **state)
{
    fixture *f = *state;
    static char out[1 << 16];
    char dir[900], path[1200];
    snprintf(dir, sizeof dir, "%s/avatar", f->dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s/rpm_avatar.glb' --anim '%s/Idle.fbx' --out '%s' "
                                                      "--skeleton '%s'",
                                     f->data, f->data, dir, f->skel),
                     0);
    snprintf(path, sizeof path, "%s/rpm_avatar_Wolf3D_Outfit_Top.llmesh", dir);
    int rc = am_test_run_cli(out, sizeof out, "report '%s' --out '%s/r' --skeleton '%s'", path, dir, f->skel);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    snprintf(path, sizeof path, "%s/r/rpm_avatar_Wolf3D_Outfit_Top.report.json", dir);
    json_t *j = load_json(path);
    json_t *em = json_object_get(json_object_get(json_object_get(j, "weights"), "empty_major"), "joints");
    assert_int_equal(json_array_size(em), 0);
    json_decref(j);
    /* bench and preview take the model itself, through the same route */
    rc = am_test_run_cli(out, sizeof out, "bench '%s/rpm_avatar.glb' --skeleton '%s'", f->data, f->skel);
    if (rc != 0)
        fail_msg("bench: exit %d: %s", rc, out);
    assert_non_null(strstr(out, "retarget route as import takes it (9 parts"));
    snprintf(path, sizeof path, "%s/avatar.preview.html", f->dir);
    rc = am_test_run_cli(out, sizeof out, "preview '%s/rpm_avatar.glb' --anim '%s/Idle.anim' -o '%s' --skeleton '%s'",
                         f->data, dir, path, f->skel);
    if (rc != 0)
        fail_msg("preview: exit %d: %s", rc, out);
    assert_non_null(strstr(out, "(9 parts, "));
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size > 100000);
}

/* One table: the flags, report --help, the text report and the JSON say the same. */
static void test_help_text_and_json_use_the_same_thresholds(void **state)
{
    fixture *f = *state;
    static char out[1 << 16];
    /* the table flags as it says: strain share minor above 0.2 %, major above 1 % */
    assert_int_equal(am_quality_limit_flag("strain_share", 0.002), AM_FLAG_PASS);
    assert_int_equal(am_quality_limit_flag("strain_share", 0.00269), AM_FLAG_MINOR);
    assert_int_equal(am_quality_limit_flag("strain_share", 0.0131), AM_FLAG_MAJOR);
    assert_int_equal(am_quality_limit_flag("leak", 0.001), AM_FLAG_MAJOR); /* from: >= */
    const am_quality_limit *strain = am_quality_limit_find("strain_share");
    assert_non_null(strain);
    char words[200], line[400];
    am_quality_limit_words(strain, words, sizeof words);
    assert_string_equal(words, "minor above 0.2 %, major above 1 %");
    snprintf(line, sizeof line, "%s: %s", strain->figure, words);
    /* help (before: "major above 0.2%") */
    assert_int_equal(am_test_run_cli(out, sizeof out, "report --help"), 0);
    assert_non_null(strstr(out, line));
    assert_null(strstr(out, "(major above 0.2%)"));
    /* the text report and the JSON of a real model */
    char dir[900], path[1200];
    snprintf(dir, sizeof dir, "%s/female", f->dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "report '%s/female_2016_08_05.dae' --out '%s' --skeleton '%s'",
                                     f->data, dir, f->skel),
                     0);
    snprintf(path, sizeof path, "%s/female_2016_08_05.report.txt", dir);
    size_t n;
    char *txt = (char *)am_test_slurp(path, &n);
    assert_non_null(strstr(txt, line));
    free(txt);
    snprintf(path, sizeof path, "%s/female_2016_08_05.report.json", dir);
    json_t *j = load_json(path);
    json_t *th = json_object_get(j, "thresholds");
    size_t rows;
    am_quality_limits(&rows);
    assert_int_equal(json_array_size(th), rows);
    bool found = false;
    for (size_t i = 0; i < json_array_size(th); i++) {
        json_t *r = json_array_get(th, i);
        if (strcmp(json_string_value(json_object_get(r, "figure")), "strain_share"))
            continue;
        found = true;
        assert_string_equal(json_string_value(json_object_get(r, "words")), words);
        assert_true(json_real_value(json_object_get(r, "minor")) == 0.002);
        assert_true(json_real_value(json_object_get(r, "major")) == 0.01);
    }
    assert_true(found);
    /* every measured pose's strain flag is the table's flag of its share */
    json_t *poses = json_object_get(j, "poses");
    size_t measured = 0;
    for (size_t i = 0; i < json_array_size(poses); i++) {
        json_t *st = json_object_get(json_array_get(poses, i), "strain");
        json_t *share = json_object_get(st, "share_outside");
        if (!share)
            continue;
        measured++;
        const char *flag = json_string_value(json_object_get(st, "flag"));
        assert_string_equal(flag, am_flag_name(am_quality_limit_flag("strain_share", json_real_value(share))));
    }
    assert_true(measured >= 8);
    json_decref(j);
}

/* The avatar import: 221 lines before (the joint map, 37 progress lines, one warning 9
 * times); now a summary of at most 15 lines, a repeated finding said once with its count,
 * every finding shown with what to do, the whole report in NAME.import.txt. */
static void test_import_ends_with_a_short_summary(void **state)
{
    fixture *f = *state;
    static char out[1 << 18];
    char dir[900], path[1200];
    snprintf(dir, sizeof dir, "%s/walk", f->dir);
    int rc = am_test_run_cli(out, sizeof out,
                             "import '%s/rpm_avatar.glb' --anim '%s/Idle.fbx' --anim '%s/Walking.fbx' --out '%s' "
                             "--skeleton '%s'",
                             f->data, f->data, f->data, dir, f->skel);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    size_t n = lines_of(out);
    print_message("avatar import: %zu lines\n", n);
    assert_true(n <= AM_IMPORT_SUMMARY_MAX_LINES);
    assert_null(strstr(out, "joint map:"));
    assert_true(count_of(out, "[moved_joints]") <= 1);
    assert_non_null(strstr(out, "[reader] x5: ")); /* five reader notes, said once */
    assert_int_equal(count_of(out, "\n  ["), count_of(out, "\n    do: ")); /* every finding: what to do */
    assert_non_null(strstr(out, "verdict: written"));
    assert_non_null(strstr(out, "next: "));
    snprintf(path, sizeof path, "%s/rpm_avatar.import.txt", dir);
    size_t size;
    char *full = (char *)am_test_slurp(path, &size);
    assert_non_null(strstr(full, "joint map:"));
    assert_int_equal(count_of(full, "[moved_joints]"), 9);
    assert_non_null(strstr(full, "wrote "));
    /* every finding, and every part's warning, with what to do */
    assert_int_equal(count_of(full, "\n  [") + count_of(full, "\n  warning: "), count_of(full, "\n    do: "));
    free(full);
    /* --verbose: the whole report on stdout */
    rc = am_test_run_cli(out, sizeof out, "import '%s/rpm_avatar.glb' --out '%s' --verbose --skeleton '%s'", f->data,
                         dir, f->skel);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "joint map:"));
    assert_true(lines_of(out) > 100);
}

/* The mesh that "appears 1.067 m higher" (an mPelvis override: the bear, Linden Lab's raptor)
 * says what to do about it, in the warning itself and in the summary. */
static void test_the_pelvis_override_warning_says_what_to_do(void **state)
{
    fixture *f = *state;
    static char out[1 << 16];
    char dir[900];
    snprintf(dir, sizeof dir, "%s/bear", f->dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s/Little Bear_90.dae' --out '%s' --skeleton '%s'", f->data,
                                     dir, f->skel),
                     0);
    assert_true(lines_of(out) <= AM_IMPORT_SUMMARY_MAX_LINES);
    char path[1200];
    snprintf(path, sizeof path, "%s/Little_Bear_90.import.txt", dir);
    size_t n;
    char *full = (char *)am_test_slurp(path, &n);
    const char *w = strstr(full, "warning: the rig moves mPelvis to (0.0110, -0.0002, 0.1873)");
    assert_non_null(w);
    assert_non_null(strstr(w, "\n    do: lower the object in-world by that much"));
    free(full);
    assert_int_equal(am_test_run_cli(out, sizeof out, "skin '%s/Little_Bear_90.rig.json' --out '%s/s' --skeleton '%s'",
                                     dir, dir, f->skel),
                     0);
    assert_non_null(strstr(out, "the mesh appears 1.067 m higher; lower the object in-world by that much or put mPelvis "
                                "back at its default"));
}

/* Every finding code import raises has its own remedy (not the generic one). */
/* A rigid part bends only when a pose moves it: the bear's rig moves its joints, so its
 * viewer rest differs from the bind shape by a few millimetres; that difference is the rest
 * error (reported once by import), not a bend in every pose. Before, every pose of the bear
 * said "rigid parts 0.0038 m (major)", the limb poses that move no rigid part too. */
static void test_a_rigid_part_bends_only_where_a_pose_moves_it(void **state)
{
    fixture *f = *state;
    static char out[1 << 20];
    char json_path[1200];
    snprintf(json_path, sizeof json_path, "%s/bear/Little Bear_90.report.json", f->dir);
    int rc = am_test_run_cli(out, sizeof out, "report '%s/Little Bear_90.dae' --skeleton '%s' --out '%s/bear'", f->data,
                             f->skel, f->dir);
    assert_int_equal(rc, 0);
    json_t *j = load_json(json_path);
    size_t i, still = 0, bent = 0;
    json_t *p;
    json_array_foreach(json_object_get(j, "poses"), i, p)
    {
        const char *name = json_string_value(json_object_get(p, "name"));
        double m = json_number_value(json_object_get(json_object_get(p, "rigidity"), "m"));
        if (strcmp(name, "leg side") == 0 || strcmp(name, "wrist twist 80") == 0 || strcmp(name, "arm down") == 0) {
            assert_true(m < 1e-4);
            still++;
        }
        if (strcmp(name, "spine twist") == 0) { /* the bear's face parts span the spine: they do bend */
            assert_true(m > 0.005);
            bent++;
        }
    }
    assert_int_equal(still, 3);
    assert_int_equal(bent, 1);
    json_decref(j);
}

static void test_every_finding_code_has_a_remedy(void **state)
{
    (void)state;
    static const char *codes[] = {"exploded", "strain", "rest_error", "unknown_joints", "retarget_warning",
                                  "axes_conflict", "unweighted_vertices", "coincident_weights", "more_than_8_faces",
                                  "texture_not_read", "meshdata_skipped", "bind_shape_rotation", "joint_not_in_scene",
                                  "flattened_hierarchy", "motion_rest_pose", "motion_retarget", "pelvis_override",
                                  "moved_joints", "scaled_inverse_binds", "reader", "axes", "up_axis", "unit",
                                  "joint_map", "joint_map_note", "retarget_note", "merged", "texture_resized",
                                  "normalize_binds_not_needed", "one_texture_per_part", "empty_mesh",
                                  "static_mesh_skipped", "motion_joint_map", "body_plan", "motion_body_plan", "motion_loop_closed", "merged_faces",
                                  "motion_name_shortened"};
    const char *generic = am_import_finding_remedy("no such code");
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (am_import_finding_remedy(codes[i]) == generic)
            fail_msg("finding '%s' has no remedy", codes[i]);
    size_t rows;
    const am_quality_limit *l = am_quality_limits(&rows);
    for (size_t i = 0; i < rows; i++)
        assert_true(strlen(l[i].remedy) > 10);
}

/* An empty file says it is empty; a truncated GLB says what is missing and what to try. */
static void test_empty_and_truncated_inputs_say_so(void **state)
{
    fixture *f = *state;
    static char out[1 << 14];
    char path[1200], dir[900];
    snprintf(dir, sizeof dir, "%s/none", f->dir);
    static const char *names[] = {"empty.glb", "empty.dae", "empty.llmesh"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", f->dir, names[i]);
        am_test_write_text(path, "");
        assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --skeleton '%s'", path, dir, f->skel),
                         1);
        assert_non_null(strstr(out, "the file is empty (0 bytes)"));
        assert_null(strstr(out, "not a model file"));
        assert_int_equal(am_test_run_cli(out, sizeof out, "report '%s' --skeleton '%s'", path, f->skel), 1);
        assert_non_null(strstr(out, "the file is empty (0 bytes)"));
    }
    struct stat sb;
    assert_true(stat(dir, &sb) != 0); /* nothing written */
    /* the avatar's GLB cut after 3000 bytes: inside its JSON chunk; after 1,000,000 bytes:
     * inside the binary chunk */
    snprintf(path, sizeof path, "%s/rpm_avatar.glb", f->data);
    size_t size;
    uint8_t *glb = am_test_slurp(path, &size);
    const size_t cuts[] = {3000, 1000000};
    const char *lost[] = {"the end of the JSON chunk", "the end of the binary chunk (the geometry"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/cut%zu.glb", f->dir, i);
        assert_int_equal(am_write_file_atomic(path, glb, cuts[i], NULL), AM_OK);
        assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s' --out '%s' --skeleton '%s'", path, dir, f->skel),
                         1);
        char want[200];
        snprintf(want, sizeof want, "truncated GLB: its header says %zu bytes, the file has %zu (%zu missing, ", size,
                 cuts[i], size - cuts[i]);
        if (!strstr(out, want) || !strstr(out, lost[i]) || !strstr(out, "copy or download the file again"))
            fail_msg("%s", out);
        assert_int_equal(am_test_run_cli(out, sizeof out, "report '%s' --skeleton '%s'", path, f->skel), 1);
        assert_non_null(strstr(out, lost[i]));
    }
    free(glb);
}

/* No temporary name reaches a title: the bend box's strip was titled
 * bendbox_fold.anim.tmpXXXXXX (its motion read from the output set's temporary file). */
static void test_no_temporary_name_in_a_title(void **state)
{
    fixture *f = *state;
    static char out[1 << 16];
    char dir[900];
    snprintf(dir, sizeof dir, "%s/bb", f->dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bendbox --out '%s' --bench --skeleton '%s'", dir, f->skel), 0);
    assert_null(strstr(out, ".tmp"));
    /* the mechanism: the bench names a motion read from a temporary file by its final path */
    char anim[1200], tmp[1300], mesh[1200];
    snprintf(mesh, sizeof mesh, "%s/bendbox.llmesh", dir);
    snprintf(anim, sizeof anim, "%s/bendbox_fold.anim", dir);
    snprintf(tmp, sizeof tmp, "%s.tmpAbC123", anim);
    size_t size;
    uint8_t *bytes = am_test_slurp(anim, &size);
    assert_int_equal(am_write_file_atomic(tmp, bytes, size, NULL), AM_OK);
    free(bytes);
    am_skeleton skel;
    am_error err;
    assert_int_equal(am_skeleton_load(f->skel, &skel, &err), AM_OK);
    am_bench b;
    const char *anims[1] = {tmp};
    assert_int_equal(am_bench_load(mesh, anims, 1, &skel, NULL, &b, &err), AM_OK);
    am_bench_motion_info info;
    assert_int_equal(am_bench_motion_get_info(&b, 0, &info, &err), AM_OK);
    assert_non_null(strstr(info.source, ".tmpAbC123"));
    assert_true(am_bench_motion_set_source(&b, 0, anim));
    assert_int_equal(am_bench_motion_get_info(&b, 0, &info, &err), AM_OK);
    assert_string_equal(info.source, anim);
    /* a name longer than the 1024 bytes a motion once held, kept whole */
    char *long_name = malloc(3001);
    assert_non_null(long_name);
    memset(long_name, 'm', 3000);
    long_name[3000] = '\0';
    assert_true(am_bench_motion_set_source(&b, 0, long_name));
    assert_int_equal(am_bench_motion_get_info(&b, 0, &info, &err), AM_OK);
    assert_string_equal(info.source, long_name);
    free(long_name);
    am_bench_free(&b);
    am_skeleton_free(&skel);
    remove(tmp);
}

/* map suggest on a motion-only file (Mixamo's Idle.fbx: a skeleton and a clip, no mesh)
 * speaks of its skeleton, not of a mesh's stature or weights; on the avatar it still does. */
static void test_map_suggest_on_a_motion_only_file_speaks_of_its_skeleton(void **state)
{
    fixture *f = *state;
    static char out[1 << 17];
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest '%s/Idle.fbx' --skeleton '%s'", f->data, f->skel), 0);
    assert_non_null(strstr(out, "a motion-only file (no skinned mesh): a skeleton of 65 joints, 1 clip"));
    assert_non_null(strstr(out, "skeleton height "));
    assert_non_null(strstr(out, "it moves with 'mixamorig:LeftHandThumb3' (mHandThumb3Left)"));
    assert_null(strstr(out, "stature"));
    assert_null(strstr(out, "weight"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "map suggest '%s/rpm_avatar.glb' --skeleton '%s'", f->data, f->skel),
                     0);
    assert_null(strstr(out, "motion-only"));
    assert_non_null(strstr(out, "stature "));
    assert_non_null(strstr(out, "its weights go to 'LeftHandThumb3' (mHandThumb3Left)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_report_gives_imports_verdict_on_every_real_model, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imports_own_asset_has_no_blocker_for_joints_left_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_help_text_and_json_use_the_same_thresholds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_ends_with_a_short_summary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_pelvis_override_warning_says_what_to_do, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_rigid_part_bends_only_where_a_pose_moves_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_finding_code_has_a_remedy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_and_truncated_inputs_say_so, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_temporary_name_in_a_title, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map_suggest_on_a_motion_only_file_speaks_of_its_skeleton, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
