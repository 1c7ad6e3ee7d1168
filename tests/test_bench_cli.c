/* `animesh bench` end to end: exit codes, the JSON report on a real upload and on written
 * fixture files, --max-rest-error on the negative control, the PNG strip. */
#include "test_bench_fixture.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "bench/render.h"

static am_skeleton skel;
static char skel_path[4096];
static const am_vec3 P_SF = {0.0, 0.0, 1.067};
static const am_vec3 HIPL_SF = {0.034, 0.127, 1.026};

static int setup(void **state)
{
    (void)state;
    am_test_load_viewer_skeleton(&skel);
    am_test_shared_path(skel_path, sizeof skel_path, "viewer/avatar_skeleton.xml");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    am_skeleton_free(&skel);
    return 0;
}

static char out[1 << 18];

static void write_fixture(const fx_mesh *m, const fx_skin *sk, const char *path)
{
    am_buf bytes;
    fx_encode(m, sk, &bytes);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_write_file_atomic(path, bytes.data, bytes.size, &err), AM_OK);
    am_buf_free(&bytes);
}

static void test_usage_errors_exit_2_and_missing_files_3(void **state)
{
    (void)state;
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench --help"), 0);
    assert_non_null(strstr(out, "usage: animesh bench"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench a.llmesh b.llmesh --skeleton '%s'", skel_path), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench x.llmesh --view diagonal"), 2);
    assert_non_null(strstr(out, "--view"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench x.llmesh --time -1"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench x.llmesh --frames 0"), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench /nonexistent/x.llmesh --skeleton '%s'", skel_path), 3);
    char dir[512], path[600];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/junk.llmesh", dir);
    am_test_write_text(path, "this is not a mesh asset");
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench '%s' --skeleton '%s'", path, skel_path), 1);
    assert_non_null(strstr(out, "junk.llmesh"));
    /* a good mesh with a broken .anim: the error names the .anim */
    char mesh[4096], anim[600];
    am_test_shared_path(mesh, sizeof mesh, "data/mesh/hippolyzer-testslm.slm");
    snprintf(anim, sizeof anim, "%s/junk.anim", dir);
    am_test_write_text(anim, "\x01\x00\x00\x00 not an anim");
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench '%s' --anim '%s' --skeleton '%s'", mesh, anim, skel_path),
                     1);
    assert_non_null(strstr(out, "junk.anim"));
    /* a set that selects nothing is refused by name */
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench '%s' --set 'far:x>100' --skeleton '%s'", mesh, skel_path),
                     1);
    assert_non_null(strstr(out, "far"));
    /* a malformed set is a usage error naming the option as given */
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench '%s' --set 'tip:q>1' --skeleton '%s'", mesh, skel_path), 2);
    assert_non_null(strstr(out, "--set tip:q>1: "));
    am_test_rmtree(dir);
}

static json_t *run_json(const char *fmt_args)
{
    int rc = am_test_run_cli(out, sizeof out, "bench %s --json 2>/dev/null", fmt_args);
    assert_int_equal(rc, 0);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    if (!root)
        fail_msg("bad JSON (%s): %.400s", je.text, out);
    return root;
}

static void test_json_report_on_the_real_upload(void **state)
{
    (void)state;
    char mesh[4096], args[9000];
    am_test_shared_path(mesh, sizeof mesh, "data/mesh/hippolyzer-testslm.slm");
    snprintf(args, sizeof args, "'%s' --skeleton '%s' --set 'all:all'", mesh, skel_path);
    json_t *root = run_json(args);
    assert_lt(json_real_value(json_object_get(json_object_get(root, "rest_error"), "max_m")), 1e-4);
    assert_string_equal(json_string_value(json_object_get(json_object_get(root, "rest_error"), "frame")), "bind");
    json_t *skin = json_object_get(root, "skin");
    assert_int_equal(json_integer_value(json_object_get(skin, "joint_count")), 1);
    assert_false(json_is_true(json_object_get(skin, "pelvis_override_applied")));
    json_t *shift = json_object_get(json_object_get(root, "frames"), "bind_minus_prim");
    assert_float_equal(json_real_value(json_array_get(shift, 2)), 1.067, 1e-9);
    json_t *sets = json_object_get(json_object_get(root, "rest_pose"), "sets");
    assert_int_equal(json_array_size(sets), 1);
    /* the centre in the two frames differs by exactly the documented shift */
    json_t *cp = json_object_get(json_array_get(sets, 0), "centre_prim");
    json_t *cb = json_object_get(json_array_get(sets, 0), "centre_bind");
    assert_float_equal(json_real_value(json_array_get(cb, 2)) - json_real_value(json_array_get(cp, 2)), 1.067, 1e-6);
    json_decref(root);
}

/* The negative control again, through the command: the wrong export exits 1 under
 * --max-rest-error 1e-4, the right one exits 0; both files as written on disk. */
