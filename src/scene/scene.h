/* src/scene/scene.h: the private side of include/animesh/scene.h, where its manual is. */
#ifndef AM_SCENE_H
#define AM_SCENE_H

#include "animesh/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "math/am_math.h"

struct am_skeleton; /* skeleton/skeleton.h */

/* --- nodes -------------------------------------------------------------------------- */

/* --- materials ---------------------------------------------------------------------- */

/* --- meshes ------------------------------------------------------------------------- */

/* --- skins -------------------------------------------------------------------------- */

/* --- clips -------------------------------------------------------------------------- */

/* --- the scene ---------------------------------------------------------------------- */

/* Nodes nested deeper are refused by am_scene_finish, whatever the reader: every walk over
 * the node tree after it (joint maps, retargeting, the import plan) is then bounded, even
 * one that recurses. 512 is COLLADA's <node> limit; real rigs nest 10 to 30 deep. */
#define AM_SCENE_MAX_NODE_DEPTH 512
/* Largest coordinate a scene may hold, in file units: every vertex where its mesh places
 * it (its skin's bind shape, else its node's world transform), as stored, and every entry
 * of a node's world, a bind shape or an inverse bind matrix. am_scene_finish refuses a
 * scene beyond it, naming the vertex or node, so no geometry kernel (Embree's rays, the
 * voxeliser, the Laplacian, the rasteriser) ever sees an astronomical or non-finite
 * number: 1e7 units is 10 km in millimetres, ten times the 1000 m a rig may span
 * (skin_build.h), and far inside what a float and Embree's rays hold (1.8e18). */
#define AM_SCENE_MAX_COORD 1e7

/* Record a quirk (printf-style); the same sentence twice is one note. Out of memory only
 * counts it (notes_dropped). */
void am_scene_note(am_scene *scene, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Decompose an LL-layout matrix into translation, rotation and scale (local = S, R, T for
 * a row vector; a mirror becomes a negative X scale). True when exact (no shear or
 * projection, within 1e-5 relative). */
bool am_scene_decompose(const am_mat4 *m, am_vec3 *t, am_quat *r, am_vec3 *s);
/* Set a node's rest transform from a matrix (decomposed, has_trs when exact) or from TRS. */
void am_scene_node_set_local(am_scene_node *n, const am_mat4 *local);
void am_scene_node_set_trs(am_scene_node *n, am_vec3 t, am_quat r, am_vec3 s);

/* The N of "#N" for node `node`: its index in the file's own node list where the format
 * has one (glTF nodes[N], so a user finds it in the file), else its scene index. */
int am_scene_node_number(const am_scene *scene, int node);
/* The node "#N" names (am_scene_node_number inverted), -1 when none. */
int am_scene_node_by_number(const am_scene *scene, long number);
/* How a message names node `node`: its name, or "#N" (am_scene_node_number, as joint maps
 * write an unnamed node) when it has none, so a message never shows an empty ''. Returns out. */
const char *am_scene_node_label(const am_scene *scene, int node, char *out, size_t size);

/* THE clip evaluator (every format's clips and the retargeter go through it, as
 * ufbx_evaluate_scene does): the local transform of every node at clip time t (seconds,
 * clamped to the clip's range). Each channel replaces its path of the node's rest TRS;
 * a node without a channel keeps its rest transform. clip NULL = the rest pose.
 * out_trs (node_count entries, required) gets the TRS (a node without an exact TRS keeps
 * its decomposition, for reports only); out_local (node_count entries, may be NULL) the
 * matrices (rest `local` for nodes no channel touches). */
typedef struct am_scene_trs {
    am_vec3 translation;
    am_quat rotation;
    am_vec3 scale;
} am_scene_trs;
void am_scene_eval_clip(const am_scene *scene, const am_scene_clip *clip, double t, am_scene_trs *out_trs,
                        am_mat4 *out_local);
/* One channel's value at time t (width 3 or 4 floats into out). */
void am_scene_eval_channel(const am_scene_channel *ch, double t, float out[4]);
/* World matrices from local ones (parents first): out[i] = local[i] then world[parent]. */
void am_scene_world_from_local(const am_scene *scene, const am_mat4 *local, am_mat4 *out_world);

/* The file's own linear blend skinning of a skinned mesh under node world matrices
 * (rest: the nodes' `world`): p' = sum_k w_k * (p * bind_shape * inverse_bind_j * world_j)
 * with the weights normalised to sum 1 (a vertex without weight stays at p * bind_shape).
 * A joint without a node uses its inverse bind's inverse (i.e. does not move). out: 3 per
 * vertex, file units, scene frame. This is the source's meaning of its skin; importers
 * compare what the viewer will draw against it. */
am_status am_scene_skin_positions(const am_scene *scene, size_t mesh, const am_mat4 *world, float *out,
                                  am_error *err);

#ifdef __cplusplus
}
#endif

#endif
