/* Loops that close (anim.h "Loops that close", issue 28 item 4): the guard names the worst
 * joint with its angle and the key time in seconds; a cycle written without its closing key
 * loops by default, closed one key interval after its last key; --loop blends a larger seam
 * closed up to --loop-tolerance and reports the change, and refuses beyond it saying by how
 * much; a looped clip never jumps at the wrap by more than its own largest step. On clips
 * generated here (BVH, through anim from-model and from-bvh) and on the real Mixamo Walking
 * and Idle with their ends cut. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "readers/scene_load.h"
#include "retarget/retarget.h"
#include "support/test_support.h"

/* ---- generated clips: a small CMU-named body whose hips swing in a cycle ---- */

typedef enum shape {
    CLOSED,   /* frames at p = 0 .. 1: the last pose is the first */
    IMPLICIT, /* frames at p = 0 .. (N-1)/N: the cycle without its closing key */
    DRIFT     /* still at both ends, the left thigh ending `drift` deg from where it starts */
} shape;

#define FRAMES 30
#define FRAME_S (1.0 / 30.0)

static void write_bvh(const char *path, shape sh, double drift_deg)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
          "Yrotation\n"
          " JOINT LeftUpLeg\n {\n  OFFSET 3.5 -3 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "  JOINT LeftLeg\n  {\n   OFFSET 0 -17 0\n   CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "   JOINT LeftFoot\n   {\n    OFFSET 0 -16 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "    End Site\n    {\n     OFFSET 0 -2 5\n    }\n   }\n  }\n }\n"
          " JOINT RightUpLeg\n {\n  OFFSET -3.5 -3 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "  JOINT RightLeg\n  {\n   OFFSET 0 -17 0\n   CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "   JOINT RightFoot\n   {\n    OFFSET 0 -16 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "    End Site\n    {\n     OFFSET 0 -2 5\n    }\n   }\n  }\n }\n"
          " JOINT Spine\n {\n  OFFSET 0 4 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "  JOINT Neck\n  {\n   OFFSET 0 16 0\n   CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "   JOINT Head\n   {\n    OFFSET 0 4 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "    End Site\n    {\n     OFFSET 0 6 0\n    }\n   }\n  }\n"
          "  JOINT LeftArm\n  {\n   OFFSET 6 14 0\n   CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "   JOINT LeftForeArm\n   {\n    OFFSET 10 0 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "    End Site\n    {\n     OFFSET 9 0 0\n    }\n   }\n  }\n"
          "  JOINT RightArm\n  {\n   OFFSET -6 14 0\n   CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "   JOINT RightForeArm\n   {\n    OFFSET -10 0 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
          "    End Site\n    {\n     OFFSET -9 0 0\n    }\n   }\n  }\n }\n}\n",
          f);
    size_t n = sh == CLOSED || sh == DRIFT ? FRAMES + 1 : FRAMES;
    fprintf(f, "MOTION\nFrames: %zu\nFrame Time: %.10f\n", n + 1, FRAME_S);
    /* Zrotation Xrotation Yrotation of the 13 joints below the root, in the HIERARCHY's
     * order: LeftUpLeg LeftLeg LeftFoot RightUpLeg RightLeg RightFoot Spine Neck Head LeftArm
     * LeftForeArm RightArm RightForeArm */
    enum { JOINTS = 13 };
    for (size_t k = 0; k <= n; k++) { /* k = 0: the reference (rest), not played */
        double v[JOINTS][3] = {{0}};
        if (k > 0) {
            double p = (double)(k - 1) / FRAMES, s = sin(2 * AM_PI * p);
            double hipl = 30 * s, hipr = -30 * s, knee = 20 * (1 - cos(2 * AM_PI * p)), arm = 15 * s, neck = 0;
            if (sh == DRIFT) { /* slow at both ends: nothing here is a cycle going on */
                double e = (1 - cos(2 * AM_PI * p)) / 2;
                hipl = 30 * e + drift_deg * p;
                hipr = -30 * e;
                arm = 15 * e;
                neck = 0.3 * p; /* earlier in the joint order, smaller: never the one named */
            }
            v[0][1] = hipl;
            v[1][1] = knee;
            v[3][1] = hipr;
            v[4][1] = knee;
            v[7][1] = neck;
            v[9][0] = -arm;
            v[11][0] = arm;
        }
        fputs("0 36 0 0 0 0", f);
        for (int j = 0; j < JOINTS; j++)
            fprintf(f, " %.6f %.6f %.6f", v[j][0], v[j][1], v[j][2]);
        fputc('\n', f);
    }
    fclose(f);
}

