/* Bench measurements: rest error, displacement, vertex sets (rigidity, centre), and the
 * docs/reference/quality-figures.md figures that apply to a decoded asset (weights, strain, cross-side leak). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_internal.h"

#define RIGIDITY_MAX_SAMPLES 4096

static am_vec3 vtx(const float *p, size_t i) { return am_v3(p[3 * i], p[3 * i + 1], p[3 * i + 2]); }

/* |p_i - q_j| in double, inline (the per-edge and per-vertex loops run it millions of times) */
static inline double dist_ff(const float *p, size_t i, const float *q, size_t j)
{
    double dx = (double)p[3 * i] - q[3 * j], dy = (double)p[3 * i + 1] - q[3 * j + 1],
           dz = (double)p[3 * i + 2] - q[3 * j + 2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

double am_bench_select_kth(double *v, size_t n, size_t k)
{
    /* quickselect with a three-way partition: strain ratios repeat (every edge of a rigid
     * part is exactly 1), so equal keys must not degrade it */
    size_t lo = 0, hi = n; /* the k-th lies in [lo, hi) */
    while (hi - lo > 1) {
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t lt = lo, i = lo, gt = hi; /* [lo,lt) < pivot, [lt,i) == pivot, [gt,hi) > pivot */
        while (i < gt) {
            double x = v[i];
            if (x < pivot) {
                v[i++] = v[lt];
                v[lt++] = x;
            } else if (x > pivot) {
                v[i] = v[--gt];
                v[gt] = x;
            } else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return v[k];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define TAIL_SAMPLES 1024
#define TAIL_MIN_VALUES 8192

/* The k-th smallest of v[0..n) (v left as it is), for k near either end (a percentile such
 * as p1 or p99): a sorted sample of the values gives a bound safely beyond the k-th, one
 * pass gathers the values on the k-th's side of it and the k-th is selected among those
 * few; when the sample misjudged (or the gathered values overflow their room) the whole
 * of v is selected in a copy. The same value am_bench_select_kth gives, in about one pass
 * instead of several; false only when out of memory. */
static bool kth_near_end(const double *v, size_t n, size_t k, double *out)
{
    size_t room = n / 16 + TAIL_SAMPLES;
    double *g = n >= TAIL_MIN_VALUES ? malloc(room * sizeof *g) : NULL;
    if (g) {
        double sample[TAIL_SAMPLES];
        for (size_t i = 0; i < TAIL_SAMPLES; i++)
            sample[i] = v[i * (n / TAIL_SAMPLES)];
        qsort(sample, TAIL_SAMPLES, sizeof *sample, cmp_double);
        double q = (double)k / (double)n, m = TAIL_SAMPLES;
        double margin = 4.0 * sqrt(m * q * (1.0 - q)) + 8.0; /* a rank's spread in the sample, and more */
        size_t count = 0, below = 0;
        bool fits = true;
        if (q >= 0.5) {
            double at = floor(q * m - margin);
            double lo = sample[at < 0 ? 0 : (size_t)at];
            for (size_t i = 0; i < n && fits; i++) {
                if (v[i] < lo)
                    below++;
                else if (count < room)
                    g[count++] = v[i];
                else
                    fits = false;
            }
            if (fits && below <= k) {
                *out = am_bench_select_kth(g, count, k - below);
                free(g);
                return true;
            }
        } else {
            double at = ceil(q * m + margin);
            double hi = sample[at > m - 1 ? TAIL_SAMPLES - 1 : (size_t)at];
            for (size_t i = 0; i < n && fits; i++) {
                if (!(v[i] > hi)) {
                    if (count < room)
                        g[count++] = v[i];
                    else
                        fits = false;
                }
            }
            if (fits && count > k) {
                *out = am_bench_select_kth(g, count, k);
                free(g);
                return true;
            }
        }
        free(g);
    }
    double *all = malloc((n ? n : 1) * sizeof *all);
    if (!all)
        return false;
    memcpy(all, v, n * sizeof *all);
    *out = am_bench_select_kth(all, n, k);
    free(all);
    return true;
}

/* Nearest-rank index of percentile p among n values. */
static size_t rank_of(size_t n, double p)
{
    double r = ceil(p / 100.0 * (double)n);
    size_t k = r < 1 ? 0 : (size_t)r - 1;
    return k < n ? k : n - 1;
}

static am_status stats_of(double *d, size_t n, am_bench_stats *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return AM_OK;
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] > out->max || i == 0) {
            out->max = d[i];
            out->argmax = i;
        }
        sum += d[i];
        sq += d[i] * d[i];
    }
    out->mean = sum / (double)n;
    out->rms = sqrt(sq / (double)n);
    out->p99 = am_bench_select_kth(d, n, rank_of(n, 99.0));
    (void)err;
    return AM_OK;
}

am_status am_bench_displacement(const am_bench *b, const float *a, const float *c, am_bench_stats *out,
                                am_error *err)
{
    size_t n = b->vertex_count;
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!d)
        return am_fail_nomem(err, "displacement");
    for (size_t i = 0; i < n; i++)
        d[i] = dist_ff(a, i, c, i);
    am_status s = stats_of(d, n, out, err);
    free(d);
    return s;
}

am_status am_bench_rest_error(const am_bench *b, am_bench_stats *out, am_error *err)
{
    size_t n = b->vertex_count;
    float *prim = malloc(3 * n * sizeof *prim);
    float *bind = malloc(3 * n * sizeof *bind);
    am_status s = AM_OK;
    if (!prim || !bind)
        s = am_fail_nomem(err, "rest error");
    if (!s)
        s = am_bench_pose_locals(b, NULL, 0, prim, NULL, err);
    if (!s) {
        am_bench_positions_to_bind(b, prim, bind, n);
        s = am_bench_displacement(b, bind, b->bind_pos, out, err);
    }
    free(prim);
    free(bind);
    return s;
}

/* --- vertex sets --- */

typedef struct cond {
    int axis;   /* 0 x, 1 y, 2 z */
    int op;     /* '<', 'l' (<=), '>', 'g' (>=), '=' */
    double value;
} cond;

static am_status parse_conditions(const char *expr, cond *c, size_t *n, am_error *err)
{
    *n = 0;
    const char *p = expr;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        if (*n >= 16)
            return am_fail(err, AM_ERR_USAGE, "vertex set '%s': more than 16 conditions", expr);
        char ax = (char)tolower((unsigned char)*p);
        if (ax != 'x' && ax != 'y' && ax != 'z')
            return am_fail(err, AM_ERR_USAGE,
                           "vertex set '%s': expected x, y or z at '%s' (e.g. \"x>=1,z<0.2\")", expr, p);
        c[*n].axis = ax - 'x';
        p++;
        if (p[0] == '<' && p[1] == '=') {
            c[*n].op = 'l';
            p += 2;
        } else if (p[0] == '>' && p[1] == '=') {
            c[*n].op = 'g';
            p += 2;
        } else if (*p == '<' || *p == '>' || *p == '=') {
            c[*n].op = *p;
            p++;
        } else
            return am_fail(err, AM_ERR_USAGE, "vertex set '%s': expected < <= > >= or = after the axis", expr);
        char *end;
        c[*n].value = strtod(p, &end);
        if (end == p || !isfinite(c[*n].value))
            return am_fail(err, AM_ERR_USAGE, "vertex set '%s': expected a number at '%s'", expr, p);
        p = end;
        while (*p == ' ')
            p++;
        if (*p && *p != ',')
            return am_fail(err, AM_ERR_USAGE, "vertex set '%s': unexpected '%s'", expr, p);
        (*n)++;
    }
    if (*n == 0)
        return am_fail(err, AM_ERR_USAGE, "vertex set '%s' has no condition (use \"all\" for every vertex)", expr);
    return AM_OK;
}

