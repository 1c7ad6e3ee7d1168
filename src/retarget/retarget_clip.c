/* One clip -> one motion: sampling at the clip's keys and between them, the local delta
 * keys, position keys, rest corrections, the loop decision and the warnings (retarget.h
 * gives the formula). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retarget/retarget_internal.h"

typedef struct sample {
    double t;    /* clip time */
    am_quat *dr; /* per mapped joint: world delta rotation, viewer frame */
    am_vec3 *p;  /* per mapped joint: position, viewer bind frame */
} sample;

typedef struct work {
    am_rt *c;
    double quantum;  /* one .anim time code: samples closer than a few of them would share one */
    const am_scene_clip *clip;
    am_scene_trs *trs;
    am_mat4 *local, *world;
    sample *smp;
    size_t ns, cap;
    bool *need_pos;
    size_t evals;
    am_vec3 travel;  /* --in-place: the top joint's horizontal travel, first key to last */
} work;

static void free_sample(sample *s)
{
    free(s->dr);
    free(s->p);
}

/* The scene at clip time t: worlds, then each mapped joint's delta and position. */
static am_status eval(work *w, double t, sample *out, am_error *err)
{
    am_rt *c = w->c;
    out->t = t;
    out->dr = malloc(c->nm * sizeof *out->dr);
    out->p = malloc(c->nm * sizeof *out->p);
    if (!out->dr || !out->p) {
        free_sample(out);
        return am_fail_nomem(err, "samples");
    }
    am_scene_eval_clip(c->s, w->clip, t, w->trs, w->local);
    am_scene_world_from_local(c->s, w->local, w->world);
    w->evals++;
    for (size_t m = 0; m < c->nm; m++) {
        am_mat4 wv = am_mat4_mul(&w->world[c->m_node[m]], &c->A);
        am_mat4 d = am_mat4_mul(&c->m_bindv_inv[m], &wv);
        am_vec3 tt, sc;
        am_scene_decompose(&d, &tt, &out->dr[m], &sc);
        out->p[m] = am_mat4_get_translation(&wv);
    }
    return AM_OK;
}

/* The viewer world rotation of mapped joint m at a sample: dR_j, or with
 * follow_directions dR_j (x) Al_J. */
static am_quat world_rot(const am_rt *c, const sample *s, int m)
{
    if (m < 0)
        return am_quat_identity();
    if (!c->follow)
        return s->dr[m];
    am_quat q = am_quat_mul(s->dr[m], c->m_align[m]);
    int k = c->m_child[m];
    if (k >= 0) { /* one child bone: swung onto where the source's bone points now (unmapped
                     source joints between the two turn it too), the twist kept */
        am_vec3 u = am_quat_rotate(q, am_v3_sub(c->vbind[c->m_joint[k]], c->vbind[c->m_joint[m]]));
        am_vec3 d = am_v3_sub(s->p[k], s->p[m]);
        if (am_v3_len(u) > 1e-9 && am_v3_len(d) > 1e-9)
            q = am_quat_normalize(am_quat_mul(am_retarget_shortest_arc(am_v3_normalize(u), am_v3_normalize(d)), q));
    }
    return q;
}

/* key_J = W_a^-1 (x) W_j, a the nearest mapped viewer ancestor */
static am_quat key_rot(const am_rt *c, const sample *s, size_t m)
{
    int a = c->m_anc[m];
    am_quat q = am_quat_mul(am_quat_conj(world_rot(c, s, a)), world_rot(c, s, (int)m));
    return am_quat_normalize(q);
}

/* Its local position at rest (what the viewer uses without a key). */
static am_vec3 rest_pos(const am_rt *c, size_t m);

/* The local position joint m has in the viewer at this sample: its place relative to its
 * viewer parent P, in P's frame (P's world = the nearest mapped ancestor's, carried). */
