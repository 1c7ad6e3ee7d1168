/* Retargeting through real files: glTF / GLB written by tests/support/gltf_fixtures (the
 * bend box with LINEAR and CUBICSPLINE keys, the quadruped with a trot; Y-up metres and
 * Z-up centimetres; .gltf + .bin and .glb) read by the glTF reader, retargeted, skinned,
 * encoded and posed on the bench from the decoded files. The bench must match the FILE's
 * own meaning, computed by the fixtures without src/import (am_gf_pose), converted to the
 * viewer frame by the conversion written out here, to 1e-3 of the model's height.
 * Then Debian's assimp test models: simple_skin.gltf, animation_with_skeleton.fbx and
 * huesitos.fbx (abstract rigs: each chain given a viewer chain by a map) against the
 * scene's own skinning (am_scene_skin_positions under am_scene_eval_clip), to 1e-3 of their
 * size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "support/gltf_fixtures.h"
#include "retarget/retarget.h"
#include "readers/scene_load.h"
#include "support/retarget_support.h"
#include "support/test_support.h"

static am_skeleton g_skel; /* the viewer's, loaded once for the group */
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

/* file -> viewer frame, written out: glTF's frame (+Y up, +Z forward, +X left), and the
 * fixtures' Blender frame (+Z up, -Y forward, +X left) in centimetres */
static am_vec3 to_viewer(am_gf_frame f, am_vec3 p, double unit)
{
    if (f == AM_GF_Y_UP_M)
        return am_v3_scale(am_v3(p.z, p.x, p.y), unit);
    return am_v3_scale(am_v3(-p.y, p.x, p.z), unit);
}

typedef struct posed {
    am_bench bench;
    size_t *match;
} posed;

static void run(const am_scene *s, const am_retarget_options *o, am_retarget_result *res, posed *p)
{
    am_test_retarget_bench(s, &g_skel, o, res, &p->bench);
}

static void match(posed *p, const float *rest, size_t n, double tol)
{
    p->match = am_test_retarget_match(&p->bench, rest, n, tol);
}

static double error_at(const posed *p, int motion, double t, const float *want)
{
    return am_test_retarget_pose_error(&p->bench, p->match, motion, t, want);
}

static void free_posed(posed *p)
{
    am_bench_free(&p->bench);
    free(p->match);
}

/* --- the fixtures, written as files --------------------------------------------------- */

/* Pose the fixture the file's way (am_gf_pose), into the viewer frame, plus o. */
static void gf_expected(const am_gf_model *m, am_gf_frame f, double unit, am_vec3 o, int clip, double t, float *out)
{
    float *src = malloc(3 * m->vertex_count * sizeof(float));
    assert_non_null(src);
    am_gf_pose(m, clip, t, src);
    for (size_t v = 0; v < m->vertex_count; v++) {
        am_vec3 p = am_v3_add(to_viewer(f, am_v3(src[3 * v], src[3 * v + 1], src[3 * v + 2]), unit), o);
        out[3 * v] = (float)p.x, out[3 * v + 1] = (float)p.y, out[3 * v + 2] = (float)p.z;
    }
    free(src);
}

