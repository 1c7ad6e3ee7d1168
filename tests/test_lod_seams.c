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

#include "test_support.h"
#include "bench.h"
#include "bendbox/bendbox.h"
#include "skin/rig.h"
#include "skin/skin_build.h"

/* The bend box's shape (box frame X -2..2, Y -1..1, Z -0.5..0.5 about the hinge), its two
 * hips and smoothstep weights, subdivided into squares of `cell` m, each triangle with its
 * own three vertices and its face's normal: 896 triangles, 2,688 vertices at 0.25 m. */
static void flat_box_rig(am_rig *rig, double cell)
{
    memset(rig, 0, sizeof *rig);
    const double half[3] = {2.0, 1.0, 0.5};
    int n[3];
    for (int k = 0; k < 3; k++)
        n[k] = (int)lround(2 * half[k] / cell);
    size_t quads = 2 * ((size_t)n[1] * n[2] + (size_t)n[0] * n[2] + (size_t)n[0] * n[1]);
    size_t nt = 2 * quads, nv = 3 * nt;
    rig->name = strdup("flatbox");
    rig->joints = calloc(2, sizeof *rig->joints);
    rig->positions = malloc(3 * nv * sizeof(float));
    rig->normals = malloc(3 * nv * sizeof(float));
    rig->uvs = malloc(2 * nv * sizeof(float));
    rig->triangles = malloc(3 * nt * sizeof(uint32_t));
    rig->weight_start = malloc((nv + 1) * sizeof(size_t));
    rig->influences = malloc(2 * nv * sizeof(am_rig_influence));
    assert_true(rig->name && rig->joints && rig->positions && rig->normals && rig->uvs && rig->triangles &&
                rig->weight_start && rig->influences);
    rig->joint_count = 2;
    rig->joints[0].name = strdup("mHipRight");
    rig->joints[1].name = strdup("mHipLeft");
    rig->joints[0].world = rig->joints[1].world = am_bendbox_hinge();
    rig->rgb[0] = rig->rgb[1] = rig->rgb[2] = 1.0;
    const am_vec3 hinge = am_bendbox_hinge();
    size_t v = 0, t = 0, w = 0;
    for (int axis = 0; axis < 3; axis++)
        for (int sign = -1; sign <= 1; sign += 2) {
            int ua = (axis + 1) % 3, va = (axis + 2) % 3; /* u x v = +axis */
            for (int j = 0; j < n[va]; j++)
                for (int i = 0; i < n[ua]; i++) {
                    double q[4][3];
                    const int du[4] = {0, 1, 1, 0}, dv[4] = {0, 0, 1, 1};
                    for (int c = 0; c < 4; c++) {
                        q[c][axis] = sign * half[axis];
                        q[c][ua] = -half[ua] + (i + du[c]) * cell;
                        q[c][va] = -half[va] + (j + dv[c]) * cell;
                    }
                    /* outward: counter-clockwise seen from +axis when sign > 0 */
                    const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}}, rev[2][3] = {{0, 2, 1}, {0, 3, 2}};
                    for (int h = 0; h < 2; h++) {
                        for (int c = 0; c < 3; c++) {
                            const double *p = q[sign > 0 ? tri[h][c] : rev[h][c]];
                            rig->positions[3 * v] = (float)(p[0] + hinge.x);
                            rig->positions[3 * v + 1] = (float)(p[1] + hinge.y);
                            rig->positions[3 * v + 2] = (float)(p[2] + hinge.z);
                            for (int k = 0; k < 3; k++)
                                rig->normals[3 * v + (size_t)k] = k == axis ? (float)sign : 0.0f;
                            rig->uvs[2 * v] = (float)((p[ua] + half[ua]) / (2 * half[ua]));
                            rig->uvs[2 * v + 1] = (float)((p[va] + half[va]) / (2 * half[va]));
                            double s = am_bendbox_left_weight(p[0]);
                            rig->weight_start[v] = w;
                            if (s < 1.0)
                                rig->influences[w++] = (am_rig_influence){0, 1.0 - s};
                            if (s > 0.0)
                                rig->influences[w++] = (am_rig_influence){1, s};
                            rig->triangles[3 * t + (size_t)c] = (uint32_t)v;
                            v++;
                        }
                        t++;
                    }
                }
        }
    rig->weight_start[v] = w;
    rig->vertex_count = v;
    rig->triangle_count = t;
    assert_int_equal(v, nv);
}

/* Does the LOD keep a vertex on each of the four long edges of the line x = x0? */
static int hinge_corners(const am_bench *b, double x0)
{
    int found = 0;
    for (int ys = -1; ys <= 1; ys += 2)
        for (int zs = -1; zs <= 1; zs += 2) {
            bool hit = false;
            for (size_t v = 0; v < b->vertex_count && !hit; v++) {
                const float *p = &b->bind_pos[3 * v];
                hit = fabs(p[0] - x0) < 1e-3 && fabs(p[1] - ys) < 1e-3 && fabs(p[2] - (1.067 + 0.5 * zs)) < 1e-3;
            }
            found += hit;
        }
    return found;
}

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
    flat_box_rig(&rig, 0.25);
    assert_int_equal(rig.triangle_count, 896);
    am_skin_options opts;
    am_skin_options_default(&opts);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_OK);
    const size_t *tris = res.summary.lod_triangles;
    print_message("flat box LOD triangles: %zu %zu %zu %zu\n", tris[AM_LOD_HIGH], tris[AM_LOD_MEDIUM],
                  tris[AM_LOD_LOW], tris[AM_LOD_LOWEST]);
    assert_int_equal(tris[AM_LOD_HIGH], 896);
    assert_true(2 * tris[AM_LOD_LOWEST] <= tris[AM_LOD_HIGH]);
    assert_true(4 * tris[AM_LOD_MEDIUM] <= 3 * tris[AM_LOD_HIGH]);
    am_buf bytes = {0};
    assert_int_equal(am_skin_encode(&res, &bytes, &err), AM_OK);
    int hip_left = am_skeleton_find(&skel, "mHipLeft");
    am_bench_local fold = {hip_left, true, false, am_quat_axis_angle(am_v3(0, 1, 0), -AM_PI / 2), am_v3(0, 0, 0)};
    am_bench_strain high = {0};
    for (int lod = AM_LOD_HIGH; lod >= AM_LOD_LOWEST; lod--) {
        assert_flat_shaded(&res.asset.lods[lod], lod);
        am_bench_options bo = {lod};
        am_bench b;
        assert_int_equal(am_bench_load_mem(bytes.data, bytes.size, "flatbox.llmesh", &skel, &bo, &b, &err), AM_OK);
        /* the hinge (where one joint's region meets the other's) on all four long edges in
         * every LOD; both ends of the blend where the weight bands still split the classes */
        assert_int_equal(hinge_corners(&b, 0.0), 4);
        if (lod >= AM_LOD_MEDIUM) {
            assert_int_equal(hinge_corners(&b, -1.0), 4);
            assert_int_equal(hinge_corners(&b, 1.0), 4);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_flat_shaded_mesh_halves_and_keeps_the_hinge),
    };
    return cmocka_run_group_tests_name("lod_seams", tests, NULL, NULL);
}