static am_vec3 key_pos_of(const am_rt *c, const work *w, const sample *s, size_t m)
{
    if (c->follow) { /* the rest, plus the source's displacement scaled by leg length */
        am_vec3 d = am_v3_sub(s->p[m], c->m_bind[m]);
        if (w && w->clip->end_s > w->clip->start_s) {
            double f = (s->t - w->clip->start_s) / (w->clip->end_s - w->clip->start_s);
            d = am_v3_sub(d, am_v3_scale(w->travel, f));
        }
        return am_v3_add(rest_pos(c, m), am_v3_scale(d, c->leg_ratio));
    }
    int J = c->m_joint[m], P = am_skeleton_parent(c->skel, J), a = c->m_anc[m];
    am_quat R = am_quat_identity();
    am_vec3 x = P >= 0 ? c->vbind[P] : c->root_bind;
    if (a >= 0) {
        R = s->dr[a];
        x = am_v3_add(s->p[a], am_quat_rotate(R, am_v3_sub(c->vbind[P], c->vbind[c->m_joint[a]])));
    }
    return am_quat_rotate(am_quat_conj(R), am_v3_sub(s->p[m], x));
}

static am_vec3 rest_pos(const am_rt *c, size_t m)
{
    int J = c->m_joint[m], P = am_skeleton_parent(c->skel, J);
    return am_v3_sub(c->vbind[J], P >= 0 ? c->vbind[P] : c->root_bind);
}

/* How far the viewer's interpolation between samples a and b misses sample u. */
static void miss(const work *w, sample a, sample b, const sample *u, double f, double *rot, double *pos)
{
    const am_rt *c = w->c;
    *rot = *pos = 0;
    for (size_t m = 0; m < c->nm; m++) {
        am_quat qi = am_quat_nlerp_viewer(f, key_rot(c, &a, m), key_rot(c, &b, m));
        *rot = fmax(*rot, am_quat_angle_between(qi, key_rot(c, u, m)));
        if (w->need_pos[m]) {
            am_vec3 pi = am_v3_lerp(key_pos_of(c, w, &a, m), key_pos_of(c, w, &b, m), f);
            *pos = fmax(*pos, am_v3_dist(pi, key_pos_of(c, w, u, m)));
        }
    }
}

/* Append a sample (the list owns its arrays from then on). */
static am_status push(work *w, sample s, am_error *err)
{
    if (w->ns == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        sample *n = realloc(w->smp, cap * sizeof *n);
        if (!n) {
            free_sample(&s);
            return am_fail_nomem(err, "samples");
        }
        w->smp = n;
        w->cap = cap;
    }
    w->smp[w->ns++] = s;
    return AM_OK;
}

/* Samples strictly between a and b where the viewer would miss the clip, appended in
 * order. Samples are passed by value: the list may move while it grows, their arrays do
 * not. */
static am_status refine(work *w, sample a, sample b, int depth, am_error *err)
{
    const am_rt *c = w->c;
    if (depth >= 8 || w->ns >= c->o->max_samples || b.t - a.t < 8 * w->quantum)
        return AM_OK;
    sample q[3];
    am_status st = AM_OK;
    size_t made = 0;
    double worst_r = 0, worst_p = 0;
    for (int i = 0; i < 3 && !st; i++) {
        double f = (i + 1) / 4.0;
        if (!(st = eval(w, a.t + f * (b.t - a.t), &q[i], err))) {
            made++;
            double r, p;
            miss(w, a, b, &q[i], f, &r, &p);
            worst_r = fmax(worst_r, r);
            worst_p = fmax(worst_p, p);
        }
    }
    if (!st && (worst_r > c->o->rot_tol_deg * AM_DEG2RAD || worst_p > c->pos_tol)) {
        sample mid = q[1];
        q[1] = (sample){0};
        st = refine(w, a, mid, depth + 1, err);
        if (st)
            free_sample(&mid);
        else if (!(st = push(w, mid, err)))
            st = refine(w, mid, b, depth + 1, err);
    }
    for (size_t i = 0; i < made; i++)
        free_sample(&q[i]);
    return st;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The clip's key interval: the median gap between its key times (a closing key goes one
 * interval after the last); 0 with fewer than two keys. */
