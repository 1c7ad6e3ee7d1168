/* Bad input to binding (issue 11): a mesh with no triangles, NaN positions, a skeleton
 * joint outside every island, a joint list with an unknown name, a non-manifold mesh
 * (bound, with the warning), degenerate faces, a closed mesh turned inside out, a bone of
 * zero length, an index out of range: each refused with a message naming what is wrong,
 * or bound with a warning that says so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/bind_fixtures.h"
#include "readers/scene_load.h"
#include "support/test_support.h"

typedef struct fixture {
    am_skeleton viewer;
    am_bind_source src;
    am_bind_skeleton sk;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_load_viewer_skeleton(&f->viewer);
    am_test_creature("10k", &f->viewer, &f->src, &f->sk);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_bind_skeleton_free(&f->sk);
    am_bind_source_free(&f->src);
    am_skeleton_free(&f->viewer);
    free(f);
    return 0;
}

static bool has_warning(const am_bind_result *r, const char *part)
{
    for (size_t i = 0; i < r->warning_count; i++)
        if (strstr(am_str(&r->warnings[i]), part))
            return true;
    return false;
}

static void test_no_triangles_refused(void **state)
{
    fixture *f = *state;
    am_bind_mesh m = {f->src.vertex_count, f->src.positions, 0, f->src.triangles};
    am_bind_result r;
    am_error err;
    assert_int_equal(am_bind(&m, &f->sk, NULL, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "no triangles"));
    /* every triangle degenerate is no triangle either */
    uint32_t tris[6] = {0, 0, 1, 2, 2, 2};
    am_bind_mesh d = {f->src.vertex_count, f->src.positions, 2, tris};
    assert_int_equal(am_bind(&d, &f->sk, NULL, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "degenerate"));
    /* and an OBJ with positions only is refused when read */
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/points.obj", dir);
    am_test_write_text(path, "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    am_scene sc;
    assert_int_equal(am_scene_load(path, &sc, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "no faces"));
    unlink(path);
    am_test_rmtree(dir);
}

static void test_nan_position_refused_naming_the_vertex(void **state)
{
    fixture *f = *state;
    float *pos = malloc(3 * f->src.vertex_count * sizeof *pos);
    memcpy(pos, f->src.positions, 3 * f->src.vertex_count * sizeof *pos);
    pos[3 * 1234 + 1] = NAN;
    am_bind_mesh m = {f->src.vertex_count, pos, f->src.triangle_count, f->src.triangles};
    am_bind_result r;
    am_error err;
    assert_int_equal(am_bind(&m, &f->sk, NULL, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "vertex 1234"));
    assert_non_null(strstr(err.msg, "not a finite number"));
    free(pos);
    /* through a file: the scene refuses it, naming the mesh */
    char dir[256], path[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/nan.obj", dir);
    am_test_write_text(path, "o body\nv 0 0 0\nv 1 0 nan\nv 0 1 0\nf 1 2 3\n");
    am_scene sc;
    assert_int_equal(am_scene_load(path, &sc, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "not finite"));
    assert_non_null(strstr(err.msg, "body"));
    unlink(path);
    am_test_rmtree(dir);
}

static void test_joint_outside_every_island_is_named_and_gets_nothing(void **state)
{
    fixture *f = *state;
    am_bind_skeleton sk = f->sk;
    sk.joint_count = f->sk.joint_count + 1;
    sk.joints = calloc(sk.joint_count, sizeof *sk.joints);
    memcpy(sk.joints, f->sk.joints, f->sk.joint_count * sizeof *sk.joints);
    am_bind_joint *far = &sk.joints[f->sk.joint_count];
    assert_true(am_string_set(&far->name, "mTail1"));
    far->skel_joint = am_skeleton_find(&f->viewer, "mTail1");
    far->parent = 0;
    far->head = am_v3(-2.0, 0.0, 1.0);
    far->tail = am_v3(-2.3, 0.0, 1.0);
    am_bind_mesh m = am_bind_source_mesh(&f->src);
    am_bind_result r;
    am_error err;
    assert_int_equal(am_bind(&m, &sk, NULL, &r, &err), AM_OK);
    assert_true(has_warning(&r, "mTail1: its bone lies outside every island"));
    assert_false(r.joint_held[f->sk.joint_count]);
    assert_near(r.joint_weight_sum[f->sk.joint_count], 0.0, 0.0);
    assert_int_equal(r.unweighted, 0);
    assert_int_equal(r.islands[0].route, AM_ROUTE_HEAT);
    am_bind_result_free(&r);
    am_string_free(&far->name); /* the others are the fixture's */
    free(sk.joints);
}

static void test_unknown_joint_name_refused_by_name(void **state)
{
    fixture *f = *state;
    const char *json = "{\"joints\": [{\"name\": \"mPelvis\", \"head\": [0,0,1.067], \"tail\": [0,0,1.15]},"
                       " {\"name\": \"mTailBone\", \"world\": [0,0,1]}]}";
    am_bind_skeleton s;
    am_error err;
    assert_int_equal(am_bind_skeleton_parse_json(json, strlen(json), "skel.json", &f->viewer, 1.8, &s, &err),
                     AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "unknown joint 'mTailBone'"));
    assert_non_null(strstr(err.where, "skel.json: joints[1].name"));
    /* an alias naming a joint already listed */
    const char *dup = "{\"joints\": [{\"name\": \"mPelvis\", \"world\": [0,0,1.067]}, {\"name\": \"hip\", \"world\": [0,0,1]}]}";
    assert_int_equal(am_bind_skeleton_parse_json(dup, strlen(dup), "dup.json", &f->viewer, 1.8, &s, &err),
                     AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "second time"));
    const char *bad = "{\"joints\": [{\"name\": \"mPelvis\", \"world\": [0, \"x\", 1]}]}";
    assert_int_equal(am_bind_skeleton_parse_json(bad, strlen(bad), "bad.json", &f->viewer, 1.8, &s, &err),
                     AM_ERR_INVALID);
    assert_non_null(strstr(err.where, "joints[0].world"));
}

