/* Axes and units (src/map/axes.h): every up/forward pair gives a proper rotation (never
 * a mirror) taking up to +Z and forward to +X; detection on the quadruped in glTF's frame
 * and in Z-up centimetres against the frames written out in tests/support, the report's
 * words, declared-vs-data agreement and conflict, and given options. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "map/axes.h"
#include "support/scene_fixtures.h"
#include "support/test_support.h"

static am_vec3 unit_axis(int a)
{
    double s = a < 0 ? -1 : 1;
    int k = a < 0 ? -a : a;
    return am_v3(k == 1 ? s : 0, k == 2 ? s : 0, k == 3 ? s : 0);
}

static void test_every_pair_is_a_proper_rotation(void **state)
{
    (void)state;
    size_t valid = 0;
    for (int up = -3; up <= 3; up++)
        for (int fw = -3; fw <= 3; fw++) {
            am_quat q;
            bool ok = am_axes_rotation(up, fw, &q);
            if (up == 0 || fw == 0 || up == fw || up == -fw) {
                assert_false(ok);
                continue;
            }
            assert_true(ok);
            valid++;
            am_vec3 z = am_quat_rotate(q, unit_axis(up)), x = am_quat_rotate(q, unit_axis(fw));
            assert_near(z.z, 1, 1e-12);
            assert_near(x.x, 1, 1e-12);
            /* determinant +1: the images of X, Y, Z are right-handed */
            am_vec3 ex = am_quat_rotate(q, am_v3(1, 0, 0)), ey = am_quat_rotate(q, am_v3(0, 1, 0)),
                    ez = am_quat_rotate(q, am_v3(0, 0, 1));
            assert_near(am_v3_dot(am_v3_cross(ex, ey), ez), 1, 1e-12);
        }
    assert_int_equal(valid, 24);
    /* glTF (+Y up, +Z forward): (x, y, z) -> (z, x, y); the viewer's own importer maps
     * (x, y, z) -> (x, -z, y), which leaves a +Z-facing asset facing -Y (docs/reference/viewer-gltf-import.md) */
    am_quat q;
    assert_true(am_axes_rotation(2, 3, &q));
    am_vec3 p = am_quat_rotate(q, am_v3(0.1, 0.2, 0.3));
    assert_near(p.x, 0.3, 1e-12);
    assert_near(p.y, 0.1, 1e-12);
    assert_near(p.z, 0.2, 1e-12);
}

static void test_parse_axis_text(void **state)
{
    (void)state;
    int a;
    am_error err;
    assert_int_equal(am_axes_parse("+Y", &a, &err), AM_OK);
    assert_int_equal(a, 2);
    assert_int_equal(am_axes_parse("-z", &a, &err), AM_OK);
    assert_int_equal(a, -3);
    assert_int_equal(am_axes_parse("x", &a, &err), AM_OK);
    assert_int_equal(a, 1);
    assert_int_equal(am_axes_parse("up", &a, &err), AM_ERR_USAGE);
    assert_int_equal(am_axes_parse("+W", &a, &err), AM_ERR_USAGE);
    assert_int_equal(am_axes_parse("", &a, &err), AM_ERR_USAGE);
    assert_string_equal(am_axis_name(-2), "-Y");
}

/* The library's conversion agrees with the frame written out in scene_fixtures. */
static void check_conversion(const am_scene *s, const am_axes *ax, sf_frame k)
{
    for (size_t v = 0; v < s->meshes[0].vertex_count; v += 7) {
        const float *p = &s->meshes[0].positions[3 * v];
        am_vec3 got = am_axes_point(ax, am_v3(p[0], p[1], p[2])), want = sf_to_viewer(k, am_v3(p[0], p[1], p[2]));
        assert_lt(am_v3_dist(got, want), 1e-9);
        am_mat4 m = am_axes_matrix(ax);
        assert_lt(am_v3_dist(am_mat4_transform_point(&m, am_v3(p[0], p[1], p[2])), want), 1e-9);
    }
}

/* The nameless quadruped in frame k, its body plan and its axes detected. */
static void detect(am_scene *s, sf_frame k, am_body *b, am_axes *ax)
{
    sf_quadruped(s, k, false, false);
    am_error err;
    assert_int_equal(am_body_analyse(s, b, &err), AM_OK);
    assert_int_equal(am_axes_resolve(s, b, NULL, ax, &err), AM_OK);
    print_message("report: %s\n", ax->report);
    for (size_t i = 0; i < ax->conflict_count; i++)
        print_message("conflict: %s\n", ax->conflicts[i]);
}

static void test_quadruped_in_gltf_frame_agrees_with_the_declaration(void **state)
{
    (void)state;
    am_scene s;
    am_body b;
    am_axes ax;
    detect(&s, SF_YUP_M, &b, &ax);
    assert_int_equal(ax.conflict_count, 0);
    assert_non_null(strstr(ax.report, "up +Y (declared by glTF; legs hang along -Y), forward +Z (declared by glTF; the "
                                      "head is forward of the pelvis along the long axis), unit 1 m (declared by glTF; "
                                      "stature 2."));
    assert_true(ax.stature_m > 2.0 && ax.stature_m < 2.3); /* tail tip to nose, 2.12 m + box */
    check_conversion(&s, &ax, SF_YUP_M);
    am_body_free(&b);
    am_scene_free(&s);
}

static void test_zup_centimetres_conflict_is_reported_and_the_data_wins(void **state)
{
    (void)state;
    am_scene s;
    am_body b;
    am_axes ax;
    detect(&s, SF_ZUP_CM, &b, &ax);
    am_error err;
    assert_int_equal(ax.up, 3);
    assert_int_equal(ax.forward, -2);
    assert_near(ax.scale, 0.01, 0);
    assert_non_null(strstr(ax.report, "up +Z (legs hang along -Z; glTF declares +Y)"));
    assert_non_null(strstr(ax.report, "forward -Y (the head is forward of the pelvis along the long axis)"));
    assert_non_null(strstr(ax.report, "unit 0.01 m (stature 2"));
    assert_int_equal(ax.conflict_count, 3);
    assert_non_null(strstr(ax.conflicts[0], "glTF declares up +Y, but legs hang along -Z: up +Z taken from the data"));
    assert_non_null(strstr(ax.conflicts[1], "glTF declares forward +Z, along the up axis +Z: not used"));
    assert_non_null(strstr(ax.conflicts[2], "glTF declares the unit 1 m, but the stature is"));
    check_conversion(&s, &ax, SF_ZUP_CM);
    /* given options win, and a disagreement with the legs is still said */
    am_axes_options o = {.up = 1, .forward = 2, .scale = 0.02};
    assert_int_equal(am_axes_resolve(&s, &b, &o, &ax, &err), AM_OK);
    assert_int_equal(ax.up, 1);
    assert_near(ax.scale, 0.02, 0);
    assert_non_null(strstr(ax.report, "up +X (given), forward +Y (given), unit 0.02 m (given;"));
    assert_non_null(strstr(ax.conflicts[0], "the up option +X given, but the legs hang along -Z"));
    am_body_free(&b);
    am_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_pair_is_a_proper_rotation),
        cmocka_unit_test(test_parse_axis_text),
        cmocka_unit_test(test_quadruped_in_gltf_frame_agrees_with_the_declaration),
        cmocka_unit_test(test_zup_centimetres_conflict_is_reported_and_the_data_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
