/* BVH -> .anim as the viewer's upload converts it (docs/reference/anim-format.md#bvh-conversion): frame 0 as the
 * reference, timing, SL = (BVH z, x, y), inches, pelvis relative to frame 0; then a real
 * CMU motion-capture file (Debian's assimp-testmodels). Expected values are computed here
 * independently with rotation matrices, not with the converter's quaternion formulas. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/bvh.h"
#include "core/io.h"
#include "support/bvh_matrix.h"
#include "support/test_support.h"

#define CMU_BVH "/usr/share/assimp/models/BVH/01_01.bvh"
#define IN2M 0.02540005

static const char *tiny_bvh =
    "HIERARCHY\n"
    "ROOT hip\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "  JOINT lThigh\n  {\n    OFFSET 4 -2 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "    End Site\n    {\n      OFFSET 0 -10 0\n    }\n  }\n"
    "  JOINT rThigh\n  {\n    OFFSET -4 -2 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "    End Site\n    {\n      OFFSET 0 -10 0\n    }\n  }\n}\n"
    "MOTION\nFrames: 4\nFrame Time: 0.1\n"
    /* hip x y z  rz rx ry | lThigh rz rx ry | rThigh (never moves) */
    "0 40 0   0 0 90   0 0 0   5 0 0\n"
    "0 40 10  0 0 90   0 30 0  5 0 0\n"
    "1 42 10  0 0 90   90 0 0  5 0 0\n"
    "2 44 10  0 0 120  0 0 0   5 0 0\n";

static void test_tiny_bvh_converts_as_the_viewer_does(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_bvh b;
    am_error err = {0};
    assert_int_equal(am_bvh_parse(tiny_bvh, strlen(tiny_bvh), &b, &err), AM_OK);
    assert_int_equal(b.joint_count, 3);
    assert_int_equal(b.frame_count, 4);
    assert_string_equal(b.joints[1].order, "ZXY");
    am_bvh_options o;
    am_bvh_options_init(&o);
    am_anim a;
    am_bvh_stats st;
    assert_int_equal(am_bvh_to_anim(&b, &skel, &o, &a, &st, &err), AM_OK);
    /* rThigh never moves: omitted (8.6) */
    assert_int_equal(a.joint_count, 2);
    assert_int_equal(st.static_joints, 1);
    assert_string_equal(a.joints[0].name, "mPelvis");
    assert_string_equal(a.joints[1].name, "mHipLeft");
    /* timing: duration (4 - 2) x 0.1; frames 1..3 at 0, 0.1, 0.2 */
    assert_near(a.duration, 0.2, 1e-7);
    assert_int_equal(a.joints[0].rot_count, 3);
    assert_near(a.joints[0].rot_keys[1].time, 0.1, 0.2 / 65535 + 1e-7);
    assert_int_equal(a.joints[0].rot_keys[2].time_code, 65535);
    /* viewer defaults */
    assert_int_equal(a.base_priority, 2);
    assert_int_equal(a.joints[0].priority, 2);
    assert_int_equal(a.hand_pose, 1);
    assert_int_equal(a.loop, 0);
    assert_true(a.loop_out == a.duration);
    /* ease 0.3 + 0.3 > 0.2: scaled to fit */
    assert_near(a.ease_in + a.ease_out, 0.2, 1e-6);
    /* Pelvis position, frame 1: R0^-1 (p1 - p0), R0 = Ry(90) (channel order Z X Y with
     * angles 0 0 90); p1 - p0 = (0, 0, 10) inches; then SL = (z, x, y), metres. */
    m3 R0 = am_test_m3_mul(am_test_m3_mul(am_test_m3_axis('Z', 0), am_test_m3_axis('X', 0)), am_test_m3_axis('Y', 90));
    am_vec3 d = am_test_m3_apply(am_test_m3_transpose(R0), am_v3(0, 0, 10));
    am_vec3 want = am_v3_scale(am_test_bvh_to_sl(d), IN2M);
    am_vec3 got = a.joints[0].pos_keys[0].pos;
    assert_near(got.x, want.x, 2e-4);
    assert_near(got.y, want.y, 2e-4);
    assert_near(got.z, want.z, 2e-4);
    assert_near(got.y, -0.254, 3e-4); /* by hand: Ry(-90) (0,0,10) = (-10,0,0) -> SL y */
    /* Pelvis rotation, frame 3: R0^-1 R3 = Ry(30) in BVH = 30 deg about SL +Z (BVH Y). */
    am_quat q = a.joints[0].rot_keys[2].rot;
    am_vec3 fwd = am_quat_rotate(q, am_v3(1, 0, 0));
    assert_near(atan2(fwd.y, fwd.x) * AM_RAD2DEG, 30.0, 0.01);
    /* lThigh frame 1: Xrotation 30 = 30 deg about BVH X = SL +Y. */
    am_quat t1 = a.joints[1].rot_keys[0].rot;
    assert_near(t1.y, sin(15 * AM_DEG2RAD), 1e-4);
    assert_near(t1.w, cos(15 * AM_DEG2RAD), 1e-4);
    /* lThigh frame 2: Zrotation 90 = 90 deg about BVH Z = SL +X. */
    am_quat t2 = a.joints[1].rot_keys[1].rot;
    assert_near(t2.x, sin(45 * AM_DEG2RAD), 1e-4);
    /* lThigh has 3 channels: no position keys */
    assert_int_equal(a.joints[1].pos_count, 0);
    /* the result is a valid upload */
    am_anim_report rep;
    assert_int_equal(am_anim_validate(&a, &skel, &rep, &err), AM_OK);
    assert_int_equal(rep.errors, 0);
    am_anim_report_free(&rep);
    am_bvh_stats_free(&st);
    am_anim_free(&a);
    am_bvh_free(&b);
    am_skeleton_free(&skel);
}

