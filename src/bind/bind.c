/* am_bind: checks, normalisation, islands and their routes, the solve, the checks after
 * it and the fallbacks, then the influence cleanup (bind.h describes the pipeline). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind_internal.h"
#include "bind/cholmod_lib.h"
#include "bind/embree_lib.h"
#include "core/clock.h"
#include "core/notes.h"
#include "core/text.h"

#define BONE_SAMPLES 9           /* points along a bone tested for "held by an island" */
#define OPEN_ISLAND_MARGIN 0.05  /* an open island's box grows by this share of its diagonal */

void am_bind_options_init(am_bind_options *o)
{
    memset(o, 0, sizeof *o);
    o->method = AM_BIND_HEAT;
    o->min_weight = 0.01;
    o->max_influences = 4;
    o->proxy_resolution = 112;
}

const char *am_bind_route_name(am_bind_route r)
{
    switch (r) {
    case AM_ROUTE_HEAT: return "heat";
    case AM_ROUTE_SEGMENT: return "segment";
    case AM_ROUTE_RIGID: return "rigid";
    case AM_ROUTE_PROXY: return "proxy";
    default: return "segment-fallback";
    }
}

const char *am_bind_method_name(am_bind_method m) { return m == AM_BIND_SEGMENT ? "segment" : "heat"; }

bool am_bind_joint_is_minor_kind(const char *name)
{
    return strstr(name, "Eye") || strstr(name, "Teeth") || strstr(name, "Tongue");
}

bool am_bind_bone_has_twin(const am_bind_skeleton *s, size_t j, double tol, const bool *weighted)
{
    const am_bind_joint *a = &s->joints[j];
    for (size_t k = 0; k < s->joint_count; k++) {
        if (k == j || (weighted && !weighted[k]))
            continue;
        const am_bind_joint *b = &s->joints[k];
        bool same = am_v3_dist(a->head, b->head) <= tol && am_v3_dist(a->tail, b->tail) <= tol;
        bool reversed = am_v3_dist(a->head, b->tail) <= tol && am_v3_dist(a->tail, b->head) <= tol;
        if (same || reversed)
            return true;
    }
    return false;
}

bool am_bind_bone_is_empty(const am_bind_skeleton *s, size_t j, const float *pos, size_t n, const int *main_joint,
                           const bool *weighted, double height_m)
{
    if (am_bind_bone_has_twin(s, j, 0.01 * height_m, weighted))
        return false;
    size_t flesh = 0, elsewhere = 0;
    for (size_t v = 0; v < n; v++) {
        float c[3];
        double best = INFINITY;
        size_t nearest = 0;
        for (size_t k = 0; k < s->joint_count; k++) {
            const am_bind_joint *J = &s->joints[k];
            float a[3] = {(float)J->head.x, (float)J->head.y, (float)J->head.z};
            float b[3] = {(float)J->tail.x, (float)J->tail.y, (float)J->tail.z};
            double d = am_bind_segment_closest(a, b, &pos[3 * v], c);
            if (d < best) {
                best = d;
                nearest = k;
            }
        }
        if (nearest != j)
            continue;
        flesh++;
        int m = main_joint[v];
        while (m >= 0 && (size_t)m != j)
            m = s->joints[m].parent;
        elsewhere += m < 0;
    }
    return flesh > 0 && 2 * elsewhere > flesh;
}

void am_bind_skeleton_free(am_bind_skeleton *s)
{
    if (!s)
        return;
    for (size_t j = 0; j < s->joint_count && s->joints; j++)
        am_string_free(&s->joints[j].name);
    free(s->joints);
    s->joints = NULL;
    s->joint_count = 0;
}

void am_bind_result_free(am_bind_result *r)
{
    if (!r)
        return;
    free(r->count);
    free(r->joint);
    free(r->weight);
    for (size_t i = 0; i < r->island_count && r->islands; i++)
        am_string_free(&r->islands[i].why);
    free(r->islands);
    am_string_list_free(r->warnings, r->warning_count);
    free(r->joint_weight_sum);
    free(r->joint_held);
    memset(r, 0, sizeof *r);
}

