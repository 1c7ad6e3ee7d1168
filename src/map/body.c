/* The body plan: joints, mirror pairs, hubs and chains (body.h). */
#include "map/body.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int am_body_primary_skin(const am_scene *s)
{
    for (size_t i = 0; i < s->mesh_count; i++)
        if (s->meshes[i].skin >= 0)
            return s->meshes[i].skin;
    return -1;
}

am_mat4 am_body_bind_placement(const am_scene *s, int skin)
{
    am_mat4 x = am_mat4_identity();
    const am_scene_skin *k = skin >= 0 && (size_t)skin < s->skin_count ? &s->skins[skin] : NULL;
    if (!k || !k->has_inverse_binds)
        return x;
    size_t best = k->joint_count;
    for (size_t j = 0; j < k->joint_count; j++)
        if (k->joint_nodes[j] >= 0 && (best == k->joint_count || k->joint_nodes[j] < k->joint_nodes[best]))
            best = j;
    if (best == k->joint_count)
        return x;
    am_mat4 p = am_mat4_mul(&k->inverse_binds[best], &s->nodes[k->joint_nodes[best]].world);
    am_mat4 id = am_mat4_identity();
    return am_mat4_max_abs_diff(&p, &id) < 1e-9 ? id : p;
}

/* A skinned mesh's vertex -> placed bind frame: bind shape, then X. */
static am_mat4 mesh_bind(const am_scene *s, const am_scene_mesh *m)
{
    am_mat4 x = am_body_bind_placement(s, m->skin);
    return am_mat4_mul(&s->skins[m->skin].bind_shape, &x);
}

static am_vec3 placed(const am_mat4 *bx, const am_scene_mesh *m, size_t v)
{
    return am_mat4_transform_point(bx, am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]));
}

am_vec3 am_body_bind_vertex(const am_scene *s, const am_scene_mesh *m, size_t v)
{
    am_mat4 bx = mesh_bind(s, m);
    return placed(&bx, m, v);
}

void am_body_bind_matrices(const am_scene *s, int skin, am_mat4 *out)
{
    am_mat4 place = am_body_bind_placement(s, skin);
    const am_scene_skin *k = skin >= 0 && (size_t)skin < s->skin_count ? &s->skins[skin] : NULL;
    /* Each node's skin joint (the first that names it) is parked in the node's own out[]
     * slot first: one pass over the joints, not one per node (a 60k-joint skin), and no
     * allocation. A slot is read before it is overwritten; a parent's is final by then
     * (parents come first). */
    for (size_t i = 0; i < s->node_count; i++)
        out[i].m[0] = -1;
    for (size_t j = k && k->has_inverse_binds ? k->joint_count : 0; j-- > 0;)
        if (k->joint_nodes[j] >= 0 && (size_t)k->joint_nodes[j] < s->node_count)
            out[k->joint_nodes[j]].m[0] = (double)j;
    for (size_t i = 0; i < s->node_count; i++) {
        const am_scene_node *n = &s->nodes[i];
        int sj = (int)out[i].m[0];
        am_mat4 inv;
        if (sj >= 0 && am_mat4_inverse(&k->inverse_binds[sj], &inv)) {
            out[i] = am_mat4_mul(&inv, &place);
        } else if (n->parent >= 0) {
            /* rigid with the parent's bind: local rest offset under the parent's bind */
            out[i] = am_mat4_mul(&n->local, &out[n->parent]);
        } else {
            out[i] = n->local;
        }
    }
}

void am_body_free(am_body *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->chain_count; i++)
        free(b->chains[i].joints);
    free(b->chains);
    free(b->joints);
    free(b->node_joint);
    memset(b, 0, sizeof *b);
}

const char *am_chain_kind_label(am_chain_kind k)
{
    switch (k) {
    case AM_CHAIN_SPINE: return "spine";
    case AM_CHAIN_NECK: return "neck";
    case AM_CHAIN_SKULL: return "head end";
    case AM_CHAIN_LEG: return "leg";
    case AM_CHAIN_HINDLIMB: return "second leg pair";
    case AM_CHAIN_ARM: return "arm";
    case AM_CHAIN_WING: return "wing";
    case AM_CHAIN_TAIL: return "tail";
    case AM_CHAIN_FINGER: return "finger";
    case AM_CHAIN_EYE: return "eye";
    case AM_CHAIN_EAR: return "ear";
    case AM_CHAIN_JAW: return "jaw";
    default: return "other";
    }
}

