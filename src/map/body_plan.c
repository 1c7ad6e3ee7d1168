/* The body plan of a skeleton and its evidence (body_plan.h). */
#include "map/body_plan.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A joint turned by a clip by more than this counts as moving (a skeleton without skin). */
#define MOVING_DEG 0.5
/* Arms whose lowest joint is within this share of the legs' height of the feet stand on the
 * ground: forelegs. */
#define GROUND_SHARE 0.3
/* A body without legs is a serpent when one chain holds this share of its joints (an
 * abstract armature that branches, assimp's huesitos, is other). */
#define SERPENT_SHARE 0.6

const char *am_body_plan_label(am_body_plan_kind k)
{
    switch (k) {
    case AM_PLAN_BIPED: return "biped";
    case AM_PLAN_QUADRUPED: return "quadruped";
    case AM_PLAN_WINGED: return "winged";
    case AM_PLAN_SERPENT: return "serpent";
    default: return "other";
    }
}

const char *am_limb_role_label(am_limb_role r)
{
    switch (r) {
    case AM_LIMB_FORELEG: return "foreleg";
    case AM_LIMB_HINDLEG: return "hind leg";
    case AM_LIMB_ARM: return "arm";
    case AM_LIMB_WING: return "wing";
    case AM_LIMB_TAIL: return "tail";
    default: return "leg";
    }
}

static const char *role_plural(am_limb_role r)
{
    switch (r) {
    case AM_LIMB_FORELEG: return "forelegs";
    case AM_LIMB_HINDLEG: return "hind legs";
    case AM_LIMB_ARM: return "arms";
    case AM_LIMB_WING: return "wings";
    case AM_LIMB_TAIL: return "tail";
    default: return "legs";
    }
}

static const char *viewer_label(am_limb_viewer v)
{
    switch (v) {
    case AM_VIEWER_LEGS: return "the viewer's legs (mHip..mToe)";
    case AM_VIEWER_ARMS: return "the viewer's arms (mCollar..mWrist)";
    case AM_VIEWER_HINDLIMBS: return "the viewer's hind limbs (mHindLimb1..4)";
    case AM_VIEWER_WINGS: return "the viewer's wings (mWing1..4)";
    case AM_VIEWER_TAIL: return "the viewer's tail (mTail1..6)";
    default: return "nothing (unmapped)";
    }
}

/* The viewer chain a viewer joint belongs to. */
static am_limb_viewer viewer_family(const char *n)
{
    if (strstr(n, "HindLimb"))
        return AM_VIEWER_HINDLIMBS;
    if (strstr(n, "Wing"))
        return AM_VIEWER_WINGS;
    if (strstr(n, "Tail"))
        return AM_VIEWER_TAIL;
    if (strstr(n, "Hip") || strstr(n, "Knee") || strstr(n, "Ankle") || strstr(n, "Foot") || strstr(n, "Toe"))
        return AM_VIEWER_LEGS;
    if (strstr(n, "Collar") || strstr(n, "Shoulder") || strstr(n, "Elbow") || strstr(n, "Wrist") ||
        strstr(n, "Hand"))
        return AM_VIEWER_ARMS;
    return AM_VIEWER_NONE;
}

static am_vec3 axis_vector(int a)
{
    double s = a < 0 ? -1 : 1;
    switch (abs(a)) {
    case 1: return am_v3(s, 0, 0);
    case 2: return am_v3(0, s, 0);
    case 3: return am_v3(0, 0, s);
    default: return am_v3(0, 0, 0);
    }
}

typedef struct plan_ctx {
    const am_scene *s;
    const am_body *b;
    const am_map_suggestion *sug;
    const am_skeleton *skel;
    bool any_weight;
    bool *moving; /* per scene node; NULL: nothing moves (count every chain) */
} plan_ctx;

/* Which scene nodes a clip turns by more than MOVING_DEG; NULL when none (or no memory:
 * then every chain counts, as for a bare skeleton). */