/* <=, >= and = allow `eps` for the asset's 16-bit position quantisation (a vertex
 * written at x = 1 may decode at 0.99998); < and > are strict. */
static bool holds(const cond *c, const float *p, double eps)
{
    double v = p[c->axis];
    switch (c->op) {
    case '<': return v < c->value;
    case 'l': return v <= c->value + eps;
    case '>': return v > c->value;
    case 'g': return v >= c->value - eps;
    default: return fabs(v - c->value) <= eps;
    }
}

am_status am_bench_select(const am_bench *b, const char *name, const char *expr, am_bench_set *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    cond c[16];
    size_t nc = 0;
    bool all = strcmp(expr, "all") == 0;
    if (!all) {
        am_status s = parse_conditions(expr, c, &nc, err);
        if (s)
            return s;
    }
    out->index = malloc((b->vertex_count ? b->vertex_count : 1) * sizeof *out->index);
    if (!out->index || !am_string_set(&out->name, name ? name : expr) || !am_string_set(&out->expr, expr)) {
        am_bench_set_free(out);
        return am_fail_nomem(err, "vertex set");
    }
    am_vec3 ext = am_v3_sub(b->bind_max, b->bind_min);
    double eps = fmax(1e-4, 2.0 * fmax(ext.x, fmax(ext.y, ext.z)) / 65535.0);
    for (size_t i = 0; i < b->vertex_count; i++) {
        bool ok = true;
        for (size_t k = 0; k < nc && ok; k++)
            ok = holds(&c[k], b->bind_pos + 3 * i, eps);
        if (ok)
            out->index[out->count++] = (uint32_t)i;
    }
    if (out->count == 0) {
        am_bench_set_free(out);
        return am_fail(err, AM_ERR_INVALID, "vertex set '%s' (%s) selects no vertex (bind frame, %s)", name ? name : "",
                       expr, am_str(&b->source));
    }
    return AM_OK;
}

