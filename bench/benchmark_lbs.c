/* benchmark_lbs: linear blend skinning throughput (am_lbs, lbs.h) on a large generated
 * mesh, beside a plain memcpy bandwidth measured in the same run.
 *
 *   benchmark_lbs [VERTICES [REPEATS]]      (default 1,000,000 vertices, 20 repeats)
 *
 * Traffic per skinned vertex: 12 B position + 4 B joints + 16 B weights read, 12 B
 * written = 44 B. memcpy traffic counts every byte twice (read + write). The ratio
 * LBS traffic / memcpy traffic says how close skinning runs to the memory's speed
 * (1.0 = memory bound; below that the arithmetic is the limit). Best of the repeats.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbs.h"

#define LBS_BYTES_PER_VERTEX 44.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* xorshift: reproducible data without global state */
static uint32_t next_u32(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static float next_unit(uint32_t *s) { return (float)(next_u32(s) >> 8) / 16777216.0f; }

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
    int repeats = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 400000) {
        fprintf(stderr, "benchmark_lbs: use at least 400000 vertices (got %zu)\n", n);
        return 2;
    }
    if (repeats < 1)
        repeats = 1;
    float *pos = malloc(3 * n * sizeof *pos);
    float *out = malloc(3 * n * sizeof *out);
    float *weights = malloc(4 * n * sizeof *weights);
    uint8_t *joints = malloc(4 * n);
    float *palette = malloc(AM_LBS_MAX_PALETTE * 16 * sizeof *palette);
    size_t copy_bytes = (size_t)(LBS_BYTES_PER_VERTEX * (double)n); /* same footprint */
    uint8_t *src = malloc(copy_bytes), *dst = malloc(copy_bytes);
    if (!pos || !out || !weights || !joints || !palette || !src || !dst) {
        fprintf(stderr, "benchmark_lbs: out of memory\n");
        return 1;
    }
    uint32_t seed = 0x9E3779B9u;
    for (size_t i = 0; i < 3 * n; i++)
        pos[i] = 2.0f * next_unit(&seed) - 1.0f;
    for (size_t i = 0; i < n; i++) {
        float w[4], sum = 0;
        for (int k = 0; k < 4; k++) {
            joints[4 * i + k] = (uint8_t)(next_u32(&seed) % AM_LBS_MAX_PALETTE);
            w[k] = 0.05f + next_unit(&seed);
            sum += w[k];
        }
        for (int k = 0; k < 4; k++)
            weights[4 * i + k] = w[k] / sum; /* 4 influences per vertex, as the asset allows */
    }
    for (int j = 0; j < AM_LBS_MAX_PALETTE; j++) {
        float *m = palette + 16 * j;
        for (int k = 0; k < 16; k++)
            m[k] = 0.2f * next_unit(&seed);
        m[0] += 1;
        m[5] += 1;
        m[10] += 1;
        m[3] = m[7] = m[11] = 0;
        m[15] = 1;
    }
    memset(src, 0x5A, copy_bytes);
    memset(dst, 0, copy_bytes);

    double best_lbs = 1e30, best_copy = 1e30, check = 0;
    am_lbs(pos, joints, weights, n, palette, AM_LBS_MAX_PALETTE, out); /* warm up */
    memcpy(dst, src, copy_bytes);
    for (int r = 0; r < repeats; r++) {
        double t0 = now_s();
        am_lbs(pos, joints, weights, n, palette, AM_LBS_MAX_PALETTE, out);
        double t1 = now_s();
        src[(size_t)r % copy_bytes] = (uint8_t)r; /* keep each copy real */
        memcpy(dst, src, copy_bytes);
        double t2 = now_s();
        if (t1 - t0 < best_lbs)
            best_lbs = t1 - t0;
        if (t2 - t1 < best_copy)
            best_copy = t2 - t1;
        check += out[(size_t)r % (3 * n)] + dst[(size_t)r * 7 % copy_bytes];
    }
    double vps = (double)n / best_lbs;
    double lbs_gbs = vps * LBS_BYTES_PER_VERTEX / 1e9;
    double copy_gbs = 2.0 * (double)copy_bytes / best_copy / 1e9; /* read + write */
    printf("benchmark_lbs: %zu vertices, 4 influences, %d-joint palette, best of %d\n", n, AM_LBS_MAX_PALETTE,
           repeats);
    printf("  LBS      %.3f ms  %.1f M vertices/s  (%.2f GB/s of traffic at %.0f B/vertex)\n", best_lbs * 1e3, vps / 1e6,
           lbs_gbs, LBS_BYTES_PER_VERTEX);
    printf("  memcpy   %.3f ms  %.2f GB/s (read + write, %zu bytes copied)\n", best_copy * 1e3, copy_gbs, copy_bytes);
    printf("  ratio    LBS traffic / memcpy traffic = %.3f  (memory-bound LBS would do %.1f M vertices/s)\n",
           lbs_gbs / copy_gbs, copy_gbs * 1e9 / LBS_BYTES_PER_VERTEX / 1e6);
    printf("  (checksum %.3f)\n", check);
    free(pos);
    free(out);
    free(weights);
    free(joints);
    free(palette);
    free(src);
    free(dst);
    return 0;
}