static void warn(am_bind_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(am_bind_result *r, const char *fmt, ...)
{
    va_list ap;
    am_string text = {0};
    va_start(ap, fmt);
    bool ok = am_string_vsetf(&text, fmt, ap);
    va_end(ap);
    if (!ok || !am_string_list_push(&r->warnings, &r->warning_count, &r->warning_cap, text.data))
        r->warnings_dropped++;
    am_string_free(&text);
}

static am_status check_input(const am_bind_mesh *m, const am_bind_skeleton *s, am_error *err)
{
    if (m->vertex_count == 0 || m->triangle_count == 0)
        return am_fail(err, AM_ERR_INVALID, "the mesh has %s: nothing to bind (%zu vertices, %zu triangles)",
                       m->triangle_count == 0 ? "no triangles" : "no vertices", m->vertex_count, m->triangle_count);
    if (m->vertex_count > UINT32_MAX / 2 || m->triangle_count > UINT32_MAX / 4)
        return am_fail(err, AM_ERR_INVALID, "mesh too large (%zu vertices)", m->vertex_count);
    for (size_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(m->positions[3 * v + k]))
                return am_fail(err, AM_ERR_INVALID, "vertex %zu: position %c is not a finite number (%g)", v, "xyz"[k],
                               (double)m->positions[3 * v + k]);
    for (size_t t = 0; t < 3 * m->triangle_count; t++)
        if (m->triangles[t] >= m->vertex_count)
            return am_fail(err, AM_ERR_INVALID, "triangle %zu: vertex index %u out of range (%zu vertices)", t / 3,
                           m->triangles[t], m->vertex_count);
    if (s->joint_count == 0)
        return am_fail(err, AM_ERR_INVALID, "the skeleton has no joint");
    if (s->joint_count > 4096)
        return am_fail(err, AM_ERR_INVALID, "the skeleton has %zu joints (at most 4096)", s->joint_count);
    for (size_t j = 0; j < s->joint_count; j++) {
        const am_bind_joint *J = &s->joints[j];
        double v[6] = {J->head.x, J->head.y, J->head.z, J->tail.x, J->tail.y, J->tail.z};
        for (int k = 0; k < 6; k++)
            if (!isfinite(v[k]))
                return am_fail(err, AM_ERR_INVALID, "joint '%s': its %s is not finite", am_str(&J->name),
                               k < 3 ? "head" : "tail");
        if (am_v3_dist(J->head, J->tail) <= 0)
            return am_fail(err, AM_ERR_INVALID, "joint '%s': its bone has zero length (head = tail)", am_str(&J->name));
        if (J->parent >= (int)s->joint_count || J->parent < -1)
            return am_fail(err, AM_ERR_INVALID, "joint '%s': parent index %d out of range", am_str(&J->name),
                           J->parent);
    }
    return AM_OK;
}

/* Work state of one call. */
typedef struct work {
    const am_bind_mesh *mesh;
    const am_bind_skeleton *skel;
    am_bind_options opt;
    am_bind_result *res;
    am_topology topo;
    float origin[3];
    double scale;           /* 1 / height */
    float *pos;             /* normalised welded positions */
    float *normal;
    uint32_t *tris;         /* welded, islands oriented outward where closed */
    uint32_t *tri_island;
    bind_bone *bones;
    uint32_t *island_bone_start, *island_bones;
    bool *island_solve;
    uint32_t *island_vert_start, *island_verts; /* welded vertices grouped by island */
    am_bind_vis *vis;
    bind_candidates *cand;
    bind_problem prob;
    bind_heat_start *heat_start; /* reads pos and tris until it ends */
} work;

static void free_work(work *w)
{
    am_bind_heat_end(w->heat_start);
    am_topology_free(&w->topo);
    free(w->pos);
    free(w->normal);
    free(w->tris);
    free(w->tri_island);
    free(w->bones);
    free(w->island_bone_start);
    free(w->island_bones);
    free(w->island_solve);
    free(w->island_vert_start);
    free(w->island_verts);
    am_bind_vis_free(w->vis);
    free(w->cand);
}

/* Normalised frame, welded positions, outward orientation of closed islands, normals. */
static am_status prepare_geometry(work *w, am_error *err)
{
    const am_bind_mesh *m = w->mesh;
    am_topology *t = &w->topo;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m->positions[3 * v + k]);
            hi[k] = fmax(hi[k], m->positions[3 * v + k]);
        }
    double height = hi[2] - lo[2];
    if (!(height > 0)) {
        height = fmax(hi[0] - lo[0], hi[1] - lo[1]);
        warn(w->res, "the mesh is flat in Z: normalised by its largest extent (%g m) instead of its height", height);
    }
    if (!(height > 0))
        return am_fail(err, AM_ERR_INVALID, "every vertex is at the same point: nothing to bind");
    w->res->height_m = height;
    w->scale = 1.0 / height;
    for (int k = 0; k < 3; k++)
        w->origin[k] = (float)lo[k];
    size_t nw = t->welded_count, nt = t->triangle_count;
    w->pos = malloc(3 * nw * sizeof *w->pos);
    w->normal = calloc(3 * nw, sizeof *w->normal);
    w->tris = malloc((nt ? 3 * nt : 1) * sizeof *w->tris);
    w->tri_island = malloc((nt ? nt : 1) * sizeof *w->tri_island);
    double *volume = calloc(t->island_count + 1, sizeof *volume);
    if (!w->pos || !w->normal || !w->tris || !w->tri_island || !volume) {
        free(volume);
        return am_fail_nomem(err, "bind geometry");
    }
    for (size_t v = 0; v < nw; v++)
        for (int k = 0; k < 3; k++)
            w->pos[3 * v + k] = (float)(((double)m->positions[3 * t->welded_first[v] + k] - lo[k]) * w->scale);
    memcpy(w->tris, t->triangles, 3 * nt * sizeof *w->tris);
    for (size_t i = 0; i < nt; i++) {
        w->tri_island[i] = t->island[w->tris[3 * i]];
        const float *a = &w->pos[3 * w->tris[3 * i]], *b = &w->pos[3 * w->tris[3 * i + 1]], *c = &w->pos[3 * w->tris[3 * i + 2]];
        /* signed volume of the tetrahedron with the origin, x6 */
        volume[w->tri_island[i]] += (double)a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
                                    (double)a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
                                    (double)a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0]);
    }
    size_t flipped = 0;
    for (size_t i = 0; i < nt; i++)
        if (t->island_closed[w->tri_island[i]] && volume[w->tri_island[i]] < 0) {
            uint32_t x = w->tris[3 * i + 1];
            w->tris[3 * i + 1] = w->tris[3 * i + 2];
            w->tris[3 * i + 2] = x;
            flipped++;
        }
    size_t flipped_islands = 0;
    for (size_t k = 0; k < t->island_count; k++)
        flipped_islands += t->island_closed[k] && volume[k] < 0;
    if (flipped_islands)
        warn(w->res, "%zu closed island(s) have their faces pointing inward: read as turned outward (%zu faces)",
             flipped_islands, flipped);
    free(volume);
    /* Vertex normals as Blender's heat_calc_vnormals: the sum of unit face normals. */
    for (size_t i = 0; i < nt; i++) {
        const uint32_t *f = &w->tris[3 * i];
        const float *a = &w->pos[3 * f[0]], *b = &w->pos[3 * f[1]], *c = &w->pos[3 * f[2]];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(len > 0))
            continue;
        for (int q = 0; q < 3; q++)
            for (int k = 0; k < 3; k++)
                w->normal[3 * f[q] + k] += (float)(n[k] / len);
    }
    for (size_t v = 0; v < nw; v++) {
        float *n = &w->normal[3 * v];
        float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (len > 0)
            for (int k = 0; k < 3; k++)
                n[k] /= len;
    }
    /* Welded vertices grouped by island. */
    w->island_vert_start = calloc(t->island_count + 1, sizeof *w->island_vert_start);
    w->island_verts = malloc((nw ? nw : 1) * sizeof *w->island_verts);
    if (!w->island_vert_start || !w->island_verts)
        return am_fail_nomem(err, "islands");
    for (size_t v = 0; v < nw; v++)
        w->island_vert_start[t->island[v] + 1]++;
    for (size_t k = 0; k < t->island_count; k++)
        w->island_vert_start[k + 1] += w->island_vert_start[k];
    uint32_t *fill = malloc((t->island_count + 1) * sizeof *fill);
    if (!fill)
        return am_fail_nomem(err, "islands");
    memcpy(fill, w->island_vert_start, (t->island_count + 1) * sizeof *fill);
    for (size_t v = 0; v < nw; v++)
        w->island_verts[fill[t->island[v]]++] = (uint32_t)v;
    free(fill);
    return AM_OK;
}