static void test_max_rest_error_fails_the_wrong_export(void **state)
{
    (void)state;
    const am_vec3 K = {0.06, 0.10, 0.50};
    char dir[512], wrong_path[600], right_path[600];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(wrong_path, sizeof wrong_path, "%s/wrong.llmesh", dir);
    snprintf(right_path, sizeof right_path, "%s/right.llmesh", dir);
    fx_mesh m;
    fx_bar(&m, 2, K.x - 0.1, K.x + 0.1, K.y - 0.05, K.y + 0.05, K.z - 0.05, K.z + 0.05);
    for (size_t v = 0; v < m.nv; v++)
        fx_weigh(&m, v, 0, 1, 1.0);
    fx_skin wrong = {.n = 2,
                     .names = {"mPelvis", "mKneeLeft"},
                     .bind_world = {P_SF, K},
                     .with_overrides = true,
                     .override = {P_SF, am_v3_sub(K, P_SF)}};
    write_fixture(&m, &wrong, wrong_path);
    for (size_t v = 0; v < m.nv; v++)
        m.joint[4 * v] = 2;
    fx_skin right = {.n = 3,
                     .names = {"mPelvis", "mHipLeft", "mKneeLeft"},
                     .bind_world = {P_SF, HIPL_SF, K},
                     .with_overrides = true,
                     .override = {P_SF, am_v3_sub(HIPL_SF, P_SF), am_v3_sub(K, HIPL_SF)}};
    write_fixture(&m, &right, right_path);
    fx_mesh_free(&m);
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench '%s' --skeleton '%s' --max-rest-error 1e-4", wrong_path,
                                     skel_path),
                     1);
    assert_non_null(strstr(out, "exceeds --max-rest-error"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "bench '%s' --skeleton '%s' --max-rest-error 1e-4", right_path,
                                     skel_path),
                     0);
    am_test_rmtree(dir);
}

static void test_strip_png_of_a_written_motion(void **state)
{
    (void)state;
    char dir[512], mesh[600], anim[600], png[600];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(mesh, sizeof mesh, "%s/leg.llmesh", dir);
    snprintf(anim, sizeof anim, "%s/kick.anim", dir);
    snprintf(png, sizeof png, "%s/kick.png", dir);
    fx_mesh m;
    fx_bar(&m, 4, -0.05, 0.05, 0.08, 0.18, 0.5, 1.0); /* a thin "thigh" hanging along z */
    for (size_t v = 0; v < m.nv; v++)
        fx_weigh(&m, v, 0, 1, 1.0);
    fx_skin sk = {.n = 2, .names = {"mPelvis", "mHipLeft"}, .bind_world = {P_SF, HIPL_SF}};
    write_fixture(&m, &sk, mesh);
    fx_mesh_free(&m);

    /* the motion, encoded with the .anim codec and written to disk */
    am_anim a;
    memset(&a, 0, sizeof a);
    a.version = 1;
    a.base_priority = 4;
    a.duration = 2.0f;
    a.emote_name = fx_strdup("");
    a.loop_out = 2.0f;
    a.joint_count = 1;
    a.joints = calloc(1, sizeof *a.joints);
    a.joints[0].name = fx_strdup("mHipLeft");
    a.joints[0].priority = -1;
    a.joints[0].rot_count = 3;
    a.joints[0].rot_keys = calloc(3, sizeof *a.joints[0].rot_keys);
    am_quat kick = am_quat_axis_angle(am_v3(0, 1, 0), -1.2);
    am_anim_rot_key_set(&a.joints[0].rot_keys[0], 0, am_quat_identity(), 2);
    am_anim_rot_key_set(&a.joints[0].rot_keys[1], 1, kick, 2);
    am_anim_rot_key_set(&a.joints[0].rot_keys[2], 2, am_quat_identity(), 2);
    am_buf bytes = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_anim_encode(&a, &bytes, &err), AM_OK);
    assert_int_equal(am_write_file_atomic(anim, bytes.data, bytes.size, &err), AM_OK);
    am_buf_free(&bytes);
    am_anim_free(&a);

    char args[4096];
    snprintf(args, sizeof args, "'%s' --anim '%s' --time 1 --skeleton '%s' --png-strip '%s' --frames 5", mesh, anim,
             skel_path, png);
    json_t *root = run_json(args);
    json_t *poses = json_object_get(json_array_get(json_object_get(root, "motions"), 0), "poses");
    assert_int_equal(json_array_size(poses), 1);
    json_t *d = json_object_get(json_array_get(poses, 0), "displacement");
    /* the thigh's far end (0.5 .. 0.55 m below the hip) swings through 1.2 rad:
     * chord 2 r sin(0.6) for r about 0.53 m */
    double mx = json_real_value(json_object_get(d, "max_m"));
    assert_true(mx > 2 * 0.5 * sin(0.6) && mx < 2 * 0.62 * sin(0.6));
    json_decref(root);
    am_image img;
    assert_int_equal(am_tex_png_read_rgba(png, &img, &err), AM_OK);
    /* five frames shaped like the posed mesh seen side on: its longer side 400 px */
    assert_int_equal(img.width % 5, 0);
    int fw = (int)img.width / 5, fh = (int)img.height - 28;
    assert_int_equal(fw > fh ? fw : fh, 400);
    assert_true(fw >= 120 && fh >= 120);
    am_image_free(&img);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage_errors_exit_2_and_missing_files_3),
        cmocka_unit_test(test_json_report_on_the_real_upload),
        cmocka_unit_test(test_max_rest_error_fails_the_wrong_export),
        cmocka_unit_test(test_strip_png_of_a_written_motion),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
