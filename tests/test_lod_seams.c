/* LODs of a flat-shaded mesh (src/skin/skin_lod_seams.c): every triangle its own three
 * vertices, as the Khronos Fox or an unwelded FBX arrives. Before the shadow index the
 * simplifier saw no shared edge and kept every triangle in every LOD; now the lowest LOD
 * has at most half the high LOD's triangles, still bends at the hinge like the bend box
 * (tests/test_skin_lod.c), and every triangle keeps flat shading (its corners' own normal,
 * the face's). */
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
#include "bench/perf/support/test_flat.h"

/* Every triangle of the LOD flat: its corners share one normal, the face's own. */
static void assert_flat_shaded(const am_mesh_lod *L, int lod)
{
    for (size_t f = 0; f < L->face_count; f++) {
        const am_mesh_face *F = &L->faces[f];
        assert_non_null(F->normals);
        for (size_t t = 0; t < F->index_count / 3; t++) {
            const uint16_t *ix = &F->indices[3 * t];
            const float *a = &F->positions[3 * ix[0]], *b = &F->positions[3 * ix[1]], *c = &F->positions[3 * ix[2]];
            double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double g[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            double gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
            if (!(gl > 0))
                continue; /* a sliver the simplifier leaves on a crease (no area, nothing to shade) */
            for (int k = 0; k < 3; k++) {
                const float *nn = &F->normals[3 * ix[k]];
                double nl = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
                double d = (g[0] * nn[0] + g[1] * nn[1] + g[2] * nn[2]) / (gl * nl);
                if (!(d > 0.999))
                    fail_msg("LOD %d face %zu triangle %zu corner %d: normal off the face by %.1f deg", lod, f, t, k,
                             acos(d > 1 ? 1 : d < -1 ? -1 : d) * 180 / AM_PI);
            }
        }
    }
}

static void test_a_flat_shaded_mesh_halves_and_keeps_the_hinge(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_test_flat_box_rig(&rig, 0.25, &err), AM_OK);
    assert_int_equal(rig.triangle_count, 896);
    am_skin_options opts;
    am_skin_options_init(&opts);
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_OK);
    const size_t *tris = res.summary.lod_triangles;
    print_message("flat box LOD triangles: %zu %zu %zu %zu\n", tris[AM_LOD_HIGH], tris[AM_LOD_MEDIUM],
                  tris[AM_LOD_LOW], tris[AM_LOD_LOWEST]);
    assert_int_equal(tris[AM_LOD_HIGH], 896);
    assert_le(2 * tris[AM_LOD_LOWEST], tris[AM_LOD_HIGH]);
    assert_le(4 * tris[AM_LOD_MEDIUM], 3 * tris[AM_LOD_HIGH]);
    am_buf bytes = {0};
    assert_int_equal(am_skin_encode(&res, &bytes, &err), AM_OK);
    int hip_left = am_skeleton_find(&skel, "mHipLeft");
    am_bench_local fold = {hip_left, true, false, am_quat_axis_angle(am_v3(0, 1, 0), -AM_PI / 2), am_v3(0, 0, 0)};
    am_bench_strain high = {0};
    for (int lod = AM_LOD_HIGH; lod >= AM_LOD_LOWEST; lod--) {
        assert_flat_shaded(&res.asset.lods[lod], lod);
        am_bench_options bo = {AM_BENCH_LOD(lod)};
        am_bench b;
        assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "flatbox.llmesh", &skel, &bo, &b, &err), AM_OK);
        /* the hinge (where one joint's region meets the other's) on all four long edges in
         * every LOD; both ends of the blend where the weight bands still split the classes */
        assert_int_equal(am_test_hinge_corners(&b, 0.0), 4);
        if (lod >= AM_LOD_MEDIUM) {
            assert_int_equal(am_test_hinge_corners(&b, -1.0), 4);
            assert_int_equal(am_test_hinge_corners(&b, 1.0), 4);
        }
        float *posed = malloc(3 * b.vertex_count * sizeof *posed);
        assert_non_null(posed);
        assert_int_equal(am_bench_pose_locals(&b, &fold, 1, posed, NULL, &err), AM_OK);
        am_bench_strain st;
        assert_int_equal(am_bench_strain_report(&b, posed, &st, &err), AM_OK);
        /* folded 90 degrees, each LOD's edges stretch and squash no more than the high LOD's
         * (whose inner crease squashes to about a third at 0.25 m cells) */
        if (lod == AM_LOD_HIGH)
            high = st;
        if (!(st.min >= high.min - 0.05 && st.max <= high.max + 0.1))
            fail_msg("LOD %d folded: edge strain %.3f .. %.3f, high LOD %.3f .. %.3f", lod, st.min, st.max, high.min,
                     high.max);
        free(posed);
        am_bench_free(&b);
    }
    am_buf_free(&bytes);
    am_skin_result_free(&res);
    am_rig_free(&rig);
    am_skeleton_free(&skel);
}