/* The largest step between neighbouring rotation keys of any joint, and the seam as played,
 * of a written file (degrees). */
static void steps_and_seam(const char *path, double *step, double *seam, float *duration)
{
    am_anim a;
    am_error err = {0};
    assert_int_equal(am_anim_load(path, &a, &err), AM_OK);
    *step = 0;
    for (size_t j = 0; j < a.joint_count; j++)
        for (size_t k = 1; k < a.joints[j].rot_count; k++)
            *step = fmax(*step, am_quat_angle_between(a.joints[j].rot_keys[k - 1].rot, a.joints[j].rot_keys[k].rot) *
                                    AM_RAD2DEG);
    am_anim_seam s;
    am_anim_loop_seam(&a, &s);
    *seam = a.loop ? s.rot_deg : -1;
    *duration = a.duration;
    am_anim_free(&a);
}

/* Run the CLI expecting exit code `want`; on another, fail showing what it printed. */
#define RUN(want, out, ...)                                                                                       \
    do {                                                                                                          \
        int rc_ = am_test_run_cli(out, sizeof out, __VA_ARGS__);                                                  \
        if (rc_ != (want))                                                                                        \
            fail_msg("exit %d, expected %d: %s", rc_, (want), out);                                               \
    } while (0)

/* The number after `key` in text. */
static double number_after(const char *text, const char *key)
{
    const char *at = strstr(text, key);
    if (!at)
        fail_msg("'%s' not in: %s", key, text);
    return atof(at + strlen(key));
}

static void test_a_cycle_without_its_closing_key_loops_by_default(void **state)
{
    (void)state;
    char dir[256], bvh[512], dst[512], out[8192];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(bvh, sizeof bvh, "%s/cycle.bvh", dir);
    snprintf(dst, sizeof dst, "%s/cycle.anim", dir);
    write_bvh(bvh, IMPLICIT, 0);
    RUN(0, out, "anim from-model '%s' -o '%s'", bvh, dst);
    assert_non_null(strstr(out, "looping (a cycle without its closing key"));
    /* the seam, one step of a 30 deg swing at 30 frames a cycle (6.3 deg at the thigh, the
     * knee's and the foot's directions adding to it) */
    double seam_before = number_after(out, "the seam, ");
    assert_true(seam_before > 4 && seam_before < 15);
    /* closed one key interval after the last key: the whole cycle, 30 frames, plays */
    assert_non_null(strstr(out, "closed by the first pose 0.0333 s after the last key, at 1.000 s"));
    double step, seam;
    float dur;
    steps_and_seam(dst, &step, &seam, &dur);
    assert_float_equal(dur, 1.0f, 1e-4);
    assert_true(seam >= 0 && seam <= 0.05); /* no jump at the wrap: the last key is the first */
    assert_true(step >= seam_before * 0.8 && step < 15); /* and the steps are the clip's own */
    /* --no-loop never loops */
    RUN(0, out, "anim from-model '%s' --no-loop -o '%s'", bvh, dst);
    assert_non_null(strstr(out, "not looping (--no-loop)"));
    am_test_rmtree(dir);
}

