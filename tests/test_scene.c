/* The scene model (src/scene/scene.h) against independent computations: a two-bone scene
 * built by hand, its clip evaluated between keys for each interpolation (glTF 2.0
 * Appendix C formulas written out here), validation refusals, and the source's own
 * skinning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "scene/scene.h"

static char *dup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    assert_non_null(d);
    strcpy(d, s);
    return d;
}

/* root (at origin) -> bone (1 m up +Z, rotated 90 deg about Z) ; a 2-vertex "mesh" weighted
 * to the bone; a clip rotating the root about X and translating the bone. */
static void build(am_scene *s, am_scene_interp interp)
{
    memset(s, 0, sizeof *s);
    s->source = dup("hand-built");
    s->node_count = 2;
    s->nodes = calloc(2, sizeof *s->nodes);
    s->nodes[0].name = dup("root");
    s->nodes[0].parent = -1;
    am_scene_node_set_trs(&s->nodes[0], am_v3(0, 0, 0), am_quat_identity(), am_v3(1, 1, 1));
    s->nodes[1].name = dup("bone");
    s->nodes[1].parent = 0;
    am_scene_node_set_trs(&s->nodes[1], am_v3(0, 0, 1), am_quat_axis_angle(am_v3(0, 0, 1), AM_PI / 2), am_v3(1, 1, 1));

    s->skin_count = 1;
    s->skins = calloc(1, sizeof *s->skins);
    am_scene_skin *k = &s->skins[0];
    k->name = dup("skin");
    k->joint_count = 2;
    k->joint_names = calloc(2, sizeof(char *));
    k->joint_names[0] = dup("root");
    k->joint_names[1] = dup("bone");
    k->joint_nodes = calloc(2, sizeof(int));
    k->joint_nodes[0] = 0;
    k->joint_nodes[1] = 1;
    k->inverse_binds = calloc(2, sizeof(am_mat4));
    k->has_inverse_binds = true;
    k->bind_shape = am_mat4_identity();
    k->skeleton_root = 0;

    s->mesh_count = 1;
    s->meshes = calloc(1, sizeof *s->meshes);
    am_scene_mesh *m = &s->meshes[0];
    m->name = dup("mesh");
    m->node = -1;
    m->vertex_count = 3;
    float pos[9] = {0, 0, 1.5f, 1, 0, 1, 0, 1, 0};
    m->positions = malloc(sizeof pos);
    memcpy(m->positions, pos, sizeof pos);
    m->face_count = 1;
    m->faces = calloc(1, sizeof *m->faces);
    m->faces[0].material = -1;
    m->faces[0].index_count = 3;
    m->faces[0].indices = malloc(3 * sizeof(uint32_t));
    for (uint32_t i = 0; i < 3; i++)
        m->faces[0].indices[i] = i;
    m->skin = 0;
    m->influence_start = malloc(4 * sizeof(size_t));
    m->influences = malloc(4 * sizeof(am_scene_influence));
    m->influence_start[0] = 0; /* vertex 0: bone only */
    m->influences[0] = (am_scene_influence){1, 2.0f}; /* unnormalised on purpose */
    m->influence_start[1] = 1; /* vertex 1: half and half */
    m->influences[1] = (am_scene_influence){0, 0.5f};
    m->influences[2] = (am_scene_influence){1, 0.5f};
    m->influence_start[2] = 3; /* vertex 2: root */
    m->influences[3] = (am_scene_influence){0, 1.0f};
    m->influence_start[3] = 4;

    s->clip_count = 1;
    s->clips = calloc(1, sizeof *s->clips);
    am_scene_clip *c = &s->clips[0];
    c->name = dup("wave");
    c->channel_count = 2;
    c->channels = calloc(2, sizeof *c->channels);
    /* root rotation: identity at 0 s, 90 deg about X at 2 s */
    am_scene_channel *r = &c->channels[0];
    r->node = 0;
    r->path = AM_SCENE_PATH_ROTATION;
    r->interp = interp;
    r->key_count = 2;
    r->times = malloc(2 * sizeof(float));
    r->times[0] = 0;
    r->times[1] = 2;
    size_t rw = interp == AM_SCENE_INTERP_CUBICSPLINE ? 12 : 4;
    r->values = calloc(2 * rw, sizeof(float));
    float h = (float)sqrt(0.5);
    float q0[4] = {0, 0, 0, 1}, q1[4] = {h, 0, 0, h};
    memcpy(&r->values[interp == AM_SCENE_INTERP_CUBICSPLINE ? 4 : 0], q0, sizeof q0);
    memcpy(&r->values[rw + (interp == AM_SCENE_INTERP_CUBICSPLINE ? 4 : 0)], q1, sizeof q1);
    /* bone translation: (0,0,1) at 0 s, (0,0,3) at 2 s; cubic tangents 1 m/s out of key 0 */
    am_scene_channel *t = &c->channels[1];
    t->node = 1;
    t->path = AM_SCENE_PATH_TRANSLATION;
    t->interp = interp;
    t->key_count = 2;
    t->times = malloc(2 * sizeof(float));
    t->times[0] = 0;
    t->times[1] = 2;
    size_t tw = interp == AM_SCENE_INTERP_CUBICSPLINE ? 9 : 3;
    t->values = calloc(2 * tw, sizeof(float));
    if (interp == AM_SCENE_INTERP_CUBICSPLINE) {
        t->values[3 + 2] = 1; /* key 0 value z = 1 */
        t->values[6 + 2] = 1; /* key 0 out-tangent z = 1 m/s */
        t->values[9 + 0 + 2] = 0; /* key 1 in-tangent z = 0 */
        t->values[9 + 3 + 2] = 3; /* key 1 value z = 3 */
    } else {
        t->values[2] = 1;
        t->values[3 + 2] = 3;
    }
}

