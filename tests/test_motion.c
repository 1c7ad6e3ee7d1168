/* Motions -> .anim: sampling, key reduction, the loop guard, rest corrections and the
 * round-trip verification of every written file (docs/reference/lessons.md#rule-7 and #rule-10). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "core/io.h"
#include "support/test_support.h"

/* A nod of the hip about +Y: amplitude deg * sin(2 pi t), plus `end_off_deg` * t so the
 * end can miss the start by a chosen angle. */
typedef struct nod {
    double amp_deg, end_off_deg;
} nod;

static void nod_pose(void *user, size_t track, double t, am_quat *rot, am_vec3 *pos)
{
    const nod *n = user;
    double deg = n->amp_deg * sin(2 * AM_PI * t) + n->end_off_deg * t;
    *rot = am_quat_axis_angle(am_v3(0, 1, 0), deg * AM_DEG2RAD);
    *pos = am_v3(0, 0, 0.05 * sin(2 * AM_PI * t));
}

static am_motion nod_motion(nod *n, am_motion_track *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->joint = "mHipLeft";
    tr->priority = -1;
    am_motion m;
    am_motion_init(&m);
    m.tracks = tr;
    m.track_count = 1;
    m.pose_fn = nod_pose;
    m.user = n;
    m.duration_s = 2.0;
    m.loop = true;
    return m;
}

static void test_loop_guard_passes_a_motion_that_ends_where_it_starts(void **state)
{
    (void)state;
    nod n = {30, 0};
    am_motion_track tr;
    am_motion m = nod_motion(&n, &tr);
    am_error err = {0};
    assert_int_equal(am_motion_check_loop(&m, &err), AM_OK);
}

static void test_loop_guard_refuses_a_motion_ending_2_degrees_off(void **state)
{
    (void)state;
    nod n = {30, 2.0};
    am_motion_track tr;
    am_motion m = nod_motion(&n, &tr);
    am_error err = {0};
    assert_int_equal(am_motion_check_loop(&m, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "mHipLeft"));
    /* the angle: 2 deg within quantisation */
    const char *at = strstr(err.msg, "ends ");
    assert_non_null(at);
    assert_near(atof(at + 5), 2.0, 0.01);
    /* the writer refuses it too, and writes nothing */
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/off.anim", dir);
    assert_int_equal(am_motion_write_anim(&m, NULL, NULL, path, NULL, NULL, &err), AM_ERR_INVALID);
    FILE *f = fopen(path, "rb");
    assert_null(f);
    /* a non-looping motion may end anywhere */
    m.loop = false;
    assert_int_equal(am_motion_check_loop(&m, &err), AM_OK);
    am_test_rmtree(dir);
}

static void test_sample_defaults_to_24_intervals_plus_the_end_key(void **state)
{
    (void)state;
    nod n = {30, 0};
    am_motion_track tr;
    am_motion m = nod_motion(&n, &tr);
    tr.has_pos = true;
    am_anim a;
    am_motion_stats st;
    am_error err = {0};
    assert_int_equal(am_motion_sample(&m, NULL, NULL, &a, &st, &err), AM_OK);
    assert_int_equal(a.joints[0].rot_count, 25);
    assert_int_equal(a.joints[0].pos_count, 25);
    assert_int_equal(st.keys_before, 50);
    assert_int_equal(st.keys_after, 50);
    assert_int_equal(a.base_priority, 4); /* docs/reference/lessons.md#rule-7 */
    assert_true(a.loop == 1 && a.loop_in == 0.0f && a.loop_out == 2.0f);
    assert_int_equal(a.joints[0].rot_keys[0].time_code, 0);
    assert_int_equal(a.joints[0].rot_keys[24].time_code, 65535);
    /* key 6 is t = 0.25: 30 deg about +Y; independent: (0, sin 15, 0, cos 15) */
    assert_near(a.joints[0].rot_keys[6].time, 0.5, 2.0 / 65535);
    assert_near(a.joints[0].rot_keys[6].rot.y, sin(15 * AM_DEG2RAD), 2 * 2.0 / 65535);
    assert_near(a.joints[0].pos_keys[6].pos.z, 0.05, 2 * 10.0 / 65535);
    am_anim_free(&a);
}

