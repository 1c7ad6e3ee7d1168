/* The joint-map fallback (map_fallback.h). */
#include "map/map_fallback.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FALLBACK_CONFIDENCE 0.3
#define RELEASABLE_CONFIDENCE 0.75 /* topology only: no name backs the guess */
#define NESTED                                                                                                       \
    "no name or topology role; no separate viewer branch was free, so it shares one with another rig branch "      \
    "(position keys carry it)"

typedef struct fb {
    const am_scene *s;
    const am_body *b;
    const am_axes *ax;
    const am_skeleton *skel;
    am_map_suggestion *out;
    bool *taken;          /* per skeleton joint */
    int bones;            /* skeleton joints [0, bones) are bones, in pre-order */
    int *sub_end;         /* per bone: one past its subtree */
    bool *need;           /* per body joint: weighted, or above a weighted joint */
    int *need_below;      /* per body joint: need joints in its subtree (itself too) */
    bool *user_off;       /* per body joint: --map left it unmapped */
    am_vec3 *rig_bone;    /* per body joint: its bone, viewer frame, metres */
    am_vec3 *viewer_bone; /* per bone: its default bone (`end`) in the avatar frame */
    bool *blocked;        /* per bone: comparable with a mapped non-relative's target */
    bool *used;           /* per bone: a viewer child already given to a rig child */
    int *memo;            /* body joint x bone: fit, -1 unknown */
    am_map_joint *saved;  /* snapshot for undo */
    bool *saved_taken;
    /* Every reason text while the fallback runs: joints (and the undo snapshot) point into
     * it, so a snapshot can be restored any number of times; copied out at the end. */
    am_string *pool;
    size_t pool_count, pool_cap;
    bool pooled; /* the joints' reasons are in the pool */
    bool nomem;  /* a reason or note could not be stored */
} fb;

/* Keep s (its text now the pool's). False when out of memory (s is freed). */
static bool pool_keep(fb *f, am_string *s)
{
    if (f->pool_count == f->pool_cap) {
        size_t cap = f->pool_cap ? 2 * f->pool_cap : 64;
        am_string *grown = realloc(f->pool, cap * sizeof *grown);
        if (!grown) {
            am_string_free(s);
            f->nomem = true;
            return false;
        }
        f->pool = grown, f->pool_cap = cap;
    }
    f->pool[f->pool_count++] = *s;
    return true;
}

/* The joints' reasons into the pool (before any snapshot), and back out as their own. */
static void pool_take(fb *f)
{
    size_t cap = f->out->count + 64;
    f->pool = malloc(cap * sizeof *f->pool);
    if (!f->pool) {
        f->nomem = true;
        return;
    }
    f->pool_cap = cap;
    for (size_t j = 0; j < f->out->count; j++)
        f->pool[f->pool_count++] = f->out->joints[j].reason; /* room reserved: cannot fail */
    f->pooled = true;
}

static void pool_give_back(fb *f)
{
    for (size_t j = 0; f->pooled && j < f->out->count; j++) {
        am_string own = {0};
        if (!am_string_copy(&own, &f->out->joints[j].reason))
            f->nomem = true;
        f->out->joints[j].reason = own;
    }
    am_string_list_free(f->pool, f->pool_count);
    f->pool = NULL;
    f->pool_count = f->pool_cap = 0;
}

/* --- relations ----------------------------------------------------------------------------- */

static bool rig_ancestor(const am_body *b, int a, int j)
{
    for (int p = b->joints[j].parent; p >= 0; p = b->joints[p].parent)
        if (p == a)
            return true;
    return false;
}

static bool rig_in_subtree(const am_body *b, int r, int k) { return k == r || rig_ancestor(b, r, k); }

static int mapped_ancestor(const fb *f, int j)
{
    for (int p = f->b->joints[j].parent; p >= 0; p = f->b->joints[p].parent)
        if (f->out->joints[p].target >= 0)
            return p;
    return -1;
}

