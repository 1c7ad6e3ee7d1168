/* Distances to bone segments: the clamped projection, the `segment` method (Shepard
 * inverse distance, exponent 1, to the nearest segments) and the nearest visible bone of
 * a vertex set (rigid islands, loose vertices). bind_internal.h. */
#include <math.h>
#include <string.h>

#include "bind/bind_internal.h"

double am_bind_segment_closest(const float a[3], const float b[3], const float p[3], float out[3])
{
    double ab[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
    double ap[3] = {(double)p[0] - a[0], (double)p[1] - a[1], (double)p[2] - a[2]};
    double len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    double t = len2 > 0 ? (ab[0] * ap[0] + ab[1] * ap[1] + ab[2] * ap[2]) / len2 : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double c[3] = {a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]};
    for (int k = 0; k < 3; k++)
        out[k] = (float)c[k];
    double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

void am_bind_candidates_add(bind_candidates *c, int joint, float w)
{
    if (!(w > 0))
        return;
    /* The same joint twice (two bones of one joint, or a proxy blend): add up. */
    for (int k = 0; k < c->count; k++)
        if (c->joint[k] == joint) {
            w += c->weight[k];
            memmove(&c->joint[k], &c->joint[k + 1], (size_t)(c->count - k - 1) * sizeof c->joint[0]);
            memmove(&c->weight[k], &c->weight[k + 1], (size_t)(c->count - k - 1) * sizeof c->weight[0]);
            c->count--;
            break;
        }
    int at = c->count;
    while (at > 0 && c->weight[at - 1] < w)
        at--;
    if (at >= BIND_CANDIDATES)
        return;
    int last = c->count < BIND_CANDIDATES ? c->count : BIND_CANDIDATES - 1;
    memmove(&c->joint[at + 1], &c->joint[at], (size_t)(last - at) * sizeof c->joint[0]);
    memmove(&c->weight[at + 1], &c->weight[at], (size_t)(last - at) * sizeof c->weight[0]);
    c->joint[at] = (uint16_t)joint;
    c->weight[at] = w;
    if (c->count < BIND_CANDIDATES)
        c->count++;
}

#define SHEPARD_KEEP 5
#define SHEPARD_MIN_DISTANCE 1e-6

void am_bind_segment(const bind_problem *p, bind_candidates *cand)
{
    for (size_t v = 0; v < p->vertex_count; v++) {
        uint32_t isl = p->vertex_island[v];
        if (!p->island_solve[isl])
            continue;
        const uint32_t *held = &p->island_bones[p->island_bone_start[isl]];
        size_t nh = p->island_bone_start[isl + 1] - p->island_bone_start[isl];
        /* The SHEPARD_KEEP nearest segments (insertion into a short sorted list). */
        double best_d[SHEPARD_KEEP];
        int best_j[SHEPARD_KEEP], nb = 0;
        for (size_t k = 0; k < nh; k++) {
            float c[3];
            const bind_bone *b = &p->bones[held[k]];
            double d = am_bind_segment_closest(b->a, b->b, &p->pos[3 * v], c);
            int at = nb;
            while (at > 0 && best_d[at - 1] > d)
                at--;
            if (at >= SHEPARD_KEEP)
                continue;
            int last = nb < SHEPARD_KEEP ? nb : SHEPARD_KEEP - 1;
            for (int q = last; q > at; q--) {
                best_d[q] = best_d[q - 1];
                best_j[q] = best_j[q - 1];
            }
            best_d[at] = d;
            best_j[at] = b->joint;
            if (nb < SHEPARD_KEEP)
                nb++;
        }
        double sum = 0;
        for (int q = 0; q < nb; q++)
            sum += 1.0 / fmax(best_d[q], SHEPARD_MIN_DISTANCE);
        for (int q = 0; q < nb; q++)
            am_bind_candidates_add(&cand[v], best_j[q], (float)(1.0 / fmax(best_d[q], SHEPARD_MIN_DISTANCE) / sum));
    }
}

int am_bind_nearest_visible_bone(const bind_problem *p, const uint32_t *verts, size_t n, bool *visible,
                                 double *distance)
{
    int best = -1, best_any = -1;
    double best_d = INFINITY, best_any_d = INFINITY;
    for (size_t b = 0; b < p->bone_count; b++) {
        const bind_bone *bb = &p->bones[b];
        for (size_t i = 0; i < n; i++) {
            float c[3];
            const float *x = &p->pos[3 * verts[i]];
            double d = am_bind_segment_closest(bb->a, bb->b, x, c);
            if (d < best_any_d) {
                best_any_d = d;
                best_any = (int)b;
            }
            if (d < best_d && (!p->vis || am_bind_vis_clear(p->vis, x, c))) {
                best_d = d;
                best = (int)b;
            }
        }
    }
    *visible = best >= 0;
    *distance = best >= 0 ? best_d : best_any_d;
    return best >= 0 ? best : best_any;
}