/* A faceted tube (12 facets 30 degrees apart, every triangle flat, the Fox's case): the
 * shadow index joins the facets, so the lowest LOD has at most half the triangles; every
 * corner keeps a normal of a facet it came from (exactly its triangle's down to the low
 * LOD); the hinge ring (x = 0) keeps vertices in all four quadrants. */
static void test_a_faceted_tube_reduces_across_its_facets(void **state)
{
    (void)state;
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_test_faceted_tube_rig(&rig, 12, 16, &err), AM_OK);
    am_skin_options opts;
    am_skin_options_init(&opts);
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_OK);
    const size_t *tris = res.summary.lod_triangles;
    print_message("faceted tube LOD triangles: %zu %zu %zu %zu\n", tris[AM_LOD_HIGH], tris[AM_LOD_MEDIUM],
                  tris[AM_LOD_LOW], tris[AM_LOD_LOWEST]);
    assert_int_equal(tris[AM_LOD_HIGH], 384);
    assert_le(2 * tris[AM_LOD_LOWEST], tris[AM_LOD_HIGH]);
    am_buf bytes = {0};
    assert_int_equal(am_skin_encode(&res, &bytes, &err), AM_OK);
    for (int lod = AM_LOD_HIGH; lod >= AM_LOD_LOWEST; lod--) {
        const am_mesh_lod *L = &res.asset.lods[lod];
        double worst = 0;
        for (size_t f = 0; f < L->face_count; f++) {
            const am_mesh_face *F = &L->faces[f];
            for (size_t t = 0; t < F->index_count / 3; t++) {
                const uint16_t *ix = &F->indices[3 * t];
                const float *a = &F->positions[3 * ix[0]], *b = &F->positions[3 * ix[1]], *c = &F->positions[3 * ix[2]];
                double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                double g[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                               e1[0] * e2[1] - e1[1] * e2[0]};
                double gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
                if (!(gl > 0))
                    continue;
                for (int k = 0; k < 3; k++) {
                    const float *nn = &F->normals[3 * ix[k]];
                    double nl = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
                    double d = (g[0] * nn[0] + g[1] * nn[1] + g[2] * nn[2]) / (gl * nl);
                    double deg = acos(d > 1 ? 1 : d < -1 ? -1 : d) * 180 / AM_PI;
                    worst = deg > worst ? deg : worst;
                }
            }
        }
        print_message("LOD %d: worst corner normal %.1f deg off its triangle\n", lod, worst);
        /* collapses along the facets' strips keep every triangle in its facet's plane; the
         * lowest LOD cuts across the facets (12 sides to a few), so a corner takes the nearest
         * normal it has, never one facing away from its triangle */
        assert_lt(worst, (lod >= AM_LOD_LOW ? 1.0 : 90.0));
        am_bench_options bo = {AM_BENCH_LOD(lod)};
        am_bench b;
        assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "tube.llmesh", &skel, &bo, &b, &err), AM_OK);
        int ring = 0; /* vertices on the hinge ring, by quadrant */
        for (size_t v = 0; v < b.vertex_count; v++) {
            const float *p = &b.bind_pos[3 * v];
            if (fabs(p[0]) < 1e-3)
                ring |= 1 << ((p[1] >= 0) + 2 * (p[2] - 1.067 >= 0));
        }
        assert_int_equal(ring, 15);
        am_bench_free(&b);
    }
    am_buf_free(&bytes);
    am_skin_result_free(&res);
    am_rig_free(&rig);
    am_skeleton_free(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_flat_shaded_mesh_halves_and_keeps_the_hinge),
        cmocka_unit_test(test_a_faceted_tube_reduces_across_its_facets),
    };
    return cmocka_run_group_tests_name("lod_seams", tests, NULL, NULL);
}
