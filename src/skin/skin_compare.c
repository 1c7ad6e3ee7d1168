/* Joint-by-joint comparison of two skin blocks (docs/reference/lessons.md#rule-2) and the override test
 * of docs/reference/mesh-asset.md#joint-position-overrides. */
#include "skin/skin_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int am_skin_alt_override(const am_mesh_skin *skin, size_t j, const am_skeleton *skel, am_vec3 *translation,
                         am_vec3 *default_pos)
{
    if (!skin->alt_inverse_bind || j >= skin->joint_count)
        return -1;
    size_t alt_n = skin->alt_count ? skin->alt_count : skin->joint_count;
    if (j >= alt_n)
        return -1;
    am_vec3 t = am_mat4_get_translation(&skin->alt_inverse_bind[j]);
    if (translation)
        *translation = t;
    if (!skel)
        return -1;
    int idx = am_skeleton_find(skel, skin->joint_names[j]);
    if (idx < 0)
        return -1;
    am_vec3 d = skel->joints[idx].pos;
    if (default_pos)
        *default_pos = d;
    /* LLJoint::aboveJointPosThreshold: squared distance against (1e-4)^2, in F32 */
    float dx = (float)t.x - (float)d.x, dy = (float)t.y - (float)d.y, dz = (float)t.z - (float)d.z;
    float th = (float)AM_JOINT_POS_THRESHOLD;
    return dx * dx + dy * dy + dz * dz > th * th ? 1 : 0;
}

static const char *canonical(const am_skeleton *skel, const char *name)
{
    if (!skel)
        return name;
    int idx = am_skeleton_find(skel, name);
    return idx >= 0 ? skel->joints[idx].name : name;
}

static double max_diff(const am_mat4 *a, const am_mat4 *b, int from, int to, int *where)
{
    double worst = 0;
    *where = from;
    for (int i = from; i < to; i++) {
        double d = fabs(a->m[i] - b->m[i]);
        if (isnan(d))
            d = INFINITY;
        if (d > worst) {
            worst = d;
            *where = i;
        }
    }
    return worst;
}

static am_status push_name(char ***list, size_t *n, const char *name, am_error *err)
{
    char **l = realloc(*list, (*n + 1) * sizeof *l);
    if (!l)
        return am_fail_nomem(err, "skin comparison");
    *list = l;
    if (!(l[*n] = strdup(name)))
        return am_fail_nomem(err, "skin comparison");
    (*n)++;
    return AM_OK;
}

static size_t alt_len(const am_mesh_skin *s)
{
    if (!s->alt_inverse_bind)
        return 0;
    return s->alt_count ? s->alt_count : s->joint_count;
}

/* A joint's canonical name and its index in the skin. */
typedef struct named {
    const char *name;
    size_t index;
} named;

static int by_name(const void *x, const void *y)
{
    return strcmp(((const named *)x)->name, ((const named *)y)->name);
}

/* Each joint's canonical name, sorted, so matching takes log n per joint (a reference may
 * list thousands); a name listed twice cannot be matched and is an error naming both. */
static am_status index_names(const am_mesh_skin *s, const am_skeleton *skel, const char *side, named **out,
                             am_error *err)
{
    named *v = malloc((s->joint_count ? s->joint_count : 1) * sizeof *v);
    if (!v)
        return am_fail_nomem(err, "skin comparison");
    for (size_t i = 0; i < s->joint_count; i++)
        v[i] = (named){canonical(skel, s->joint_names[i]), i};
    qsort(v, s->joint_count, sizeof *v, by_name);
    for (size_t i = 1; i < s->joint_count; i++)
        if (strcmp(v[i - 1].name, v[i].name) == 0) {
            size_t lo = v[i - 1].index < v[i].index ? v[i - 1].index : v[i].index;
            size_t hi = v[i - 1].index < v[i].index ? v[i].index : v[i - 1].index;
            am_status st = am_fail(err, AM_ERR_INVALID,
                                   "%s: joint '%s' is listed twice (joint_names[%zu] and [%zu]): joints are "
                                   "compared by name, so each may be named once",
                                   side, v[i].name, lo, hi);
            free(v);
            return st;
        }
    *out = v;
    return AM_OK;
}

static const named *lookup(const named *v, size_t n, const char *name)
{
    named key = {name, 0};
    return n ? bsearch(&key, v, n, sizeof *v, by_name) : NULL;
}

am_status am_skin_compare(const am_mesh_skin *a, const am_mesh_skin *b, const am_skin_compare_options *opt,
                          am_skin_comparison *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    const am_skeleton *skel = opt ? opt->skel : NULL;
    out->tol = opt && opt->tol > 0 ? opt->tol : AM_SKIN_COMPARE_DEFAULT_TOL;
    out->alt_a = a->alt_inverse_bind != NULL;
    out->alt_b = b->alt_inverse_bind != NULL;
    named *na = NULL, *nb = NULL;
    am_status s = index_names(a, skel, "A", &na, err);
    if (!s)
        s = index_names(b, skel, "B", &nb, err);
    if (!s && a->joint_count && !(out->joints = calloc(a->joint_count, sizeof *out->joints)))
        s = am_fail_nomem(err, "skin comparison");
    for (size_t i = 0; i < a->joint_count && !s; i++) {
        const char *ca = canonical(skel, a->joint_names[i]);
        const named *hit = lookup(nb, b->joint_count, ca);
        if (!hit) {
            s = push_name(&out->only_a, &out->only_a_count, ca, err);
            continue;
        }
        size_t j = hit->index;
        am_skin_joint_diff *d = &out->joints[out->count++];
        snprintf(d->name, sizeof d->name, "%s", ca);
        d->index_a = i;
        d->index_b = j;
        d->ibm_diff = max_diff(&a->inverse_bind[i], &b->inverse_bind[j], 0, 16, &d->ibm_element);
        if (i < alt_len(a) && j < alt_len(b)) {
            d->alt_compared = true;
            bool t_only = opt && opt->alt_translation_only;
            d->alt_diff = max_diff(&a->alt_inverse_bind[i], &b->alt_inverse_bind[j], t_only ? 12 : 0, t_only ? 15 : 16,
                                   &d->alt_element);
        }
        d->fail = !(d->ibm_diff <= out->tol) || (d->alt_compared && !(d->alt_diff <= out->tol));
        if (d->fail)
            out->failures++;
        if (d->ibm_diff > out->worst)
            out->worst = d->ibm_diff;
        if (d->alt_compared && d->alt_diff > out->worst)
            out->worst = d->alt_diff;
    }
    for (size_t j = 0; j < b->joint_count && !s; j++) {
        const char *cb = canonical(skel, b->joint_names[j]);
        if (!lookup(na, a->joint_count, cb))
            s = push_name(&out->only_b, &out->only_b_count, cb, err);
    }
    free(na);
    free(nb);
    if (s) {
        am_skin_comparison_free(out);
        return s;
    }
    out->ok = out->failures == 0 && out->count > 0 && (out->alt_a == out->alt_b || (opt && opt->allow_missing_alt)) &&
              !(opt && opt->strict && (out->only_a_count || out->only_b_count));
    return AM_OK;
}

void am_skin_comparison_free(am_skin_comparison *c)
{
    if (!c)
        return;
    free(c->joints);
    for (size_t i = 0; i < c->only_a_count; i++)
        free(c->only_a[i]);
    for (size_t i = 0; i < c->only_b_count; i++)
        free(c->only_b[i]);
    free(c->only_a);
    free(c->only_b);
    memset(c, 0, sizeof *c);
}
