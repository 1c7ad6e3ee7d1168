/* Retargeting's refusals and reports (src/retarget/retarget.h, axes.h): a model without a
 * skin, more than 110 mapped joints, a clip over 60 s, ambiguous axes and units (named,
 * asking for the option), NaN, an unknown --clip, bad --rest-correction text; the unmapped
 * joint a clip animates (named, with how far its vertices will be off, against the
 * distance worked out here), scale keys dropped, loop modes, clip names sanitised, a
 * single-pose clip, and the CMU BVH retargeted (motions only, pelvis keys from the
 * reference frame). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/bvh.h"
#include "retarget/retarget.h"
#include "readers/scene_load.h"
#include "support/scene_fixtures.h"
#include "support/test_support.h"

static am_skeleton g_skel; /* the viewer's, loaded once for the group */
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

static am_joint_map parse_map(const char *json)
{
    am_joint_map map;
    am_error err;
    assert_int_equal(am_joint_map_parse(json, strlen(json), "map", &map, &err), AM_OK);
    return map;
}

/* The bend box's map (its joints have no telling names and it has no legs). */
#define BEND_MAP "{\"joints\": {\"root\": \"mPelvis\", \"flap\": \"mTorso\"}}"

/* A clip turning the flap (node 1) about Y: keys at the given times and angles. */
static void turn_clip(am_scene *s, const char *name, size_t keys, const float *t, const double *deg)
{
    int c = sf_clip(s, name);
    sf_rot_about(s, c, 1, AM_SCENE_INTERP_LINEAR, am_v3(0, 1, 0), keys, t, deg);
    am_error err;
    assert_int_equal(am_scene_finish(s, &err), AM_OK);
}

static void bend_opts(am_retarget_options *o, const am_joint_map *map)
{
    am_retarget_options_init(o);
    o->axes = (am_axes_options){.up = 3, .forward = 1, .scale = 1};
    o->map = map;
}

static bool has_finding(const am_retarget_result *r, const char *words)
{
    for (size_t i = 0; i < r->finding_count; i++)
        if (strstr(am_str(&r->findings[i].text), words))
            return true;
    return false;
}

static const char *finding(const am_retarget_result *r, const char *words)
{
    for (size_t i = 0; i < r->finding_count; i++)
        if (strstr(am_str(&r->findings[i].text), words))
            return am_str(&r->findings[i].text);
    return NULL;
}

static void expect_refusal(const am_scene *s, const am_retarget_options *o, am_status code, const char *words)
{
    am_retarget_result r;
    am_error err;
    am_error_clear(&err);
    am_status st = am_retarget(s, &g_skel, o, &r, &err);
    if (st != code || !strstr(err.msg, words))
        print_error("got %d '%s', expected %d with '%s'\n", st, err.msg, code, words);
    assert_int_equal(st, code);
    assert_non_null(strstr(err.msg, words));
}

static void test_model_without_a_skin_is_refused(void **state)
{
    (void)state;
    am_scene s;
    sf_bend_box(&s, false);
    s.meshes[0].skin = -1; /* the same box, unskinned */
    am_joint_map map = parse_map("{\"joints\": {\"root\": \"mPelvis\"}}");
    am_retarget_options o;
    bend_opts(&o, &map);
    expect_refusal(&s, &o, AM_ERR_INVALID, "the model has no skin");
    am_joint_map_free(&map);
    am_scene_free(&s);
}

/* Every viewer bone as a joint of its own name, each carrying a vertex: 133 > 110. */
static void test_more_than_110_mapped_joints_is_refused(void **state)
{
    (void)state;
    am_scene s;
    sf_init(&s, "allbones.gltf", 0, 0, 0);
    int *nodes = malloc(g_skel.bone_count * sizeof *nodes);
    assert_non_null(nodes);
    for (size_t j = 0; j < g_skel.bone_count; j++) {
        const am_joint *b = &g_skel.joints[j];
        nodes[j] = sf_node(&s, b->name, b->parent, b->pos, am_quat_identity(), am_v3(1, 1, 1));
    }
    sf_skin(&s, nodes, g_skel.bone_count);
    am_vec3 *ends = malloc(g_skel.bone_count * sizeof *ends);
    assert_non_null(ends);
    for (size_t j = 0; j < g_skel.bone_count; j++)
        ends[j] = am_v3_add(am_skeleton_rest_world(&g_skel, (int)j, AM_FRAME_FILE), am_v3(0.01, 0.005, 0.003));
    sf_bone_boxes(&s, 0, ends, NULL, 0.002, 2);
    am_error err;
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    am_retarget_options o;
    am_retarget_options_init(&o);
    o.axes.scale = 1;
    expect_refusal(&s, &o, AM_ERR_INVALID, "too many joints: the map needs 133 viewer joints");
    free(ends);
    free(nodes);
    am_scene_free(&s);
}

