/* Every LOD of a skinned mesh must bend where the high LOD bends. A weight-blind
 * simplifier removes the bend box's hinge vertices (flat faces: zero geometric error) and
 * the distant LODs then fold as a sheared wedge. Skin builder -> bytes -> bench per LOD. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"
#include "support/lod_checks.h"
#include "bench/bench.h"
#include "bendbox/bendbox.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "skin/skin_internal.h"

/* Build the bend box with `max_tris` (0: the default budget) and check every LOD: the hinge
 * lines kept, the fold within the rigger's strain band. Returns the high LOD's triangles. */
static size_t check_bendbox_lods(long max_tris)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bendbox_build_rig(&rig, &err), AM_OK);
    am_skin_options opts;
    am_skin_options_init(&opts); /* LOD generation on, as `animesh skin` does */
    if (max_tris)
        opts.max_tris = max_tris;
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_OK);
    am_buf bytes = {0};
    assert_int_equal(am_skin_encode(&res, &bytes, &err), AM_OK);
    int hip_left = am_skeleton_find(&skel, "mHipLeft");
    am_bench_local fold = {hip_left, true, false, am_quat_axis_angle(am_v3(0, 1, 0), -AM_PI / 2), am_v3(0, 0, 0)};
    for (int lod = AM_LOD_LOWEST; lod <= AM_LOD_HIGH; lod++) {
        am_bench_options bo = {AM_BENCH_LOD(lod)};
        am_bench b;
        assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "bendbox.llmesh", &skel, &bo, &b, &err), AM_OK);
        /* the lines where the weights change: hinge and both ends of the blend */
        assert_int_equal(am_test_hinge_corners(&b, 0.0), 4);
        assert_int_equal(am_test_hinge_corners(&b, -1.0), 4);
        assert_int_equal(am_test_hinge_corners(&b, 1.0), 4);
        float *posed = malloc(3 * b.vertex_count * sizeof *posed);
        assert_non_null(posed);
        assert_int_equal(am_bench_pose_locals(&b, &fold, 1, posed, NULL, &err), AM_OK);
        am_bench_strain st;
        assert_int_equal(am_bench_strain_report(&b, posed, &st, &err), AM_OK);
        /* no edge of the folded LOD stretches or collapses beyond the rigger's band */
        assert_ge(st.min, 0.5);
        assert_le(st.max, 1.6);
        free(posed);
        am_bench_free(&b);
    }
    size_t high = res.summary.lod_triangles[AM_LOD_HIGH];
    am_buf_free(&bytes);
    am_skin_result_free(&res);
    am_rig_free(&rig);
    am_skeleton_free(&skel);
    return high;
}

static void test_every_lod_keeps_the_hinge_and_folds_cleanly(void **state)
{
    (void)state;
    assert_int_equal(check_bendbox_lods(0), 56);
}

/* Over a triangle budget the high LOD is reduced first (skin_budget.c), weight-aware: the
 * bend box at 48 of its 56 triangles keeps the hinge in every LOD. Its least is 44: every
 * vertex left is a corner or on a hinge line (each side is its own patch, so its rim is an
 * open edge); a budget below that is refused, naming 44. */
static void test_a_budget_below_the_bendbox_keeps_the_hinge(void **state)
{
    (void)state;
    assert_le(check_bendbox_lods(48), 48);
    assert_int_equal(check_bendbox_lods(44), 44);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bendbox_build_rig(&rig, &err), AM_OK);
    am_skin_options opts;
    am_skin_options_init(&opts);
    opts.max_tris = 40;
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "the max_tris option to 44 or more"));
    am_rig_free(&rig);
    am_skeleton_free(&skel);
}

/* The quadruped at two thirds of its triangles: every vertex left bends exactly as the same
 * vertex of the unreduced mesh (its own weights), and no edge leaves the strain band. */