static bool comparable(const am_skeleton *skel, int v, int t)
{
    return v == t || am_skeleton_is_ancestor(skel, v, t) || am_skeleton_is_ancestor(skel, t, v);
}

static bool free_bone(const fb *f, int v) { return v >= 0 && v < f->bones && !f->taken[v] && !f->blocked[v]; }

/* How unlike rig joint j on viewer joint v looks: 0 when the viewer joint sits where the
 * rig joint sits from its placed ancestor (rig joint ra on viewer joint va, -1: none) and
 * its default bone points and measures like the rig's; each term 0..1 for the direction
 * (1 = opposite) plus a quarter of the log length ratio. */
static double unlike(am_vec3 r, am_vec3 w)
{
    double lr = am_v3_len(r), lw = am_v3_len(w);
    if (lr < 1e-9 || lw < 1e-9)
        return 0.75;
    return 0.5 * (1 - am_v3_dot(r, w) / (lr * lw)) + 0.25 * fabs(log(lr / lw));
}

static double look(const fb *f, int j, int v, int ra, int va)
{
    double l = unlike(f->rig_bone[j], f->viewer_bone[v]);
    if (ra >= 0 && va >= 0) {
        am_vec3 ro = am_v3_sub(am_axes_point(f->ax, f->b->joints[j].bind), am_axes_point(f->ax, f->b->joints[ra].bind));
        am_vec3 vo = am_v3_sub(f->skel->joints[v].world_pos[AM_FRAME_FILE], f->skel->joints[va].world_pos[AM_FRAME_FILE]);
        l += unlike(ro, vo);
    }
    return l;
}

static double angle_deg(const fb *f, int j, int v)
{
    am_vec3 r = f->rig_bone[j], w = f->viewer_bone[v];
    double lr = am_v3_len(r), lw = am_v3_len(w);
    if (lr < 1e-9 || lw < 1e-9)
        return -1;
    return acos(fmax(-1, fmin(1, am_v3_dot(r, w) / (lr * lw)))) * AM_RAD2DEG;
}

/* --- fitting a whole unmapped rig subtree below a viewer joint ---------------------------- */

static int fit(fb *f, int j, int v);

/* The next rig child of j to place, biggest subtree first (ties: file order), after the
 * one (n, c) returned last; -1 when none is left. Children --map left unmapped, and
 * subtrees without a weighted joint, are not placed here. */
static int next_child(const fb *f, int j, int *last_n, int *last_c)
{
    int best = -1, bn = -1;
    for (int c = f->b->joints[j].first_child; c >= 0; c = f->b->joints[c].next_sibling) {
        int n = f->need_below[c];
        if (n <= 0 || f->user_off[c] || f->out->joints[c].target >= 0)
            continue;
        bool after = n < *last_n || (n == *last_n && c > *last_c);
        if (after && (n > bn || (n == bn && c < best)))
            best = c, bn = n;
    }
    if (best >= 0)
        *last_n = bn, *last_c = best;
    return best;
}

/* The best place for rig joint c in viewer subtree u: most of its subtree fitting, then
 * the closest look. Returns the fit; *where -1 when nothing fits. */
static int best_in(fb *f, int c, int u, int ra, int va, int *where, double *how_like)
{
    int best = 0, at = -1;
    double lk = INFINITY;
    for (int w = u; w < f->sub_end[u]; w++) {
        if (!free_bone(f, w))
            continue;
        int k = fit(f, c, w);
        double l = look(f, c, w, ra, va);
        if (k > best || (k == best && k > 0 && l < lk))
            best = k, at = w, lk = l;
    }
    *where = at;
    *how_like = lk;
    return best;
}

static void place(fb *f, int j, int v, const char *how);

/* Rig children of j matched greedily to distinct viewer children of v (so rig siblings
 * stay in separate viewer branches); with `now`, each is embedded where it fits best.
 * The same choices either way, so what fit() promised is what embedding gives. */