/* --- paths ---------------------------------------------------------------------------- */

static double bone_len(const am_body *b, int j)
{
    int p = b->joints[j].parent;
    return p >= 0 ? am_v3_dist(b->joints[j].bind, b->joints[p].bind) : 0;
}

/* The child whose subtree reaches farthest (the main path continues there). */
static int main_child(const am_body *b, int j)
{
    int best = -1;
    double far = -1;
    for (int c = b->joints[j].first_child; c >= 0; c = b->joints[c].next_sibling) {
        double r = bone_len(b, c) + b->joints[c].reach;
        if (r > far + 1e-12) {
            far = r;
            best = c;
        }
    }
    return best;
}

/* The main path from joint c down to a leaf; out holds joint_count entries. */
static size_t main_path(const am_body *b, int c, int *out)
{
    size_t n = 0;
    while (c >= 0 && n < b->joint_count) {
        out[n++] = c;
        c = main_child(b, c);
    }
    return n;
}

static double path_length(const am_body *b, const int *p, size_t n)
{
    double l = 0;
    for (size_t i = 0; i < n; i++)
        l += bone_len(b, p[i]);
    return l;
}

static bool is_ancestor(const am_body *b, int a, int j)
{
    for (int p = b->joints[j].parent; p >= 0; p = b->joints[p].parent)
        if (p == a)
            return true;
    return false;
}

static int lca(const am_body *b, int x, int y)
{
    for (int a = x; a >= 0; a = b->joints[a].parent)
        if (a == y || is_ancestor(b, a, y))
            return a;
    return -1;
}

static bool in_chains(const am_body *b, int j) { return b->joints[j].chain >= 0; }

/* --- mirror pairs --------------------------------------------------------------------- */

typedef struct branch {
    int child;
    int *path;
    size_t n;
    double len;
} branch;

static bool names_mirror(const am_joint_name *a, const am_joint_name *c)
{
    return a->side != 0 && a->side == -c->side && a->part != AM_NAME_UNKNOWN && a->part == c->part &&
           strcmp(a->core, c->core) == 0;
}

/* Mirror error of two branches about a plane through the hub: mean distance between one
 * branch's joints mirrored and the other's, over the longer length; < 0 when not a pair. */
static double mirror_error(const am_body *b, int hub, const branch *x, const branch *y)
{
    double L = fmax(x->len, y->len);
    if (L <= 0 || fabs(x->len - y->len) > 0.5 * L)
        return -1;
    bool by_name = names_mirror(&b->joints[x->child].name, &b->joints[y->child].name);
    am_vec3 h = b->joints[hub].bind;
    am_vec3 ex = am_v3_sub(b->joints[x->path[x->n - 1]].bind, h), ey = am_v3_sub(b->joints[y->path[y->n - 1]].bind, h);
    am_vec3 d = am_v3_sub(ex, ey);
    if (am_v3_len(d) < 0.1 * L)
        return by_name ? 0.5 : -1; /* not apart: not mirror images */
    am_vec3 n = am_v3_normalize(d);
    size_t m = x->n < y->n ? x->n : y->n;
    double err = 0;
    for (size_t k = 0; k < m; k++) {
        /* compare the k-th joints from the END, so a missing first joint does not shift */
        am_vec3 rx = am_v3_sub(b->joints[x->path[x->n - 1 - k]].bind, h);
        am_vec3 ry = am_v3_sub(b->joints[y->path[y->n - 1 - k]].bind, h);
        am_vec3 mx = am_v3_sub(rx, am_v3_scale(n, 2 * am_v3_dot(rx, n)));
        err = fmax(err, am_v3_dist(mx, ry));
    }
    err /= L;
    if (x->n != y->n && !by_name)
        return -1;
    if (err > 0.2)
        return by_name ? 0.5 : -1;
    return err;
}

/* --- chains ---------------------------------------------------------------------------- */

static am_status add_chain(am_body *b, am_chain_kind kind, int hub, const int *path, size_t n, am_error *err)
{
    am_body_chain *nc = realloc(b->chains, (b->chain_count + 1) * sizeof *nc);
    if (!nc)
        return am_fail_nomem(err, "body chains");
    b->chains = nc;
    am_body_chain *c = &b->chains[b->chain_count];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->hub = hub;
    c->mirror = -1;
    c->finger = -1;
    c->joints = malloc((n ? n : 1) * sizeof *c->joints);
    if (!c->joints)
        return am_fail_nomem(err, "body chains");
    memcpy(c->joints, path, n * sizeof *path);
    c->count = n;
    c->length = path_length(b, path, n);
    for (size_t k = 0; k < n; k++) {
        b->joints[path[k]].chain = (int)b->chain_count;
        b->joints[path[k]].chain_index = (int)k;
    }
    b->chain_count++;
    return AM_OK;
}