static void test_a_budget_below_the_quadruped_bends_each_vertex_as_before(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/assets/rigs/quadruped.json", AM_SOURCE_DIR);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_load(path, &rig, &err), AM_OK);
    am_bench b[2];
    for (int k = 0; k < 2; k++) {
        am_skin_options opts;
        am_skin_options_init(&opts);
        opts.max_tris = k ? 120 : AM_SKIN_MAX_TRIS_NONE;
        am_skin_result res;
        am_buf bytes = {0};
        assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_OK);
        if (k) {
            assert_le(res.summary.lod_triangles[AM_LOD_HIGH], 120);
            assert_ge(res.summary.tris_removed, 60);
        }
        assert_int_equal(am_skin_encode(&res, &bytes, &err), AM_OK);
        am_bench_options bo = {AM_BENCH_LOD(AM_LOD_HIGH)};
        assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "quadruped.llmesh", &skel, &bo, &b[k], &err), AM_OK);
        am_buf_free(&bytes);
        am_skin_result_free(&res);
    }
    am_bench_local pose[2] = {
        {am_skeleton_find(&skel, "mHipLeft"), true, false, am_quat_axis_angle(am_v3(0, 1, 0), 1.0), am_v3(0, 0, 0)},
        {am_skeleton_find(&skel, "mKneeLeft"), true, false, am_quat_axis_angle(am_v3(0, 1, 0), -0.8), am_v3(0, 0, 0)}};
    float *posed[2];
    for (int k = 0; k < 2; k++) {
        posed[k] = malloc(3 * b[k].vertex_count * sizeof(float));
        assert_int_equal(am_bench_pose_locals(&b[k], pose, 2, posed[k], NULL, &err), AM_OK);
    }
    /* the same vertex is the one at the same bind position (to the 16-bit quantisation) */
    double worst = 0;
    for (size_t v = 0; v < b[1].vertex_count; v++) {
        const float *p = &b[1].bind_pos[3 * v];
        size_t best = 0;
        double bd = INFINITY;
        for (size_t u = 0; u < b[0].vertex_count; u++) {
            const float *q = &b[0].bind_pos[3 * u];
            double d = fabs(p[0] - q[0]) + fabs(p[1] - q[1]) + fabs(p[2] - q[2]);
            if (d < bd)
                bd = d, best = u;
        }
        assert_lt(bd, 1e-3);
        for (int c = 0; c < 3; c++) {
            double d = fabs(posed[1][3 * v + c] - posed[0][3 * best + c]);
            worst = d > worst ? d : worst;
        }
    }
    assert_lt(worst, 2e-3); /* both quantised to their own 16-bit boxes */
    am_bench_strain st;
    assert_int_equal(am_bench_strain_report(&b[1], posed[1], &st, &err), AM_OK);
    assert_true(st.min >= 0.5 && st.max <= 1.6);
    for (int k = 0; k < 2; k++) {
        free(posed[k]);
        am_bench_free(&b[k]);
    }
    am_rig_free(&rig);
    am_skeleton_free(&skel);
}

/* --- the class borders stay locked (skin_lod.c pass 1) --- */

#define CUBE_N 8 /* quads along each edge of the cube */
#define CUBE_SIDE (CUBE_N + 1)

static uint32_t cube_vertex(int i, int j, int k)
{
    return (uint32_t)((i * CUBE_SIDE + j) * CUBE_SIDE + k);
}

/* Edges used by other than exactly two triangles (0 for a closed mesh). */
static size_t open_edges(const uint32_t *idx, size_t n)
{
    size_t tris = n / 3, count = 0;
    uint64_t *edge = malloc(3 * tris * sizeof *edge);
    assert_non_null(edge);
    for (size_t t = 0; t < tris; t++)
        for (int e = 0; e < 3; e++) {
            uint64_t a = idx[3 * t + (size_t)e], b = idx[3 * t + (size_t)(e + 1) % 3];
            edge[3 * t + (size_t)e] = a < b ? a << 32 | b : b << 32 | a;
        }
    for (size_t x = 0; x < 3 * tris; x++) {
        size_t same = 0;
        for (size_t y = 0; y < 3 * tris; y++)
            same += edge[y] == edge[x];
        count += same != 2;
    }
    free(edge);
    return count;
}

