/* The math module against independent computations: the viewer's quaternion and matrix
 * conventions (docs/reference/viewer-skeleton.md#units-axes-and-rotations, docs/reference/mesh-asset.md#matrix-layout). */
#include <math.h>

#include "support/test_support.h"
#include "math/am_math.h"

static void test_quat_rotates_counter_clockwise_about_axis(void **state)
{
    (void)state;
    am_quat q = am_quat_axis_angle(am_v3(0, 0, 1), AM_PI / 2);
    am_vec3 v = am_quat_rotate(q, am_v3(1, 0, 0));
    assert_near(v.x, 0, 1e-12);
    assert_near(v.y, 1, 1e-12);
    assert_near(v.z, 0, 1e-12);
    /* docs/reference/bendbox-test.md: rotY(-a) swings +X toward +Z */
    am_quat qy = am_quat_axis_angle(am_v3(0, 1, 0), -AM_PI / 2);
    v = am_quat_rotate(qy, am_v3(1, 0, 0));
    assert_near(v.x, 0, 1e-12);
    assert_near(v.z, 1, 1e-12);
}

static void test_hamilton_applies_right_operand_first(void **state)
{
    (void)state;
    am_quat qx = am_quat_axis_angle(am_v3(1, 0, 0), AM_PI / 2);
    am_quat qz = am_quat_axis_angle(am_v3(0, 0, 1), AM_PI / 2);
    am_vec3 p = am_v3(0, 1, 0);
    /* x first then z, by hand: (0,1,0) -x90-> (0,0,1) -z90-> (0,0,1) */
    am_vec3 seq = am_quat_rotate(qz, am_quat_rotate(qx, p));
    am_vec3 ham = am_quat_rotate(am_quat_mul(qz, qx), p);
    am_vec3 ll = am_quat_rotate(am_quat_ll_mul(qx, qz), p);
    assert_near(seq.z, 1, 1e-12);
    assert_near(ham.x, seq.x, 1e-12);
    assert_near(ham.y, seq.y, 1e-12);
    assert_near(ham.z, seq.z, 1e-12);
    assert_near(ll.x, seq.x, 1e-12);
    assert_near(ll.y, seq.y, 1e-12);
    assert_near(ll.z, seq.z, 1e-12);
}