static bool *moving_nodes(const am_scene *s)
{
    bool *m = calloc(s->node_count ? s->node_count : 1, sizeof *m);
    if (!m)
        return NULL;
    bool any = false;
    double cos_half = cos(0.5 * MOVING_DEG * AM_DEG2RAD);
    for (size_t c = 0; c < s->clip_count; c++)
        for (size_t k = 0; k < s->clips[c].channel_count; k++) {
            const am_scene_channel *ch = &s->clips[c].channels[k];
            if (ch->path != AM_SCENE_PATH_ROTATION || ch->node < 0 || (size_t)ch->node >= s->node_count ||
                m[ch->node])
                continue;
            size_t stride = ch->interp == AM_SCENE_INTERP_CUBICSPLINE ? 12 : 4,
                   off = ch->interp == AM_SCENE_INTERP_CUBICSPLINE ? 4 : 0;
            const float *q0 = ch->values + off;
            for (size_t i = 1; i < ch->key_count; i++) {
                const float *q = ch->values + i * stride + off;
                double d = fabs((double)q[0] * q0[0] + (double)q[1] * q0[1] + (double)q[2] * q0[2] +
                                (double)q[3] * q0[3]);
                double n0 = sqrt((double)q0[0] * q0[0] + (double)q0[1] * q0[1] + (double)q0[2] * q0[2] +
                                 (double)q0[3] * q0[3]),
                       n1 = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                                 (double)q[3] * q[3]);
                if (n0 > 0 && n1 > 0 && d / (n0 * n1) < cos_half) {
                    m[ch->node] = any = true;
                    break;
                }
            }
        }
    if (!any) {
        free(m);
        return NULL;
    }
    return m;
}

/* The viewer's own extension joints (Bento: mWing*, mTail*, mHindLimb*, mSpine1..4): every
 * file of the full viewer skeleton has them, used or not. */
static bool viewer_extension(const plan_ctx *c, const am_body_chain *ch)
{
    if (!ch->count || !c->skel)
        return false;
    const char *n = c->s->nodes[c->b->joints[ch->joints[0]].node].name;
    if (am_skeleton_find_exact(c->skel, n) < 0)
        return false;
    am_limb_viewer v = viewer_family(n);
    return v == AM_VIEWER_WINGS || v == AM_VIEWER_TAIL || v == AM_VIEWER_HINDLIMBS || strncmp(n, "mSpine", 6) == 0;
}

/* Skinned: a joint carries weight. Not skinned: any chain but the viewer's own extension
 * joints, which count when a clip turns them. */
static bool chain_counts(const plan_ctx *c, const am_body_chain *ch)
{
    if (!c->any_weight && !viewer_extension(c, ch))
        return true;
    for (size_t k = 0; k < ch->count; k++) {
        const am_body_joint *j = &c->b->joints[ch->joints[k]];
        if (c->any_weight ? j->weighted : c->moving && c->moving[j->node])
            return true;
    }
    return false;
}

/* A chain whose first joint carries a viewer name: does the name's limb fit the chain's kind?
 * (Ruth2's hands alone pair a pinky with a thumb as "legs"; the names are the viewer's and
 * say hand.) Other names: true. */
static bool names_agree(const plan_ctx *c, const am_body_chain *ch)
{
    if (!ch->count || !c->skel)
        return true;
    const char *n = c->s->nodes[c->b->joints[ch->joints[0]].node].name;
    if (am_skeleton_find_exact(c->skel, n) < 0)
        return true;
    am_limb_viewer v = viewer_family(n);
    switch (ch->kind) {
    case AM_CHAIN_LEG:
    case AM_CHAIN_HINDLIMB: return v == AM_VIEWER_LEGS || v == AM_VIEWER_HINDLIMBS;
    case AM_CHAIN_ARM: return v == AM_VIEWER_LEGS || v == AM_VIEWER_HINDLIMBS || (v == AM_VIEWER_ARMS && !strstr(n, "Hand"));
    case AM_CHAIN_WING: return v == AM_VIEWER_WINGS;
    case AM_CHAIN_TAIL: return v == AM_VIEWER_TAIL;
    default: return true;
    }
}

static am_limb_viewer chain_viewer(const plan_ctx *c, const am_body_chain *ch)
{
    for (size_t k = 0; k < ch->count; k++) {
        int j = ch->joints[k], t = -1;
        if (c->sug && (size_t)j < c->sug->count)
            t = c->sug->joints[j].target;
        else if (c->skel)
            t = am_skeleton_find_exact(c->skel, c->s->nodes[c->b->joints[j].node].name);
        if (t >= 0 && c->skel && (size_t)t < c->skel->joint_count) {
            am_limb_viewer v = viewer_family(c->skel->joints[t].name);
            if (v != AM_VIEWER_NONE)
                return v;
        }
    }
    return AM_VIEWER_NONE;
}

void am_body_plan_free(am_body_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < AM_BODY_PLAN_MAX_LIMBS; i++)
        am_string_free(&p->limbs[i].joints);
    am_string_free(&p->evidence);
    memset(p, 0, sizeof *p);
}