static int match_children(fb *f, int j, int v, bool now, const char *how)
{
    int sum = 0, last_n = INT32_MAX, last_c = -1;
    for (int c; (c = next_child(f, j, &last_n, &last_c)) >= 0;) {
        int best = 0, bu = -1, bw = -1;
        double bl = INFINITY;
        for (int u = v + 1; u < f->sub_end[v]; u = f->sub_end[u]) {
            if (f->used[u])
                continue;
            int w;
            double l;
            int g = best_in(f, c, u, j, v, &w, &l);
            if (g > best || (g == best && g > 0 && l < bl))
                best = g, bu = u, bw = w, bl = l;
        }
        if (bu < 0)
            continue;
        f->used[bu] = true;
        sum += best;
        if (now) {
            place(f, c, bw, how);
            match_children(f, c, bw, true, how);
        }
    }
    for (int u = v + 1; u < f->sub_end[v]; u = f->sub_end[u])
        f->used[u] = false;
    return sum;
}

/* How many weighted-or-above joints of j's unmapped subtree fit with j on free bone v. */
static int fit(fb *f, int j, int v)
{
    int *m = &f->memo[(size_t)j * (size_t)f->bones + (size_t)v];
    if (*m < 0)
        *m = (f->need[j] ? 1 : 0) + match_children(f, j, v, false, NULL);
    return *m;
}

/* Viewer joints a subtree at r may not use: those comparable with the target of any mapped
 * rig joint that is neither an ancestor of r nor in r's subtree (its non-relatives). */
static void block_for(fb *f, int r)
{
    memset(f->blocked, 0, (size_t)f->bones * sizeof *f->blocked);
    for (size_t k = 0; k < f->out->count; k++) {
        int t = f->out->joints[k].target;
        if (t < 0 || rig_ancestor(f->b, (int)k, r) || rig_in_subtree(f->b, r, (int)k))
            continue;
        for (int p = t; p >= 0; p = f->skel->joints[p].parent)
            if (p < f->bones)
                f->blocked[p] = true;
        if (t < f->bones)
            for (int w = t; w < f->sub_end[t]; w++)
                f->blocked[w] = true;
    }
    for (size_t i = 0; i < f->b->joint_count * (size_t)f->bones; i++)
        f->memo[i] = -1;
}

/* The best viewer joint for unmapped subtree r below its mapped ancestor's target (or
 * anywhere when it has none): most fitting, then the closest look. `nest`: r may share a
 * viewer branch with its non-relatives (inside r's subtree siblings still stay apart). */
static int best_root(fb *f, int r, bool nest, int *fits)
{
    int a = mapped_ancestor(f, r), at = a >= 0 ? f->out->joints[a].target : -1;
    int lo = 0, hi = f->bones;
    if (at >= 0) {
        if (at >= f->bones) { /* below a collision volume or attachment point: nothing */
            *fits = 0;
            return -1;
        }
        lo = at + 1, hi = f->sub_end[at];
    }
    block_for(f, r);
    if (nest)
        memset(f->blocked, 0, (size_t)f->bones * sizeof *f->blocked);
    int best = 0, bv = -1;
    double bl = INFINITY;
    for (int v = lo; v < hi; v++) {
        if (!free_bone(f, v))
            continue;
        int k = fit(f, r, v);
        double l = look(f, r, v, a, at);
        if (k > best || (k == best && k > 0 && l < bl))
            best = k, bv = v, bl = l;
    }
    *fits = best;
    return bv;
}

/* --- placing, undo, the joint limit --------------------------------------------------------- */

