/* A BVH whose zero pose is not the viewer's rest
 * (docs/reference/anim-format.md#bvh-coordinate-conversion: the viewer applies the BVH rotations as
 * if it were): the warning, and --align-rest, measured where it matters: the written .anim, decoded
 * and posed on the viewer skeleton by FK here, against the BVH's own FK of the same frame, both
 * computed in this file (rotation matrices from the frame lines' numbers; the viewer's rest
 * positions and scales), never with the converter's code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/bvh.h"
#include "core/io.h"
#include "map/map_bvh.h"
#include "readers/bvh/bvh_scene.h"
#include "support/bvh_matrix.h"
#include "support/test_support.h"

#define CMU_BVH "/usr/share/assimp/models/BVH/01_01.bvh"

/* SL (x, y, z) -> BVH (y, z, x): the inverse of am_test_bvh_to_sl. */
static am_vec3 from_sl(am_vec3 v) { return am_v3(v.y, v.z, v.x); }

static double angle_deg(am_vec3 a, am_vec3 b)
{
    double c = am_v3_dot(a, b) / (am_v3_len(a) * am_v3_len(b));
    return acos(fmax(-1.0, fmin(1.0, c))) * AM_RAD2DEG;
}

/* --- the BVH's own FK: frame f's numbers read from the text ------------------------------ */

static const char *frame_line(const char *text, size_t f)
{
    const char *p = strstr(text, "Frame Time:");
    assert_non_null(p);
    for (size_t i = 0; i <= f; i++) {
        p = strchr(p, '\n');
        assert_non_null(p);
        p++;
    }
    return p;
}

static m3 channels_rot(const am_bvh_joint *j, const double *v)
{
    /* R_A(a) R_B(b) R_C(c) for the declared order A B C */
    return am_test_m3_mul(am_test_m3_mul(am_test_m3_axis(j->order[0], v[0]), am_test_m3_axis(j->order[1], v[1])), am_test_m3_axis(j->order[2], v[2]));
}

/* Joint world positions (BVH axes) at frame f, the root's rotation taken relative to frame 0
 * and its position held (directions only), as the viewer takes the pelvis (8.5). */
static void bvh_fk(const char *text, const am_bvh *b, size_t f, am_vec3 *pos)
{
    m3 *g = malloc(b->joint_count * sizeof *g);
    assert_non_null(g);
    m3 r0 = am_test_m3_axis('X', 0); /* identity */
    for (int pass = 0; pass < 2; pass++) {
        const char *p = frame_line(text, pass == 0 ? 0 : f);
        for (size_t j = 0; j < b->joint_count; j++) {
            double v[6];
            int n = b->joints[j].channels;
            for (int c = 0; c < n; c++) {
                char *e;
                v[c] = strtod(p, &e);
                assert_true(e != p);
                p = e;
            }
            m3 r = channels_rot(&b->joints[j], v + (n == 6 ? 3 : 0));
            if (pass == 0) {
                if (j == 0)
                    r0 = r;
                continue;
            }
            int par = b->joints[j].parent;
            if (par < 0) {
                g[j] = am_test_m3_mul(am_test_m3_transpose(r0), r);
                pos[j] = am_v3(0, 0, 0);
            } else {
                g[j] = am_test_m3_mul(g[par], r);
                pos[j] = am_v3_add(pos[par], am_test_m3_apply(g[par], b->joints[j].offset));
            }
        }
    }
    free(g);
}

static int bvh_index(const am_bvh *b, const char *name)
{
    for (size_t j = 0; j < b->joint_count; j++)
        if (strcmp(b->joints[j].name, name) == 0)
            return (int)j;
    fail_msg("no BVH joint '%s'", name);
    return -1;
}

/* --- the viewer's FK of the decoded .anim at key k --------------------------------------- */