bool am_body_plan_copy(am_body_plan *dst, const am_body_plan *src)
{
    if (dst == src)
        return true;
    am_body_plan_free(dst);
    am_body_plan c = *src; /* the numbers; every text copied below */
    bool ok = true;
    for (size_t i = 0; i < AM_BODY_PLAN_MAX_LIMBS; i++) {
        c.limbs[i].joints = (am_string){0};
        ok = ok && am_string_copy(&c.limbs[i].joints, &src->limbs[i].joints);
    }
    c.evidence = (am_string){0};
    ok = ok && am_string_copy(&c.evidence, &src->evidence);
    if (!ok) {
        am_body_plan_free(&c);
        return false;
    }
    *dst = c;
    return true;
}

/* "LeftUpLeg, RightUpLeg": the first joint of the chain and of its mirror. */
static bool chain_names(const plan_ctx *c, int chain, am_string *out)
{
    const am_body_chain *ch = &c->b->chains[chain];
    int na = ch->count ? c->b->joints[ch->joints[0]].node : -1;
    int nb = ch->mirror >= 0 && c->b->chains[ch->mirror].count ? c->b->joints[c->b->chains[ch->mirror].joints[0]].node
                                                               : -1;
    /* each name whole: room for the node's own name, or its "#N" */
    size_t sa = na >= 0 ? strlen(c->s->nodes[na].name) + 32 : 1, sb = nb >= 0 ? strlen(c->s->nodes[nb].name) + 32 : 1;
    char *a = malloc(sa), *b = malloc(sb);
    bool ok = a && b;
    if (ok) {
        a[0] = b[0] = '\0';
        if (na >= 0)
            am_map_rig_name(c->s, na, a, sa);
        if (nb >= 0)
            am_map_rig_name(c->s, nb, b, sb);
        ok = am_string_setf(out, "%s%s%s", a, b[0] ? ", " : "", b);
    }
    free(a);
    free(b);
    return ok;
}

/* Lowest point of a chain (and its mirror) along up, from `from`. */
static double chain_low(const am_body *b, const am_body_chain *ch, am_vec3 from, am_vec3 up)
{
    double low = 1e300;
    const am_body_chain *two[2] = {ch, ch->mirror >= 0 ? &b->chains[ch->mirror] : ch};
    for (int s = 0; s < 2; s++)
        for (size_t k = 0; k < two[s]->count; k++)
            low = fmin(low, am_v3_dot(am_v3_sub(b->joints[two[s]->joints[k]].bind, from), up));
    return low;
}

static double chain_along(const am_body *b, const am_body_chain *ch, am_vec3 dir)
{
    if (!ch->count)
        return 0;
    return am_v3_dot(b->joints[ch->joints[0]].bind, dir);
}

