/* Weight-aware simplification with meshoptimizer (docs/reference/mesh-asset.md#asset-layout: the uploader sends four
 * LODs, generated with meshoptimizer too), for the lower LODs and for a triangle budget.
 * Collapses only remove vertices, so every vertex kept carries its own weights and UVs.
 *
 * A plain simplifier sees only positions and happily removes a hinge vertex on a flat face
 * (zero geometric error) although the skin bends there. So the triangles are grouped by
 * weight class: a triangle whose three vertices share a class belongs to it, any other
 * ("mixed") triangle to no group. Each group is simplified on its own with its border
 * locked, so the lines where the weights change stay. Classes: the dominant joint, with its
 * weight in quarter bands (1.0 exactly, [0.75, 1), [0.5, 0.75), below 0.5) for the medium
 * LOD and the budget (a vertex line at every quarter of each blend), the dominant joint
 * alone for the low and lowest LODs (the lines where one joint's region meets the next: a
 * hinge stays a hinge).
 *
 * Locked borders alone keep every border vertex at full resolution, so a distant LOD keeps
 * a ring of triangles around every joint (the 10k creature's lowest LOD: 2,906 triangles
 * where plain simplification gives 314). So the borders themselves are thinned first: a
 * vertex on a class border with exactly two neighbours of its own class along it (the
 * border line through it; not on an open edge, i.e. a face border) is collapsed onto one of
 * them when
 *   - the border line stays within the LOD's geometric error (its distance to the segment
 *     joining its two border neighbours, and to the planes of the triangles it leaves),
 *   - no triangle around it flips, the collapse keeps the surface manifold, and
 *   - every weight at its place, interpolated along the new border segment, stays within the
 *     LOD's weight tolerance of its own weights: the blend profile across the border is
 *     unchanged, only sampled more coarsely along it.
 * Then every class is simplified to its share of what the whole may keep (mixed triangles
 * count against it), and once more after a second thinning if the total is still well
 * over. Speed: each group is
 * copied into its own compact vertex buffer first (meshopt's cost grows with the vertex
 * buffer it is given, so a group simplified against the whole face's buffer cost the face's
 * size once per class). */
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/parallel.h"
#include "core/radix.h"
#include "skin/skin_internal.h"

#define MIXED UINT32_MAX
#define BORDER_PASSES 8
#define FLIP_COS 0.2 /* a triangle may turn by at most ~78 degrees in a border collapse */

typedef struct lod_work {
    const am_lod_mesh *m;
    const am_lod_step *step;
    uint32_t *idx;      /* current triangles, 3 per */
    size_t n;           /* current index count */
    /* scratch for grouping */
    uint32_t *remap;    /* vertex -> group-local, UINT32_MAX */
    uint32_t *back;     /* group-local -> vertex */
    float *gpos;        /* group positions */
    uint32_t *gidx, *gout;
    /* scratch for border passes */
    uint32_t *bid;          /* vertex -> border id, UINT32_MAX (kept clear between passes) */
    uint32_t *stamp;        /* pass that last rewrote a triangle of the vertex (0: none) */
    uint32_t *eval_at;      /* pass that last judged its collapse (valid from round_start) */
    uint32_t *eval_to;      /* ... its target (UINT32_MAX: none valid) */
    float *eval_cost;       /* ... and cost */
    uint8_t *mark;          /* scratch flags, kept clear */
    uint32_t *tstamp;       /* per triangle: the pass that rewrote it */
    double extent;          /* the mesh's largest side (errors are relative to it) */
    uint32_t pass_id;
    uint32_t round_start;   /* first pass of this round: older rejections are stale */
} lod_work;

/* --- pass 1 and 3: each class group simplified with its border locked --- */

static uint32_t tri_class(const uint32_t *cls, const uint32_t *t)
{
    uint32_t c = cls[t[0]];
    return cls[t[1]] == c && cls[t[2]] == c ? c : MIXED;
}

/* A thread's scratch for its groups (the first thread's is lod_work's own). */
typedef struct group_scratch {
    uint32_t *remap; /* vertex -> group-local, UINT32_MAX (kept clear between groups) */
    uint32_t *back;  /* group-local -> vertex */
    float *gpos;
    uint32_t *gidx, *gout;
} group_scratch;