static void test_finish_computes_world_parents_first(void **state)
{
    (void)state;
    am_scene s;
    build(&s, AM_SCENE_INTERP_LINEAR);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    /* bone world = its local (root is identity): +X of the bone maps to +Y */
    am_vec3 p = am_mat4_transform_point(&s.nodes[1].world, am_v3(1, 0, 0));
    assert_near(p.x, 0, 1e-12);
    assert_near(p.y, 1, 1e-12);
    assert_near(p.z, 1, 1e-12);
    assert_near(s.clips[0].start_s, 0, 0);
    assert_near(s.clips[0].end_s, 2, 0);
    assert_true(s.nodes[1].is_joint);
    am_scene_free(&s);
}

static void test_linear_clip_between_keys(void **state)
{
    (void)state;
    am_scene s;
    build(&s, AM_SCENE_INTERP_LINEAR);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    am_scene_trs trs[2];
    am_mat4 local[2], world[2];
    am_scene_eval_clip(&s, &s.clips[0], 0.5, trs, local);
    /* slerp a quarter of 90 deg about X: 22.5 deg */
    am_quat want = am_quat_axis_angle(am_v3(1, 0, 0), AM_PI / 8);
    assert_near(am_quat_angle_between(trs[0].rotation, want), 0, 1e-6);
    assert_near(trs[1].translation.z, 1.5, 1e-6);
    /* the bone's origin in world: rotate (0, 0, 1.5) by 22.5 deg about X */
    am_scene_world_from_local(&s, local, world);
    am_vec3 o = am_mat4_get_translation(&world[1]);
    assert_near(o.y, -1.5 * sin(AM_PI / 8), 1e-6);
    assert_near(o.z, 1.5 * cos(AM_PI / 8), 1e-6);
    /* clamped past the end */
    am_scene_eval_clip(&s, &s.clips[0], 9.0, trs, NULL);
    assert_near(trs[1].translation.z, 3, 1e-6);
    am_scene_free(&s);
}

static void test_step_holds_previous_key(void **state)
{
    (void)state;
    am_scene s;
    build(&s, AM_SCENE_INTERP_STEP);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    am_scene_trs trs[2];
    am_scene_eval_clip(&s, &s.clips[0], 1.99, trs, NULL);
    assert_near(trs[1].translation.z, 1, 1e-6);
    assert_near(am_quat_angle_between(trs[0].rotation, am_quat_identity()), 0, 1e-6);
    am_scene_eval_clip(&s, &s.clips[0], 2.0, trs, NULL);
    assert_near(trs[1].translation.z, 3, 1e-6);
    am_scene_free(&s);
}

static void test_cubicspline_is_hermite(void **state)
{
    (void)state;
    am_scene s;
    build(&s, AM_SCENE_INTERP_CUBICSPLINE);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    am_scene_trs trs[2];
    /* t = 0.5: u = 0.25, dt = 2; h00 = 2u^3-3u^2+1, h10 = u^3-2u^2+u, h01 = -2u^3+3u^2 */
    double u = 0.25, dt = 2;
    double want = (2 * u * u * u - 3 * u * u + 1) * 1 + (u * u * u - 2 * u * u + u) * dt * 1 +
                  (-2 * u * u * u + 3 * u * u) * 3;
    am_scene_eval_clip(&s, &s.clips[0], 0.5, trs, NULL);
    assert_near(trs[1].translation.z, want, 1e-6);
    assert_gt(fabs(want - 1.5), 0.05); /* differs from linear: the test can tell them apart */
    /* rotations with zero tangents stay unit length and hit the end key */
    am_scene_eval_clip(&s, &s.clips[0], 2.0, trs, NULL);
    assert_near(am_quat_angle_between(trs[0].rotation, am_quat_axis_angle(am_v3(1, 0, 0), AM_PI / 2)), 0, 1e-6);
    am_scene_free(&s);
}