static void test_clip_over_60_s_is_refused_with_its_name(void **state)
{
    (void)state;
    am_scene s;
    sf_bend_box(&s, false);
    const float t[2] = {0, 61.5f};
    const double deg[2] = {0, 10};
    turn_clip(&s, "endless stroll", 2, t, deg);
    am_error err;
    am_joint_map map = parse_map(BEND_MAP);
    am_retarget_options o;
    bend_opts(&o, &map);
    expect_refusal(&s, &o, AM_ERR_INVALID, "clip 'endless stroll' lasts 61.50 s, over the viewer's 60 s limit");
    /* choosing the other clip converts */
    const char *pick[1] = {"fold"};
    o.clips = pick;
    o.clip_count = 1;
    am_retarget_result r;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    assert_int_equal(r.anim_count, 1);
    am_retarget_result_free(&r);
    /* an unknown clip name is a usage error listing the clips */
    const char *none[1] = {"run"};
    o.clips = none;
    expect_refusal(&s, &o, AM_ERR_USAGE,
                   "the clips option 'run': the model has no such clip (it has 'fold', 'endless stroll' (written endless_stroll))");
    am_joint_map_free(&map);
    am_scene_free(&s);
}

static void test_ambiguous_axes_are_refused_by_name(void **state)
{
    (void)state;
    /* the bend box has no legs and declares nothing: up cannot be told */
    am_scene s;
    sf_bend_box(&s, false);
    am_joint_map map = parse_map(BEND_MAP);
    am_retarget_options o;
    am_retarget_options_init(&o);
    o.map = &map;
    expect_refusal(&s, &o, AM_ERR_INVALID, "cannot tell which way is up");
    expect_refusal(&s, &o, AM_ERR_INVALID, "give the up option");
    /* up given, forward still unknown */
    o.axes.up = 3;
    expect_refusal(&s, &o, AM_ERR_INVALID, "give the forward option");
    /* up and forward given, the 4 m box could be metres or centimetres? 4 units: metres */
    o.axes.forward = 1;
    am_retarget_result r;
    am_error err;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    assert_near(r.axes.scale, 1, 0);
    am_retarget_result_free(&r);
    /* inconsistent options */
    o.axes.forward = -3;
    expect_refusal(&s, &o, AM_ERR_USAGE, "same axis");
    o.axes.forward = 1;
    o.axes.scale = NAN;
    expect_refusal(&s, &o, AM_ERR_USAGE, "the scale option");
    am_joint_map_free(&map);
    am_scene_free(&s);
}

/* Scale by k and turn by q a whole quadruped (its armature, node 0, is the identity at the
 * origin): every world becomes W x M with M = scale then rotation, so the inverse binds
 * become M^-1 x IBM and the vertices p x M. */
static void transform_scene(am_scene *s, am_quat q, double k)
{
    am_mat4 M = am_mat4_from_trs(am_v3(0, 0, 0), q, am_v3(k, k, k)), Mi;
    assert_true(am_mat4_inverse(&M, &Mi));
    am_scene_node_set_trs(&s->nodes[0], am_v3(0, 0, 0), q, am_v3(k, k, k));
    am_scene_skin *sk = &s->skins[0];
    for (size_t j = 0; j < sk->joint_count; j++)
        sk->inverse_binds[j] = am_mat4_mul(&Mi, &sk->inverse_binds[j]);
    am_scene_mesh *m = &s->meshes[0];
    for (size_t v = 0; v < m->vertex_count; v++) {
        am_vec3 p = am_mat4_transform_point(&M, am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]));
        m->positions[3 * v] = (float)p.x, m->positions[3 * v + 1] = (float)p.y, m->positions[3 * v + 2] = (float)p.z;
    }
    am_error err;
    assert_int_equal(am_scene_finish(s, &err), AM_OK);
}