static double key_interval(const double *t, size_t n)
{
    if (n < 2)
        return 0;
    double *g = malloc((n - 1) * sizeof *g);
    if (!g)
        return t[n - 1] - t[n - 2];
    for (size_t i = 0; i + 1 < n; i++)
        g[i] = t[i + 1] - t[i];
    qsort(g, n - 1, sizeof *g, cmp_double);
    double m = g[(n - 1) / 2];
    free(g);
    return m;
}

/* The clip's key times within its range (plus, before each STEP key, the moment before
 * the jump), sorted, without duplicates; *clip_keys counts the distinct key times alone. */
static size_t unique_in_range(double *t, size_t k, const am_scene_clip *clip, double quantum)
{
    qsort(t, k, sizeof *t, cmp_double);
    double eps = fmax(1e-6, 2 * quantum); /* keys within two time codes would collide */
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (t[i] < clip->start_s - eps || t[i] > clip->end_s + eps || (m && t[i] - t[m - 1] <= eps))
            continue;
        t[m++] = t[i];
    }
    return m;
}

static am_status key_times(const am_scene_clip *clip, double quantum, double **out, size_t *n, size_t *clip_keys,
                           am_error *err)
{
    size_t total = 1;
    for (size_t h = 0; h < clip->channel_count; h++)
        total += 2 * clip->channels[h].key_count;
    double *t = malloc(total * sizeof *t);
    if (!t)
        return am_fail_nomem(err, "key times");
    size_t k = 0;
    t[k++] = clip->start_s;
    for (size_t h = 0; h < clip->channel_count; h++)
        for (size_t i = 0; i < clip->channels[h].key_count; i++)
            t[k++] = clip->channels[h].times[i];
    k = unique_in_range(t, k, clip, quantum);
    *clip_keys = k;
    for (size_t h = 0; h < clip->channel_count; h++) {
        const am_scene_channel *ch = &clip->channels[h];
        for (size_t i = 1; ch->interp == AM_SCENE_INTERP_STEP && i < ch->key_count; i++) {
            double gap = ch->times[i] - ch->times[i - 1], before = fmax(4 * quantum, fmin(1e-3, gap / 100));
            if (before < gap / 2)
                t[k++] = ch->times[i] - before;
        }
    }
    *n = unique_in_range(t, k, clip, quantum);
    *out = t;
    return AM_OK;
}

static void decide_positions(work *w)
{
    const am_rt *c = w->c;
    for (size_t m = 0; m < c->nm; m++) {
        if (c->follow && c->m_anc[m] >= 0)
            continue; /* following directions: the hips alone move */
        am_vec3 rest = rest_pos(c, m);
        for (size_t i = 0; i < w->ns && !w->need_pos[m]; i++)
            w->need_pos[m] = am_v3_dist(key_pos_of(c, w, &w->smp[i], m), rest) > c->pos_tol;
    }
}

/* Scale keys: the viewer's animations have none. */
static void report_scale(am_rt *c, const am_scene_clip *clip)
{
    for (size_t h = 0; h < clip->channel_count; h++) {
        const am_scene_channel *ch = &clip->channels[h];
        if (ch->path != AM_SCENE_PATH_SCALE)
            continue;
        const am_scene_node *n = &c->s->nodes[ch->node];
        size_t stride = ch->interp == AM_SCENE_INTERP_CUBICSPLINE ? 9 : 3, at = stride == 9 ? 3 : 0;
        double worst = 0;
        double rest[3] = {n->scale.x, n->scale.y, n->scale.z};
        for (size_t k = 0; k < ch->key_count; k++)
            for (int i = 0; i < 3; i++)
                worst = fmax(worst, fabs(ch->values[k * stride + at + (size_t)i] / (rest[i] != 0 ? rest[i] : 1) - 1));
        char nn[128];
        if (worst > 1e-4)
            am_retarget_add_finding(
                c->r, AM_FINDING_WARNING,
                "clip '%s': scale keys on '%s' (up to %.1f %% from its rest scale) dropped: the viewer's "
                "animations carry no scale",
                clip->name, am_map_rig_name(c->s, ch->node, nn, sizeof nn), 100 * worst);
    }
}