static void place(fb *f, int j, int v, const char *how)
{
    am_map_joint *mj = &f->out->joints[j];
    mj->target = v;
    mj->source = AM_MAP_FALLBACK;
    mj->confidence = FALLBACK_CONFIDENCE;
    f->taken[v] = true;
    int a = mapped_ancestor(f, j);
    double deg = angle_deg(f, j, v);
    char dir[64] = "";
    if (deg >= 0)
        snprintf(dir, sizeof dir, ", its bone %.0f deg from that bone's default", deg);
    am_string reason = {0};
    bool ok = a >= 0 ? am_string_setf(&reason,
                                      "fallback (a guess; the map option overrides it): %s; on the free viewer joint "
                                      "%s below %s ('%s')%s",
                                      how, f->skel->joints[v].name, f->skel->joints[f->out->joints[a].target].name,
                                      am_str(&f->out->joints[a].rig_name), dir)
                     : am_string_setf(&reason,
                                      "fallback (a guess; the map option overrides it): %s; on the free viewer joint "
                                      "%s at the top of the viewer skeleton%s",
                                      how, f->skel->joints[v].name, dir);
    if (!ok)
        f->nomem = true;
    mj->reason = (am_string){0};
    if (ok && pool_keep(f, &reason))
        mj->reason = reason; /* the pool owns it */
}

static void save(fb *f)
{
    memcpy(f->saved, f->out->joints, f->out->count * sizeof *f->saved);
    memcpy(f->saved_taken, f->taken, f->skel->joint_count * sizeof *f->taken);
}

static void restore(fb *f)
{
    memcpy(f->out->joints, f->saved, f->out->count * sizeof *f->saved);
    memcpy(f->taken, f->saved_taken, f->skel->joint_count * sizeof *f->taken);
}

/* The viewer joints the skin would need (targets and their ancestors) exceed 110. */
static bool over_limit(const fb *f, int *scratch_targets, int *scratch_closed)
{
    size_t n = 0;
    for (size_t j = 0; j < f->out->count; j++)
        if (f->out->joints[j].target >= 0)
            scratch_targets[n++] = f->out->joints[j].target;
    return am_skeleton_closed_set(f->skel, scratch_targets, n, scratch_closed) > AM_MAX_JOINTS_PER_MESH;
}

/* The guesses in r's subtree may be given up for a better embedding: each mapped joint
 * there is topology-only (no name, no --map, no viewer name backs it) or the fallback's. */
static bool releasable(const fb *f, int r)
{
    for (size_t k = 0; k < f->out->count; k++) {
        const am_map_joint *mj = &f->out->joints[k];
        if (mj->target < 0 || !rig_in_subtree(f->b, r, (int)k))
            continue;
        bool guess = mj->source == AM_MAP_FALLBACK ||
                     (mj->source == AM_MAP_TOPOLOGY && mj->confidence <= RELEASABLE_CONFIDENCE + 1e-9);
        if (!guess)
            return false;
    }
    return f->out->joints[r].target >= 0;
}

static void release(fb *f, int r)
{
    for (size_t k = 0; k < f->out->count; k++) {
        am_map_joint *mj = &f->out->joints[k];
        if (mj->target < 0 || !rig_in_subtree(f->b, r, (int)k))
            continue;
        f->taken[mj->target] = false;
        mj->target = -1;
        mj->source = AM_MAP_NONE;
        mj->confidence = 0;
        mj->reason = (am_string){0}; /* its text stays in the pool */
    }
}

/* --- the passes ------------------------------------------------------------------------------ */

