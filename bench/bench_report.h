/* The bench's report as JSON (`animesh bench --json`): the mesh, its skin joints at rest,
 * the rest error, the weights, the vertex sets at rest and every motion's poses, each pose
 * measured by am_bench_pose_report_at. The schema is the one `animesh bench --json` prints
 * (docs/bench.md); the text report is the command's own. */
#ifndef AM_BENCH_REPORT_H
#define AM_BENCH_REPORT_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "core/error.h"
#include "core/option.h"

/* At most this many poses per motion. */
#define AM_BENCH_REPORT_MAX_TIMES 64

/* Zeroed, the defaults (core/option.h). */
typedef struct am_bench_report_options {
    const double *times;       /* pose every motion at these times (seconds), or NULL: */
    size_t time_count;
    bool keys;                 /* ... at its key times when keys or at most 16 of them, else 9
                                  even times over [0, duration] */
    double max_rest_error;     /* metres; > 0 adds "pass" to the rest error; 0 (default): no
                                  "pass"; AM_OPTION_ZERO: "pass" only when it is 0 */
    const am_bench_set *sets;  /* vertex sets reported in every pose (am_bench_select) */
    size_t set_count;
    const char *strip_path;    /* the PNG strip written beside the report, or NULL */
    size_t strip_frames;
    const char *strip_view;    /* its view's name (render.h am_view_name) */
} am_bench_report_options;

/* The times a motion is posed at (at most cap, AM_BENCH_REPORT_MAX_TIMES is enough); returns
 * how many were written to out. */
size_t am_bench_report_times(const am_bench_motion_info *info, const am_bench_report_options *o, double *out,
                             size_t cap);

/* The whole report as JSON text (*text malloc'd, indented by one, reals to 9 digits); *rest
 * (may be NULL) receives the rest error it reports. */
am_status am_bench_report_json(const am_bench *b, const am_bench_report_options *o, char **text,
                               am_bench_stats *rest, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
