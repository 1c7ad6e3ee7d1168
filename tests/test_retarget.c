/* Retargeting end to end (src/retarget/retarget.h), at library level with scenes built by
 * hand: scene -> retarget -> am_skin_build -> encode -> the bench reading the DECODED
 * .llmesh and .anim. At several clip times (on keys and between them) the bench's posed
 * vertices must match the source model's own skinning of the same clip
 * (am_scene_skin_positions under worlds from am_scene_eval_clip), converted to the viewer
 * frame by the conversion written out here for each fixture (not the library's), to 1e-3
 * of the model's height.
 *
 * Fixtures: the two-bone bend box (axes given, map given); a quadruped (spine, four legs,
 * tail, neck, head) whose joints have NON-IDENTITY rest rotations (each bone's local +Y
 * along the bone with a roll, as Blender exports them), with a walk mixing LINEAR, STEP and
 * CUBICSPLINE keys, pelvis translation, constant translation channels and a joint whose
 * node rest differs from the skin's bind pose; in Y-up metres (glTF frame, placed at the
 * viewer's pelvis) AND Z-up centimetres under a x100 armature (declared glTF: conflicts
 * reported; placed at the file origin, so mPelvis is overridden and the pelvis keys must
 * include the override). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "retarget/retarget.h"
#include "support/retarget_support.h"
#include "support/scene_fixtures.h"
#include "support/test_support.h"

static am_skeleton g_skel; /* the viewer's, loaded once for the group */
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

/* --- pipeline + comparison ----------------------------------------------------------------- */

typedef struct run {
    am_retarget_result res;
    am_bench bench;
    size_t *match;   /* bench vertex -> source vertex */
} run;

static void pipeline(const am_scene *s, const am_retarget_options *o, run *r)
{
    memset(r, 0, sizeof *r);
    am_test_retarget_bench(s, &g_skel, o, &r->res, &r->bench);
}

static void free_run(run *r)
{
    am_bench_free(&r->bench);
    am_retarget_result_free(&r->res);
    free(r->match);
}

/* The source's own skinning of mesh 0 at clip time t (rest when clip < 0), file frame. */
static void source_pose(const am_scene *s, int clip, double t, float *out)
{
    am_scene_trs *trs = malloc(s->node_count * sizeof *trs);
    am_mat4 *local = malloc(s->node_count * sizeof *local), *world = malloc(s->node_count * sizeof *world);
    assert_non_null(trs);
    assert_non_null(local);
    assert_non_null(world);
    am_scene_eval_clip(s, clip >= 0 ? &s->clips[clip] : NULL, t, trs, local);
    am_scene_world_from_local(s, local, world);
    am_error err;
    assert_int_equal(am_scene_skin_positions(s, 0, world, out, &err), AM_OK);
    free(trs);
    free(local);
    free(world);
}

/* Expected viewer bind-frame positions: the independent conversion plus the placement. */
static void expected(const am_scene *s, sf_frame k, am_vec3 o, int clip, double t, float *out)
{
    size_t n = s->meshes[0].vertex_count;
    float *src = malloc(3 * n * sizeof(float));
    assert_non_null(src);
    source_pose(s, clip, t, src);
    for (size_t v = 0; v < n; v++) {
        am_vec3 p = am_v3_add(sf_to_viewer(k, am_v3(src[3 * v], src[3 * v + 1], src[3 * v + 2])), o);
        out[3 * v] = (float)p.x;
        out[3 * v + 1] = (float)p.y;
        out[3 * v + 2] = (float)p.z;
    }
    free(src);
}

static void match_vertices(run *r, const float *rest, size_t n, double height)
{
    r->match = am_test_retarget_match(&r->bench, rest, n, 1e-3 * height);
}

static double pose_error(run *r, const float *want, double t)
{
    return am_test_retarget_pose_error(&r->bench, r->match, r->bench.motion_count ? 0 : -1, t, want);
}