typedef struct group_jobs {
    const lod_work *w;
    const size_t *start;    /* per class (MIXED last): its triangles order[start[c] .. [c + 1]) */
    const uint32_t *order;
    const size_t *target_of;
    size_t class_count;
    uint32_t *out;          /* a group's result over its own input's place: out[3 start[c] ..) */
    size_t *got;            /* per group: the indices it kept */
    group_scratch *scratch; /* per thread */
} group_jobs;

/* One group (a job): copied into a compact vertex buffer, simplified with its border
 * locked; mixed triangles, a group with nothing to gain and one that collapses to nothing
 * are kept as they are. */
static void group_job(void *user, size_t c, int worker)
{
    const group_jobs *j = user;
    const lod_work *w = j->w;
    const am_lod_mesh *m = w->m;
    group_scratch *g = &j->scratch[worker];
    size_t a = j->start[c], b = j->start[c + 1], gn = 3 * (b - a);
    uint32_t *out = &j->out[3 * a];
    size_t target = c < j->class_count ? 3 * j->target_of[c] : gn;
    size_t got = 0;
    if (c < j->class_count && gn > 3 && target < gn) {
        size_t gv = 0;
        for (size_t k = a; k < b; k++)
            for (int q = 0; q < 3; q++) {
                uint32_t v = w->idx[3 * (size_t)j->order[k] + q];
                if (g->remap[v] == UINT32_MAX) {
                    g->remap[v] = (uint32_t)gv;
                    g->back[gv] = v;
                    memcpy(&g->gpos[3 * gv], &m->pos[3 * (size_t)v], 3 * sizeof(float));
                    gv++;
                }
                g->gidx[3 * (k - a) + (size_t)q] = g->remap[v];
            }
        /* meshopt's error is relative to the extent of the buffer it is given: keep it
         * relative to the whole mesh's */
        float glo[3] = {INFINITY, INFINITY, INFINITY}, ghi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t i = 0; i < gv; i++)
            for (int k = 0; k < 3; k++) {
                float x = g->gpos[3 * i + k];
                glo[k] = x < glo[k] ? x : glo[k];
                ghi[k] = x > ghi[k] ? x : ghi[k];
            }
        double gext = 0;
        for (int k = 0; k < 3; k++)
            gext = ghi[k] - glo[k] > gext ? ghi[k] - glo[k] : gext;
        double error = gext > 0 ? w->step->error * w->extent / gext : w->step->error;
        got = meshopt_simplify(g->gout, g->gidx, gn, g->gpos, gv, 3 * sizeof(float), target < 3 ? 3 : target,
                               (float)(error < 1e30 ? error : 1e30), meshopt_SimplifyLockBorder, NULL);
        for (size_t i = 0; i < got; i++)
            out[i] = g->back[g->gout[i]];
        for (size_t i = 0; i < gv; i++)
            g->remap[g->back[i]] = UINT32_MAX;
    }
    if (got == 0) { /* mixed weights, nothing to gain, or collapsed to nothing: keep it */
        for (size_t k = a; k < b; k++)
            memcpy(&out[3 * (k - a)], &w->idx[3 * (size_t)j->order[k]], 3 * sizeof *out);
        got = gn;
    }
    j->got[c] = got;
}

#define GROUPS_PARALLEL_MIN_INDICES 60000 /* groups side by side from this many indices */

static void scratch_free(group_scratch *g)
{
    free(g->remap);
    free(g->back);
    free(g->gpos);
    free(g->gidx);
    free(g->gout);
}

/* Scratch for threads 1 .. nt - 1 (sized for any group of this mesh); fewer threads when
 * it cannot be had (returns the threads to use). */
static int scratch_make(const lod_work *w, group_scratch *g, int nt)
{
    size_t nv = w->m->vertex_count ? w->m->vertex_count : 1, ni = w->n ? w->n : 1;
    for (int t = 1; t < nt; t++) {
        g[t].remap = malloc(nv * sizeof *g[t].remap);
        g[t].back = malloc(nv * sizeof *g[t].back);
        g[t].gpos = malloc(3 * nv * sizeof *g[t].gpos);
        g[t].gidx = malloc(ni * sizeof *g[t].gidx);
        g[t].gout = malloc(ni * sizeof *g[t].gout);
        if (!g[t].remap || !g[t].back || !g[t].gpos || !g[t].gidx || !g[t].gout) {
            scratch_free(&g[t]);
            return t;
        }
        for (size_t v = 0; v < nv; v++)
            g[t].remap[v] = UINT32_MAX;
    }
    return nt;
}