static void check_fixture(const char *label, const am_gf_model *m, am_gf_frame f, am_gf_container container,
                          const am_retarget_options *o, const char *pelvis_node, const double *times, size_t nt)
{
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_options go = {.container = container};
    am_gf_write(m, &go, dir, m->name, path, sizeof path);
    am_scene s;
    am_gf_load(path, &s);
    am_retarget_result res;
    posed p = {0};
    run(&s, o, &res, &p);
    double unit = f == AM_GF_Z_UP_CM ? 0.01 : 1;
    /* the placement, worked out: the pelvis joint's rest position onto the viewer's pelvis */
    am_mat4 *rest = malloc(m->node_count * sizeof *rest);
    assert_non_null(rest);
    am_gf_rest_world(m, rest);
    int pn = -1;
    for (size_t i = 0; i < m->node_count; i++)
        if (strcmp(m->nodes[i].name, pelvis_node) == 0)
            pn = (int)i;
    assert_ge(pn, 0);
    am_vec3 o_place = am_v3_sub(am_v3(0, 0, 1.067), to_viewer(f, am_mat4_get_translation(&rest[pn]), unit));
    free(rest);
    assert_lt(am_v3_dist(o_place, res.placement), 1e-6);
    float *want = malloc(3 * m->vertex_count * sizeof(float));
    assert_non_null(want);
    double height = m->height_m * unit; /* the description's units -> metres */
    gf_expected(m, f, unit, o_place, -1, 0, want);
    match(&p, want, m->vertex_count, 1e-3 * height);
    double worst = 0;
    for (size_t i = 0; i < nt; i++) {
        gf_expected(m, f, unit, o_place, 0, times[i], want);
        double e = error_at(&p, 0, times[i], want);
        worst = fmax(worst, e);
        if (e > 1e-3 * height)
            print_error("%s: t = %.3f s: %.6f m\n", label, times[i], e);
        assert_le(e, 1e-3 * height);
    }
    print_message("%-34s %s: %zu clip keys -> %zu samples; max error %.6f m = %.2e of the height %.2f m\n", label,
                  res.axes.report[0] ? "" : "", res.anims[0].clip_keys, res.anims[0].samples, worst, worst / height,
                  height);
    free(want);
    free_posed(&p);
    am_retarget_result_free(&res);
    am_scene_free(&s);
    am_gf_remove_tree(dir);
}

static const char *frame_name(am_gf_frame f) { return f == AM_GF_Y_UP_M ? "Y-up m" : "Z-up cm"; }
static const char *container_name(am_gf_container c) { return c == AM_GF_GLB ? ".glb" : ".gltf"; }

static void test_bend_box_files(void **state)
{
    (void)state;
    const char *json = "{\"joints\": {\"root\": \"mPelvis\", \"bend\": \"mTorso\"}}";
    am_joint_map map;
    am_error err;
    assert_int_equal(am_joint_map_parse(json, strlen(json), "map", &map, &err), AM_OK);
    const double times[] = {0, 0.7, 1.5, 2.2, 3.0, 3.9, 4.5, 5.4};
    const am_scene_interp interps[] = {AM_SCENE_INTERP_LINEAR, AM_SCENE_INTERP_CUBICSPLINE};
    for (int ii = 0; ii < 2; ii++)
        for (int fi = 0; fi < 2; fi++)
            for (int ci = 0; ci < 2; ci++) {
                am_gf_model base, m;
                am_gf_bendbox(&base, interps[ii]);
                am_gf_frame f = fi ? AM_GF_Z_UP_CM : AM_GF_Y_UP_M;
                am_gf_convert(&base, f, &m);
                am_retarget_options o;
                am_retarget_options_init(&o);
                o.map = &map;
                /* a box has no legs: its frame is given */
                o.axes = f == AM_GF_Y_UP_M ? (am_axes_options){.up = 2, .forward = 3, .scale = 1}
                                           : (am_axes_options){.up = 3, .forward = -2, .scale = 0.01};
                char label[96];
                snprintf(label, sizeof label, "bend box %s %s %s", ii ? "CUBICSPLINE" : "LINEAR", frame_name(f),
                         container_name(ci ? AM_GF_GLB : AM_GF_GLTF));
                check_fixture(label, &m, f, ci ? AM_GF_GLB : AM_GF_GLTF, &o, "root", times,
                              sizeof times / sizeof *times);
                am_gf_model_free(&m);
                am_gf_model_free(&base);
            }
    am_joint_map_free(&map);
}

static void test_quadruped_files(void **state)
{
    (void)state;
    const double times[] = {0, 0.06, 0.125, 0.2, 0.37, 0.5, 0.66, 0.8, 0.93};
    for (int fi = 0; fi < 2; fi++)
        for (int ci = 0; ci < 2; ci++) {
            am_gf_model base, m;
            am_gf_quadruped(&base);
            am_gf_frame f = fi ? AM_GF_Z_UP_CM : AM_GF_Y_UP_M;
            am_gf_convert(&base, f, &m);
            am_retarget_options o;
            am_retarget_options_init(&o); /* axes, unit and map all detected */
            char label[96];
            snprintf(label, sizeof label, "quadruped %s %s", frame_name(f), container_name(ci ? AM_GF_GLB : AM_GF_GLTF));
            check_fixture(label, &m, f, ci ? AM_GF_GLB : AM_GF_GLTF, &o, "Hips", times, sizeof times / sizeof *times);
            am_gf_model_free(&m);
            am_gf_model_free(&base);
        }
}

