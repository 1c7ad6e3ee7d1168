/* The COLLADA reader: a .dae into the scene (scene.h), read the way the Second Life viewer's
 * uploader reads it (docs/reference/collada-upload.md, written from indra/llprimitive/lldaeloader.cpp;
 * where docs/reference/collada-upload.md is silent the viewer's LLDAELoader is followed and the choice is named in
 * a comment). Our own reader on libxml2: assimp refuses real SL exports (Avastar's
 * polylist count quirk), drops unweighted skin joints and reorders faces.
 *
 * What lands in the scene:
 *  - nodes: the first <visual_scene>'s <node> tree (pre-order, parents first), local
 *    matrix from the transform elements in order (translate, rotate, scale, matrix), sid;
 *  - meshes: one per <geometry><mesh>, faces as the uploader builds them: <triangles>
 *    first, then <polylist> (fan-triangulated from the <vcount> LIST, never the `count`
 *    attribute), then <polygons>; vertices welded within a face when the position is
 *    identical, the normal within 1e-5 per component and the UV identical
 *    (LLVolumeFace::VertexData::operator==; <triangles> never shares a vertex twice in one
 *    triangle; <polygons> welds exact duplicates); a face is cut after 65,532 vertices
 *    (<triangles>) or indices (<polylist>); exact duplicates merged and vertices in
 *    first-use order (LLVolumeFace::remap); faces stably sorted by material name,
 *    case-insensitively (LLModel::sortVolumeFacesByMaterialName). Positions, normals and
 *    UVs in the file's units; source_position per vertex; for a skinned mesh every
 *    COLLADA position no face uses is kept as an unreferenced vertex (the uploader keys
 *    weights by every position, docs/reference/collada-upload.md#weights);
 *  - skins: one per <controller><skin> on a geometry: joints from Name_array or
 *    IDREF_array as written, inverse binds and bind shape transposed into LL layout, the
 *    raw influences of each COLLADA position (joint -1 skipped, weights as given; a
 *    negative weight is dropped as the uploader keeps only weights > 0), the skeleton
 *    root, and upload_positions: the joint positions of "include joint positions"
 *    (docs/reference/collada-upload.md#finding-joint-nodes and #joint-positions) found by the
 *    uploader's rules (with <skeleton>: breadth-first sid search under every skeleton root for
 *    every legal-joint key, translation from sid translate / location / first <translate> child /
 *    sid transform matrix; without: every node whose name is a legal key, ... / sid matrix),
 *    (0, 0, 0) when none;
 *  - materials: per (symbol, target) the diffuse colour and the texture image file
 *    (resolved inside the model's folder, refused outside it, never followed);
 *  - declared: <unit meter> and <up_axis> (missing: Y_UP, as the uploader assumes). They
 *    apply to the uploaded object's transform only, never to skin data; nothing converts.
 *
 * Before parsing, the uploader's preprocess (LLDAELoader::preprocessDAE, MAINT-5678) runs
 * on a copy: every double-quoted string of [A-Za-z0-9_.@#$-] and white space holding at
 * least one white space has its spaces replaced by '_' ("Left Pec" -> "Left_Pec").
 * A DOCTYPE is refused (no entities: nothing in COLLADA needs them).
 *
 * Errors name the file and the element with its line: "x.dae: <controller id='c'>/<skin>/
 * <vertex_weights> (line 120): vcount sums to 120 influences, <v> holds 118 pairs".
 */
#ifndef AM_READERS_COLLADA_H
#define AM_READERS_COLLADA_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "scene/scene.h"

/* Files above this size are refused before they are read (scene_load.c checks it). */
#define AM_COLLADA_MAX_BYTES ((size_t)512 << 20)
/* The XML tree's memory budget: 2,097,152 elements and attributes at 256 bytes each
 * (core/xml_doc.h; real files hold hundreds to a few thousand: Roth2's body 500 elements). */
#define AM_COLLADA_TREE_BUDGET ((size_t)512 << 20)
/* A skin's <Name_array>/<IDREF_array> is counted before a name is stored: more names than
 * a scene may hold nodes are refused (the uploader itself skins at most 110 joints). */
#define AM_COLLADA_MAX_SKIN_JOINTS 65536
/* Numbers decoded per file, all arrays and all reads together (512 MiB of doubles; as the
 * glTF reader's AM_GLTF_MAX_DECODED_COMPONENTS). A 1,000,000-vertex mesh with normals,
 * UVs and 4 weights decodes about 15 million. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define AM_COLLADA_MAX_VALUES ((size_t)1 << 20) /* keeps each fuzz input fast */
#else
#define AM_COLLADA_MAX_VALUES ((size_t)1 << 26)
#endif

/* The reader of the scene_load table. `out->skeleton` (optional) is the viewer skeleton
 * whose legal-joint names the joint-position rules use. Does not call am_scene_finish. */
am_status am_collada_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                          am_error *err);

/* The uploader's preprocess, in place (same length): returns the number of quoted strings
 * whose spaces were replaced. */
size_t am_collada_preprocess(char *text, size_t size);

#ifdef __cplusplus
}
#endif

#endif
