/* The uploader's unit-cube normalisation (docs/reference/mesh-asset.md#positions-in-the-unit-cube,
 * LLModel::normalizeVolumeFaces), in F32 like the viewer so our bind shape equals the one it
 * computes from our .dae. */
#include <math.h>

#include "skin/skin_internal.h"

#define F_APPROXIMATELY_ZERO 0.00001f

void am_skin_norm_compute(const float *positions, const am_skin_face_split *faces, size_t face_count,
                          am_skin_norm *norm)
{
    float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t f = 0; f < face_count; f++)
        for (size_t i = 0; i < faces[f].vertex_count; i++) {
            const float *p = &positions[3 * (size_t)faces[f].vertices[i]];
            for (int k = 0; k < 3; k++) {
                if (p[k] < mn[k])
                    mn[k] = p[k];
                if (p[k] > mx[k])
                    mx[k] = p[k];
            }
        }
    for (int k = 0; k < 3; k++) {
        float size = mx[k] - mn[k];
        if (fabsf(size) < F_APPROXIMATELY_ZERO)
            size = 1.0f;
        norm->trans[k] = (mn[k] + mx[k]) * -0.5f;
        norm->scale[k] = 1.0f / size;
        norm->inv_scale[k] = 1.0f / norm->scale[k];
    }
}

void am_skin_norm_position(const am_skin_norm *n, const float *p, float out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (p[k] + n->trans[k]) * n->scale[k];
}

void am_skin_norm_normal(const am_skin_norm *n, const float *nin, float out[3])
{
    float v[3], len2 = 0;
    for (int k = 0; k < 3; k++) {
        v[k] = nin[k] * n->inv_scale[k];
        len2 += v[k] * v[k];
    }
    float len = sqrtf(len2);
    for (int k = 0; k < 3; k++)
        out[k] = len > 0 ? v[k] / len : 0.0f;
}

am_mat4 am_skin_norm_bind_shape(const am_skin_norm *n)
{
    /* NT = S(mNormalizedScale) then T(mNormalizedTranslation), LL layout; with an identity
     * source bind shape this is the asset's bind_shape_matrix (docs/reference/collada-upload.md#bind-shape-matrix). */
    am_mat4 m = am_mat4_identity();
    for (int k = 0; k < 3; k++) {
        m.m[5 * k] = (double)n->inv_scale[k];
        m.m[12 + k] = (double)(-n->trans[k]);
    }
    return m;
}