void am_bench_set_free(am_bench_set *s)
{
    if (!s)
        return;
    free(s->index);
    s->index = NULL;
    s->count = 0;
    am_string_free(&s->name);
    am_string_free(&s->expr);
}

double am_bench_rigidity(const am_bench *b, const float *prim, const am_bench_set *set, bool *sampled)
{
    return am_bench_rigidity_from(b, prim, b->bind_pos, set, sampled);
}

double am_bench_rigidity_from(const am_bench *b, const float *prim, const float *ref, const am_bench_set *set,
                              bool *sampled)
{
    (void)b;
    size_t n = set->count, step = 1;
    if (n > RIGIDITY_MAX_SAMPLES)
        step = (n + RIGIDITY_MAX_SAMPLES - 1) / RIGIDITY_MAX_SAMPLES;
    if (sampled)
        *sampled = step > 1;
    double worst = 0.0;
    for (size_t a = 0; a < n; a += step) {
        size_t ia = set->index[a];
        am_vec3 pa = vtx(prim, ia), ba = vtx(ref, ia);
        for (size_t c = a + step; c < n; c += step) {
            size_t ic = set->index[c];
            double d = fabs(am_v3_dist(pa, vtx(prim, ic)) - am_v3_dist(ba, vtx(ref, ic)));
            if (d > worst)
                worst = d;
        }
    }
    return worst;
}

void am_bench_centre(const am_bench *b, const float *prim, const am_bench_set *set, am_vec3 *centre_prim,
                     am_vec3 *centre_bind)
{
    am_vec3 s = am_v3(0, 0, 0);
    for (size_t i = 0; i < set->count; i++)
        s = am_v3_add(s, vtx(prim, set->index[i]));
    if (set->count)
        s = am_v3_scale(s, 1.0 / (double)set->count);
    if (centre_prim)
        *centre_prim = s;
    if (centre_bind)
        *centre_bind = am_bench_prim_to_bind(b, s);
}

/* --- sides --- */

/* Side of a joint by its canonical name: bones "...Left..." / "...Right...", collision
 * volumes "L_..." / "R_...", attachment points "Left ..." / "Right ...". */
static am_bench_side joint_side(const am_skeleton *sk, int j)
{
    const char *n = sk->joints[j].name;
    if (strstr(n, "Left") || strncmp(n, "L_", 2) == 0)
        return AM_SIDE_LEFT;
    if (strstr(n, "Right") || strncmp(n, "R_", 2) == 0)
        return AM_SIDE_RIGHT;
    return AM_SIDE_NONE;
}

const char *am_bench_side_name(am_bench_side side)
{
    switch (side) {
    case AM_SIDE_LEFT: return "left";
    case AM_SIDE_RIGHT: return "right";
    case AM_SIDE_BOTH: return "both";
    default: return "none";
    }
}