/* A pose that IS the viewer's nlerp between two rotations: two keys reproduce it exactly. */
static void nlerp_pose(void *user, size_t track, double t, am_quat *rot, am_vec3 *pos)
{
    (void)user;
    *rot = am_quat_nlerp_viewer(t, am_quat_identity(), am_quat_axis_angle(am_v3(0, 0, 1), 1.0));
    *pos = am_v3(0, 0, 0);
}

static void test_key_reduction_drops_only_reproducible_keys(void **state)
{
    (void)state;
    am_motion_track tr = {.joint = "mTorso", .priority = -1};
    am_motion m;
    am_motion_init(&m);
    m.tracks = &tr;
    m.track_count = 1;
    m.pose_fn = nlerp_pose;
    m.duration_s = 1.0;
    am_motion_sample_options o = {.reduce = true};
    am_anim a;
    am_motion_stats st;
    am_error err = {0};
    assert_int_equal(am_motion_sample(&m, &o, NULL, &a, &st, &err), AM_OK);
    assert_int_equal(st.keys_before, 25);
    assert_int_equal(a.joints[0].rot_count, 2);
    assert_int_equal(st.keys_after, 2);
    am_anim_free(&a);
    /* A sine nod cannot be two keys; every kept key set reproduces each sample within tol. */
    nod n = {30, 0};
    am_motion_track tr2;
    am_motion m2 = nod_motion(&n, &tr2);
    o.rot_tol_deg = 0.5;
    assert_int_equal(am_motion_sample(&m2, &o, NULL, &a, &st, &err), AM_OK);
    assert_true(st.keys_after > 4 && st.keys_after < 25);
    am_anim_joint_pose p;
    for (int i = 0; i <= 24; i++) {
        double t = i / 24.0;
        am_quat want;
        nod_pose(&n, 0, t, &want, &(am_vec3){0});
        am_anim_eval_curves(&a, t * 2.0, &p);
        assert_lt(am_quat_angle_between(want, p.rot) * AM_RAD2DEG, 0.5 + 0.02);
    }
    am_anim_free(&a);
}

static void test_rest_correction_applies_in_every_pose(void **state)
{
    (void)state;
    /* Delta: 20 deg about +Y (a nod); correction: -50 deg about +Z (a head turned 50 deg). */
    am_quat delta = am_quat_axis_angle(am_v3(0, 1, 0), 20 * AM_DEG2RAD);
    am_quat rots[2] = {am_quat_identity(), delta};
    am_motion_track tr = {.joint = "mHead", .priority = -1, .rot = rots, .count = 2, .has_correction = true,
                          .correction = am_quat_axis_angle(am_v3(0, 0, 1), -50 * AM_DEG2RAD)};
    am_motion m;
    am_motion_init(&m);
    m.tracks = &tr;
    m.track_count = 1;
    m.duration_s = 1.0;
    am_anim a;
    am_error err = {0};
    am_motion_sample_options o = {.intervals = AM_MOTION_CLIP_TIMES};
    assert_int_equal(am_motion_sample(&m, &o, NULL, &a, NULL, &err), AM_OK);
    assert_int_equal(a.joints[0].rot_count, 2);
    /* t = 0: the correction alone; the head's forward axis +X turns to -50 deg. */
    am_vec3 f0 = am_quat_rotate(a.joints[0].rot_keys[0].rot, am_v3(1, 0, 0));
    assert_near(atan2(f0.y, f0.x) * AM_RAD2DEG, -50.0, 0.01);
    /* t = 1: corrected, then nodded about the parent's +Y: forward = Ry(20) Rz(-50) x. */
    am_vec3 f1 = am_quat_rotate(a.joints[0].rot_keys[1].rot, am_v3(1, 0, 0));
    double c50 = cos(50 * AM_DEG2RAD), s50 = sin(50 * AM_DEG2RAD);
    double c20 = cos(20 * AM_DEG2RAD), s20 = sin(20 * AM_DEG2RAD);
    /* Rz(-50) x = (c50, -s50, 0); Ry(20) (x, y, z) = (x c20 + z s20, y, -x s20 + z c20) */
    assert_near(f1.x, c50 * c20, 1e-4);
    assert_near(f1.y, -s50, 1e-4);
    assert_near(f1.z, -c50 * s20, 1e-4);
    am_anim_free(&a);
}