/* Which bones each island holds. */
static am_status find_held(work *w, am_error *err)
{
    const am_topology *t = &w->topo;
    size_t nb = w->skel->joint_count, ni = t->island_count;
    w->bones = malloc(nb * sizeof *w->bones);
    w->island_bone_start = calloc(ni + 1, sizeof *w->island_bone_start);
    w->island_bones = malloc((ni * nb + 1) * sizeof *w->island_bones);
    float *lo = malloc((ni ? ni : 1) * 6 * sizeof *lo);
    if (!w->bones || !w->island_bone_start || !w->island_bones || !lo) {
        free(lo);
        return am_fail_nomem(err, "bones");
    }
    for (size_t j = 0; j < nb; j++) {
        const am_bind_joint *J = &w->skel->joints[j];
        double h[3] = {J->head.x, J->head.y, J->head.z}, e[3] = {J->tail.x, J->tail.y, J->tail.z};
        for (int k = 0; k < 3; k++) {
            w->bones[j].a[k] = (float)((h[k] - w->origin[k]) * w->scale);
            w->bones[j].b[k] = (float)((e[k] - w->origin[k]) * w->scale);
        }
        w->bones[j].joint = (int)j;
    }
    float *hi = lo + 3 * ni;
    for (size_t k = 0; k < ni; k++)
        for (int c = 0; c < 3; c++) {
            lo[3 * k + c] = INFINITY;
            hi[3 * k + c] = -INFINITY;
        }
    for (size_t v = 0; v < t->welded_count; v++)
        for (int c = 0; c < 3; c++) {
            size_t k = t->island[v];
            lo[3 * k + c] = fminf(lo[3 * k + c], w->pos[3 * v + c]);
            hi[3 * k + c] = fmaxf(hi[3 * k + c], w->pos[3 * v + c]);
        }
    size_t at = 0;
    for (size_t k = 0; k < ni; k++) {
        w->island_bone_start[k] = (uint32_t)at;
        if (t->island_triangle_count[k] == 0)
            continue;
        float margin = 0;
        if (!t->island_closed[k]) {
            float d2 = 0;
            for (int c = 0; c < 3; c++)
                d2 += (hi[3 * k + c] - lo[3 * k + c]) * (hi[3 * k + c] - lo[3 * k + c]);
            margin = (float)OPEN_ISLAND_MARGIN * sqrtf(d2);
        }
        for (size_t j = 0; j < nb; j++) {
            bool held = false;
            for (int s = 0; s < BONE_SAMPLES && !held; s++) {
                float u = (float)s / (BONE_SAMPLES - 1), p[3];
                bool in_box = true;
                for (int c = 0; c < 3; c++) {
                    p[c] = w->bones[j].a[c] + u * (w->bones[j].b[c] - w->bones[j].a[c]);
                    in_box = in_box && p[c] >= lo[3 * k + c] - margin && p[c] <= hi[3 * k + c] + margin;
                }
                if (!in_box)
                    continue;
                held = !t->island_closed[k] || am_bind_vis_inside(w->vis, (uint32_t)k, p);
            }
            if (held) {
                w->island_bones[at++] = (uint32_t)j;
                w->res->joint_held[j] = true;
            }
        }
    }
    w->island_bone_start[ni] = (uint32_t)at;
    free(lo);
    return AM_OK;
}