typedef struct viewer_pose {
    am_quat *rot; /* per skeleton joint: world rotation */
    am_vec3 *pos; /* world position (skeleton-file frame; the pelvis held at rest) */
} viewer_pose;

static void viewer_fk(const am_skeleton *skel, const am_anim *a, size_t k, viewer_pose *vp)
{
    am_quat *local = malloc(skel->joint_count * sizeof *local);
    assert_non_null(local);
    for (size_t i = 0; i < skel->joint_count; i++)
        local[i] = skel->joints[i].rot;
    am_anim_joint_pose *pose = calloc(a->joint_count, sizeof *pose);
    assert_non_null(pose);
    am_anim_eval_curves(a, a->joints[0].rot_keys[k].time, pose);
    for (size_t e = 0; e < a->joint_count; e++) {
        int s = am_skeleton_find(skel, a->joints[e].name);
        assert_ge(s, 0);
        if (pose[e].has_rot)
            local[s] = pose[e].rot;
    }
    /* parents come first (skeleton.h); a child's offset carries its parent's own scale */
    for (size_t i = 0; i < skel->joint_count; i++) {
        int p = skel->joints[i].parent;
        if (p < 0) {
            vp->rot[i] = local[i];
            vp->pos[i] = skel->joints[i].world_pos[AM_FRAME_FILE];
            continue;
        }
        vp->rot[i] = am_quat_mul(vp->rot[p], local[i]);
        vp->pos[i] = am_v3_add(vp->pos[p], am_quat_rotate(vp->rot[p], am_v3_mul(skel->joints[i].pos, skel->joints[p].scale)));
    }
    free(pose);
    free(local);
}

typedef struct bone {
    const char *bvh, *bvh_child, *viewer, *viewer_child;
} bone;

/* The largest angle over the keys (every `step`-th) between each bone in the viewer and
 * in the BVH; out[i] per bone. */
static void bone_angles(const char *text, const am_bvh *b, const am_skeleton *skel, const uint8_t *anim,
                        size_t anim_size, const bone *bones, size_t n, size_t step, double *max_out,
                        double *min_out)
{
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_decode(anim, anim_size, &a, &err), AM_OK);
    viewer_pose vp = {malloc(skel->joint_count * sizeof(am_quat)), malloc(skel->joint_count * sizeof(am_vec3))};
    am_vec3 *bp = malloc(b->joint_count * sizeof *bp);
    assert_true(vp.rot && vp.pos && bp);
    for (size_t i = 0; i < n; i++)
        max_out[i] = 0, min_out[i] = 180;
    size_t keys = a.joints[0].rot_count;
    for (size_t k = 0; k < keys; k += step) {
        viewer_fk(skel, &a, k, &vp);
        bvh_fk(text, b, k + 1, bp); /* key k is frame k + 1 (frame 0: the reference) */
        for (size_t i = 0; i < n; i++) {
            int vj = am_skeleton_find(skel, bones[i].viewer), vc = am_skeleton_find(skel, bones[i].viewer_child);
            am_vec3 dv = am_v3_sub(vp.pos[vc], vp.pos[vj]);
            am_vec3 db = am_test_bvh_to_sl(am_v3_sub(bp[bvh_index(b, bones[i].bvh_child)], bp[bvh_index(b, bones[i].bvh)]));
            double d = angle_deg(dv, db);
            max_out[i] = fmax(max_out[i], d);
            min_out[i] = fmin(min_out[i], d);
        }
    }
    free(vp.rot);
    free(vp.pos);
    free(bp);
    am_anim_free(&a);
}

static void convert(const am_bvh *b, const am_skeleton *skel, bool align, am_buf *out, am_bvh_stats *st)
{
    am_bvh_options o;
    am_bvh_options_init(&o);
    o.align_rest = align;
    am_error err = {0};
    am_anim a;
    am_joint_map map = {0};
    if (!am_bvh_root_is_viewer(b, skel)) {
        assert_int_equal(am_map_suggest_bvh(b, "test.bvh", skel, &map, NULL, &err), AM_OK);
        o.map = &map;
    }
    assert_int_equal(am_bvh_to_anim(b, skel, &o, &a, st, &err), AM_OK);
    assert_int_equal(am_anim_encode(&a, out, &err), AM_OK);
    am_anim_free(&a);
    am_joint_map_free(&map);
}

