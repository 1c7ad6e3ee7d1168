/* Linear blend skinning, the viewer's way (docs/reference/mesh-asset.md#skinning-formula, objectSkinV.glsl), as one
 * function over caller-owned arrays (meshoptimizer style; benchmark: bench/perf/benchmark_lbs.c).
 *
 * For vertex i with slots k = 0..3 (joint j_k = joints[4i+k], weight w_k = weights[4i+k]):
 *   j_k   = min(j_k, min(palette_count, 110) - 1)      (the shader's clamp to 0..109)
 *   w_k  /= (w_0 + w_1 + w_2 + w_3)                     (the only renormalisation)
 *          (sum <= 0 or NaN: weight 1 on slot 0, as the viewer's CPU path does)
 *   M_i   = sum_k w_k * P_{j_k}                         (the shader's order: blend, then
 *   out_i = pos_i * M_i                                  transform once; row vector times
 *                                                        LL-layout matrix)
 * Every slot is blended, weight 0 included (no branch per influence), so palette entries
 * must be finite (the bench refuses implausible matrices before posing).
 *
 * palette: palette_count matrices of 16 floats each in the viewer's LL layout (m[4*row+col],
 * row vectors, translation in 12..14; only the affine part is read). Unused slots: weight 0.
 *
 * Paths: the same formula is compiled for AVX-512, AVX2+FMA and a portable baseline; am_lbs
 * picks the best the CPU supports at run time (one binary runs everywhere). The paths differ
 * from each other and from am_lbs_reference (transform per slot, then blend, in double) by
 * F32 rounding only (~1e-7 relative); tests/test_lbs.c holds every supported path to 1e-6.
 */
#ifndef AM_BENCH_LBS_H
#define AM_BENCH_LBS_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AM_LBS_MAX_PALETTE 110 /* LL_MAX_JOINTS_PER_MESH_OBJECT: the shader clamps to 109 */

typedef enum am_lbs_path {
    AM_LBS_AUTO = 0,   /* the best supported (what am_lbs uses) */
    AM_LBS_PORTABLE,   /* plain C11, any CPU */
    AM_LBS_AVX2,       /* x86-64 AVX2 + FMA */
    AM_LBS_AVX512,     /* x86-64 AVX-512F */
    AM_LBS_PATH_COUNT
} am_lbs_path;

/* pos, out: 3 * n floats (may not alias); joints: 4 * n; weights: 4 * n. palette_count >= 1. */
void am_lbs(const float *pos, const uint8_t *joints, const float *weights, size_t n,
            const float *palette, size_t palette_count, float *out);

/* The same on one path (AM_LBS_AUTO = am_lbs). An unsupported path runs the portable one. */
void am_lbs_on(am_lbs_path path, const float *pos, const uint8_t *joints, const float *weights, size_t n,
               const float *palette, size_t palette_count, float *out);
/* Does this CPU (and this build) run the path? AUTO and PORTABLE: always. */
bool am_lbs_path_supported(am_lbs_path path);
/* The path am_lbs takes here, and a name for reports ("avx512", "avx2", "portable"). */
am_lbs_path am_lbs_best_path(void);
const char *am_lbs_path_name(am_lbs_path path);

/* The scalar reference: each slot's transform in double, then blended (the formula above in
 * its other, mathematically equal order). Slow; for tests and benchmarks. */
void am_lbs_reference(const float *pos, const uint8_t *joints, const float *weights, size_t n,
                      const float *palette, size_t palette_count, float *out);

#ifdef __cplusplus
}
#endif

#endif
