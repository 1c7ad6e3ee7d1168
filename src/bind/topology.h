/* Mesh topology for binding and for the quality report: vertices welded by exact position,
 * degenerate faces, boundary and non-manifold edges, islands (connected components).
 * Functions over caller-owned arrays (meshoptimizer style); the result owns its arrays.
 *
 * WELDING: two vertices are one when their three coordinates are bitwise equal (after
 * -0 == +0): the split copies a UV or normal seam makes, or a COLLADA/OBJ corner list,
 * weld back to the surface the author modelled. Nothing is moved.
 * DEGENERATE: a triangle whose welded corners repeat, or whose area is at most
 * 1e-8 x its longest edge squared (a sliver whose cotangents are meaningless).
 * ISLANDS: connected components of the welded vertices over the non-degenerate triangles;
 * a vertex in no such triangle is an island of its own with no triangle ("loose"). */
#ifndef AM_BIND_TOPOLOGY_H
#define AM_BIND_TOPOLOGY_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct am_topology {
    size_t vertex_count;        /* input vertices */
    uint32_t *weld;             /* input vertex -> welded vertex */
    size_t welded_count;
    uint32_t *welded_first;     /* welded vertex -> its first input vertex */

    size_t triangle_count;      /* non-degenerate triangles */
    uint32_t *triangles;        /* 3 per triangle, welded indices */
    uint32_t *triangle_source;  /* input triangle of each */
    size_t degenerate_faces;

    size_t edge_count;          /* distinct welded edges */
    size_t boundary_edges;      /* one face */
    size_t non_manifold_edges;  /* three or more faces */

    size_t island_count;
    uint32_t *island;           /* welded vertex -> island */
    size_t *island_vertex_count;   /* per island: welded vertices */
    size_t *island_triangle_count; /* per island: triangles */
    bool *island_closed;        /* per island: every edge has exactly two faces (and >= 1 face) */
    size_t loose_vertices;      /* welded vertices in no triangle */
} am_topology;

/* Build from positions (3 per vertex) and triangles (3 indices per triangle, each checked
 * against vertex_count: out of range is AM_ERR_INVALID naming the triangle). */
am_status am_topology_build(const float *positions, size_t vertex_count, const uint32_t *triangles,
                            size_t triangle_count, am_topology *out, am_error *err);
void am_topology_free(am_topology *t);

#ifdef __cplusplus
}
#endif

#endif
