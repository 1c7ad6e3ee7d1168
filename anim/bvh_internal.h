/* Inside the BVH conversion (bvh.c, bvh_rest.c); not part of the library's interface. */
#ifndef AM_ANIM_BVH_INTERNAL_H
#define AM_ANIM_BVH_INTERNAL_H

#include "anim/bvh.h"

/* The nearest ancestor of `joint` that maps to a viewer joint (target[i] >= 0), or -1. */
int am_bvh_mapped_ancestor(const am_bvh *bvh, const int *target, size_t joint);
/* Per BVH joint (target: its viewer joint or -1): align[j] = the shortest rotation taking
 * the viewer's rest bone direction onto the BVH's zero-pose one (SL axes), identity where
 * there is no single bone to compare (unmapped, the pelvis, several mapped children, a
 * bone of no length, a child that is not below it in the viewer's skeleton). Fills the
 * rest_* fields of stats (not rest_aligned). False when out of memory (stats->rest then
 * partly named; am_bvh_stats_free releases it). */
bool am_bvh_rest_alignment(const am_bvh *bvh, const am_skeleton *skel, const int *target, am_quat *align,
                           am_bvh_stats *stats);

#endif