/* Unmapped joints the clip moves: how far their vertices will be off, following their
 * nearest mapped ancestor instead. */
static am_status report_unmapped(work *w, am_error *err)
{
    am_rt *c = w->c;
    const am_scene *s = c->s;
    const am_retarget_result *r = c->r;
    if (c->skin < 0)
        return AM_OK;
    for (size_t i = 0; i < r->suggestion.count; i++) {
        const am_map_joint *mj = &r->suggestion.joints[i];
        if (mj->target >= 0 || mj->weight_to < 0 || !r->body.joints[i].weighted)
            continue;
        bool animated = false;
        for (int n = mj->node; n >= 0 && n != mj->weight_to && !animated; n = s->nodes[n].parent)
            for (size_t h = 0; h < w->clip->channel_count && !animated; h++)
                animated = w->clip->channels[h].node == n && w->clip->channels[h].path != AM_SCENE_PATH_SCALE;
        if (!animated)
            continue;
        am_mat4 iu, ia;
        if (!am_mat4_inverse(&c->bindf[mj->node], &iu) || !am_mat4_inverse(&c->bindf[mj->weight_to], &ia))
            continue;
        double worst = 0;
        size_t step = w->ns / 256 + 1;
        for (size_t si = 0; si < w->ns; si += step) {
            sample tmp;
            am_status st = eval(w, w->smp[si].t, &tmp, err);
            if (st)
                return st;
            free_sample(&tmp);
            am_mat4 mu = am_mat4_mul(&iu, &w->world[mj->node]), ma = am_mat4_mul(&ia, &w->world[mj->weight_to]);
            for (size_t mi = 0; mi < s->mesh_count; mi++) {
                const am_scene_mesh *m = &s->meshes[mi];
                if (m->skin != c->skin)
                    continue;
                const am_scene_skin *k = &s->skins[m->skin];
                for (size_t v = 0; v < m->vertex_count; v++) {
                    double wu = 0, total = 0;
                    for (size_t q = m->influence_start[v]; q < m->influence_start[v + 1]; q++) {
                        total += m->influences[q].weight;
                        if (k->joint_nodes[m->influences[q].joint] == mj->node)
                            wu += m->influences[q].weight;
                    }
                    if (wu <= 0)
                        continue;
                    am_vec3 p = am_body_bind_vertex(s, m, v);
                    double d = am_v3_dist(am_mat4_transform_point(&mu, p), am_mat4_transform_point(&ma, p));
                    worst = fmax(worst, d * wu / total * r->axes.scale);
                }
            }
        }
        if (worst > c->pos_tol) {
            int t = c->node_target[mj->weight_to];
            char wn[128]; /* "#N" when unnamed: never an empty '' */
            am_retarget_add_finding(
                c->r, AM_FINDING_WARNING,
                "clip '%s' animates '%s', which is not mapped: its vertices follow '%s' (%s) and will be up to "
                "%.4f m off",
                w->clip->name, am_str(&mj->rig_name), am_map_rig_name(s, mj->weight_to, wn, sizeof wn),
                t >= 0 ? c->skel->joints[c->m_joint[t]].name : "?", worst);
        }
    }
    return AM_OK;
}

/* following directions: the largest angle between a viewer bone as the keys pose it and
 * the source's bone between the same joints, over the samples */
