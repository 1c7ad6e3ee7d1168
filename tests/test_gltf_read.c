/* The glTF reader (src/readers/gltf/gltf.h) on files written by the test fixtures: what the scene
 * holds is what the description put in (names, transforms, vertices, weights, keys); the
 * scene's posed vertices equal the file's own skinning computed independently by the
 * fixtures, for every interpolation, container (.gltf + .bin, data: URIs, .glb) and frame
 * (Y-up metres, Z-up centimetres); and Khronos' simple_skin.gltf against numbers worked
 * out by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/gltf_fixtures.h"
#include "readers/scene_load.h"
#include "support/test_support.h"
#include "core/base64.h"

#define SIMPLE_SKIN "/usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf"

static const am_gf_container containers[] = {AM_GF_GLTF, AM_GF_GLTF_EMBEDDED, AM_GF_GLB};
static const char *container_names[] = {"gltf", "embedded", "glb"};

/* The scene's own pose of mesh 0 under clip at t (the path every importer's output takes),
 * against `want`: the largest distance. */
static double pose_error(const am_scene *s, size_t clip, double t, const float *want)
{
    am_scene_trs *trs = calloc(s->node_count, sizeof *trs);
    am_mat4 *local = calloc(s->node_count, sizeof *local), *world = calloc(s->node_count, sizeof *world);
    float *got = calloc(3 * s->meshes[0].vertex_count, sizeof *got);
    assert_non_null(trs);
    assert_non_null(local);
    assert_non_null(world);
    assert_non_null(got);
    am_scene_eval_clip(s, &s->clips[clip], t, trs, local);
    am_scene_world_from_local(s, local, world);
    am_error err = {0};
    assert_int_equal(am_scene_skin_positions(s, 0, world, got, &err), AM_OK);
    double worst = 0;
    for (size_t v = 0; v < s->meshes[0].vertex_count; v++) {
        double d = am_v3_dist(am_v3(got[3 * v], got[3 * v + 1], got[3 * v + 2]),
                              am_v3(want[3 * v], want[3 * v + 1], want[3 * v + 2]));
        worst = d > worst ? d : worst;
    }
    free(trs);
    free(local);
    free(world);
    free(got);
    return worst;
}

static void assert_quat_same_rotation(am_quat a, am_quat b, double tol)
{
    double d = fabs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
    assert_near(d, 1.0, tol);
}

