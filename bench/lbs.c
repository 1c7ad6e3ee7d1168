/* Linear blend skinning over caller-owned arrays (lbs.h). */
#include "lbs.h"

void am_lbs(const float *pos, const uint8_t *joints, const float *weights, size_t n,
            const float *palette, size_t palette_count, float *out)
{
    size_t limit = palette_count < AM_LBS_MAX_PALETTE ? palette_count : AM_LBS_MAX_PALETTE;
    unsigned last = limit ? (unsigned)(limit - 1) : 0;
    for (size_t i = 0; i < n; i++) {
        const float *p = pos + 3 * i;
        const uint8_t *jj = joints + 4 * i;
        const float *ww = weights + 4 * i;
        float w[4] = {ww[0], ww[1], ww[2], ww[3]};
        float sum = w[0] + w[1] + w[2] + w[3];
        if (sum > 0.0f) {
            float inv = 1.0f / sum;
            w[0] *= inv;
            w[1] *= inv;
            w[2] *= inv;
            w[3] *= inv;
        } else {
            /* LLSkinningUtil::getPerVertexSkinMatrix with handle_bad_scale */
            w[0] = 1.0f;
            w[1] = w[2] = w[3] = 0.0f;
        }
        float x = 0.0f, y = 0.0f, z = 0.0f;
        for (int k = 0; k < 4; k++) {
            if (w[k] == 0.0f)
                continue;
            unsigned j = jj[k] < last ? jj[k] : last;
            const float *m = palette + 16 * (size_t)j;
            /* row vector p * M: x' = px m0 + py m4 + pz m8 + m12, ... */
            float tx = p[0] * m[0] + p[1] * m[4] + p[2] * m[8] + m[12];
            float ty = p[0] * m[1] + p[1] * m[5] + p[2] * m[9] + m[13];
            float tz = p[0] * m[2] + p[1] * m[6] + p[2] * m[10] + m[14];
            x += w[k] * tx;
            y += w[k] * ty;
            z += w[k] * tz;
        }
        out[3 * i + 0] = x;
        out[3 * i + 1] = y;
        out[3 * i + 2] = z;
    }
}
