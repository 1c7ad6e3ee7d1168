/* Linear blend skinning over caller-owned arrays (lbs.h): blend the four matrices, transform
 * once, no branch per influence; one portable path and two x86 SIMD paths chosen at run time.
 *
 * Every path first copies the palette into 256 aligned 64-byte entries, entry j holding
 * palette[min(j, limit - 1)], so the shader's index clamp costs nothing per vertex (a joint
 * index is a byte). The weights are normalised before the blend; a vertex whose weights do
 * not sum above zero gets (1, 0, 0, 0). */
#include "bench/lbs.h"

#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define AM_LBS_X86 1
#include <immintrin.h>
#endif

#define PADDED 256

typedef struct padded_palette {
    _Alignas(64) float m[PADDED * 16];
} padded_palette;

static void pad_palette(const float *palette, size_t palette_count, padded_palette *pp)
{
    size_t limit = palette_count < AM_LBS_MAX_PALETTE ? palette_count : AM_LBS_MAX_PALETTE;
    if (limit == 0)
        limit = 1;
    memcpy(pp->m, palette, limit * 16 * sizeof(float));
    for (size_t j = limit; j < PADDED; j++)
        memcpy(pp->m + 16 * j, palette + 16 * (limit - 1), 16 * sizeof(float));
}

static void lbs_portable(const float *restrict pos, const uint8_t *restrict joints, const float *restrict weights,
                         size_t n, const float *restrict pal, float *restrict out)
{
    for (size_t i = 0; i < n; i++) {
        const float *w = weights + 4 * i;
        float sum = (w[0] + w[1]) + (w[2] + w[3]);
        int ok = sum > 0.0f;
        float inv = 1.0f / (ok ? sum : 1.0f);
        float w0 = ok ? w[0] * inv : 1.0f, w1 = ok ? w[1] * inv : 0.0f;
        float w2 = ok ? w[2] * inv : 0.0f, w3 = ok ? w[3] * inv : 0.0f;
        const float *m0 = pal + 16 * (size_t)joints[4 * i], *m1 = pal + 16 * (size_t)joints[4 * i + 1];
        const float *m2 = pal + 16 * (size_t)joints[4 * i + 2], *m3 = pal + 16 * (size_t)joints[4 * i + 3];
        float b[16];
        for (int e = 0; e < 16; e++)
            b[e] = w0 * m0[e] + w1 * m1[e] + w2 * m2[e] + w3 * m3[e];
        const float *p = pos + 3 * i;
        for (int c = 0; c < 3; c++) /* row vector p * M: x' = px m0 + py m4 + pz m8 + m12 */
            out[3 * i + c] = p[0] * b[c] + p[1] * b[4 + c] + p[2] * b[8 + c] + b[12 + c];
    }
}

#ifdef AM_LBS_X86
/* The normalised weights: w / sum, or (1, 0, 0, 0) when the sum is not above zero. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m128 normalised(const float *w)
{
    __m128 wv = _mm_loadu_ps(w);
    __m128 s = _mm_add_ps(wv, _mm_movehl_ps(wv, wv));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    s = _mm_broadcastss_ps(s);
    __m128 ok = _mm_cmpgt_ps(s, _mm_setzero_ps());
    __m128 inv = _mm_and_ps(ok, _mm_div_ps(_mm_set1_ps(1.0f), s));
    __m128 e0 = _mm_andnot_ps(ok, _mm_setr_ps(1.0f, 0.0f, 0.0f, 0.0f));
    return _mm_fmadd_ps(wv, inv, e0);
}

__attribute__((target("avx2,fma"), always_inline)) static inline void
store3(float *o, __m128 r, int last)
{
    if (!last)
        _mm_storeu_ps(o, r); /* the 4th lane lands on the next vertex, written right after */
    else {
        _mm_storel_pi((__m64 *)o, r);
        _mm_store_ss(o + 2, _mm_movehl_ps(r, r));
    }
}