/* Everything the description put in comes out of the scene. */
static void check_bendbox_scene(const am_scene *s, const am_gf_model *m)
{
    assert_int_equal(s->format, AM_SCENE_FORMAT_GLTF);
    assert_int_equal(s->node_count, 3); /* root, bend, bendbox_mesh */
    assert_string_equal(s->nodes[0].name, "root");
    assert_string_equal(s->nodes[1].name, "bend");
    assert_string_equal(s->nodes[2].name, "bendbox_mesh");
    assert_int_equal(s->nodes[0].parent, -1);
    assert_int_equal(s->nodes[1].parent, 0);
    for (int n = 0; n < 2; n++) {
        assert_true(s->nodes[n].has_trs);
        assert_near(am_v3_dist(s->nodes[n].translation, m->nodes[n].t), 0, 1e-6);
        assert_quat_same_rotation(s->nodes[n].rotation, m->nodes[n].r, 1e-6);
    }
    /* declared: glTF's frame */
    assert_int_equal(s->declared.up, 2);
    assert_int_equal(s->declared.forward, 3);
    assert_near(s->declared.unit_m, 1.0, 0);

    assert_int_equal(s->mesh_count, 1);
    const am_scene_mesh *me = &s->meshes[0];
    assert_int_equal(me->node, 2);
    assert_string_equal(me->name, "bendbox");
    assert_int_equal(me->vertex_count, m->vertex_count);
    assert_non_null(me->normals);
    assert_non_null(me->uvs);
    for (size_t v = 0; v < m->vertex_count; v++) {
        for (int k = 0; k < 3; k++) {
            assert_near(me->positions[3 * v + k], m->positions[3 * v + k], 0);
            assert_near(me->normals[3 * v + k], m->normals[3 * v + k], 0);
        }
        assert_near(me->uvs[2 * v], m->uvs[2 * v], 0);
        assert_near(me->uvs[2 * v + 1], 1.0 - m->uvs[2 * v + 1], 1e-7); /* v up in the scene */
    }
    assert_int_equal(me->face_count, 1);
    assert_int_equal(me->faces[0].material, 0);
    assert_int_equal(me->faces[0].index_count, m->index_count);
    for (size_t i = 0; i < m->index_count; i++)
        assert_int_equal(me->faces[0].indices[i], m->indices[i]);
    assert_int_equal(s->material_count, 1);
    assert_near(s->materials[0].base_color[0], 0.8, 1e-12);
    assert_null(s->materials[0].image_path);
    assert_null(s->materials[0].image_data);

    /* skin: joints, inverse binds = inverse rest world of the description */
    assert_int_equal(me->skin, 0);
    const am_scene_skin *k = &s->skins[0];
    assert_int_equal(k->joint_count, 2);
    assert_string_equal(k->joint_names[0], "root");
    assert_string_equal(k->joint_names[1], "bend");
    assert_int_equal(k->joint_nodes[0], 0);
    assert_int_equal(k->joint_nodes[1], 1);
    assert_int_equal(k->skeleton_root, 0);
    assert_true(k->has_inverse_binds);
    am_mat4 rest[2], inv;
    am_gf_rest_world(m, rest);
    for (int j = 0; j < 2; j++) {
        assert_true(am_mat4_inverse(&rest[j], &inv));
        assert_near(am_mat4_max_abs_diff(&inv, &k->inverse_binds[j]), 0, 1e-6);
    }
    /* influences: the zero padding dropped, the rest exactly as written */
    for (size_t v = 0; v < m->vertex_count; v++) {
        size_t want = 0;
        for (size_t i = 0; i < m->influence_count; i++) {
            const am_gf_influence *inf = &m->influences[v * m->influence_count + i];
            if (inf->weight == 0)
                continue;
            bool found = false;
            for (size_t g = me->influence_start[v]; g < me->influence_start[v + 1]; g++)
                if (me->influences[g].joint == inf->joint) {
                    assert_near(me->influences[g].weight, inf->weight, 0);
                    found = true;
                }
            assert_true(found);
            want++;
        }
        assert_int_equal(me->influence_start[v + 1] - me->influence_start[v], want);
    }
    /* the clip, key for key */
    assert_int_equal(s->clip_count, 1);
    assert_string_equal(s->clips[0].name, "fold");
    assert_int_equal(s->clips[0].channel_count, 2);
    assert_near(s->clips[0].start_s, 0, 0);
    assert_near(s->clips[0].end_s, 6, 0);
    for (size_t h = 0; h < 2; h++) {
        const am_scene_channel *got = &s->clips[0].channels[h];
        const am_gf_channel *want = &m->clips[0].channels[h];
        assert_int_equal(got->node, want->node);
        assert_int_equal(got->path, want->path);
        assert_int_equal(got->interp, want->interp);
        assert_int_equal(got->key_count, want->key_count);
        size_t floats = want->key_count * (want->path == AM_SCENE_PATH_ROTATION ? 4 : 3) *
                        (want->interp == AM_SCENE_INTERP_CUBICSPLINE ? 3 : 1);
        for (size_t k2 = 0; k2 < want->key_count; k2++)
            assert_near(got->times[k2], want->times[k2], 0);
        for (size_t f = 0; f < floats; f++)
            assert_near(got->values[f], want->values[f], 0);
    }
}

