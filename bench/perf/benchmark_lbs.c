/* benchmark_lbs: linear blend skinning throughput (am_lbs, lbs.h) beside a plain memcpy of
 * the same footprint measured in the same run, on every path this CPU supports.
 *
 *   benchmark_lbs [VERTICES [REPEATS]]      (default 1,000,000 vertices, 20 repeats; any size)
 *
 * Two influence mixes:
 *   uniform  4 influences on every vertex, joints spread over the 110-joint palette;
 *   creature the real mix: the 50k test creature's weights (Blender's automatic weights,
 *            capped at 4 and quantised by the skin builder: 1 to 4 influences in a
 *            creature's proportions, neighbouring vertices on the same joints), tiled to the
 *            size asked for, in the bench's layout (unused slots joint 0, weight 0).
 *
 * Traffic per skinned vertex: 12 B position + 4 B joints + 16 B weights read, 12 B written
 * = 44 B. memcpy traffic counts every byte twice (read + write). The memcpy time of the same
 * 44 B per vertex is the bandwidth floor; "x floor" = LBS time / floor time (1.0 = as fast
 * as the memory allows). Best of the repeats. The outputs of every path are compared with
 * the scalar reference (am_lbs_reference) as a check.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/lbs.h"
#include "core/clock.h"
#include "bench/perf/support/test_random.h"
#include "skin/skin_weights.h"
#include "bench/perf/support/test_creature.h"

#define LBS_BYTES_PER_VERTEX 44.0

static void uniform_mix(size_t n, uint8_t *joints, float *weights, uint32_t *seed)
{
    for (size_t i = 0; i < n; i++) {
        float w[4], sum = 0;
        for (int k = 0; k < 4; k++) {
            joints[4 * i + k] = (uint8_t)(am_test_rand(seed) % AM_LBS_MAX_PALETTE);
            w[k] = 0.05f + am_test_rand_unit(seed);
            sum += w[k];
        }
        for (int k = 0; k < 4; k++)
            weights[4 * i + k] = w[k] / sum;
    }
}

/* The 50k creature's weights as the skin builder writes them, tiled; histogram[1..4]. */
static int creature_mix(size_t n, uint8_t *joints, float *weights, size_t histogram[5])
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data/creature", AM_SHARED_DIR);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    if (am_test_creature_load(dir, "creature_50k", &rig, &err)) {
        char buf[512];
        fprintf(stderr, "benchmark_lbs: %s\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    size_t nv = rig.vertex_count;
    uint8_t *cj = calloc(4 * nv, 1);
    float *cw = calloc(4 * nv, sizeof *cw);
    if (!cj || !cw)
        return 1;
    memset(histogram, 0, 5 * sizeof *histogram);
    for (size_t v = 0; v < nv; v++) {
        am_weight_in in[64];
        size_t a = rig.weight_start[v], m = rig.weight_start[v + 1] - a;
        for (size_t k = 0; k < m && k < 64; k++)
            in[k] = (am_weight_in){rig.influences[a + k].joint, rig.influences[a + k].weight};
        am_vertex_weights vw;
        if (am_weights_prepare(in, m < 64 ? m : 64, (int)rig.joint_count, &vw, &err))
            return 1;
        histogram[vw.count]++;
        for (int k = 0; k < vw.count; k++) {
            cj[4 * v + k] = (uint8_t)vw.joint[k];
            cw[4 * v + k] = (float)vw.code[k] / 65535.0f;
        }
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(joints + 4 * i, cj + 4 * (i % nv), 4);
        memcpy(weights + 4 * i, cw + 4 * (i % nv), 4 * sizeof *weights);
    }
    free(cj);
    free(cw);
    am_rig_free(&rig);
    return 0;
}

typedef struct timing {
    double best_s;
    double max_diff;
} timing;

typedef struct copy_floor {
    uint8_t *src, *dst;
    size_t bytes;
    double best_s; /* best memcpy time so far */
} copy_floor;

static void time_copy(copy_floor *c, int r)
{
    c->src[(size_t)r % c->bytes] = (uint8_t)r; /* keep each copy real */
    double t0 = am_clock_wall_s();
    memcpy(c->dst, c->src, c->bytes);
    double dt = am_clock_wall_s() - t0;
    if (dt < c->best_s)
        c->best_s = dt;
}

