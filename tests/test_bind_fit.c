/* Fitting stock joints inside a mesh (src/bind/fit.h): the creatures were made around the
 * viewer's default skeleton, so every fitted joint must land near its default position
 * (measured: mean 3.0 cm, worst 6.4 cm, the ankles); a quadruped made of boxes gets its
 * legs, spine, head and tail joints inside the right boxes; a shape without limbs is
 * refused saying what is missing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bind/fit.h"
#include "support/bind_fixtures.h"
#include "support/test_support.h"

static int find_joint(const am_bind_skeleton *s, const char *name)
{
    for (size_t j = 0; j < s->joint_count; j++)
        if (strcmp(am_str(&s->joints[j].name), name) == 0)
            return (int)j;
    return -1;
}

static void test_humanoid_fit_lands_near_the_default_skeleton(void **state)
{
    (void)state;
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    const char *sizes[1] = {"10k"}; /* the 50k creature fits the same (mean 2.4 cm, worst 6.4 cm) */
    for (int i = 0; i < 1; i++) {
        am_bind_source src;
        am_bind_skeleton ref, fit;
        am_test_creature(sizes[i], &viewer, &src, &ref);
        am_bind_mesh m = am_bind_source_mesh(&src);
        char summary[400];
        am_error err;
        assert_int_equal(am_bind_fit(&m, AM_FIT_HUMANOID, &viewer, &fit, summary, sizeof summary, &err), AM_OK);
        assert_int_equal(fit.joint_count, 21);
        double worst = 0, sum = 0;
        const char *worst_name = "";
        for (size_t j = 0; j < ref.joint_count; j++) {
            int k = find_joint(&fit, am_str(&ref.joints[j].name));
            assert_ge(k, 0);
            double d = am_v3_dist(fit.joints[k].head, ref.joints[j].head);
            sum += d;
            if (d > worst) {
                worst = d;
                worst_name = am_str(&ref.joints[j].name);
            }
        }
        print_message("%s: %s\n  joints from the defaults: mean %.1f cm, worst %.1f cm (%s)\n", sizes[i], summary,
                      100 * sum / ref.joint_count, 100 * worst, worst_name);
        assert_lt(worst, 0.08);
        assert_lt(sum / ref.joint_count, 0.04);
        /* the fitted skeleton binds the creature with every bone used */
        am_bind_result r;
        assert_int_equal(am_bind(&m, &fit, NULL, &r, &err), AM_OK);
        assert_int_equal(r.unweighted, 0);
        for (size_t j = 0; j < fit.joint_count; j++)
            assert_true(r.joint_held[j]);
        am_bind_result_free(&r);
        am_bind_skeleton_free(&fit);
        am_bind_skeleton_free(&ref);
        am_bind_source_free(&src);
    }
    am_skeleton_free(&viewer);
}

static void add_box(am_test_mesh *m, double x0, double y0, double z0, double x1, double y1, double z1)
{
    am_test_mesh_box(m, (double[3]){x0, y0, z0}, (double[3]){x1, y1, z1}, 4);
}

static bool inside(am_vec3 p, double x0, double y0, double z0, double x1, double y1, double z1)
{
    return p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1 && p.z >= z0 && p.z <= z1;
}

/* Body 1.2 m long at 0.9..1.2 m, legs 0.15 m square to the floor, a neck rising to a head
 * ahead of the body, a tail behind it: overlapping closed boxes (a triangle soup the fit
 * voxelises into one solid). */