static void test_bendbox_reads_back_what_was_written_in_every_container(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_model m;
    am_gf_bendbox(&m, AM_SCENE_INTERP_CUBICSPLINE);
    for (size_t c = 0; c < 3; c++) {
        am_gf_options o = {.container = containers[c]};
        am_gf_write(&m, &o, dir, container_names[c], path, sizeof path);
        am_scene s;
        am_gf_load(path, &s);
        check_bendbox_scene(&s, &m);
        assert_non_null(strstr(am_str(&s.format_detail), "glTF 2.0"));
        assert_int_equal(strstr(am_str(&s.format_detail), ".glb") != NULL, containers[c] == AM_GF_GLB);
        am_scene_free(&s);
    }
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
}

/* The posed mesh between keys and on keys, for each interpolation, against the fixtures'
 * own evaluation of the same file: to 1e-3 of the model's height (it is far closer). */
static void check_poses(const char *path, const am_gf_model *m, const double *times, size_t nt)
{
    am_scene s;
    am_gf_load(path, &s);
    float *want = malloc(3 * m->vertex_count * sizeof *want);
    assert_non_null(want);
    for (size_t i = 0; i < nt; i++) {
        am_gf_pose(m, 0, times[i], want);
        double e = pose_error(&s, 0, times[i], want);
        if (e > 1e-3 * m->height_m)
            fail_msg("%s at %.3f s: posed vertices %.3g off (height %.3g)", path, times[i], e, m->height_m);
        assert_lt(e, 1e-5 * m->height_m);
    }
    /* and the rest pose (no clip) is the mesh as written */
    am_gf_pose(m, -1, 0, want);
    am_mat4 *world = malloc(s.node_count * sizeof *world);
    float *got = malloc(3 * m->vertex_count * sizeof *got);
    for (size_t n = 0; n < s.node_count; n++)
        world[n] = s.nodes[n].world;
    am_error err = {0};
    assert_int_equal(am_scene_skin_positions(&s, 0, world, got, &err), AM_OK);
    for (size_t v = 0; v < 3 * m->vertex_count; v++)
        assert_near(got[v], m->positions[v], 1e-5 * m->height_m);
    free(world);
    free(got);
    free(want);
    am_scene_free(&s);
}

static void test_bendbox_poses_match_the_files_own_skinning_for_each_interpolation(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    const double times[] = {0, 0.4, 1.5, 2.2, 3.0, 3.7, 4.5, 5.9, 6.0};
    const am_scene_interp interps[] = {AM_SCENE_INTERP_LINEAR, AM_SCENE_INTERP_STEP, AM_SCENE_INTERP_CUBICSPLINE};
    for (size_t i = 0; i < 3; i++)
        for (int f = 0; f < 2; f++) {
            am_gf_model m, fm;
            am_gf_bendbox(&m, interps[i]);
            am_gf_convert(&m, f ? AM_GF_Z_UP_CM : AM_GF_Y_UP_M, &fm);
            char name[32];
            snprintf(name, sizeof name, "bend%zu_%d", i, f);
            am_gf_options o = {.container = f ? AM_GF_GLB : AM_GF_GLTF};
            am_gf_write(&fm, &o, dir, name, path, sizeof path);
            check_poses(path, &fm, times, sizeof times / sizeof times[0]);
            am_gf_model_free(&m);
            am_gf_model_free(&fm);
        }
    am_gf_remove_tree(dir);
}

/* The fold at 3 s (90 degrees) by hand: the +X end's top corner (2, 1, 1), fully on
 * "bend" (hinge at (0, 0.5, 0)), turns 90 degrees about +Z to (-0.5, 2.5, 1), and the root's
 * lift (0.1 at 3 s) raises it to y 2.6. */