/* Steps 1 and 2 for a weighted subtree hanging unmapped at j. */
static void embed_hanging(fb *f, int j, int *st, int *sc)
{
    save(f);
    int fits, v = best_root(f, j, false, &fits);
    if (v >= 0 && fits == f->need_below[j]) {
        place(f, j, v, "no name or topology role");
        match_children(f, j, v, true, "no name or topology role");
        if (!over_limit(f, st, sc))
            return;
        restore(f);
        if (!am_map_suggestion_note(f->out,
                                    "fallback: '%s' and its branch left unmapped: embedding them would exceed %d "
                                    "joints per mesh",
                                    am_str(&f->out->joints[j].rig_name), AM_MAX_JOINTS_PER_MESH))
            f->nomem = true;
        return;
    }
    /* no room below the mapped ancestor: give up the topology's guesses above, widest last */
    for (int r = mapped_ancestor(f, j); r >= 0 && releasable(f, r); r = mapped_ancestor(f, r)) {
        char was[64];
        snprintf(was, sizeof was, "%s", f->skel->joints[f->out->joints[r].target].name);
        release(f, r);
        int rf, rv = best_root(f, r, false, &rf);
        if (rv >= 0 && rf == f->need_below[r]) {
            am_string how = {0};
            if (!am_string_setf(&how, "re-placed with the branch at '%s' (the topology's guess %s left no room for "
                                "'%s')", am_str(&f->out->joints[r].rig_name), was,
                                am_str(&f->out->joints[j].rig_name)))
                f->nomem = true;
            place(f, r, rv, am_str(&how));
            match_children(f, r, rv, true, am_str(&how));
            am_string_free(&how);
            if (!over_limit(f, st, sc))
                return;
        }
        restore(f);
    }
    /* what fits below the mapped ancestor, in a branch of its own or else (when more fits
     * that way) sharing one with a non-relative; step 3 tries the rest joint by joint */
    int nf, nv = best_root(f, j, true, &nf);
    v = best_root(f, j, false, &fits);
    const char *how = "no name or topology role";
    if (nv >= 0 && nf > fits) {
        best_root(f, j, true, &nf); /* its blocking and fits again */
        v = nv, fits = nf;
        how = NESTED;
    }
    if (v >= 0 && fits > 0) {
        place(f, j, v, how);
        match_children(f, j, v, true, how);
        if (over_limit(f, st, sc))
            restore(f);
    }
}

/* Step 3: one joint between its mapped ancestor's and mapped descendants' targets; a
 * separate viewer branch first, else nested below a non-relative's joint. */
static void embed_single(fb *f, int j, int *st, int *sc)
{
    int a = mapped_ancestor(f, j), at = a >= 0 ? f->out->joints[a].target : -1;
    if (at >= f->bones)
        return;
    int best = -1, best_tier = 3;
    double bl = INFINITY;
    for (int v = at + 1; v < (at >= 0 ? f->sub_end[at] : f->bones); v++) {
        if (f->taken[v])
            continue;
        bool ok = true;
        int tier = 1;
        for (size_t k = 0; k < f->out->count && ok; k++) {
            int t = f->out->joints[k].target;
            if (t < 0 || rig_ancestor(f->b, (int)k, j))
                continue;
            if (rig_ancestor(f->b, j, (int)k))
                ok = am_skeleton_is_ancestor(f->skel, v, t);
            else if (comparable(f->skel, v, t))
                tier = 2;
        }
        double l = look(f, j, v, a, at);
        if (ok && (tier < best_tier || (tier == best_tier && l < bl)))
            best = v, best_tier = tier, bl = l;
    }
    if (best < 0)
        return;
    save(f);
    place(f, j, best, best_tier == 1 ? "no name or topology role" : NESTED);
    if (over_limit(f, st, sc)) {
        restore(f);
        if (!am_map_suggestion_note(f->out,
                                    "fallback: '%s' left unmapped: embedding it would exceed %d joints per mesh",
                                    am_str(&f->out->joints[j].rig_name), AM_MAX_JOINTS_PER_MESH))
            f->nomem = true;
    }
}