/* The blend of the four slots' matrices, rows 0|1 and rows 2|3. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
blend_avx2(const float *pal, const uint8_t *j, __m256 w0, __m256 w1, __m256 w2, __m256 w3, __m256 *b01, __m256 *b23)
{
    const float *m0 = pal + 16 * (size_t)j[0], *m1 = pal + 16 * (size_t)j[1];
    const float *m2 = pal + 16 * (size_t)j[2], *m3 = pal + 16 * (size_t)j[3];
    __m256 lo = _mm256_mul_ps(w0, _mm256_load_ps(m0)), hi = _mm256_mul_ps(w0, _mm256_load_ps(m0 + 8));
    lo = _mm256_fmadd_ps(w1, _mm256_load_ps(m1), lo);
    hi = _mm256_fmadd_ps(w1, _mm256_load_ps(m1 + 8), hi);
    lo = _mm256_fmadd_ps(w2, _mm256_load_ps(m2), lo);
    hi = _mm256_fmadd_ps(w2, _mm256_load_ps(m2 + 8), hi);
    *b01 = _mm256_fmadd_ps(w3, _mm256_load_ps(m3), lo);
    *b23 = _mm256_fmadd_ps(w3, _mm256_load_ps(m3 + 8), hi);
}

/* One vertex, any weights (the zero-sum fallback included): the tail and rare cases. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
vertex_avx2(const float *p, const uint8_t *j, const float *w, const float *pal, float *o, int last)
{
    __m256 wide = _mm256_castps128_ps256(normalised(w));
    __m256 w0 = _mm256_permutevar8x32_ps(wide, _mm256_set1_epi32(0));
    __m256 w1 = _mm256_permutevar8x32_ps(wide, _mm256_set1_epi32(1));
    __m256 w2 = _mm256_permutevar8x32_ps(wide, _mm256_set1_epi32(2));
    __m256 w3 = _mm256_permutevar8x32_ps(wide, _mm256_set1_epi32(3));
    __m256 b01, b23;
    blend_avx2(pal, j, w0, w1, w2, w3, &b01, &b23);
    /* (px px px px py py py py) * rows 0|1 + (pz pz pz pz 1 1 1 1) * rows 2|3 */
    __m256 pxy = _mm256_set_m128(_mm_broadcast_ss(p + 1), _mm_broadcast_ss(p));
    __m256 pz1 = _mm256_blend_ps(_mm256_broadcast_ss(p + 2), _mm256_set1_ps(1.0f), 0xF0);
    __m256 t = _mm256_fmadd_ps(b23, pz1, _mm256_mul_ps(b01, pxy));
    store3(o, _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1)), last);
}

/* The common case: weights summing above zero. The raw weights are broadcast straight from
 * memory and the normalisation is folded into the point: (p, 1) / sum times the blend. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
vertex_avx2_fast(const float *p, const uint8_t *j, const float *w, const float *pal, float *o, float sum)
{
    __m256 b01, b23;
    blend_avx2(pal, j, _mm256_broadcast_ss(w), _mm256_broadcast_ss(w + 1), _mm256_broadcast_ss(w + 2),
               _mm256_broadcast_ss(w + 3), &b01, &b23);
    __m128 p4 = _mm_mul_ps(_mm_blend_ps(_mm_loadu_ps(p), _mm_set1_ps(1.0f), 0x8), _mm_set1_ps(1.0f / sum));
    __m256 p44 = _mm256_castps128_ps256(p4);
    __m256 pxy = _mm256_permutevar8x32_ps(p44, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    __m256 pz1 = _mm256_permutevar8x32_ps(p44, _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3));
    __m256 t = _mm256_fmadd_ps(b23, pz1, _mm256_mul_ps(b01, pxy));
    _mm_storeu_ps(o, _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1)));
}

__attribute__((target("avx2,fma"))) static void lbs_avx2(const float *restrict pos, const uint8_t *restrict joints,
                                                         const float *restrict weights, size_t n,
                                                         const float *restrict pal, float *restrict out)
{
    if (n == 0)
        return;
    for (size_t i = 0; i + 1 < n; i++) {
        const float *w = weights + 4 * i;
        float sum = (w[0] + w[1]) + (w[2] + w[3]);
        if (__builtin_expect(sum > 0.0f, 1))
            vertex_avx2_fast(pos + 3 * i, joints + 4 * i, w, pal, out + 3 * i, sum);
        else
            vertex_avx2(pos + 3 * i, joints + 4 * i, w, pal, out + 3 * i, 0);
    }
    vertex_avx2(pos + 3 * (n - 1), joints + 4 * (n - 1), weights + 4 * (n - 1), pal, out + 3 * (n - 1), 1);
}

/* Four vertices at once: each blend B_v = sum_k w_vk P_jvk in one register (rows r = lanes
 * 4r..4r+3), then a 4 x 4 transpose of 128-bit rows so that Z_r holds row r of the four
 * vertices, the points spread as X = (x0 x4, x1 x4, ...), Y, Z, and out = (Z3 + X Z0 + Y Z1 +
 * Z Z2) / sum: the normalisation rides on the result. */