static void test_bendbox_fold_by_hand(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_model m;
    am_gf_bendbox(&m, AM_SCENE_INTERP_LINEAR);
    am_gf_write(&m, NULL, dir, "fold", path, sizeof path);
    am_scene s;
    am_gf_load(path, &s);
    am_scene_trs trs[3];
    am_mat4 local[3], world[3];
    am_scene_eval_clip(&s, &s.clips[0], 3.0, trs, local);
    am_scene_world_from_local(&s, local, world);
    float *got = malloc(3 * s.meshes[0].vertex_count * sizeof *got);
    am_error err = {0};
    assert_int_equal(am_scene_skin_positions(&s, 0, world, got, &err), AM_OK);
    size_t v = 4 * 16 + 2; /* last ring, corner (y 1, z 1) */
    assert_near(m.positions[3 * v], 2, 0);
    /* the root is lifted 0.1 at 3 s */
    assert_near(got[3 * v], -0.5, 1e-5);
    assert_near(got[3 * v + 1], 2.5 + 0.1, 1e-5);
    assert_near(got[3 * v + 2], 1, 1e-5);
    free(got);
    am_scene_free(&s);
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
}

static void test_quadruped_y_up_metres_and_z_up_centimetres_as_gltf_and_glb(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    const double times[] = {0, 0.06, 0.125, 0.3, 0.5, 0.77, 1.0};
    am_gf_model m;
    am_gf_quadruped(&m);
    assert_int_equal(m.joint_count, 19);
    for (int f = 0; f < 2; f++) {
        am_gf_model fm;
        am_gf_convert(&m, f ? AM_GF_Z_UP_CM : AM_GF_Y_UP_M, &fm);
        /* The conversion is a proper frame change: posed points map by 100 R. */
        float *a = malloc(3 * m.vertex_count * sizeof *a), *b = malloc(3 * m.vertex_count * sizeof *b);
        am_gf_pose(&m, 0, 0.3, a);
        am_gf_pose(&fm, 0, 0.3, b);
        for (size_t v = 0; v < m.vertex_count; v++) {
            am_vec3 p = am_gf_frame_point(f ? AM_GF_Z_UP_CM : AM_GF_Y_UP_M, am_v3(a[3 * v], a[3 * v + 1], a[3 * v + 2]));
            assert_near(am_v3_dist(p, am_v3(b[3 * v], b[3 * v + 1], b[3 * v + 2])), 0, 1e-4 * fm.height_m);
        }
        free(a);
        free(b);
        for (int glb = 0; glb < 2; glb++) {
            char name[32];
            snprintf(name, sizeof name, "quad_%d_%d", f, glb);
            am_gf_options o = {.container = glb ? AM_GF_GLB : AM_GF_GLTF};
            am_gf_write(&fm, &o, dir, name, path, sizeof path);
            check_poses(path, &fm, times, sizeof times / sizeof times[0]);
            am_scene s;
            am_gf_load(path, &s);
            assert_int_equal(s.node_count, 21);
            assert_int_equal(s.skins[0].joint_count, 19);
            assert_string_equal(s.skins[0].joint_names[4], "Head");
            /* non-identity rest rotations, as Blender writes them */
            size_t rotated = 0;
            for (size_t n = 1; n < 20; n++)
                rotated += fabs(s.nodes[n].rotation.w) < 0.999;
            assert_ge(rotated, 15);
            assert_int_equal(s.clips[0].channel_count, 11);
            assert_near(s.clips[0].end_s, 1.0, 0);
            am_scene_free(&s);
        }
        am_gf_model_free(&fm);
    }
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
}

/* glTF's column-major matrix array IS the LL layout (am_math.h: row vectors, translation
 * at m[12..14]): a node matrix with a 90-degree turn about Z and a translation (5, 6, 7)
 * moves the point (1, 0, 0) to (5, 7, 7), as a column-vector reading of the same matrix
 * says (M * [1 0 0 1]^T: column 0 is (0, 1, 0), column 3 is (5, 6, 7)). */