/* Read frame `f`'s first six numbers of the CMU file independently. */
static void cmu_root_frame(const char *text, int f, double v[6])
{
    const char *p = strstr(text, "Frame Time:");
    assert_non_null(p);
    p = strchr(p, '\n') + 1;
    for (int i = 0; i < f; i++)
        p = strchr(p, '\n') + 1;
    assert_int_equal(sscanf(p, "%lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]), 6);
}

static const char *cmu_map_json =
    "{\"joints\": {\"Hips\": \"mPelvis\", \"Spine\": \"mTorso\", \"Spine1\": \"mChest\", \"Neck\": \"mNeck\","
    " \"Head\": \"mHead\", \"LeftShoulder\": \"mCollarLeft\", \"LeftArm\": \"mShoulderLeft\","
    " \"LeftForeArm\": \"mElbowLeft\", \"LeftHand\": \"mWristLeft\", \"RightShoulder\": \"mCollarRight\","
    " \"RightArm\": \"mShoulderRight\", \"RightForeArm\": \"mElbowRight\", \"RightHand\": \"mWristRight\","
    " \"LeftUpLeg\": \"mHipLeft\", \"LeftLeg\": \"mKneeLeft\", \"LeftFoot\": \"mAnkleLeft\","
    " \"LeftToeBase\": \"mFootLeft\", \"RightUpLeg\": \"mHipRight\", \"RightLeg\": \"mKneeRight\","
    " \"RightFoot\": \"mAnkleRight\", \"RightToeBase\": \"mFootRight\"}}";

static void test_cmu_01_01_converts_with_a_joint_map(void **state)
{
    (void)state;
    uint8_t *text;
    size_t size;
    am_error err = {0};
    am_test_skip_if_missing(CMU_BVH);
    assert_int_equal(am_read_file(CMU_BVH, &text, &size, &err), AM_OK);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_bvh b;
    assert_int_equal(am_bvh_parse((const char *)text, size, &b, &err), AM_OK);
    assert_int_equal(b.joint_count, 31);
    assert_int_equal(b.frame_count, 2752);
    am_joint_map map;
    assert_int_equal(am_joint_map_parse(cmu_map_json, strlen(cmu_map_json), "cmu", &map, &err), AM_OK);
    am_bvh_options o;
    am_bvh_options_init(&o);
    o.map = &map;
    o.priority = 4;
    am_anim a;
    am_bvh_stats st;
    assert_int_equal(am_bvh_to_anim(&b, &skel, &o, &a, &st, &err), AM_OK);
    assert_int_equal(st.unmapped, 10); /* LHipJoint RHipJoint LowerBack Neck1 fingers thumbs */
    assert_near(a.duration, 2750 * 0.0083333, 1e-3);
    assert_string_equal(a.joints[0].name, "mPelvis");
    assert_int_equal(a.joints[0].rot_count, 2751);
    assert_int_equal(a.joints[0].pos_count, 2751);
    /* Independent: the last pelvis key = R0^-1 (p_last - p0) in SL axes, metres, where the
     * root's channels are Zrotation Yrotation Xrotation: R = Rz Ry Rx. */
    double f0[6], fl[6];
    cmu_root_frame((const char *)text, 0, f0);
    cmu_root_frame((const char *)text, 2751, fl);
    m3 R0 = am_test_m3_mul(am_test_m3_mul(am_test_m3_axis('Z', f0[3]), am_test_m3_axis('Y', f0[4])), am_test_m3_axis('X', f0[5]));
    am_vec3 d = am_test_m3_apply(am_test_m3_transpose(R0), am_v3(fl[0] - f0[0], fl[1] - f0[1], fl[2] - f0[2]));
    am_vec3 want = am_v3_scale(am_test_bvh_to_sl(d), IN2M);
    const am_anim_pos_key *pk = &a.joints[0].pos_keys[2750];
    assert_near(pk->pos.x, fmax(-5, fmin(5, want.x)), 3e-4);
    assert_near(pk->pos.y, fmax(-5, fmin(5, want.y)), 3e-4);
    assert_near(pk->pos.z, fmax(-5, fmin(5, want.z)), 3e-4);
    assert_int_equal(pk->time_code, 65535);
    /* Encode, decode, validate against the skeleton: the viewer would accept the upload. */
    am_buf buf = {0};
    assert_int_equal(am_anim_encode(&a, &buf, &err), AM_OK);
    am_anim back;
    assert_int_equal(am_anim_decode(buf.data, buf.size, &back, &err), AM_OK);
    am_anim_report rep;
    assert_int_equal(am_anim_validate(&back, &skel, &rep, &err), AM_OK);
    assert_int_equal(rep.errors, 0);
    am_anim_report_free(&rep);
    am_anim_free(&back);
    am_buf_free(&buf);
    /* Key reduction: every frame key of the full conversion is played back by the reduced
     * file within the tolerance (checked on every 10th frame). */
    am_anim red;
    am_bvh_stats rs;
    o.reduce_deg = 0.5;
    assert_int_equal(am_bvh_to_anim(&b, &skel, &o, &red, &rs, &err), AM_OK);
    assert_int_equal(rs.keys_before, st.keys_before);
    assert_lt(rs.keys_after, rs.keys_before / 2);
    am_bvh_stats_free(&rs);
    assert_int_equal(red.joint_count, a.joint_count);
    am_anim_joint_pose *pose = calloc(red.joint_count, sizeof *pose);
    assert_non_null(pose);
    double worst = 0, worst_pos = 0;
    for (size_t k = 0; k < a.joints[0].rot_count; k += 10) {
        am_anim_eval_curves(&red, a.joints[0].rot_keys[k].time, pose);
        for (size_t j = 0; j < a.joint_count; j++) {
            worst = fmax(worst, am_quat_angle_between(pose[j].rot, a.joints[j].rot_keys[k].rot) * AM_RAD2DEG);
            if (a.joints[j].pos_count)
                worst_pos = fmax(worst_pos, am_v3_dist(pose[j].pos, a.joints[j].pos_keys[k].pos));
        }
    }
    assert_le(worst, 0.5 + 1e-6);
    assert_le(worst_pos, 0.0005 + 1e-6);
    free(pose);
    am_anim_free(&red);
    o.reduce_deg = 0;
    /* Without a map the CMU root name is not the viewer's: refused by name. */
    am_anim_free(&a);
    am_bvh_stats_free(&st);
    o.map = NULL;
    assert_int_equal(am_bvh_to_anim(&b, &skel, &o, &a, &st, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "Hips"));
    am_joint_map_free(&map);
    am_bvh_free(&b);
    am_skeleton_free(&skel);
    free(text);
}

static void expect_bvh_error(const char *text, const char *needle)
{
    am_bvh b;
    am_error err = {0};
    assert_int_equal(am_bvh_parse(text, strlen(text), &b, &err), AM_ERR_INVALID);
    if (!strstr(err.msg, needle))
        fail_msg("expected '%s' in: %s", needle, err.msg);
}

/* Loop guard (docs/reference/lessons.md#rule-7) on a converted file: the CMU walk ends metres and tens of
 * degrees from where it starts, so as a loop it is refused naming the joint; a tolerance
 * that large has the seam blended closed; without --loop there is no seam to guard. */
static void test_cmu_walk_as_a_loop_is_refused_by_the_loop_guard(void **state)
{
    (void)state;
    uint8_t *text;
    size_t size;
    am_error err = {0};
    am_test_skip_if_missing(CMU_BVH);
    assert_int_equal(am_read_file(CMU_BVH, &text, &size, &err), AM_OK);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_bvh b;
    assert_int_equal(am_bvh_parse((const char *)text, size, &b, &err), AM_OK);
    am_joint_map map;
    assert_int_equal(am_joint_map_parse(cmu_map_json, strlen(cmu_map_json), "cmu", &map, &err), AM_OK);
    am_bvh_options o;
    am_bvh_options_init(&o);
    o.map = &map;
    o.loop = true;
    am_anim a;
    am_bvh_stats st;
    assert_int_equal(am_bvh_to_anim(&b, &skel, &o, &a, &st, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "loop guard: joint '"));
    assert_null(a.joints); /* nothing half-built is handed back */
    assert_non_null(strstr(err.msg, "over the tolerance of 10 deg")); /* the default */
    o.loop_tolerance_deg = 180;
    o.loop_tolerance_m = 10;
    assert_int_equal(am_bvh_to_anim(&b, &skel, &o, &a, &st, &err), AM_OK);
    am_anim_seam seam;
    am_anim_loop_seam(&a, &seam);
    /* the seam is real, and closed on request by blending the last keys into the first pose:
     * the change made is the seam there was */
    assert_gt(st.loop.rot_deg, 10);
    assert_gt(st.loop.pos_m, 1);
    assert_true(seam.rot_deg < 0.05);
    assert_true(seam.pos_m < 0.001);
    am_bvh_stats_free(&st);
    am_anim_free(&a);
    am_joint_map_free(&map);
    am_bvh_free(&b);
    am_skeleton_free(&skel);
    free(text);
}

static void test_bad_bvh_is_a_clean_error_naming_the_line(void **state)
{
    (void)state;
    expect_bvh_error("nothing here\n", "HIERARCHY");
    expect_bvh_error(
        "HIERARCHY\nROOT hip\n{\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n}\n"
        "MOTION\nFrames: 3\nFrame Time: 0.1\n0 0 0 0 0 0\n",
        "bvh line 7: 'Frames: 3' announced, but 1 frame line follows");
    expect_bvh_error("HIERARCHY\nROOT hip\n{\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n}\n"
                     "MOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 0 zero 0\n",
                     "line 9");
    expect_bvh_error("HIERARCHY\nROOT hip\n{\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n}\n"
                     "MOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0\n",
                     "too few numbers");
    expect_bvh_error("HIERARCHY\nROOT hip\n{\nCHANNELS 6 Xposition Yposition Zposition Qrotation Xrotation Yrotation\n}\n"
                     "MOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 0 0 0\n",
                     "bad rotation channel");
    expect_bvh_error("HIERARCHY\nROOT hip\n{\n", "no MOTION");
    /* judged as the F32 the viewer keeps: 1e-50 s is 0 s, 1e39 s is infinite */
    expect_bvh_error(
        "HIERARCHY\nROOT hip\n{\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n}\n"
        "MOTION\nFrames: 1\nFrame Time: 1e-50\n0 0 0 0 0 0\n",
        "bvh line 8: Frame Time 1e-50 s is 0 as a 32-bit float");
    expect_bvh_error(
        "HIERARCHY\nROOT hip\n{\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n}\n"
        "MOTION\nFrames: 1\nFrame Time: 1e39\n0 0 0 0 0 0\n",
        "is inf as a 32-bit float");
}

/* A joint name of any length is read whole (it was cut at 79 characters, then skipped as
 * unmapped), so a map naming it finds it. */
static void test_a_long_joint_name_is_read_whole(void **state)
{
    (void)state;
    char name[121], text[2048], map_json[512];
    memset(name, 'J', 120);
    name[120] = '\0';
    snprintf(text, sizeof text,
             "HIERARCHY\nROOT %s\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
             "Yrotation\n}\nMOTION\nFrames: 3\nFrame Time: 0.5\n0 0 0 0 0 0\n0 0 0 10 0 0\n0 0 0 20 0 0\n",
             name);
    am_bvh b;
    am_error err;
    assert_int_equal(am_bvh_parse(text, strlen(text), &b, &err), AM_OK);
    assert_string_equal(b.joints[0].name, name);
    snprintf(map_json, sizeof map_json, "{\"joints\": {\"%s\": \"mPelvis\"}}", name);
    am_joint_map map;
    assert_int_equal(am_joint_map_parse(map_json, strlen(map_json), "map", &map, &err), AM_OK);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_bvh_options o;
    am_bvh_options_init(&o);
    o.map = &map;
    am_anim a;
    am_bvh_stats st;
    assert_int_equal(am_bvh_to_anim(&b, &skel, &o, &a, &st, &err), AM_OK);
    assert_int_equal(st.unmapped, 0);
    assert_int_equal(a.joint_count, 1);
    am_bvh_stats_free(&st);
    am_anim_free(&a);
    am_joint_map_free(&map);
    am_skeleton_free(&skel);
    am_bvh_free(&b);
}

/* Every unmapped joint is listed whole in stats.skipped, however long the list: twelve
 * joints of 56-character names make 694 characters (the list was cut at 511 before). */
static void test_every_skipped_joint_is_listed_whole(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    enum { EXTRA = 12 };
    char names[EXTRA][64];
    am_buf text = {0};
    am_error err = {0};
    assert_int_equal(am_buf_printf(&text, &err,
                                   "HIERARCHY\nROOT hip\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition "
                                   "Zposition Zrotation Xrotation Yrotation\n"),
                     AM_OK);
    for (int i = 0; i < EXTRA; i++) {
        snprintf(names[i], sizeof names[i], "Tail_%s_%02d",
                 "ornament_joint_with_a_long_descriptive_name_from_a_rig", i);
        assert_int_equal(am_buf_printf(&text, &err,
                                       "  JOINT %s\n  {\n    OFFSET 0 1 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                                       "    End Site\n    {\n      OFFSET 0 1 0\n    }\n  }\n",
                                       names[i]),
                         AM_OK);
    }
    assert_int_equal(am_buf_printf(&text, &err, "}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"), AM_OK);
    for (int f = 0; f < 2; f++) {
        assert_int_equal(am_buf_printf(&text, &err, "0 40 %d 0 0 0", f), AM_OK);
        for (int i = 0; i < EXTRA; i++)
            assert_int_equal(am_buf_printf(&text, &err, " 0 0 0"), AM_OK);
        assert_int_equal(am_buf_printf(&text, &err, "\n"), AM_OK);
    }
    am_bvh b;
    assert_int_equal(am_bvh_parse((const char *)text.data, text.size, &b, &err), AM_OK);
    am_anim a;
    am_bvh_stats st;
    assert_int_equal(am_bvh_to_anim(&b, &skel, NULL, &a, &st, &err), AM_OK);
    assert_int_equal(st.unmapped, EXTRA);
    size_t want = 0;
    for (int i = 0; i < EXTRA; i++) {
        assert_non_null(strstr(am_str(&st.skipped), names[i]));
        want += strlen(names[i]) + (i ? 2 : 0);
    }
    assert_int_equal(st.skipped.length, want);
    assert_true(st.skipped.length > 512);
    assert_string_equal(am_str(&st.skipped) + st.skipped.length - strlen(names[EXTRA - 1]), names[EXTRA - 1]);
    am_bvh_stats_free(&st);
    assert_null(st.skipped.data);
    am_anim_free(&a);
    am_bvh_free(&b);
    am_buf_free(&text);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_bvh_converts_as_the_viewer_does),
        cmocka_unit_test(test_cmu_01_01_converts_with_a_joint_map),
        cmocka_unit_test(test_cmu_walk_as_a_loop_is_refused_by_the_loop_guard),
        cmocka_unit_test(test_bad_bvh_is_a_clean_error_naming_the_line),
        cmocka_unit_test(test_a_long_joint_name_is_read_whole),
        cmocka_unit_test(test_every_skipped_joint_is_listed_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
