/* Fixtures for the binding tests: the creatures of ../shared/data/creature with their
 * skeletons and Blender's weights, agreement figures, and small meshes built by hand
 * (spheres, tori, boxes, cylinders) that can be combined into one mesh. */
#ifndef AM_TESTS_SUPPORT_BIND_FIXTURES_H
#define AM_TESTS_SUPPORT_BIND_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "bind/bind.h"
#include "bind/bind_io.h"
#include "skeleton/skeleton.h"

/* A mesh under construction: positions and triangles, owned. */
typedef struct am_test_mesh {
    float *pos;
    size_t nv, cap_v;
    uint32_t *tri;
    size_t nt, cap_t;
} am_test_mesh;

void am_test_mesh_free(am_test_mesh *m);
uint32_t am_test_mesh_vertex(am_test_mesh *m, double x, double y, double z);
void am_test_mesh_triangle(am_test_mesh *m, uint32_t a, uint32_t b, uint32_t c);
/* Closed, outward-facing: a UV sphere (rings x segments), a torus about `axis` (0 x, 1 y,
 * 2 z), an axis-aligned box subdivided n x n per face (mirror-symmetric in y, including the
 * triangulation, when centred on y = 0). */
void am_test_mesh_sphere(am_test_mesh *m, double cx, double cy, double cz, double r, int rings, int segments);
void am_test_mesh_torus(am_test_mesh *m, double cx, double cy, double cz, double R, double r, int axis, int nu, int nv);
void am_test_mesh_box(am_test_mesh *m, const double lo[3], const double hi[3], int n);
am_bind_mesh am_test_mesh_view(const am_test_mesh *m);
/* A copy of a bind source's positions and triangles, to add islands to. */
void am_test_mesh_from_source(am_test_mesh *m, const am_bind_source *src);

/* The creature of `size` ("10k" or "50k") read through am_scene_load, its skeleton and
 * Blender's weights (dense vertex x joint in the skeleton's order; rows = the file's). */
void am_test_creature(const char *size, const am_skeleton *viewer, am_bind_source *src, am_bind_skeleton *skel);
double *am_test_blender_weights(const char *size, const am_bind_skeleton *skel, size_t vertex_count, size_t *rows);

/* Dominant-joint agreement and the mean of half the L1 distance between weight vectors
 * (Blender's renormalised), over the first `rows` vertices. */
void am_test_agreement(const am_bind_result *r, const double *dense, size_t joints, size_t rows, double *dominant,
                       double *mean_abs);

/* A weighted skeleton built from names and heads (tails by the viewer rule). */
void am_test_skeleton_from_heads(const am_skeleton *viewer, const char *const *names, const am_vec3 *heads, size_t n,
                                 double height_m, am_bind_skeleton *out);

/* The largest |sum - 1| over vertices, the most influences, unweighted vertices. */
void am_test_weight_figures(const am_bind_result *r, double *sum_dev, int *max_influences, size_t *unweighted);
/* The largest weight a Left joint gives a vertex more than band_m right of the midline
 * (and vice versa). */
double am_test_cross_side(const am_bind_result *r, const am_bind_skeleton *s, const float *pos, double band_m);

#endif
