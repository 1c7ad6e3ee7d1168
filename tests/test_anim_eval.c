/* Playback of a decoded .anim as the viewer plays it
 * (docs/reference/anim-format.md#curve-evaluation and #time-and-looping), checked against the
 * numbers of docs/reference/anim-format.md#worked-example. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "support/anim_fixtures.h"
#include "support/test_support.h"

static double angle_deg(am_quat q) { return 2.0 * acos(fmin(1.0, fabs(q.w))) * AM_RAD2DEG; }

static void test_worked_example_plays_as_the_spec_says(void **state)
{
    (void)state;
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(am_test_anim_worked, sizeof am_test_anim_worked, &a, &err), AM_OK);
    am_anim_joint_pose p[2];
    am_anim_eval(&a, 0.5, p);
    assert_true(p[0].has_rot && p[0].has_pos && p[1].has_rot && !p[1].has_pos);
    assert_near(p[0].rot.z, 0.382671, 2e-6);
    assert_near(p[0].rot.w, 0.923885, 2e-6);
    assert_near(p[0].pos.z, 0.049935, 1e-6);
    assert_near(angle_deg(p[1].rot), 22.50, 0.005);
    assert_near(p[1].rot.y, sin(22.5 * AM_DEG2RAD / 2), 1e-4);
    /* normalised lerp is not constant speed: 21.60 deg at a quarter, not 22.5 */
    am_anim_eval(&a, 0.25, p);
    assert_near(angle_deg(p[0].rot), 21.60, 0.01);
    /* looping 0..1: tau 1.25 plays T 0.25 */
    assert_near(am_anim_curve_time(&a, 1.25), 0.25, 1e-12);
    am_anim_joint_pose q[2];
    am_anim_eval(&a, 1.25, q);
    assert_near(am_quat_angle_between(p[0].rot, q[0].rot), 0.0, 1e-12);
    /* exactly on a key: that key */
    am_anim_eval_curves(&a, 1.0, p);
    assert_true(p[0].rot.z == a.joints[0].rot_keys[1].rot.z);
    am_anim_free(&a);
}

static void test_first_key_held_before_and_last_after(void **state)
{
    (void)state;
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(am_test_anim_worked, sizeof am_test_anim_worked, &a, &err), AM_OK);
    /* Move the first hip key to t = 0.5 s: before it the key value is held, not rest. */
    a.joints[1].rot_keys[0].time_code = 32767;
    a.joints[1].rot_keys[0].y_code = 40000;
    am_anim_redecode(&a);
    a.loop = 0;
    am_anim_joint_pose p[2];
    am_anim_eval(&a, 0.1, p);
    assert_true(p[1].rot.y == a.joints[1].rot_keys[0].rot.y);
    assert_near(am_anim_curve_time(&a, 7.0), 7.0, 0);
    am_anim_eval(&a, 7.0, p); /* not looping: past the end the last key is held */
    assert_true(p[1].rot.y == a.joints[1].rot_keys[1].rot.y);
    am_anim_free(&a);
}

static void test_keys_more_than_180_degrees_apart_take_the_short_arc_by_slerp(void **state)
{
    (void)state;
    /* docs/reference/anim-format.md#curve-evaluation: when dot(q0, q1) < 0 the viewer interpolates spherically between -q0
     * and q1. Keys 120 deg and -120 deg about +Z (both stored with w >= 0, dot = -0.5):
     * the short way passes through 180 deg, at constant speed, so a quarter of the way is
     * 150 deg (an nlerp would give 147.8 deg; the long way would give 60 deg). */
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(am_test_anim_worked, sizeof am_test_anim_worked, &a, &err), AM_OK);
    am_anim_joint *jt = &a.joints[0];
    jt->rot_keys[0].rot = (am_quat){0, 0, 0.86602540, 0.5};
    jt->rot_keys[1].rot = (am_quat){0, 0, -0.86602540, 0.5};
    am_anim_joint_pose p[2];
    am_anim_eval_curves(&a, 0.25, p);
    am_vec3 fwd = am_quat_rotate(p[0].rot, am_v3(1, 0, 0));
    assert_near(atan2(fwd.y, fwd.x) * AM_RAD2DEG, 150.0, 0.01);
    am_anim_eval_curves(&a, 0.5, p);
    fwd = am_quat_rotate(p[0].rot, am_v3(1, 0, 0));
    assert_near(fabs(atan2(fwd.y, fwd.x)) * AM_RAD2DEG, 180.0, 0.01);
    am_anim_free(&a);
}