static void test_loop_blends_a_seam_within_the_tolerance(void **state)
{
    (void)state;
    char dir[256], bvh[512], dst[512], out[8192];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(bvh, sizeof bvh, "%s/drift.bvh", dir);
    snprintf(dst, sizeof dst, "%s/drift.anim", dir);
    write_bvh(bvh, DRIFT, 5.0);
    /* by default: not a cycle (still at both ends), so not looping; the guard names the worst
     * joint (the thigh at about 5 deg, not the neck at 0.3 deg that comes first) and the key
     * time in seconds */
    RUN(0, out, "anim from-model '%s' -o '%s'", bvh, dst);
    assert_non_null(strstr(out, "not looping: loop guard: joint 'mHipLeft' ends "));
    double guard = number_after(out, "joint 'mHipLeft' ends ");
    assert_true(guard > 4 && guard < 7);
    assert_non_null(strstr(out, "(the pose at 1.000 s vs 0.000 s;"));
    assert_null(strstr(out, "'mNeck' ends"));
    /* --loop: closed by the blend, the change reported */
    RUN(0, out, "anim from-model '%s' --loop -o '%s'", bvh, dst);
    assert_non_null(strstr(out, "looping (--loop: the seam closed by blending the last 0.250 s into the first pose"));
    double change = number_after(out, "largest change ");
    assert_true(fabs(change - guard) < 0.05); /* the seam it closed */
    assert_non_null(strstr(out, "deg at mHipLeft"));
    double step, seam;
    float dur;
    steps_and_seam(dst, &step, &seam, &dur);
    assert_float_equal(dur, 1.0f, 1e-4);
    assert_true(seam >= 0 && seam <= step); /* never a jump larger than its own largest step */
    assert_true(seam <= 0.05);
    am_test_rmtree(dir);
}

static void test_loop_beyond_the_tolerance_is_refused_saying_by_how_much(void **state)
{
    (void)state;
    char dir[256], bvh[512], dst[512], out[8192];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(bvh, sizeof bvh, "%s/far.bvh", dir);
    snprintf(dst, sizeof dst, "%s/far.anim", dir);
    write_bvh(bvh, DRIFT, 25.0);
    RUN(1, out, "anim from-model '%s' --loop -o '%s'", bvh, dst);
    assert_non_null(strstr(out, "--loop: joint 'mHipLeft' ends "));
    double seam = number_after(out, "--loop: joint 'mHipLeft' ends ");
    assert_true(seam > 20 && seam < 30);
    assert_non_null(strstr(out, "(the key at 1.000 s vs 0 s)"));
    double over = number_after(out, "0 s), ");
    assert_float_equal(over, seam - 10, 0.002);
    assert_non_null(strstr(out, "deg over --loop-tolerance of 10 deg"));
    FILE *none = fopen(dst, "rb");
    assert_null(none);
    /* a larger tolerance takes it */
    RUN(0, out, "anim from-model '%s' --loop --loop-tolerance 30 -o '%s'", bvh,
                                     dst);
    assert_non_null(strstr(out, "looping (--loop: the seam closed by blending"));
    RUN(2, out, "anim from-model '%s' --loop --loop-tolerance x -o '%s'", bvh,
                                     dst);
    assert_non_null(strstr(out, "--loop-tolerance needs an angle in degrees"));
    am_test_rmtree(dir);
}

/* anim from-bvh (the viewer's own conversion) closes the seam the same way with --loop. */
static void test_from_bvh_loop_blends_and_refuses(void **state)
{
    (void)state;
    char dir[256], bvh[512], dst[512], out[8192];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(bvh, sizeof bvh, "%s/drift.bvh", dir);
    snprintf(dst, sizeof dst, "%s/drift.anim", dir);
    write_bvh(bvh, DRIFT, 5.0);
    RUN(0, out, "anim from-bvh '%s' --loop -o '%s'", bvh, dst);
    assert_non_null(strstr(out, "loop: the seam closed by blending the last 0.250 s into the pose at loop-in"));
    double change = number_after(out, "largest change ");
    assert_true(change > 4.5 && change < 5.5); /* the thigh's 5 deg, as the viewer converts it */
    assert_non_null(strstr(out, "deg at mHipLeft"));
    double step, seam;
    float dur;
    steps_and_seam(dst, &step, &seam, &dur);
    assert_true(seam >= 0 && seam <= 0.05);
    /* import --anim X.bvh --loop --align-rest: the viewer's conversion again (a BVH on another
     * skeleton is otherwise retargeted), the closing reported as a finding */
    char bear[1024];
    am_test_shared_path(bear, sizeof bear, "data/realdata/Little Bear_90.dae");
    RUN(0, out, "import '%s' --anim '%s' --loop --align-rest --verbose --out '%s/bear'", bear, bvh, dir);
    assert_non_null(strstr(out, "[motion_loop_closed] motion '"));
    assert_non_null(strstr(out, "--loop: the seam closed by blending the last 0.250 s into the first pose; largest "
                                "change "));
    write_bvh(bvh, DRIFT, 25.0);
    RUN(1, out, "anim from-bvh '%s' --loop -o '%s'", bvh, dst);
    assert_non_null(strstr(out, "loop guard: joint 'mHipLeft' is "));
    assert_non_null(strstr(out, "deg over the tolerance of 10 deg"));
    am_test_rmtree(dir);
}