/* A closed cube of 8 x 8 quads a side, bound to two joints that blend across x = 0: each
 * joint's weight class is simplified on its own, and the triangles between the classes
 * (mixed) are kept as they are. Were a class's border not locked, its border vertices would
 * collapse along the flat faces (no geometric error) while the mixed triangles still use
 * them: the LOD would open cracks along the blend. */
static void test_class_borders_stay_locked_so_the_lod_stays_closed(void **state)
{
    (void)state;
    size_t nv = (size_t)CUBE_SIDE * CUBE_SIDE * CUBE_SIDE; /* the lattice; the surface used */
    float *pos = malloc(3 * nv * sizeof *pos), *weight = calloc(4 * nv, sizeof *weight);
    uint8_t *count = malloc(nv), *joint = calloc(4 * nv, 1);
    uint32_t *cls = malloc(nv * sizeof *cls);
    uint32_t *idx = malloc(6 * CUBE_N * CUBE_N * 6 * sizeof *idx);
    assert_true(pos && weight && count && joint && cls && idx);
    for (int i = 0; i < CUBE_SIDE; i++)
        for (int j = 0; j < CUBE_SIDE; j++)
            for (int k = 0; k < CUBE_SIDE; k++) {
                uint32_t v = cube_vertex(i, j, k);
                int c[3] = {i, j, k};
                for (int a = 0; a < 3; a++)
                    pos[3 * v + (size_t)a] = (float)(-1.0 + 2.0 * c[a] / CUBE_N);
                /* joint 1's weight rises from 0 at x = -0.5 to 1 at x = 0.5 */
                double x = pos[3 * v], w1 = x <= -0.5 ? 0 : x >= 0.5 ? 1 : x + 0.5;
                count[v] = 2;
                joint[4 * v] = 0;
                joint[4 * v + 1] = 1;
                weight[4 * v] = (float)(1 - w1);
                weight[4 * v + 1] = (float)w1;
            }
    size_t n = 0;
    for (int a = 0; a < 3; a++)
        for (int side = 0; side <= CUBE_N; side += CUBE_N)
            for (int u = 0; u < CUBE_N; u++)
                for (int w = 0; w < CUBE_N; w++) {
                    uint32_t q[4];
                    int du[4] = {0, 1, 1, 0}, dw[4] = {0, 0, 1, 1};
                    for (int corner = 0; corner < 4; corner++) {
                        int c[3];
                        c[a] = side;
                        c[(a + 1) % 3] = u + du[corner];
                        c[(a + 2) % 3] = w + dw[corner];
                        q[side ? corner : 3 - corner] = cube_vertex(c[0], c[1], c[2]);
                    }
                    uint32_t t[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
                    memcpy(&idx[n], t, sizeof t);
                    n += 6;
                }
    assert_int_equal(open_edges(idx, n), 0);
    am_lod_mesh m = {pos, nv, count, joint, weight, NULL};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_weight_classes(&m, false, cls, &err), AM_OK);
    assert_int_not_equal(cls[cube_vertex(0, 0, 0)], cls[cube_vertex(CUBE_N, 0, 0)]);
    am_lod_step step = {cls, 0.25, 0.05, 0, 0, false}; /* no border thinning: the lock alone */
    uint32_t *out;
    size_t out_n;
    assert_int_equal(am_skin_simplify(&m, idx, n, &step, &out, &out_n, &err), AM_OK);
    assert_lt(out_n, n / 2); /* the classes were simplified... */
    assert_int_equal(open_edges(out, out_n), 0); /* ...and no crack opened between them */
    free(out);
    free(idx);
    free(cls);
    free(joint);
    free(count);
    free(weight);
    free(pos);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_lod_keeps_the_hinge_and_folds_cleanly),
        cmocka_unit_test(test_a_budget_below_the_bendbox_keeps_the_hinge),
        cmocka_unit_test(test_a_budget_below_the_quadruped_bends_each_vertex_as_before),
        cmocka_unit_test(test_class_borders_stay_locked_so_the_lod_stays_closed),
    };
    return cmocka_run_group_tests_name("skin_lod", tests, NULL, NULL);
}