/* --- a leg splayed 20 degrees ------------------------------------------------------------ */

/* The viewer's bone from joint a to joint b at rest, in BVH axes (inches). */
static am_vec3 viewer_offset(const am_skeleton *skel, const char *a, const char *b)
{
    am_vec3 d = am_v3_sub(skel->joints[am_skeleton_find(skel, b)].world_pos[AM_FRAME_FILE],
                          skel->joints[am_skeleton_find(skel, a)].world_pos[AM_FRAME_FILE]);
    return am_v3_scale(from_sl(d), 1 / 0.02540005);
}

/* Legs whose zero pose is the viewer's rest, except the left thigh: its bone (the lShin
 * OFFSET) turned 20 degrees outward (towards SL +Y, about the forward axis). */
static char *splayed_bvh(const am_skeleton *skel)
{
    am_vec3 lt = viewer_offset(skel, "mPelvis", "mHipLeft"), rt = viewer_offset(skel, "mPelvis", "mHipRight");
    am_vec3 lk = viewer_offset(skel, "mHipLeft", "mKneeLeft"), rk = viewer_offset(skel, "mHipRight", "mKneeRight");
    am_vec3 la = viewer_offset(skel, "mKneeLeft", "mAnkleLeft"), ra = viewer_offset(skel, "mKneeRight", "mAnkleRight");
    /* about SL +X = BVH +Z, +20 deg takes down (SL -Z) towards SL +Y: outward for the left leg */
    lk = am_test_m3_apply(am_test_m3_axis('Z', 20), lk);
    char *t = malloc(8192);
    assert_non_null(t);
    snprintf(t, 8192,
             "HIERARCHY\nROOT hip\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
             "Yrotation\n"
             " JOINT lThigh\n {\n  OFFSET %.6f %.6f %.6f\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
             "  JOINT lShin\n  {\n   OFFSET %.6f %.6f %.6f\n   CHANNELS 3 Xrotation Yrotation Zrotation\n"
             "   JOINT lFoot\n   {\n    OFFSET %.6f %.6f %.6f\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
             "    End Site\n    {\n     OFFSET 0 -1 4\n    }\n   }\n  }\n }\n"
             " JOINT rThigh\n {\n  OFFSET %.6f %.6f %.6f\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
             "  JOINT rShin\n  {\n   OFFSET %.6f %.6f %.6f\n   CHANNELS 3 Zrotation Xrotation Yrotation\n"
             "   JOINT rFoot\n   {\n    OFFSET %.6f %.6f %.6f\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
             "    End Site\n    {\n     OFFSET 0 -1 4\n    }\n   }\n  }\n }\n}\n"
             "MOTION\nFrames: 6\nFrame Time: 0.1\n"
             /* hip xyz, zxy | lThigh zxy | lShin xyz | lFoot | rThigh | rShin | rFoot */
             "0 40 0  0 0 10     0 0 0     0 0 0    0 0 0   0 0 0     0 0 0   0 0 0\n"
             "0 40 0  0 0 10     10 30 -20 45 0 0   0 10 0  -15 20 5  30 0 0  0 0 0\n"
             "1 41 2  5 10 30    -25 -40 15 70 5 -5 10 0 0  20 -35 0  50 0 10 0 5 0\n"
             "2 42 4  -10 20 60  40 10 35  20 -10 0 0 0 0   5 60 -10  80 0 0  5 0 0\n"
             "3 41 6  0 -30 90   -5 80 0   90 0 20  0 0 5   -30 -10 20 10 5 0 0 0 0\n"
             "4 40 8  15 0 120   30 -60 -30 10 0 0  5 5 5   10 45 45  60 0 0  0 0 0\n",
             lt.x, lt.y, lt.z, lk.x, lk.y, lk.z, la.x, la.y, la.z, rt.x, rt.y, rt.z, rk.x, rk.y, rk.z, ra.x, ra.y, ra.z);
    return t;
}