/* memcpy and LBS alternate, so both see the same machine (other work on it comes and goes). */
static timing run_path(am_lbs_path path, const float *pos, const uint8_t *joints, const float *weights, size_t n,
                       const float *palette, float *out, const float *ref, int repeats, copy_floor *floor)
{
    timing t = {1e30, 0};
    am_lbs_on(path, pos, joints, weights, n, palette, AM_LBS_MAX_PALETTE, out); /* warm up */
    for (int r = 0; r < repeats; r++) {
        time_copy(floor, r);
        double t0 = am_clock_wall_s();
        am_lbs_on(path, pos, joints, weights, n, palette, AM_LBS_MAX_PALETTE, out);
        double dt = am_clock_wall_s() - t0;
        if (dt < t.best_s)
            t.best_s = dt;
    }
    for (size_t i = 0; i < 3 * n; i++) {
        double d = fabs((double)out[i] - ref[i]) / fmax(1.0, fabs(ref[i]));
        if (d > t.max_diff)
            t.max_diff = d;
    }
    return t;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
    int repeats = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 1) {
        fprintf(stderr, "usage: benchmark_lbs [VERTICES [REPEATS]] (VERTICES >= 1)\n");
        return 2;
    }
    if (repeats < 1)
        repeats = 1;
    float *pos = malloc(3 * n * sizeof *pos);
    float *out = malloc(3 * n * sizeof *out);
    float *ref = malloc(3 * n * sizeof *ref);
    float *weights = malloc(4 * n * sizeof *weights);
    uint8_t *joints = malloc(4 * n);
    float *palette = malloc(AM_LBS_MAX_PALETTE * 16 * sizeof *palette);
    size_t copy_bytes = (size_t)(LBS_BYTES_PER_VERTEX * (double)n); /* same footprint */
    uint8_t *src = malloc(copy_bytes), *dst = malloc(copy_bytes);
    if (!pos || !out || !ref || !weights || !joints || !palette || !src || !dst) {
        fprintf(stderr, "benchmark_lbs: out of memory\n");
        return 1;
    }
    uint32_t seed = 0x9E3779B9u;
    for (size_t i = 0; i < 3 * n; i++)
        pos[i] = 2.0f * am_test_rand_unit(&seed) - 1.0f;
    for (int j = 0; j < AM_LBS_MAX_PALETTE; j++) {
        float *m = palette + 16 * j;
        for (int k = 0; k < 16; k++)
            m[k] = 0.2f * am_test_rand_unit(&seed);
        m[0] += 1;
        m[5] += 1;
        m[10] += 1;
        m[3] = m[7] = m[11] = 0;
        m[15] = 1;
    }
    memset(src, 0x5A, copy_bytes);
    memset(dst, 0, copy_bytes);
    copy_floor cf = {src, dst, copy_bytes, 1e30};
    size_t hist[5] = {0};
    int rc = 0;
    timing res[2][AM_LBS_PATH_COUNT];
    memset(res, 0, sizeof res);
    for (int mix = 0; mix < 2 && !rc; mix++) {
        if (mix == 0)
            uniform_mix(n, joints, weights, &seed);
        else if ((rc = creature_mix(n, joints, weights, hist)))
            break;
        am_lbs_reference(pos, joints, weights, n, palette, AM_LBS_MAX_PALETTE, ref);
        for (int p = AM_LBS_PORTABLE; p < AM_LBS_PATH_COUNT; p++)
            if (am_lbs_path_supported((am_lbs_path)p))
                res[mix][p] = run_path((am_lbs_path)p, pos, joints, weights, n, palette, out, ref, repeats, &cf);
    }
    double copy_gbs = 2.0 * (double)copy_bytes / cf.best_s / 1e9;
    double floor_s = cf.best_s / 2.0; /* 44 B/vertex moved once, at memcpy's rate */
    printf("benchmark_lbs: %zu vertices, %d-joint palette, best of %d; paths on this CPU:", n, AM_LBS_MAX_PALETTE,
           repeats);
    for (int p = AM_LBS_PORTABLE; p < AM_LBS_PATH_COUNT; p++)
        if (am_lbs_path_supported((am_lbs_path)p))
            printf(" %s", am_lbs_path_name((am_lbs_path)p));
    printf(" (am_lbs takes %s)\n", am_lbs_path_name(am_lbs_best_path()));
    printf("  memcpy   %.3f ms for %zu bytes: %.2f GB/s (read + write); floor for 44 B/vertex: %.3f ms = %.1f M "
           "vertices/s\n",
           cf.best_s * 1e3, copy_bytes, copy_gbs, floor_s * 1e3, (double)n / floor_s / 1e6);
    for (int mix = 0; mix < 2 && !rc; mix++) {
        if (mix == 0)
            printf("  mix uniform: 4 influences on every vertex\n");
        else {
            size_t tot = hist[1] + hist[2] + hist[3] + hist[4];
            printf("  mix creature (50k creature's weights, tiled): 1 influence %.1f%%, 2 %.1f%%, 3 %.1f%%, 4 %.1f%%\n",
                   100.0 * hist[1] / tot, 100.0 * hist[2] / tot, 100.0 * hist[3] / tot, 100.0 * hist[4] / tot);
        }
        for (int p = AM_LBS_PORTABLE; p < AM_LBS_PATH_COUNT; p++) {
            if (!am_lbs_path_supported((am_lbs_path)p))
                continue;
            timing t = res[mix][p];
            double vps = (double)n / t.best_s;
            printf("    %-9s %8.3f ms  %6.1f M vertices/s  %5.2f GB/s  %.2fx floor  (max diff vs reference %.1e)\n",
                   am_lbs_path_name((am_lbs_path)p), t.best_s * 1e3, vps / 1e6, vps * LBS_BYTES_PER_VERTEX / 1e9,
                   t.best_s / floor_s, t.max_diff);
            if (t.max_diff > 1e-6)
                rc = 1;
        }
    }
    free(pos);
    free(out);
    free(ref);
    free(weights);
    free(joints);
    free(palette);
    free(src);
    free(dst);
    return rc;
}
