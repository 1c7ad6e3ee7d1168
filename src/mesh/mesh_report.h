/* What a decoded mesh asset holds, for people and scripts: per-LOD counts and weight
 * statistics, and the whole asset as JSON (the schema is in am_mesh_asset_to_json). */
#ifndef AM_MESH_REPORT_H
#define AM_MESH_REPORT_H

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

/* JSON of the whole decoded asset:
 * {"header_size", "version"?, "material_list"?, "warnings": [..],
 *  "blocks": {name: {"offset", "size", "file_offset"}},
 *  "lods": {"lowest_lod"|"low_lod"|"medium_lod"|"high_lod": [face...]},
 *  "physics_mesh"?: [face...], "physics_convex_bytes"?: n,
 *  "skin"?: {"joint_names", "inverse_bind_matrix", "alt_inverse_bind_matrix"?,
 *            "bind_shape_matrix", "pelvis_offset"?, "lock_scale_if_joint_position"}}
 * face: {"no_geometry": true} or {"vertex_count", "position_domain": {"min", "max"},
 *  "normalized_scale", "positions": [[x,y,z]..], "normals"?: [[..]], "uv_domain"?,
 *  "uvs"?: [[u,v]..], "triangles": [[a,b,c]..],
 *  "weights"?: [[[joint, weight, code]..] per vertex], "no_influence_vertices"?}
 * Decoded values are the viewer's F32 values; weight is clamp(code/65535, 0.001, 0.999). */
am_status am_mesh_asset_to_json(const am_mesh_asset *asset, am_buf *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
