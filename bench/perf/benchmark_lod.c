/* benchmark_lod: what each LOD costs and how it bends, per LOD simplification method.
 *
 *   benchmark_lod [--rig RIG.json] [--llmesh LABEL=FILE ...] [--build-only METHOD]
 *
 * The mesh is the 10k test creature with Blender's weights (or --rig). Methods built here:
 *   weight-aware   the default: weight classes with locked borders, borders thinned
 *   borders kept   the same classes, borders kept whole (lod_weight_tol 0)
 *   plain          meshoptimizer on positions only (lod_weight_blind)
 * and any .llmesh given (e.g. one written by an older build) is measured the same way.
 *
 * Per LOD: triangles; the viewer's estimate (docs/reference/mesh-asset.md#triangle-limit) and, per method, the
 * streaming cost (8.3); and through the bench, over the 24 poses of a walk clip
 * (bench/perf/support/test_walk.h):
 *   strain   posed / bind length of the LOD's own edges: worst share outside 0.5..1.6, p1, p99
 *   hinge    how far the LOD's surface leaves the high LOD's when posed: each of ~2000 high
 *            LOD vertices is tied to its nearest point on the LOD at rest (triangle and
 *            barycentric weights); posed, the distance between the vertex and that point,
 *            less the distance at rest (mm; max and p99 over vertices and poses). A LOD
 *            that folds as a sheared wedge where the high LOD bends shows here; a plain
 *            simplification of a flat hinge shows as millimetres to centimetres.
 * Also the seconds of the LOD step (summary.seconds; wall). --build-only METHOD (0, 1, 2 as
 * listed above) builds that one and stops, for an instruction count of the LOD step:
 *   valgrind --tool=callgrind --toggle-collect=am_skin_simplify \
 *            --toggle-collect=am_skin_weight_classes benchmark_lod --build-only 2 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_internal.h"
#include "bench/render.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "skin/skin_cost.h"
#include "bench/perf/support/test_creature.h"
#include "bench/perf/support/test_walk.h"

#define SAMPLES 2000
#define POSES AM_TEST_WALK_KEYS
#define MAX_METHODS 8

typedef struct lod_quality {
    size_t tris;
    double est;
    double outside, p1, p99; /* strain, worst over poses */
    double gap_max, gap_p99; /* mm */
} lod_quality;

typedef struct method {
    char label[64];
    am_buf bytes;
    double lod_seconds;
    double cost;
    lod_quality q[AM_LOD_COUNT];
} method;

static int fail(const char *what, const am_error *err)
{
    char buf[512];
    fprintf(stderr, "benchmark_lod: %s: %s\n", what, am_error_format(err, buf, sizeof buf));
    return 1;
}

/* Closest point of p on triangle abc (Ericson, Real-Time Collision Detection 5.1.5), as
 * barycentric weights (u, v, w) for a, b, c. */
static void closest_bary(const double p[3], const double a[3], const double b[3], const double c[3], double out[3])
{
    double ab[3], ac[3], ap[3];
    for (int k = 0; k < 3; k++)
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
#define DOT(x, y) ((x)[0] * (y)[0] + (x)[1] * (y)[1] + (x)[2] * (y)[2])
    double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        out[0] = 1, out[1] = 0, out[2] = 0;
        return;
    }
    double bp[3], cp[3];
    for (int k = 0; k < 3; k++)
        bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    double d3 = DOT(ab, bp), d4 = DOT(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        out[0] = 0, out[1] = 1, out[2] = 0;
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        out[0] = 1 - v, out[1] = v, out[2] = 0;
        return;
    }
    double d5 = DOT(ab, cp), d6 = DOT(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        out[0] = 0, out[1] = 0, out[2] = 1;
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        out[0] = 1 - w, out[1] = 0, out[2] = w;
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        out[0] = 0, out[1] = 1 - w, out[2] = w;
        return;
    }
    double den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
    out[0] = 1 - v - w, out[1] = v, out[2] = w;
#undef DOT
}

