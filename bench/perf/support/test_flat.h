/* Flat-shaded test meshes for the LOD tests and benchmark_weld: every triangle its own
 * three vertices with its face's normal (as the Khronos Fox and unwelded FBX corners
 * arrive), rigged like the bend box (bendbox.h: mHipRight and mHipLeft at the hinge,
 * smoothstep weights from x = -1 to 1 of the box frame). Free with am_rig_free. */
#ifndef AM_BENCH_PERF_SUPPORT_TEST_FLAT_H
#define AM_BENCH_PERF_SUPPORT_TEST_FLAT_H

#include "core/error.h"
#include "skin/rig.h"

/* The bend box's shape (box frame X -2..2, Y -1..1, Z -0.5..0.5 about the hinge) cut into
 * squares of `cell` m: 896 triangles and 2,688 vertices at 0.25 m. Coplanar facets share a
 * normal, so its only hard edges are the box's creases. */
am_status am_test_flat_box_rig(am_rig *rig, double cell, am_error *err);

/* An open tube along X (-2..2, radius 0.5) of `sides` facets and `rings` rings: adjacent
 * facets 360/sides degrees apart, each triangle flat (2 * sides * rings triangles). */
am_status am_test_faceted_tube_rig(am_rig *rig, int sides, int rings, am_error *err);

#endif