am_bench_side am_bench_locals_side(const am_bench *b, const am_bench_local *locals, size_t n)
{
    bool left = false, right = false, centre = false;
    for (size_t i = 0; i < n; i++) {
        int j = locals[i].joint;
        if (j < 0 || (size_t)j >= b->skel->joint_count)
            continue;
        bool moved = (locals[i].has_rot && am_quat_angle_between(locals[i].rot, b->rest_local_rot[j]) > 1e-6) ||
                     (locals[i].has_pos && am_v3_dist(locals[i].pos, b->rest_local_pos[j]) > 1e-6);
        if (!moved)
            continue;
        am_bench_side s = joint_side(b->skel, j);
        left |= s == AM_SIDE_LEFT;
        right |= s == AM_SIDE_RIGHT;
        centre |= s == AM_SIDE_NONE;
    }
    if (centre || (left && right))
        return AM_SIDE_BOTH;
    return left ? AM_SIDE_LEFT : right ? AM_SIDE_RIGHT : AM_SIDE_NONE;
}

void am_bench_cross_side_leak(const am_bench *b, am_bench_side side, const float *rest_prim, const float *posed_prim,
                              am_bench_leak *out)
{
    memset(out, 0, sizeof *out);
    out->side = side;
    out->applies = (side == AM_SIDE_LEFT || side == AM_SIDE_RIGHT) && b->sides_follow_y;
    if (!out->applies)
        return;
    double tol = 0.01 * b->height;
    for (size_t i = 0; i < b->vertex_count; i++) {
        double y = b->bind_pos[3 * i + 1];
        bool other = side == AM_SIDE_LEFT ? y < -tol : y > tol;
        if (!other)
            continue;
        double d = dist_ff(rest_prim, i, posed_prim, i);
        if (d > out->max_m) {
            out->max_m = d;
            out->argmax = i;
        }
    }
    out->max_h = b->height > 0 ? out->max_m / b->height : 0.0;
}

void am_bench_compute_sides(am_bench *b)
{
    double tol = 0.01 * b->height;
    b->sides_follow_y = true;
    for (size_t v = 0; v < b->vertex_count && b->sides_follow_y; v++) {
        double y = b->bind_pos[3 * v + 1], sum = 0;
        if (fabs(y) <= tol)
            continue;
        for (int k = 0; k < 4; k++)
            sum += b->weights[4 * v + k];
        for (int k = 0; k < 4 && sum > 0; k++) {
            unsigned j = b->joints[4 * v + k];
            if (j >= b->skin_joint_count || !b->skin_joint_known[j] || b->weights[4 * v + k] / sum <= 0.5)
                continue;
            am_bench_side s = joint_side(b->skel, b->skin_joint[j]);
            if ((s == AM_SIDE_LEFT && y < -tol) || (s == AM_SIDE_RIGHT && y > tol))
                b->sides_follow_y = false;
        }
    }
}

/* --- weights --- */

am_status am_bench_weight_report(const am_bench *b, am_bench_weights *out, am_error *err)
{
    (void)err;
    memset(out, 0, sizeof *out);
    out->vertices = b->vertex_count;
    for (size_t i = 0; i < b->skin_joint_count; i++)
        out->unknown_joint_names += !b->skin_joint_known[i];
    double tol = 0.01 * b->height;
    for (size_t v = 0; v < b->vertex_count; v++) {
        int cnt = b->influences[v];
        out->influence_histogram[cnt]++;
        if (cnt > out->max_influences)
            out->max_influences = cnt;
        double sum = 0;
        for (int k = 0; k < cnt; k++)
            sum += b->weights[4 * v + k];
        if (cnt == 0 || sum < 1e-4) {
            out->unweighted++;
            continue;
        }
        if (fabs(sum - 1.0) > 0.01)
            out->sum_dev++;
        double y = b->bind_pos[3 * v + 1];
        for (int k = 0; k < cnt; k++) {
            unsigned j = b->joints[4 * v + k];
            if (j >= b->skin_joint_count)
                out->bad_joint_index++;
            if (j >= AM_MAX_JOINTS_PER_MESH)
                out->beyond_palette++;
            if (j >= b->skin_joint_count || !b->skin_joint_known[j])
                continue;
            am_bench_side s = joint_side(b->skel, b->skin_joint[j]);
            bool leak = (s == AM_SIDE_LEFT && y < -tol) || (s == AM_SIDE_RIGHT && y > tol);
            double w = b->weights[4 * v + k] / sum; /* as the shader renormalises */
            if (leak && w > out->cross_side_weight) {
                out->cross_side_weight = w;
                out->cross_side_vertex = v;
            }
        }
    }
    return AM_OK;
}

