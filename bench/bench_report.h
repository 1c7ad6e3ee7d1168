/* The bench's report as JSON (`animesh bench --json`): the mesh, its skin joints at rest,
 * the rest error, the weights, the vertex sets at rest and every motion's poses, each pose
 * measured by am_bench_pose_report_at. The schema is the one `animesh bench --json` prints
 * (docs/bench.md); the text report is the command's own. */
#ifndef AM_BENCH_REPORT_H
#define AM_BENCH_REPORT_H

#include "animesh/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "core/error.h"
#include "core/option.h"

/* The times a motion is posed at (at most cap, AM_BENCH_REPORT_MAX_TIMES is enough); returns
 * how many were written to out. */
size_t am_bench_report_times(const am_bench_motion_info *info, const am_bench_report_options *o, double *out,
                             size_t cap);

#ifdef __cplusplus
}
#endif

#endif