/* Step 4: the weighted joints still unmapped, what they carry, one warning. */
static am_status warn_unembedded(fb *f, am_error *err)
{
    am_map_suggestion *o = f->out;
    bool *off = calloc(f->b->joint_count + 1, sizeof *off);
    if (!off)
        return am_fail_nomem(err, "joint-map fallback");
    char names[240] = "", anc[200] = "";
    size_t listed = 0, ancs = 0;
    for (size_t j = 0; j < o->count; j++) {
        if (o->joints[j].target >= 0 || f->user_off[j] || !f->b->joints[j].weighted)
            continue;
        off[j] = true;
        o->unembedded_count++;
        size_t n = strlen(names);
        if (n + o->joints[j].rig_name.length + 8 < sizeof names)
            snprintf(names + n, sizeof names - n, "%s'%s'", listed ? ", " : "", am_str(&o->joints[j].rig_name)),
                listed++;
        int a = mapped_ancestor(f, (int)j);
        char one[160];
        int len = a >= 0 ? snprintf(one, sizeof one, "'%s' (%s)", am_str(&o->joints[a].rig_name),
                                    f->skel->joints[o->joints[a].target].name)
                         : snprintf(one, sizeof one, "the top mapped joint");
        n = strlen(anc);
        /* an ancestor whose name leaves no room is not listed (as the names past the room) */
        if (len > 0 && (size_t)len < sizeof one && !strstr(anc, one) && n + strlen(one) + 3 < sizeof anc)
            snprintf(anc + n, sizeof anc - n, "%s%s", ancs++ ? ", " : "", one);
    }
    for (size_t mi = 0; mi < f->s->mesh_count && o->unembedded_count; mi++) {
        const am_scene_mesh *m = &f->s->meshes[mi];
        if (m->skin < 0)
            continue;
        const am_scene_skin *k = &f->s->skins[m->skin];
        for (size_t v = 0; v < m->vertex_count; v++) {
            bool on = false;
            for (size_t q = m->influence_start[v]; q < m->influence_start[v + 1]; q++) {
                int node = m->influences[q].joint < k->joint_count ? k->joint_nodes[m->influences[q].joint] : -1;
                int bj = node >= 0 ? f->b->node_joint[node] : -1;
                if (bj >= 0 && off[bj] && m->influences[q].weight > 0)
                    on = true, o->unembedded_weight += m->influences[q].weight;
            }
            o->unembedded_vertices += on;
        }
    }
    free(off);
    if (!o->unembedded_count)
        return AM_OK;
    char more[40] = "";
    if (listed < o->unembedded_count)
        snprintf(more, sizeof more, " and %zu more", o->unembedded_count - listed);
    am_string text = {0};
    bool ok = am_string_setf(
        &text,
        "no free viewer chain for %zu weighted joint%s: %s%s (%zu vertices, weight %.4g): their vertices follow "
        "their nearest mapped ancestor, %s, not their own motion; give a joint map (the map option) that places them",
        o->unembedded_count, o->unembedded_count == 1 ? "" : "s", names, more, o->unembedded_vertices,
        o->unembedded_weight, anc);
    ok = ok && am_string_list_push(&o->warnings, &o->warning_count, &o->warning_cap, text.data);
    am_string_free(&text);
    return ok ? AM_OK : am_fail_nomem(err, "joint-map warning");
}

