/* The quality report's thresholds: ONE table that the figures are flagged by
 * (quality.c), that `report --help` prints, that the text report ends with and that the
 * JSON carries ("thresholds"), so the help, the text and the JSON use the same numbers and
 * the same words. Each row also says what to do about a figure it flags (its remedy), which
 * the command summaries print beside the finding.
 *
 * A figure is flagged at the most severe level whose limit it passes: `above` levels flag
 * value > limit, `at_least` levels value >= limit (the leak and the mirror error, as
 * docs/reference/quality-figures.md words them). A limit < 0 is a level the figure never takes. */
#ifndef AM_REPORT_QUALITY_LIMITS_H
#define AM_REPORT_QUALITY_LIMITS_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/error.h"
#include "core/io.h"
#include "report/quality.h"

typedef struct am_quality_limit {
    const char *key;     /* the JSON figure it flags: "strain_share", "leak", ... */
    const char *figure;  /* the figure in words, as help and text print it */
    double minor, major, blocker; /* limits in the figure's own unit (share, x H, count) */
    bool at_least;       /* >= instead of > */
    double shown;        /* multiplier for the words (100: a share shown in %) */
    const char *unit;    /* after the shown number: "%", " x H", "" */
    const char *remedy;  /* what to do when it is flagged */
} am_quality_limit;

/* Every row, in the help's order. */
const am_quality_limit *am_quality_limits(size_t *count);
/* The row of `key`, NULL when none. */
const am_quality_limit *am_quality_limit_find(const char *key);
/* The flag of `value` by row `key` (AM_FLAG_PASS when the key is unknown). */
am_flag am_quality_limit_flag(const char *key, double value);
/* "minor above 0.2 %, major above 1 %": the row's levels in words. */
void am_quality_limit_words(const am_quality_limit *l, char *buf, size_t size);
/* One line per row, "  strain share (edges outside 0.5..1.6): minor above 0.2 %, major
 * above 1 %\n", each line starting with `indent` (help and text). */
am_status am_quality_limits_text(const char *indent, am_buf *out, am_error *err);
/* The table as JSON: [{"figure": key, "words", "minor", "major", "blocker" (null when the
 * figure never takes that level), "compare": "above"|"at_least", "unit", "remedy"}]. */
json_t *am_quality_limits_json(void);
/* The remedy of a figure (key), or a generic one. */
const char *am_quality_limit_remedy(const char *key);

#ifdef __cplusplus
}
#endif

#endif