/* Spread of the vertices owned (largest influence) by the subtree of branch `top`, across
 * the line from the hub to the branch's end, over the branch's length. */
static double broadness(const am_scene *s, const am_body *b, int hub, const int *path, size_t n)
{
    double len = path_length(b, path, n);
    if (n < 2 || len <= 0)
        return 0;
    am_vec3 a = b->joints[hub].bind, e = b->joints[path[n - 1]].bind;
    am_vec3 dir = am_v3_normalize(am_v3_sub(e, a));
    am_vec3 pts[256];
    size_t np = 0;
    for (size_t mi = 0; mi < s->mesh_count; mi++) {
        const am_scene_mesh *m = &s->meshes[mi];
        if (m->skin < 0)
            continue;
        const am_scene_skin *k = &s->skins[m->skin];
        am_mat4 bx = mesh_bind(s, m);
        size_t step = m->vertex_count / 2048 + 1;
        for (size_t v = 0; v < m->vertex_count && np < 256; v += step) {
            float best = 0;
            int node = -1;
            for (size_t i = m->influence_start[v]; i < m->influence_start[v + 1]; i++)
                if (m->influences[i].weight > best) {
                    best = m->influences[i].weight;
                    node = k->joint_nodes[m->influences[i].joint];
                }
            int j = node >= 0 ? b->node_joint[node] : -1;
            if (j < 0 || (j != path[0] && !is_ancestor(b, path[0], j)))
                continue;
            am_vec3 r = am_v3_sub(placed(&bx, m, v), a);
            pts[np++] = am_v3_sub(r, am_v3_scale(dir, am_v3_dot(r, dir)));
        }
    }
    double w = 0;
    for (size_t i = 0; i < np; i++)
        for (size_t k = i + 1; k < np; k++)
            w = fmax(w, am_v3_dist(pts[i], pts[k]));
    return w / len;
}

/* The significant pair with the smallest mirror error among a hub's branches; other pairs
 * too when `all` (returned in pairs[], count in *np). */
typedef struct pair {
    int x, y; /* branch indices */
    double err;
} pair;

/* The branches a hub's pairs are sought among: those `eligible` (free, and for a
 * significant pair of >= 2 joints and >= min_len), at most AM_BODY_PAIR_BRANCHES of them,
 * the longest, kept in file order. A creature has a few limbs per joint; a joint with
 * thousands of branches (fur, a hostile file) must not cost their square. Returns the
 * count; `idx` holds AM_BODY_PAIR_BRANCHES entries. */
#define AM_BODY_PAIR_BRANCHES 256
static size_t pair_candidates(const am_body *b, const branch *br, size_t nb, double min_len, bool significant,
                              size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < nb; i++) {
        if (in_chains(b, br[i].child) || (significant && (br[i].n < 2 || br[i].len < min_len)))
            continue;
        if (n < AM_BODY_PAIR_BRANCHES) {
            idx[n++] = i;
            continue;
        }
        size_t shortest = 0; /* full: replace the shortest kept when this one is longer */
        for (size_t k = 1; k < n; k++)
            if (br[idx[k]].len < br[idx[shortest]].len)
                shortest = k;
        if (br[i].len > br[idx[shortest]].len) {
            memmove(&idx[shortest], &idx[shortest + 1], (n - shortest - 1) * sizeof *idx);
            idx[n - 1] = i; /* still in file order: i is after every kept one */
        }
    }
    return n;
}

static size_t find_pairs(const am_body *b, int hub, branch *br, size_t nb, double min_len, pair *out, size_t cap)
{
    size_t idx[AM_BODY_PAIR_BRANCHES];
    bool used[AM_BODY_PAIR_BRANCHES] = {false};
    size_t nc = pair_candidates(b, br, nb, min_len, true, idx), np = 0;
    for (;;) {
        pair best = {-1, -1, 1e9};
        for (size_t i = 0; i < nc; i++)
            for (size_t k = i + 1; k < nc; k++) {
                if (used[i] || used[k])
                    continue;
                double e = mirror_error(b, hub, &br[idx[i]], &br[idx[k]]);
                if (e >= 0 && e < best.err)
                    best = (pair){(int)i, (int)k, e};
            }
        if (best.x < 0 || np >= cap)
            break;
        used[best.x] = used[best.y] = true;
        out[np++] = (pair){(int)idx[best.x], (int)idx[best.y], best.err};
    }
    return np;
}