static void check_times(const char *label, const am_scene *s, sf_frame k, am_vec3 o, run *r, double height,
                        const double *times, size_t nt)
{
    size_t n = s->meshes[0].vertex_count;
    float *want = malloc(3 * n * sizeof(float));
    assert_non_null(want);
    /* the bind pose (positions x bind shape, identity here), converted */
    const float *pos = s->meshes[0].positions;
    for (size_t v = 0; v < n; v++) {
        am_vec3 p = am_v3_add(sf_to_viewer(k, am_v3(pos[3 * v], pos[3 * v + 1], pos[3 * v + 2])), o);
        want[3 * v] = (float)p.x, want[3 * v + 1] = (float)p.y, want[3 * v + 2] = (float)p.z;
    }
    match_vertices(r, want, n, height);
    for (size_t i = 0; i < nt; i++) {
        expected(s, k, o, 0, times[i], want);
        double e = pose_error(r, want, times[i]);
        print_message("%s: t = %.3f s: max error %.6f m = %.2e of the height %.3f m\n", label, times[i], e, e / height,
                      height);
        assert_le(e, 1e-3 * height);
    }
    free(want);
}

/* --- the bend box ---------------------------------------------------------------------------- */

static am_joint_map bend_map(void)
{
    const char *json = "{\"joints\": {\"root\": \"mPelvis\", \"flap\": \"mTorso\"}}";
    am_joint_map map;
    am_error err;
    assert_int_equal(am_joint_map_parse(json, strlen(json), "map", &map, &err), AM_OK);
    return map;
}

static void test_bend_box_end_to_end(void **state)
{
    (void)state;
    am_scene s;
    sf_bend_box(&s, false);
    am_joint_map map = bend_map();
    am_retarget_options o;
    am_retarget_options_init(&o);
    o.axes = (am_axes_options){.up = 3, .forward = 1, .scale = 1};
    o.map = &map;
    run r;
    pipeline(&s, &o, &r);
    /* placement: the hinge (root, mapped to mPelvis) on the viewer's pelvis */
    assert_near(r.res.placement.z, 1.067, 1e-12);
    assert_false(r.res.pelvis_overridden);
    assert_int_equal(r.res.anim_count, 1);
    assert_string_equal(am_str(&r.res.anims[0].name), "fold");
    assert_true(r.res.anims[0].loops);
    /* 3 clip keys; the 90 deg slerp needs samples between them for the viewer's nlerp */
    assert_int_equal(r.res.anims[0].clip_keys, 3);
    assert_gt(r.res.anims[0].samples, 3);
    const double times[] = {0, 0.75, 1.5, 2.2, 3.0, 4.1, 5.5};
    check_times("bend box", &s, SF_VIEWER, am_v3(0, 0, 1.067), &r, 1.0, times, sizeof times / sizeof *times);
    free_run(&r);
    am_joint_map_free(&map);
    am_scene_free(&s);
}

/* A rest correction (docs/reference/lessons.md#rule-10) turns the flap's subtree 30 deg about Z in every
 * pose, its motion with it, whether it sits on the joint itself (mTorso) or on an unmapped
 * viewer joint above it at the same point (mSpine2, which then gets a track of its own).
 * Expected, written out from the box's weights:
 *   x' = w_root x + w_flap (b + Rz(30) Ry(theta(t)) (x - b)),  b = the hinge. */
