/* src/bind/bind.h: the private side of include/animesh/bind.h, where its manual is. */
#ifndef AM_BIND_H
#define AM_BIND_H

#include "animesh/bind.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "core/option.h"
#include "math/am_math.h"

/* --- the skeleton to bind to ------------------------------------------------------- */

/* --- the mesh ---------------------------------------------------------------------- */

/* --- options ----------------------------------------------------------------------- */

/* --- the result -------------------------------------------------------------------- */

#define AM_BIND_MAJOR_BONE 0.05      /* docs/reference/quality-figures.md: a major bone is >= 5% of the height */

/* Load what a bind with these options will solve with (Embree for the ray tests; CHOLMOD
 * and its BLAS for the heat method, about 10 ms), so that am_bind does not wait for it. Meant to run on a thread of
 * its own while the caller reads the mesh; nothing to free, and a library that cannot be
 * loaded is left for am_bind to report. NULL opts: the defaults. */
void am_bind_preload(const am_bind_options *opts);

/* Islands of a mesh and the bones each holds, decided exactly as am_bind decides them
 * (for reports on meshes bound elsewhere). */
typedef struct am_bind_holds {
    size_t island_count;
    size_t joint_count;
    uint32_t *vertex_island;     /* per input vertex */
    size_t *island_vertices;     /* per island: input vertices */
    bool *island_has_faces;      /* false: loose vertices */
    bool *held;                  /* island_count x joint_count, row-major */
    bool *joint_held;            /* per joint: some island holds it */
} am_bind_holds;
am_status am_bind_holds_compute(const am_bind_mesh *mesh, const am_bind_skeleton *skel, am_bind_holds *out,
                                am_error *err);
void am_bind_holds_free(am_bind_holds *h);

/* True when joint j's bone runs along the bone of another joint k with weighted[k] (both
 * ends within tol of k's ends, either way round): the viewer's Bento spine folds mSpine3 and
 * mSpine4 back onto mChest and mTorso like this. Such a bone without weight is not an empty
 * bone: its twin carries that flesh. weighted NULL: any other joint counts. */
bool am_bind_bone_has_twin(const am_bind_skeleton *s, size_t j, double tol, const bool *weighted);

/* docs/reference/quality-figures.md's empty_major, for a major bone j that carries no weight: true when its flesh
 * (the vertices whose nearest bone segment is j's) exists and is weighted mainly to joints
 * that are not j's descendants. A bone whose flesh went to its children (a Bento head
 * weighted to its face bones) or that runs along a weighted twin is not empty; a knee
 * whose flesh went to the hip is. pos: n bind-frame positions; main_joint: per vertex the
 * joint (index into s) with its largest weight, -1 when none; weighted: per joint. */
bool am_bind_bone_is_empty(const am_bind_skeleton *s, size_t j, const float *pos, size_t n, const int *main_joint,
                           const bool *weighted, double height_m);

/* True for joints whose bones docs/reference/quality-figures.md never counts as major (eyes, teeth, tongue). */
bool am_bind_joint_is_minor_kind(const char *name);

#ifdef __cplusplus
}
#endif

#endif
