/* The reference skin JSON (docs/reference/lessons.md#rule-2): the skin block of a mesh asset
 * exactly as the asset stores it (LL layout, docs/reference/mesh-asset.md#matrix-layout: 16
 * numbers per matrix, translation at 12..14), what `mesh decode --skin-json` writes and what
 * skin/skin_compare.h compares against:
 *   {"joint_names": ["mPelvis", ...],
 *    "inverse_bind_matrix": [[16 numbers], ...],        one per joint
 *    "alt_inverse_bind_matrix": [[16 numbers], ...],    optional (joint-position overrides)
 *    "bind_shape_matrix": [16 numbers]}                 optional on input (identity)
 */
#ifndef AM_MESH_SKIN_JSON_H
#define AM_MESH_SKIN_JSON_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#include "core/error.h"
#include "core/io.h"
#include "mesh/mesh_asset.h"

/* A skin reference JSON (what mesh decode --skin-json writes: 110 joints of two matrices is
 * about 60 KB) is an object of at most this many bytes (docs/formats.md "Size limits"). */
#define AM_SKIN_JSON_MAX_FILE_BYTES ((size_t)4 << 20)
/* Its tree's memory budget (core/json_text.h): 16 times the file limit. */
#define AM_SKIN_JSON_TREE_BUDGET ((size_t)64 << 20)
extern const am_file_format am_mesh_skin_json_format;

/* --- reference JSON --- */
am_status am_mesh_skin_json_parse(const char *text, size_t size, const char *source, am_mesh_skin *out, am_error *err);
/* Write the reference JSON of a skin (17 significant digits: values round-trip exactly). */
am_status am_mesh_skin_json_write(const am_mesh_skin *skin, am_buf *out, am_error *err);
/* Load a skin from a mesh asset (.llmesh/.slm: binary LLSD header) or from reference JSON,
 * told apart by content. A mesh asset without a skin block is an error. */
am_status am_mesh_skin_load_any(const char *path, am_mesh_skin *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