static void test_tilted_legs_and_unclear_unit_are_refused(void **state)
{
    (void)state;
    /* the legs 40 deg from -Z towards +Y, nothing declared */
    am_scene s;
    sf_quadruped(&s, SF_VIEWER, true, false);
    s.declared = (am_scene_declared){0, 0, 0};
    transform_scene(&s, am_quat_axis_angle(am_v3(1, 0, 0), 40 * AM_DEG2RAD), 1);
    am_retarget_options o;
    am_retarget_options_init(&o);
    expect_refusal(&s, &o, AM_ERR_INVALID, "ambiguous up axis: the legs hang between -Z and +Y (40 deg from the nearest axis)");
    expect_refusal(&s, &o, AM_ERR_INVALID, "give the up option");
    /* --up settles it (forward and unit still detected) */
    o.axes.up = 3;
    am_retarget_result r;
    am_error err;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    assert_int_equal(r.axes.forward, 1);
    am_retarget_result_free(&r);
    am_scene_free(&s);
    /* about 19 units long, undeclared: 19 m or 19 cm? */
    sf_quadruped(&s, SF_VIEWER, true, false);
    s.declared = (am_scene_declared){0, 0, 0};
    transform_scene(&s, am_quat_identity(), 8.6);
    am_retarget_options_init(&o);
    expect_refusal(&s, &o, AM_ERR_INVALID, "ambiguous unit: the model is 1");
    expect_refusal(&s, &o, AM_ERR_INVALID, "and the file declares no unit; give the scale option");
    o.axes.scale = 0.01;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    assert_non_null(strstr(r.axes.report, "unit 0.01 m (given"));
    am_retarget_result_free(&r);
    am_scene_free(&s);
}

static void test_nan_in_a_transform_is_refused(void **state)
{
    (void)state;
    am_scene s;
    sf_bend_box(&s, false);
    s.nodes[1].local.m[13] = NAN;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "node 'flap': its transform has a value that is not finite"));
    am_scene_free(&s);
    sf_bend_box(&s, false);
    s.clips[0].channels[0].values[5] = NAN;
    assert_int_equal(am_scene_finish(&s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "clip 'fold' node 'flap': a key time or value is not finite"));
    am_scene_free(&s);
}

static void test_rest_correction_text(void **state)
{
    (void)state;
    am_rest_correction rc;
    am_error err;
    assert_int_equal(am_rest_correction_parse("mHead=z,-50", &rc, &err), AM_OK);
    assert_string_equal(am_str(&rc.joint), "mHead");
    assert_int_equal(rc.axis, 3);
    assert_near(rc.degrees, -50, 0);
    am_rest_correction_free(&rc);
    /* a rig joint's name longer than the old joint[64] is kept whole */
    char long_text[400];
    memset(long_text, 'j', 300);
    snprintf(long_text + 300, sizeof long_text - 300, "=Y,12.5");
    assert_int_equal(am_rest_correction_parse(long_text, &rc, &err), AM_OK);
    assert_int_equal(rc.joint.length, 300);
    assert_int_equal(strspn(am_str(&rc.joint), "j"), 300);
    assert_int_equal(rc.axis, 2);
    am_rest_correction_free(&rc);
    static const char *bad[] = {"mHead", "mHead=Z", "=Z,10", "mHead=W,10", "mHead=Z,ten", "mHead=Z,400", "mHead=XY,1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        am_error_clear(&err);
        assert_int_equal(am_rest_correction_parse(bad[i], &rc, &err), AM_ERR_USAGE);
        assert_non_null(strstr(err.msg, "rest correction '"));
    }
    /* a joint that is neither a viewer joint nor a mapped rig joint */
    am_scene s;
    sf_bend_box(&s, false);
    am_joint_map map = parse_map(BEND_MAP);
    am_retarget_options o;
    bend_opts(&o, &map);
    assert_int_equal(am_rest_correction_parse("mNoSuch=X,5", &rc, &err), AM_OK);
    o.corrections = &rc;
    o.correction_count = 1;
    expect_refusal(&s, &o, AM_ERR_USAGE, "the corrections option 'mNoSuch': neither a viewer joint nor a mapped rig joint");
    am_rest_correction_free(&rc);
    am_joint_map_free(&map);
    am_scene_free(&s);
}