static void island_bone_names(const work *w, size_t k, char *out, size_t size)
{
    size_t b0 = w->island_bone_start[k], b1 = w->island_bone_start[k + 1];
    out[0] = '\0';
    size_t len = 0;
    for (size_t b = b0; b < b1 && len + 40 < size; b++) {
        int n = snprintf(out + len, size - len, "%s%s", b > b0 ? ", " : "",
                         am_str(&w->skel->joints[w->island_bones[b]].name));
        if (n < 0 || len + (size_t)n >= size)
            break; /* cut: the route's sentence holds what fits */
        len += (size_t)n;
        if (b - b0 >= 5 && b + 1 < b1) {
            snprintf(out + len, size - len, ", ... (%zu bones)", b1 - b0);
            break;
        }
    }
}

/* Every island's first route. False when out of memory. */
static bool plan_routes(work *w)
{
    const am_topology *t = &w->topo;
    am_bind_result *r = w->res;
    for (size_t k = 0; k < t->island_count; k++) {
        am_bind_island *I = &r->islands[k];
        I->vertex_count = t->island_vertex_count[k];
        I->triangle_count = t->island_triangle_count[k];
        I->first_vertex = t->welded_first[w->island_verts[w->island_vert_start[k]]];
        I->closed = t->island_closed[k];
        I->bones_held = w->island_bone_start[k + 1] - w->island_bone_start[k];
        I->rigid_joint = -1;
        I->empty_major_first_try = -1;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t i = w->island_vert_start[k]; i < w->island_vert_start[k + 1]; i++) {
            const float *p = &w->mesh->positions[3 * t->welded_first[w->island_verts[i]]];
            for (int c = 0; c < 3; c++) {
                lo[c] = fmin(lo[c], p[c]);
                hi[c] = fmax(hi[c], p[c]);
            }
        }
        I->min = am_v3(lo[0], lo[1], lo[2]);
        I->max = am_v3(hi[0], hi[1], hi[2]);
        if (I->bones_held > 0) {
            I->route = w->opt.method == AM_BIND_SEGMENT ? AM_ROUTE_SEGMENT : AM_ROUTE_HEAT;
            w->island_solve[k] = true;
            char names[160];
            island_bone_names(w, k, names, sizeof names);
            if (!am_string_setf(&I->why, "holds %s", names))
                return false;
        } else {
            I->route = AM_ROUTE_RIGID;
        }
    }
    return true;
}