static void test_node_matrix_is_the_ll_layout(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/m.gltf", dir);
    am_test_write_text(path, "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}],"
                             " \"nodes\": [{\"name\": \"turned\", \"matrix\": [0,1,0,0, -1,0,0,0, 0,0,1,0, 5,6,7,1]}]}");
    am_scene s;
    am_gf_load(path, &s);
    assert_int_equal(s.node_count, 1);
    assert_int_equal(s.note_count, 0);
    assert_true(s.nodes[0].has_trs);
    am_vec3 p = am_mat4_transform_point(&s.nodes[0].world, am_v3(1, 0, 0));
    assert_near(p.x, 5, 1e-12);
    assert_near(p.y, 7, 1e-12);
    assert_near(p.z, 7, 1e-12);
    assert_near(s.nodes[0].translation.x, 5, 1e-12);
    assert_near(s.nodes[0].translation.y, 6, 1e-12);
    assert_near(s.nodes[0].translation.z, 7, 1e-12);
    assert_quat_same_rotation(s.nodes[0].rotation, am_quat_axis_angle(am_v3(0, 0, 1), AM_PI / 2), 1e-12);
    am_scene_free(&s);
    /* the same behind a UTF-8 byte order mark: read, with a note */
    am_test_write_text(path, "\xEF\xBB\xBF{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{\"name\": \"n\"}]}");
    am_gf_load(path, &s);
    assert_int_equal(s.node_count, 1);
    bool noted = false;
    for (size_t n = 0; n < s.note_count; n++)
        noted = noted || strstr(am_str(&s.notes[n]), "UTF-8 byte order mark (skipped)");
    assert_true(noted);
    am_scene_free(&s);

    /* The fixtures' matrix option: the same rig, the same poses. */
    am_gf_model m;
    am_gf_quadruped(&m);
    am_gf_options o = {.matrices = true};
    am_gf_write(&m, &o, dir, "quadm", path, sizeof path);
    const double times[] = {0.2, 0.6};
    check_poses(path, &m, times, 2);
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
}

/* Weights and joints over two sets, a joint repeated across them: merged per vertex. */
static void test_every_joints_weights_set_is_merged(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_model m;
    am_gf_bendbox(&m, AM_SCENE_INTERP_LINEAR);
    /* 6 slots: root's weight split over slots 0 and 5 (JOINTS_1), bend's in slot 4. */
    am_gf_influence *wide = calloc(6 * m.vertex_count, sizeof *wide);
    for (size_t v = 0; v < m.vertex_count; v++) {
        float wr = m.influences[2 * v].weight, wb = m.influences[2 * v + 1].weight;
        wide[6 * v + 0] = (am_gf_influence){0, wr * 0.25f};
        wide[6 * v + 4] = (am_gf_influence){1, wb};
        wide[6 * v + 5] = (am_gf_influence){0, wr * 0.75f};
    }
    am_gf_influence *narrow = m.influences;
    m.influences = wide;
    m.influence_count = 6;
    am_gf_write(&m, NULL, dir, "wide", path, sizeof path);
    am_scene s;
    am_gf_load(path, &s);
    const am_scene_mesh *me = &s.meshes[0];
    for (size_t v = 0; v < m.vertex_count; v++) {
        double root = 0, bend = 0;
        size_t n = me->influence_start[v + 1] - me->influence_start[v];
        for (size_t g = me->influence_start[v]; g < me->influence_start[v + 1]; g++)
            *(me->influences[g].joint ? &bend : &root) += me->influences[g].weight;
        assert_near(root, narrow[2 * v].weight, 1e-7);
        assert_near(bend, narrow[2 * v + 1].weight, 1e-7);
        assert_true(n == (size_t)(narrow[2 * v].weight > 0) + (narrow[2 * v + 1].weight > 0));
    }
    const double times[] = {1.0, 3.3};
    check_poses(path, &m, times, 2);
    m.influences = narrow;
    m.influence_count = 2;
    free(wide);
    am_scene_free(&s);
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
}