am_status am_map_fallback(const am_scene *s, const am_body *b, const am_axes *ax, const am_skeleton *skel,
                          am_map_suggestion *sug, bool *taken, am_error *err)
{
    size_t nj = b->joint_count, nb = skel->bone_count;
    fb f = {.s = s, .b = b, .ax = ax, .skel = skel, .out = sug, .taken = taken, .bones = (int)nb};
    f.sub_end = malloc((nb + 1) * sizeof *f.sub_end);
    f.need = calloc(nj + 1, sizeof *f.need);
    f.need_below = calloc(nj + 1, sizeof *f.need_below);
    f.user_off = calloc(nj + 1, sizeof *f.user_off);
    f.rig_bone = calloc(nj + 1, sizeof *f.rig_bone);
    f.viewer_bone = calloc(nb + 1, sizeof *f.viewer_bone);
    f.blocked = calloc(nb + 1, sizeof *f.blocked);
    f.used = calloc(nb + 1, sizeof *f.used);
    f.memo = malloc((nj * nb + 1) * sizeof *f.memo);
    f.saved = malloc((nj + 1) * sizeof *f.saved);
    f.saved_taken = malloc((skel->joint_count + 1) * sizeof *f.saved_taken);
    int *st = malloc((nj + 1) * sizeof *st), *sc = malloc((skel->joint_count + 1) * sizeof *sc);
    am_status status = AM_OK;
    if (!f.sub_end || !f.need || !f.need_below || !f.user_off || !f.rig_bone || !f.viewer_bone || !f.blocked ||
        !f.used || !f.memo || !f.saved || !f.saved_taken || !st || !sc) {
        status = am_fail_nomem(err, "joint-map fallback");
        goto done;
    }
    pool_take(&f);
    if (f.nomem) {
        status = am_fail_nomem(err, "joint-map fallback");
        goto done;
    }
    /* bones are in pre-order with parents first: each subtree is one index range */
    for (size_t v = 0; v < nb; v++)
        f.sub_end[v] = (int)v + 1;
    for (size_t v = nb; v-- > 0;) {
        int p = skel->joints[v].parent;
        if (p >= 0 && p < (int)nb && f.sub_end[v] > f.sub_end[p])
            f.sub_end[p] = f.sub_end[v];
        f.viewer_bone[v] = am_quat_rotate(skel->joints[v].world_rot, skel->joints[v].end);
    }
    /* body joints come parents first: children are summed into parents walking back */
    for (size_t j = 0; j < nj; j++)
        f.user_off[j] = sug->joints[j].source == AM_MAP_USER && sug->joints[j].target < 0;
    for (size_t j = nj; j-- > 0;) {
        f.need[j] = f.need[j] || b->joints[j].weighted;
        if (f.need[j] && !f.user_off[j])
            f.need_below[j]++;
        int p = b->joints[j].parent;
        if (p >= 0) {
            f.need[p] = f.need[p] || f.need[j];
            f.need_below[p] += f.need_below[j];
        }
    }
    for (size_t j = 0; j < nj; j++) {
        /* the bone: to the mean of the children that matter, else on from the parent */
        const am_body_joint *bj = &b->joints[j];
        am_vec3 sum = am_v3(0, 0, 0);
        int n = 0;
        for (int c = bj->first_child; c >= 0; c = b->joints[c].next_sibling)
            if (f.need[c])
                sum = am_v3_add(sum, b->joints[c].bind), n++;
        if (n)
            f.rig_bone[j] = am_v3_sub(am_axes_point(ax, am_v3_scale(sum, 1.0 / n)), am_axes_point(ax, bj->bind));
        else if (bj->parent >= 0)
            f.rig_bone[j] = am_v3_sub(am_axes_point(ax, bj->bind), am_axes_point(ax, b->joints[bj->parent].bind));
    }
    /* steps 1-2: unmapped weighted subtrees hanging from a mapped joint (or from nothing) */
    for (size_t j = 0; j < nj; j++) {
        int p = b->joints[j].parent;
        if (sug->joints[j].target >= 0 || f.user_off[j] || f.need_below[j] == 0 ||
            (p >= 0 && sug->joints[p].target < 0))
            continue;
        bool clear = true; /* nothing below it is mapped */
        for (size_t k = j + 1; k < nj && clear; k++)
            if (sug->joints[k].target >= 0 && rig_ancestor(b, (int)j, (int)k))
                clear = false;
        if (clear)
            embed_hanging(&f, (int)j, st, sc);
    }
    /* step 3: weighted joints one by one, parents first (an unweighted one placed here would
     * only narrow its children's room) */
    memset(f.blocked, 0, nb * sizeof *f.blocked);
    for (size_t j = 0; j < nj; j++)
        if (sug->joints[j].target < 0 && b->joints[j].weighted && !f.user_off[j])
            embed_single(&f, (int)j, st, sc);
    sug->fallback_count = 0;
    for (size_t j = 0; j < nj; j++)
        sug->fallback_count += sug->joints[j].source == AM_MAP_FALLBACK;
    status = warn_unembedded(&f, err);
done:
    pool_give_back(&f);
    if (!status && f.nomem)
        status = am_fail_nomem(err, "joint-map fallback");
    free(f.sub_end);
    free(f.need);
    free(f.need_below);
    free(f.user_off);
    free(f.rig_bone);
    free(f.viewer_bone);
    free(f.blocked);
    free(f.used);
    free(f.memo);
    free(f.saved);
    free(f.saved_taken);
    free(st);
    free(sc);
    return status;
}