/* Rigid islands and loose vertices: one bone at 1.0. False when out of memory. */
static bool bind_rigid(work *w)
{
    const am_topology *t = &w->topo;
    for (size_t k = 0; k < t->island_count; k++) {
        am_bind_island *I = &w->res->islands[k];
        if (I->route != AM_ROUTE_RIGID)
            continue;
        const uint32_t *verts = &w->island_verts[w->island_vert_start[k]];
        size_t n = w->island_vert_start[k + 1] - w->island_vert_start[k];
        bool visible;
        double d;
        int b = am_bind_nearest_visible_bone(&w->prob, verts, n, &visible, &d);
        I->rigid_joint = w->bones[b].joint;
        for (size_t i = 0; i < n; i++)
            am_bind_candidates_add(&w->cand[verts[i]], I->rigid_joint, 1.0f);
        if (!am_string_setf(&I->why, "%s no bone: rigid to %s (%s, %.1f cm away)",
                            I->triangle_count ? "holds" : "loose vertex in no triangle, holds",
                            am_str(&w->skel->joints[I->rigid_joint].name),
                            visible ? "nearest visible" : "nearest; none visible", d * w->res->height_m * 100.0))
            return false;
    }
    return true;
}

/* After a solve: unweighted vertices and empty major bones of an island. */
static am_status check_island(work *w, size_t k, size_t *unweighted, int *empty_major, am_error *err)
{
    const uint32_t *verts = &w->island_verts[w->island_vert_start[k]];
    size_t n = w->island_vert_start[k + 1] - w->island_vert_start[k];
    *unweighted = 0;
    *empty_major = -1;
    size_t nb = w->skel->joint_count;
    double *sum = calloc(nb, sizeof *sum);
    for (size_t i = 0; i < n; i++) {
        const bind_candidates *c = &w->cand[verts[i]];
        double total = 0;
        for (int q = 0; q < c->count; q++) {
            total += c->weight[q];
            if (sum)
                sum[c->joint[q]] += c->weight[q];
        }
        *unweighted += total < 1e-4;
    }
    bool *weighted = sum ? malloc(nb * sizeof *weighted) : NULL;
    float *pos = weighted ? malloc(3 * (n ? n : 1) * sizeof *pos) : NULL;
    int *main_joint = pos ? malloc((n ? n : 1) * sizeof *main_joint) : NULL;
    for (size_t j = 0; main_joint && j < nb; j++)
        weighted[j] = sum[j] > 0;
    for (size_t i = 0; main_joint && i < n; i++) {
        memcpy(&pos[3 * i], &w->mesh->positions[3 * w->topo.welded_first[verts[i]]], 3 * sizeof *pos);
        const bind_candidates *c = &w->cand[verts[i]];
        main_joint[i] = c->count ? c->joint[0] : -1; /* candidates are sorted, largest first */
    }
    for (uint32_t b = w->island_bone_start[k]; main_joint && b < w->island_bone_start[k + 1] && *empty_major < 0; b++) {
        uint32_t j = w->island_bones[b];
        const bind_bone *bb = &w->bones[j];
        double len = sqrt(pow(bb->b[0] - bb->a[0], 2) + pow(bb->b[1] - bb->a[1], 2) + pow(bb->b[2] - bb->a[2], 2));
        if (len >= AM_BIND_MAJOR_BONE && !am_bind_joint_is_minor_kind(am_str(&w->skel->joints[j].name)) &&
            sum[j] <= 0 &&
            am_bind_bone_is_empty(w->skel, j, pos, n, main_joint, weighted, w->res->height_m))
            *empty_major = (int)j;
    }
    bool complete = main_joint != NULL;
    free(main_joint);
    free(pos);
    free(weighted);
    free(sum);
    return complete ? AM_OK : am_fail_nomem(err, "island check");
}

static void clear_island(work *w, size_t k)
{
    for (size_t i = w->island_vert_start[k]; i < w->island_vert_start[k + 1]; i++)
        w->cand[w->island_verts[i]].count = 0;
}

static am_status fallback(work *w, size_t k, const char *reason, am_error *err)
{
    am_bind_island *I = &w->res->islands[k];
    const uint32_t *verts = &w->island_verts[w->island_vert_start[k]];
    size_t n = w->island_vert_start[k + 1] - w->island_vert_start[k];
    clear_island(w, k);
    char why[160] = "";
    bool ok = false;
    if (!w->opt.no_proxy) {
        double t0 = am_clock_wall_s();
        am_status s = am_bind_proxy(&w->prob, (uint32_t)k, verts, n, w->opt.proxy_resolution, w->cand, &ok, why,
                                    sizeof why, err);
        w->res->seconds_proxy += am_clock_wall_s() - t0;
        if (s)
            return s;
    } else {
        snprintf(why, sizeof why, "the proxy fallback is off");
    }
    if (ok) {
        I->route = AM_ROUTE_PROXY;
        if (!am_string_setf(&I->why, "%s: bound on a voxel proxy (%s)", reason, why))
            return am_fail_nomem(err, "island route");
        return AM_OK;
    }
    clear_island(w, k);
    /* The segment method never leaves a vertex without its nearest segments. */
    bind_problem one = w->prob;
    bool *only = calloc(w->topo.island_count + 1, sizeof *only);
    if (!only)
        return am_fail_nomem(err, "fallback");
    only[k] = true;
    one.island_solve = only;
    am_bind_segment(&one, w->cand);
    free(only);
    I->route = AM_ROUTE_SEGMENT_FALLBACK;
    if (!am_string_setf(&I->why, "%s; proxy failed (%s): distance to segments", reason, why))
        return am_fail_nomem(err, "island route");
    return AM_OK;
}

