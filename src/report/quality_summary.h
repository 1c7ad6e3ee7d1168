/* The quality report in a few lines (report/quality.h): the verdict, the worst findings,
 * each with what to do about it (quality_limits.h's remedy), for the commands' summaries;
 * the full text stays am_quality_text (the report file, --verbose). */
#ifndef AM_REPORT_QUALITY_SUMMARY_H
#define AM_REPORT_QUALITY_SUMMARY_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#include "core/am_string.h"
#include "core/error.h"
#include "core/io.h"
#include "report/quality.h"

typedef struct am_quality_finding {
    am_flag flag;
    char key[32];            /* the thresholds row: "strain_share", "band", ... (a fixed name) */
    am_string text;          /* "knee 120: mKneeLeft band 0.55 (collapse line 0.85)", whole */
} am_quality_finding;

/* Every flagged figure (minor and worse), most severe first, at most `cap` in `out`; *count
 * gets how many there are in all. Each text is an owned string: free them with
 * am_quality_findings_free(out, min(*count, cap)). Fails only when out of memory (out then
 * holds nothing to free). */
am_status am_quality_findings(const am_quality_report *r, am_quality_finding *out, size_t cap, size_t *count,
                              am_error *err);
void am_quality_findings_free(am_quality_finding *findings, size_t count);
/* "verdict: major - 0 blockers, 6 major, 4 minor (height 1.865 m)" then up to `max_findings`
 * lines "  major  TEXT\n         do: REMEDY" (one remedy per kind of finding: a kind
 * already explained is not explained again) and "  ... N more" when there are more. */
am_status am_quality_summary_text(const am_quality_report *r, size_t max_findings, am_buf *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
