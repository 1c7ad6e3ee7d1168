/* animesh/mesh.h: the mesh asset (.llmesh): decode, encode, inspect.
 *
 * The Second Life mesh asset (docs/reference/mesh-asset.md): one data model shared by the decoder, the
 * encoder, the skin builder and the bench. Values are what the VIEWER sees after decoding
 * (F32 arithmetic exactly as unpackVolumeFacesInternal), and the raw codes are kept so a
 * decoded asset re-encodes to the same bytes.
 *
 * Ownership: every pointer is malloc'd and owned by the struct; am_mesh_asset_free frees
 * everything. A writer may build the struct by hand (plain arrays with counts).
 */
#ifndef AM_ANIMESH_MESH_H
#define AM_ANIMESH_MESH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AM_MESH_MAX_FACES 8      /* LL_SCULPT_MESH_MAX_FACES */

#define AM_MAX_INFLUENCES 4

enum { AM_LOD_LOWEST = 0, AM_LOD_LOW = 1, AM_LOD_MEDIUM = 2, AM_LOD_HIGH = 3, AM_LOD_COUNT = 4 };

enum { AM_BLOCK_LOWEST, AM_BLOCK_LOW, AM_BLOCK_MEDIUM, AM_BLOCK_HIGH, AM_BLOCK_SKIN,
       AM_BLOCK_PHYSICS_MESH, AM_BLOCK_PHYSICS_CONVEX, AM_BLOCK_COUNT };

typedef struct am_mesh_face {
    bool no_geometry;      /* {NoGeometry: true} placeholder face */
    size_t vertex_count;
    float *positions;      /* 3 * vertex_count, decoded (asset space, before bind shape) */
    float *normals;        /* 3 * vertex_count or NULL */
    float *uvs;            /* 2 * vertex_count or NULL */
    uint16_t *position_codes; /* 3 * vertex_count raw U16 (NULL: encoder quantises positions) */
    uint16_t *normal_codes;   /* 3 * vertex_count raw or NULL */
    uint16_t *uv_codes;       /* 2 * vertex_count raw or NULL */
    am_vec3 pos_min, pos_max; /* PositionDomain */
    double uv_min[2], uv_max[2]; /* TexCoord0Domain */
    am_vec3 normalized_scale; /* NormalizedScale (default 1 1 1) */
    size_t index_count;       /* multiple of 3 */
    uint16_t *indices;        /* TriangleList */

    /* Weights: 4 slots per vertex. Slots beyond weight_count[v] are unused. */
    bool has_weights;
    uint8_t *weight_count;    /* vertex_count entries, 0..4 */
    uint8_t *weight_joint;    /* 4 * vertex_count: index into skin joint_names */
    uint16_t *weight_code;    /* 4 * vertex_count: raw U16 (weight * 65535, truncated) */
    float *weight_value;      /* 4 * vertex_count: decoded clamp(q/65535, 0.001, 0.999) as the
                                 viewer stores it (0 for unused slots; decoder fills it) */
    /* Added by the codec: vertices whose Weights list is empty (a lone 0xFF). The viewer
     * binds them to joint_names[0] with weight 0.999 (docs/reference/mesh-asset.md#weights step 2); the
     * decoder keeps weight_count[v] = 0 (so they re-encode as 0xFF) but fills slot 0 the
     * viewer's way: weight_joint = 0, weight_value = 0.999. */
    size_t no_influence_count;
} am_mesh_face;

typedef struct am_mesh_lod {
    am_mesh_face *faces;
    size_t face_count;        /* 0: this LOD block is absent */
} am_mesh_lod;