static bool worst_direction(const work *w, am_retarget_anim *a)
{
    const am_rt *c = w->c;
    a->worst_direction_deg = 0;
    am_string_free(&a->worst_direction_joint);
    const char *worst = NULL;
    int *from = malloc((c->nm ? c->nm : 1) * sizeof *from), *to = malloc((c->nm ? c->nm : 1) * sizeof *to);
    for (size_t m = 0; from && to && m < c->nm; m++) {
        /* an end effector keeps the source's orientation, not its bone line */
        size_t n = am_retarget_keeps(c, m) == AM_RETARGET_FOLLOW ? am_retarget_follow_vectors(c, m, from, to) : 0;
        for (size_t i = 0; i < w->ns; i++) {
            const sample *s = &w->smp[i];
            for (size_t k = 0; k < n; k++) {
                /* both ends hang from m: the viewer turns the rest vector by m's rotation */
                am_vec3 dv = am_v3_sub(c->vbind[c->m_joint[to[k]]], c->vbind[c->m_joint[from[k]]]);
                am_vec3 ds = am_v3_sub(s->p[to[k]], s->p[from[k]]);
                if (am_v3_len(ds) < 1e-5)
                    continue;
                am_vec3 vv = am_v3_normalize(am_quat_rotate(world_rot(c, s, (int)m), dv));
                double deg = acos(fmax(-1.0, fmin(1.0, am_v3_dot(vv, am_v3_normalize(ds))))) * AM_RAD2DEG;
                if (deg > a->worst_direction_deg) {
                    a->worst_direction_deg = deg;
                    worst = c->skel->joints[c->m_joint[m]].name;
                }
            }
        }
    }
    free(from);
    free(to);
    return !worst || am_string_set(&a->worst_direction_joint, worst);
}

void am_retarget_anim_free(am_retarget_anim *a)
{
    if (!a)
        return;
    free(a->tracks);
    free(a->times);
    free(a->rot);
    free(a->pos);
    am_string_free(&a->name);
    am_string_free(&a->clip);
    am_string_free(&a->worst_direction_joint);
    am_string_free(&a->loop_why);
    memset(a, 0, sizeof *a);
}

/* Rest corrections onto the tracks (a joint without a track gets one that holds its rest). */
static am_status corrections(am_rt *c, am_retarget_anim *a, size_t *nt, const am_quat *identity, am_error *err)
{
    for (size_t i = 0; i < c->o->correction_count; i++) {
        const am_rest_correction *rc = &c->o->corrections[i];
        int joint = -1;
        int node = am_map_find_node(c->s, am_str(&rc->joint));
        if (node >= 0 && c->node_target[node] >= 0 && c->m_node[c->node_target[node]] == node)
            joint = c->m_joint[c->node_target[node]];
        if (joint < 0)
            joint = am_skeleton_find(c->skel, am_str(&rc->joint));
        if (joint < 0)
            return am_fail(err, AM_ERR_USAGE,
                           "the corrections option '%s': neither a viewer joint nor a mapped rig joint",
                           am_str(&rc->joint));
        const char *name = c->skel->joints[joint].name;
        am_vec3 axis = am_v3(rc->axis == 1, rc->axis == 2, rc->axis == 3);
        am_quat q = am_quat_axis_angle(axis, rc->degrees * AM_DEG2RAD);
        size_t t = 0;
        while (t < *nt && strcmp(a->tracks[t].joint, name) != 0)
            t++;
        if (t == *nt) {
            am_motion_track *tr = &a->tracks[(*nt)++];
            memset(tr, 0, sizeof *tr);
            tr->joint = name;
            tr->priority = -1;
            tr->times = a->times;
            tr->rot = identity;
            tr->count = 1;
        }
        am_motion_track *tr = &a->tracks[t];
        /* The source's keys are measured from the uncorrected bind, so the correction turns
         * the joint's motion with it: pose = corr (x) key. The track applies key' (x) corr,
         * so it holds key' = corr (x) key (x) corr^-1 (the rest, one identity sample, needs
         * nothing). */
        if (tr->rot != identity) {
            am_quat *own = a->rot + (tr->rot - a->rot); /* the track's samples live in a->rot */
            for (size_t k = 0; k < tr->count; k++)
                own[k] = am_quat_normalize(am_quat_mul(am_quat_mul(q, own[k]), am_quat_conj(q)));
        }
        tr->correction = tr->has_correction ? am_quat_mul(q, tr->correction) : q;
        tr->has_correction = true;
    }
    return AM_OK;
}

