/* FBX (7.1 and newer) and the other rigged formats assimp reads (DirectX .x, MD5, SMD,
 * MilkShape, Blitz3D, IQM), through libassimp 5.2 into the scene (scene.h).
 *
 * assimp is NOT safe against hostile input (it is a large C++ parser with known crashes):
 * these readers are kept out of the fuzz targets, and the tool itself runs them only in a
 * child process (assimp_child.h: a crash there is an error naming the file).
 *
 * BEFORE ASSIMP: an FBX older than 7.1 (version < 7100) is refused naming the version
 * found (binary header bytes 23..26, little-endian; ASCII "FBXVersion: N") and asking for
 * a re-export as FBX 2011 (7.1) or newer, or glTF: assimp 5.2 cannot read it (Linden Lab's
 * Bento FBX files are 6100). Then the node graph (fbx_graph.h): a Model linked to two
 * parents, Models in a cycle or more than AM_ASSIMP_MAX_NODES Models are refused, because
 * assimp would expand them into its node tree before any limit could be checked.
 *
 * SETTINGS: aiProcess_Triangulate only. Never aiProcess_JoinIdenticalVertices (it breaks
 * bone weights in 5.2: assimp #4557, #6349), no weight limiting or normalising, no unit or
 * axis conversion (AI_CONFIG_FBX_CONVERT_TO_M off); AI_CONFIG_IMPORT_REMOVE_EMPTY_BONES = 0
 * (a joint that carries no weight is still a joint of the skin);
 * AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS = 0, so assimp itself composes an FBX node's pivots,
 * offsets and pre/post rotations into the node and bakes its animation curves onto it.
 * Any `<name>_$AssimpFbx$_<part>` helper node still present (or all of them, with
 * am_assimp_options.preserve_pivots) is folded here into the joint it belongs to: the
 * helpers' rest transforms composed into the joint's, channels on helpers resampled at
 * the union of their key times into LINEAR channels on the joint; the joint tree then has
 * the file's joints only.
 *
 * FILES: assimp reads through our file system callbacks: the model from the bytes given,
 * any other file (textures, .mtl, ...) only inside the model's folder (readers/file_ref.h).
 *
 * WHAT THE SCENE GETS
 *  - nodes: assimp's node tree (its root included, e.g. FBX "RootNode"; lights and
 *    cameras stay as plain nodes), parents first; local = the node's aiMatrix4x4
 *    transposed into the LL layout.
 *  - meshes: one per (node, aiMesh) reference (assimp splits a multi-material mesh into one
 *    aiMesh per material: each is a scene mesh with one face); positions, normals and
 *    TEXCOORD 0 as assimp gives them (v up, assimp's convention); non-triangle faces
 *    (points, lines) skipped with a note.
 *  - skins: one per skinned aiMesh: its bones in order, joint nodes by name (-1, noted,
 *    when no node has the bone's name), inverse binds = the bones' offset matrices, bind
 *    shape identity. Influences exactly as the file gives them (zero weights dropped, the
 *    same bone twice summed): NOT renormalised; vertices whose weights do not sum to 1
 *    (within 0.01) are counted in a note with the range of their sums.
 *  - materials: name, base colour (or diffuse colour, with opacity as alpha); the base
 *    colour (or diffuse) texture when it is PNG or JPEG: embedded bytes (raw texels are
 *    encoded to PNG), else a file inside the folder (its path as given, else its base
 *    name in the folder); other image types or files not found are noted, the material
 *    kept untextured.
 *  - clips: one per aiAnimation (its name, else "clip<N>"), times = ticks / ticks per
 *    second (25 when the file says 0, noted); position, rotation (assimp's w-first
 *    quaternions stored x, y, z, w) and scaling keys as LINEAR channels; mesh and morph
 *    channels skipped with a note.
 *  - declared: FBX files' axis system and unit from assimp's metadata: UpAxis/UpAxisSign
 *    and FrontAxis/FrontAxisSign (FBX's front axis, the direction the asset faces), unit =
 *    UnitScaleFactor centimetres; recorded, never applied. Other formats declare nothing.
 *
 * LIMITS: the file 256 MiB (checked before reading), 65,536 nodes, 16,777,216 vertices per
 * mesh, other files (textures) 64 MiB each. */
#ifndef AM_READERS_ASSIMP_READ_H
#define AM_READERS_ASSIMP_READ_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "scene/scene.h"

#define AM_ASSIMP_MAX_FILE_BYTES ((size_t)256 << 20)
#define AM_ASSIMP_MAX_NODES 65536
#define AM_ASSIMP_MAX_VERTICES 16777216u
#define AM_ASSIMP_MAX_EXTRA_FILE_BYTES ((size_t)64 << 20)
/* The formats besides FBX routed to assimp (scene_load's table). */
#define AM_ASSIMP_EXTENSIONS ".x .md5mesh .smd .ms3d .b3d .iqm"

/* The FBX version a file declares (7400 for FBX 2014/2015): binary header bytes 23..26,
 * or "FBXVersion: N" within the first 64 KiB of an ASCII file. AM_ERR_INVALID when none is
 * found. */
am_status am_fbx_version(const uint8_t *data, size_t size, unsigned *version, am_error *err);

/* True when the first bytes or the extension say a format of AM_ASSIMP_EXTENSIONS. */
bool am_assimp_recognise(const uint8_t *head, size_t size, const char *path);

/* Zeroed, the defaults (core/option.h). */
typedef struct am_assimp_options {
    /* Let assimp keep FBX pivot helper nodes (and their channels) and fold them here:
     * for tests of the folding against assimp's own composition. Default false. */
    bool preserve_pivots;
} am_assimp_options;

/* Readers (scene_load.h's am_scene_reader_fn). `source` must be the model's path (assimp
 * names other files relative to it); the bytes are the file's. am_fbx_read checks the FBX
 * version first. */
am_status am_fbx_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                      am_error *err);
am_status am_assimp_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                         am_error *err);
/* Either of the above with options (NULL = defaults); `format` is AM_SCENE_FORMAT_FBX or
 * AM_SCENE_FORMAT_ASSIMP. */
am_status am_assimp_read_ex(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                            am_scene_format format, const am_assimp_options *opt, am_scene *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
