/* Hand-built scenes (src/scene/scene.h) for the import tests: nodes, a skin bound in the
 * nodes' rest pose, box meshes around bones, and clips, without any file. Every helper
 * fails the test on an allocation failure. */
#ifndef AM_TESTS_SUPPORT_SCENE_FIXTURES_H
#define AM_TESTS_SUPPORT_SCENE_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>

#include "scene/scene.h"

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

/* --- the quadruped ----------------------------------------------------------------------
 * Spine (hips, spine, spine.001, chest), neck, head, hind legs (thigh, shin, foot, toe),
 * forelegs (upper_arm, forearm, hand), a 4-joint tail; 24 joints, each node's rest rotation
 * turning its local +Y along its bone with a roll (as Blender exports bones), under an
 * "Armature" node (node 0; joint i of SF_Q is node i + 1). Built in body coordinates
 * (X forward, Y left, Z up, metres; standing on z = 0, hips at (-0.4, 0, 0.8)) and written in
 * one of the file frames below. hand.L's node rest is turned 10 deg away from the bind pose.
 * With a clip: "walk", 1 s, loops: LINEAR legs, forelegs, tail and head, a STEP toe, a
 * CUBICSPLINE spine, hips translation (bob and shift) and sway, constant translation
 * channels on the left leg. Declared as glTF (+Y up, +Z forward, metres) whatever the frame. */
typedef enum sf_frame {
    SF_YUP_M = 0,  /* glTF's frame: +Y up, faces +Z, +X is the left, metres */
    SF_ZUP_CM = 1, /* +Z up, faces -Y, +X is the left, centimetres (a x100 armature) */
    SF_VIEWER = 2  /* the viewer's axes, metres */
} sf_frame;
/* File -> viewer frame, written out per frame (independent of the library's axes code). */
am_vec3 sf_to_viewer(sf_frame k, am_vec3 file);
typedef struct sf_qjoint {
    const char *name;
    int parent;    /* index in SF_Q, -1 = the armature */
    double p[3];   /* body coordinates, metres */
    double end[3]; /* where its bone points (child or tip) */
} sf_qjoint;
extern const sf_qjoint SF_Q[];
extern const size_t SF_NQ;
void sf_quadruped(am_scene *s, sf_frame k, bool names, bool with_clip);

/* The bend box as a scene (viewer axes, metres, declaring nothing): 4 x 2 x 1 m, top and
 * bottom grids of 0.5 m; "root" (node 0, at the origin) holds the -X half, "flap" (node 1,
 * its child at the origin) the +X half, smoothstep over x in [-1, 1]; clip "fold": flap
 * 0 -> 90 -> 0 deg about Y at 0, 3, 6 s (LINEAR). With `tip`, a third joint "tip" at
 * x = 1.5 (node 2) holds x >= 1.75 and turns 30 deg more about Y at 3 s. Finished. */
void sf_bend_box(am_scene *s, bool tip);

#endif
