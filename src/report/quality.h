/* src/report/quality.h: the private side of include/animesh/report.h, where its manual is. */
#ifndef AM_REPORT_QUALITY_H
#define AM_REPORT_QUALITY_H

#include "animesh/report.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "core/am_string.h"
#include "core/error.h"
#include "core/io.h"
#include "bench/render.h"

/* A poses file (see above); *out malloc'd, freed with am_quality_poses_free. At most 1 MiB
 * (64 poses of AM_POSE_MAX_JOINTS joints are tens of KB), its JSON tree within a 16 MiB
 * memory budget (core/json_text.h). */
#define AM_QUALITY_POSES_MAX_FILE_BYTES ((size_t)1 << 20)
#define AM_QUALITY_POSES_TREE_BUDGET ((size_t)16 << 20)
/* A copy of `src` whose strings `dst` owns (dst's old strings are not freed); on failure
 * (out of memory) dst holds no strings. */
am_status am_quality_pose_copy(am_quality_pose *dst, const am_quality_pose *src, am_error *err);

/* Record the rig bones no island of the mesh holds (`held[j]` false), as `animesh bind`
 * knows them: a bone outside the mesh gets no weight and means the rig is not where the
 * mesh is (wrong units, another model's skeleton), so every one is a blocker. Fails only
 * when out of memory. */
am_status am_quality_bones_outside(am_quality_report *report, const char *const *names, const bool *held,
                                   size_t count, am_error *err);

/* The same with the poses measured by `threads` threads at once (0: one per core online;
 * each pose is measured whole by one thread, so the report does not depend on the count). */
am_status am_quality_run_threads(const am_bench *b, const am_quality_pose *poses, size_t pose_count, int threads,
                                 am_quality_report *out, am_error *err);

/* The local channels of a pose on this bench (n written; out holds skel->joint_count). */
am_status am_quality_pose_locals(const am_bench *b, const am_quality_pose *pose, am_bench_local *out, size_t *n,
                                 am_error *err);

/* Pictures: the pose sheet (every measured pose, front and side, each labelled with its
 * worst flag) and the close-up of the rank-th worst joint (0 = worst; band joints ordered
 * by flag, then by their worst band), front and side, coloured by strain (*found false
 * when there are not that many band joints; `joint`, optional, gets its name: the caller
 * frees it with am_string_free). The caller frees the
 * image (am_image_free) and writes it where it wants. */
am_status am_quality_render_sheet(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                  size_t pose_count, am_image *out, am_error *err);
am_status am_quality_render_closeup(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                    size_t pose_count, size_t rank, am_image *out, bool *found, am_string *joint,
                                    am_error *err);
/* Both on `threads` threads (0: every core, as above). */
am_status am_quality_render_sheet_threads(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                          size_t pose_count, int threads, am_image *out, am_error *err);
am_status am_quality_render_closeup_threads(const am_bench *b, const am_quality_report *r,
                                            const am_quality_pose *poses, size_t pose_count, size_t rank,
                                            int threads, am_image *out, bool *found, am_string *joint,
                                            am_error *err);

#ifdef __cplusplus
}
#endif

#endif
