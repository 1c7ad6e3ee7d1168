/* Per-vertex weights for the mesh asset (docs/reference/mesh-asset.md#weights, docs/reference/collada-upload.md#weights). */
#include "skin/skin_weights.h"

#include <math.h>
#include <string.h>

size_t am_weights_quantize(const double *w, size_t n, uint16_t *codes)
{
    /* The viewer's writer truncates (U16)(w * 65535) in F32; do the same so a weight the
     * importers would store unchanged (0.6 -> 0x9999) keeps its code, then give the
     * truncation residual to the largest influence so the codes sum to 65535. */
    uint32_t sum = 0;
    size_t largest = 0, zeros = 0;
    for (size_t k = 0; k < n; k++) {
        float q = (float)w[k] * 65535.0f;
        if (!(q > 0.0f))
            q = 0.0f;
        if (q > 65535.0f)
            q = 65535.0f;
        codes[k] = (uint16_t)q;
        sum += codes[k];
        if (w[k] > w[largest])
            largest = k;
    }
    if (n == 0)
        return 0;
    if (sum < 65535u)
        codes[largest] = (uint16_t)(codes[largest] + (65535u - sum));
    else if (sum > 65535u) /* only with inputs summing above 1 */
        codes[largest] = (uint16_t)(codes[largest] - (sum - 65535u < codes[largest] ? sum - 65535u : codes[largest]));
    for (size_t k = 0; k < n; k++)
        if (codes[k] == 0)
            zeros++;
    return zeros;
}

/* Decreasing weight; equal weights: higher joint index first (LLModel::CompareWeightGreater). */
static bool before(double wa, int ja, double wb, int jb)
{
    return wa > wb || (wa == wb && ja > jb);
}

am_status am_weights_prepare(const am_weight_in *in, size_t n, int joint_count, am_vertex_weights *out,
                             am_error *err)
{
    memset(out, 0, sizeof *out);
    /* Merge influences on the same joint (their weights add), keep positive ones. Every
     * weight is first divided by the largest, so sums cannot overflow (two weights of
     * 1e308 are an even split, not infinity) and only ratios matter. */
    int joints[256];
    double weights[256];
    size_t m = 0;
    double sum = 0, largest = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i].joint < 0 || in[i].joint >= joint_count)
            return am_fail(err, AM_ERR_INVALID, "influence %zu: joint index %d out of range (%d joints)", i,
                           in[i].joint, joint_count);
        if (!isfinite(in[i].weight) || in[i].weight < 0)
            return am_fail(err, AM_ERR_INVALID, "influence %zu: weight %g is not a finite number >= 0", i,
                           in[i].weight);
        if (in[i].weight > largest)
            largest = in[i].weight;
    }
    for (size_t i = 0; i < n; i++) {
        if (in[i].weight == 0)
            continue;
        double w = in[i].weight / largest;
        size_t k = 0;
        while (k < m && joints[k] != in[i].joint)
            k++;
        if (k == m) {
            if (m == sizeof joints / sizeof joints[0])
                return am_fail(err, AM_ERR_INVALID, "more than %zu influences on one vertex", m);
            joints[m] = in[i].joint;
            weights[m++] = 0;
        }
        weights[k] += w;
        sum += w;
    }
    if (m == 0 || !(sum > 0))
        return am_fail(err, AM_ERR_INVALID,
                       "no influence with a positive weight (the viewer would silently bind it to joint 0)");
    out->merged_count = m;
    out->renormalised = fabs(sum * largest - 1.0) > 1e-3; /* the input's own sum (inf: off 1, too) */

    /* Sort (insertion; m is small) and keep the 4 strongest. */
    for (size_t i = 1; i < m; i++) {
        int j = joints[i];
        double w = weights[i];
        size_t k = i;
        while (k > 0 && before(w, j, weights[k - 1], joints[k - 1])) {
            joints[k] = joints[k - 1];
            weights[k] = weights[k - 1];
            k--;
        }
        joints[k] = j;
        weights[k] = w;
    }
    size_t keep = m < AM_MAX_INFLUENCES ? m : AM_MAX_INFLUENCES;
    out->dropped = m - keep;
    for (;;) {
        double kept = 0;
        for (size_t k = 0; k < keep; k++)
            kept += weights[k];
        for (size_t k = 0; k < keep; k++) {
            out->joint[k] = joints[k];
            out->weight[k] = weights[k] / kept;
        }
        /* An influence whose code would be 0 decodes as 0.001 (clamp): drop it instead. */
        uint16_t codes[AM_MAX_INFLUENCES];
        size_t zeros = am_weights_quantize(out->weight, keep, codes);
        if (zeros == 0 || keep == 1) {
            memcpy(out->code, codes, sizeof codes);
            break;
        }
        keep--; /* sorted: the smallest is last */
        out->dropped++;
        out->dropped_small++;
    }
    out->count = (uint8_t)keep;
    return AM_OK;
}
