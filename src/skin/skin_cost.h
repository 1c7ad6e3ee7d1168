/* The viewer's own triangle estimate and streaming cost of a mesh, from the compressed LOD block
 * sizes (docs/reference/mesh-asset.md#triangle-limit and #streaming-cost, LLMeshCostData). The land
 * impact users see comes from the server; this is the viewer's estimate for an animesh (triangle
 * based). */
#ifndef AM_SKIN_COST_H
#define AM_SKIN_COST_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "mesh/mesh_asset.h"

#define AM_MESH_METADATA_DISCOUNT 384.0  /* MeshMetaDataDiscount */
#define AM_MESH_MINIMUM_BYTE_SIZE 16.0   /* MeshMinimumByteSize */
#define AM_MESH_BYTES_PER_TRIANGLE 16.0  /* MeshBytesPerTriangle */
#define AM_ANIMATED_OBJECT_BASE_COST 15.0
#define AM_ANIMATED_OBJECT_COST_PER_KTRI 1.5

typedef struct am_mesh_cost {
    double est_tris[AM_LOD_COUNT]; /* per LOD, lowest..high */
    double est_tris_max;           /* getEstTrisMax: compared with AnimatedObjectMaxTris */
    double streaming_tris;         /* getEstTrisForStreamingCost */
    double streaming_cost;         /* animated root prim: base 15 + 1.5 per 1000 tris */
} am_mesh_cost;

/* bytes[lod] = compressed size of each LOD block (0 = absent: inherits the next higher
 * LOD's size, as LLMeshCostData::init does). */
void am_skin_cost_from_sizes(const size_t bytes[AM_LOD_COUNT], am_mesh_cost *out);

#ifdef __cplusplus
}
#endif

#endif
