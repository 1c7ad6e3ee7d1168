/* The glTF 2.0 reader (.gltf JSON with external or data: buffers, and .glb), our own on
 * jansson: glTF is JSON plus typed arrays made to be read directly, and a generic importer's
 * post-processing changes vertex and joint sets. It fills the scene (scene.h) as follows.
 *
 * FILE
 *  - .glb: 12-byte header ("glTF", version 2, total length = the file's size), then a JSON
 *    chunk, then an optional BIN chunk; every chunk length is checked against the bytes
 *    left and must be a multiple of 4; other chunk types are skipped with a note.
 *  - buffers: the GLB's BIN chunk (a buffer without `uri` in a .glb), a base64 `data:` URI,
 *    or a file resolved inside the model's folder (readers/file_ref.h: "..", absolute paths
 *    and symlinks leading out are refused, never followed). `byteLength` must fit the bytes.
 *  - `asset.version` must be 2.x; an `extensionsRequired` entry we cannot honour (Draco,
 *    meshopt, texture transforms, Basis/WebP textures, ...) is refused by name.
 *
 * ACCESSORS: every component type (BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT,
 * UNSIGNED_INT, FLOAT), `normalized` (glTF 2.0 3.11: c/127 clamped to -1, c/255, c/32767
 * clamped, c/65535), `byteStride`, matrix column padding to 4 bytes, a missing bufferView
 * (zeros), sparse accessors (indices and values each bounds-checked; an index >= count is
 * refused). Bounds: accessor.byteOffset + stride * (count - 1) + element size <=
 * bufferView.byteLength, and bufferView.byteOffset + byteLength <= buffer.byteLength <=
 * the buffer's bytes.
 *
 * NODES: the default `scene`, else scene 0, else every root (a note says which). Only
 * nodes reachable from it become scene nodes, parents first (depth-first from each root);
 * a node with two parents, or a scene root that has a parent, is refused. `matrix` (glTF's
 * column-major array is already the LL layout: row vectors, translation in m[12..14]) or
 * TRS (rotation normalised; a zero quaternion or a non-finite value refused). Names as
 * in the file ("" when unnamed).
 *
 * MESHES: one scene mesh per node that instances a glTF mesh (named after the mesh, else
 * the node, else "mesh<N>"), `node` = that node. Its primitives follow one another in the
 * vertex arrays and each becomes one face (its material). TRIANGLES, TRIANGLE_STRIP (glTF
 * winding: odd triangles swapped) and TRIANGLE_FAN become triangles; degenerate strip/fan
 * triangles are dropped; POINTS and LINES* primitives are skipped with a note. POSITION is
 * required; NORMAL and TEXCOORD_0 are kept when every primitive has them (else dropped
 * with a note); uv v is stored as 1 - v (scene.h: v up). Morph targets are skipped with a
 * note.
 *
 * SKINS: every glTF skin is a scene skin (same index). Joint names are the joint nodes'
 * names, "node<N>" (N = glTF node index) for an unnamed joint node; inverse binds from
 * `inverseBindMatrices` (identity without them, has_inverse_binds false); bind shape
 * identity; `skeleton` as skeleton_root. A mesh instanced by a node with `skin` gets that
 * skin; JOINTS_n / WEIGHTS_n are read for EVERY n and merged per vertex: zero weights
 * dropped, the same joint twice summed, all the rest kept as given (no cut, no
 * renormalising: the skin builder does that). A joint index past the skin's joints (with a
 * non-zero weight) or a negative weight is refused naming the accessor and vertex.
 *
 * MATERIALS: every glTF material (same index): name, pbrMetallicRoughness.baseColorFactor,
 * baseColorTexture's image from a bufferView or a data URI (bytes in image_data) or a file
 * inside the folder (image_path, the resolved path). The type is sniffed from the bytes:
 * PNG or JPEG, anything else refused naming the image. Other texture slots are ignored.
 *
 * ANIMATIONS: one clip per animation (its name, else "clip<N>"): translation, rotation and
 * scale channels with LINEAR, STEP or CUBICSPLINE samplers, values in glTF layout
 * (CUBICSPLINE: in-tangent, value, out-tangent per key); rotation outputs may be
 * normalised integers. `weights` channels and channels on nodes outside the scene are
 * skipped with a note; an animation with nothing left is dropped with a note.
 *
 * DECLARED: +Y up, +Z forward (the asset's front faces +Z: glTF 2.0 3.4), metres.
 *
 * LIMITS (checked before the data is read or allocated): the .gltf/.glb file 256 MiB
 * (scene_load's table), each external or data: buffer 512 MiB and all buffers 1 GiB,
 * 65,536 nodes, 4,194,304 elements per accessor, 2^26 components decoded over the whole
 * file (all instances together), 64 MiB per embedded image. */
#ifndef AM_READERS_GLTF_H
#define AM_READERS_GLTF_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "scene/scene.h"

#define AM_GLTF_MAX_FILE_BYTES ((size_t)256 << 20)
#define AM_GLTF_MAX_BUFFER_BYTES ((size_t)512 << 20)
#define AM_GLTF_MAX_TOTAL_BUFFER_BYTES ((size_t)1 << 30)
#define AM_GLTF_MAX_NODES 65536
/* The JSON apart from the buffers: a GLB's JSON chunk is at most 64 MiB, and any glTF's
 * JSON tree has a memory budget of 256 MiB (core/json_text.h; base64 data: URIs are not in
 * it, the file limit bounds them). A real glTF's JSON is kilobytes to a few MB: the Ready
 * Player Me avatar's is 30 KB, 0.34 MB of tree. */
#define AM_GLTF_MAX_JSON_BYTES ((size_t)64 << 20)
#define AM_GLTF_JSON_TREE_BUDGET ((size_t)256 << 20)
#define AM_GLTF_MAX_ACCESSOR_COUNT 4194304
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define AM_GLTF_MAX_DECODED_COMPONENTS ((size_t)1 << 20) /* keeps each fuzz input fast */
#else
#define AM_GLTF_MAX_DECODED_COMPONENTS ((size_t)1 << 26)
#endif
#define AM_GLTF_MAX_IMAGE_BYTES ((size_t)64 << 20)

/* The reader (scene_load.h's am_scene_reader_fn): `data` is a .glb when it starts with
 * "glTF", else .gltf JSON text. Fills `out` (whose source/base_dir/format the caller set;
 * they are kept) and leaves validation to am_scene_finish. On failure `out` may hold part
 * of the scene: the caller frees it. */
am_status am_gltf_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                       am_error *err);

#ifdef __cplusplus
}
#endif

#endif
