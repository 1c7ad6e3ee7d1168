/* The bend box end to end (docs/reference/bendbox-test.md): every file written, then the numbers measured on
 * the WRITTEN files against positions computed here from docs/reference/bendbox-test.md (hinge at the pelvis,
 * tip end at (2 cos a, 0, 2 sin a) from the hinge). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anim/anim.h"
#include "bendbox/bendbox.h"
#include "support/test_support.h"

typedef struct fixture {
    am_skeleton skel;
    char dir[256];
    am_bendbox_report rep;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    am_test_load_viewer_skeleton(&f->skel);
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_bendbox_options o = {f->dir, &f->skel, true, NULL, NULL, false};
    am_error err;
    am_error_clear(&err);
    am_status s = am_bendbox_run(&o, &f->rep, &err);
    if (s) {
        char buf[512];
        fail_msg("bend box failed: %s", am_error_format(&err, buf, sizeof buf));
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_rmtree(f->dir);
    am_skeleton_free(&f->skel);
    free(f);
    return 0;
}

static void path_of(const fixture *f, const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", f->dir, name);
}

static void test_every_file_is_written(void **state)
{
    fixture *f = *state;
    const char *names[] = {"bendbox.rig.json", "bendbox_atlas.png", "bendbox_atlas.j2c", "bendbox.llmesh",
                           "bendbox.dae", "bendbox.meshdata.json", "bendbox_fold.anim", "fold_side.png",
                           "rest_front.png"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[512];
        struct stat st;
        path_of(f, names[i], p, sizeof p);
        assert_int_equal(stat(p, &st), 0);
        assert_gt(st.st_size, 0);
    }
    assert_int_equal(f->rep.file_count, sizeof names / sizeof names[0]);
    assert_true(f->rep.benched);
    assert_true(f->rep.all_pass);
}

static void test_written_j2c_decodes_to_the_written_png_exactly(void **state)
{
    fixture *f = *state;
    char p[512];
    am_tex_image png, j2c;
    path_of(f, "bendbox_atlas.png", p, sizeof p);
    assert_int_equal(am_tex_png_read(p, &png, NULL), AM_OK);
    path_of(f, "bendbox_atlas.j2c", p, sizeof p);
    uint8_t *data;
    size_t size;
    assert_int_equal(am_read_file(p, &data, &size, NULL), AM_OK);
    assert_int_equal(am_j2c_decode(data, size, &j2c, NULL), AM_OK);
    am_tex_diff d;
    assert_int_equal(am_tex_compare(&png, &j2c, &d, NULL), AM_OK);
    assert_int_equal(d.max_abs, 0); /* lossless: tolerance 0 */
    assert_int_equal(png.width, 512);
    assert_int_equal(png.height, 256);
    free(data);
    am_tex_image_free(&png);
    am_tex_image_free(&j2c);
}

static void test_hips_are_overridden_onto_the_pelvis(void **state)
{
    fixture *f = *state;
    for (int j = 0; j < 2; j++)
        assert_lt(am_v3_len(f->rep.hip_override[j]), 1e-6);
    assert_ge(f->rep.overrides, 2);
    /* The viewer places the hinge AT the prim (mPelvis at mRoot). */
    assert_lt(am_v3_len(f->rep.hinge_prim), 1e-4);
}

static void test_written_anim_is_the_fold(void **state)
{
    fixture *f = *state;
    char p[512];
    path_of(f, "bendbox_fold.anim", p, sizeof p);
    am_anim a;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_anim_load(p, &a, &err), AM_OK);
    assert_int_equal(a.base_priority, 4);
    assert_true(a.loop != 0);
    assert_near(a.duration, 6.0, 1e-6);
    assert_near(a.loop_in, 0.0, 1e-6);
    assert_near(a.loop_out, 6.0, 1e-6);
    assert_near(a.ease_in, 0.0, 0);
    assert_near(a.ease_out, 0.0, 0);
    int left = -1;
    for (size_t j = 0; j < a.joint_count; j++)
        if (strcmp(a.joints[j].name, "mHipLeft") == 0)
            left = (int)j;
    assert_ge(left, 0);
    am_anim_joint_pose *pose = calloc(a.joint_count, sizeof *pose);
    assert_non_null(pose);
    const double t[4] = {0, 1.5, 3, 6};
    for (int k = 0; k < 4; k++) {
        am_anim_eval(&a, t[k], pose);
        double ang = 90.0 * pow(sin(AM_PI * t[k] / 6.0), 2) * AM_PI / 180.0;
        am_vec3 tip = am_quat_rotate(pose[left].rot, am_v3(2, 0, 0));
        assert_lt(am_v3_dist(tip, am_v3(2 * cos(ang), 0, 2 * sin(ang))), 1e-3);
    }
    free(pose);
    am_anim_free(&a);
}