static void check_corrected(const char *joint)
{
    am_scene s;
    sf_bend_box(&s, false);
    am_joint_map map = bend_map();
    am_rest_correction rc;
    am_error err;
    char text[64];
    snprintf(text, sizeof text, "%s=Z,30", joint);
    assert_int_equal(am_rest_correction_parse(text, &rc, &err), AM_OK);
    am_retarget_options o;
    am_retarget_options_init(&o);
    o.axes = (am_axes_options){.up = 3, .forward = 1, .scale = 1};
    o.map = &map;
    o.corrections = &rc;
    o.correction_count = 1;
    run r;
    pipeline(&s, &o, &r);
    const am_scene_mesh *m = &s.meshes[0];
    size_t n = m->vertex_count;
    float *want = malloc(3 * n * sizeof(float));
    assert_non_null(want);
    am_vec3 b = am_v3(0, 0, 1.067);
    for (size_t v = 0; v < n; v++) {
        am_vec3 x = am_v3_add(am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]), b);
        want[3 * v] = (float)x.x, want[3 * v + 1] = (float)x.y, want[3 * v + 2] = (float)x.z;
    }
    match_vertices(&r, want, n, 1.0);
    const double times[] = {0, 1.0, 2.5, 3.0, 4.4};
    for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
        double t = times[i], theta = (t <= 3 ? t / 3 : (6 - t) / 3) * 90 * AM_DEG2RAD;
        am_quat q = am_quat_mul(am_quat_axis_angle(am_v3(0, 0, 1), 30 * AM_DEG2RAD), am_quat_axis_angle(am_v3(0, 1, 0), theta));
        for (size_t v = 0; v < n; v++) {
            am_vec3 x = am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]);
            double wf = 0;
            for (size_t k = m->influence_start[v]; k < m->influence_start[v + 1]; k++)
                if (m->influences[k].joint == 1)
                    wf = m->influences[k].weight;
            am_vec3 turned = am_quat_rotate(q, x);
            am_vec3 p = am_v3_add(b, am_v3_add(am_v3_scale(x, 1 - wf), am_v3_scale(turned, wf)));
            want[3 * v] = (float)p.x, want[3 * v + 1] = (float)p.y, want[3 * v + 2] = (float)p.z;
        }
        double e = pose_error(&r, want, t);
        print_message("rest correction %s: t = %.2f s: max error %.6f m\n", text, t, e);
        assert_le(e, 1e-3);
    }
    free(want);
    free_run(&r);
    am_rest_correction_free(&rc);
    am_joint_map_free(&map);
    am_scene_free(&s);
}

static void test_rest_correction_on_the_joint_and_above_it(void **state)
{
    (void)state;
    check_corrected("mTorso");
    check_corrected("mSpine2");
    check_corrected("flap"); /* a rig joint name, mapped to mTorso */
}

/* A joint the source translates off its rigid place (a stretchy bone: the flap slides
 * 0.3 m along X while it folds) gets position keys, each its whole local position under its
 * viewer parent (mTorso under mSpine2), and the bench still matches the source. */
static void test_stretchy_bone_gets_position_keys(void **state)
{
    (void)state;
    am_scene s;
    sf_bend_box(&s, false);
    float t[3] = {0, 3, 6};
    float v[9] = {0, 0, 0, 0.3f, 0, 0, 0, 0, 0};
    sf_channel(&s, 0, 1, AM_SCENE_PATH_TRANSLATION, AM_SCENE_INTERP_LINEAR, 3, t, v);
    am_error err;
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    am_joint_map map = bend_map();
    am_retarget_options o;
    am_retarget_options_init(&o);
    o.axes = (am_axes_options){.up = 3, .forward = 1, .scale = 1};
    o.map = &map;
    run r;
    pipeline(&s, &o, &r);
    const am_retarget_anim *a = &r.res.anims[0];
    assert_int_equal(a->position_tracks, 1);
    const am_motion_track *torso = NULL;
    for (size_t i = 0; i < a->motion.track_count; i++)
        if (strcmp(a->motion.tracks[i].joint, "mTorso") == 0)
            torso = &a->motion.tracks[i];
    assert_non_null(torso);
    assert_true(torso->has_pos);
    /* mSpine2 (unmoved, at the hinge) is its parent: at 3 s the key is the slide itself */
    size_t mid = 0;
    for (size_t i = 0; i < torso->count; i++)
        if (fabs(torso->times[i] - 0.5) < fabs(torso->times[mid] - 0.5))
            mid = i;
    assert_near(torso->pos[mid].x, 0.3, 1e-6);
    assert_near(torso->pos[mid].z, 0, 1e-6);
    const double times[] = {0, 1.2, 3.0, 4.7};
    check_times("stretchy flap", &s, SF_VIEWER, am_v3(0, 0, 1.067), &r, 1.0, times, sizeof times / sizeof *times);
    free_run(&r);
    am_joint_map_free(&map);
    am_scene_free(&s);
}

/* --- the quadruped ---------------------------------------------------------------------------- */

static const double walk_times[] = {0, 0.1, 0.25, 0.33, 0.49, 0.5, 0.62, 0.75, 0.9, 0.98};

