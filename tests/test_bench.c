/* The bench's viewer model, proven on hand-built rigs pushed through the encoder and the
 * decoder (the bench reads bytes), with expected numbers taken from avatar_skeleton.xml's rest positions
 * (docs/reference/viewer-skeleton.md#worked-rest-positions) and hand forward kinematics, never from the bench itself. */
#include "test_bench_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "bench/bench_internal.h"
#include "bench/bench_report.h"

/* docs/reference/viewer-skeleton.md#worked-rest-positions (skeleton-file frame) */
static const am_vec3 P_SF = {0.0, 0.0, 1.067};
static const am_vec3 HIPL_SF = {0.034, 0.127, 1.026};
static const am_vec3 KNEEL_SF = {0.033, 0.081, 0.535};
static const am_vec3 HIPR_SF = {0.034, -0.129, 1.026};

static am_skeleton skel;

static int setup(void **state)
{
    (void)state;
    am_test_load_viewer_skeleton(&skel);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    am_skeleton_free(&skel);
    return 0;
}

static void assert_v3_near(am_vec3 a, am_vec3 b, double tol)
{
    if (am_v3_dist(a, b) > tol)
        fail_msg("(%.6f, %.6f, %.6f) is not within %g of (%.6f, %.6f, %.6f)", a.x, a.y, a.z, tol, b.x, b.y, b.z);
}

static double rest_error(const am_bench *b)
{
    am_bench_stats st;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_rest_error(b, &st, &err), AM_OK);
    return st.max;
}

static void all_to(fx_mesh *m, uint8_t joint)
{
    for (size_t v = 0; v < m->nv; v++)
        fx_weigh(m, v, 0, joint, 1.0);
}

/* A bar centred on c, 0.2 x 0.1 x 0.1 m. */
static void bar_at(fx_mesh *m, am_vec3 c)
{
    fx_bar(m, 2, c.x - 0.1, c.x + 0.1, c.y - 0.05, c.y + 0.05, c.z - 0.05, c.z + 0.05);
}