typedef struct am_mesh_skin {
    char **joint_names;
    size_t joint_count;
    am_mat4 bind_shape;       /* bind_shape_matrix, LL layout (docs/reference/mesh-asset.md#matrix-layout) */
    am_mat4 *inverse_bind;    /* joint_count entries */
    am_mat4 *alt_inverse_bind;/* alt_count entries (= joint_count when valid), or NULL when absent */
    size_t alt_count;         /* as stored (the viewer ignores overrides when != joint_count);
                                 0 with a non-NULL array is read as joint_count by the encoder
                                 and every reader, so the decoders never produce it: an
                                 empty stored list decodes as absent (NULL, 0) */
    bool has_pelvis_offset;
    double pelvis_offset;
    bool lock_scale_if_joint_position;
} am_mesh_skin;

/* Where each block sat in a decoded file (for reports and tests). */
typedef struct am_mesh_block_ref {
    bool present;
    int64_t offset;           /* from the end of the header */
    int64_t size;             /* compressed bytes */
} am_mesh_block_ref;

typedef struct am_mesh_asset {
    am_mesh_lod lods[AM_LOD_COUNT];
    bool has_skin;
    am_mesh_skin skin;
    am_mesh_lod physics_mesh;          /* optional, same format as a LOD */
    uint8_t *physics_convex_raw;       /* decompressed LLSD bytes kept verbatim, or NULL */
    size_t physics_convex_size;
    bool has_version;
    int64_t version;
    /* Filled by the decoder: */
    size_t header_size;
    am_mesh_block_ref blocks[AM_BLOCK_COUNT];
    /* Added by the codec: the header's material_list (.slm save files only; written back
     * when material_count > 0), and decoder warnings for things the viewer tolerates
     * with a log line (trailing Weights bytes, incomplete triangles, missing domains). */
    char **material_list;
    size_t material_count;
    char **warnings;
    size_t warning_count;
} am_mesh_asset;

/* Decode any mesh asset (ours or the viewer's): header LLSD, zlib blocks, faces, weights,
 * skin. Every read is bounds-checked; errors name the block, face and byte offset. */
AM_API am_status am_mesh_asset_decode(const uint8_t *data, size_t size, am_mesh_asset *out, am_error *err);

AM_API am_status am_mesh_asset_load(const char *path, am_mesh_asset *out, am_error *err);

/* Encode per docs/reference/mesh-asset.md: header first (must fit in 4096 bytes), blocks in the writer's
 * order (skin, physics_convex, lowest, low, medium, high, physics_mesh), zlib level 9.
 *
 * Per face: raw codes (position_codes, normal_codes, uv_codes) are written verbatim with
 * the face's own pos_min/pos_max and uv_min/uv_max when present (so decode -> encode ->
 * decode is exact); when NULL, the float arrays are quantised with the viewer's F32
 * formulas (4.3): positions over the box of ALL faces of that LOD (the face's pos_min/
 * pos_max are then ignored), UVs over the face's own box, a zero-range axis written as 0.
 * Weights are written from weight_count/weight_joint/weight_code (weight_value is
 * ignored); refused: more than 4 influences, joint index >= 255 or >= skin joint_count,
 * weights without a skin block. A face with fewer than 3 vertices (or no_geometry) is
 * written as {NoGeometry: true}. normalized_scale (0,0,0) means unset and is written as
 * (1,1,1). Reals are written as given (the viewer writes F32 values widened to F64).
 * The skin block always carries joint_names, inverse_bind_matrix, bind_shape_matrix;
 * alt_inverse_bind_matrix (alt_count entries; alt_count 0 with a non-NULL array means
 * joint_count) and pelvis_offset when alternates exist (or has_pelvis_offset);
 * lock_scale_if_joint_position only when true. At most 110 joints. Refused as well: no
 * LOD at all, a header over 4096 bytes, indices >= vertex count, > 65536 vertices. */
AM_API am_status am_mesh_asset_encode(const am_mesh_asset *asset, am_buf *out, am_error *err);

AM_API void am_mesh_asset_free(am_mesh_asset *asset);

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
AM_API am_status am_mesh_asset_to_json(const am_mesh_asset *asset, am_buf *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
