/* Explicit skins (rig.h): a rig that carries its own inverse binds, joint positions and bind
 * shape, as a file rigged to the viewer skeleton does. The quadruped's computed skin is
 * re-expressed as an explicit rig whose positions live in a rotated, scaled, shifted mesh
 * space; the skin block must carry those matrices as given, the asset's bind shape must be
 * the normalisation followed by the rig's, and the bench (which models the viewer from the
 * decoded file) must draw both assets alike at rest and posed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "support/test_support.h"

static void load_quadruped(am_rig *rig)
{
    char path[4096], buf[512];
    snprintf(path, sizeof path, "%s/assets/rigs/quadruped.json", AM_SOURCE_DIR);
    am_error err;
    am_error_clear(&err);
    if (am_rig_load(path, rig, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
}

static char *dup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    assert_non_null(d);
    strcpy(d, s);
    return d;
}

/* The explicit twin of a computed skin: the skin's joints in its order, its inverse binds
 * and alt translations, positions moved into a mesh space by inverse(B). */
static void make_explicit(const am_rig *src, const am_skin_result *res, const am_mat4 *B, am_rig *out)
{
    memset(out, 0, sizeof *out);
    out->name = dup("explicit");
    const am_mesh_skin *skin = &res->asset.skin;
    out->joint_count = skin->joint_count;
    out->joints = calloc(out->joint_count, sizeof *out->joints);
    for (size_t j = 0; j < skin->joint_count; j++) {
        out->joints[j].name = dup(skin->joint_names[j]);
        out->joints[j].world = res->summary.joints[j].bind_world;
        out->joints[j].inverse_bind = skin->inverse_bind[j];
        out->joints[j].position = am_mat4_get_translation(&skin->alt_inverse_bind[j]);
    }
    out->explicit_skin = true;
    out->has_joint_positions = true;
    out->bind_shape = *B;
    am_mat4 inv;
    assert_true(am_mat4_inverse(B, &inv));
    size_t n = src->vertex_count;
    out->vertex_count = n;
    out->positions = malloc(3 * n * sizeof(float));
    out->normals = malloc(3 * n * sizeof(float));
    out->uvs = malloc(2 * n * sizeof(float));
    memcpy(out->normals, src->normals, 3 * n * sizeof(float));
    memcpy(out->uvs, src->uvs, 2 * n * sizeof(float));
    for (size_t v = 0; v < n; v++) {
        am_vec3 p = am_mat4_transform_point(&inv, am_v3(src->positions[3 * v], src->positions[3 * v + 1],
                                                        src->positions[3 * v + 2]));
        out->positions[3 * v] = (float)p.x;
        out->positions[3 * v + 1] = (float)p.y;
        out->positions[3 * v + 2] = (float)p.z;
    }
    out->triangle_count = src->triangle_count;
    out->triangles = malloc(3 * src->triangle_count * sizeof(uint32_t));
    memcpy(out->triangles, src->triangles, 3 * src->triangle_count * sizeof(uint32_t));
    /* Rig joint r is skin joint r (the rig's joints come first in the computed skin). */
    size_t total = src->weight_start[n];
    out->weight_start = malloc((n + 1) * sizeof(size_t));
    out->influences = malloc(total * sizeof(am_rig_influence));
    memcpy(out->weight_start, src->weight_start, (n + 1) * sizeof(size_t));
    memcpy(out->influences, src->influences, total * sizeof(am_rig_influence));
    out->rgb[0] = out->rgb[1] = out->rgb[2] = 1;
}

static am_mat4 mesh_space(void)
{
    /* A non-uniform scale and a shift. No rotation: the viewer turns mRoot by the inverse of a bind
     * shape's rotation (docs/reference/mesh-asset.md#object-transform-and-animesh-placement), so a
     * rotated bind shape is drawn turned. */
    return am_mat4_from_trs(am_v3(0.1, -0.2, 0.5), am_quat_identity(), am_v3(0.5, 2.0, 0.25));
}