static void test_standard_export_rests_on_its_bind_positions(void **state)
{
    (void)state;
    fx_mesh m;
    bar_at(&m, KNEEL_SF);
    for (size_t v = 0; v < m.nv; v++) { /* three-way blend so every joint matters */
        fx_weigh(&m, v, 0, 0, 0.2);
        fx_weigh(&m, v, 1, 1, 0.3);
        fx_weigh(&m, v, 2, 2, 0.5);
    }
    fx_skin sk = {.n = 3, .names = {"mPelvis", "mHipLeft", "mKneeLeft"}, .bind_world = {P_SF, HIPL_SF, KNEEL_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    assert_lt(rest_error(&b), 1e-5);
    assert_false(b.pelvis_override_applied);
    assert_v3_near(b.bind_minus_prim, P_SF, 1e-12);
    /* The viewer draws it 1.067 m lower than its bind frame: around the prim. */
    am_bench_set all;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_select(&b, "all", "all", &all, &err), AM_OK);
    float *prim = malloc(3 * b.vertex_count * sizeof *prim);
    assert_int_equal(am_bench_pose_at(&b, -1, 0, prim, NULL, &err), AM_OK);
    am_vec3 cp, cb;
    am_bench_centre(&b, prim, &all, &cp, &cb);
    assert_v3_near(cp, am_v3(0.033, 0.081, 0.535 - 1.067), 1e-4);
    assert_v3_near(cb, KNEEL_SF, 1e-4);
    free(prim);
    am_bench_set_free(&all);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* docs/reference/lessons.md#rule-4, the negative control. A rig whose knee hangs from the PELVIS in its
 * own hierarchy (no hip joint) at K. The viewer's parent of mKneeLeft is mHipLeft. The
 * wrong export computes the knee override against the rig's parent (K - P); the right one
 * against the viewer's parent (K - hip), adding mHipLeft at its default. The same bench
 * must find the wrong one off by |hip default - pelvis| and the right one exact. */
static void test_negative_control_override_from_rig_parent_is_centimetres_off(void **state)
{
    (void)state;
    const am_vec3 K = {0.06, 0.10, 0.50};
    fx_mesh m;
    bar_at(&m, K);
    all_to(&m, 1);
    fx_skin wrong = {.n = 2,
                     .names = {"mPelvis", "mKneeLeft"},
                     .bind_world = {P_SF, K},
                     .with_overrides = true,
                     .override = {P_SF, am_v3_sub(K, P_SF)}};
    am_bench b;
    fx_bench(&m, &wrong, &skel, &b);
    double wrong_err = rest_error(&b);
    am_bench_free(&b);

    fx_mesh_free(&m);
    bar_at(&m, K);
    all_to(&m, 2);
    fx_skin right = {.n = 3,
                     .names = {"mPelvis", "mHipLeft", "mKneeLeft"},
                     .bind_world = {P_SF, HIPL_SF, K},
                     .with_overrides = true,
                     .override = {P_SF, am_v3_sub(HIPL_SF, P_SF), am_v3_sub(K, HIPL_SF)}};
    fx_bench(&m, &right, &skel, &b);
    double right_err = rest_error(&b);
    int knee = am_skeleton_find(&skel, "mKneeLeft"), hip = am_skeleton_find(&skel, "mHipLeft");
    assert_true(b.override_applied[knee]);
    assert_false(b.override_applied[hip]); /* equal to the default: not recorded */
    am_bench_free(&b);
    fx_mesh_free(&m);

    /* |(0.034, 0.127, -0.041)| = 0.13772 m, from the file's pos of mHipLeft */
    assert_gt(wrong_err, 0.01);
    assert_float_equal(wrong_err, sqrt(0.034 * 0.034 + 0.127 * 0.127 + 0.041 * 0.041), 2e-4);
    assert_lt(right_err, 1e-4);
}

static void test_pelvis_override_at_file_height_is_ignored_other_values_lift(void **state)
{
    (void)state;
    fx_mesh m;
    bar_at(&m, P_SF);
    all_to(&m, 0);
    fx_skin sk = {.n = 1, .names = {"mPelvis"}, .bind_world = {P_SF}, .with_overrides = true, .override = {P_SF}};
    am_bench b;
    am_bench_set all;
    am_error err;
    am_error_clear(&err);
    am_vec3 cp;
    float *prim;

    fx_bench(&m, &sk, &skel, &b);
    assert_false(b.pelvis_override_applied);
    prim = malloc(3 * b.vertex_count * sizeof *prim);
    assert_int_equal(am_bench_select(&b, "all", "all", &all, &err), AM_OK);
    assert_int_equal(am_bench_pose_at(&b, -1, 0, prim, NULL, &err), AM_OK);
    am_bench_centre(&b, prim, &all, &cp, NULL);
    assert_v3_near(cp, am_v3(0, 0, 0), 1e-4); /* the pelvis sits AT the prim */
    free(prim);
    am_bench_set_free(&all);
    am_bench_free(&b);

    sk.override[0] = am_v3(0, 0, 1.2);
    fx_bench(&m, &sk, &skel, &b);
    assert_true(b.pelvis_override_applied);
    assert_v3_near(b.bind_minus_prim, am_v3(0, 0, 1.067 - 1.2), 1e-6); /* F32 override */
    prim = malloc(3 * b.vertex_count * sizeof *prim);
    assert_int_equal(am_bench_select(&b, "all", "all", &all, &err), AM_OK);
    assert_int_equal(am_bench_pose_at(&b, -1, 0, prim, NULL, &err), AM_OK);
    am_bench_centre(&b, prim, &all, &cp, NULL);
    assert_v3_near(cp, am_v3(0, 0, 1.2), 1e-4); /* the whole mesh lifted to 1.2 m above the prim */
    free(prim);
    am_bench_set_free(&all);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

static void test_override_threshold_is_a_tenth_of_a_millimetre(void **state)
{
    (void)state;
    fx_mesh m;
    bar_at(&m, HIPL_SF);
    all_to(&m, 1);
    am_vec3 def = am_v3(0.034, 0.127, -0.041);
    fx_skin sk = {.n = 2,
                  .names = {"mPelvis", "mHipLeft"},
                  .bind_world = {P_SF, HIPL_SF},
                  .with_overrides = true,
                  .override = {P_SF, am_v3_add(def, am_v3(0.00005, 0, 0))}};
    int hip = am_skeleton_find(&skel, "mHipLeft");
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    assert_false(b.override_applied[hip]);
    am_bench_free(&b);
    sk.override[1] = am_v3_add(def, am_v3(0.0002, 0, 0));
    fx_bench(&m, &sk, &skel, &b);
    assert_true(b.override_applied[hip]);
    assert_float_equal(b.rest_local_pos[hip].x, 0.0342, 1e-6);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* Hip turned +90 degrees about Y: the knee offset (-0.001, -0.046, -0.491) becomes
 * (-0.491, -0.046, 0.001); with the hip at its runtime position (0.034, 0.127, -0.041)
 * the knee lands at (-0.457, 0.081, -0.040) in the prim frame. */
static void test_rotation_key_turns_the_knee_about_the_hip_as_hand_fk_says(void **state)
{
    (void)state;
    fx_mesh m;
    bar_at(&m, KNEEL_SF);
    all_to(&m, 2);
    fx_skin sk = {.n = 3, .names = {"mPelvis", "mHipLeft", "mKneeLeft"}, .bind_world = {P_SF, HIPL_SF, KNEEL_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_quat q = am_quat_axis_angle(am_v3(0, 1, 0), AM_PI / 2);
    double times[2] = {0, 1};
    am_quat rots[2] = {q, q};
    fx_add_rot_anim(&b, "mHipLeft", times, rots, 2, 1.0, false);
    am_vec3 *joints = malloc(skel.joint_count * sizeof *joints);
    float *prim = malloc(3 * b.vertex_count * sizeof *prim);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_pose_at(&b, 0, 0.5, prim, joints, &err), AM_OK);
    am_vec3 expect = am_v3(-0.457, 0.081, -0.040);
    assert_v3_near(joints[am_skeleton_find(&skel, "mKneeLeft")], expect, 5e-4);
    am_bench_set all;
    assert_int_equal(am_bench_select(&b, "all", "all", &all, &err), AM_OK);
    am_vec3 cp, cb;
    am_bench_centre(&b, prim, &all, &cp, &cb);
    assert_v3_near(cp, expect, 5e-4);
    assert_v3_near(cb, am_v3_add(expect, P_SF), 5e-4);
    /* the bar is rigid on one joint */
    assert_lt(am_bench_rigidity(&b, prim, &all, NULL), 1e-5);
    am_bench_set_free(&all);
    free(prim);
    free(joints);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

static double smoothstep(double a, double c, double x)
{
    double t = (x - a) / (c - a);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return t * t * (3 - 2 * t);
}

/* The bend box's geometry and fold (docs/reference/bendbox-test.md) with the hips overridden onto the box
 * origin O: at 90 degrees the tip stays rigid and its end centre sits 2 m above O; at 45
 * degrees (the nlerp midpoint of the keys) at O + 2 (cos 45, 0, sin 45). */
static void test_fold_keeps_the_tip_rigid_and_lifts_its_end(void **state)
{
    (void)state;
    const am_vec3 O = {0, 0, 0.6};
    fx_mesh m;
    fx_bar(&m, 8, -2, 2, -1, 1, O.z - 0.5, O.z + 0.5);
    for (size_t v = 0; v < m.nv; v++) {
        double s = smoothstep(-1, 1, m.pos[3 * v]);
        int k = 0;
        if (s > 0)
            fx_weigh(&m, v, k++, 0, s);
        if (s < 1)
            fx_weigh(&m, v, k, 1, 1 - s);
    }
    am_vec3 off = am_v3_sub(O, P_SF);
    fx_skin sk = {.n = 2,
                  .names = {"mHipLeft", "mHipRight"},
                  .bind_world = {O, O},
                  .with_overrides = true,
                  .override = {off, off}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    assert_lt(rest_error(&b), 1e-4);
    double times[3] = {0, 3, 6};
    am_quat id = am_quat_identity(), fold = am_quat_axis_angle(am_v3(0, 1, 0), -AM_PI / 2);
    am_quat rots[3] = {id, fold, id};
    fx_add_rot_anim(&b, "mHipLeft", times, rots, 3, 6.0, true);

    am_bench_set tip, end;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_select(&b, "tip", "x>=1", &tip, &err), AM_OK);
    assert_int_equal(am_bench_select(&b, "end", "x=2", &end, &err), AM_OK);
    assert_int_equal(tip.count, 4 * 3); /* rings at x = 1, 1.5, 2 */
    assert_int_equal(end.count, 4);
    am_bench_set sets[2] = {tip, end};
    am_bench_pose_report r;
    assert_int_equal(am_bench_pose_report_at(&b, 0, 3.0, sets, 2, &r, &err), AM_OK);
    assert_lt(r.sets[0].rigidity_m, 1e-4);
    assert_v3_near(r.sets[1].centre_bind, am_v3(0, 0, O.z + 2), 2e-3);
    /* the "hips" hold the -X/+X halves, not the +Y/-Y sides: no cross-side leak figure */
    assert_false(b.sides_follow_y);
    assert_int_equal(r.leak.side, AM_SIDE_LEFT);
    assert_false(r.leak.applies);
    assert_v3_near(r.sets[1].centre_prim, am_v3(0, 0, O.z + 2 - 1.067), 2e-3);
    /* the far top corner (2, y, +0.5 from O) goes to (-0.5, y, 2): |(-2.5, 0, 1.5)| */
    assert_float_equal(r.displacement.max, sqrt(2.5 * 2.5 + 1.5 * 1.5), 2e-3);
    am_bench_pose_report_free(&r);
    assert_int_equal(am_bench_pose_report_at(&b, 0, 1.5, sets, 2, &r, &err), AM_OK);
    double c = 2 * cos(AM_PI / 4);
    assert_v3_near(r.sets[1].centre_bind, am_v3(c, 0, O.z + c), 2e-3);
    am_bench_pose_report_free(&r);
    /* looping: t = 7.5 plays t = 1.5 again */
    assert_int_equal(am_bench_pose_report_at(&b, 0, 7.5, sets, 2, &r, &err), AM_OK);
    assert_v3_near(r.sets[1].centre_bind, am_v3(c, 0, O.z + c), 2e-3);
    am_bench_pose_report_free(&r);
    am_bench_set_free(&tip);
    am_bench_set_free(&end);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* The JSON report (bench/bench_report.h) holds the bench's own figures: the fold of the
 * test above, posed at its three key times (3 <= 16: every key time), then at --time 3 alone
 * with a rest limit; the end ring's centre where the fold puts it (z = O.z + 2 at t = 3). */
static void test_the_json_report_holds_the_benchs_figures(void **state)
{
    (void)state;
    const am_vec3 O = {0, 0, 0.6};
    fx_mesh m;
    fx_bar(&m, 8, -2, 2, -1, 1, O.z - 0.5, O.z + 0.5);
    for (size_t v = 0; v < m.nv; v++) {
        double s = smoothstep(-1, 1, m.pos[3 * v]);
        int k = 0;
        if (s > 0)
            fx_weigh(&m, v, k++, 0, s);
        if (s < 1)
            fx_weigh(&m, v, k, 1, 1 - s);
    }
    am_vec3 off = am_v3_sub(O, P_SF);
    fx_skin sk = {.n = 2, .names = {"mHipLeft", "mHipRight"}, .bind_world = {O, O}, .with_overrides = true,
                  .override = {off, off}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    double keys[3] = {0, 3, 6};
    am_quat id = am_quat_identity(), fold = am_quat_axis_angle(am_v3(0, 1, 0), -AM_PI / 2);
    am_quat rots[3] = {id, fold, id};
    fx_add_rot_anim(&b, "mHipLeft", keys, rots, 3, 6.0, true);
    am_bench_set end;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_select(&b, "end", "x=2", &end, &err), AM_OK);

    am_bench_report_options o = {.sets = &end, .set_count = 1}; /* no rest judgement */
    char *text;
    am_bench_stats rest;
    assert_int_equal(am_bench_report_json(&b, &o, &text, &rest, &err), AM_OK);
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "vertices")), b.vertex_count);
    assert_int_equal(json_integer_value(json_object_get(doc, "triangles")), b.triangle_count);
    json_t *re = json_object_get(doc, "rest_error");
    assert_near(json_real_value(json_object_get(re, "max_m")), rest_error(&b), 1e-9);
    assert_null(json_object_get(re, "pass"));
    json_t *skin = json_object_get(doc, "skin");
    assert_int_equal(json_integer_value(json_object_get(skin, "joint_count")), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(skin, "joints"), 0), "name")),
                        "mHipLeft");
    json_t *motion = json_array_get(json_object_get(doc, "motions"), 0);
    json_t *poses = json_object_get(motion, "poses");
    assert_int_equal(json_array_size(poses), 3);
    json_t *at3 = json_array_get(poses, 1);
    /* a key time is a U16 of the duration in the .anim: 3 s comes back within 6 s / 65535 */
    assert_near(json_real_value(json_object_get(at3, "t")), 3.0, 6.0 / 65535);
    json_t *centre = json_object_get(json_array_get(json_object_get(at3, "sets"), 0), "centre_bind");
    assert_near(json_real_value(json_array_get(centre, 2)), O.z + 2, 2e-3);
    assert_non_null(json_object_get(doc, "rest_pose"));
    assert_null(json_object_get(doc, "png_strip"));
    json_decref(doc);
    free(text);

    double at[1] = {3.0};
    o.times = at;
    o.time_count = 1;
    o.max_rest_error = 1e-3;
    o.strip_path = "strip.png";
    o.strip_frames = 5;
    o.strip_view = "side";
    assert_int_equal(am_bench_report_json(&b, &o, &text, NULL, &err), AM_OK);
    doc = json_loads(text, 0, &je);
    assert_non_null(doc);
    assert_true(json_is_true(json_object_get(json_object_get(doc, "rest_error"), "pass")));
    poses = json_object_get(json_array_get(json_object_get(doc, "motions"), 0), "poses");
    assert_int_equal(json_array_size(poses), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "png_strip"), "frames")), 5);
    json_decref(doc);
    free(text);
    am_bench_set_free(&end);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* docs/reference/viewer-skeleton.md#animesh-placement: mRoot takes bind_rot = inverse of the bind
 * shape's rotation, so a bind shape rotated 90 degrees about Z is undone in the prim frame: with
 * the standard inverse binds, prim = R^-1 (R S v + t - P) = S v + R^-1 (t - P) for a stored
 * vertex v.
 * LLSkinningUtil::getUnscaledQuaternion normalises the rows first, so a bind shape that
 * also scales (S = (2, 3, 4)) gives the same bind_rot exactly. */