/* --- strain --- */

am_status am_bench_prepare_measures(am_bench *b, am_error *err)
{
    size_t nv = b->vertex_count, ne = 3 * b->triangle_count;
    b->rest_prim = malloc(3 * (nv ? nv : 1) * sizeof *b->rest_prim);
    size_t *start = calloc(nv + 1, sizeof *start);
    uint32_t *hi = malloc((ne ? ne : 1) * sizeof *hi);
    am_status s = AM_OK;
    if (!b->rest_prim || !start || !hi) {
        s = am_fail_nomem(err, "bench measures");
        goto done;
    }
    /* Unique edges in linear time: bucket each triangle edge by its lower vertex (counting
     * sort), then sort and deduplicate the few upper vertices of each bucket. */
    for (size_t t = 0; t < b->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = b->triangles[3 * t + k], c = b->triangles[3 * t + (k + 1) % 3];
            start[(a < c ? a : c) + 1]++;
        }
    for (size_t v = 0; v < nv; v++)
        start[v + 1] += start[v];
    for (size_t t = 0; t < b->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = b->triangles[3 * t + k], c = b->triangles[3 * t + (k + 1) % 3];
            hi[start[a < c ? a : c]++] = a < c ? c : a;
        }
    /* start[v] now ends bucket v; bucket v begins where bucket v-1 ended */
    b->edges = malloc(2 * (ne ? ne : 1) * sizeof *b->edges);
    b->edge_rest = malloc((ne ? ne : 1) * sizeof *b->edge_rest);
    if (!b->edges || !b->edge_rest) {
        s = am_fail_nomem(err, "strain edges");
        goto done;
    }
    size_t n = 0, begin = 0;
    for (size_t v = 0; v < nv; v++) {
        size_t end = start[v];
        for (size_t i = begin + 1; i < end; i++) /* insertion sort: a bucket holds a few edges */
            for (size_t k = i; k > begin && hi[k] < hi[k - 1]; k--) {
                uint32_t x = hi[k];
                hi[k] = hi[k - 1];
                hi[k - 1] = x;
            }
        for (size_t i = begin; i < end; i++) {
            if (i > begin && hi[i] == hi[i - 1])
                continue;
            double rest = dist_ff(b->bind_pos, v, b->bind_pos, hi[i]);
            if (rest <= 1e-9)
                continue;
            b->edges[2 * n] = (uint32_t)v;
            b->edges[2 * n + 1] = hi[i];
            b->edge_rest[n++] = rest;
        }
        begin = end;
    }
    b->edge_count = n;
    s = am_bench_pose_locals(b, NULL, 0, b->rest_prim, NULL, err);
done:
    free(start);
    free(hi);
    return s;
}

am_status am_bench_strain_report(const am_bench *b, const float *prim, am_bench_strain *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = b->edge_count;
    if (n == 0)
        return AM_OK;
    double *ratio = malloc(n * sizeof *ratio);
    /* per vertex: the smallest tear of its edges, or -1 once one of them holds */
    double *least = malloc((b->vertex_count ? b->vertex_count : 1) * sizeof *least);
    if (!ratio || !least) {
        free(ratio);
        free(least);
        return am_fail_nomem(err, "strain");
    }
    for (size_t v = 0; v < b->vertex_count; v++)
        least[v] = INFINITY;
    size_t outside = 0;
    double mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = b->edges[2 * i], c = b->edges[2 * i + 1];
        double len = dist_ff(prim, a, prim, c), r = len / b->edge_rest[i];
        /* tearing against the rest pose the viewer draws (its own rest error aside) */
        double rest = b->rest_prim ? dist_ff(b->rest_prim, a, b->rest_prim, c) : b->edge_rest[i];
        bool torn = len > AM_BENCH_TEAR_RATIO * rest;
        if (torn && len - rest > out->tear_m) {
            out->tear_m = len - rest;
            out->tear_ratio = rest > 1e-12 ? len / rest : INFINITY;
            out->tear_edge[0] = a;
            out->tear_edge[1] = c;
        }
        double g = torn ? len - rest : -1;
        least[a] = g < least[a] ? g : least[a];
        least[c] = g < least[c] ? g : least[c];
        outside += r < 0.5 || r > 1.6;
        mn = r < mn ? r : mn;
        mx = r > mx ? r : mx;
        ratio[i] = r;
    }
    out->edges = n;
    out->min = mn;
    out->max = mx;
    size_t k99 = rank_of(n, 99.0), k1 = rank_of(n, 1.0);
    bool ok = kth_near_end(ratio, n, k99, &out->p99) && kth_near_end(ratio, n, k1, &out->p1);
    out->share_outside = (double)outside / (double)n;
    for (size_t v = 0; v < b->vertex_count; v++)
        if (isfinite(least[v]) && least[v] > out->spike_m) {
            out->spike_m = least[v];
            out->spike_vertex = (uint32_t)v;
        }
    free(ratio);
    free(least);
    return ok ? AM_OK : am_fail_nomem(err, "strain");
}