/* Component types the fixtures can write: the scene holds the dequantised values. */
static void test_quantised_weights_uvs_and_small_indices(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_model m;
    am_gf_bendbox(&m, AM_SCENE_INTERP_STEP);
    const int types[2] = {5121, 5123};
    for (int t = 0; t < 2; t++) {
        am_gf_options o = {.joints_type = types[t], .weights_type = types[t], .uv_type = types[t],
                           .index_type = types[t], .interleave = t == 1};
        char name[16];
        snprintf(name, sizeof name, "q%d", t);
        am_gf_write(&m, &o, dir, name, path, sizeof path);
        am_scene s;
        am_gf_load(path, &s);
        const am_scene_mesh *me = &s.meshes[0];
        double max = types[t] == 5121 ? 255.0 : 65535.0;
        for (size_t v = 0; v < m.vertex_count; v++) {
            /* c = round(x * max), read back as c / max (glTF 2.0 3.11) */
            double u = floor(m.uvs[2 * v] * max + 0.5) / max, vv = floor(m.uvs[2 * v + 1] * max + 0.5) / max;
            assert_near(me->uvs[2 * v], u, 1e-7);
            assert_near(me->uvs[2 * v + 1], 1 - vv, 1e-7);
            for (size_t g = me->influence_start[v]; g < me->influence_start[v + 1]; g++) {
                double w = m.influences[2 * v + me->influences[g].joint].weight;
                assert_near(me->influences[g].weight, floor(w * max + 0.5) / max, 1e-7);
            }
            for (int k = 0; k < 3; k++) /* interleaved POSITION/NORMAL (byteStride 24) */
                assert_near(me->normals[3 * v + k], m.normals[3 * v + k], 0);
        }
        for (size_t i = 0; i < m.index_count; i++)
            assert_int_equal(me->faces[0].indices[i], m.indices[i]);
        am_scene_free(&s);
    }
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
}

/* The limit fixtures: a 120-joint chain with a 70 s clip, and a model with no skin. */
static void test_chain_and_unrigged_fixtures(void **state)
{
    (void)state;
    char dir[256], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_model m;
    am_gf_chain(&m, 120, 0.05, 70.0);
    am_gf_options o = {.container = AM_GF_GLB};
    am_gf_write(&m, &o, dir, "chain", path, sizeof path);
    const double times[] = {0, 13.1, 35, 52.5, 70};
    check_poses(path, &m, times, 5);
    am_scene s;
    am_gf_load(path, &s);
    assert_int_equal(s.skins[0].joint_count, 120);
    assert_int_equal(s.node_count, 121);
    assert_int_equal(s.nodes[119].parent, 118);
    assert_near(s.nodes[119].world.m[13], 119 * 0.05, 1e-5);
    assert_near(s.clips[0].end_s, 70, 0);
    am_scene_free(&s);
    o.no_skin = true;
    am_gf_write(&m, &o, dir, "still", path, sizeof path);
    am_gf_load(path, &s);
    assert_int_equal(s.skin_count, 0);
    assert_int_equal(s.clip_count, 0);
    assert_int_equal(s.meshes[0].skin, -1);
    assert_null(s.meshes[0].influence_start);
    assert_int_equal(s.meshes[0].vertex_count, 8 * 120);
    am_scene_free(&s);
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
}

/* Khronos' simple skin (Debian's assimp-testmodels), worked by hand: joints node1 (at
 * (0, 1, 0)) and node2 (its child); both inverse binds translate by (-0.5, -1, 0); the
 * clip turns node2 about Z: 45 degrees at 0.5 s, 90 at 1.0 s (so 67.5 at 0.75 s, slerp). */
static void simple_skin_pose(const am_scene *s, double t, float *got)
{
    am_scene_trs trs[3];
    am_mat4 local[3], world[3];
    am_scene_eval_clip(s, &s->clips[0], t, trs, local);
    am_scene_world_from_local(s, local, world);
    am_error err = {0};
    assert_int_equal(am_scene_skin_positions(s, 0, world, got, &err), AM_OK);
}

