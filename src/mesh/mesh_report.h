/* What a decoded mesh asset holds, for people and scripts: per-LOD counts and weight
 * statistics, and the whole asset as JSON (the schema is in am_mesh_asset_to_json). */
#ifndef AM_MESH_REPORT_H
#define AM_MESH_REPORT_H

#include "animesh/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#include "core/error.h"
#include "core/io.h"
#include "mesh/mesh_asset.h"

typedef struct am_mesh_lod_stats {
    size_t faces, no_geometry_faces;
    size_t vertices, triangles;
    size_t weighted_vertices;      /* vertices of faces that carry Weights */
    size_t influence_hist[5];      /* vertices with 0..4 influences */
    size_t no_influence;           /* bound to joint 0 by the viewer (4.6 step 2) */
    int max_joint;                 /* highest joint index used, -1 if none */
} am_mesh_lod_stats;

void am_mesh_lod_stats_of(const am_mesh_lod *lod, am_mesh_lod_stats *out);

#ifdef __cplusplus
}
#endif

#endif