static am_status simplify_groups(lod_work *w, const size_t *target_of, size_t class_count, am_error *err)
{
    const uint32_t *cls = w->step->cls;
    size_t tris = w->n / 3;
    /* triangles grouped by class, counting sort (MIXED last) */
    size_t *start = calloc(class_count + 2, sizeof *start);
    uint32_t *order = malloc((tris ? tris : 1) * sizeof *order);
    uint32_t *out = malloc((w->n ? w->n : 1) * sizeof *out);
    size_t *got = calloc(class_count + 1, sizeof *got);
    size_t *at = malloc((class_count + 1) * sizeof *at);
    if (!start || !order || !out || !got || !at) {
        free(start);
        free(order);
        free(out);
        free(got);
        free(at);
        return am_fail_nomem(err, "LOD groups");
    }
    for (size_t t = 0; t < tris; t++) {
        uint32_t c = tri_class(cls, &w->idx[3 * t]);
        start[(c == MIXED ? class_count : c) + 1]++;
    }
    for (size_t c = 0; c <= class_count; c++)
        start[c + 1] += start[c];
    memcpy(at, start, (class_count + 1) * sizeof *at);
    for (size_t t = 0; t < tris; t++) {
        uint32_t c = tri_class(cls, &w->idx[3 * t]);
        order[at[c == MIXED ? class_count : c]++] = (uint32_t)t;
    }
    free(at);
    /* the groups are independent (each its own triangles, its own result): side by side
     * when the caller allows it, the results then joined in class order */
    group_scratch scratch[AM_PARALLEL_MAX_THREADS];
    memset(scratch, 0, sizeof scratch);
    scratch[0] = (group_scratch){w->remap, w->back, w->gpos, w->gidx, w->gout};
    int nt = w->step->groups_parallel && w->n >= GROUPS_PARALLEL_MIN_INDICES
                 ? scratch_make(w, scratch, am_parallel_threads(0, class_count + 1))
                 : 1;
    group_jobs jobs = {w, start, order, target_of, class_count, out, got, scratch};
    am_parallel_for(class_count + 1, nt, group_job, &jobs);
    for (int t = 1; t < nt; t++)
        scratch_free(&scratch[t]);
    size_t n = 0;
    for (size_t c = 0; c <= class_count; c++) {
        memcpy(&w->idx[n], &out[3 * start[c]], got[c] * sizeof *out);
        n += got[c];
    }
    w->n = n;
    free(start);
    free(order);
    free(out);
    free(got);
    return AM_OK;
}

/* --- pass 2: thin the class borders --- */

typedef struct vec3f {
    double x, y, z;
} vec3f;

