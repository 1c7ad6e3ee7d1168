/* Welding: the vertices of a face merged where the viewer's uploader would merge them
 * (docs/reference/collada-upload.md#geometry: LLVolumeFace::remap, after VertexData::operator==), the one rule
 * every reader's meshes go through.
 *
 * Two corners are one vertex when their position (-0 equal to 0), normal and UV are the
 * same values (normals within a tolerance for readers other than COLLADA, see
 * AM_WELD_NORMAL_TOL) and, for a skinned mesh, their influences are the same list (joint
 * and weight, in order). Anything different keeps them apart: a hard edge (normals), a UV seam,
 * a weight seam (two touching parts). Vertices are renumbered in first-use order over the
 * face's triangles, as LLVolumeFace::remap numbers them; unused vertices disappear.
 * Vertices of different faces never merge (the uploader welds within a face).
 *
 * Who calls it: the COLLADA reader for its faces (collada_geom.c, byte for byte the
 * uploader's remap), and am_scene_load_ex for every other reader's scene (FBX through
 * assimp gives three corners per triangle; glTF, OBJ give split corners), after the reader
 * returns and before anything turns the scene into faces and LODs. */
#ifndef AM_SCENE_WELD_H
#define AM_SCENE_WELD_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "scene/scene.h"

/* The vertices a weld compares, as strided views (bytes between vertices) so a caller's own
 * vertex struct can be welded in place. nrm, uv and the influences may be NULL. */
typedef struct am_weld_view {
    const float *pos;
    size_t pos_stride;
    const float *nrm;
    size_t nrm_stride;
    const float *uv;
    size_t uv_stride;
    const size_t *influence_start;          /* vertex_count + 1, or NULL */
    const am_scene_influence *influences;
    size_t vertex_count;
    /* 0: normals equal to the bit (LLVolumeFace::remap, the COLLADA route). Else the
     * largest difference per component that still welds (AM_WELD_NORMAL_TOL). */
    float normal_tol;
} am_weld_view;

/* The normal tolerance of am_scene_weld. FBX exporters write a normal per triangle corner,
 * and corners that are one vertex in the modeller differ in the fifth decimal (Ready Player
 * Me's FBX: up to 6e-4 per component where its GLB has one vertex); the uploader's own
 * lookup tolerance, 1e-5 (F_APPROXIMATELY_ZERO), keeps them apart. 1e-3 is 0.06 degrees:
 * no shading difference, and far from any modelled hard edge. */
#define AM_WELD_NORMAL_TOL 1e-3f

/* Weld the vertices `indices` use (index_count of them, each < view->vertex_count): on
 * return vertex_map[v] is v's new index (first-use order, duplicates sharing one) or
 * UINT32_MAX when no index uses v, and indices[] are rewritten to the new numbers.
 * *unique receives the number of new vertices; first[k] (when first is not NULL, room for
 * vertex_count) the old vertex that new vertex k copies (its first use). */
am_status am_weld_face(const am_weld_view *view, uint32_t *indices, size_t index_count, uint32_t *vertex_map,
                       uint32_t *first, size_t *unique, am_error *err);

/* What am_scene_weld did, summed over the meshes. */
typedef struct am_weld_stats {
    size_t meshes_welded;   /* meshes whose vertex count changed */
    size_t vertices_before; /* over every mesh with faces */
    size_t vertices_after;
} am_weld_stats;

/* Weld every mesh of a finished scene face by face (am_weld_face), rebuilding positions,
 * normals, UVs, influences and source_position; a mesh that welds to itself is left
 * untouched. Out of memory is the only failure (the scene is then unchanged for the mesh
 * being welded). stats may be NULL. */
am_status am_scene_weld(am_scene *scene, am_weld_stats *stats, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
