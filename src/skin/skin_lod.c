/* Lower LODs with meshoptimizer (mesh-asset.md 3.2: the uploader always sends four LODs,
 * generated with meshoptimizer too). meshopt_simplify only removes vertices, so the
 * vertices it keeps carry their own weights and UVs unchanged. */
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "skin/skin_internal.h"

am_status am_skin_simplify(const uint32_t *indices, size_t index_count, const float *pos, size_t vertex_count,
                           double ratio, double error, uint32_t **out, size_t *out_count, am_error *err)
{
    *out = malloc((index_count ? index_count : 1) * sizeof **out);
    if (!*out)
        return am_fail_nomem(err, "LOD indices");
    size_t target = (size_t)llround((double)(index_count / 3) * ratio) * 3;
    if (target < 3)
        target = 3;
    size_t n = 0;
    if (index_count > 3 && target < index_count)
        n = meshopt_simplify(*out, indices, index_count, pos, vertex_count, 3 * sizeof(float), target, (float)error,
                             0, NULL);
    if (n == 0) { /* nothing simplified, or collapsed to nothing: keep the LOD above */
        memcpy(*out, indices, index_count * sizeof **out);
        n = index_count;
    }
    *out_count = n;
    return AM_OK;
}