static size_t appendf(char *out, size_t size, size_t n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t appendf(char *out, size_t size, size_t n, const char *fmt, ...)
{
    if (n + 1 >= size)
        return n;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(out + n, size - n, fmt, ap);
    va_end(ap);
    if (k < 0)
        return n;
    return n + (size_t)k < size ? n + (size_t)k : size - 1;
}

static bool add_limb(am_body_plan *p, const plan_ctx *c, int chain, am_limb_role role)
{
    if (p->limb_count >= AM_BODY_PLAN_MAX_LIMBS)
        return true;
    am_body_plan_limb *l = &p->limbs[p->limb_count++];
    l->role = role;
    l->chain = chain;
    l->count = c->b->chains[chain].mirror >= 0 ? 2 : 1;
    l->viewer = chain_viewer(c, &c->b->chains[chain]);
    return chain_names(c, chain, &l->joints);
}

static bool subtree_weighted(const am_body *b, int j)
{
    if (b->joints[j].weighted)
        return true;
    for (int k = b->joints[j].first_child; k >= 0; k = b->joints[k].next_sibling)
        if (subtree_weighted(b, k))
            return true;
    return false;
}

static double subtree_low(const am_body *b, int j, am_vec3 from, am_vec3 up)
{
    double low = am_v3_dot(am_v3_sub(b->joints[j].bind, from), up);
    for (int k = b->joints[j].first_child; k >= 0; k = b->joints[k].next_sibling)
        low = fmin(low, subtree_low(b, k, from, up));
    return low;
}

static bool add_named_arms(am_body_plan *p, const am_scene *s, const am_body *b, const int named[2], am_limb_role role)
{
    if (p->limb_count >= AM_BODY_PLAN_MAX_LIMBS)
        return true;
    am_body_plan_limb *l = &p->limbs[p->limb_count++];
    l->role = role;
    l->chain = -1;
    l->count = 2;
    l->viewer = AM_VIEWER_ARMS;
    return am_string_setf(&l->joints, "%s, %s", s->nodes[b->joints[named[0]].node].name,
                          s->nodes[b->joints[named[1]].node].name);
}

/* A hierarchy that shows no pairs (Roth2's, flattened under collision volumes) but carries
 * the viewer's own names: the limbs whose joints carry weight on both sides, by name. */
static bool limbs_by_viewer_names(am_body_plan *p, const am_scene *s, const am_body *b, const am_skeleton *skel,
                                  bool any_weight, bool *ok)
{
    if (!skel)
        return false;
    static const am_limb_viewer fam[] = {AM_VIEWER_LEGS, AM_VIEWER_HINDLIMBS, AM_VIEWER_ARMS, AM_VIEWER_WINGS};
    int first[4][2];
    for (size_t f = 0; f < 4; f++)
        first[f][0] = first[f][1] = -1;
    for (size_t i = 0; i < b->joint_count; i++) {
        if (any_weight && !b->joints[i].weighted)
            continue;
        const char *nm = s->nodes[b->joints[i].node].name;
        if (am_skeleton_find_exact(skel, nm) < 0)
            continue;
        int side = strstr(nm, "Left") ? 0 : strstr(nm, "Right") ? 1 : -1;
        am_limb_viewer v = viewer_family(nm);
        for (size_t f = 0; f < 4 && side >= 0; f++)
            if (fam[f] == v && first[f][side] < 0)
                first[f][side] = (int)i;
    }
    static const am_limb_role role[] = {AM_LIMB_LEG, AM_LIMB_HINDLEG, AM_LIMB_ARM, AM_LIMB_WING};
    for (size_t f = 0; f < 4 && p->limb_count < AM_BODY_PLAN_MAX_LIMBS; f++) {
        if (first[f][0] < 0 || first[f][1] < 0)
            continue;
        am_body_plan_limb *l = &p->limbs[p->limb_count++];
        l->role = role[f];
        l->viewer = fam[f];
        l->chain = -1;
        l->count = 2;
        *ok &= am_string_setf(&l->joints, "%s, %s", s->nodes[b->joints[first[f][0]].node].name,
                              s->nodes[b->joints[first[f][1]].node].name);
        if (fam[f] == AM_VIEWER_LEGS || fam[f] == AM_VIEWER_HINDLIMBS)
            p->leg_pairs++;
    }
    if (p->leg_pairs == 2) /* the viewer's legs and hind limbs: which is in front is not in the names */
        p->limbs[0].role = AM_LIMB_LEG;
    return p->limb_count > 0;
}

bool am_body_plan_classify(const am_scene *s, const am_body *b, const am_axes *ax, const am_map_suggestion *sug,
                           const am_skeleton *skel, am_body_plan *p)
{
    memset(p, 0, sizeof *p);
    bool ok = true;
    plan_ctx c = {.s = s, .b = b, .sug = sug, .skel = skel};
    for (size_t i = 0; i < b->joint_count && !c.any_weight; i++)
        c.any_weight = b->joints[i].weighted;
    if (!c.any_weight)
        c.moving = moving_nodes(s);
    p->weighted = c.any_weight;

    /* pairs by kind (the left one of each; a pair counts when either side does) */
    int legs = -1, hind2 = -1, arms = -1, wings = -1, tail = -1;
    am_string ignored = {0};
    for (size_t i = 0; i < b->chain_count; i++) {
        const am_body_chain *ch = &b->chains[i];
        if (ch->mirror >= 0 && (int)i > ch->mirror)
            continue; /* the pair's first chain stands for it */
        int *slot = ch->kind == AM_CHAIN_LEG        ? &legs
                    : ch->kind == AM_CHAIN_HINDLIMB ? &hind2
                    : ch->kind == AM_CHAIN_ARM      ? &arms
                    : ch->kind == AM_CHAIN_WING     ? &wings
                    : ch->kind == AM_CHAIN_TAIL     ? &tail
                                                    : NULL;
        if (!slot || *slot >= 0)
            continue;
        bool agree = names_agree(&c, ch);
        bool counts = agree && (chain_counts(&c, ch) || (ch->mirror >= 0 && chain_counts(&c, &b->chains[ch->mirror])));
        if (counts) {
            *slot = (int)i;
        } else {
            am_string names = {0};
            ok &= chain_names(&c, (int)i, &names);
            ok &= am_string_appendf(&ignored, "%s%s (%s: %s)", ignored.length ? ", " : "", am_chain_kind_label(ch->kind),
                       am_str(&names),
                       !agree ? "the viewer names say otherwise"
                       : c.any_weight ? "no vertex weight"
                                      : "not animated");
            am_string_free(&names);
        }
    }

    /* up: the axes', else where the legs hang */
    am_vec3 up = ax ? axis_vector(ax->up) : am_v3(0, 0, 0);
    am_vec3 hub = b->leg_hub >= 0 ? b->joints[b->leg_hub].bind : am_v3(0, 0, 0);
    if (am_v3_len(up) == 0 && legs >= 0) {
        const am_body_chain *l = &b->chains[legs];
        am_vec3 d = am_v3_sub(b->joints[l->joints[l->count - 1]].bind, hub);
        if (l->mirror >= 0) {
            const am_body_chain *m = &b->chains[l->mirror];
            d = am_v3_add(d, am_v3_sub(b->joints[m->joints[m->count - 1]].bind, hub));
        }
        up = am_v3_len(d) > 0 ? am_v3_scale(am_v3_normalize(d), -1) : d;
    }
    /* forward: the axes', else from the pelvis towards the head or chest */
    am_vec3 fwd = ax ? axis_vector(ax->forward) : am_v3(0, 0, 0);
    int top = b->head >= 0 ? b->head : b->chest;
    if (am_v3_len(fwd) == 0 && top >= 0 && b->pelvis >= 0 && top != b->pelvis)
        fwd = am_v3_sub(b->joints[top].bind, b->joints[b->pelvis].bind);
    /* No arms at the chest body.h chose, but the viewer's own arms carry the mesh (the Bento
     * skeleton's unweighted hind limbs hang nearer the root than its arms): those. */
    int named[2] = {-1, -1};
    if (arms < 0 && legs >= 0 && skel) {
        int cl = am_skeleton_find_exact(skel, "mCollarLeft"), cr = am_skeleton_find_exact(skel, "mCollarRight");
        for (size_t i = 0; i < b->joint_count && cl >= 0; i++) {
            int v = am_skeleton_find(skel, s->nodes[b->joints[i].node].name); /* aliases too: lCollar */
            if (v == cl && named[0] < 0)
                named[0] = (int)i;
            else if (v == cr && named[1] < 0)
                named[1] = (int)i;
        }
        if (named[0] < 0 || named[1] < 0 ||
            (c.any_weight && !subtree_weighted(b, named[0]) && !subtree_weighted(b, named[1])))
            named[0] = named[1] = -1;
    }
    bool have_arms = arms >= 0 || named[0] >= 0;
    bool upright = false, know_body = false;
    if (named[0] >= 0 && b->joints[named[0]].parent >= 0) /* the viewer's arms hang from the chest */
        top = b->joints[named[0]].parent;
    if (top >= 0 && b->pelvis >= 0 && top != b->pelvis && am_v3_len(up) > 0) {
        am_vec3 sp = am_v3_sub(b->joints[top].bind, b->joints[b->pelvis].bind);
        if (am_v3_len(sp) > 0) {
            know_body = true;
            upright = am_v3_dot(am_v3_normalize(sp), up) >= cos(45 * AM_DEG2RAD);
        }
    }


    /* arms standing on the ground are forelegs */
    bool forelegs = false;
    double feet = 0, arm_low = 0;
    if (legs >= 0 && have_arms && am_v3_len(up) > 0) {
        feet = chain_low(b, &b->chains[legs], hub, up);
        arm_low = arms >= 0 ? chain_low(b, &b->chains[arms], hub, up)
                            : fmin(subtree_low(b, named[0], hub, up), subtree_low(b, named[1], hub, up));
        forelegs = feet < 0 && arm_low <= (1 - GROUND_SHARE) * feet;
    }
    /* two pairs of legs: which is in front */
    if (legs >= 0 && (forelegs || hind2 >= 0)) {
        double second = forelegs ? (arms >= 0 ? chain_along(b, &b->chains[arms], fwd)
                                              : am_v3_dot(b->joints[named[0]].bind, fwd))
                                 : chain_along(b, &b->chains[hind2], fwd);
        bool second_front = am_v3_len(fwd) > 0 ? second > chain_along(b, &b->chains[legs], fwd)
                                               : forelegs; /* arms at the chest are in front */
        ok &= add_limb(p, &c, legs, second_front ? AM_LIMB_HINDLEG : AM_LIMB_FORELEG);
        if (forelegs && arms < 0)
            ok &= add_named_arms(p, s, b, named, second_front ? AM_LIMB_FORELEG : AM_LIMB_HINDLEG);
        else
            ok &= add_limb(p, &c, forelegs ? arms : hind2, second_front ? AM_LIMB_FORELEG : AM_LIMB_HINDLEG);
        p->leg_pairs = 2;
    } else if (legs >= 0) {
        ok &= add_limb(p, &c, legs, AM_LIMB_LEG);
        p->leg_pairs = 1;
    }
    if (have_arms && !forelegs) {
        if (arms >= 0)
            ok &= add_limb(p, &c, arms, AM_LIMB_ARM);
        else
            ok &= add_named_arms(p, s, b, named, AM_LIMB_ARM);
    }
    if (hind2 >= 0 && forelegs) { /* a third pair */
        ok &= add_limb(p, &c, hind2, AM_LIMB_LEG);
        p->leg_pairs++;
    }
    if (wings >= 0)
        ok &= add_limb(p, &c, wings, AM_LIMB_WING);
    if (tail >= 0)
        ok &= add_limb(p, &c, tail, AM_LIMB_TAIL);

    bool by_names = false;
    if (!p->limb_count)
        by_names = limbs_by_viewer_names(p, s, b, skel, c.any_weight, &ok);

    /* the plan */
    /* the joints a serpent's chain must hold 60 % of: all of them, but only the weighted ones
     * of the full viewer skeleton (a tail on a Bento skeleton that weights nothing else) */
    size_t longest = 0, joints = 0;
    bool viewer_named = skel && b->root >= 0 && am_skeleton_find_exact(skel, s->nodes[b->joints[b->root].node].name) >= 0;
    for (size_t i = 0; i < b->joint_count; i++)
        joints += !(c.any_weight && viewer_named) || b->joints[i].weighted;
    for (size_t i = 0; i < b->chain_count; i++)
        if (names_agree(&c, &b->chains[i]) && chain_counts(&c, &b->chains[i]))
            longest = b->chains[i].count > longest ? b->chains[i].count : longest;
    free(c.moving);
    c.moving = NULL;
    bool winged = wings >= 0;
    for (size_t i = 0; i < p->limb_count; i++)
        winged |= p->limbs[i].role == AM_LIMB_WING;
    if (winged)
        p->kind = AM_PLAN_WINGED;
    else if (p->leg_pairs == 2)
        p->kind = AM_PLAN_QUADRUPED;
    else if (p->leg_pairs == 1)
        p->kind = AM_PLAN_BIPED;
    else if (p->leg_pairs == 0 && longest >= 4 && longest >= SERPENT_SHARE * (double)joints)
        p->kind = AM_PLAN_SERPENT;
    else
        p->kind = AM_PLAN_OTHER;

    /* the evidence */
    am_string *e = &p->evidence;
    for (size_t i = 0; i < p->limb_count; i++)
        ok &= am_string_appendf(e, "%s%s (%s)", i ? "; " : "", role_plural(p->limbs[i].role), am_str(&p->limbs[i].joints));
    if (!p->limb_count)
        ok &= am_string_appendf(e, "no pair of limbs%s", p->kind == AM_PLAN_SERPENT ? ", one long chain" : "");
    if (by_names)
        ok &= am_string_appendf(e, "; read from the viewer joint names (the hierarchy shows no pair of limbs)");
    if (legs >= 0 && have_arms && feet < 0)
        ok &= am_string_appendf(e, "; the %s' lowest joint is %.2f hip heights above the feet", forelegs ? "forelegs" : "arms",
                   1 - arm_low / feet);
    if (know_body)
        ok &= am_string_appendf(e, "; %s body", upright ? "upright" : "horizontal");
    if (p->leg_pairs > 2)
        ok &= am_string_appendf(e, "; %zu pairs of legs", p->leg_pairs);
    if (ignored.length)
        ok &= am_string_appendf(e, "; not counted: %s", am_str(&ignored));
    am_string_free(&ignored);
    return ok;
}

bool am_body_plan_from_viewer(const am_skeleton *skel, const bool *weighted, const am_vec3 *rest, am_body_plan *p)
{
    memset(p, 0, sizeof *p);
    bool ok = true;
    p->weighted = true;
    /* per family and side: weighted joints, the first one's name, the lowest z, the mean x */
    enum { F_LEGS, F_ARMS, F_HIND, F_WINGS, F_TAIL, F_N };
    static const am_limb_viewer fam[F_N] = {AM_VIEWER_LEGS, AM_VIEWER_ARMS, AM_VIEWER_HINDLIMBS, AM_VIEWER_WINGS,
                                             AM_VIEWER_TAIL};
    int first[F_N][2];
    double low[F_N], x[F_N];
    size_t count[F_N];
    for (int f = 0; f < F_N; f++) {
        first[f][0] = first[f][1] = -1;
        low[f] = 1e300;
        x[f] = 0;
        count[f] = 0;
    }
    for (size_t j = 0; j < skel->joint_count; j++) {
        if (!weighted[j])
            continue;
        const char *nm = skel->joints[j].name;
        am_limb_viewer v = viewer_family(nm);
        int side = strstr(nm, "Left") ? 0 : strstr(nm, "Right") ? 1 : v == AM_VIEWER_TAIL ? 0 : -1;
        for (int f = 0; f < F_N && side >= 0; f++) {
            if (fam[f] != v)
                continue;
            if (first[f][side] < 0)
                first[f][side] = (int)j;
            low[f] = fmin(low[f], rest[j].z);
            x[f] += rest[j].x;
            count[f]++;
        }
    }
    bool has[F_N];
    for (int f = 0; f < F_N; f++) {
        has[f] = f == F_TAIL ? first[f][0] >= 0 : first[f][0] >= 0 && first[f][1] >= 0;
        if (count[f])
            x[f] /= (double)count[f];
    }
    /* the hips' height above the feet; arms down to within 30 % of it are forelegs */
    int hip = am_skeleton_find_exact(skel, "mHipLeft");
    double hub = hip >= 0 ? rest[hip].z : 0;
    double feet = has[F_LEGS] ? low[F_LEGS] - hub : 0, arm_low = has[F_ARMS] ? low[F_ARMS] - hub : 0;
    bool forelegs = has[F_LEGS] && has[F_ARMS] && feet < 0 && arm_low <= (1 - GROUND_SHARE) * feet;
    int second = forelegs ? F_ARMS : has[F_HIND] ? F_HIND : -1;
    static const am_limb_role plain[F_N] = {AM_LIMB_LEG, AM_LIMB_ARM, AM_LIMB_HINDLEG, AM_LIMB_WING, AM_LIMB_TAIL};
    am_limb_role role[F_N];
    memcpy(role, plain, sizeof role);
    if (has[F_LEGS] && second >= 0) {
        bool second_front = x[second] > x[F_LEGS];
        role[F_LEGS] = second_front ? AM_LIMB_HINDLEG : AM_LIMB_FORELEG;
        role[second] = second_front ? AM_LIMB_FORELEG : AM_LIMB_HINDLEG;
        p->leg_pairs = 2;
    } else if (has[F_LEGS] || has[F_HIND]) {
        p->leg_pairs = 1;
    }
    for (int f = 0; f < F_N && p->limb_count < AM_BODY_PLAN_MAX_LIMBS; f++) {
        if (!has[f])
            continue;
        am_body_plan_limb *l = &p->limbs[p->limb_count++];
        l->role = role[f];
        l->viewer = fam[f];
        l->chain = -1;
        l->count = f == F_TAIL ? 1 : 2;
        if (f == F_TAIL)
            ok &= am_string_set(&l->joints, skel->joints[first[f][0]].name);
        else
            ok &= am_string_setf(&l->joints, "%s, %s", skel->joints[first[f][0]].name,
                                 skel->joints[first[f][1]].name);
    }
    p->kind = has[F_WINGS]            ? AM_PLAN_WINGED
              : p->leg_pairs == 2     ? AM_PLAN_QUADRUPED
              : p->leg_pairs == 1     ? AM_PLAN_BIPED
              : has[F_TAIL] && !has[F_ARMS] ? AM_PLAN_SERPENT
                                      : AM_PLAN_OTHER;
    am_string *e = &p->evidence;
    ok &= am_string_appendf(e, "viewer joints carrying weight: ");
    for (size_t i = 0; i < p->limb_count; i++)
        ok &= am_string_appendf(e, "%s%s (%s)", i ? "; " : "", role_plural(p->limbs[i].role), am_str(&p->limbs[i].joints));
    if (!p->limb_count)
        ok &= am_string_appendf(e, "no limb on both sides");
    if (has[F_LEGS] && has[F_ARMS] && feet < 0)
        ok &= am_string_appendf(e, "; the %s' lowest joint is %.2f hip heights above the feet", forelegs ? "forelegs" : "arms",
                   1 - arm_low / feet);
    return ok;
}

bool am_body_plan_viewer_avatar(am_body_plan *p)
{
    memset(p, 0, sizeof *p);
    p->kind = AM_PLAN_BIPED;
    p->leg_pairs = 1;
    p->weighted = true;
    p->limbs[0] = (am_body_plan_limb){.role = AM_LIMB_LEG, .viewer = AM_VIEWER_LEGS, .chain = -1, .count = 2};
    bool ok = am_string_set(&p->limbs[0].joints, "mHipLeft, mHipRight");
    p->limbs[1] = (am_body_plan_limb){.role = AM_LIMB_ARM, .viewer = AM_VIEWER_ARMS, .chain = -1, .count = 2};
    ok &= am_string_set(&p->limbs[1].joints, "mCollarLeft, mCollarRight");
    p->limb_count = 2;
    ok &= am_string_set(&p->evidence,
                        "the stock viewer avatar: legs (mHipLeft, mHipRight); arms (mCollarLeft, mCollarRight); upright body");
    return ok;
}

static bool same_role(am_limb_role a, am_limb_role b)
{
    /* a biped's legs and a quadruped's hind legs both carry the body from the pelvis */
    if ((a == AM_LIMB_LEG && b == AM_LIMB_HINDLEG) || (a == AM_LIMB_HINDLEG && b == AM_LIMB_LEG))
        return true;
    return a == b;
}

static const am_body_plan_limb *limb_on(const am_body_plan *p, am_limb_viewer v)
{
    for (size_t i = 0; i < p->limb_count; i++)
        if (p->limbs[i].viewer == v)
            return &p->limbs[i];
    return NULL;
}

static bool is_leg(am_limb_role r)
{
    return r == AM_LIMB_LEG || r == AM_LIMB_FORELEG || r == AM_LIMB_HINDLEG;
}

bool am_body_plan_mismatch(const am_body_plan *src, const am_body_plan *dst, char *why, size_t size)
{
    if (size)
        why[0] = '\0';
    if (src->kind == AM_PLAN_OTHER || dst->kind == AM_PLAN_OTHER || src->kind == dst->kind)
        return false;
    char text[1200];
    size_t n = appendf(text, sizeof text, 0, "a %s motion onto a %s:", am_body_plan_label(src->kind),
                       am_body_plan_label(dst->kind));
    size_t said = 0;
    /* the motion does not fit when a limb would drive one of another role, or legs get no
     * motion or drive nothing; wings alone (an angel's, still in a biped's clip) do not refuse */
    bool misfit = false;
    static const am_limb_viewer order[] = {AM_VIEWER_ARMS, AM_VIEWER_LEGS, AM_VIEWER_HINDLIMBS, AM_VIEWER_WINGS};
    /* what disagrees first, then what gets nothing, then what drives nothing */
    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
            const am_body_plan_limb *x = limb_on(src, order[i]), *y = limb_on(dst, order[i]);
            if (pass == 0 && x && y && !same_role(x->role, y->role)) {
                n = appendf(text, sizeof text, n, "%s its %s (%s) would drive the %s (%s)", said++ ? ";" : "",
                            role_plural(x->role), am_str(&x->joints), role_plural(y->role), am_str(&y->joints));
                misfit = true;
            } else if (pass == 1 && y && !x) {
                n = appendf(text, sizeof text, n, "%s the %s (%s) get no motion", said++ ? ";" : "",
                            role_plural(y->role), am_str(&y->joints));
                misfit |= is_leg(y->role);
            } else if (pass == 2 && x && !y) {
                n = appendf(text, sizeof text, n, "%s its %s (%s) drive nothing the creature uses", said++ ? ";" : "",
                            role_plural(x->role), am_str(&x->joints));
                misfit |= is_leg(x->role);
            }
        }
    }
    if (!said) { /* no limb meets another on a viewer chain: the plans alone say it */
        n = appendf(text, sizeof text, n, " it has %s; the creature has %s", am_str(&src->evidence), am_str(&dst->evidence));
        misfit = true;
    }
    (void)n;
    if (misfit && size)
        snprintf(why, size, "%s", text);
    return misfit;
}

json_t *am_body_plan_json(const am_body_plan *p)
{
    json_t *o = json_object(), *limbs = json_array();
    if (!o || !limbs) {
        json_decref(o);
        json_decref(limbs);
        return NULL;
    }
    json_object_set_new(o, "plan", json_string(am_body_plan_label(p->kind)));
    json_object_set_new(o, "evidence", json_string(am_str(&p->evidence)));
    for (size_t i = 0; i < p->limb_count; i++) {
        const am_body_plan_limb *l = &p->limbs[i];
        json_t *x = json_object();
        if (!x)
            continue;
        json_object_set_new(x, "role", json_string(am_limb_role_label(l->role)));
        json_object_set_new(x, "joints", json_string(am_str(&l->joints)));
        json_object_set_new(x, "drives", json_string(viewer_label(l->viewer)));
        json_array_append_new(limbs, x);
    }
    json_object_set_new(o, "limbs", limbs);
    return o;
}