static void check_bind_rot(am_vec3 scale)
{
    fx_mesh m;
    bar_at(&m, P_SF);
    all_to(&m, 0);
    am_quat rz = am_quat_axis_angle(am_v3(0, 0, 1), AM_PI / 2);
    am_vec3 t = am_v3(0.1, 0.2, 0.3);
    fx_skin sk = {.n = 1, .names = {"mPelvis"}, .bind_world = {P_SF}, .has_bind_shape = true};
    sk.bind_shape = am_mat4_from_trs(t, rz, scale);
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    assert_near(am_quat_angle_between(b.root_rot, am_quat_conj(rz)), 0, 1e-9);
    /* a prim-frame point maps back to the bind frame through that rotation */
    assert_v3_near(am_bench_prim_to_bind(&b, am_v3(1, 0, 0)), am_v3(0, 1, 1.067), 1e-9);
    assert_lt(rest_error(&b), 1e-4);
    float *prim = malloc(3 * b.vertex_count * sizeof *prim);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_pose_at(&b, -1, 0, prim, NULL, &err), AM_OK);
    am_vec3 shift = am_quat_rotate(am_quat_conj(rz), am_v3_sub(t, P_SF));
    for (size_t v = 0; v < b.vertex_count; v++) {
        am_vec3 stored = am_v3(b.asset.lods[AM_LOD_HIGH].faces[0].positions[3 * v],
                               b.asset.lods[AM_LOD_HIGH].faces[0].positions[3 * v + 1],
                               b.asset.lods[AM_LOD_HIGH].faces[0].positions[3 * v + 2]);
        assert_v3_near(am_v3(prim[3 * v], prim[3 * v + 1], prim[3 * v + 2]), am_v3_add(am_v3_mul(scale, stored), shift),
                       1e-5);
    }
    free(prim);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

