/* LLMeshCostData (docs/reference/mesh-asset.md#triangle-limit and #streaming-cost): triangle
 * estimates from compressed LOD sizes. */
#include "skin/skin_cost.h"

#include <string.h>

void am_skin_cost_from_sizes(const size_t bytes[AM_LOD_COUNT], am_mesh_cost *out)
{
    memset(out, 0, sizeof *out);
    /* A missing LOD inherits the next higher LOD's size. */
    double size[AM_LOD_COUNT];
    double above = 0;
    for (int lod = AM_LOD_HIGH; lod >= AM_LOD_LOWEST; lod--) {
        size[lod] = bytes[lod] ? (double)bytes[lod] : above;
        above = size[lod];
    }
    for (int lod = 0; lod < AM_LOD_COUNT; lod++) {
        double b = size[lod] - AM_MESH_METADATA_DISCOUNT;
        if (b < AM_MESH_MINIMUM_BYTE_SIZE)
            b = AM_MESH_MINIMUM_BYTE_SIZE;
        out->est_tris[lod] = b / AM_MESH_BYTES_PER_TRIANGLE;
        if (out->est_tris[lod] > out->est_tris_max)
            out->est_tris_max = out->est_tris[lod];
    }
    /* getEstTrisForStreamingCost: each lower LOD may hold clamp(allowed / 2, 64, own)
     * triangles for free; the excess is charged. */
    double charged = out->est_tris[AM_LOD_HIGH], allowed = out->est_tris[AM_LOD_HIGH];
    for (int lod = AM_LOD_MEDIUM; lod >= AM_LOD_LOWEST; lod--) {
        double a = allowed / 2.0;
        if (a < 64.0)
            a = 64.0;
        if (a > out->est_tris[lod])
            a = out->est_tris[lod];
        allowed = a;
        double excess = out->est_tris[lod] - allowed;
        if (excess > 0)
            charged += excess;
    }
    out->streaming_tris = charged;
    out->streaming_cost = AM_ANIMATED_OBJECT_BASE_COST + AM_ANIMATED_OBJECT_COST_PER_KTRI * charged / 1000.0;
}