__attribute__((target("avx512f,avx2,fma"), always_inline)) static inline __m512
blend_avx512(const uint8_t *j, const float *w, const float *pal)
{
    __m512 b = _mm512_mul_ps(_mm512_set1_ps(w[0]), _mm512_load_ps(pal + 16 * (size_t)j[0]));
    b = _mm512_fmadd_ps(_mm512_set1_ps(w[1]), _mm512_load_ps(pal + 16 * (size_t)j[1]), b);
    b = _mm512_fmadd_ps(_mm512_set1_ps(w[2]), _mm512_load_ps(pal + 16 * (size_t)j[2]), b);
    return _mm512_fmadd_ps(_mm512_set1_ps(w[3]), _mm512_load_ps(pal + 16 * (size_t)j[3]), b);
}

__attribute__((target("avx512f,avx2,fma"))) static void lbs_avx512(const float *restrict pos,
                                                                   const uint8_t *restrict joints,
                                                                   const float *restrict weights, size_t n,
                                                                   const float *restrict pal, float *restrict out)
{
    const __m512i ix = _mm512_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3, 6, 6, 6, 6, 9, 9, 9, 9);
    const __m512i iy = _mm512_setr_epi32(1, 1, 1, 1, 4, 4, 4, 4, 7, 7, 7, 7, 10, 10, 10, 10);
    const __m512i iz = _mm512_setr_epi32(2, 2, 2, 2, 5, 5, 5, 5, 8, 8, 8, 8, 11, 11, 11, 11);
    const __m512i pack = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15, 15, 15, 15);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float *w = weights + 4 * i;
        const uint8_t *j = joints + 4 * i;
        __m512 wv = _mm512_loadu_ps(w);
        __m512 s = _mm512_add_ps(wv, _mm512_permute_ps(wv, _MM_SHUFFLE(2, 3, 0, 1)));
        s = _mm512_add_ps(s, _mm512_permute_ps(s, _MM_SHUFFLE(1, 0, 3, 2))); /* each vertex's sum, x4 */
        if (__builtin_expect(_mm512_cmp_ps_mask(s, _mm512_setzero_ps(), _CMP_GT_OQ) != 0xFFFF, 0)) {
            for (size_t v = i; v < i + 4; v++)
                vertex_avx2(pos + 3 * v, joints + 4 * v, weights + 4 * v, pal, out + 3 * v, v + 1 == n);
            continue;
        }
        __m512 b0 = blend_avx512(j, w, pal), b1 = blend_avx512(j + 4, w + 4, pal);
        __m512 b2 = blend_avx512(j + 8, w + 8, pal), b3 = blend_avx512(j + 12, w + 12, pal);
        __m512 t0 = _mm512_shuffle_f32x4(b0, b1, _MM_SHUFFLE(1, 0, 1, 0));
        __m512 t1 = _mm512_shuffle_f32x4(b0, b1, _MM_SHUFFLE(3, 2, 3, 2));
        __m512 t2 = _mm512_shuffle_f32x4(b2, b3, _MM_SHUFFLE(1, 0, 1, 0));
        __m512 t3 = _mm512_shuffle_f32x4(b2, b3, _MM_SHUFFLE(3, 2, 3, 2));
        __m512 z0 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
        __m512 z1 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
        __m512 z2 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
        __m512 z3 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
        __m512 p = _mm512_maskz_loadu_ps(0x0FFF, pos + 3 * i);
        __m512 r = _mm512_fmadd_ps(_mm512_permutexvar_ps(ix, p), z0, z3);
        r = _mm512_fmadd_ps(_mm512_permutexvar_ps(iy, p), z1, r);
        r = _mm512_fmadd_ps(_mm512_permutexvar_ps(iz, p), z2, r);
        __m512 inv = _mm512_rcp14_ps(s); /* 2^-14, then one Newton step: ~1e-7 */
        inv = _mm512_mul_ps(inv, _mm512_fnmadd_ps(s, inv, _mm512_set1_ps(2.0f)));
        r = _mm512_mul_ps(r, inv);
        _mm512_mask_storeu_ps(out + 3 * i, 0x0FFF, _mm512_permutexvar_ps(pack, r));
    }
    for (; i < n; i++)
        vertex_avx2(pos + 3 * i, joints + 4 * i, weights + 4 * i, pal, out + 3 * i, i + 1 == n);
}
#endif