static void test_write_anim_round_trips_and_reports(void **state)
{
    (void)state;
    nod n = {30, 0};
    am_motion_track tr;
    am_motion m = nod_motion(&n, &tr);
    tr.has_pos = true;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/nod.anim", dir);
    am_motion_stats st;
    am_error err = {0};
    am_motion_sample_options o = {.reduce = true, .rot_tol_deg = 0.1};
    assert_int_equal(am_motion_write_anim(&m, &o, &skel, path, NULL, &st, &err), AM_OK);
    assert_lt(st.keys_after, st.keys_before);
    assert_lt(st.max_rot_err_deg, 0.1 + 0.02);
    /* Independent reading of the file: decode and play at tau 0.5 s (t = 0.25): 30 deg
     * about +Y and 5 cm up. */
    am_anim a;
    assert_int_equal(am_anim_load(path, &a, &err), AM_OK);
    assert_gt(st.bytes, 50);
    am_anim_joint_pose p;
    am_anim_eval(&a, 0.5, &p);
    assert_near(2 * acos(fmin(1, p.rot.w)) * AM_RAD2DEG, 30.0, 0.1);
    assert_near(p.rot.y, sin(15 * AM_DEG2RAD), 1e-3);
    assert_near(p.pos.z, 0.05, 0.001);
    am_anim_free(&a);
    am_skeleton_free(&skel);
    am_test_rmtree(dir);
}

static void test_verify_bytes_catches_a_tampered_code(void **state)
{
    (void)state;
    nod n = {30, 0};
    am_motion_track tr;
    am_motion m = nod_motion(&n, &tr);
    am_anim meant;
    am_error err = {0};
    assert_int_equal(am_motion_sample(&m, NULL, NULL, &meant, NULL, &err), AM_OK);
    am_buf b = {0};
    assert_int_equal(am_anim_encode(&meant, &b, &err), AM_OK);
    am_motion_stats st;
    assert_int_equal(am_anim_verify_bytes(b.data, b.size, &meant, &st, &err), AM_OK);
    assert_lt(st.max_rot_err_deg, 1e-4); /* acos rounding only; one step is 0.006 deg */
    /* Key 6's y code (t = 0.25, 30 deg) lowered by 400 codes: about 1.4 deg. */
    size_t off = meant.joints[0].rot_offset; /* not decoded: compute it */
    off = 4 + 4 + 4 + 1 + 4 * 6 + 4 + strlen("mHipLeft") + 1 + 4 + 4 + 6 * 8 + 4;
    uint16_t code = (uint16_t)(b.data[off] | (b.data[off + 1] << 8));
    assert_int_equal(code, meant.joints[0].rot_keys[6].y_code);
    code -= 400;
    b.data[off] = (uint8_t)code;
    b.data[off + 1] = (uint8_t)(code >> 8);
    assert_int_equal(am_anim_verify_bytes(b.data, b.size, &meant, &st, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "mHipLeft"));
    am_buf_free(&b);
    am_anim_free(&meant);
}

static void test_motion_with_unknown_joint_is_refused_by_name(void **state)
{
    (void)state;
    nod n = {30, 0};
    am_motion_track tr;
    am_motion m = nod_motion(&n, &tr);
    tr.joint = "mTail7";
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_motion_sample(&m, NULL, &skel, &a, NULL, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "mTail7"));
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_guard_passes_a_motion_that_ends_where_it_starts),
        cmocka_unit_test(test_loop_guard_refuses_a_motion_ending_2_degrees_off),
        cmocka_unit_test(test_sample_defaults_to_24_intervals_plus_the_end_key),
        cmocka_unit_test(test_key_reduction_drops_only_reproducible_keys),
        cmocka_unit_test(test_rest_correction_applies_in_every_pose),
        cmocka_unit_test(test_write_anim_round_trips_and_reports),
        cmocka_unit_test(test_verify_bytes_catches_a_tampered_code),
        cmocka_unit_test(test_motion_with_unknown_joint_is_refused_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