/* A fin: one extra triangle on an existing edge makes it non-manifold. Bound, warned. */
static void test_non_manifold_mesh_bound_with_warning(void **state)
{
    fixture *f = *state;
    size_t nv = f->src.vertex_count, nt = f->src.triangle_count;
    float *pos = malloc(3 * (nv + 1) * sizeof *pos);
    uint32_t *tri = malloc(3 * (nt + 2) * sizeof *tri);
    memcpy(pos, f->src.positions, 3 * nv * sizeof *pos);
    memcpy(tri, f->src.triangles, 3 * nt * sizeof *tri);
    uint32_t a = tri[0], b = tri[1];
    for (int k = 0; k < 3; k++)
        pos[3 * nv + k] = (pos[3 * a + k] + pos[3 * b + k]) / 2 + (k == 0 ? 0.05f : 0.0f);
    tri[3 * nt] = a;
    tri[3 * nt + 1] = b;
    tri[3 * nt + 2] = (uint32_t)nv;
    /* and one degenerate face (a repeated corner) */
    tri[3 * nt + 3] = a;
    tri[3 * nt + 4] = a;
    tri[3 * nt + 5] = b;
    am_bind_mesh m = {nv + 1, pos, nt + 2, tri};
    am_bind_result r;
    am_error err;
    assert_int_equal(am_bind(&m, &f->sk, NULL, &r, &err), AM_OK);
    assert_int_equal(r.non_manifold_edges, 1);
    assert_int_equal(r.degenerate_faces, 1);
    assert_true(has_warning(&r, "1 non-manifold edges"));
    assert_true(has_warning(&r, "1 degenerate faces"));
    assert_int_equal(r.unweighted, 0);
    assert_int_equal(r.island_count, 1);
    assert_false(r.islands[0].closed);
    am_bind_result_free(&r);
    free(pos);
    free(tri);
}

/* Faces pointing inward are read as turned outward: the same weights, and a warning. */
static void test_inside_out_mesh_binds_like_the_right_one(void **state)
{
    fixture *f = *state;
    size_t nt = f->src.triangle_count;
    uint32_t *tri = malloc(3 * nt * sizeof *tri);
    for (size_t t = 0; t < nt; t++) {
        tri[3 * t] = f->src.triangles[3 * t];
        tri[3 * t + 1] = f->src.triangles[3 * t + 2];
        tri[3 * t + 2] = f->src.triangles[3 * t + 1];
    }
    am_bind_mesh right = am_bind_source_mesh(&f->src), wrong = {f->src.vertex_count, f->src.positions, nt, tri};
    am_bind_result a, b;
    am_error err;
    assert_int_equal(am_bind(&right, &f->sk, NULL, &a, &err), AM_OK);
    assert_int_equal(am_bind(&wrong, &f->sk, NULL, &b, &err), AM_OK);
    assert_true(has_warning(&b, "pointing inward"));
    assert_false(has_warning(&a, "pointing inward"));
    double worst = 0;
    for (size_t v = 0; v < f->src.vertex_count; v++) {
        assert_int_equal(a.count[v], b.count[v]);
        for (int k = 0; k < a.count[v]; k++) {
            assert_int_equal(a.joint[4 * v + k], b.joint[4 * v + k]);
            worst = fmax(worst, fabs(a.weight[4 * v + k] - b.weight[4 * v + k]));
        }
    }
    assert_lt(worst, 1e-9);
    am_bind_result_free(&a);
    am_bind_result_free(&b);
    free(tri);
}

static void test_zero_length_bone_and_bad_index_refused(void **state)
{
    fixture *f = *state;
    am_bind_mesh m = am_bind_source_mesh(&f->src);
    am_bind_result r;
    am_error err;
    am_bind_skeleton sk = f->sk;
    sk.joints = malloc(sk.joint_count * sizeof *sk.joints);
    memcpy(sk.joints, f->sk.joints, sk.joint_count * sizeof *sk.joints);
    sk.joints[3].tail = sk.joints[3].head;
    assert_int_equal(am_bind(&m, &sk, NULL, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, am_str(&sk.joints[3].name)));
    assert_non_null(strstr(err.msg, "zero length"));
    free(sk.joints);
    uint32_t tri[3] = {0, 1, (uint32_t)f->src.vertex_count};
    am_bind_mesh bad = {f->src.vertex_count, f->src.positions, 1, tri};
    assert_int_equal(am_bind(&bad, &f->sk, NULL, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "triangle 0"));
    assert_non_null(strstr(err.msg, "out of range"));
    am_bind_skeleton none = {NULL, 0};
    assert_int_equal(am_bind(&m, &none, NULL, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "no joint"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_triangles_refused),
        cmocka_unit_test(test_nan_position_refused_naming_the_vertex),
        cmocka_unit_test(test_joint_outside_every_island_is_named_and_gets_nothing),
        cmocka_unit_test(test_unknown_joint_name_refused_by_name),
        cmocka_unit_test(test_non_manifold_mesh_bound_with_warning),
        cmocka_unit_test(test_inside_out_mesh_binds_like_the_right_one),
        cmocka_unit_test(test_zero_length_bone_and_bad_index_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