static const bone leg_bones[] = {{"lThigh", "lShin", "mHipLeft", "mKneeLeft"},
                                 {"lShin", "lFoot", "mKneeLeft", "mAnkleLeft"},
                                 {"rThigh", "rShin", "mHipRight", "mKneeRight"},
                                 {"rShin", "rFoot", "mKneeRight", "mAnkleRight"}};

static void test_a_splayed_thigh_is_warned_about_and_aligned(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    char *text = splayed_bvh(&skel);
    am_bvh b;
    am_error err = {0};
    assert_int_equal(am_bvh_parse(text, strlen(text), &b, &err), AM_OK);

    /* Default: the viewer's conversion, and the warning naming the thigh, 20 degrees. */
    am_buf plain = {0}, aligned = {0};
    am_bvh_stats st;
    convert(&b, &skel, false, &plain, &st);
    assert_int_equal(st.rest_off, 1);
    assert_string_equal(am_str(&st.rest[0].joint), "lThigh");
    assert_string_equal(am_str(&st.rest[0].stock), "mHipLeft");
    assert_near(st.rest[0].angle_deg, 20.0, 0.01);
    assert_false(st.rest_aligned);
    char w[1024];
    assert_gt(am_bvh_rest_warning(&st, w, sizeof w), 0);
    assert_non_null(strstr(w, "the BVH's zero pose is not the viewer's rest: lThigh (mHipLeft) 20.0 deg:"));
    assert_non_null(strstr(w, "the align_rest option corrects it"));

    /* The viewer's formula, independently: each non-pelvis key turns a vector v as
     * P R P^-1 does (P: BVH -> SL axes), R from frame k's numbers. */
    am_anim a;
    assert_int_equal(am_anim_decode(plain.data, plain.size, &a, &err), AM_OK);
    int lt = bvh_index(&b, "lThigh");
    size_t e = 0;
    while (e < a.joint_count && strcmp(a.joints[e].name, "mHipLeft"))
        e++;
    assert_lt(e, a.joint_count);
    for (size_t k = 0; k < a.joints[e].rot_count; k++) {
        const char *p = frame_line(text, k + 1);
        double v[24];
        for (int c = 0; c < 24; c++) {
            char *end;
            v[c] = strtod(p, &end);
            p = end;
        }
        m3 r = channels_rot(&b.joints[lt], v + 6);
        am_vec3 probe = am_v3(0.3, -0.5, 0.8);
        am_vec3 want = am_test_bvh_to_sl(am_test_m3_apply(r, from_sl(probe)));
        am_vec3 got = am_quat_rotate(a.joints[e].rot_keys[k].rot, probe);
        assert_lt(am_v3_dist(want, got), 1e-4);
    }
    am_anim_free(&a);

    /* Posed: without the flag the thigh is 20 degrees off the BVH's in every frame, the
     * others (rest = zero pose) agree; with it every bone agrees within 1 degree. */
    double mx[4], mn[4];
    bone_angles(text, &b, &skel, plain.data, plain.size, leg_bones, 4, 1, mx, mn);
    assert_near(mn[0], 20.0, 0.2);
    assert_near(mx[0], 20.0, 0.2);
    for (int i = 1; i < 4; i++)
        assert_lt(mx[i], 0.2);
    am_bvh_stats_free(&st);
    convert(&b, &skel, true, &aligned, &st);
    assert_true(st.rest_aligned);
    assert_non_null((am_bvh_rest_warning(&st, w, sizeof w), strstr(w, "corrected (the align_rest option)")));
    bone_angles(text, &b, &skel, aligned.data, aligned.size, leg_bones, 4, 1, mx, mn);
    for (int i = 0; i < 4; i++)
        assert_lt(mx[i], 1.0);
    print_message("splayed thigh: %.2f deg off without --align-rest, %.3f deg with\n", 20.0, mx[0]);
    am_bvh_stats_free(&st);
    am_buf_free(&plain);
    am_buf_free(&aligned);
    am_bvh_free(&b);
    free(text);
    am_skeleton_free(&skel);
}