static void test_unmapped_animated_joint_is_named_with_its_error(void **state)
{
    (void)state;
    am_scene s;
    sf_bend_box(&s, true); /* "tip" at x = 1.5 turns 30 deg about Y at 3 s; the map leaves it */
    am_joint_map map = parse_map("{\"joints\": {\"root\": \"mPelvis\", \"flap\": \"mTorso\", \"tip\": \"-\"}}");
    am_retarget_options o;
    bend_opts(&o, &map);
    am_retarget_result r;
    am_error err;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    /* its weights go to flap; its farthest vertex, (2, +-1, +-0.5), is sqrt(0.5^2 + 0.5^2)
     * from the tip's axis (Y through x = 1.5), so 30 deg moves it 2 r sin(15 deg) */
    const char *f = finding(&r, "clip 'fold' animates 'tip', which is not mapped: its vertices follow 'flap' (mTorso)");
    assert_non_null(f);
    double want = 2 * sqrt(0.5) * sin(15 * AM_DEG2RAD), got = 0;
    const char *at = strstr(f, "up to ");
    assert_non_null(at);
    got = strtod(at + 6, NULL);
    print_message("unmapped 'tip': reported %.4f m, worked out %.4f m\n", got, want);
    assert_near(got, want, 1e-3);
    /* the suggestion says where its weights went */
    const am_map_joint *mj = &r.suggestion.joints[r.body.node_joint[2]];
    assert_int_equal(mj->target, -1);
    assert_non_null(strstr(am_str(&mj->reason), "its weights go to 'flap' (mTorso)"));
    am_retarget_result_free(&r);
    am_joint_map_free(&map);
    am_scene_free(&s);
}

static void test_scale_keys_are_reported_dropped(void **state)
{
    (void)state;
    am_scene s;
    sf_bend_box(&s, false);
    float t[2] = {0, 6};
    float v[6] = {1, 1, 1, 1.25f, 1, 1};
    sf_channel(&s, 0, 1, AM_SCENE_PATH_SCALE, AM_SCENE_INTERP_LINEAR, 2, t, v);
    am_error err;
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    am_joint_map map = parse_map(BEND_MAP);
    am_retarget_options o;
    bend_opts(&o, &map);
    am_retarget_result r;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    assert_true(has_finding(&r, "clip 'fold': scale keys on 'flap' (up to 25.0 % from its rest scale) dropped"));
    am_retarget_result_free(&r);
    am_joint_map_free(&map);
    am_scene_free(&s);
}

static void test_loop_modes_names_and_single_poses(void **state)
{
    (void)state;
    am_scene s;
    sf_bend_box(&s, false);
    /* a clip that does not close, named the way FBX exporters name them */
    const float t[2] = {0, 2}, t1[1] = {0};
    const double deg[2] = {0, 40}, d1[1] = {20};
    turn_clip(&s, "Armature|Wave Hand", 2, t, deg);
    turn_clip(&s, "pose", 1, t1, d1);
    am_error err;
    am_joint_map map = parse_map(BEND_MAP);
    am_retarget_options o;
    bend_opts(&o, &map);
    am_retarget_result r;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    assert_int_equal(r.anim_count, 3);
    assert_true(r.anims[0].loops); /* fold closes */
    assert_string_equal(am_str(&r.anims[1].name), "Armature_Wave_Hand");
    assert_string_equal(am_str(&r.anims[1].clip), "Armature|Wave Hand");
    assert_false(r.anims[1].loops);
    assert_non_null(strstr(am_str(&r.anims[1].loop_why), "not looping: loop guard: joint 'mTorso' ends 39.99"));
    assert_near(r.anims[2].motion.duration_s, 1.0, 0);
    assert_true(has_finding(&r, "clip 'pose' is a single pose"));
    for (size_t i = 0; i < r.anim_count; i++) {
        am_buf bytes = {0};
        assert_int_equal(am_retarget_write_anim(&r, i, &g_skel, NULL, &bytes, NULL, &err), AM_OK);
        am_buf_free(&bytes);
    }
    am_retarget_result_free(&r);
    /* --loop on a clip that does not close: refused, naming the joint and by how much the
     * seam is over the tolerance (a 2-key turn is no cycle written without its closing key) */
    const char *wave[1] = {"Armature|Wave Hand"};
    o.clips = wave;
    o.clip_count = 1;
    o.loop = AM_LOOP_ON;
    expect_refusal(&s, &o, AM_ERR_INVALID, "the loop option: joint 'mTorso' ends 40.000 deg away from where it starts (the "
                                           "key at 2.000 s vs 0 s), 30.000 deg over the loop_tolerance_deg option of 10 deg");
    o.loop = AM_LOOP_OFF;
    const char *fold[1] = {"fold"};
    o.clips = fold;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    assert_false(r.anims[0].loops);
    assert_string_equal(am_str(&r.anims[0].loop_why), "not looping (the loop option off)");
    assert_int_equal(r.anims[0].motion.base_priority, 4);
    am_retarget_result_free(&r);
    am_joint_map_free(&map);
    am_scene_free(&s);
}

/* A clip name longer than the old clip[128] and a finding longer than the old text[420]
 * are kept whole; the anim's file name stays the sanitised 64 characters. */