static void bench_of(const am_skin_result *res_in, const am_skeleton *skel, am_bench *b)
{
    am_skin_result res = *res_in;
    am_buf bytes = {0};
    am_error err;
    am_error_clear(&err);
    char buf[512];
    if (am_skin_encode(&res, &bytes, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    if (am_bench_load_mem(bytes.data, bytes.size, "mem.llmesh", skel, NULL, b, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    am_buf_free(&bytes);
}

static void test_explicit_skin_is_written_as_given(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig quad, ex;
    load_quadruped(&quad);
    am_error err;
    am_error_clear(&err);
    am_skin_result computed, explicit_res;
    assert_int_equal(am_skin_build(&quad, &skel, NULL, &computed, &err), AM_OK);
    am_mat4 B = mesh_space();
    make_explicit(&quad, &computed, &B, &ex);
    char buf[512];
    if (am_skin_build(&ex, &skel, NULL, &explicit_res, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));

    const am_mesh_skin *a = &computed.asset.skin, *e = &explicit_res.asset.skin;
    assert_int_equal(e->joint_count, a->joint_count);
    assert_int_equal(explicit_res.summary.appended_count, 0);
    assert_int_equal(explicit_res.summary.override_count, computed.summary.override_count);
    for (size_t j = 0; j < a->joint_count; j++) {
        assert_string_equal(e->joint_names[j], a->joint_names[j]);
        assert_near(am_mat4_max_abs_diff(&e->inverse_bind[j], &a->inverse_bind[j]), 0, 0);
        assert_near(am_mat4_max_abs_diff(&e->alt_inverse_bind[j], &a->alt_inverse_bind[j]), 0, 0);
        /* where the viewer puts each joint follows from the positions alone */
        assert_near(am_v3_dist(explicit_res.summary.joints[j].bind_world, computed.summary.joints[j].bind_world), 0,
                    1e-12);
    }
    /* bind shape = normalisation, then B */
    am_vec3 p0 = am_v3(ex.positions[0], ex.positions[1], ex.positions[2]);
    am_vec3 want = am_mat4_transform_point(&B, p0);
    /* e->bind_shape = NT * B, so e->bind_shape * inverse(B) = NT: a pure scale + translation */
    am_mat4 Binv;
    assert_true(am_mat4_inverse(&B, &Binv));
    am_mat4 NT = am_mat4_mul(&e->bind_shape, &Binv);
    assert_near(NT.m[1], 0, 1e-9);
    assert_near(NT.m[2], 0, 1e-9);
    assert_near(NT.m[4], 0, 1e-9);
    assert_near(NT.m[6], 0, 1e-9);
    /* the normalised positions land in the unit cube centred on 0 and map back to p0 */
    am_mat4 NTinv;
    assert_true(am_mat4_inverse(&NT, &NTinv));
    am_vec3 pn = am_mat4_transform_point(&NTinv, p0);
    assert_true(fabs(pn.x) <= 0.5 + 1e-6 && fabs(pn.y) <= 0.5 + 1e-6 && fabs(pn.z) <= 0.5 + 1e-6);
    am_vec3 back = am_mat4_transform_point(&e->bind_shape, pn);
    assert_near(am_v3_dist(back, want), 0, 1e-5);

    /* The bench from the decoded files: both at rest within quantisation, and alike posed. */
    am_bench bc, be;
    bench_of(&computed, &skel, &bc);
    bench_of(&explicit_res, &skel, &be);
    am_bench_stats rc, re;
    assert_int_equal(am_bench_rest_error(&bc, &rc, &err), AM_OK);
    assert_int_equal(am_bench_rest_error(&be, &re, &err), AM_OK);
    assert_lt(rc.max, 1e-4);
    assert_lt(re.max, 1e-4);
    assert_int_equal(bc.vertex_count, be.vertex_count);
    am_bench_local loc = {.joint = am_skeleton_find(&skel, "mHipLeft"), .has_rot = true,
                          .rot = am_quat_axis_angle(am_v3(0, 1, 0), 0.8)};
    float *pc = malloc(3 * bc.vertex_count * sizeof(float)), *pe = malloc(3 * be.vertex_count * sizeof(float));
    assert_int_equal(am_bench_pose_locals(&bc, &loc, 1, pc, NULL, &err), AM_OK);
    assert_int_equal(am_bench_pose_locals(&be, &loc, 1, pe, NULL, &err), AM_OK);
    double worst = 0, moved = 0;
    for (size_t i = 0; i < 3 * bc.vertex_count; i++) {
        worst = fmax(worst, fabs((double)pc[i] - pe[i]));
        moved = fmax(moved, fabs((double)pc[i] - bc.bind_pos[i] + (i % 3 == 2 ? 1.067 : 0)));
    }
    assert_gt(moved, 0.05); /* the pose really bends a leg */
    if (worst > 2e-4) /* two 16-bit quantisations over different domains */
        fail_msg("posed positions differ by %g m", worst);
    free(pc);
    free(pe);
    am_bench_free(&bc);
    am_bench_free(&be);

    /* The .dae and meshdata carry B as their bind shape. */
    assert_near(am_mat4_max_abs_diff(&explicit_res.source_bind_shape, &B), 0, 0);
    am_skin_result_free(&computed);
    am_skin_result_free(&explicit_res);
    am_rig_free(&quad);
    am_rig_free(&ex);
    am_skeleton_free(&skel);
}

static void test_explicit_rig_json_round_trip(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig quad, ex, back;
    load_quadruped(&quad);
    am_error err;
    am_error_clear(&err);
    am_skin_result computed;
    assert_int_equal(am_skin_build(&quad, &skel, NULL, &computed, &err), AM_OK);
    am_mat4 B = mesh_space();
    make_explicit(&quad, &computed, &B, &ex);
    am_buf json = {0};
    assert_int_equal(am_rig_to_json(&ex, &json, &err), AM_OK);
    char buf[512];
    if (am_rig_parse_json((const char *)json.data, json.size, "ex.json", &back, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_true(back.explicit_skin);
    assert_true(back.has_joint_positions);
    assert_near(am_mat4_max_abs_diff(&back.bind_shape, &B), 0, 0);
    assert_int_equal(back.joint_count, ex.joint_count);
    for (size_t j = 0; j < ex.joint_count; j++) {
        assert_near(am_mat4_max_abs_diff(&back.joints[j].inverse_bind, &ex.joints[j].inverse_bind), 0, 0);
        assert_near(am_v3_dist(back.joints[j].position, ex.joints[j].position), 0, 0);
    }
    for (size_t i = 0; i < 3 * ex.vertex_count; i++)
        assert_true(back.positions[i] == ex.positions[i]);
    /* A rig without "skin" writes none and reads back computed. */
    am_buf plain = {0};
    am_rig again;
    assert_int_equal(am_rig_to_json(&quad, &plain, &err), AM_OK);
    assert_null(strstr((const char *)plain.data, "inverse_bind"));
    assert_int_equal(am_rig_parse_json((const char *)plain.data, plain.size, "q.json", &again, &err), AM_OK);
    assert_false(again.explicit_skin);
    am_rig_free(&again);
    am_buf_free(&plain);
    am_buf_free(&json);
    am_rig_free(&back);
    am_rig_free(&ex);
    am_rig_free(&quad);
    am_skin_result_free(&computed);
    am_skeleton_free(&skel);
}

static void expect_refused(const char *json, const char *needle)
{
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    char msg[512];
    assert_int_equal(am_rig_parse_json(json, strlen(json), "bad.json", &rig, &err), AM_ERR_INVALID);
    am_error_format(&err, msg, sizeof msg);
    if (!strstr(msg, needle))
        fail_msg("expected '%s' in: %s", needle, msg);
}

#define TAIL "\"vertices\": [[0,0,0,0,0,1,0,0],[1,0,0,0,0,1,0,0],[0,1,0,0,0,1,0,0]], " \
             "\"triangles\": [[0,1,2]], \"weights\": [[[0,1]],[[0,1]],[[0,1]]]}"
#define I16 "[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,-1.067,1]"

static void test_explicit_rig_json_errors_name_the_field(void **state)
{
    (void)state;
    expect_refused("{\"name\": \"x\", \"skin\": {\"bind_shape\": " I16 "}, "
                   "\"joints\": [{\"name\": \"mPelvis\", \"world\": [0,0,1.067]}], " TAIL,
                   "bad.json: joints[0].inverse_bind");
    expect_refused("{\"name\": \"x\", \"skin\": {\"bind_shape\": " I16 "}, "
                   "\"joints\": [{\"name\": \"mPelvis\", \"world\": [0,0,1.067], \"inverse_bind\": " I16 "}], " TAIL,
                   "joints[0].position");
    expect_refused("{\"name\": \"x\", \"skin\": {\"bind_shape\": [0,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}, "
                   "\"joints\": [{\"name\": \"mPelvis\", \"world\": [0,0,1.067]}], " TAIL,
                   "skin.bind_shape: the bind shape matrix is singular");
    expect_refused("{\"name\": \"x\", \"skin\": {\"bind_shape\": [1,2,3]}, "
                   "\"joints\": [{\"name\": \"mPelvis\", \"world\": [0,0,1.067]}], " TAIL,
                   "skin.bind_shape");
    /* joint_positions false: no positions needed, and no alternates written */
    const char *ok = "{\"name\": \"x\", \"skin\": {\"bind_shape\": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1], "
                     "\"joint_positions\": false}, \"joints\": [{\"name\": \"mPelvis\", \"world\": [0,0,1.067], "
                     "\"inverse_bind\": " I16 "}], " TAIL;
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_parse_json(ok, strlen(ok), "ok.json", &rig, &err), AM_OK);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, &skel, NULL, &res, &err), AM_OK);
    assert_null(res.asset.skin.alt_inverse_bind);
    assert_int_equal(res.asset.skin.alt_count, 0);
    assert_near(res.asset.skin.inverse_bind[0].m[14], -1.067, 1e-12);
    am_skin_result_free(&res);
    am_rig_free(&rig);
    am_skeleton_free(&skel);
}

/* The triangle budget reduces computed rigs to what fits the region; an explicit skin (the
 * uploader's asset) is written as given and the region limit left to the caller. */
static void test_explicit_skin_is_never_reduced(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig quad, ex;
    load_quadruped(&quad);
    am_error err;
    am_error_clear(&err);
    am_skin_result computed, small, explicit_res;
    assert_int_equal(am_skin_build(&quad, &skel, NULL, &computed, &err), AM_OK);
    am_mat4 B = mesh_space();
    make_explicit(&quad, &computed, &B, &ex);
    am_skin_options o;
    am_skin_options_init(&o);
    o.region_max_tris = 40; /* far below the quadruped's estimate */
    char buf[512];
    if (am_skin_build(&quad, &skel, &o, &small, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_lt(small.triangle_count, quad.triangle_count); /* the computed rig: reduced */
    if (am_skin_build(&ex, &skel, &o, &explicit_res, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(explicit_res.triangle_count, ex.triangle_count);
    assert_int_equal(explicit_res.summary.lod_triangles[AM_LOD_HIGH], ex.triangle_count);
    am_buf bytes = {0};
    assert_int_equal(am_skin_encode(&explicit_res, &bytes, &err), AM_OK); /* the cost is measured encoded */
    assert_true(explicit_res.summary.over_region_limit);
    am_buf_free(&bytes);
    /* a budget asked for explicitly is refused, saying why */
    o.max_tris = 50;
    am_skin_result r;
    assert_int_equal(am_skin_build(&ex, &skel, &o, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(am_error_format(&err, buf, sizeof buf), "written as given (an explicit skin"));
    am_skin_result_free(&computed);
    am_skin_result_free(&small);
    am_skin_result_free(&explicit_res);
    am_rig_free(&quad);
    am_rig_free(&ex);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explicit_skin_is_written_as_given),
        cmocka_unit_test(test_explicit_rig_json_round_trip),
        cmocka_unit_test(test_explicit_rig_json_errors_name_the_field),
        cmocka_unit_test(test_explicit_skin_is_never_reduced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