/* --- CMU 01_01: splayed thighs and shins, shoulders ------------------------------------ */

static const bone cmu_bones[] = {{"LeftUpLeg", "LeftLeg", "mHipLeft", "mKneeLeft"},
                                 {"RightUpLeg", "RightLeg", "mHipRight", "mKneeRight"},
                                 {"LeftLeg", "LeftFoot", "mKneeLeft", "mAnkleLeft"},
                                 {"RightLeg", "RightFoot", "mKneeRight", "mAnkleRight"},
                                 {"LeftArm", "LeftForeArm", "mShoulderLeft", "mElbowLeft"},
                                 {"LeftForeArm", "LeftHand", "mElbowLeft", "mWristLeft"},
                                 {"RightArm", "RightForeArm", "mShoulderRight", "mElbowRight"},
                                 {"RightForeArm", "RightHand", "mElbowRight", "mWristRight"},
                                 {"LeftShoulder", "LeftArm", "mCollarLeft", "mShoulderLeft"},
                                 {"RightShoulder", "RightArm", "mCollarRight", "mShoulderRight"}};

static void test_cmu_01_01_thighs_follow_the_bvh_with_align_rest(void **state)
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
    am_buf plain = {0}, aligned = {0};
    am_bvh_stats st;
    convert(&b, &skel, false, &plain, &st);
    /* the thighs and shins are listed, each about 20 degrees or more */
    const char *legs[] = {"LeftUpLeg", "RightUpLeg", "LeftLeg", "RightLeg"};
    for (int l = 0; l < 4; l++) {
        size_t i = 0;
        while (i < st.rest_off && strcmp(am_str(&st.rest[i].joint), legs[l]))
            i++;
        assert_lt(i, st.rest_off);
        assert_gt(st.rest[i].angle_deg, 18.0);
    }
    for (size_t i = 1; i < st.rest_off; i++)
        assert_ge(st.rest[i - 1].angle_deg, st.rest[i].angle_deg);
    am_bvh_stats_free(&st);
    convert(&b, &skel, true, &aligned, &st);
    size_t n = sizeof cmu_bones / sizeof *cmu_bones;
    double before[10], after[10], mn[10];
    bone_angles((const char *)text, &b, &skel, plain.data, plain.size, cmu_bones, n, 25, before, mn);
    bone_angles((const char *)text, &b, &skel, aligned.data, aligned.size, cmu_bones, n, 25, after, mn);
    for (size_t i = 0; i < n; i++)
        print_message("%-12s max angle to the BVH's bone: %6.2f deg -> %5.2f deg with --align-rest\n", cmu_bones[i].bvh,
                      before[i], after[i]);
    for (size_t i = 0; i < 4; i++) /* legs: crossed knees before */
        assert_gt(before[i], 18.0);
    for (size_t i = 8; i < 10; i++) /* the collars too */
        assert_gt(before[i], 15.0);
    for (size_t i = 0; i < n; i++)
        assert_lt(after[i], 2.0);
    am_bvh_stats_free(&st);
    am_buf_free(&plain);
    am_buf_free(&aligned);
    am_bvh_free(&b);
    free(text);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_splayed_thigh_is_warned_about_and_aligned),
        cmocka_unit_test(test_cmu_01_01_thighs_follow_the_bvh_with_align_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
