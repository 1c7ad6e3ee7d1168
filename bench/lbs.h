/* Linear blend skinning, the viewer's way (mesh-asset.md 6.4, objectSkinV.glsl), as one
 * function over caller-owned arrays (meshoptimizer style; benchmark: bench/benchmark_lbs.c).
 *
 * For vertex i with slots k = 0..3 (joint j_k = joints[4i+k], weight w_k = weights[4i+k]):
 *   j_k   = min(j_k, min(palette_count, 110) - 1)      (the shader's clamp to 0..109)
 *   w_k  /= (w_0 + w_1 + w_2 + w_3)                     (the only renormalisation)
 *          (sum <= 0: weight 1 on slot 0, as the viewer's CPU path does)
 *   out_i = sum_k w_k * (pos_i * P_{j_k})               (row vector times LL-layout matrix)
 * Blending transformed points equals blending the matrices (the shader's order) exactly in
 * real arithmetic; in F32 the two differ by rounding only (~1e-7 relative).
 *
 * palette: palette_count matrices of 16 floats each in the viewer's LL layout (m[4*row+col],
 * row vectors, translation in 12..14; only the affine part is read). Unused slots: weight 0.
 */
#ifndef AM_LBS_H
#define AM_LBS_H

#include <stddef.h>
#include <stdint.h>

#define AM_LBS_MAX_PALETTE 110 /* LL_MAX_JOINTS_PER_MESH_OBJECT: the shader clamps to 109 */

/* pos, out: 3 * n floats (may not alias); joints: 4 * n; weights: 4 * n. palette_count >= 1. */
void am_lbs(const float *pos, const uint8_t *joints, const float *weights, size_t n,
            const float *palette, size_t palette_count, float *out);

#endif