/* --- one pose, everything --- */

am_status am_bench_pose_report_at(const am_bench *b, int motion, double t, const am_bench_set *sets, size_t set_count,
                                  am_bench_pose_report *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    out->motion = motion;
    out->t = t;
    size_t n = b->vertex_count;
    const float *rest = b->rest_prim;
    float *posed = malloc(3 * n * sizeof *posed);
    am_bench_local *loc = malloc(b->skel->joint_count * sizeof *loc);
    out->sets = calloc(set_count ? set_count : 1, sizeof *out->sets);
    am_status s = AM_OK;
    size_t nl = 0;
    if (!posed || !loc || !out->sets) {
        s = am_fail_nomem(err, "pose report");
        goto done;
    }
    out->set_count = set_count;
    if (motion >= 0)
        s = am_bench_motion_locals(b, motion, t, loc, &nl, err);
    if (!s)
        s = am_bench_pose_locals(b, loc, nl, posed, NULL, err);
    if (!s)
        s = am_bench_displacement(b, rest, posed, &out->displacement, err);
    if (!s)
        s = am_bench_strain_report(b, posed, &out->strain, err);
    if (s)
        goto done;
    am_bench_cross_side_leak(b, am_bench_locals_side(b, loc, nl), rest, posed, &out->leak);
    /* boxes in both frames: bind = R^-1 prim + offset, R the same for every vertex */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double blo[3] = {INFINITY, INFINITY, INFINITY}, bhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    am_vec3 ex = am_bench_prim_to_bind(b, am_v3(1, 0, 0)), ey = am_bench_prim_to_bind(b, am_v3(0, 1, 0)),
            ez = am_bench_prim_to_bind(b, am_v3(0, 0, 1)), e0 = am_bench_prim_to_bind(b, am_v3(0, 0, 0));
    double rot[3][3] = {{ex.x - e0.x, ey.x - e0.x, ez.x - e0.x},
                        {ex.y - e0.y, ey.y - e0.y, ez.y - e0.y},
                        {ex.z - e0.z, ey.z - e0.z, ez.z - e0.z}};
    double off[3] = {e0.x, e0.y, e0.z};
    for (size_t i = 0; i < n; i++) {
        const float *p = &posed[3 * i];
        for (int k = 0; k < 3; k++) {
            double v = p[k], q = rot[k][0] * p[0] + rot[k][1] * p[1] + rot[k][2] * p[2] + off[k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
            blo[k] = q < blo[k] ? q : blo[k];
            bhi[k] = q > bhi[k] ? q : bhi[k];
        }
    }
    out->min_prim = am_v3(lo[0], lo[1], lo[2]);
    out->max_prim = am_v3(hi[0], hi[1], hi[2]);
    out->min_bind = am_v3(blo[0], blo[1], blo[2]);
    out->max_bind = am_v3(bhi[0], bhi[1], bhi[2]);
    for (size_t k = 0; k < set_count; k++) {
        out->sets[k].rigidity_m = am_bench_rigidity(b, posed, &sets[k], &out->sets[k].sampled);
        am_bench_centre(b, posed, &sets[k], &out->sets[k].centre_prim, &out->sets[k].centre_bind);
    }
done:
    free(posed);
    free(loc);
    if (s)
        am_bench_pose_report_free(out);
    return s;
}

void am_bench_pose_report_free(am_bench_pose_report *r)
{
    if (!r)
        return;
    free(r->sets);
    r->sets = NULL;
    r->set_count = 0;
}
