/* Test and benchmark support: a rig of many small islands (issue 31: a 6.8 MB asset of
 * 100k islands made `report` quadratic). Every island is one triangle of about 1 cm, 3 to 8
 * cm from one of 19 body bones of the stock avatar (pelvis, spine, head, arms, legs) and
 * bound to it alone: a rigid part each, one bone at 1.0, holding no bone. Placement is
 * pseudo-random but reproducible (test_random.h). Free with am_rig_free. */
#ifndef AM_BENCH_PERF_SUPPORT_ISLAND_CLOUD_H
#define AM_BENCH_PERF_SUPPORT_ISLAND_CLOUD_H

#include "core/error.h"
#include "skeleton/skeleton.h"
#include "skin/rig.h"

am_status am_test_island_cloud_rig(const am_skeleton *skel, size_t islands, am_rig *rig, am_error *err);

#endif
