/* The quality report's summary (quality_summary.h). */
#include "report/quality_summary.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/quality_limits.h"

static void put(am_quality_finding *out, size_t cap, size_t *n, am_flag flag, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void put(am_quality_finding *out, size_t cap, size_t *n, am_flag flag, const char *key, const char *fmt, ...)
{
    if (flag == AM_FLAG_PASS || flag == AM_FLAG_NA)
        return;
    if (*n < cap) {
        am_quality_finding *f = &out[*n];
        f->flag = flag;
        snprintf(f->key, sizeof f->key, "%s", key);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(f->text, sizeof f->text, fmt, ap);
        va_end(ap);
    }
    (*n)++;
}

static int cmp_flag(const void *a, const void *b)
{
    const am_quality_finding *x = a, *y = b;
    return (int)y->flag - (int)x->flag;
}

size_t am_quality_findings(const am_quality_report *r, am_quality_finding *out, size_t cap)
{
    size_t n = 0;
    const am_bench_weights *w = &r->weights;
    put(out, cap, &n, r->unweighted_flag, "unweighted", "%zu unweighted vertices", w->unweighted);
    put(out, cap, &n, r->empty_major_flag, "empty_major", "%zu major bones with no weight (%s%s)", r->empty_major_count,
        r->empty_major_count ? am_str(&r->empty_major[0]) : "", r->empty_major_count > 1 ? ", ..." : "");
    put(out, cap, &n, r->sum_dev_flag, "sum_dev", "%zu vertices whose weights do not sum to 1", w->sum_dev);
    put(out, cap, &n, r->influences_flag, "max_influences", "up to %d influences on a vertex", w->max_influences);
    put(out, cap, &n, r->cross_side_flag, "cross_side_weight", "cross-side weight %.4f", w->cross_side_weight);
    put(out, cap, &n, r->mirror_flag, "mirror_err", "mirror error %.3f (worst on %s)", r->mirror_err,
        !am_string_empty(&r->mirror_joint) ? am_str(&r->mirror_joint) : "?");
    put(out, cap, &n, r->rigid_flag, "rigid_parts", "rigid parts: %zu islands hold no bone, not all on one bone at 1.0",
        r->rigid_parts);
    for (size_t i = 0; i < r->pose_count; i++) {
        const am_quality_pose_result *p = &r->poses[i];
        if (!p->measured)
            continue;
        put(out, cap, &n, p->band.flag, "band", "%s: %s band %.2f (collapse line %.2f, linear blend skinning %.2f)",
            am_str(&p->name), am_str(&p->band.joint), p->band.worst, p->band.collapse_line, p->band.lbs_reference);
        put(out, cap, &n, p->strain_flag, "strain_share", "%s: strain, %.3f %% of edges outside 0.5..1.6",
            am_str(&p->name), 100 * p->strain.share_outside);
        put(out, cap, &n, p->leak_flag, "leak", "%s: cross-side leak %.5f x height", am_str(&p->name), p->leak.max_h);
        put(out, cap, &n, p->rigidity_flag, "rigidity", "%s: a rigid part bends %.3g m", am_str(&p->name),
            p->rigidity_m);
    }
    if (out && n)
        qsort(out, n < cap ? n : cap, sizeof *out, cmp_flag); /* most severe first */
    return n;
}

am_status am_quality_summary_text(const am_quality_report *r, size_t max_findings, am_buf *out, am_error *err)
{
    am_quality_finding f[64];
    size_t n = am_quality_findings(r, f, 64), shown = n < max_findings ? n : max_findings;
    char line[700];
    int k = snprintf(line, sizeof line, "verdict: %s - %zu blocker%s, %zu major, %zu minor (height %.3f m)\n",
                     am_flag_name(r->worst), r->blockers, r->blockers == 1 ? "" : "s", r->majors, r->minors, r->height_m);
    am_status s = am_buf_append(out, line, (size_t)k, err);
    const char *explained[16];
    size_t ne = 0;
    for (size_t i = 0; i < shown && i < 64 && !s; i++) {
        bool seen = false;
        for (size_t e = 0; e < ne; e++)
            seen |= strcmp(explained[e], f[i].key) == 0;
        if (!seen && ne < 16)
            explained[ne++] = f[i].key;
        k = seen ? snprintf(line, sizeof line, "  %-7s %s\n", am_flag_name(f[i].flag), f[i].text)
                 : snprintf(line, sizeof line, "  %-7s %s\n          do: %s\n", am_flag_name(f[i].flag), f[i].text,
                            am_quality_limit_remedy(f[i].key));
        s = am_buf_append(out, line, k > 0 ? (size_t)(k < (int)sizeof line ? k : (int)sizeof line - 1) : 0, err);
    }
    if (!s && n > shown) {
        k = snprintf(line, sizeof line, "  ... %zu more finding%s in the full report\n", n - shown, n - shown == 1 ? "" : "s");
        s = am_buf_append(out, line, (size_t)k, err);
    }
    return s;
}