static am_status solve(work *w, am_error *err)
{
    am_bind_result *r = w->res;
    size_t ni = w->topo.island_count;
    bool *failed = calloc(ni + 1, sizeof *failed);
    if (!failed)
        return am_fail_nomem(err, "solve");
    am_status s = AM_OK;
    if (w->opt.force_proxy) {
        for (size_t k = 0; k < ni; k++)
            failed[k] = w->island_solve[k];
    } else if (w->opt.method == AM_BIND_HEAT) {
        bind_heat_stats st;
        s = am_bind_heat(&w->prob, w->heat_start, w->cand, failed, &st, err);
        r->solve_vertices = st.unknowns;
        r->factor_nonzeros = st.factor_nonzeros;
        r->factorisations = st.factorisations;
        r->seconds_visibility = st.seconds_visibility;
        r->seconds_factor = st.seconds_factor;
        r->seconds_solve = st.seconds_solve;
    } else {
        double t0 = am_clock_wall_s();
        am_bind_segment(&w->prob, w->cand);
        r->seconds_solve = am_clock_wall_s() - t0;
    }
    for (size_t k = 0; k < ni && !s; k++) {
        if (!w->island_solve[k])
            continue;
        am_bind_island *I = &r->islands[k];
        if (failed[k]) {
            s = fallback(w, k, w->opt.force_proxy ? "proxy forced" : "no vertex sees a bone it holds (the heat system is singular)", err);
            continue;
        }
        if ((s = check_island(w, k, &I->unweighted_first_try, &I->empty_major_first_try, err)))
            break;
        if (I->unweighted_first_try > 0 || I->empty_major_first_try >= 0) {
            char reason[160];
            if (I->unweighted_first_try > 0)
                snprintf(reason, sizeof reason, "%s left %zu vertices unweighted", am_bind_method_name(w->opt.method),
                         I->unweighted_first_try);
            else
                snprintf(reason, sizeof reason, "%s gave the major bone %s no weight (empty_major)",
                         am_bind_method_name(w->opt.method), am_str(&w->skel->joints[I->empty_major_first_try].name));
            s = fallback(w, k, reason, err);
        }
    }
    free(failed);
    return s;
}

/* Clean every vertex and write the result per input vertex. */
static am_status finish(work *w, am_error *err)
{
    am_bind_result *r = w->res;
    const am_topology *t = &w->topo;
    size_t nw = t->welded_count, nj = w->skel->joint_count;
    int *side = malloc(nj * sizeof *side);
    uint8_t *wc = malloc(nw ? nw : 1);
    uint16_t *wj = malloc((nw ? nw : 1) * 4 * sizeof *wj);
    double *ww = malloc((nw ? nw : 1) * 4 * sizeof *ww);
    if (!side || !wc || !wj || !ww) {
        free(side);
        free(wc);
        free(wj);
        free(ww);
        return am_fail_nomem(err, "influences");
    }
    for (size_t j = 0; j < nj; j++)
        side[j] = am_bind_joint_side(am_str(&w->skel->joints[j].name));
    bind_influence_options io = {w->opt.min_weight, w->opt.max_influences, !w->opt.no_side_hygiene, 0.01 * r->height_m};
    size_t refilled = 0;
    for (size_t v = 0; v < nw; v++) {
        double y = w->mesh->positions[3 * t->welded_first[v] + 1];
        int n = am_bind_influence_clean(&w->cand[v], y, side, &io, &wj[4 * v], &ww[4 * v]);
        if (n == 0 && w->cand[v].count > 0) {
            /* Hygiene removed every weight: the nearest bone not on the other side. */
            double best = INFINITY;
            int bj = -1;
            for (size_t j = 0; j < nj; j++) {
                if (side[j] != 0 && (side[j] > 0 ? y < -io.midline_band_m : y > io.midline_band_m))
                    continue;
                float c[3];
                double d = am_bind_segment_closest(w->bones[j].a, w->bones[j].b, &w->pos[3 * v], c);
                if (d < best) {
                    best = d;
                    bj = (int)j;
                }
            }
            if (bj >= 0) {
                wj[4 * v] = (uint16_t)bj;
                ww[4 * v] = 1.0;
                n = 1;
                refilled++;
            }
        }
        wc[v] = (uint8_t)n;
        r->unweighted += n == 0;
    }
    if (refilled)
        warn(r, "%zu vertices held only weights of bones from the other side of the midline: given their nearest "
                "bone on their own side",
             refilled);
    size_t n = w->mesh->vertex_count;
    r->count = malloc(n);
    r->joint = calloc(4 * n, sizeof *r->joint);
    r->weight = calloc(4 * n, sizeof *r->weight);
    if (!r->count || !r->joint || !r->weight) {
        free(side);
        free(wc);
        free(wj);
        free(ww);
        return am_fail_nomem(err, "bind result");
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t v = t->weld[i];
        r->count[i] = wc[v];
        for (int k = 0; k < wc[v]; k++) {
            r->joint[4 * i + k] = wj[4 * v + k];
            r->weight[4 * i + k] = ww[4 * v + k];
            r->joint_weight_sum[wj[4 * v + k]] += ww[4 * v + k];
        }
    }
    free(side);
    free(wc);
    free(wj);
    free(ww);
    return AM_OK;
}