/* ---- the measure and the blend themselves ---- */

static void test_measure_and_blend(void **state)
{
    (void)state;
    enum { N = 11 };
    double t[N];
    am_quat r0[N], r1[N];
    am_vec3 p1[N];
    for (int i = 0; i < N; i++) {
        t[i] = 0.1 * i;
        /* track 0: a steady turn of 2 deg a key, 20 deg in all: far from closing */
        r0[i] = am_quat_axis_angle(am_v3(0, 0, 1), i * 2.0 * AM_DEG2RAD);
        /* track 1: still, then 3 deg off at the end */
        r1[i] = am_quat_axis_angle(am_v3(1, 0, 0), (i == N - 1 ? 3.0 : 0.0) * AM_DEG2RAD);
        p1[i] = am_v3(0, 0, i == N - 1 ? 0.02 : 0);
    }
    am_loop_track tr[2] = {{N, t, r0, NULL}, {N, t, r1, p1}};
    am_loop_seam s;
    /* a full turn of 20 deg in 10 steps: its seam, 20 deg, is ten steps: not implicit */
    am_loop_measure(tr, 1, 0.1, &s);
    assert_float_equal(s.rot_deg, 20.0, 1e-9);
    assert_float_equal(s.step_deg, 2.0, 1e-9);
    assert_false(s.implicit);
    /* the worst of two is named, with its last key's time */
    am_loop_measure(tr, 2, 0.1, &s);
    assert_int_equal(s.rot_track, 0);
    assert_int_equal(s.pos_track, 1);
    assert_float_equal(s.pos_m, 0.02, 1e-12);
    assert_float_equal(s.rot_at_s, 1.0, 1e-12);
    /* a turn whose seam is one of its steps: implicit */
    for (int i = 0; i < N; i++)
        r0[i] = am_quat_axis_angle(am_v3(0, 0, 1), sin(2 * AM_PI * i / N) * 30 * AM_DEG2RAD);
    am_loop_measure(tr, 1, 0.1, &s);
    assert_true(s.implicit);
    assert_true(s.rot_deg <= s.step_deg * 1.01);
    /* ... and the same with its interval unknown never is */
    am_loop_measure(tr, 1, 0, &s);
    assert_false(s.implicit);
    /* the blend: the last key becomes the first, the keys before the window untouched, the
     * change reported, every step within the original largest step plus the seam's share */
    am_quat keep[N];
    memcpy(keep, r1, sizeof keep);
    am_loop_change ch;
    am_loop_blend(&tr[1], 1, 0.3, &ch);
    assert_float_equal(ch.rot_deg, 3.0, 1e-9);
    assert_float_equal(ch.pos_m, 0.02, 1e-12);
    assert_int_equal(ch.rot_track, 0);
    assert_true(am_quat_angle_between(r1[N - 1], r1[0]) < 1e-9);
    assert_true(am_v3_dist(p1[N - 1], p1[0]) < 1e-12);
    for (int i = 0; i <= 6; i++) /* t < 0.7: before the window */
        assert_true(am_quat_angle_between(r1[i], keep[i]) < 1e-12);
    assert_true(am_quat_angle_between(r1[8], keep[8]) > 0); /* inside it: moved */
}

/* ---- the real Mixamo clips with their ends cut ---- */

static am_skeleton g_skel;