static void test_quadruped_yup_metres_end_to_end(void **state)
{
    (void)state;
    am_scene s;
    sf_quadruped(&s, SF_YUP_M, true, true);
    am_retarget_options o;
    am_retarget_options_init(&o);
    run r;
    pipeline(&s, &o, &r);
    /* detected: glTF's frame, the data agrees; a horizontal body facing its head */
    assert_int_equal(r.res.axes.up, 2);
    assert_int_equal(r.res.axes.forward, 3);
    assert_near(r.res.axes.scale, 1, 0);
    assert_false(r.res.axes.upright);
    assert_non_null(strstr(r.res.axes.report, "legs hang along -Y"));
    assert_non_null(strstr(r.res.axes.report, "head is forward of the pelvis"));
    assert_int_equal(r.res.axes.conflict_count, 0);
    /* the pelvis on the viewer's: no override, pelvis keys are its motion alone */
    assert_false(r.res.pelvis_overridden);
    /* the bind pose vs the nodes' rest is reported */
    bool noted = false;
    for (size_t i = 0; i < r.res.finding_count; i++)
        noted = noted || strstr(am_str(&r.res.findings[i].text), "bind pose differs from the nodes' rest pose");
    assert_true(noted);
    const am_retarget_anim *a = &r.res.anims[0];
    assert_true(a->loops);
    assert_int_equal(a->position_tracks, 1); /* the pelvis only: constant translations give none */
    am_vec3 o_place = am_v3_sub(am_v3(0, 0, 1.067), am_v3(SF_Q[0].p[0], SF_Q[0].p[1], SF_Q[0].p[2]));
    check_times("quadruped Y-up m", &s, SF_YUP_M, o_place, &r, 1.2, walk_times, sizeof walk_times / sizeof *walk_times);
    free_run(&r);
    am_scene_free(&s);
}

static void test_quadruped_zup_centimetres_end_to_end(void **state)
{
    (void)state;
    am_scene s;
    sf_quadruped(&s, SF_ZUP_CM, true, true);
    am_retarget_options o;
    am_retarget_options_init(&o);
    o.place = AM_PLACE_ORIGIN;
    run r;
    pipeline(&s, &o, &r);
    /* the data wins over the glTF declaration, and both conflicts are named */
    assert_int_equal(r.res.axes.up, 3);
    assert_int_equal(r.res.axes.forward, -2);
    assert_near(r.res.axes.scale, 0.01, 0);
    assert_int_equal(r.res.axes.conflict_count, 3);
    assert_non_null(strstr(r.res.axes.conflicts[0], "declares up +Y, but legs hang along -Z"));
    assert_non_null(strstr(r.res.axes.conflicts[1], "declares forward +Z, along the up axis +Z: not used"));
    assert_non_null(strstr(r.res.axes.conflicts[2], "declares the unit 1 m, but the stature is"));
    /* the file origin kept: mPelvis overridden to the hips' bind position */
    assert_true(r.res.pelvis_overridden);
    assert_near(r.res.pelvis_bind.x, SF_Q[0].p[0], 1e-6);
    assert_near(r.res.pelvis_bind.z, SF_Q[0].p[2], 1e-6);
    assert_near(am_v3_len(r.res.root_bind), 0, 1e-12);
    /* the pelvis position keys INCLUDE the override: at t = 0 the key is the override */
    const am_retarget_anim *a = &r.res.anims[0];
    const am_motion_track *pel = NULL;
    for (size_t i = 0; i < a->motion.track_count; i++)
        if (strcmp(a->motion.tracks[i].joint, "mPelvis") == 0)
            pel = &a->motion.tracks[i];
    assert_non_null(pel);
    assert_true(pel->has_pos);
    assert_near(pel->pos[0].x, SF_Q[0].p[0], 1e-6);
    assert_near(pel->pos[0].z, SF_Q[0].p[2], 1e-6);
    check_times("quadruped Z-up cm", &s, SF_ZUP_CM, am_v3(0, 0, 0), &r, 1.2, walk_times,
                sizeof walk_times / sizeof *walk_times);
    free_run(&r);
    am_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bend_box_end_to_end),
        cmocka_unit_test(test_rest_correction_on_the_joint_and_above_it),
        cmocka_unit_test(test_stretchy_bone_gets_position_keys),
        cmocka_unit_test(test_quadruped_yup_metres_end_to_end),
        cmocka_unit_test(test_quadruped_zup_centimetres_end_to_end),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