typedef struct hub_info {
    branch *br;
    size_t nb;
    pair pairs[4];
    size_t np;
} hub_info;

static void free_hub(hub_info *h)
{
    for (size_t i = 0; h->br && i < h->nb; i++)
        free(h->br[i].path);
    free(h->br);
    memset(h, 0, sizeof *h);
}

static am_status hub_branches(const am_body *b, int hub, double min_len, hub_info *h, am_error *err)
{
    memset(h, 0, sizeof *h);
    int nc = b->joints[hub].child_count;
    h->br = calloc(nc ? (size_t)nc : 1, sizeof *h->br);
    if (!h->br)
        return am_fail_nomem(err, "body");
    /* each path found in one scratch buffer, then kept at its own length: the branches'
     * paths are disjoint, so together they hold at most every joint once */
    int *scratch = malloc(b->joint_count * sizeof *scratch);
    if (!scratch)
        return am_fail_nomem(err, "body");
    for (int c = b->joints[hub].first_child; c >= 0; c = b->joints[c].next_sibling) {
        branch *x = &h->br[h->nb++];
        x->child = c;
        x->n = main_path(b, c, scratch);
        x->path = malloc(x->n * sizeof *x->path);
        if (!x->path) {
            free(scratch);
            return am_fail_nomem(err, "body");
        }
        memcpy(x->path, scratch, x->n * sizeof *x->path);
        x->len = bone_len(b, c) + b->joints[c].reach;
    }
    free(scratch);
    h->np = find_pairs(b, hub, h->br, h->nb, min_len, h->pairs, 4);
    return AM_OK;
}

/* A branch's path cut where it meets joints already placed. */
static size_t free_prefix(const am_body *b, const branch *x)
{
    size_t n = 0;
    while (n < x->n && !in_chains(b, x->path[n]))
        n++;
    return n;
}

/* The hand of an arm path: named, else the first joint with >= 2 branches of >= 2 joints. */
static size_t find_hand(const am_body *b, const int *path, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (b->joints[path[k]].name.part == AM_NAME_HAND && !b->joints[path[k]].name.segment)
            return k;
    for (size_t k = 1; k < n; k++) {
        int big = 0;
        for (int c = b->joints[path[k]].first_child; c >= 0; c = b->joints[c].next_sibling)
            if (b->joints[c].first_child >= 0)
                big++;
        if (big >= 2)
            return k;
    }
    return n; /* none */
}

static am_status place_fingers(am_body *b, int hand, am_error *err)
{
    int *path = malloc(b->joint_count * sizeof *path);
    if (!path)
        return am_fail_nomem(err, "body");
    am_status st = AM_OK;
    for (int c = b->joints[hand].first_child; c >= 0 && !st; c = b->joints[c].next_sibling) {
        if (in_chains(b, c))
            continue;
        size_t n = main_path(b, c, path);
        if ((st = add_chain(b, AM_CHAIN_FINGER, hand, path, n, err)))
            break;
        am_body_chain *ch = &b->chains[b->chain_count - 1];
        for (size_t k = 0; k < n && ch->finger < 0; k++)
            if (b->joints[path[k]].name.part == AM_NAME_FINGER)
                ch->finger = b->joints[path[k]].name.finger;
    }
    free(path);
    return st;
}

/* Place a pair of branches as two chains of `kind` (arms are cut at the hand, whose
 * branches become fingers). */
static am_status place_pair(am_body *b, int hub, const branch *x, const branch *y, am_chain_kind kind, am_error *err)
{
    const branch *two[2] = {x, y};
    int idx[2];
    for (int s = 0; s < 2; s++) {
        size_t n = free_prefix(b, two[s]);
        size_t hand = kind == AM_CHAIN_ARM ? find_hand(b, two[s]->path, n) : n;
        size_t keep = hand < n ? hand + 1 : n;
        am_status st = add_chain(b, kind, hub, two[s]->path, keep, err);
        if (st)
            return st;
        idx[s] = (int)b->chain_count - 1;
        if (hand < n && (st = place_fingers(b, two[s]->path[hand], err)))
            return st;
    }
    b->chains[idx[0]].mirror = idx[1];
    b->chains[idx[1]].mirror = idx[0];
    return AM_OK;
}