static void test_rest_error_and_tip_rigidity_within_1e_4(void **state)
{
    fixture *f = *state;
    print_message("rest error %.3e m, tip rigidity at 90 deg %.3e m\n", f->rep.rest_error_m,
                  f->rep.fold[2].tip_rigidity_m);
    assert_lt(f->rep.rest_error_m, 1e-4);
    for (int k = 0; k < AM_BENDBOX_FOLD_SAMPLES; k++) {
        assert_lt(f->rep.fold[k].tip_rigidity_m, 1e-4);
        assert_lt(f->rep.fold[k].right_half_moved_m, 1e-4);
    }
}

static void test_tip_end_follows_the_fold_at_0_1_5_3_and_6_seconds(void **state)
{
    fixture *f = *state;
    const double t[4] = {0, 1.5, 3, 6};
    const am_vec3 expect[4] = {{2, 0, 0}, {sqrt(2), 0, sqrt(2)}, {0, 0, 2}, {2, 0, 0}};
    for (int k = 0; k < 4; k++) {
        const am_bendbox_fold_sample *s = &f->rep.fold[k];
        assert_near(s->t_s, t[k], 0);
        print_message("t=%.1f s: tip end centre from hinge (%.5f, %.5f, %.5f), prim (%.5f, %.5f, %.5f)\n", t[k],
                      s->tip_centre_hinge.x, s->tip_centre_hinge.y, s->tip_centre_hinge.z, s->tip_centre_prim.x,
                      s->tip_centre_prim.y, s->tip_centre_prim.z);
        assert_lt(am_v3_dist(s->tip_centre_hinge, expect[k]), 1e-3);
        /* bind frame: hinge at (0, 0, 1.067); prim frame: hinge at the prim. */
        assert_lt(am_v3_dist(s->tip_centre_bind, am_v3_add(expect[k], am_v3(0, 0, 1.067))), 1e-3);
        assert_lt(am_v3_dist(s->tip_centre_prim, expect[k]), 1e-3);
    }
}

static void test_cli_prints_summary_and_json(void **state)
{
    fixture *f = *state;
    char dir[512], out[16384], sk[512];
    snprintf(dir, sizeof dir, "%s/cli", f->dir);
    am_test_shared_path(sk, sizeof sk, "viewer/avatar_skeleton.xml");
    int rc = am_test_run_cli(out, sizeof out, "bendbox --out '%s' --bench --skeleton '%s'", dir, sk);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "PASS"));
    assert_non_null(strstr(out, "all checks passed"));
    assert_null(strstr(out, "FAIL"));
    assert_non_null(strstr(out, "bendbox.llmesh"));

    char cmd[2048];
    snprintf(cmd, sizeof cmd, "bendbox --out '%s' --bench --json --skeleton '%s'", dir, sk);
    rc = am_test_run_cli(out, sizeof out, "%s", cmd);
    assert_int_equal(rc, 0);
    /* The runner merges stderr (progress lines "[step] ...") into the output: the JSON
     * document is the part from the first line that opens an object. */
    const char *doc = strstr(out, "\n{\n");
    assert_non_null(doc);
    json_error_t je;
    json_t *root = json_loads(doc + 1, 0, &je);
    assert_non_null(root);
    assert_true(json_is_true(json_object_get(root, "pass")));
    json_t *bench = json_object_get(root, "bench");
    assert_lt(json_real_value(json_object_get(bench, "rest_error_m")), 1e-4);
    assert_int_equal(json_array_size(json_object_get(bench, "fold")), 4);
    json_decref(root);

    assert_int_equal(am_test_run_cli(out, sizeof out, "bendbox --bench"), 2);
    assert_non_null(strstr(out, "--out"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_file_is_written),
        cmocka_unit_test(test_written_j2c_decodes_to_the_written_png_exactly),
        cmocka_unit_test(test_hips_are_overridden_onto_the_pelvis),
        cmocka_unit_test(test_written_anim_is_the_fold),
        cmocka_unit_test(test_rest_error_and_tip_rigidity_within_1e_4),
        cmocka_unit_test(test_tip_end_follows_the_fold_at_0_1_5_3_and_6_seconds),
        cmocka_unit_test(test_cli_prints_summary_and_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
