/* Bench measurements: rest error, displacement, vertex sets (rigidity, centre), and the
 * quality.md figures that apply to a decoded asset (weights, strain, cross-side leak). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_internal.h"

#define RIGIDITY_MAX_SAMPLES 4096

static am_vec3 vtx(const float *p, size_t i) { return am_v3(p[3 * i], p[3 * i + 1], p[3 * i + 2]); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return 0.0;
    double r = ceil(p / 100.0 * (double)n);
    size_t k = r < 1 ? 0 : (size_t)r - 1;
    return sorted[k < n ? k : n - 1];
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
    qsort(d, n, sizeof *d, cmp_double);
    out->p99 = percentile(d, n, 99.0);
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
        d[i] = am_v3_dist(vtx(a, i), vtx(c, i));
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
    snprintf(out->name, sizeof out->name, "%s", name ? name : expr);
    snprintf(out->expr, sizeof out->expr, "%s", expr);
    cond c[16];
    size_t nc = 0;
    bool all = strcmp(expr, "all") == 0;
    if (!all) {
        am_status s = parse_conditions(expr, c, &nc, err);
        if (s)
            return s;
    }
    out->index = malloc((b->vertex_count ? b->vertex_count : 1) * sizeof *out->index);
    if (!out->index)
        return am_fail_nomem(err, "vertex set");
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
                       expr, b->source);
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
}

double am_bench_rigidity(const am_bench *b, const float *prim, const am_bench_set *set, bool *sampled)
{
    size_t n = set->count, step = 1;
    if (n > RIGIDITY_MAX_SAMPLES)
        step = (n + RIGIDITY_MAX_SAMPLES - 1) / RIGIDITY_MAX_SAMPLES;
    if (sampled)
        *sampled = step > 1;
    double worst = 0.0;
    for (size_t a = 0; a < n; a += step) {
        size_t ia = set->index[a];
        am_vec3 pa = vtx(prim, ia), ba = vtx(b->bind_pos, ia);
        for (size_t c = a + step; c < n; c += step) {
            size_t ic = set->index[c];
            double d = fabs(am_v3_dist(pa, vtx(prim, ic)) - am_v3_dist(ba, vtx(b->bind_pos, ic)));
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
        double d = am_v3_dist(vtx(rest_prim, i), vtx(posed_prim, i));
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

static int cmp_edge(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

am_status am_bench_strain_report(const am_bench *b, const float *prim, am_bench_strain *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    size_t ne = 3 * b->triangle_count;
    if (ne == 0)
        return AM_OK;
    uint64_t *edges = malloc(ne * sizeof *edges);
    double *ratio = malloc(ne * sizeof *ratio);
    if (!edges || !ratio) {
        free(edges);
        free(ratio);
        return am_fail_nomem(err, "strain edges");
    }
    for (size_t t = 0; t < b->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = b->triangles[3 * t + k], c = b->triangles[3 * t + (k + 1) % 3];
            uint32_t lo = a < c ? a : c, hi = a < c ? c : a;
            edges[3 * t + k] = ((uint64_t)lo << 32) | hi;
        }
    qsort(edges, ne, sizeof *edges, cmp_edge);
    size_t n = 0, outside = 0;
    for (size_t i = 0; i < ne; i++) {
        if (i > 0 && edges[i] == edges[i - 1])
            continue;
        uint32_t a = (uint32_t)(edges[i] >> 32), c = (uint32_t)edges[i];
        double rest = am_v3_dist(vtx(b->bind_pos, a), vtx(b->bind_pos, c));
        if (rest <= 1e-9)
            continue;
        double r = am_v3_dist(vtx(prim, a), vtx(prim, c)) / rest;
        outside += r < 0.5 || r > 1.6;
        ratio[n++] = r;
    }
    if (n) {
        qsort(ratio, n, sizeof *ratio, cmp_double);
        out->edges = n;
        out->min = ratio[0];
        out->max = ratio[n - 1];
        out->p1 = percentile(ratio, n, 1.0);
        out->p99 = percentile(ratio, n, 99.0);
        out->share_outside = (double)outside / (double)n;
    }
    free(edges);
    free(ratio);
    return AM_OK;
}

/* --- one pose, everything --- */

am_status am_bench_pose_report_at(const am_bench *b, int motion, double t, const am_bench_set *sets, size_t set_count,
                                  am_bench_pose_report *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    out->motion = motion;
    out->t = t;
    size_t n = b->vertex_count;
    float *rest = malloc(3 * n * sizeof *rest);
    float *posed = malloc(3 * n * sizeof *posed);
    am_bench_local *loc = malloc(b->skel->joint_count * sizeof *loc);
    out->sets = calloc(set_count ? set_count : 1, sizeof *out->sets);
    am_status s = AM_OK;
    size_t nl = 0;
    if (!rest || !posed || !loc || !out->sets) {
        s = am_fail_nomem(err, "pose report");
        goto done;
    }
    out->set_count = set_count;
    if (motion >= 0)
        s = am_bench_motion_locals(b, motion, t, loc, &nl, err);
    if (!s)
        s = am_bench_pose_locals(b, NULL, 0, rest, NULL, err);
    if (!s)
        s = am_bench_pose_locals(b, loc, nl, posed, NULL, err);
    if (!s)
        s = am_bench_displacement(b, rest, posed, &out->displacement, err);
    if (!s)
        s = am_bench_strain_report(b, posed, &out->strain, err);
    if (s)
        goto done;
    am_bench_cross_side_leak(b, am_bench_locals_side(b, loc, nl), rest, posed, &out->leak);
    out->min_prim = out->min_bind = am_v3(INFINITY, INFINITY, INFINITY);
    out->max_prim = out->max_bind = am_v3(-INFINITY, -INFINITY, -INFINITY);
    for (size_t i = 0; i < n; i++) {
        am_vec3 p = vtx(posed, i), q = am_bench_prim_to_bind(b, p);
        out->min_prim = am_v3(fmin(out->min_prim.x, p.x), fmin(out->min_prim.y, p.y), fmin(out->min_prim.z, p.z));
        out->max_prim = am_v3(fmax(out->max_prim.x, p.x), fmax(out->max_prim.y, p.y), fmax(out->max_prim.z, p.z));
        out->min_bind = am_v3(fmin(out->min_bind.x, q.x), fmin(out->min_bind.y, q.y), fmin(out->min_bind.z, q.z));
        out->max_bind = am_v3(fmax(out->max_bind.x, q.x), fmax(out->max_bind.y, q.y), fmax(out->max_bind.z, q.z));
    }
    for (size_t k = 0; k < set_count; k++) {
        out->sets[k].rigidity_m = am_bench_rigidity(b, posed, &sets[k], &out->sets[k].sampled);
        am_bench_centre(b, posed, &sets[k], &out->sets[k].centre_prim, &out->sets[k].centre_bind);
    }
done:
    free(rest);
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
