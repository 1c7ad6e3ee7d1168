/* src/mesh/mesh_asset.h: the private side of include/animesh/mesh.h, where its manual is. */
#ifndef AM_MESH_ASSET_H
#define AM_MESH_ASSET_H

#include "animesh/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"
#include "math/am_math.h"

#define AM_MESH_HEADER_MAX 4096  /* MESH_HEADER_SIZE: the header must fit in the first 4096 bytes */
/* A mesh asset file is read only when it starts like one (a binary LLSD map) and holds at
 * most this many bytes: 8 faces of 65,536 vertices in 4 LODs, with weights, compress to far
 * less (docs/formats.md "Size limits"). */
#define AM_MESH_ASSET_MAX_FILE_BYTES ((size_t)64 << 20)
extern const am_file_format am_mesh_asset_format;
#define AM_MESH_MAX_FACE_VERTICES 65536
/* Largest PositionDomain bound read, metres: the geometry kernels after the decoder (the
 * bench's rasteriser, the quality measures) get finite, bounded coordinates, as a scene's
 * are (scene.h AM_SCENE_MAX_COORD); a viewer mesh spans at most 64 m. */
#define AM_MESH_MAX_DOMAIN 1e7
#define AM_WEIGHT_END 0xFF       /* end-of-list joint byte in Weights */

/* The header key of each block (AM_BLOCK_*): "lowest_lod" ... "physics_convex". */
const char *am_mesh_block_name(int block);

/* The header only (blocks[] with their offsets and sizes, version; no block is inflated):
 * what the viewer's cost estimate reads (docs/reference/mesh-asset.md#triangle-limit). Free with am_mesh_asset_free. */
am_status am_mesh_asset_decode_header(const uint8_t *data, size_t size, am_mesh_asset *out, am_error *err);

/* The same with the blocks at zlib level 0..9 (am_mesh_asset_encode: 9): every block
 * inflates to the same bytes, only the sizes (and so the cost estimate) differ. Level 0
 * stores the blocks uncompressed (still zlib streams, read as any other): for an asset
 * measured in memory and never written (the report), encoded and decoded 10-30 times
 * faster than at 9. */
am_status am_mesh_asset_encode_level(const am_mesh_asset *asset, int level, am_buf *out, am_error *err);

/* --- quantisation (docs/reference/mesh-asset.md#quantisation and #weights), the viewer's F32 steps; the one copy --- */
/* q = (U16)(((v - min) / range) * 65535), truncated. A range that is not > 0 (the 0/0 trap
 * of a flat axis) gives 0; results are clamped to 0..65535 so the cast stays defined. */
uint16_t am_mesh_quantize(float v, float min, float range);
/* v = (q / 65535) * range + min (unpackVolumeFacesInternal). */
float am_mesh_dequantize(uint16_t q, float min, float range);
/* q = (U16)((n + 1) * 0.5 * 65535), n clamped to [-1, 1]; and back: (q / 65535) * 2 - 1. */
uint16_t am_mesh_quantize_normal(float n);
float am_mesh_dequantize_normal(uint16_t q);
/* A stored weight code as the viewer decodes it: clamp(q / 65535, 0.001, 0.999). */
float am_mesh_weight_value(uint16_t code);

void am_mesh_face_free(am_mesh_face *face);
void am_mesh_skin_free(am_mesh_skin *skin);

#ifdef __cplusplus
}
#endif

#endif