/* The stages every call shares: topology, normalised geometry, the ray scene, holds. With
 * begin_heat, the heat system is begun between the geometry and the ray scene. */
static am_status prepare(work *w, bool begin_heat, am_error *err)
{
    am_status s = am_topology_build(w->mesh->positions, w->mesh->vertex_count, w->mesh->triangles,
                                    w->mesh->triangle_count, &w->topo, err);
    if (s)
        return s;
    if (w->topo.triangle_count == 0)
        return am_fail(err, AM_ERR_INVALID, "every one of the %zu triangles is degenerate (repeated corners or no area)",
                       w->mesh->triangle_count);
    if ((s = prepare_geometry(w, err)))
        return s;
    if (begin_heat)
        w->heat_start = am_bind_heat_begin(w->pos, w->topo.welded_count, w->tris, w->topo.triangle_count,
                                           w->topo.island, w->topo.island_triangle_count, w->opt.threads);
    if ((s = am_bind_vis_build(w->pos, w->topo.welded_count, w->tris, w->topo.triangle_count, w->tri_island,
                               w->opt.threads, &w->vis, err)))
        return s;
    return find_held(w, err);
}

void am_bind_holds_free(am_bind_holds *h)
{
    if (!h)
        return;
    free(h->vertex_island);
    free(h->island_vertices);
    free(h->island_has_faces);
    free(h->held);
    free(h->joint_held);
    memset(h, 0, sizeof *h);
}

am_status am_bind_holds_compute(const am_bind_mesh *mesh, const am_bind_skeleton *skel, am_bind_holds *out,
                                am_error *err)
{
    memset(out, 0, sizeof *out);
    am_status s = check_input(mesh, skel, err);
    if (s)
        return s;
    work w;
    memset(&w, 0, sizeof w);
    am_bind_result scratch;
    memset(&scratch, 0, sizeof scratch);
    w.mesh = mesh;
    w.skel = skel;
    am_bind_options_init(&w.opt);
    w.res = &scratch;
    scratch.joint_held = calloc(skel->joint_count, sizeof *scratch.joint_held);
    if (!scratch.joint_held) {
        free_work(&w);
        return am_fail_nomem(err, "holds");
    }
    if ((s = prepare(&w, false, err)))
        goto done;
    size_t ni = w.topo.island_count, nj = skel->joint_count;
    out->island_count = ni;
    out->joint_count = nj;
    out->vertex_island = malloc(mesh->vertex_count * sizeof *out->vertex_island);
    out->island_vertices = calloc(ni + 1, sizeof *out->island_vertices);
    out->island_has_faces = malloc((ni + 1) * sizeof *out->island_has_faces);
    out->held = calloc(ni * nj + 1, sizeof *out->held);
    out->joint_held = scratch.joint_held;
    scratch.joint_held = NULL;
    if (!out->vertex_island || !out->island_vertices || !out->island_has_faces || !out->held) {
        s = am_fail_nomem(err, "holds");
        goto done;
    }
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        out->vertex_island[v] = w.topo.island[w.topo.weld[v]];
        out->island_vertices[out->vertex_island[v]]++;
    }
    for (size_t k = 0; k < ni; k++) {
        out->island_has_faces[k] = w.topo.island_triangle_count[k] > 0;
        for (uint32_t b = w.island_bone_start[k]; b < w.island_bone_start[k + 1]; b++)
            out->held[k * nj + w.island_bones[b]] = true;
    }