static void test_bind_rot_undoes_the_bind_shape_rotation(void **state)
{
    (void)state;
    check_bind_rot(am_v3(1, 1, 1));
    check_bind_rot(am_v3(2, 3, 4));
}

/* docs/reference/mesh-asset.md#joint-names-in-the-viewer: an unknown joint name resolves to joint number 0 (mPelvis). */
static void test_unknown_joint_name_follows_the_pelvis(void **state)
{
    (void)state;
    fx_mesh m;
    bar_at(&m, KNEEL_SF);
    all_to(&m, 1);
    fx_skin sk = {.n = 2, .names = {"mPelvis", "mNotAJoint"}, .bind_world = {P_SF, P_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_bench_weights w;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_weight_report(&b, &w, &err), AM_OK);
    assert_int_equal(w.unknown_joint_names, 1);
    am_quat q = am_quat_axis_angle(am_v3(0, 0, 1), 0.7);
    double times[1] = {0};
    fx_add_rot_anim(&b, "mPelvis", times, &q, 1, 1.0, false);
    float *prim = malloc(3 * b.vertex_count * sizeof *prim);
    assert_int_equal(am_bench_pose_at(&b, 0, 0.0, prim, NULL, &err), AM_OK);
    /* rotation about the pelvis (at the prim) of the rest position */
    for (size_t v = 0; v < b.vertex_count; v++) {
        am_vec3 rest = am_v3_sub(am_v3(b.bind_pos[3 * v], b.bind_pos[3 * v + 1], b.bind_pos[3 * v + 2]), P_SF);
        am_vec3 expect = am_quat_rotate(am_quat_normalize(q), rest);
        assert_v3_near(am_v3(prim[3 * v], prim[3 * v + 1], prim[3 * v + 2]), expect, 3e-4);
    }
    free(prim);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

static void test_weight_report_counts_what_quality_md_defines(void **state)
{
    (void)state;
    fx_mesh m;
    fx_bar(&m, 3, -0.5, 0.5, -0.1, 0.1, 0.9, 1.1);
    all_to(&m, 0);
    m.count[0] = 0; /* unweighted: an empty list */
    m.weight[0] = 0;
    m.weight[4 * 1] = 0.5; /* sums to 0.5: sum_dev */
    fx_weigh(&m, 2, 0, 0, 0.5);
    fx_weigh(&m, 2, 1, 1, 0.3);
    fx_weigh(&m, 2, 2, 2, 0.2); /* three influences, sums to 1 */
    fx_skin sk = {.n = 3, .names = {"mPelvis", "mHipLeft", "mHipRight"}, .bind_world = {P_SF, HIPL_SF, HIPR_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_bench_weights w;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_weight_report(&b, &w, &err), AM_OK);
    assert_int_equal(w.vertices, m.nv);
    assert_int_equal(w.unweighted, 1);
    assert_int_equal(w.sum_dev, 1);
    assert_int_equal(w.max_influences, 3);
    assert_int_equal(w.influence_histogram[0], 1);
    assert_int_equal(w.influence_histogram[3], 1);
    assert_int_equal(w.influence_histogram[1], m.nv - 2);
    assert_int_equal(w.bad_joint_index, 0);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

static int cmp_ratio(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A long bar (1500 segments, 18,000 edges: enough for the percentiles' sampled bound) with
 * the hip's weight zigzagging along it: p1 and p99 are exactly the nearest-rank values of
 * every edge ratio sorted here. */
static void test_strain_percentiles_are_the_nearest_rank_values(void **state)
{
    (void)state;
    fx_mesh m;
    int nx = 1500;
    fx_bar(&m, nx, -0.5, 0.5, -0.1, 0.1, 0.9, 1.1);
    for (size_t v = 0; v < m.nv; v++) {
        double w = fmod((double)(v / 4) * 0.037, 1.0);
        fx_weigh(&m, v, 0, 0, 1.0 - w);
        fx_weigh(&m, v, 1, 1, w);
    }
    fx_skin sk = {.n = 2, .names = {"mPelvis", "mHipLeft"}, .bind_world = {P_SF, HIPL_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    int hip = am_skeleton_find(&skel, "mHipLeft");
    am_bench_local loc = {.joint = hip, .has_pos = true, .pos = am_v3(0.034 + 0.3, 0.127 + 0.2, -0.041)};
    float *posed = malloc(3 * b.vertex_count * sizeof *posed);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_pose_locals(&b, &loc, 1, posed, NULL, &err), AM_OK);
    am_bench_strain st;
    assert_int_equal(am_bench_strain_report(&b, posed, &st, &err), AM_OK);
    size_t n = b.edge_count;
    assert_true(n >= 12 * (size_t)nx);
    double *r = malloc(n * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        const float *p = &posed[3 * b.edges[2 * i]], *q = &posed[3 * b.edges[2 * i + 1]];
        double dx = (double)p[0] - q[0], dy = (double)p[1] - q[1], dz = (double)p[2] - q[2];
        r[i] = sqrt(dx * dx + dy * dy + dz * dz) / b.edge_rest[i];
    }
    qsort(r, n, sizeof *r, cmp_ratio);
    assert_true(r[0] < r[n - 1]); /* the ratios differ */
    assert_true(st.p99 == r[(size_t)ceil(0.99 * (double)n) - 1]);
    assert_true(st.p1 == r[(size_t)ceil(0.01 * (double)n) - 1]);
    free(r);
    free(posed);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* A one-segment bar, ring x=-0.5 on mPelvis, ring x=+0.5 on mHipLeft. Moving the hip by d
 * along X stretches the 4 long edges to 1 + d and the 4 side diagonals (0.2 wide) to
 * sqrt((1 + d)^2 + 0.04) / sqrt(1.04); the 10 ring/cap edges keep their length. */
static void test_strain_counts_edges_stretched_past_1_6(void **state)
{
    (void)state;
    fx_mesh m;
    fx_bar(&m, 1, -0.5, 0.5, -0.1, 0.1, 0.9, 1.1);
    for (size_t v = 0; v < m.nv; v++)
        fx_weigh(&m, v, 0, m.pos[3 * v] > 0 ? 1 : 0, 1.0);
    /* the diagonals reach sqrt(4.04) / sqrt(1.04) = 1.971: also outside */
    fx_skin sk = {.n = 2, .names = {"mPelvis", "mHipLeft"}, .bind_world = {P_SF, HIPL_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    int hip = am_skeleton_find(&skel, "mHipLeft");
    am_bench_local loc = {.joint = hip, .has_pos = true, .pos = am_v3(0.034 + 1.0, 0.127, -0.041)};
    float *rest = malloc(3 * b.vertex_count * sizeof *rest), *posed = malloc(3 * b.vertex_count * sizeof *posed);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_pose_locals(&b, NULL, 0, rest, NULL, &err), AM_OK);
    assert_int_equal(am_bench_pose_locals(&b, &loc, 1, posed, NULL, &err), AM_OK);
    am_bench_strain st;
    assert_int_equal(am_bench_strain_report(&b, posed, &st, &err), AM_OK);
    assert_int_equal(st.edges, 18);
    assert_float_equal(st.min, 1.0, 1e-4);
    assert_float_equal(st.max, 2.0, 1e-4); /* the long edges */
    assert_float_equal(st.p99, 2.0, 1e-4);
    assert_float_equal(st.share_outside, 8.0 / 18.0, 1e-9);
    am_bench_stats d;
    assert_int_equal(am_bench_displacement(&b, rest, posed, &d, &err), AM_OK);
    assert_float_equal(d.max, 1.0, 1e-5);
    assert_float_equal(d.mean, 0.5, 1e-5);
    /* one-sided (a Left joint moved): leak on the right side (y < -1% H) */
    assert_int_equal(am_bench_locals_side(&b, &loc, 1), AM_SIDE_LEFT);
    free(rest);
    free(posed);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentiles are found by selection, not a full sort: the k-th smallest equals the sorted
 * array's k-th for every k, on data with long runs of equal values (a rigid part's edges all
 * measure exactly 1) and on distinct values. */
static void test_selection_gives_the_sorted_rank(void **state)
{
    (void)state;
    enum { N = 257 };
    double v[N], sorted[N], work[N];
    uint32_t seed = 7;
    for (int kind = 0; kind < 3; kind++) {
        for (int i = 0; i < N; i++) {
            seed = seed * 1664525u + 1013904223u;
            v[i] = kind == 0 ? (double)(seed >> 8) : kind == 1 ? (double)((seed >> 8) % 3) : 1.0;
        }
        memcpy(sorted, v, sizeof v);
        qsort(sorted, N, sizeof *sorted, cmp_dbl);
        for (size_t k = 0; k < N; k++) {
            memcpy(work, v, sizeof v);
            assert_true(am_bench_select_kth(work, N, k) == sorted[k]);
            for (size_t i = 0; i < k; i++) /* and the smaller ones come first */
                assert_le(work[i], sorted[k]);
        }
    }
}

/* Right-side vertices on mHipRight, except one given 10% of mHipLeft: turning the left hip
 * leaks into it by 10% of the full motion (docs/reference/quality-figures.md cross-side leak). */
static void test_cross_side_leak_measures_the_right_vertex_a_left_bone_drags(void **state)
{
    (void)state;
    fx_mesh m;
    fx_bar(&m, 2, 0.0, 0.2, -0.3, 0.3, 0.9, 1.1);
    size_t victim = 0; /* ring 0, corner (y0, z0): y = -0.3 */
    for (size_t v = 0; v < m.nv; v++)
        fx_weigh(&m, v, 0, m.pos[3 * v + 1] > 0 ? 1 : 2, 1.0);
    m.weight[4 * victim] = 0.9;
    fx_weigh(&m, victim, 1, 1, 0.1);
    fx_skin sk = {.n = 3, .names = {"mPelvis", "mHipLeft", "mHipRight"}, .bind_world = {P_SF, HIPL_SF, HIPR_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_bench_weights w;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_weight_report(&b, &w, &err), AM_OK);
    assert_float_equal(w.cross_side_weight, 0.1, 1e-3);
    assert_int_equal(w.cross_side_vertex, victim);
    assert_true(b.sides_follow_y);

    int hip = am_skeleton_find(&skel, "mHipLeft");
    am_quat q = am_quat_axis_angle(am_v3(1, 0, 0), 0.5);
    am_bench_local loc = {.joint = hip, .has_rot = true, .rot = q};
    float *rest = malloc(3 * b.vertex_count * sizeof *rest), *posed = malloc(3 * b.vertex_count * sizeof *posed);
    assert_int_equal(am_bench_pose_locals(&b, NULL, 0, rest, NULL, &err), AM_OK);
    assert_int_equal(am_bench_pose_locals(&b, &loc, 1, posed, NULL, &err), AM_OK);
    am_bench_leak leak;
    am_bench_cross_side_leak(&b, am_bench_locals_side(&b, &loc, 1), rest, posed, &leak);
    assert_true(leak.applies);
    assert_int_equal(leak.argmax, victim);
    /* hand: the vertex turned about the hip (bind frame) moves by |R(v - H) - (v - H)| */
    am_vec3 v = am_v3(m.pos[0], m.pos[1], m.pos[2]);
    am_vec3 rel = am_v3_sub(v, HIPL_SF);
    double full = am_v3_dist(am_quat_rotate(q, rel), rel);
    assert_float_equal(leak.max_m, 0.1 * full, 2e-3 * full);
    assert_float_equal(leak.max_h, leak.max_m / 0.2, 1e-3);
    free(rest);
    free(posed);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

static void test_vertex_set_expressions_and_their_errors(void **state)
{
    (void)state;
    fx_mesh m;
    fx_bar(&m, 4, -2, 2, -1, 1, 0, 1);
    all_to(&m, 0);
    fx_skin sk = {.n = 1, .names = {"mPelvis"}, .bind_world = {P_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_bench_set s;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_select(&b, "a", "x>=1", &s, &err), AM_OK);
    assert_int_equal(s.count, 8);
    am_bench_set_free(&s);
    assert_int_equal(am_bench_select(&b, "b", "x>-2, y<0 ,z<=0", &s, &err), AM_OK);
    assert_int_equal(s.count, 4);
    am_bench_set_free(&s);
    /* a name and an expression longer than the 64 and 128 characters a set once held */
    char name[201], expr[400];
    memset(name, 'n', 200);
    name[200] = '\0';
    snprintf(expr, sizeof expr, "x>-2.%0100d, y<0.%0100d ,z<=0.%0100d", 0, 0, 0);
    assert_true(strlen(expr) > 300);
    assert_int_equal(am_bench_select(&b, name, expr, &s, &err), AM_OK);
    assert_int_equal(s.count, 4);
    assert_int_equal(s.name.length, 200);
    assert_string_equal(am_str(&s.name), name);
    assert_string_equal(am_str(&s.expr), expr);
    am_bench_set_free(&s);
    assert_null(s.name.data);
    assert_int_equal(am_bench_select(&b, "c", "w>1", &s, &err), AM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "w>1"));
    assert_int_equal(am_bench_select(&b, "d", "x>>1", &s, &err), AM_ERR_USAGE);
    assert_int_equal(am_bench_select(&b, "e", "x>5", &s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "selects no vertex"));
    am_bench_free(&b);
    fx_mesh_free(&m);
}

static void test_bad_bytes_fail_cleanly(void **state)
{
    (void)state;
    fx_mesh m;
    bar_at(&m, P_SF);
    all_to(&m, 0);
    fx_skin sk = {.n = 1, .names = {"mPelvis"}, .bind_world = {P_SF}};
    am_buf bytes;
    fx_encode(&m, &sk, &bytes);
    am_bench b;
    am_error err;
    am_error_clear(&err);
    for (size_t cut = 0; cut < bytes.size; cut += bytes.size / 16 + 1) {
        am_status s = am_bench_load_mem(bytes.data, cut, "cut.llmesh", &skel, NULL, &b, &err);
        if (s == AM_OK) /* a prefix may still hold every block the bench needs */
            am_bench_free(&b);
        else
            assert_true(err.msg[0] != '\0');
    }
    am_buf_free(&bytes);
    assert_int_equal(am_bench_load("/nonexistent/x.llmesh", NULL, 0, &skel, NULL, &b, &err), AM_ERR_IO);
    am_bench_options lod = {.lod = AM_BENCH_LOD(AM_LOD_LOW)};
    fx_encode(&m, &sk, &bytes);
    assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "x", &skel, &lod, &b, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "LOD 1 is absent"));
    am_buf_free(&bytes);
    /* an inverse bind no viewer could use: refused by name, never posed */
    sk.bind_world[0] = am_v3(0, 0, -1e7);
    fx_encode(&m, &sk, &bytes);
    assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "huge.llmesh", &skel, NULL, &b, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "inverse_bind_matrix[0] (mPelvis)"));
    am_buf_free(&bytes);
    fx_mesh_free(&m);
}

/* 110-joint palette: a vertex on joint 111 is drawn with palette entry 109 (the shader's
 * clamp). The encoder refuses > 110 names, so this one is built as a decoded asset. */
static void test_joint_index_beyond_110_uses_entry_109(void **state)
{
    (void)state;
    am_mesh_asset a;
    memset(&a, 0, sizeof a);
    a.lods[AM_LOD_HIGH].faces = calloc(1, sizeof(am_mesh_face));
    a.lods[AM_LOD_HIGH].face_count = 1;
    am_mesh_face *f = a.lods[AM_LOD_HIGH].faces;
    f->vertex_count = 3;
    f->positions = calloc(9, sizeof(float));
    f->positions[3] = 1;
    f->positions[7] = 1;
    f->index_count = 3;
    f->indices = malloc(3 * sizeof(uint16_t));
    f->indices[0] = 0;
    f->indices[1] = 1;
    f->indices[2] = 2;
    f->has_weights = true;
    f->weight_count = malloc(3);
    f->weight_joint = calloc(12, 1);
    f->weight_code = calloc(12, sizeof(uint16_t));
    for (int v = 0; v < 3; v++) {
        f->weight_count[v] = 1;
        f->weight_joint[4 * v] = 111;
        f->weight_code[4 * v] = 65535;
    }
    a.has_skin = true;
    a.skin.joint_count = 112;
    a.skin.joint_names = calloc(112, sizeof(char *));
    a.skin.inverse_bind = calloc(112, sizeof(am_mat4));
    for (int i = 0; i < 112; i++) {
        a.skin.joint_names[i] = fx_strdup(skel.joints[i].name);
        /* each IBM a distinct translation so the chosen entry shows */
        a.skin.inverse_bind[i] = am_mat4_translation(am_v3(i, 0, 0));
    }
    a.skin.bind_shape = am_mat4_identity();
    am_bench b;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_from_decoded(&a, "clamp", &skel, NULL, &b, &err), AM_OK);
    assert_int_equal(b.palette_count, 110);
    float prim[9];
    am_vec3 *joints = malloc(skel.joint_count * sizeof *joints);
    assert_int_equal(am_bench_pose_at(&b, -1, 0, prim, joints, &err), AM_OK);
    /* vertex 0 at the origin: IBM_109 moves it by +109 in x, then joint 109's world */
    am_vec3 j109 = joints[b.skin_joint[109]];
    assert_float_equal(prim[0], 109 + j109.x, 1e-4);
    assert_float_equal(prim[2], j109.z, 1e-4);
    am_bench_weights w;
    assert_int_equal(am_bench_weight_report(&b, &w, &err), AM_OK);
    assert_int_equal(w.beyond_palette, 3);
    free(joints);
    am_bench_free(&b);
}

/* A real upload (Hippolyzer's test .slm): one joint, mPelvis, inverse bind translation
 * z -1.067, no overrides: the viewer draws it on its bind positions (bind frame). */
static void test_real_uploaded_asset_rests_on_its_bind_positions(void **state)
{
    (void)state;
    char path[4096];
    am_bench b;
    am_error err;
    am_error_clear(&err);
    am_status s = am_bench_load(am_test_shared_path(path, sizeof path, "data/mesh/hippolyzer-testslm.slm"), NULL, 0,
                                &skel, NULL, &b, &err);
    if (s) {
        char buf[512];
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    }
    assert_gt(b.vertex_count, 0);
    assert_int_equal(b.skin_joint_count, 1);
    assert_false(b.overrides_honoured);
    double e = rest_error(&b);
    assert_lt(e, 1e-4);
    am_bench_free(&b);
}

/* docs/reference/mesh-asset.md#joint-names-in-the-viewer: joint names resolve through the viewer's aliases ("hip" = mPelvis,
 * "avatar_mHipLeft", "lFoot" = mAnkleLeft) and an alias's override moves the canonical
 * joint: the ankle 1 cm forward of its default offset under the knee (not in the skin,
 * so at its default (-0.001, -0.046, -0.491) under the hip). */
static void test_alias_names_resolve_and_carry_their_overrides(void **state)
{
    (void)state;
    const am_vec3 ankle_bind = {0.033 - 0.029 + 0.01, 0.081 + 0.001, 0.535 - 0.468};
    fx_mesh m;
    bar_at(&m, ankle_bind);
    all_to(&m, 2);
    fx_skin sk = {.n = 3,
                  .names = {"hip", "avatar_mHipLeft", "lFoot"},
                  .bind_world = {P_SF, HIPL_SF, ankle_bind},
                  .with_overrides = true,
                  .override = {P_SF, am_v3(0.034, 0.127, -0.041), am_v3(-0.019, 0.001, -0.468)}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    int pelvis = am_skeleton_find_exact(&skel, "mPelvis"), hip = am_skeleton_find_exact(&skel, "mHipLeft"),
        ankle = am_skeleton_find_exact(&skel, "mAnkleLeft");
    assert_int_equal(b.skin_joint[0], pelvis);
    assert_int_equal(b.skin_joint[1], hip);
    assert_int_equal(b.skin_joint[2], ankle);
    assert_true(b.skin_joint_known[2]);
    assert_true(b.override_applied[ankle]);
    assert_false(b.override_applied[hip]);
    assert_false(b.pelvis_override_applied);
    assert_float_equal(b.rest_local_pos[ankle].x, -0.019, 1e-6);
    assert_lt(rest_error(&b), 1e-4);
    am_vec3 *joints = malloc(skel.joint_count * sizeof *joints);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_pose_at(&b, -1, 0, NULL, joints, &err), AM_OK);
    /* prim frame: the bind position lowered by mPelvis's 1.067 */
    assert_v3_near(joints[ankle], am_v3(ankle_bind.x, ankle_bind.y, ankle_bind.z - 1.067), 1e-6);
    free(joints);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

/* docs/reference/viewer-skeleton.md#rest-transforms: a joint's scale scales the offsets of its DIRECT children only. With
 * mHipLeft scaled (2, 1, 0.5): knee = hip + (-0.001, -0.046, -0.491) * (2, 1, 0.5) =
 * (0.032, 0.081, -0.2865) in the prim frame; the ankle's offset is NOT scaled again:
 * (0.032 - 0.029, 0.081 + 0.001, -0.2865 - 0.468) = (0.003, 0.082, -0.7545). A vertex on
 * the hip 0.1 m forward of it (bind) is drawn 0.2 m forward (the hip's own scale). */
static void test_parent_scale_scales_child_offsets_and_is_not_inherited(void **state)
{
    (void)state;
    int hip = am_skeleton_find_exact(&skel, "mHipLeft"), knee = am_skeleton_find_exact(&skel, "mKneeLeft"),
        ankle = am_skeleton_find_exact(&skel, "mAnkleLeft");
    am_vec3 saved = skel.joints[hip].scale;
    skel.joints[hip].scale = am_v3(2, 1, 0.5);
    fx_mesh m;
    bar_at(&m, am_v3_add(HIPL_SF, am_v3(0.1, 0, 0)));
    all_to(&m, 1);
    fx_skin sk = {.n = 2, .names = {"mPelvis", "mHipLeft"}, .bind_world = {P_SF, HIPL_SF}};
    am_bench b;
    fx_bench(&m, &sk, &skel, &b);
    am_vec3 *joints = malloc(skel.joint_count * sizeof *joints);
    float *prim = malloc(3 * b.vertex_count * sizeof *prim);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bench_pose_at(&b, -1, 0, prim, joints, &err), AM_OK);
    skel.joints[hip].scale = saved;
    assert_v3_near(joints[hip], am_v3(0.034, 0.127, -0.041), 1e-9);
    assert_v3_near(joints[knee], am_v3(0.032, 0.081, -0.2865), 1e-9);
    assert_v3_near(joints[ankle], am_v3(0.003, 0.082, -0.7545), 1e-9);
    am_bench_set all;
    assert_int_equal(am_bench_select(&b, "all", "all", &all, &err), AM_OK);
    am_vec3 c;
    am_bench_centre(&b, prim, &all, &c, NULL);
    assert_v3_near(c, am_v3(0.034 + 0.2, 0.127, -0.041), 1e-4);
    am_bench_set_free(&all);
    free(prim);
    free(joints);
    am_bench_free(&b);
    fx_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard_export_rests_on_its_bind_positions),
        cmocka_unit_test(test_negative_control_override_from_rig_parent_is_centimetres_off),
        cmocka_unit_test(test_pelvis_override_at_file_height_is_ignored_other_values_lift),
        cmocka_unit_test(test_override_threshold_is_a_tenth_of_a_millimetre),
        cmocka_unit_test(test_rotation_key_turns_the_knee_about_the_hip_as_hand_fk_says),
        cmocka_unit_test(test_fold_keeps_the_tip_rigid_and_lifts_its_end),
        cmocka_unit_test(test_the_json_report_holds_the_benchs_figures),
        cmocka_unit_test(test_bind_rot_undoes_the_bind_shape_rotation),
        cmocka_unit_test(test_unknown_joint_name_follows_the_pelvis),
        cmocka_unit_test(test_weight_report_counts_what_quality_md_defines),
        cmocka_unit_test(test_strain_counts_edges_stretched_past_1_6),
        cmocka_unit_test(test_strain_percentiles_are_the_nearest_rank_values),
        cmocka_unit_test(test_selection_gives_the_sorted_rank),
        cmocka_unit_test(test_cross_side_leak_measures_the_right_vertex_a_left_bone_drags),
        cmocka_unit_test(test_vertex_set_expressions_and_their_errors),
        cmocka_unit_test(test_bad_bytes_fail_cleanly),
        cmocka_unit_test(test_joint_index_beyond_110_uses_entry_109),
        cmocka_unit_test(test_real_uploaded_asset_rests_on_its_bind_positions),
        cmocka_unit_test(test_alias_names_resolve_and_carry_their_overrides),
        cmocka_unit_test(test_parent_scale_scales_child_offsets_and_is_not_inherited),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