static int setup(void **state)
{
    (void)state;
    am_test_load_viewer_skeleton(&g_skel);
    char p[1024];
    setenv("ANIMESH_SKELETON", am_test_shared_path(p, sizeof p, "viewer/avatar_skeleton.xml"), 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    am_skeleton_free(&g_skel);
    return 0;
}

/* Retarget a real motion file's clip ending at end_s (the keys after it dropped). */
static am_status retarget_cut(const char *rel, double end_frac, int drop_keys, am_loop_mode loop,
                              am_retarget_result *r, double *end_s, am_error *err)
{
    char path[1024];
    am_test_shared_path(path, sizeof path, rel);
    am_scene s;
    assert_int_equal(am_scene_load(path, &s, err), AM_OK);
    assert_true(s.clip_count >= 1);
    am_scene_clip *c = &s.clips[0];
    double frame = 1.0 / 30.0;
    c->end_s = drop_keys ? c->end_s - drop_keys * frame + 1e-4 : c->start_s + end_frac * (c->end_s - c->start_s);
    *end_s = c->end_s;
    am_retarget_options o;
    am_retarget_options_init(&o);
    o.follow_directions = true;
    o.loop = loop;
    am_status st = am_retarget(&s, &g_skel, &o, r, err);
    am_scene_free(&s);
    return st;
}

static void test_walking_without_its_closing_key_still_loops(void **state)
{
    (void)state;
    am_retarget_result r;
    am_error err = {0};
    double end;
    /* Mixamo's Walking ends on its first pose (closed within 0.006 deg); without its last
     * key it is a cycle written without its closing key */
    assert_int_equal(retarget_cut("data/realdata/Walking.fbx", 0, 1, AM_LOOP_AUTO, &r, &end, &err), AM_OK);
    const am_retarget_anim *a = &r.anims[0];
    print_message("Walking without its last key: %s\n", am_str(&a->loop_why));
    assert_true(a->loops);
    assert_non_null(strstr(am_str(&a->loop_why), "a cycle without its closing key"));
    assert_float_equal(a->motion.duration_s, 1.0333, 0.002); /* the whole cycle again */
    am_buf b = {0};
    assert_int_equal(am_retarget_write_anim(&r, 0, &g_skel, NULL, &b, NULL, &err), AM_OK);
    am_anim an;
    assert_int_equal(am_anim_decode(b.data, b.size, &an, &err), AM_OK);
    am_anim_seam s;
    am_anim_loop_seam(&an, &s);
    assert_true(s.rot_deg < 0.05);
    am_anim_free(&an);
    am_buf_free(&b);
    am_retarget_result_free(&r);
}

static void test_idle_cut_short_loops_with_loop_and_reports_the_change(void **state)
{
    (void)state;
    am_retarget_result r;
    am_error err = {0};
    double end;
    /* Idle cut at 80 %: not a cycle any more (it stops mid-sway), so by default it does not loop */
    assert_int_equal(retarget_cut("data/realdata/Idle.fbx", 0.8, 0, AM_LOOP_AUTO, &r, &end, &err), AM_OK);
    print_message("Idle cut at %.3f s: %s\n", end, am_str(&r.anims[0].loop_why));
    assert_false(r.anims[0].loops);
    assert_non_null(strstr(am_str(&r.anims[0].loop_why), "not looping: loop guard: joint '"));
    am_retarget_result_free(&r);
    /* --loop closes it by the blend, reporting the change */
    assert_int_equal(retarget_cut("data/realdata/Idle.fbx", 0.8, 0, AM_LOOP_ON, &r, &end, &err), AM_OK);
    const am_retarget_anim *a = &r.anims[0];
    print_message("with --loop: %s\n", am_str(&a->loop_why));
    assert_true(a->loops);
    assert_non_null(strstr(am_str(&a->loop_why), "the seam closed by blending the last 0.393 s into the first pose"));
    assert_true(a->loop_closed_deg > 1 && a->loop_closed_deg <= 10);
    am_buf b = {0};
    assert_int_equal(am_retarget_write_anim(&r, 0, &g_skel, NULL, &b, NULL, &err), AM_OK);
    am_anim an;
    assert_int_equal(am_anim_decode(b.data, b.size, &an, &err), AM_OK);
    am_anim_seam s;
    am_anim_loop_seam(&an, &s);
    assert_true(s.rot_deg < 0.05);
    am_anim_free(&an);
    am_buf_free(&b);
    am_retarget_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measure_and_blend),
        cmocka_unit_test(test_a_cycle_without_its_closing_key_loops_by_default),
        cmocka_unit_test(test_loop_blends_a_seam_within_the_tolerance),
        cmocka_unit_test(test_loop_beyond_the_tolerance_is_refused_saying_by_how_much),
        cmocka_unit_test(test_from_bvh_loop_blends_and_refuses),
        cmocka_unit_test(test_walking_without_its_closing_key_still_loops),
        cmocka_unit_test(test_idle_cut_short_loops_with_loop_and_reports_the_change),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