static void point_on(const float *pos, const uint32_t *t, const double bary[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = bary[0] * pos[3 * (size_t)t[0] + k] + bary[1] * pos[3 * (size_t)t[1] + k] +
                 bary[2] * pos[3 * (size_t)t[2] + k];
}

static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int measure(method *m, const am_skeleton *skel, const am_buf *anim)
{
    am_error err;
    am_error_clear(&err);
    am_bench hi;
    am_bench_options ho = {AM_BENCH_LOD(AM_LOD_HIGH)};
    if (am_bench_load_mem(m->bytes.data, m->bytes.size, m->label, skel, &ho, &hi, &err) ||
        am_bench_add_anim_mem(&hi, anim->data, anim->size, "walk.anim", &err))
        return fail(m->label, &err);
    double times[POSES];
    am_render_even_times(1.0, POSES, times);
    float *hi_posed = malloc(POSES * 3 * hi.vertex_count * sizeof *hi_posed);
    for (int f = 0; f < POSES; f++)
        if (am_bench_pose_at(&hi, 0, times[f], hi_posed + (size_t)f * 3 * hi.vertex_count, NULL, &err))
            return fail(m->label, &err);
    size_t step = hi.vertex_count / SAMPLES ? hi.vertex_count / SAMPLES : 1, ns = 0;
    for (int lod = AM_LOD_LOWEST; lod <= AM_LOD_HIGH; lod++) {
        am_bench b;
        am_bench_options bo = {AM_BENCH_LOD(lod)};
        if (am_bench_load_mem(m->bytes.data, m->bytes.size, m->label, skel, &bo, &b, &err) ||
            am_bench_add_anim_mem(&b, anim->data, anim->size, "walk.anim", &err))
            return fail(m->label, &err);
        lod_quality *q = &m->q[lod];
        q->tris = b.triangle_count;
        q->p1 = INFINITY;
        q->p99 = 0;
        float *posed = malloc(3 * b.vertex_count * sizeof *posed);
        /* each sample's nearest point on this LOD at rest */
        size_t nsamp = (hi.vertex_count + step - 1) / step;
        uint32_t *tri_of = malloc(nsamp * sizeof *tri_of);
        double *bary = malloc(3 * nsamp * sizeof *bary), *rest_gap = malloc(nsamp * sizeof *rest_gap);
        double *gaps = malloc(nsamp * POSES * sizeof *gaps);
        ns = 0;
        for (size_t v = 0; v < hi.vertex_count; v += step, ns++) {
            double p[3] = {hi.bind_pos[3 * v], hi.bind_pos[3 * v + 1], hi.bind_pos[3 * v + 2]}, best = INFINITY;
            for (size_t t = 0; t < b.triangle_count; t++) {
                const uint32_t *tr = &b.triangles[3 * t];
                double a[3], c1[3], c2[3], w[3], on[3];
                for (int k = 0; k < 3; k++)
                    a[k] = b.bind_pos[3 * (size_t)tr[0] + k], c1[k] = b.bind_pos[3 * (size_t)tr[1] + k],
                    c2[k] = b.bind_pos[3 * (size_t)tr[2] + k];
                closest_bary(p, a, c1, c2, w);
                point_on(b.bind_pos, tr, w, on);
                double d = dist3(p, on);
                if (d < best) {
                    best = d;
                    tri_of[ns] = (uint32_t)t;
                    memcpy(&bary[3 * ns], w, sizeof w);
                }
            }
            rest_gap[ns] = best;
        }
        size_t ng = 0;
        for (int f = 0; f < POSES; f++) {
            if (am_bench_pose_at(&b, 0, times[f], posed, NULL, &err))
                return fail(m->label, &err);
            am_bench_strain st;
            if (am_bench_strain_report(&b, posed, &st, &err))
                return fail(m->label, &err);
            q->outside = st.share_outside > q->outside ? st.share_outside : q->outside;
            q->p1 = st.p1 < q->p1 ? st.p1 : q->p1;
            q->p99 = st.p99 > q->p99 ? st.p99 : q->p99;
            const float *hp = hi_posed + (size_t)f * 3 * hi.vertex_count;
            size_t s = 0;
            for (size_t v = 0; v < hi.vertex_count; v += step, s++) {
                double p[3] = {hp[3 * v], hp[3 * v + 1], hp[3 * v + 2]}, on[3];
                point_on(posed, &b.triangles[3 * (size_t)tri_of[s]], &bary[3 * s], on);
                double g = dist3(p, on) - rest_gap[s];
                gaps[ng++] = g > 0 ? g : 0;
            }
        }
        qsort(gaps, ng, sizeof *gaps, cmp_d);
        q->gap_max = 1e3 * gaps[ng - 1];
        q->gap_p99 = 1e3 * gaps[(size_t)(0.99 * (double)(ng - 1))];
        free(posed);
        free(tri_of);
        free(bary);
        free(rest_gap);
        free(gaps);
        am_bench_free(&b);
    }
    free(hi_posed);
    am_bench_free(&hi);
    return 0;
}

static int build(method *m, const am_rig *rig, const am_skeleton *skel, const am_skin_options *o)
{
    am_error err;
    am_error_clear(&err);
    am_skin_result res;
    if (am_skin_build(rig, skel, o, &res, &err) || am_skin_encode(&res, &m->bytes, &err))
        return fail(m->label, &err);
    m->lod_seconds = res.summary.seconds[AM_SKIN_T_LODS];
    for (int l = 0; l < AM_LOD_COUNT; l++)
        m->q[l].est = res.summary.est_tris[l];
    m->cost = res.summary.streaming_cost;
    am_skin_result_free(&res);
    return 0;
}

int main(int argc, char **argv)
{
    char path[4096];
    am_error err;
    am_error_clear(&err);
    am_skeleton skel;
    snprintf(path, sizeof path, "%s/viewer/avatar_skeleton.xml", AM_SHARED_DIR);
    if (am_skeleton_load(path, &skel, &err))
        return fail(path, &err);
    am_rig rig;
    const char *rig_path = NULL;
    method methods[MAX_METHODS];
    memset(methods, 0, sizeof methods);
    size_t nm = 3;
    int only = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rig") && i + 1 < argc)
            rig_path = argv[++i];
        else if (!strcmp(argv[i], "--build-only") && i + 1 < argc)
            only = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--llmesh") && i + 1 < argc && nm < MAX_METHODS) {
            const char *a = argv[++i], *eq = strchr(a, '=');
            if (!eq) {
                fprintf(stderr, "benchmark_lod: --llmesh LABEL=FILE\n");
                return 2;
            }
            snprintf(methods[nm].label, sizeof methods[nm].label, "%.*s", (int)(eq - a), a);
            uint8_t *data;
            size_t size;
            if (am_read_file(eq + 1, &data, &size, &err))
                return fail(eq + 1, &err);
            am_buf_append(&methods[nm].bytes, data, size, &err);
            free(data);
            am_mesh_asset asset;
            if (am_mesh_asset_decode(methods[nm].bytes.data, methods[nm].bytes.size, &asset, &err))
                return fail(eq + 1, &err);
            size_t sizes[AM_LOD_COUNT];
            static const int block_of[AM_LOD_COUNT] = {AM_BLOCK_LOWEST, AM_BLOCK_LOW, AM_BLOCK_MEDIUM, AM_BLOCK_HIGH};
            for (int l = 0; l < AM_LOD_COUNT; l++)
                sizes[l] = asset.blocks[block_of[l]].present ? (size_t)asset.blocks[block_of[l]].size : 0;
            am_mesh_asset_free(&asset);
            am_mesh_cost cost;
            am_skin_cost_from_sizes(sizes, &cost);
            for (int l = 0; l < AM_LOD_COUNT; l++)
                methods[nm].q[l].est = cost.est_tris[l];
            methods[nm].cost = cost.streaming_cost;
            methods[nm].lod_seconds = -1;
            nm++;
        } else {
            fprintf(stderr, "usage: benchmark_lod [--rig RIG.json] [--llmesh LABEL=FILE ...]\n");
            return 2;
        }
    }
    if (rig_path ? am_rig_load(rig_path, &rig, &err)
                 : am_test_creature_load((snprintf(path, sizeof path, "%s/data/creature", AM_SHARED_DIR), path),
                                         "creature_10k", &rig, &err))
        return fail(rig_path ? rig_path : "creature_10k", &err);
    am_skin_options o;
    am_skin_options_init(&o);
    snprintf(methods[0].label, sizeof methods[0].label, "weight-aware");
    snprintf(methods[1].label, sizeof methods[1].label, "borders kept");
    snprintf(methods[2].label, sizeof methods[2].label, "plain");
    am_skin_options kept = o, plain = o;
    kept.lod_weight_tol[0] = kept.lod_weight_tol[1] = kept.lod_weight_tol[2] = AM_OPTION_ZERO;
    plain.lod_weight_blind = true;
    const am_skin_options *opts[3] = {&o, &kept, &plain};
    int rc = 0;
    for (int i = 0; i < 3 && !rc; i++)
        if (only < 0 || only == i)
            rc = build(&methods[i], &rig, &skel, opts[i]);
    if (only >= 0) {
        for (size_t i = 0; i < nm; i++)
            am_buf_free(&methods[i].bytes);
        am_rig_free(&rig);
        am_skeleton_free(&skel);
        return rc;
    }
    am_buf anim = {0};
    if (!rc && am_test_walk_anim(&skel, &anim, &err))
        rc = fail("walk clip", &err);
    for (size_t i = 0; i < nm && !rc; i++)
        rc = measure(&methods[i], &skel, &anim);
    if (!rc) {
        printf("benchmark_lod: %s (%zu vertices, %zu triangles), %d poses of a walk clip, hinge gap on %d vertices\n",
               rig.name, rig.vertex_count, rig.triangle_count, POSES, SAMPLES);
        printf("%-14s %-7s %8s %8s %9s %7s %7s %10s %10s\n", "method", "LOD", "tris", "est", "outside%", "p1", "p99",
               "gap max mm", "gap p99 mm");
        static const char *const ln[] = {"lowest", "low", "medium", "high"};
        for (size_t i = 0; i < nm; i++) {
            for (int l = AM_LOD_HIGH; l >= AM_LOD_LOWEST; l--) {
                const lod_quality *q = &methods[i].q[l];
                printf("%-14s %-7s %8zu %8.0f %9.3f %7.3f %7.3f %10.2f %10.2f\n", l == AM_LOD_HIGH ? methods[i].label : "",
                       ln[l], q->tris, q->est, 100 * q->outside, q->p1, q->p99, q->gap_max, q->gap_p99);
            }
            if (methods[i].lod_seconds >= 0)
                printf("%-14s streaming cost %.3f; LOD step %.3f s (wall)\n", "", methods[i].cost,
                       methods[i].lod_seconds);
            else
                printf("%-14s streaming cost %.3f\n", "", methods[i].cost);
        }
    }
    am_buf_free(&anim);
    for (size_t i = 0; i < nm; i++)
        am_buf_free(&methods[i].bytes);
    am_rig_free(&rig);
    am_skeleton_free(&skel);
    return rc;
}