am_status am_retarget_clip(am_rt *c, size_t ci, am_retarget_anim *a, am_error *err)
{
    const am_scene *s = c->s;
    const am_scene_clip *clip = &s->clips[ci];
    memset(a, 0, sizeof *a);
    char name[65]; /* am_retarget_sanitise: at most 64 characters */
    am_retarget_sanitise(clip->name, name, sizeof name);
    if (!am_string_set(&a->clip, clip->name) || !am_string_set(&a->name, name)) {
        am_retarget_anim_free(a);
        return am_fail_nomem(err, "clip name");
    }
    a->clip_index = (int)ci;
    double dur = clip->end_s - clip->start_s;
    bool pose = dur < 1e-4;
    if (pose)
        dur = 1.0;
    work w = {.c = c, .clip = clip, .quantum = dur / 65535.0};
    w.trs = malloc((s->node_count ? s->node_count : 1) * sizeof *w.trs);
    w.local = malloc((s->node_count ? s->node_count : 1) * sizeof *w.local);
    w.world = malloc((s->node_count ? s->node_count : 1) * sizeof *w.world);
    w.need_pos = calloc(c->nm, sizeof *w.need_pos);
    double *base = NULL;
    size_t nb = 0;
    am_status st = !w.trs || !w.local || !w.world || !w.need_pos ? am_fail_nomem(err, "clip") : AM_OK;
    if (!st)
        st = key_times(clip, w.quantum, &base, &nb, &a->clip_keys, err);
    /* the clip's keys, then the positions they need, then samples between keys */
    sample *keys = calloc(nb ? nb : 1, sizeof *keys);
    if (!st && !keys)
        st = am_fail_nomem(err, "clip");
    for (size_t i = 0; i < nb && !st; i++)
        st = eval(&w, base[i], &keys[i], err);
    double key_dt = key_interval(base, nb);
    if (!st && c->o->in_place && nb > 1) {
        am_vec3 d = am_v3_sub(keys[nb - 1].p[0], keys[0].p[0]); /* the top mapped joint */
        w.travel = am_v3(d.x, d.y, 0);
    }
    if (!st) {
        w.smp = keys;
        w.ns = nb;
        decide_positions(&w);
        w.smp = NULL;
        w.ns = 0;
    }
    for (size_t i = 0; i < nb && !st; i++) {
        if (i > 0)
            st = refine(&w, w.smp[w.ns - 1], keys[i], 0, err);
        if (!st) {
            st = push(&w, keys[i], err);
            keys[i] = (sample){0};
        }
    }
    for (size_t i = 0; i < nb; i++)
        free_sample(&keys[i]);
    free(keys);
    free(base);
    if (!st)
        decide_positions(&w);
    if (pose)
        am_retarget_add_finding(c->r, AM_FINDING_NOTE,
                                "clip '%s' is a single pose: written as a %.0f s animation holding it", clip->name,
                                dur);
    size_t ns = w.ns, ncorr = c->o->correction_count, ntr = 0;
    if (!st) {
        a->samples = ns;
        a->tracks = calloc(c->nm + ncorr, sizeof *a->tracks);
        a->times = malloc((ns ? ns : 1) * sizeof *a->times);
        a->rot = malloc((c->nm * ns + ncorr + 1) * sizeof *a->rot);
        a->pos = malloc((c->nm * ns + 1) * sizeof *a->pos);
        if (!a->tracks || !a->times || !a->rot || !a->pos)
            st = am_fail_nomem(err, "motion");
    }
    double reach = 0;
    const char *far_joint = NULL;
    for (size_t i = 0; !st && i < ns; i++)
        a->times[i] = pose ? 0.0 : i + 1 == ns ? 1.0 : (w.smp[i].t - clip->start_s) / dur;
    for (size_t m = 0; !st && m < c->nm; m++) {
        am_motion_track *tr = &a->tracks[ntr++];
        tr->joint = c->skel->joints[c->m_joint[m]].name;
        tr->priority = -1;
        tr->times = a->times;
        tr->rot = &a->rot[m * ns];
        am_quat *rot = &a->rot[m * ns];
        bool constant = true;
        for (size_t i = 0; i < ns; i++) {
            rot[i] = key_rot(c, &w.smp[i], m);
            constant = constant && am_quat_angle_between(rot[i], rot[0]) < 1e-7;
        }
        tr->count = constant && !w.need_pos[m] ? 1 : ns;
        if (w.need_pos[m]) {
            am_vec3 *pos = &a->pos[m * ns];
            for (size_t i = 0; i < ns; i++) {
                pos[i] = key_pos_of(c, &w, &w.smp[i], m);
                double big = fmax(fabs(pos[i].x), fmax(fabs(pos[i].y), fabs(pos[i].z)));
                if (big > reach)
                    reach = big, far_joint = tr->joint;
            }
            tr->has_pos = true;
            tr->pos = pos;
            a->position_tracks++;
        }
    }
    if (!st && !pose)
        st = am_retarget_loop_close(c, a, &ns, &dur, key_dt, err);
    if (!st && reach > AM_ANIM_POS_RANGE)
        am_retarget_add_finding(
            c->r, AM_FINDING_WARNING,
            "clip '%s': %s's position keys reach %.2f m, beyond the viewer's +-%.0f m: they are clamped there",
            clip->name, far_joint, reach, (double)AM_ANIM_POS_RANGE);
    if (!st) {
        a->rot[c->nm * ns] = am_quat_identity(); /* the rest of a joint only a correction moves */
        st = corrections(c, a, &ntr, &a->rot[c->nm * ns], err);
    }
    if (!st) {
        am_motion *mo = &a->motion;
        am_motion_init(mo);
        mo->tracks = a->tracks;
        mo->track_count = ntr;
        mo->duration_s = dur;
        mo->base_priority = c->o->priority;
        mo->ease_in_s = c->o->ease_in_s;
        mo->ease_out_s = c->o->ease_out_s;
        am_error le;
        am_error_clear(&le);
        if (c->o->loop == AM_LOOP_OFF) {
            if (!am_string_set(&a->loop_why, "not looping (the loop option off)"))
                st = am_fail_nomem(err, "loop note");
        } else {
            mo->loop = true;
            am_status ls = am_motion_check_loop(mo, &le);
            if (ls == AM_OK) {
                a->loops = true;
                if (am_string_empty(&a->loop_why) && /* am_retarget_loop_close says how it closed */
                    !am_string_setf(&a->loop_why, "%s (the last pose is the first)",
                                    c->o->loop == AM_LOOP_ON ? "looping (the loop option)" : "looping"))
                    st = am_fail_nomem(err, "loop note");
            } else if (c->o->loop == AM_LOOP_ON) {
                st = am_fail(err, AM_ERR_INVALID, "the loop option: %s", le.msg);
            } else {
                mo->loop = false;
                if (!am_string_setf(&a->loop_why, "not looping: %s (the loop option closes a seam up to %g deg)",
                                    le.msg, c->o->loop_tolerance_deg))
                    st = am_fail_nomem(err, "loop note");
            }
        }
    }
    if (!st && c->follow && !worst_direction(&w, a))
        st = am_fail_nomem(err, "worst direction");
    a->reduce_deg = c->o->reduce_deg;
    if (!st) {
        report_scale(c, clip);
        st = report_unmapped(&w, err);
    }
    for (size_t i = 0; i < w.ns; i++)
        free_sample(&w.smp[i]);
    free(w.smp);
    free(w.trs);
    free(w.local);
    free(w.world);
    free(w.need_pos);
    if (st)
        am_retarget_anim_free(a);
    return st;
}