static void test_long_clip_name_and_finding_are_kept_whole(void **state)
{
    (void)state;
    am_scene s;
    sf_bend_box(&s, false);
    char clip[501];
    for (size_t i = 0; i < sizeof clip - 1; i++)
        clip[i] = (char)('a' + i % 26);
    clip[sizeof clip - 1] = '\0';
    const float t1[1] = {0};
    const double d1[1] = {20};
    turn_clip(&s, clip, 1, t1, d1);
    am_error err;
    am_joint_map map = parse_map(BEND_MAP);
    am_retarget_options o;
    bend_opts(&o, &map);
    const char *want[1] = {clip};
    o.clips = want;
    o.clip_count = 1;
    am_retarget_result r;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    assert_int_equal(r.anim_count, 1);
    assert_int_equal(r.anims[0].clip.length, 500);
    assert_string_equal(am_str(&r.anims[0].clip), clip);
    assert_int_equal(r.anims[0].name.length, 64);
    const char *single = finding(&r, " is a single pose");
    assert_non_null(single);
    assert_non_null(strstr(single, clip));
    assert_true(strlen(single) > 500);
    am_retarget_result_free(&r);
    am_joint_map_free(&map);
    am_scene_free(&s);
}

static void test_cmu_bvh_retargets_to_motions(void **state)
{
    (void)state;
    am_scene s;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_load("/usr/share/assimp/models/BVH/01_01.bvh", &s, &err), AM_OK);
    am_bvh b;
    assert_int_equal(am_bvh_load("/usr/share/assimp/models/BVH/01_01.bvh", &b, &err), AM_OK);
    /* frame 0 is the reference: frames - 1 keys, the last at (frames - 2) x frame time */
    assert_int_equal(s.clip_count, 1);
    assert_string_equal(s.clips[0].name, "01_01");
    assert_near(s.clips[0].end_s, (double)(float)((double)(b.frame_count - 2) * (float)b.frame_time_s), 1e-3);
    am_retarget_options o;
    am_retarget_options_init(&o);
    am_retarget_result r;
    am_status st = am_retarget(&s, &g_skel, &o, &r, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, AM_OK);
    assert_int_equal(r.rig_count, 0);
    assert_int_equal(r.anim_count, 1);
    assert_near(r.axes.scale, 0.02540005, 1e-9); /* the viewer's BVH inches */
    const am_retarget_anim *a = &r.anims[0];
    const am_motion_track *pel = NULL;
    for (size_t i = 0; i < a->motion.track_count; i++)
        if (strcmp(a->motion.tracks[i].joint, "mPelvis") == 0)
            pel = &a->motion.tracks[i];
    assert_non_null(pel);
    assert_true(pel->has_pos);
    /* measured from the reference frame: the first played frame is next to it */
    am_vec3 p1 = am_v3_sub(b.pos[b.joint_count], b.pos[0]);
    double d = am_v3_len(am_v3_scale(p1, 0.02540005));
    assert_near(am_v3_len(pel->pos[0]), d, 1e-4);
    am_buf bytes = {0};
    am_motion_stats ms;
    assert_int_equal(am_retarget_write_anim(&r, 0, &g_skel, NULL, &bytes, &ms, &err), AM_OK);
    print_message("01_01.bvh: %zu samples (%zu clip keys), %zu tracks, %zu bytes, max %.4f deg off after decoding\n",
                  a->samples, a->clip_keys, a->motion.track_count, bytes.size, ms.max_rot_err_deg);
    am_buf_free(&bytes);
    am_retarget_result_free(&r);
    am_bvh_free(&b);
    am_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_without_a_skin_is_refused),
        cmocka_unit_test(test_more_than_110_mapped_joints_is_refused),
        cmocka_unit_test(test_clip_over_60_s_is_refused_with_its_name),
        cmocka_unit_test(test_ambiguous_axes_are_refused_by_name),
        cmocka_unit_test(test_tilted_legs_and_unclear_unit_are_refused),
        cmocka_unit_test(test_nan_in_a_transform_is_refused),
        cmocka_unit_test(test_rest_correction_text),
        cmocka_unit_test(test_unmapped_animated_joint_is_named_with_its_error),
        cmocka_unit_test(test_scale_keys_are_reported_dropped),
        cmocka_unit_test(test_loop_modes_names_and_single_poses),
        cmocka_unit_test(test_long_clip_name_and_finding_are_kept_whole),
        cmocka_unit_test(test_cmu_bvh_retargets_to_motions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