static void test_loop_seam_measures_the_jump_the_viewer_plays(void **state)
{
    (void)state;
    /* The worked example loops 0..1 s; the pelvis goes from identity to 89.9969 deg and
     * from 0 to 0.09987068 m (docs/reference/anim-format.md#worked-example), so that is the jump at every seam. */
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(am_test_anim_worked, sizeof am_test_anim_worked, &a, &err), AM_OK);
    am_anim_seam seam;
    am_anim_loop_seam(&a, &seam);
    assert_int_equal(seam.rot_joint, 0);
    assert_near(seam.rot_deg, 89.9969, 1e-3);
    assert_int_equal(seam.pos_joint, 0);
    assert_near(seam.pos_m, 0.09987068, 1e-7);
    /* a loop over [1, 1] has no seam; a motion that does not loop has none either */
    a.loop_in = 1.0f;
    am_anim_loop_seam(&a, &seam);
    assert_near(seam.rot_deg, 0.0, 0);
    assert_near(seam.pos_m, 0.0, 0);
    a.loop = 0;
    am_anim_loop_seam(&a, &seam);
    assert_int_equal(seam.rot_joint, -1);
    assert_int_equal(seam.pos_joint, -1);
    am_anim_free(&a);
}

static void test_unsorted_and_duplicate_keys_play_like_the_viewers_map(void **state)
{
    (void)state;
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(am_test_anim_worked, sizeof am_test_anim_worked, &a, &err), AM_OK);
    /* Swap the two pelvis rotation keys: the file order does not matter. */
    am_anim_rot_key tmp = a.joints[0].rot_keys[0];
    a.joints[0].rot_keys[0] = a.joints[0].rot_keys[1];
    a.joints[0].rot_keys[1] = tmp;
    am_anim_joint_pose p[2];
    am_anim_eval(&a, 0.5, p);
    assert_near(p[0].rot.z, 0.382671, 2e-6);
    /* Two hip keys at t = 1: the later one in the file replaces the earlier. */
    a.joints[1].rot_keys[0].time_code = 65535;
    am_anim_redecode(&a);
    am_anim_eval_curves(&a, 0.2, p);
    assert_true(p[1].rot.y == a.joints[1].rot_keys[1].rot.y);
    am_anim_free(&a);
}

static void test_loop_between_loop_in_and_loop_out(void **state)
{
    (void)state;
    am_anim a = {.loop = 1, .duration = 4.0f, .loop_in = 1.0f, .loop_out = 3.0f};
    assert_near(am_anim_curve_time(&a, 2.5), 2.5, 1e-12);
    assert_near(am_anim_curve_time(&a, 3.5), 1.5, 1e-12); /* 1 + fmod(0.5, 2) */
    assert_near(am_anim_curve_time(&a, 6.0), 2.0, 1e-12);
    assert_near(am_anim_curve_time(&a, -1.0), 0.0, 0);
    a.loop_in = 3.0f; /* zero-length loop: stays at loop_out */
    assert_near(am_anim_curve_time(&a, 9.0), 3.0, 0);
    a.duration = 0.0f;
    assert_near(am_anim_curve_time(&a, 9.0), 0.0, 0);
}

static void test_resolve_keeps_only_the_first_entry_of_a_joint(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    char n0[] = "hip", n1[] = "mPelvis", n2[] = "mNoSuchJoint", n3[] = "mHipLeft";
    am_anim_joint j[4] = {{.name = n0}, {.name = n1}, {.name = n2}, {.name = n3}};
    am_anim a = {.joints = j, .joint_count = 4};
    int out[4];
    am_anim_resolve(&a, &skel, out);
    assert_int_equal(out[0], am_skeleton_find_exact(&skel, "mPelvis")); /* alias resolves */
    assert_int_equal(out[1], -1);                                      /* second entry: no effect */
    assert_int_equal(out[2], -1);
    assert_int_equal(out[3], am_skeleton_find_exact(&skel, "mHipLeft"));
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example_plays_as_the_spec_says),
        cmocka_unit_test(test_first_key_held_before_and_last_after),
        cmocka_unit_test(test_keys_more_than_180_degrees_apart_take_the_short_arc_by_slerp),
        cmocka_unit_test(test_loop_seam_measures_the_jump_the_viewer_plays),
        cmocka_unit_test(test_unsorted_and_duplicate_keys_play_like_the_viewers_map),
        cmocka_unit_test(test_loop_between_loop_in_and_loop_out),
        cmocka_unit_test(test_resolve_keeps_only_the_first_entry_of_a_joint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
