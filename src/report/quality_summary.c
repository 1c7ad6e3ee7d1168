/* The quality report's summary (quality_summary.h). */
#include "report/quality_summary.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/quality_limits.h"

/* The findings being listed: the first `cap` kept in `out`, all counted. */
typedef struct finding_list {
    am_quality_finding *out;
    size_t cap, n;
    bool out_of_memory;
} finding_list;

static void put(finding_list *l, am_flag flag, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(finding_list *l, am_flag flag, const char *key, const char *fmt, ...)
{
    if (flag == AM_FLAG_PASS || flag == AM_FLAG_NA)
        return;
    if (l->n < l->cap) {
        am_quality_finding *f = &l->out[l->n];
        memset(f, 0, sizeof *f);
        f->flag = flag;
        snprintf(f->key, sizeof f->key, "%s", key);
        va_list ap;
        va_start(ap, fmt);
        if (!am_string_vsetf(&f->text, fmt, ap))
            l->out_of_memory = true;
        va_end(ap);
    }
    l->n++;
}

void am_quality_findings_free(am_quality_finding *findings, size_t count)
{
    for (size_t i = 0; findings && i < count; i++)
        am_string_free(&findings[i].text);
}

static int cmp_flag(const void *a, const void *b)
{
    const am_quality_finding *x = a, *y = b;
    return (int)y->flag - (int)x->flag;
}

am_status am_quality_findings(const am_quality_report *r, am_quality_finding *out, size_t cap, size_t *count,
                              am_error *err)
{
    finding_list l = {out, out ? cap : 0, 0, false};
    const am_bench_weights *w = &r->weights;
    put(&l, r->unweighted_flag, "unweighted", "%zu unweighted vertices", w->unweighted);
    put(&l, r->empty_major_flag, "empty_major", "%zu major bones with no weight (%s%s)", r->empty_major_count,
        r->empty_major_count ? am_str(&r->empty_major[0]) : "", r->empty_major_count > 1 ? ", ..." : "");
    put(&l, r->sum_dev_flag, "sum_dev", "%zu vertices whose weights do not sum to 1", w->sum_dev);
    put(&l, r->influences_flag, "max_influences", "up to %d influences on a vertex", w->max_influences);
    put(&l, r->cross_side_flag, "cross_side_weight", "cross-side weight %.4f", w->cross_side_weight);
    put(&l, r->mirror_flag, "mirror_err", "mirror error %.3f (worst on %s)", r->mirror_err,
        !am_string_empty(&r->mirror_joint) ? am_str(&r->mirror_joint) : "?");
    put(&l, r->rigid_flag, "rigid_parts", "rigid parts: %zu islands hold no bone, not all on one bone at 1.0",
        r->rigid_parts);
    for (size_t i = 0; i < r->pose_count; i++) {
        const am_quality_pose_result *p = &r->poses[i];
        if (!p->measured)
            continue;
        put(&l, p->band.flag, "band", "%s: %s band %.2f (collapse line %.2f, linear blend skinning %.2f)",
            am_str(&p->name), am_str(&p->band.joint), p->band.worst, p->band.collapse_line, p->band.lbs_reference);
        put(&l, p->strain_flag, "strain_share", "%s: strain, %.3f %% of edges outside 0.5..1.6",
            am_str(&p->name), 100 * p->strain.share_outside);
        put(&l, p->leak_flag, "leak", "%s: cross-side leak %.5f x height", am_str(&p->name), p->leak.max_h);
        put(&l, p->rigidity_flag, "rigidity", "%s: a rigid part bends %.3g m", am_str(&p->name),
            p->rigidity_m);
    }
    size_t kept = l.n < l.cap ? l.n : l.cap;
    if (l.out_of_memory) {
        am_quality_findings_free(out, kept);
        return am_fail_nomem(err, "quality findings");
    }
    if (kept)
        qsort(out, kept, sizeof *out, cmp_flag); /* most severe first */
    *count = l.n;
    return AM_OK;
}

am_status am_quality_summary_text(const am_quality_report *r, size_t max_findings, am_buf *out, am_error *err)
{
    am_quality_finding f[64];
    size_t n = 0;
    am_status s = am_quality_findings(r, f, 64, &n, err);
    if (s)
        return s;
    size_t kept = n < 64 ? n : 64, shown = n < max_findings ? n : max_findings;
    s = am_buf_printf(out, err, "verdict: %s - %zu blocker%s, %zu major, %zu minor (height %.3f m)\n",
                      am_flag_name(r->worst), r->blockers, r->blockers == 1 ? "" : "s", r->majors, r->minors,
                      r->height_m);
    const char *explained[16];
    size_t ne = 0;
    for (size_t i = 0; i < shown && i < kept && !s; i++) {
        bool seen = false;
        for (size_t e = 0; e < ne; e++)
            seen |= strcmp(explained[e], f[i].key) == 0;
        if (!seen && ne < 16)
            explained[ne++] = f[i].key;
        s = seen ? am_buf_printf(out, err, "  %-7s %s\n", am_flag_name(f[i].flag), am_str(&f[i].text))
                 : am_buf_printf(out, err, "  %-7s %s\n          do: %s\n", am_flag_name(f[i].flag),
                                 am_str(&f[i].text), am_quality_limit_remedy(f[i].key));
    }
    if (!s && n > shown)
        s = am_buf_printf(out, err, "  ... %zu more finding%s in the full report\n", n - shown,
                          n - shown == 1 ? "" : "s");
    am_quality_findings_free(f, kept);
    return s;
}