static vec3f vp(const float *pos, uint32_t v)
{
    return (vec3f){pos[3 * (size_t)v], pos[3 * (size_t)v + 1], pos[3 * (size_t)v + 2]};
}
static vec3f vsub(vec3f a, vec3f b) { return (vec3f){a.x - b.x, a.y - b.y, a.z - b.z}; }
static double vdot(vec3f a, vec3f b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec3f vcross(vec3f a, vec3f b) { return (vec3f){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

/* The weight of joint j on vertex v (0 if absent). */
static double weight_on(const am_lod_mesh *m, uint32_t v, uint8_t j)
{
    for (int k = 0; k < m->count[v]; k++)
        if (m->joint[4 * (size_t)v + k] == j)
            return m->weight[4 * (size_t)v + k];
    return 0.0;
}

/* Largest change of any weight at u when its weights become the blend of a and b at
 * parameter s along the segment. */
static double weight_error(const am_lod_mesh *m, uint32_t u, uint32_t a, uint32_t b, double s)
{
    double worst = 0;
    const uint32_t vs[3] = {u, a, b};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < m->count[vs[i]]; k++) {
            uint8_t j = m->joint[4 * (size_t)vs[i] + k];
            double d = fabs(weight_on(m, u, j) - ((1 - s) * weight_on(m, a, j) + s * weight_on(m, b, j)));
            worst = d > worst ? d : worst;
        }
    return worst;
}

/* Triangles around the border vertices only (dense ids: bid[v]; UINT32_MAX elsewhere). */
typedef struct adjacency {
    const uint32_t *bid; /* per vertex */
    size_t *start;       /* per border id, into tri */
    uint32_t *tri;       /* incident triangle indices */
} adjacency;

#define DEAD UINT32_MAX /* a corner of a triangle a collapse removed (compacted later) */

static bool alive(const uint32_t *t) { return t[0] != DEAD && t[1] != DEAD && t[2] != DEAD; }

/* Over the triangles `tris` (the fans of the border vertices: nothing else can change). */
static am_status build_adjacency(const uint32_t *idx, const uint32_t *tris, size_t ntris, const uint32_t *bid,
                                 size_t nb, adjacency *adj, am_error *err)
{
    adj->bid = bid;
    adj->start = calloc(nb + 1, sizeof *adj->start);
    if (!adj->start)
        return am_fail_nomem(err, "LOD adjacency");
    for (size_t i = 0; i < ntris; i++) {
        const uint32_t *t = &idx[3 * (size_t)tris[i]];
        if (alive(t))
            for (int c = 0; c < 3; c++)
                if (bid[t[c]] != UINT32_MAX)
                    adj->start[bid[t[c]] + 1]++;
    }
    for (size_t b = 0; b < nb; b++)
        adj->start[b + 1] += adj->start[b];
    adj->tri = malloc((adj->start[nb] ? adj->start[nb] : 1) * sizeof *adj->tri);
    size_t *at = malloc((nb ? nb : 1) * sizeof *at);
    if (!adj->tri || !at) {
        free(at);
        return am_fail_nomem(err, "LOD adjacency");
    }
    memcpy(at, adj->start, nb * sizeof *at);
    for (size_t i = 0; i < ntris; i++) {
        const uint32_t *t = &idx[3 * (size_t)tris[i]];
        if (alive(t))
            for (int c = 0; c < 3; c++)
                if (bid[t[c]] != UINT32_MAX)
                    adj->tri[at[bid[t[c]]]++] = tris[i];
    }
    free(at);
    return AM_OK;
}

/* The ring of u: each neighbour with the number of u's triangles on their edge and whether
 * one of those triangles is mixed. Returns the count, or -1 past RING_MAX (then u is left). */
#define RING_MAX 48
typedef struct ring_entry {
    uint32_t v;
    uint8_t uses;
    bool mixed;
} ring_entry;

static int ring_of(const lod_work *w, const adjacency *adj, uint32_t u, ring_entry *r)
{
    int n = 0;
    uint32_t b = adj->bid[u];
    if (b == UINT32_MAX)
        return -1; /* not a border vertex: no adjacency kept */
    for (size_t k = adj->start[b]; k < adj->start[b + 1]; k++) {
        const uint32_t *t = &w->idx[3 * (size_t)adj->tri[k]];
        bool mixed = tri_class(w->step->cls, t) == MIXED;
        for (int c = 0; c < 3; c++) {
            uint32_t x = t[c];
            if (x == u)
                continue;
            int i = 0;
            while (i < n && r[i].v != x)
                i++;
            if (i == n) {
                if (n == RING_MAX)
                    return -1;
                r[n++] = (ring_entry){x, 0, false};
            }
            r[i].uses++;
            r[i].mixed |= mixed;
        }
    }
    return n;
}

typedef struct collapse {
    uint32_t u, to;
    float cost;
} collapse;

/* The part of a border collapse that does not depend on which end u goes to: u must lie
 * near the segment a - b its two border neighbours leave, and its weights must be the
 * blend of theirs at that place. Returns the distance, or -1. */
static double border_line_cost(const lod_work *w, uint32_t u, uint32_t a, uint32_t b, double geom_tol)
{
    const am_lod_mesh *m = w->m;
    vec3f pu = vp(m->pos, u), pa = vp(m->pos, a), pb = vp(m->pos, b);
    vec3f d = vsub(pb, pa);
    double dd = vdot(d, d);
    double s = dd > 0 ? vdot(vsub(pu, pa), d) / dd : 0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    vec3f q = {pa.x + s * d.x, pa.y + s * d.y, pa.z + s * d.z};
    vec3f e = vsub(pu, q);
    double cost = sqrt(vdot(e, e));
    if (cost > geom_tol || weight_error(m, u, a, b, s) > w->step->weight_tol)
        return -1;
    return cost;
}

/* Is u -> t a valid collapse (the line test passed with cost `line`)? Returns the cost or -1. */
static double border_collapse_cost(const lod_work *w, const adjacency *adj, const ring_entry *ru, int nu, uint32_t u,
                                   uint32_t t, double line, double geom_tol)
{
    const am_lod_mesh *m = w->m;
    const uint32_t *idx = w->idx;
    vec3f pu = vp(m->pos, u), pt = vp(m->pos, t);
    double cost = line;
    /* link condition: u and t share exactly the two vertices opposite their edge */
    ring_entry rt[RING_MAX];
    int nt = ring_of(w, adj, t, rt);
    if (nt < 0)
        return -1;
    int common = 0;
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nt; j++)
            common += ru[i].v == rt[j].v;
    if (common != 2)
        return -1;
    /* the triangles u leaves: no flip, and u stays close to their planes */
    uint32_t bu = adj->bid[u];
    for (size_t k = adj->start[bu]; k < adj->start[bu + 1]; k++) {
        const uint32_t *tr = &idx[3 * (size_t)adj->tri[k]];
        if (tr[0] == t || tr[1] == t || tr[2] == t)
            continue; /* removed by the collapse */
        vec3f a = vp(m->pos, tr[0]), b = vp(m->pos, tr[1]), c = vp(m->pos, tr[2]);
        vec3f n0 = vcross(vsub(b, a), vsub(c, a));
        vec3f p[3] = {a, b, c};
        for (int i = 0; i < 3; i++)
            if (tr[i] == u)
                p[i] = pt;
        vec3f n1 = vcross(vsub(p[1], p[0]), vsub(p[2], p[0]));
        double l0 = sqrt(vdot(n0, n0)), l1 = sqrt(vdot(n1, n1));
        if (!(l1 > 1e-20) || vdot(n0, n1) < FLIP_COS * l0 * l1)
            return -1;
        double plane = fabs(vdot(vsub(pu, p[0]), n1)) / l1;
        if (plane > geom_tol)
            return -1;
        cost = plane > cost ? plane : cost;
    }
    return cost;
}

/* One pass of border collapses (an independent set, cheapest first); *done: how many.
 * Triangles removed are marked DEAD, compacted by the caller. */
static am_status border_pass(lod_work *w, const uint32_t *fan, size_t nfan, double geom_tol, size_t *done,
                             am_error *err)
{
    const uint32_t *cls = w->step->cls;
    *done = 0;
    adjacency adj = {0};
    collapse *cand = NULL;
    uint32_t *key = NULL, *ord = NULL, *list = NULL;
    am_status st = AM_OK;
    /* the candidates: vertices of mixed triangles (dense ids in w->bid, reset at the end) */
    size_t nb = 0, cap = 0;
    for (size_t f = 0; f < nfan; f++) {
        const uint32_t *tr = &w->idx[3 * (size_t)fan[f]];
        if (!alive(tr) || tri_class(cls, tr) != MIXED)
            continue;
        for (int c = 0; c < 3; c++)
            if (w->bid[tr[c]] == UINT32_MAX) {
                if ((st = am_grow((void **)&list, &cap, nb + 1, sizeof *list, "LOD borders", err)))
                    goto out;
                w->bid[tr[c]] = (uint32_t)nb;
                list[nb++] = tr[c];
            }
    }
    if (nb == 0 || (st = build_adjacency(w->idx, fan, nfan, w->bid, nb, &adj, err)))
        goto out;
    cand = malloc(nb * sizeof *cand);
    if (!cand) {
        st = am_fail_nomem(err, "LOD borders");
        goto out;
    }
    size_t nc = 0;
    uint32_t pass = ++w->pass_id;
    for (size_t b = 0; b < nb; b++) {
        uint32_t u = list[b];
        ring_entry r[RING_MAX];
        int n = ring_of(w, &adj, u, r);
        if (n < 3)
            continue;
        if (w->eval_at[u] >= w->round_start) { /* judged before: again only if its ring changed since */
            bool changed = w->stamp[u] >= w->eval_at[u];
            for (int i = 0; i < n && !changed; i++)
                changed = w->stamp[r[i].v] >= w->eval_at[u];
            if (!changed) {
                if (w->eval_to[u] != UINT32_MAX)
                    cand[nc++] = (collapse){u, w->eval_to[u], w->eval_cost[u]};
                continue;
            }
        }
        w->eval_at[u] = pass;
        w->eval_to[u] = UINT32_MAX;
        /* u lies on a class border, away from open edges, with exactly two same-class
         * neighbours along it (the border line through u) */
        uint32_t other = MIXED;
        bool ok = true;
        uint32_t ends[2];
        int ne = 0;
        for (int i = 0; i < n && ok; i++) {
            if (r[i].uses != 2)
                ok = false; /* an open edge (face border) or a non-manifold one: locked */
            else if (cls[r[i].v] != cls[u])
                other = cls[r[i].v];
            else if (r[i].mixed) {
                if (ne == 2)
                    ok = false;
                else
                    ends[ne++] = r[i].v;
            }
        }
        if (!ok || other == MIXED || ne != 2)
            continue;
        double line = border_line_cost(w, u, ends[0], ends[1], geom_tol);
        if (line < 0)
            continue;
        double c0 = border_collapse_cost(w, &adj, r, n, u, ends[0], line, geom_tol);
        double c1 = border_collapse_cost(w, &adj, r, n, u, ends[1], line, geom_tol);
        if (c0 < 0 && c1 < 0)
            continue;
        bool first = c0 >= 0 && (c1 < 0 || c0 <= c1);
        w->eval_to[u] = first ? ends[0] : ends[1];
        w->eval_cost[u] = (float)(first ? c0 : c1);
        cand[nc++] = (collapse){u, w->eval_to[u], w->eval_cost[u]};
    }
    if (nc == 0)
        goto out;
    key = malloc(nc * sizeof *key);
    ord = malloc(nc * sizeof *ord);
    if (!key || !ord) {
        st = am_fail_nomem(err, "LOD borders");
        goto out;
    }
    for (size_t i = 0; i < nc; i++) {
        key[i] = am_radix_float_key(cand[i].cost);
        ord[i] = (uint32_t)i;
    }
    if ((st = am_radix_sort_u32(key, ord, nc, err)))
        goto out;
    /* apply an independent set: a collapse rewrites u's triangles; another collapse x -> y
     * was judged on x's triangles and on y's ring, so it waits for the next pass when any
     * triangle around x or y was rewritten in this one */
    for (size_t i = 0; i < nc; i++) {
        const collapse *c = &cand[ord[i]];
        uint32_t bu = w->bid[c->u], bt = w->bid[c->to];
        bool free_ = true;
        for (size_t k = adj.start[bu]; k < adj.start[bu + 1] && free_; k++)
            free_ = w->tstamp[adj.tri[k]] != pass;
        for (size_t k = adj.start[bt]; k < adj.start[bt + 1] && free_; k++)
            free_ = w->tstamp[adj.tri[k]] != pass;
        if (!free_)
            continue;
        for (size_t k = adj.start[bu]; k < adj.start[bu + 1]; k++) {
            uint32_t *tr = &w->idx[3 * (size_t)adj.tri[k]];
            w->tstamp[adj.tri[k]] = pass;
            bool has_to = tr[0] == c->to || tr[1] == c->to || tr[2] == c->to;
            for (int q = 0; q < 3; q++)
                w->stamp[tr[q]] = pass;
            for (int q = 0; q < 3; q++)
                if (tr[q] == c->u)
                    tr[q] = has_to ? DEAD : c->to;
            if (has_to)
                tr[0] = tr[1] = tr[2] = DEAD;
        }
        /* y's triangles gain the ones rewritten: they count as rewritten too */
        for (size_t k = adj.start[bt]; k < adj.start[bt + 1]; k++)
            w->tstamp[adj.tri[k]] = pass;
        (*done)++;
    }
out:
    for (size_t b = 0; b < nb; b++)
        w->bid[list[b]] = UINT32_MAX;
    free(list);
    free(adj.start);
    free(adj.tri);
    free(cand);
    free(key);
    free(ord);
    return st;
}

/* The triangles with a corner on a border (a vertex of a mixed triangle): a border collapse
 * rewrites only these, and never changes a triangle's class (both ends share one), so the
 * list holds for every pass of a round. */
static am_status border_fans(lod_work *w, uint32_t **fan, size_t *nfan, am_error *err)
{
    const uint32_t *cls = w->step->cls;
    size_t tris = w->n / 3, n = 0;
    *fan = NULL;
    *nfan = 0;
    for (size_t t = 0; t < tris; t++)
        if (tri_class(cls, &w->idx[3 * t]) == MIXED)
            for (int c = 0; c < 3; c++)
                w->mark[w->idx[3 * t + c]] = 1;
    uint32_t *list = malloc((tris ? tris : 1) * sizeof *list);
    if (!list)
        return am_fail_nomem(err, "LOD borders");
    for (size_t t = 0; t < tris; t++) {
        const uint32_t *tr = &w->idx[3 * t];
        if (w->mark[tr[0]] || w->mark[tr[1]] || w->mark[tr[2]])
            list[n++] = (uint32_t)t;
    }
    for (size_t t = 0; t < tris; t++)
        if (tri_class(cls, &w->idx[3 * t]) == MIXED)
            for (int c = 0; c < 3; c++)
                w->mark[w->idx[3 * t + c]] = 0;
    *fan = list;
    *nfan = n;
    return AM_OK;
}

/* Drop the triangles marked DEAD. */
static void compact_dead(lod_work *w)
{
    size_t n = 0;
    for (size_t t = 0; t < w->n / 3; t++) {
        const uint32_t *tr = &w->idx[3 * t];
        if (!alive(tr))
            continue;
        memmove(&w->idx[n], tr, 3 * sizeof *tr);
        n += 3;
    }
    w->n = n;
}

static double extent_of(const am_lod_mesh *m, const uint32_t *idx, size_t n)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            float v = m->pos[3 * (size_t)idx[i] + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    double e = 0;
    for (int k = 0; k < 3; k++)
        e = hi[k] - lo[k] > e ? hi[k] - lo[k] : e;
    return e;
}

am_status am_skin_simplify_welded(const am_lod_mesh *m, const uint32_t *indices, size_t index_count, const am_lod_step *step,
                           uint32_t **out, size_t *out_count, am_error *err)
{
    *out = NULL;
    *out_count = 0;
    size_t nv = m->vertex_count;
    lod_work w;
    memset(&w, 0, sizeof w);
    w.m = m;
    w.step = step;
    w.n = index_count;
    size_t class_count = 0;
    for (size_t v = 0; v < nv; v++)
        if (step->cls[v] != MIXED && step->cls[v] + 1 > class_count)
            class_count = step->cls[v] + 1;
    size_t *target = calloc(class_count ? class_count : 1, sizeof *target);
    size_t *initial = calloc(class_count ? class_count : 1, sizeof *initial);
    w.idx = malloc((index_count ? index_count : 1) * sizeof *w.idx);
    w.remap = malloc((nv ? nv : 1) * sizeof *w.remap);
    w.back = malloc((nv ? nv : 1) * sizeof *w.back);
    w.gpos = malloc(3 * (nv ? nv : 1) * sizeof *w.gpos);
    w.gidx = malloc((index_count ? index_count : 1) * sizeof *w.gidx);
    w.gout = malloc((index_count ? index_count : 1) * sizeof *w.gout);
    w.bid = malloc((nv ? nv : 1) * sizeof *w.bid);
    w.stamp = calloc(nv ? nv : 1, sizeof *w.stamp);
    w.eval_at = calloc(nv ? nv : 1, sizeof *w.eval_at);
    w.eval_to = malloc((nv ? nv : 1) * sizeof *w.eval_to);
    w.eval_cost = malloc((nv ? nv : 1) * sizeof *w.eval_cost);
    w.mark = calloc(nv ? nv : 1, 1);
    w.tstamp = calloc(index_count / 3 + 1, sizeof *w.tstamp);
    am_status st = AM_OK;
    if (!target || !initial || !w.idx || !w.remap || !w.back || !w.gpos || !w.gidx || !w.gout || !w.bid ||
        !w.stamp || !w.eval_at || !w.eval_to || !w.eval_cost || !w.mark || !w.tstamp) {
        st = am_fail_nomem(err, "LOD");
        goto done;
    }
    memcpy(w.idx, indices, index_count * sizeof *w.idx);
    for (size_t v = 0; v < nv; v++)
        w.remap[v] = w.bid[v] = UINT32_MAX;
    if (step->ratio >= 1.0)
        goto keep; /* LODs off: the LOD above as it is */
    size_t want = (size_t)llround((double)(index_count / 3) * step->ratio);
    w.extent = extent_of(m, w.idx, w.n);
    double tol = (step->border_error > 0 ? step->border_error : step->error) * w.extent;
    for (int round = 0; round < 2; round++) {
        /* thin the borders (at the resolution they have now), then every class to its share
         * of what the whole may keep: the mixed triangles count against it */
        uint32_t *fan = NULL;
        size_t nfan = 0;
        if (step->weight_tol > 0 && (st = border_fans(&w, &fan, &nfan, err)))
            goto done;
        w.round_start = w.pass_id + 1; /* the classes' simplification changed triangles unseen */
        if (step->weight_tol > 0)
            for (size_t pass = 0, first = 0; pass < BORDER_PASSES && nfan; pass++) {
                size_t done_n;
                if ((st = border_pass(&w, fan, nfan, tol, &done_n, err))) {
                    free(fan);
                    goto done;
                }
                if (pass == 0)
                    first = done_n;
                if (done_n == 0 || 20 * done_n < first)
                    break; /* what is left is not worth another pass */
            }
        free(fan);
        compact_dead(&w);
        size_t mixed = 0, in_classes = 0;
        memset(initial, 0, (class_count ? class_count : 1) * sizeof *initial);
        for (size_t t = 0; t < w.n / 3; t++) {
            uint32_t c = tri_class(step->cls, &w.idx[3 * t]);
            if (c == MIXED)
                mixed++;
            else {
                initial[c]++;
                in_classes++;
            }
        }
        double share = in_classes && want > mixed ? (double)(want - mixed) / (double)in_classes : 0.0;
        if (share > 1)
            share = 1;
        for (size_t c = 0; c < class_count; c++)
            target[c] = (size_t)llround((double)initial[c] * share);
        size_t before = w.n;
        if ((st = simplify_groups(&w, target, class_count, err)))
            goto done;
        /* a second round only when the classes gave way and the total is still well over */
        if (step->weight_tol <= 0 || w.n == before || (double)w.n / 3 <= 1.05 * (double)want)
            break;
    }
keep:
    if (w.n == 0) { /* never lose the LOD above */
        memcpy(w.idx, indices, index_count * sizeof *w.idx);
        w.n = index_count;
    }
    *out = w.idx;
    w.idx = NULL;
    *out_count = w.n;
done:
    free(target);
    free(initial);
    free(w.idx);
    free(w.remap);
    free(w.back);
    free(w.gpos);
    free(w.gidx);
    free(w.gout);
    free(w.bid);
    free(w.stamp);
    free(w.eval_at);
    free(w.eval_to);
    free(w.eval_cost);
    free(w.mark);
    free(w.tstamp);
    return st;
}

am_status am_skin_weight_classes(const am_lod_mesh *m, bool bands, uint32_t *out, am_error *err)
{
    (void)err;
    /* class id = joint * 5 + band, then renumbered densely in that order */
    uint32_t used[AM_MAX_JOINTS_PER_MESH * 5 + 5];
    memset(used, 0, sizeof used);
    for (size_t v = 0; v < m->vertex_count; v++) {
        uint8_t n = m->count[v];
        size_t best = 0;
        for (size_t s = 1; s < n && s < AM_MAX_INFLUENCES; s++)
            if (m->weight[AM_MAX_INFLUENCES * v + s] > m->weight[AM_MAX_INFLUENCES * v + best])
                best = s;
        double wv = m->weight[AM_MAX_INFLUENCES * v + best];
        uint32_t j = m->joint[AM_MAX_INFLUENCES * v + best];
        if (j > AM_MAX_JOINTS_PER_MESH)
            j = AM_MAX_JOINTS_PER_MESH;
        uint32_t band = !bands ? 0 : n <= 1 ? 4 : wv >= 0.75 ? 3 : wv >= 0.5 ? 2 : 1;
        out[v] = j * 5 + band;
        used[out[v]] = 1;
    }
    uint32_t next = 0;
    for (size_t c = 0; c < sizeof used / sizeof used[0]; c++)
        used[c] = used[c] ? next++ : 0;
    for (size_t v = 0; v < m->vertex_count; v++)
        out[v] = used[out[v]];
    return AM_OK;
}