bool am_lbs_path_supported(am_lbs_path path)
{
    switch (path) {
    case AM_LBS_AUTO:
    case AM_LBS_PORTABLE: return true;
#ifdef AM_LBS_X86
    case AM_LBS_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case AM_LBS_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    default: return false;
    }
}

am_lbs_path am_lbs_best_path(void)
{
    if (am_lbs_path_supported(AM_LBS_AVX512))
        return AM_LBS_AVX512;
    if (am_lbs_path_supported(AM_LBS_AVX2))
        return AM_LBS_AVX2;
    return AM_LBS_PORTABLE;
}

const char *am_lbs_path_name(am_lbs_path path)
{
    switch (path) {
    case AM_LBS_AUTO: return "auto";
    case AM_LBS_PORTABLE: return "portable";
    case AM_LBS_AVX2: return "avx2";
    case AM_LBS_AVX512: return "avx512";
    default: return "?";
    }
}

void am_lbs_on(am_lbs_path path, const float *pos, const uint8_t *joints, const float *weights, size_t n,
               const float *palette, size_t palette_count, float *out)
{
    if (path == AM_LBS_AUTO)
        path = am_lbs_best_path();
    else if (!am_lbs_path_supported(path))
        path = AM_LBS_PORTABLE;
    padded_palette pp;
    pad_palette(palette, palette_count, &pp);
    switch (path) {
#ifdef AM_LBS_X86
    case AM_LBS_AVX512: lbs_avx512(pos, joints, weights, n, pp.m, out); break;
    case AM_LBS_AVX2: lbs_avx2(pos, joints, weights, n, pp.m, out); break;
#endif
    default: lbs_portable(pos, joints, weights, n, pp.m, out); break;
    }
}

void am_lbs(const float *pos, const uint8_t *joints, const float *weights, size_t n, const float *palette,
            size_t palette_count, float *out)
{
    am_lbs_on(AM_LBS_AUTO, pos, joints, weights, n, palette, palette_count, out);
}

void am_lbs_reference(const float *pos, const uint8_t *joints, const float *weights, size_t n, const float *palette,
                      size_t palette_count, float *out)
{
    size_t limit = palette_count < AM_LBS_MAX_PALETTE ? palette_count : AM_LBS_MAX_PALETTE;
    unsigned last = limit ? (unsigned)(limit - 1) : 0;
    for (size_t i = 0; i < n; i++) {
        const float *p = pos + 3 * i;
        double w[4], sum = 0;
        for (int k = 0; k < 4; k++)
            sum += w[k] = weights[4 * i + k];
        for (int k = 0; k < 4; k++)
            w[k] = sum > 0 ? w[k] / sum : k == 0; /* LLSkinningUtil::getPerVertexSkinMatrix */
        double acc[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++) {
            unsigned j = joints[4 * i + k] < last ? joints[4 * i + k] : last;
            const float *m = palette + 16 * (size_t)j;
            for (int c = 0; c < 3; c++)
                acc[c] += w[k] * ((double)p[0] * m[c] + (double)p[1] * m[4 + c] + (double)p[2] * m[8 + c] + m[12 + c]);
        }
        for (int c = 0; c < 3; c++)
            out[3 * i + c] = (float)acc[c];
    }
}