/* The suggestion on the glTF quadruped: every joint placed, sides by the body. */
static void test_quadruped_file_map(void **state)
{
    (void)state;
    am_gf_model base, m;
    am_gf_quadruped(&base);
    am_gf_convert(&base, AM_GF_Z_UP_CM, &m);
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_write(&m, NULL, dir, "quad", path, sizeof path);
    am_scene s;
    am_gf_load(path, &s);
    am_retarget_options o;
    am_retarget_options_init(&o);
    am_retarget_result r;
    am_error err;
    assert_int_equal(am_retarget(&s, &g_skel, &o, &r, &err), AM_OK);
    static const char *const want[][2] = {
        {"Hips", "mPelvis"},       {"Spine", "mTorso"},         {"Chest", "mChest"},        {"Neck", "mNeck"},
        {"Head", "mHead"},         {"Tail1", "mTail1"},         {"Tail2", "mTail2"},        {"ShoulderL", "mShoulderLeft"},
        {"ElbowL", "mElbowLeft"},  {"PawL", "mWristLeft"},      {"ShoulderR", "mShoulderRight"},
        {"ThighL", "mHipLeft"},    {"KneeL", "mKneeLeft"},      {"FootL", "mAnkleLeft"},    {"ThighR", "mHipRight"},
        {"FootR", "mAnkleRight"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        int node = am_map_find_node(&s, want[i][0]);
        assert_ge(node, 0);
        const am_map_joint *mj = &r.suggestion.joints[r.body.node_joint[node]];
        assert_ge(mj->target, 0);
        if (strcmp(g_skel.joints[mj->target].name, want[i][1]))
            print_error("%s -> %s (%s)\n", want[i][0], g_skel.joints[mj->target].name, am_str(&mj->reason));
        assert_string_equal(g_skel.joints[mj->target].name, want[i][1]);
    }
    assert_false(r.axes.upright);
    assert_int_equal(r.axes.up, 3);
    assert_int_equal(r.axes.forward, -2);
    am_retarget_result_free(&r);
    am_scene_free(&s);
    am_gf_model_free(&m);
    am_gf_model_free(&base);
    am_gf_remove_tree(dir);
}

/* A glTF file whose nodes have no names (the "name" key is optional): every message names
 * a source joint "#N", its index in the file's nodes list as maps write it, never ''. The tail is left
 * unmapped, so the trot's tail wag warns that its vertices follow the hips. */
static void test_unnamed_nodes_are_named_by_index(void **state)
{
    (void)state;
    am_gf_model m;
    am_gf_quadruped(&m);
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    /* "#N" is the file's nodes[N], though the reader puts parents first: the scene nodes
     * are found on a named copy, the file's indices in the document itself */
    am_scene s;
    am_gf_write(&m, NULL, dir, "named", path, sizeof path);
    am_gf_load(path, &s);
    int hips = am_scene_find_node(&s, "Hips"), tail1 = am_scene_find_node(&s, "Tail1"),
        tail2 = am_scene_find_node(&s, "Tail2");
    assert_true(hips >= 0 && tail1 >= 0 && tail2 >= 0);
    am_scene_free(&s);
    am_buf bin = {0};
    json_t *doc = am_gf_document(&m, NULL, &bin);
    json_t *nodes = json_object_get(doc, "nodes");
    size_t i;
    json_t *nd;
    int f_hips = -1, f_tail1 = -1, f_tail2 = -1, reordered = 0;
    json_array_foreach(nodes, i, nd) {
        const char *name = json_string_value(json_object_get(nd, "name"));
        f_hips = name && strcmp(name, "Hips") == 0 ? (int)i : f_hips;
        f_tail1 = name && strcmp(name, "Tail1") == 0 ? (int)i : f_tail1;
        f_tail2 = name && strcmp(name, "Tail2") == 0 ? (int)i : f_tail2;
    }
    reordered = (f_hips != hips) + (f_tail1 != tail1) + (f_tail2 != tail2);
    assert_gt(reordered, 0); /* else the test could not tell the two numberings apart */
    json_array_foreach(nodes, i, nd) json_object_del(nd, "name");
    am_gf_save(doc, &bin, AM_GF_GLB, dir, "nameless", path, sizeof path);
    json_decref(doc);
    am_buf_free(&bin);
    am_gf_load(path, &s);
    assert_string_equal(s.nodes[tail1].name, "");
    char num[16];
    snprintf(num, sizeof num, "#%d", f_tail1);
    assert_int_equal(am_map_find_node(&s, num), tail1);
    char json[160];
    snprintf(json, sizeof json, "{\"joints\": {\"#%d\": \"-\", \"#%d\": \"-\"}}", f_tail1, f_tail2);
    am_joint_map map;
    am_error err;
    assert_int_equal(am_joint_map_parse(json, strlen(json), "map", &map, &err), AM_OK);
    am_retarget_options o;
    am_retarget_options_init(&o);
    o.map = &map;
    o.axes = (am_axes_options){.up = 2, .forward = 3, .scale = 1};
    am_retarget_result r;
    if (am_retarget(&s, &g_skel, &o, &r, &err)) {
        char buf[600];
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    }
    char want[160];
    snprintf(want, sizeof want, "animates '#%d', which is not mapped: its vertices follow '#%d' (mPelvis)", f_tail1,
             f_hips);
    bool found = false;
    for (size_t f = 0; f < r.finding_count; f++) {
        found |= strstr(am_str(&r.findings[f].text), want) != NULL;
        if (strstr(am_str(&r.findings[f].text), "''"))
            fail_msg("a finding names a node '': %s", r.findings[f].text);
    }
    if (!found)
        for (size_t f = 0; f < r.finding_count; f++)
            print_message("  finding: %s\n", am_str(&r.findings[f].text));
    assert_true(found);
    am_retarget_result_free(&r);
    am_joint_map_free(&map);
    am_scene_free(&s);
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
}

/* --- real files -------------------------------------------------------------------------- */

typedef struct real_case {
    const char *path;
    const char *pelvis; /* the rig joint the map puts on mPelvis, NULL: none */
    const char *map;    /* JSON */
    am_axes_options axes;
    int clip;
    double times[6];
} real_case;

static const real_case REAL[] = {
    {"/usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf", "#1",
     "{\"joints\": {\"#1\": \"mPelvis\", \"#2\": \"mTorso\"}}", {0, 0, 0}, 0, {0, 0.5, 1.1, 2.0, 3.3, 5.0}},
    {"/usr/share/assimp/models/FBX/huesitos.fbx", "Bone",
     "{\"joints\": {\"Bone\": \"mPelvis\", \"Bone.001\": \"mChest\", \"Bone.002\": \"mCollarLeft\","
     " \"Bone.004\": \"mShoulderLeft\", \"Bone.005\": \"mElbowLeft\", \"Bone.006\": \"mWristLeft\","
     " \"Bone.003\": \"mNeck\", \"Bone.007\": \"mHead\", \"Bone.008\": \"mSkull\"}}",
     {0, 0, 0}, 0, {0, 0.2, 0.5, 0.77, 1.1, 1.5}},
    {"/usr/share/assimp/models/FBX/animation_with_skeleton.fbx", NULL,
     "{\"joints\": {\"Bone\": \"mCollarLeft\", \"Bone.001\": \"mShoulderLeft\", \"Bone.002\": \"mElbowLeft\","
     " \"Bone.003\": \"mWristLeft\", \"Bone.004\": \"mHandMiddle1Left\", \"Bone.005\": \"mHandMiddle2Left\","
     " \"Bone.006\": \"mHandMiddle3Left\", \"Bone.007\": \"mCollarRight\", \"Bone.008\": \"mShoulderRight\","
     " \"Bone.009\": \"mElbowRight\", \"Bone.010\": \"mWristRight\", \"Bone.011\": \"mHandMiddle1Right\","
     " \"Bone.012\": \"mHandMiddle2Right\", \"Bone.013\": \"mHandMiddle3Right\"}}",
     {0, 0, 0}, 0, {0, 0.1, 0.3, 0.42, 0.6, 0.8}},
};

/* The viewer keeps a vertex's 4 largest weights (docs/reference/mesh-asset.md#weights; the skin builder
 * renormalises them): the same rule written out here, on the scene's own influences. */
static void keep_four_largest(am_scene *s, size_t mesh)
{
    am_scene_mesh *m = &s->meshes[mesh];
    for (size_t v = 0; v < m->vertex_count; v++) {
        am_scene_influence *inf = &m->influences[m->influence_start[v]];
        size_t n = m->influence_start[v + 1] - m->influence_start[v];
        for (size_t i = 1; i < n; i++) /* insertion sort, largest first */
            for (size_t k = i; k > 0 && inf[k].weight > inf[k - 1].weight; k--) {
                am_scene_influence t = inf[k];
                inf[k] = inf[k - 1];
                inf[k - 1] = t;
            }
        for (size_t i = 4; i < n; i++)
            inf[i].weight = 0; /* am_scene_skin_positions renormalises the rest */
    }
}

static void test_real_files(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof REAL / sizeof *REAL; k++) {
        const real_case *rc = &REAL[k];
        FILE *f = fopen(rc->path, "rb");
        if (!f) {
            print_message("skipped (not installed): %s\n", rc->path);
            continue;
        }
        fclose(f);
        am_scene s;
        am_gf_load(rc->path, &s);
        am_joint_map map;
        am_error err;
        assert_int_equal(am_joint_map_parse(rc->map, strlen(rc->map), "map", &map, &err), AM_OK);
        am_retarget_options o;
        am_retarget_options_init(&o);
        o.map = &map;
        o.axes = rc->axes;
        am_retarget_result res;
        posed p = {0};
        run(&s, &o, &res, &p);
        /* every one declares +Y up and +Z forward (glTF by the format, FBX in its settings):
         * nothing contradicts it, so the conversion is (x, y, z) -> (z, x, y) in the unit */
        assert_int_equal(res.axes.up, 2);
        assert_int_equal(res.axes.forward, 3);
        double unit = s.declared.unit_m;
        assert_near(res.axes.scale, unit, 0);
        /* the placement: the joint on mPelvis onto the viewer's pelvis, else the origin kept */
        am_vec3 o_place = res.placement;
        if (rc->pelvis) { /* the pelvis joint where the file's skinning has it at rest */
            int pn = am_map_find_node(&s, rc->pelvis);
            assert_ge(pn, 0);
            am_vec3 b = am_mat4_get_translation(&s.nodes[pn].world);
            am_vec3 want_o = am_v3_sub(am_v3(0, 0, 1.067), am_v3_scale(am_v3(b.z, b.x, b.y), unit));
            assert_lt(am_v3_dist(want_o, o_place), 1e-6);
        } else {
            assert_lt(am_v3_len(o_place), 1e-12);
        }
        /* the comparison uses the viewer's 4-influence limit; `uncapped` keeps the file's */
        am_scene uncapped;
        am_gf_load(rc->path, &uncapped);
        bool capped = false;
        for (size_t v = 0; v < s.meshes[0].vertex_count && !capped; v++)
            capped = s.meshes[0].influence_start[v + 1] - s.meshes[0].influence_start[v] > 4;
        keep_four_largest(&s, 0);
        const am_scene_mesh *m = &s.meshes[0];
        size_t n = m->vertex_count;
        float *src = malloc(3 * n * sizeof(float)), *want = malloc(3 * n * sizeof(float));
        am_scene_trs *trs = malloc(s.node_count * sizeof *trs);
        am_mat4 *local = malloc(s.node_count * sizeof *local), *world = malloc(s.node_count * sizeof *world);
        assert_non_null(src);
        assert_non_null(want);
        assert_non_null(trs);
        assert_non_null(local);
        assert_non_null(world);
        /* the size: the largest extent of the bind pose, viewer frame */
        am_vec3 lo = am_v3(INFINITY, INFINITY, INFINITY), hi = am_v3(-INFINITY, -INFINITY, -INFINITY);
        for (int pass = -1; pass < 6; pass++) {
            if (pass < 0) {
                /* the bind pose (vertex x bind shape), put where the file's skinning has the
                 * skin's root-most joint at rest: x IBM_r x W_r (FBX binds are in the mesh's
                 * own frame, glTF's in the scene's) */
                const am_scene_skin *sk = &s.skins[m->skin];
                size_t r = 0;
                for (size_t j = 1; j < sk->joint_count; j++)
                    if (sk->joint_nodes[j] < sk->joint_nodes[r])
                        r = j;
                am_mat4 x = am_mat4_mul(&sk->inverse_binds[r], &s.nodes[sk->joint_nodes[r]].world);
                am_mat4 bx = am_mat4_mul(&sk->bind_shape, &x);
                for (size_t v = 0; v < n; v++) {
                    am_vec3 q = am_mat4_transform_point(&bx, am_v3(m->positions[3 * v], m->positions[3 * v + 1],
                                                                   m->positions[3 * v + 2]));
                    src[3 * v] = (float)q.x, src[3 * v + 1] = (float)q.y, src[3 * v + 2] = (float)q.z;
                }
            } else {
                am_scene_eval_clip(&s, &s.clips[rc->clip], rc->times[pass], trs, local);
                am_scene_world_from_local(&s, local, world);
                assert_int_equal(am_scene_skin_positions(&s, 0, world, src, &err), AM_OK);
                if (capped) { /* how much the viewer's limit alone changes, for the record */
                    float *full = malloc(3 * n * sizeof(float));
                    assert_non_null(full);
                    assert_int_equal(am_scene_skin_positions(&uncapped, 0, world, full, &err), AM_OK);
                    double d = 0;
                    for (size_t v = 0; v < 3 * n; v += 3)
                        d = fmax(d, am_v3_dist(am_v3(full[v], full[v + 1], full[v + 2]), am_v3(src[v], src[v + 1], src[v + 2])));
                    print_message("  (the 4-influence limit alone: %.4f m at %.2f s)\n", d * unit, rc->times[pass]);
                    free(full);
                }
            }
            for (size_t v = 0; v < n; v++) {
                am_vec3 q = am_v3_add(am_v3_scale(am_v3(src[3 * v + 2], src[3 * v], src[3 * v + 1]), unit), o_place);
                want[3 * v] = (float)q.x, want[3 * v + 1] = (float)q.y, want[3 * v + 2] = (float)q.z;
                if (pass < 0)
                    lo = am_v3(fmin(lo.x, q.x), fmin(lo.y, q.y), fmin(lo.z, q.z)),
                    hi = am_v3(fmax(hi.x, q.x), fmax(hi.y, q.y), fmax(hi.z, q.z));
            }
            am_vec3 ext = am_v3_sub(hi, lo);
            double size = fmax(ext.x, fmax(ext.y, ext.z));
            if (pass < 0) {
                match(&p, want, n, 1e-3 * size);
                continue;
            }
            double e = error_at(&p, 0, rc->times[pass], want);
            print_message("%s: t = %.2f s: max error %.6f m = %.2e of its size %.3f m\n", strrchr(rc->path, '/') + 1,
                          rc->times[pass], e, e / size, size);
            assert_le(e, 1e-3 * size);
        }
        for (size_t i = 0; i < res.finding_count; i++)
            print_message("  finding: %s\n", am_str(&res.findings[i].text));
        free(src);
        free(want);
        free(trs);
        free(local);
        free(world);
        free_posed(&p);
        am_retarget_result_free(&res);
        am_joint_map_free(&map);
        am_scene_free(&uncapped);
        am_scene_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bend_box_files),
        cmocka_unit_test(test_quadruped_files),
        cmocka_unit_test(test_quadruped_file_map),
        cmocka_unit_test(test_unnamed_nodes_are_named_by_index),
        cmocka_unit_test(test_real_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