done:
    free(scratch.joint_held);
    free_work(&w);
    if (s)
        am_bind_holds_free(out);
    return s;
}

/* Defaults and AM_OPTION_ZERO turned into values, once, as am_bind begins. */
static void resolve_options(am_bind_options *o)
{
    o->min_weight = am_option_real(o->min_weight, 0.01);
    if (o->max_influences == 0)
        o->max_influences = 4;
    if (o->proxy_resolution == 0)
        o->proxy_resolution = 112;
}

am_status am_bind(const am_bind_mesh *mesh, const am_bind_skeleton *skel, const am_bind_options *opts,
                  am_bind_result *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    am_status s = check_input(mesh, skel, err);
    if (s)
        return s;
    double t0 = am_clock_wall_s();
    work w;
    memset(&w, 0, sizeof w);
    w.mesh = mesh;
    w.skel = skel;
    if (opts)
        w.opt = *opts;
    else
        am_bind_options_init(&w.opt);
    resolve_options(&w.opt);
    w.res = out;
    out->vertex_count = mesh->vertex_count;
    out->joint_count = skel->joint_count;
    out->method = w.opt.method;
    out->joint_weight_sum = calloc(skel->joint_count, sizeof *out->joint_weight_sum);
    out->joint_held = calloc(skel->joint_count, sizeof *out->joint_held);
    if (!out->joint_weight_sum || !out->joint_held) {
        s = am_fail_nomem(err, "bind result");
        goto done;
    }
    s = prepare(&w, w.opt.method == AM_BIND_HEAT && !w.opt.force_proxy, err);
    am_topology *t = &w.topo;
    out->welded_vertices = t->welded_count;
    out->degenerate_faces = t->degenerate_faces;
    out->non_manifold_edges = t->non_manifold_edges;
    out->boundary_edges = t->boundary_edges;
    out->loose_vertices = t->loose_vertices;
    if (s)
        goto done;
    if (t->non_manifold_edges)
        warn(out, "%zu non-manifold edges (three or more faces): bound, but check the weights there",
             t->non_manifold_edges);
    if (t->degenerate_faces)
        warn(out, "%zu degenerate faces (repeated corner or no area) left out of the solve", t->degenerate_faces);
    out->seconds_topology = am_clock_wall_s() - t0;
    out->island_count = t->island_count;
    out->islands = calloc(t->island_count, sizeof *out->islands);
    w.island_solve = calloc(t->island_count + 1, sizeof *w.island_solve);
    w.cand = calloc(t->welded_count, sizeof *w.cand);
    if (!out->islands || !w.island_solve || !w.cand) {
        s = am_fail_nomem(err, "islands");
        goto done;
    }
    {
        /* one warning naming the joints no island holds */
        char names[160] = "";
        size_t outside = 0, len = 0;
        for (size_t j = 0; j < skel->joint_count; j++) {
            if (out->joint_held[j])
                continue;
            if (len + skel->joints[j].name.length + 3 < sizeof names - 16)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", outside ? ", " : "",
                                        am_str(&skel->joints[j].name));
            else if (!strstr(names, "..."))
                len += (size_t)snprintf(names + len, sizeof names - len, ", ...");
            outside++;
        }
        if (outside == 1)
            warn(out, "joint %s: its bone lies outside every island: it gets no weight", names);
        else if (outside > 1)
            warn(out, "%zu joints' bones lie outside every island and get no weight: %s", outside, names);
    }
    if (!plan_routes(&w)) {
        s = am_fail_nomem(err, "island routes");
        goto done;
    }
    w.prob = (bind_problem){w.pos, w.normal, t->welded_count, w.tris, t->triangle_count, t->island, w.tri_island,
                            w.bones, skel->joint_count, w.island_bone_start, w.island_bones, w.island_solve,
                            t->island_count, w.vis, w.opt.threads, skel->joint_count};
    if (!bind_rigid(&w)) {
        s = am_fail_nomem(err, "island routes");
        goto done;
    }
    if ((s = solve(&w, err)))
        goto done;
    s = finish(&w, err);
done:
    free_work(&w);
    if (s)
        am_bind_result_free(out);
    else
        out->seconds_total = am_clock_wall_s() - t0;
    return s;
}

void am_bind_preload(const am_bind_options *opts)
{
    am_bind_options o;
    if (opts)
        o = *opts;
    else
        am_bind_options_init(&o);
    am_error ignored;
    am_error_clear(&ignored);
    am_embree_api rtc; /* every method casts rays (the holds) */
    (void)am_embree_open(&rtc, &ignored); /* kept loaded: the scene's open finds it */
    if (o.method != AM_BIND_HEAT)
        return; /* the segment method solves nothing */
    am_cholmod_api chol;
    (void)am_cholmod_open(&chol, o.threads, &ignored);
}