static void test_euler_xyz_is_rz_ry_rx(void **state)
{
    (void)state;
    /* R = Rz(c) Ry(b) Rx(a), column vectors, written out by hand */
    double a = 20 * AM_DEG2RAD, b = -35 * AM_DEG2RAD, c = 50 * AM_DEG2RAD;
    double Rx[9] = {1, 0, 0, 0, cos(a), -sin(a), 0, sin(a), cos(a)};
    double Ry[9] = {cos(b), 0, sin(b), 0, 1, 0, -sin(b), 0, cos(b)};
    double Rz[9] = {cos(c), -sin(c), 0, sin(c), cos(c), 0, 0, 0, 1};
    double T[9] = {0}, R[9] = {0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                T[3 * i + j] += Ry[3 * i + k] * Rx[3 * k + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                R[3 * i + j] += Rz[3 * i + k] * T[3 * k + j];
    am_quat q = am_quat_from_euler_xyz_deg(am_v3(20, -35, 50));
    am_vec3 v = am_v3(0.3, -0.7, 1.1);
    am_vec3 got = am_quat_rotate(q, v);
    assert_near(got.x, R[0] * v.x + R[1] * v.y + R[2] * v.z, 1e-12);
    assert_near(got.y, R[3] * v.x + R[4] * v.y + R[5] * v.z, 1e-12);
    assert_near(got.z, R[6] * v.x + R[7] * v.y + R[8] * v.z, 1e-12);
}

static void test_ll_matrix_layout_row_vectors_translation_12_13_14(void **state)
{
    (void)state;
    am_quat q = am_quat_axis_angle(am_v3(0, 0, 1), AM_PI / 2);
    am_mat4 m = am_mat4_from_trs(am_v3(1, 2, 3), q, am_v3(2, 2, 2));
    assert_near(m.m[12], 1, 0);
    assert_near(m.m[13], 2, 0);
    assert_near(m.m[14], 3, 0);
    assert_near(m.m[15], 1, 0);
    /* row 0 = image of X: scaled by 2 then rotated 90 about Z -> (0, 2, 0) */
    assert_near(m.m[0], 0, 1e-12);
    assert_near(m.m[1], 2, 1e-12);
    am_vec3 p = am_mat4_transform_point(&m, am_v3(1, 0, 0));
    assert_near(p.x, 1, 1e-12);
    assert_near(p.y, 4, 1e-12);
    assert_near(p.z, 3, 1e-12);
    /* mul(a, b) applies a first: translate then rotate */
    am_mat4 t = am_mat4_translation(am_v3(1, 0, 0));
    am_mat4 r = am_mat4_from_trs(am_v3(0, 0, 0), q, am_v3(1, 1, 1));
    am_mat4 tr = am_mat4_mul(&t, &r);
    am_vec3 o = am_mat4_transform_point(&tr, am_v3(0, 0, 0));
    assert_near(o.x, 0, 1e-12);
    assert_near(o.y, 1, 1e-12);
    /* COLLADA order is the transpose: translation in elements 3, 7, 11 */
    am_mat4 c = am_mat4_transpose(&m);
    assert_near(c.m[3], 1, 0);
    assert_near(c.m[7], 2, 0);
    assert_near(c.m[11], 3, 0);
}

static void test_inverse(void **state)
{
    (void)state;
    am_mat4 m = am_mat4_from_trs(am_v3(0.3, -1, 2), am_quat_from_euler_xyz_deg(am_v3(10, 20, 30)), am_v3(1, 2, 0.5));
    am_mat4 inv;
    assert_true(am_mat4_inverse(&m, &inv));
    am_mat4 id = am_mat4_mul(&m, &inv);
    am_mat4 eye = am_mat4_identity();
    assert_lt(am_mat4_max_abs_diff(&id, &eye), 1e-12);
    am_mat4 zero = {{0}};
    assert_false(am_mat4_inverse(&zero, &inv));
}

static void test_rows_round_trip(void **state)
{
    (void)state;
    am_quat q = am_quat_normalize((am_quat){0.1, -0.7, 0.2, -0.3});
    double rows[9];
    am_quat_to_rows(q, rows);
    am_quat back = am_quat_from_rows(rows);
    assert_near(am_quat_angle_between(q, back), 0, 1e-7);
}

static void test_nlerp_viewer(void **state)
{
    (void)state;
    am_quat a = am_quat_identity();
    am_quat b = am_quat_axis_angle(am_v3(0, 1, 0), AM_PI / 2);
    am_quat m = am_quat_nlerp_viewer(0.5, a, b);
    /* nlerp halfway between 0 and 90 degrees is exactly 45 by symmetry */
    assert_near(am_quat_angle_between(m, am_quat_axis_angle(am_v3(0, 1, 0), AM_PI / 4)), 0, 1e-7);
    assert_near(am_quat_len(m), 1, 1e-12);
    /* dot < 0: the shorter arc via -a */
    am_quat nb = {-b.x, -b.y, -b.z, -b.w};
    am_quat m2 = am_quat_nlerp_viewer(0.5, a, nb);
    assert_near(am_quat_angle_between(m2, m), 0, 1e-7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quat_rotates_counter_clockwise_about_axis),
        cmocka_unit_test(test_hamilton_applies_right_operand_first),
        cmocka_unit_test(test_euler_xyz_is_rz_ry_rx),
        cmocka_unit_test(test_ll_matrix_layout_row_vectors_translation_12_13_14),
        cmocka_unit_test(test_inverse),
        cmocka_unit_test(test_rows_round_trip),
        cmocka_unit_test(test_nlerp_viewer),
    };
    return cmocka_run_group_tests_name("math", tests, NULL, NULL);
}