/* --- the analysis ---------------------------------------------------------------------- */

static am_status collect_joints(const am_scene *s, am_body *b, am_error *err)
{
    b->node_joint = malloc((s->node_count ? s->node_count : 1) * sizeof *b->node_joint);
    b->joints = calloc(s->node_count ? s->node_count : 1, sizeof *b->joints);
    am_mat4 *bind = malloc((s->node_count ? s->node_count : 1) * sizeof *bind);
    if (!b->node_joint || !b->joints || !bind) {
        free(bind);
        return am_fail_nomem(err, "body");
    }
    b->skin = am_body_primary_skin(s);
    am_body_bind_matrices(s, b->skin, bind);
    for (size_t i = 0; i < s->node_count; i++) {
        b->node_joint[i] = -1;
        if (!s->nodes[i].is_joint)
            continue;
        int p = s->nodes[i].parent;
        while (p >= 0 && !s->nodes[p].is_joint)
            p = s->nodes[p].parent;
        am_body_joint *j = &b->joints[b->joint_count];
        j->node = (int)i;
        j->parent = p >= 0 ? b->node_joint[p] : -1;
        j->first_child = j->next_sibling = -1;
        j->chain = -1;
        j->bind = am_mat4_get_translation(&bind[i]);
        am_joint_name_parse(s->nodes[i].name, &j->name);
        b->node_joint[i] = (int)b->joint_count++;
    }
    free(bind);
    if (b->joint_count == 0)
        return am_fail(err, AM_ERR_INVALID, "no joints: the model has no skeleton (no skin names any node)");
    /* children in order (append at the end to keep file order) */
    for (size_t i = 0; i < b->joint_count; i++)
        if (b->joints[i].parent >= 0)
            b->joints[i].depth = b->joints[b->joints[i].parent].depth + 1;
    for (size_t i = b->joint_count; i-- > 0;) { /* each prepended, last first: file order */
        am_body_joint *j = &b->joints[i];
        if (j->parent < 0)
            continue;
        am_body_joint *p = &b->joints[j->parent];
        p->child_count++;
        j->next_sibling = p->first_child;
        p->first_child = (int)i;
    }
    for (size_t i = b->joint_count; i-- > 0;) { /* children after parents: reverse pass */
        am_body_joint *j = &b->joints[i];
        if (j->parent >= 0) {
            am_body_joint *p = &b->joints[j->parent];
            p->reach = fmax(p->reach, am_v3_dist(j->bind, p->bind) + j->reach);
        }
    }
    /* weighted joints and the stature box */
    am_vec3 lo = b->joints[0].bind, hi = lo;
    for (size_t i = 0; i < b->joint_count; i++) {
        am_vec3 p = b->joints[i].bind;
        lo = am_v3(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
        hi = am_v3(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
    }
    for (size_t mi = 0; mi < s->mesh_count; mi++) {
        const am_scene_mesh *m = &s->meshes[mi];
        if (m->skin < 0)
            continue;
        const am_scene_skin *k = &s->skins[m->skin];
        am_mat4 bx = mesh_bind(s, m);
        for (size_t v = 0; v < m->vertex_count; v++) {
            for (size_t q = m->influence_start[v]; q < m->influence_start[v + 1]; q++) {
                int node = k->joint_nodes[m->influences[q].joint];
                if (m->influences[q].weight > 0 && node >= 0 && b->node_joint[node] >= 0)
                    b->joints[b->node_joint[node]].weighted = true;
            }
            am_vec3 p = placed(&bx, m, v);
            lo = am_v3(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
            hi = am_v3(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
            b->vertex_count++;
        }
    }
    b->lo = lo;
    b->hi = hi;
    am_vec3 ext = am_v3_sub(hi, lo);
    b->stature = ext.x;
    b->stature_axis = 1;
    if (ext.y > b->stature)
        b->stature = ext.y, b->stature_axis = 2;
    if (ext.z > b->stature)
        b->stature = ext.z, b->stature_axis = 3;
    /* the root of the largest tree */
    size_t *size = malloc(b->joint_count * sizeof *size); /* joints in each subtree */
    if (!size)
        return am_fail_nomem(err, "body");
    for (size_t i = 0; i < b->joint_count; i++)
        size[i] = 1;
    for (size_t i = b->joint_count; i-- > 0;) /* children after parents: reverse pass */
        if (b->joints[i].parent >= 0)
            size[b->joints[i].parent] += size[i];
    size_t best = 0;
    b->root = -1;
    for (size_t i = 0; i < b->joint_count; i++)
        if (b->joints[i].parent < 0 && size[i] > best)
            best = size[i], b->root = (int)i;
    free(size);
    return AM_OK;
}

/* The shallowest free joint (not `exclude`) with a significant pair, -1 when none. */
static int find_hub(const am_body *b, int exclude, double min_len, am_error *err, am_status *st)
{
    int best = -1;
    for (size_t i = 0; i < b->joint_count && !*st; i++) {
        if (b->joints[i].child_count < 2 || (int)i == exclude || in_chains(b, (int)i))
            continue;
        if (best >= 0 && b->joints[i].depth >= b->joints[best].depth)
            continue;
        hub_info h;
        *st = hub_branches(b, (int)i, min_len, &h, err);
        bool ok = !*st && h.np > 0;
        free_hub(&h);
        if (ok)
            best = (int)i;
    }
    return best;
}

static am_status place_spine_and_neck(am_body *b, am_error *err)
{
    int *path = malloc(b->joint_count * sizeof *path);
    if (!path)
        return am_fail_nomem(err, "body");
    am_status st = AM_OK;
    size_t n = 0;
    if (b->chest >= 0 && b->chest != b->pelvis) {
        for (int j = b->chest; j >= 0 && j != b->pelvis; j = b->joints[j].parent)
            path[n++] = j;
        for (size_t i = 0; i < n / 2; i++) {
            int t = path[i];
            path[i] = path[n - 1 - i];
            path[n - 1 - i] = t;
        }
        st = add_chain(b, AM_CHAIN_SPINE, b->pelvis, path, n, err);
    }
    /* the neck: the chest's free branch reaching farthest (no chest: the pelvis's longest
     * free branch that holds a named head, else its farthest) */
    int from = b->chest >= 0 ? b->chest : b->pelvis;
    int best = -1;
    double far = -1;
    for (int c = from >= 0 ? b->joints[from].first_child : -1; c >= 0 && !st; c = b->joints[c].next_sibling) {
        if (in_chains(b, c))
            continue;
        double r = bone_len(b, c) + b->joints[c].reach;
        size_t m = main_path(b, c, path);
        for (size_t k = 0; k < m; k++)
            if (b->joints[path[k]].name.part == AM_NAME_HEAD)
                r += 1e6; /* a named head wins */
        if (r > far)
            far = r, best = c;
    }
    /* without legs or a chest nothing says where a head is: only a named one counts */
    if (!st && best >= 0 && b->leg_hub < 0 && b->chest < 0 && far < 1e6)
        best = -1;
    if (!st && best >= 0) {
        n = main_path(b, best, path);
        size_t head = n;
        for (size_t k = 0; k < n && head == n; k++)
            if (b->joints[path[k]].name.part == AM_NAME_HEAD && !b->joints[path[k]].name.end)
                head = k;
        for (size_t k = 0; k < n && head == n; k++)
            if (b->joints[path[k]].child_count >= 2)
                head = k;
        for (size_t k = n; k-- > 0 && head == n;)
            if (b->joints[path[k]].weighted)
                head = k;
        if (head == n)
            head = n - 1;
        b->head = path[head];
        st = add_chain(b, AM_CHAIN_NECK, from, path, head + 1, err);
        if (!st && head + 1 < n)
            st = add_chain(b, AM_CHAIN_SKULL, b->head, path + head + 1, n - head - 1, err);
    }
    free(path);
    return st;
}

/* Pairs and branches at the head: eyes, ears, jaw. */
static am_status place_head(const am_scene *s, am_body *b, am_error *err)
{
    (void)s;
    if (b->head < 0)
        return AM_OK;
    hub_info h;
    am_status st = hub_branches(b, b->head, 0, &h, err);
    /* small pairs count here: redo with single-joint branches allowed */
    size_t idx[AM_BODY_PAIR_BRANCHES];
    size_t nc = st ? 0 : pair_candidates(b, h.br, h.nb, 0, false, idx);
    for (size_t ci = 0; !st && ci < nc; ci++)
        for (size_t ck = ci + 1; ck < nc; ck++) {
            size_t i = idx[ci], k = idx[ck];
            if (in_chains(b, h.br[i].child) || in_chains(b, h.br[k].child))
                continue;
            double e = mirror_error(b, b->head, &h.br[i], &h.br[k]);
            if (e < 0)
                continue;
            am_name_part part = b->joints[h.br[i].child].name.part;
            am_chain_kind kind = part == AM_NAME_EYE   ? AM_CHAIN_EYE
                                 : part == AM_NAME_EAR ? AM_CHAIN_EAR
                                 : h.br[i].n == 1      ? AM_CHAIN_EYE
                                                       : AM_CHAIN_EAR;
            st = place_pair(b, b->head, &h.br[i], &h.br[k], kind, err);
            break;
        }
    for (size_t i = 0; !st && i < h.nb; i++) {
        if (in_chains(b, h.br[i].child) || b->joints[h.br[i].child].name.part != AM_NAME_JAW)
            continue;
        st = add_chain(b, AM_CHAIN_JAW, b->head, h.br[i].path, free_prefix(b, &h.br[i]), err);
    }
    free_hub(&h);
    return st;
}

am_status am_body_analyse(const am_scene *s, am_body *b, am_error *err)
{
    memset(b, 0, sizeof *b);
    b->pelvis = b->leg_hub = b->chest = b->head = -1;
    am_status st = collect_joints(s, b, err);
    if (st) {
        am_body_free(b);
        return st;
    }
    double min_len = 0.1 * b->stature;
    /* legs: the shallowest significant pair */
    b->leg_hub = find_hub(b, -1, min_len, err, &st);
    hub_info legs = {0};
    if (!st && b->leg_hub >= 0 && !(st = hub_branches(b, b->leg_hub, min_len, &legs, err))) {
        /* the longest pair is the legs (a Rigify "pelvis.L/R" pair is shorter) */
        size_t li = 0;
        for (size_t i = 1; i < legs.np; i++)
            if (legs.br[legs.pairs[i].x].len > legs.br[legs.pairs[li].x].len)
                li = i;
        st = place_pair(b, b->leg_hub, &legs.br[legs.pairs[li].x], &legs.br[legs.pairs[li].y], AM_CHAIN_LEG, err);
        for (size_t i = 0; i < legs.np && !st; i++)
            if (i != li)
                st = place_pair(b, b->leg_hub, &legs.br[legs.pairs[i].x], &legs.br[legs.pairs[i].y], AM_CHAIN_HINDLIMB,
                                err);
    }
    free_hub(&legs);
    /* the chest: the next significant pair outside the legs */
    if (!st)
        b->chest = find_hub(b, b->leg_hub, min_len, err, &st);
    if (!st) {
        if (b->leg_hub >= 0)
            b->pelvis = b->chest >= 0 ? lca(b, b->leg_hub, b->chest) : b->leg_hub;
        else if (b->chest >= 0)
            b->pelvis = b->root;
        if (b->pelvis < 0) { /* no pairs at all: a named pelvis, else the root */
            for (size_t i = 0; i < b->joint_count && b->pelvis < 0; i++)
                if (b->joints[i].name.part == AM_NAME_PELVIS)
                    b->pelvis = (int)i;
            if (b->pelvis < 0)
                b->pelvis = b->root;
        }
        if (b->chest == b->pelvis) /* arms at the pelvis: not a chest */
            b->chest = -1;
    }
    hub_info ch = {0};
    if (!st && b->chest >= 0 && !(st = hub_branches(b, b->chest, min_len, &ch, err))) {
        /* arms or wings: named wings, else broad ones; with two pairs the broader */
        size_t wing = (size_t)-1;
        double bw[4] = {0}, score[4] = {0};
        for (size_t i = 0; i < ch.np; i++) {
            const branch *x = &ch.br[ch.pairs[i].x], *y = &ch.br[ch.pairs[i].y];
            bool named = b->joints[x->child].name.part == AM_NAME_WING || b->joints[y->child].name.part == AM_NAME_WING;
            bw[i] = broadness(s, b, b->chest, x->path, x->n);
            score[i] = bw[i] + (named ? 100 : 0);
            if ((named || bw[i] >= 0.5) && (wing == (size_t)-1 || score[i] > score[wing]))
                wing = i;
        }
        if (ch.np >= 2 && wing == (size_t)-1)
            wing = bw[1] > bw[0] ? 1 : 0;
        for (size_t i = 0; i < ch.np && !st; i++) {
            st = place_pair(b, b->chest, &ch.br[ch.pairs[i].x], &ch.br[ch.pairs[i].y],
                            i == wing ? AM_CHAIN_WING : AM_CHAIN_ARM, err);
            if (!st)
                b->chains[b->joints[ch.br[ch.pairs[i].x].child].chain].broad = bw[i];
        }
    }
    free_hub(&ch);
    if (!st)
        st = place_spine_and_neck(b, err);
    /* the tail: the pelvis's (or leg hub's) longest free branch */
    for (int hubj = 0; hubj < 2 && !st; hubj++) {
        int hub = hubj == 0 ? b->pelvis : b->leg_hub;
        if (hub < 0 || (hubj == 1 && hub == b->pelvis))
            continue;
        hub_info ph;
        if ((st = hub_branches(b, hub, 0, &ph, err)))
            break;
        int best = -1;
        for (size_t i = 0; i < ph.nb; i++) {
            if (in_chains(b, ph.br[i].child) || ph.br[i].len < 0.15 * b->stature)
                continue;
            if (best < 0 || ph.br[i].len > ph.br[best].len)
                best = (int)i;
        }
        if (best >= 0)
            st = add_chain(b, AM_CHAIN_TAIL, hub, ph.br[best].path, free_prefix(b, &ph.br[best]), err);
        free_hub(&ph);
        if (best >= 0)
            break;
    }
    if (!st)
        st = place_head(s, b, err);
    if (st)
        am_body_free(b);
    return st;
}

void am_body_set_sides(am_body *b, am_quat rot)
{
    for (size_t i = 0; i < b->chain_count; i++) {
        am_body_chain *c = &b->chains[i];
        c->side = 0;
        if (c->mirror < 0 || c->kind == AM_CHAIN_FINGER)
            continue;
        const am_body_chain *m = &b->chains[c->mirror];
        am_vec3 h = b->joints[c->hub].bind;
        double yc = 0, ym = 0;
        for (size_t k = 0; k < c->count; k++)
            yc += am_quat_rotate(rot, am_v3_sub(b->joints[c->joints[k]].bind, h)).y / (double)c->count;
        for (size_t k = 0; k < m->count; k++)
            ym += am_quat_rotate(rot, am_v3_sub(b->joints[m->joints[k]].bind, h)).y / (double)m->count;
        c->side = yc >= ym ? 1 : -1;
    }
    /* fingers take their hand's side */
    for (size_t i = 0; i < b->chain_count; i++) {
        am_body_chain *c = &b->chains[i];
        if (c->kind != AM_CHAIN_FINGER)
            continue;
        int hj = c->hub;
        int ac = b->joints[hj].chain;
        c->side = ac >= 0 ? b->chains[ac].side : 0;
    }
}

static bool is_segment(const am_body *b, int j)
{
    return b->joints[j].name.segment && b->joints[j].name.part != AM_NAME_UNKNOWN;
}

size_t am_body_leg_hip(const am_body *b, int chain)
{
    const am_body_chain *c = &b->chains[chain];
    if (c->count < 2)
        return 0;
    /* the leg's length below its first joint; a joint's "next bone" runs to the next joint
     * that is not a further segment (Rigify's thigh.L.001 belongs to the thigh) */
    double L = c->length - bone_len(b, c->joints[0]);
    double next[256];
    size_t n = c->count < 256 ? c->count : 256;
    for (size_t k = 0; k + 1 < n; k++) {
        size_t m = k + 1;
        while (m + 1 < n && is_segment(b, c->joints[m]))
            m++;
        next[k] = am_v3_dist(b->joints[c->joints[m]].bind, b->joints[c->joints[k]].bind);
    }
    /* a joint named as the upper leg (the last such: CMU's LHipJoint precedes LeftUpLeg)
     * whose next bone is long; else the first joint whose next bone is long */
    size_t named = n;
    for (size_t k = 0; k + 1 < n; k++) {
        const am_joint_name *nm = &b->joints[c->joints[k]].name;
        if (nm->part == AM_NAME_THIGH && !nm->segment && next[k] >= 0.2 * L)
            named = k;
    }
    if (named < n)
        return named;
    for (size_t k = 0; k + 1 < n; k++)
        if (!is_segment(b, c->joints[k]) && next[k] >= 0.2 * L)
            return k;
    return 0;
}

size_t am_body_leg_ankle(const am_body *b, int chain)
{
    const am_body_chain *c = &b->chains[chain];
    size_t k = am_body_leg_hip(b, chain), seen = 0;
    for (k++; k < c->count; k++)
        if (!is_segment(b, c->joints[k]) && ++seen == 2)
            return k;
    return c->count;
}
