/* What an import leaves as it is on purpose, so that the quality report does not call it a
 * fault (report/quality.h).
 *
 * A joint LEFT EMPTY ON PURPOSE: one of the viewer's extended joints (avatar_skeleton.xml
 * support="extended": the Bento spine mSpine1..4 and the like) that carries no weight while
 * the skin weights a joint above it AND a joint below it in the same chain. The retarget
 * keeps such a joint when the source skeleton has nothing there (Mixamo's 3-joint spine onto
 * the viewer's 7: mSpine2 and mSpine4 stay empty, their parent and child carry the flesh),
 * and rigs made for the base skeleton leave it so (the bear's mSpine4). No motion of the
 * source drives it, and base motions never do, so the flesh follows its neighbours: it is
 * no "major bone inside the mesh with no weight" (the empty_major blocker).
 * The same for Bento DETAIL a mesh leaves out as a whole: an extended joint of the face,
 * mouth, lips, nose, eyes, ears or hand groups with no weight anywhere below it, under a
 * weighted joint (Roth2's body weights its head to mHead and none of the face: mFaceJaw is
 * empty; its jaw does not open, the mesh is whole). A tail, wing or hind limb left empty is
 * still a blocker: that is a body part that does not move. */
#ifndef AM_REPORT_QUALITY_INTENT_H
#define AM_REPORT_QUALITY_INTENT_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"

/* `skin_joint` indexes b->skin_joint; `total` holds the weight per skin joint
 * (b->skin_joint_count entries). */
bool am_quality_joint_left_empty(const am_bench *b, size_t skin_joint, const double *total);

#ifdef __cplusplus
}
#endif

#endif