static void test_simple_skin_real_file(void **state)
{
    (void)state;
    am_test_skip_if_missing(SIMPLE_SKIN);
    am_scene s;
    am_gf_load(SIMPLE_SKIN, &s);
    assert_int_equal(s.node_count, 3);
    assert_int_equal(s.mesh_count, 1);
    assert_int_equal(s.meshes[0].vertex_count, 10);
    assert_int_equal(s.meshes[0].faces[0].index_count, 24);
    assert_null(s.meshes[0].normals);
    assert_int_equal(s.skin_count, 1);
    assert_int_equal(s.skins[0].joint_count, 2);
    assert_string_equal(s.skins[0].joint_names[0], "node1"); /* unnamed joint nodes */
    assert_string_equal(s.skins[0].joint_names[1], "node2");
    assert_string_equal(s.nodes[1].name, "");
    assert_near(s.skins[0].inverse_binds[1].m[12], -0.5, 0);
    assert_near(s.skins[0].inverse_binds[1].m[13], -1.0, 0);
    assert_int_equal(s.clip_count, 1);
    assert_string_equal(s.clips[0].name, "clip0");
    assert_int_equal(s.clips[0].channels[0].key_count, 12);
    assert_int_equal(s.clips[0].channels[0].node, 2);
    assert_near(s.clips[0].end_s, 5.5, 0);

    float got[30];
    simple_skin_pose(&s, 1.0, got);
    /* vertex 8 (0, 2, 0), all node2: p + (-0.5, -1, 0) = (-0.5, 1, 0), turned 90 deg: (-1, -0.5), + (0, 1, 0) */
    assert_near(got[24], -1.0, 3e-4);
    assert_near(got[25], 0.5, 3e-4);
    /* vertex 4 (0, 1, 0), half each: (-0.5, 1) from node1, (-0.5, 0) turned + (0, 1) = (0, 0.5) from node2 */
    assert_near(got[12], -0.25, 3e-4);
    assert_near(got[13], 0.75, 3e-4);
    /* vertex 0, all node1: the rest shifted by the inverse binds' -0.5 */
    assert_near(got[0], -0.5, 1e-6);
    assert_near(got[1], 0, 1e-6);
    /* between keys: 67.5 degrees */
    simple_skin_pose(&s, 0.75, got);
    const double c = cos(67.5 * AM_DEG2RAD), sn = sin(67.5 * AM_DEG2RAD);
    assert_near(got[24], -0.5 * c - sn, 3e-4);
    assert_near(got[25], -0.5 * sn + c + 1, 3e-4);
    am_scene_free(&s);
}

/* The base colour texture: PNG bytes from a GLB bufferView, a JPEG file beside the
 * .gltf, a PNG data: URI; the bytes decode with the import pipeline's am_image_decode. */
static void set_texture(json_t *doc, json_t *image)
{
    json_t *pbr = json_object_get(json_array_get(json_object_get(doc, "materials"), 0), "pbrMetallicRoughness");
    json_object_set_new(pbr, "baseColorTexture", json_pack("{s:i}", "index", 0));
    json_object_set_new(doc, "textures", json_pack("[{s:i}]", "source", 0));
    json_object_set_new(doc, "images", json_pack("[o]", image));
}

