/* Hand-built scenes (src/import/scene.h) for the import tests: nodes, a skin bound in the
 * nodes' rest pose, box meshes around bones, and clips, without any file. Every helper
 * fails the test on an allocation failure. */
#ifndef AM_TEST_SCENE_FIXTURES_H
#define AM_TEST_SCENE_FIXTURES_H

#include <stddef.h>

#include "import/scene.h"

/* An empty scene named `source` with a declared frame (0s: none). */
void sf_init(am_scene *s, const char *source, int up, int forward, double unit_m);
/* Append a node; returns its index. */
int sf_node(am_scene *s, const char *name, int parent, am_vec3 t, am_quat r, am_vec3 scale);
/* World matrices of the nodes as they are now (parents first). */
void sf_worlds(const am_scene *s, am_mat4 *out);
/* One skin over `joints` (node indices), bound in the current rest pose: each inverse bind
 * is the inverse of the joint's rest world. Returns the skin index. */
int sf_skin(am_scene *s, const int *joints, size_t n);
/* A mesh for skin `skin`: for each skin joint j with a child position, a box of `rings`
 * cross-sections x 4 corners along the bone from the joint (rest world) to `ends[j]` (world),
 * half-width `hw`; each vertex weighted to j, blended (linear over the first and last 20 %
 * of the bone) with the parent joint `blend_parent[j]` (skin index, -1: none). Triangles
 * reference vertices in first-use order. Returns the mesh index. */
int sf_bone_boxes(am_scene *s, int skin, const am_vec3 *ends, const int *blend_parent, double hw, int rings);
/* Append a clip; returns its index. */
int sf_clip(am_scene *s, const char *name);
/* A channel: `values` has width floats per key (CUBICSPLINE: 3 * width, glTF order). */
void sf_channel(am_scene *s, int clip, int node, am_scene_path path, am_scene_interp interp, size_t keys,
                const float *times, const float *values);
/* Rotation keys about an axis of the node's LOCAL frame, on top of its rest rotation:
 * key k = rest (x) axis_angle(axis, deg[k]). */
void sf_rot_about(am_scene *s, int clip, int node, am_scene_interp interp, am_vec3 axis, size_t keys,
                  const float *times, const double *deg);

#endif