static void test_quadruped_fit_puts_joints_in_their_boxes(void **state)
{
    (void)state;
    am_skeleton viewer;
    am_test_load_viewer_skeleton(&viewer);
    am_test_mesh m = {0};
    add_box(&m, -0.6, -0.2, 0.85, 0.6, 0.2, 1.2);      /* body */
    add_box(&m, 0.35, 0.05, 0.0, 0.5, 0.2, 0.95);      /* front left leg */
    add_box(&m, 0.35, -0.2, 0.0, 0.5, -0.05, 0.95);    /* front right */
    add_box(&m, -0.5, 0.05, 0.0, -0.35, 0.2, 0.95);    /* hind left */
    add_box(&m, -0.5, -0.2, 0.0, -0.35, -0.05, 0.95);  /* hind right */
    add_box(&m, 0.5, -0.08, 1.1, 0.7, 0.08, 1.5);      /* neck */
    add_box(&m, 0.55, -0.1, 1.45, 0.95, 0.1, 1.65);    /* head */
    add_box(&m, -1.2, -0.04, 1.05, -0.55, 0.04, 1.13); /* tail */
    am_bind_mesh view = am_test_mesh_view(&m);
    am_bind_skeleton fit;
    char summary[400];
    am_error err;
    assert_int_equal(am_bind_fit(&view, AM_FIT_QUADRUPED, &viewer, &fit, summary, sizeof summary, &err), AM_OK);
    print_message("%s\n", summary);
    assert_non_null(strstr(summary, "tail found"));
    static const struct {
        const char *name;
        double box[6];
    } expect[] = {
        {"mWristLeft", {0.35, 0.05, 0.0, 0.5, 0.2, 0.95}},     {"mElbowLeft", {0.35, 0.05, 0.0, 0.5, 0.2, 0.95}},
        {"mWristRight", {0.35, -0.2, 0.0, 0.5, -0.05, 0.95}},  {"mFootLeft", {-0.5, 0.05, 0.0, -0.35, 0.2, 0.95}},
        {"mKneeLeft", {-0.5, 0.05, 0.0, -0.35, 0.2, 0.95}},    {"mKneeRight", {-0.5, -0.2, 0.0, -0.35, -0.05, 0.95}},
        {"mPelvis", {-0.6, -0.2, 0.85, 0.6, 0.2, 1.2}},        {"mChest", {-0.6, -0.2, 0.85, 0.6, 0.2, 1.2}},
        {"mHead", {0.5, -0.1, 1.1, 0.95, 0.1, 1.65}},          {"mTail4", {-1.2, -0.04, 1.05, -0.55, 0.04, 1.13}},
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        int k = find_joint(&fit, expect[i].name);
        assert_ge(k, 0);
        const double *b = expect[i].box;
        if (!inside(fit.joints[k].head, b[0], b[1], b[2], b[3], b[4], b[5]))
            fail_msg("%s at (%.3f, %.3f, %.3f) is outside its box", expect[i].name, fit.joints[k].head.x,
                     fit.joints[k].head.y, fit.joints[k].head.z);
    }
    /* the chest is ahead of the pelvis, the knees below the hips */
    assert_gt(fit.joints[find_joint(&fit, "mChest")].head.x, fit.joints[find_joint(&fit, "mPelvis")].head.x);
    assert_lt(fit.joints[find_joint(&fit, "mKneeLeft")].head.z, fit.joints[find_joint(&fit, "mHipLeft")].head.z);
    /* and it binds: each box an island, every vertex weighted */
    am_bind_result r;
    assert_int_equal(am_bind(&view, &fit, NULL, &r, &err), AM_OK);
    assert_int_equal(r.unweighted, 0);
    am_bind_result_free(&r);
    am_bind_skeleton_free(&fit);
    /* a sphere is no humanoid: refused with what is missing */
    am_test_mesh ball = {0};
    am_test_mesh_sphere(&ball, 0, 0, 0.5, 0.5, 16, 24);
    am_bind_mesh bv = am_test_mesh_view(&ball);
    assert_int_equal(am_bind_fit(&bv, AM_FIT_HUMANOID, &viewer, &fit, summary, sizeof summary, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "fit humanoid"));
    assert_non_null(strstr(err.msg, "T or A pose"));
    am_test_mesh_free(&ball);
    am_test_mesh_free(&m);
    am_skeleton_free(&viewer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_humanoid_fit_lands_near_the_default_skeleton),
        cmocka_unit_test(test_quadruped_fit_puts_joints_in_their_boxes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