static void test_textures_from_a_view_a_file_and_a_data_uri(void **state)
{
    (void)state;
    char dir[256], path[1024], file[512];
    am_test_tmpdir(dir, sizeof dir);
    am_gf_model m;
    am_gf_bendbox(&m, AM_SCENE_INTERP_LINEAR);
    am_tex_image pic, got;
    am_gf_picture(&pic, 16, 8, 4);
    am_buf png = {0}, jpg = {0}, bin = {0};
    assert_int_equal(am_tex_png_encode(&pic, &png, NULL), AM_OK);
    am_gf_jpeg_options jo = {.quality = 90};
    am_gf_jpeg(&pic, &jo, &jpg);
    am_error err = {0};

    /* GLB: the PNG in a bufferView */
    json_t *doc = am_gf_document(&m, NULL, &bin);
    while (bin.size % 4)
        am_buf_append(&bin, "\0", 1, NULL);
    json_t *views = json_object_get(doc, "bufferViews");
    json_array_append_new(views, json_pack("{s:i, s:I, s:I}", "buffer", 0, "byteOffset", (json_int_t)bin.size,
                                           "byteLength", (json_int_t)png.size));
    am_buf_append(&bin, png.data, png.size, NULL);
    json_object_set_new(json_array_get(json_object_get(doc, "buffers"), 0), "byteLength",
                        json_integer((json_int_t)bin.size));
    set_texture(doc, json_pack("{s:I, s:s}", "bufferView", (json_int_t)json_array_size(views) - 1, "mimeType",
                               "image/png"));
    am_gf_save(doc, &bin, AM_GF_GLB, dir, "view", path, sizeof path);
    am_scene s;
    am_gf_load(path, &s);
    assert_int_equal(s.materials[0].image_size, png.size);
    assert_memory_equal(s.materials[0].image_data, png.data, png.size);
    assert_string_equal(am_str(&s.materials[0].image_mime), "image/png");
    assert_null(s.materials[0].image_path);
    assert_int_equal(am_image_decode(s.materials[0].image_data, s.materials[0].image_size, &got, &err), AM_OK);
    assert_memory_equal(got.pixels, pic.pixels, 16 * 8 * 4);
    am_tex_image_free(&got);
    am_scene_free(&s);

    /* .gltf: a JPEG file in a subfolder, its name percent-escaped */
    snprintf(file, sizeof file, "%s/tex", dir);
    assert_int_equal(am_mkdir_p(file, NULL), AM_OK);
    snprintf(file, sizeof file, "%s/tex/skin 1.jpg", dir);
    assert_int_equal(am_write_file_atomic(file, jpg.data, jpg.size, NULL), AM_OK);
    set_texture(doc, json_pack("{s:s}", "uri", "tex/skin%201.jpg"));
    am_gf_save(doc, &bin, AM_GF_GLTF, dir, "file", path, sizeof path);
    am_gf_load(path, &s);
    assert_null(s.materials[0].image_data);
    assert_non_null(s.materials[0].image_path);
    assert_non_null(strstr(s.materials[0].image_path, "/tex/skin 1.jpg"));
    assert_string_equal(am_str(&s.materials[0].image_mime), "image/jpeg");
    assert_int_equal(am_image_read(s.materials[0].image_path, &got, &err), AM_OK);
    assert_int_equal(got.width, 16);
    assert_int_equal(got.channels, 3);
    am_tex_image_free(&got);
    am_scene_free(&s);

    /* a data: URI */
    char *b64;
    assert_int_equal(am_base64_encode(png.data, png.size, &b64, NULL), AM_OK);
    size_t n = strlen(b64) + 32;
    char *uri = malloc(n);
    snprintf(uri, n, "data:image/png;base64,%s", b64);
    set_texture(doc, json_pack("{s:s}", "uri", uri));
    am_gf_save(doc, &bin, AM_GF_GLTF_EMBEDDED, dir, "uri", path, sizeof path);
    am_gf_load(path, &s);
    assert_int_equal(s.materials[0].image_size, png.size);
    assert_memory_equal(s.materials[0].image_data, png.data, png.size);
    am_scene_free(&s);
    free(uri);
    free(b64);

    json_decref(doc);
    am_buf_free(&bin);
    am_buf_free(&png);
    am_buf_free(&jpg);
    am_tex_image_free(&pic);
    am_gf_model_free(&m);
    am_gf_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bendbox_reads_back_what_was_written_in_every_container),
        cmocka_unit_test(test_bendbox_poses_match_the_files_own_skinning_for_each_interpolation),
        cmocka_unit_test(test_bendbox_fold_by_hand),
        cmocka_unit_test(test_quadruped_y_up_metres_and_z_up_centimetres_as_gltf_and_glb),
        cmocka_unit_test(test_node_matrix_is_the_ll_layout),
        cmocka_unit_test(test_every_joints_weights_set_is_merged),
        cmocka_unit_test(test_quantised_weights_uvs_and_small_indices),
        cmocka_unit_test(test_textures_from_a_view_a_file_and_a_data_uri),
        cmocka_unit_test(test_chain_and_unrigged_fixtures),
        cmocka_unit_test(test_simple_skin_real_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