static void test_skin_positions_normalise_weights(void **state)
{
    (void)state;
    am_scene s;
    build(&s, AM_SCENE_INTERP_LINEAR);
    /* Inverse binds = inverse rest worlds: the rest pose reproduces the positions. */
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_OK);
    for (int j = 0; j < 2; j++)
        assert_true(am_mat4_inverse(&s.nodes[j].world, &s.skins[0].inverse_binds[j]));
    am_mat4 world[2];
    world[0] = s.nodes[0].world;
    world[1] = s.nodes[1].world;
    float out[9];
    assert_int_equal(am_scene_skin_positions(&s, 0, world, out, &err), AM_OK);
    for (int i = 0; i < 9; i++)
        assert_near(out[i], s.meshes[0].positions[i], 1e-6);
    /* Move the bone up 1 m: vertex 0 (all bone, weight 2 normalised to 1) rises 1 m,
     * vertex 1 (half bone) rises 0.5 m, vertex 2 (root) stays. */
    am_mat4 up = am_mat4_translation(am_v3(0, 0, 1));
    world[1] = am_mat4_mul(&s.nodes[1].world, &up);
    assert_int_equal(am_scene_skin_positions(&s, 0, world, out, &err), AM_OK);
    assert_near(out[2], 2.5, 1e-6);
    assert_near(out[5], 1.5, 1e-6);
    assert_near(out[8], 0, 1e-6);
    am_scene_free(&s);
}

static void test_finish_refuses_bad_references(void **state)
{
    (void)state;
    am_error err;
    char msg[512];
    am_scene s;

    build(&s, AM_SCENE_INTERP_LINEAR);
    s.meshes[0].faces[0].indices[2] = 7;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(am_error_format(&err, msg, sizeof msg), "index 7 out of range"));
    assert_non_null(strstr(msg, "hand-built"));
    am_scene_free(&s);

    build(&s, AM_SCENE_INTERP_LINEAR);
    s.meshes[0].influences[0].joint = 5;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(am_error_format(&err, msg, sizeof msg), "joint index 5"));
    am_scene_free(&s);

    build(&s, AM_SCENE_INTERP_LINEAR);
    s.skins[0].inverse_binds[1].m[5] = NAN;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(am_error_format(&err, msg, sizeof msg), "inverse bind"));
    am_scene_free(&s);

    build(&s, AM_SCENE_INTERP_LINEAR);
    s.clips[0].channels[1].times[1] = -1;
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(am_error_format(&err, msg, sizeof msg), "before key 0"));
    am_scene_free(&s);

    build(&s, AM_SCENE_INTERP_LINEAR);
    s.nodes[0].parent = 1; /* a child before its parent */
    am_error_clear(&err);
    assert_int_equal(am_scene_finish(&s, &err), AM_ERR_INVALID);
    assert_non_null(strstr(am_error_format(&err, msg, sizeof msg), "not an earlier node"));
    am_scene_free(&s);
}

static void test_decompose_detects_shear_and_mirror(void **state)
{
    (void)state;
    am_vec3 t, sc;
    am_quat r;
    am_quat q = am_quat_axis_angle(am_v3(1, 2, 3), 0.7);
    am_mat4 m = am_mat4_from_trs(am_v3(1, 2, 3), q, am_v3(2, 3, 4));
    assert_true(am_scene_decompose(&m, &t, &r, &sc));
    assert_near(am_quat_angle_between(r, q), 0, 1e-9);
    assert_near(sc.y, 3, 1e-9);
    am_mat4 mirror = am_mat4_from_trs(am_v3(0, 0, 0), q, am_v3(-1, 1, 1));
    assert_true(am_scene_decompose(&mirror, &t, &r, &sc));
    assert_near(sc.x, -1, 1e-9);
    m.m[1] += 0.3; /* shear */
    assert_false(am_scene_decompose(&m, &t, &r, &sc));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finish_computes_world_parents_first),
        cmocka_unit_test(test_linear_clip_between_keys),
        cmocka_unit_test(test_step_holds_previous_key),
        cmocka_unit_test(test_cubicspline_is_hermite),
        cmocka_unit_test(test_skin_positions_normalise_weights),
        cmocka_unit_test(test_finish_refuses_bad_references),
        cmocka_unit_test(test_decompose_detects_shear_and_mirror),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
