/* COLLADA controllers into scene skins, and the joint positions the viewer's uploader takes
 * with "include joint positions" (docs/reference/collada-upload.md; lldaeloader.cpp:
 * verifyController, processDomModel, processJointNode).
 *
 * Joint positions. The uploader fills one table, name -> translation, for the whole file:
 *  - with any <skeleton> in the document (whatever controller it belongs to): for every
 *    skeleton root, for every key of the legal-joint map in key order (std::map), the
 *    first element, breadth-first from the root itself, whose sid is the key; when it is a
 *    <node> its translation is stored under the key's canonical name (a later hit
 *    overwrites an earlier one);
 *  - without: every <node> of the first <visual_scene>, pre-order, whose `name` is a key
 *    (a nameless node is skipped with its whole subtree); stored under the name AS
 *    WRITTEN (an alias is not canonicalised, so "avatar_mTorso" is later not found).
 * A node's translation: the first element with sid "translate", else sid "location"
 * (breadth-first over the node's whole subtree, so a descendant's wins), when it is a
 * <translate>; else its first <translate> child; else the translation column of the
 * <matrix> with sid "transform" (skeleton path) or "matrix" (no skeleton); else (0,0,0).
 * Each skin joint's position is the table's entry for its canonical name, (0, 0, 0) when
 * there is none (operator[] inserts an identity).
 * Without a viewer skeleton (am_scene.skeleton NULL) the keys are the skins' joint names as
 * written and nothing is canonicalised. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "readers/collada/collada_internal.h"
#include "skeleton/skeleton.h"

/* --- breadth-first sid search --------------------------------------------------------- */

typedef struct sid_hit {
    const char *sid;
    size_t rank; /* breadth-first order */
    xmlNode *el;
} sid_hit;

static int cmp_hit(const void *a, const void *b)
{
    const sid_hit *x = a, *y = b;
    int r = strcmp(x->sid, y->sid);
    return r ? r : (x->rank < y->rank ? -1 : x->rank > y->rank);
}

/* Every element of the subtree of `root` (root first), breadth-first. */
static am_status bfs_order(am_dae_ctx *c, xmlNode *root, xmlNode ***out, size_t *count)
{
    size_t cap = 64, n = 0;
    xmlNode **q = malloc(cap * sizeof *q);
    if (!q)
        return am_fail_nomem(c->err, "sid search");
    q[n++] = root;
    for (size_t head = 0; head < n; head++)
        for (xmlNode *k = am_dae_child(q[head], NULL); k; k = am_dae_next(k, NULL)) {
            if (n == cap) {
                xmlNode **nq = realloc(q, 2 * cap * sizeof *nq);
                if (!nq) {
                    free(q);
                    return am_fail_nomem(c->err, "sid search");
                }
                q = nq;
                cap *= 2;
            }
            q[n++] = k;
        }
    *out = q;
    *count = n;
    return AM_OK;
}

/* The first element in breadth-first order under `root` whose sid is `sid`. */
static am_status bfs_sid(am_dae_ctx *c, xmlNode *root, const char *sid, xmlNode **hit)
{
    *hit = NULL;
    xmlNode **q;
    size_t n;
    am_status st = bfs_order(c, root, &q, &n);
    if (st)
        return st;
    for (size_t i = 0; i < n && !*hit; i++) {
        const char *s = am_dae_attr(q[i], "sid");
        if (s && strcmp(s, sid) == 0)
            *hit = q[i];
    }
    free(q);
    return AM_OK;
}

/* --- a node's translation by the uploader's rules --------------------------------------- */

typedef struct trans_cache {
    const xmlNode **el;
    float (*t)[3];
    bool *found;
    size_t n, cap;
} trans_cache;

static am_status translation_of(am_dae_ctx *c, trans_cache *tc, xmlNode *node, bool skeleton_path, float t[3],
                                bool *found)
{
    for (size_t i = 0; i < tc->n; i++)
        if (tc->el[i] == node) {
            memcpy(t, tc->t[i], sizeof(float[3]));
            *found = tc->found[i];
            return AM_OK;
        }
    t[0] = t[1] = t[2] = 0;
    *found = false;
    xmlNode *e = NULL;
    am_status st;
    double v[16];
    if ((st = bfs_sid(c, node, "translate", &e)))
        return st;
    if (!am_dae_is(e, "translate") && (st = bfs_sid(c, node, "location", &e)))
        return st;
    if (!am_dae_is(e, "translate"))
        e = am_dae_child(node, "translate");
    if (am_dae_is(e, "translate")) {
        if ((st = am_dae_fixed(c, e, v, 3)))
            return st;
        for (int k = 0; k < 3; k++)
            t[k] = (float)v[k];
        *found = true;
    } else {
        if ((st = bfs_sid(c, node, skeleton_path ? "transform" : "matrix", &e)))
            return st;
        if (am_dae_is(e, "matrix")) {
            if ((st = am_dae_fixed(c, e, v, 16)))
                return st;
            t[0] = (float)v[3]; /* the translation column of the row-major matrix */
            t[1] = (float)v[7];
            t[2] = (float)v[11];
            *found = true;
        }
    }
    if (!isfinite(t[0]) || !isfinite(t[1]) || !isfinite(t[2]))
        return am_dae_fail(c, e, "the joint translation is not a number");
    if (tc->n == tc->cap) {
        size_t nc = tc->cap ? 2 * tc->cap : 64;
        const xmlNode **a = realloc(tc->el, nc * sizeof *a);
        if (a)
            tc->el = a;
        float(*b)[3] = a ? realloc(tc->t, nc * sizeof *b) : NULL;
        if (b)
            tc->t = b;
        bool *f = b ? realloc(tc->found, nc * sizeof *f) : NULL;
        if (!a || !b || !f)
            return am_fail_nomem(c->err, "joint translations");
        tc->found = f;
        tc->cap = nc;
    }
    tc->el[tc->n] = node;
    memcpy(tc->t[tc->n], t, sizeof(float[3]));
    tc->found[tc->n] = *found;
    tc->n++;
    return AM_OK;
}

/* --- the joint table -------------------------------------------------------------------- */

typedef struct joint_entry {
    char *name; /* the table key: canonical name (skeleton path) or node name (no skeleton) */
    float t[3];
    bool found; /* a node was found and one of the rules gave a translation */
    xmlNode *node;
} joint_entry;

typedef struct joint_table {
    joint_entry *e;
    size_t n, cap;
} joint_table;

static void table_free(joint_table *jt)
{
    for (size_t i = 0; i < jt->n; i++)
        free(jt->e[i].name);
    free(jt->e);
    memset(jt, 0, sizeof *jt);
}

static joint_entry *table_get(joint_table *jt, const char *name)
{
    for (size_t i = 0; i < jt->n; i++)
        if (strcmp(jt->e[i].name, name) == 0)
            return &jt->e[i];
    return NULL;
}

static am_status table_set(am_dae_ctx *c, joint_table *jt, const char *name, const float t[3], bool found, xmlNode *node)
{
    joint_entry *e = table_get(jt, name);
    if (!e) {
        if (jt->n == jt->cap) {
            size_t nc = jt->cap ? 2 * jt->cap : 64;
            joint_entry *ne = realloc(jt->e, nc * sizeof *ne);
            if (!ne)
                return am_fail_nomem(c->err, "joint table");
            jt->e = ne;
            jt->cap = nc;
        }
        e = &jt->e[jt->n];
        e->name = am_strdup(name);
        if (!e->name)
            return am_fail_nomem(c->err, "joint table");
        jt->n++;
    }
    memcpy(e->t, t, sizeof e->t);
    e->found = found;
    e->node = node;
    return AM_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of the legal-joint map (LLModelPreview::getJointAliases), sorted as std::map
 * keeps them: bone names and aliases, collision volumes, attachment points (with spaces
 * and underscores). Without a skeleton: every skin joint name. */
static am_status legal_keys(am_dae_ctx *c, const char ***out, size_t *count)
{
    const am_skeleton *sk = c->scene->skeleton;
    size_t n = 0, cap = 0;
    if (sk) {
        cap = sk->alias_count + sk->joint_count;
    } else {
        for (size_t s = 0; s < c->scene->skin_count; s++)
            cap += c->scene->skins[s].joint_count;
    }
    const char **k = malloc((cap ? cap : 1) * sizeof *k);
    if (!k)
        return am_fail_nomem(c->err, "joint keys");
    if (sk) {
        for (size_t i = 0; i < sk->alias_count; i++)
            k[n++] = sk->aliases[i].alias;
        for (size_t i = sk->bone_count; i < sk->joint_count; i++)
            k[n++] = sk->joints[i].name;
    } else {
        for (size_t s = 0; s < c->scene->skin_count; s++)
            for (size_t j = 0; j < c->scene->skins[s].joint_count; j++)
                k[n++] = c->scene->skins[s].joint_names[j];
    }
    qsort(k, n, sizeof *k, cmp_str);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (!w || strcmp(k[w - 1], k[i]) != 0)
            k[w++] = k[i];
    *out = k;
    *count = w;
    return AM_OK;
}

/* The canonical name of a legal key ("hip" -> "mPelvis"), or the key itself without a
 * skeleton; NULL when the key is not legal. */
static const char *canonical(const am_dae_ctx *c, const char *key)
{
    const am_skeleton *sk = c->scene->skeleton;
    if (!sk)
        return key;
    int j = am_skeleton_find(sk, key);
    return j >= 0 ? sk->joints[j].name : NULL;
}

/* Every <skeleton> element of the document whose URI resolves (duplicates of one root are
 * read once: they give the same entries). */
static am_status skeleton_roots(am_dae_ctx *c, xmlNode ***out, size_t *count)
{
    size_t n = 0, cap = 16;
    xmlNode **r = malloc(cap * sizeof *r);
    if (!r)
        return am_fail_nomem(c->err, "skeletons");
    /* document order: a pre-order walk of every element */
    xmlNode *n0 = c->root;
    while (n0) {
        if (am_dae_is(n0, "skeleton")) {
            char ref[512];
            xmlNode *el = am_dae_find_id(c, am_dae_text_trim(n0, ref, sizeof ref));
            bool dup = false;
            for (size_t i = 0; i < n && el; i++)
                dup |= r[i] == el;
            if (el && !dup) {
                if (n == cap) {
                    xmlNode **nr = realloc(r, 2 * cap * sizeof *nr);
                    if (!nr) {
                        free(r);
                        return am_fail_nomem(c->err, "skeletons");
                    }
                    r = nr;
                    cap *= 2;
                }
                r[n++] = el;
            } else if (!el) {
                am_scene_note(c->scene, "<skeleton>%s</skeleton> names no element: ignored (as by the uploader)", ref);
            }
        }
        if (n0->type == XML_ELEMENT_NODE && n0->children) {
            n0 = n0->children;
            continue;
        }
        while (n0 && !n0->next && n0 != c->root)
            n0 = n0->parent;
        if (!n0 || n0 == c->root)
            break;
        n0 = n0->next;
    }
    *out = r;
    *count = n;
    return AM_OK;
}

static am_status fill_table_skeleton(am_dae_ctx *c, trans_cache *tc, xmlNode **roots, size_t nroots, joint_table *jt)
{
    const char **keys = NULL;
    size_t nk = 0;
    am_status st = legal_keys(c, &keys, &nk);
    if (st)
        return st;
    for (size_t r = 0; r < nroots && !st; r++) {
        xmlNode **q;
        size_t nq;
        if ((st = bfs_order(c, roots[r], &q, &nq)))
            break;
        sid_hit *hits = malloc((nq ? nq : 1) * sizeof *hits);
        size_t nh = 0;
        if (!hits) {
            free(q);
            st = am_fail_nomem(c->err, "sid search");
            break;
        }
        for (size_t i = 0; i < nq; i++) {
            const char *s = am_dae_attr(q[i], "sid");
            if (s)
                hits[nh++] = (sid_hit){s, i, q[i]};
        }
        qsort(hits, nh, sizeof *hits, cmp_hit);
        for (size_t k = 0; k < nk && !st; k++) {
            sid_hit key = {keys[k], 0, NULL};
            /* lower bound: the first (lowest rank) hit of this sid */
            size_t lo = 0, hi = nh;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (cmp_hit(&hits[mid], &key) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo >= nh || strcmp(hits[lo].sid, keys[k]) != 0 || !am_dae_is(hits[lo].el, "node"))
                continue;
            const char *canon = canonical(c, keys[k]);
            float t[3];
            bool found;
            if (canon && !(st = translation_of(c, tc, hits[lo].el, true, t, &found)))
                st = table_set(c, jt, canon, t, found, hits[lo].el);
        }
        free(hits);
        free(q);
    }
    free(keys);
    return st;
}

static bool is_key(const am_dae_ctx *c, const char *name)
{
    const am_skeleton *sk = c->scene->skeleton;
    if (sk)
        return am_skeleton_find(sk, name) >= 0;
    for (size_t s = 0; s < c->scene->skin_count; s++)
        for (size_t j = 0; j < c->scene->skins[s].joint_count; j++)
            if (strcmp(c->scene->skins[s].joint_names[j], name) == 0)
                return true;
    return false;
}

static am_status fill_table_nodes(am_dae_ctx *c, trans_cache *tc, xmlNode *node, joint_table *jt, int depth)
{
    const char *name = am_dae_attr(node, "name");
    if (!name || depth > 600)
        return AM_OK; /* "nameless node, can't process": its subtree is skipped too */
    am_status st = AM_OK;
    if (is_key(c, name)) {
        float t[3];
        bool found;
        if ((st = translation_of(c, tc, node, false, t, &found)) || (st = table_set(c, jt, name, t, found, node)))
            return st;
    }
    for (xmlNode *k = am_dae_child(node, "node"); k && !st; k = am_dae_next(k, "node"))
        st = fill_table_nodes(c, tc, k, jt, depth + 1);
    return st;
}

/* Per skin joint: upload position, whether the uploader found one, and its node. */
static am_status upload_positions(am_dae_ctx *c)
{
    am_scene *s = c->scene;
    if (!s->skin_count)
        return AM_OK;
    xmlNode **roots = NULL;
    size_t nroots = 0;
    joint_table jt = {0};
    trans_cache tc = {0};
    am_status st = skeleton_roots(c, &roots, &nroots);
    if (!st) {
        if (nroots) {
            st = fill_table_skeleton(c, &tc, roots, nroots, &jt);
            am_scene_note(s, "joint positions: %zu <skeleton> root%s, joints found by sid under %s (the uploader's "
                             "<skeleton> path)",
                          nroots, nroots == 1 ? "" : "s", nroots == 1 ? "it" : "them");
        } else if (c->visual_scene) {
            for (xmlNode *k = am_dae_child(c->visual_scene, "node"); k && !st; k = am_dae_next(k, "node"))
                st = fill_table_nodes(c, &tc, k, &jt, 0);
            am_scene_note(s, "joint positions: no <skeleton>, joints found by node name (the uploader's path "
                             "without <skeleton>)");
        }
    }
    for (size_t i = 0; i < s->skin_count && !st; i++) {
        am_scene_skin *k = &s->skins[i];
        for (size_t j = 0; j < k->joint_count; j++) {
            const char *canon = canonical(c, k->joint_names[j]);
            joint_entry *e = canon ? table_get(&jt, canon) : NULL;
            k->upload_positions[j] = e ? am_v3(e->t[0], e->t[1], e->t[2]) : am_v3(0, 0, 0);
            k->upload_position_found[j] = e && e->found;
            int node = e ? am_dae_node_index(c, e->node) : -1;
            if (node < 0) /* for reports: a node carrying the joint's name, sid or id */
                for (size_t n = 0; n < s->node_count && node < 0; n++) {
                    const am_scene_node *sn = &s->nodes[n];
                    const char *id = am_dae_attr(c->node_xml[n], "id");
                    if ((sn->sid && strcmp(sn->sid, k->joint_names[j]) == 0) || strcmp(sn->name, k->joint_names[j]) == 0 ||
                        (id && strcmp(id, k->joint_names[j]) == 0))
                        node = (int)n;
                }
            k->joint_nodes[j] = node;
        }
    }
    free(roots);
    table_free(&jt);
    free(tc.el);
    free(tc.t);
    free(tc.found);
    return st;
}

/* --- controllers ------------------------------------------------------------------------- */

static int mesh_of_geometry(const am_dae_ctx *c, const xmlNode *geom)
{
    for (size_t i = 0; i < c->scene->mesh_count; i++)
        if (c->mesh_xml[i] == geom)
            return (int)i;
    return -1;
}

/* LLDAELoader::verifyController. */
static am_status verify_controller(am_dae_ctx *c, const xmlNode *ctrl, const xmlNode *skin)
{
    const char *src = am_dae_attr(skin, "source");
    xmlNode *geom = am_dae_find_id(c, src);
    if (!geom)
        return am_dae_fail(c, skin, "source \"%s\" names no element (the uploader: \"Bad element\")", src ? src : "");
    if (!am_dae_is(geom, "geometry"))
        return AM_OK; /* e.g. a morph: not verified, then ignored */
    xmlNode *vw = am_dae_child(skin, "vertex_weights");
    if (!vw)
        return am_dae_fail(c, skin, "no <vertex_weights> (the uploader: \"Bad element\")");
    const char *cnt = am_dae_attr(vw, "count");
    size_t count = cnt ? (size_t)strtoull(cnt, NULL, 10) : 0;
    xmlNode *mesh = am_dae_child(geom, "mesh");
    if (mesh) {
        xmlNode *verts = am_dae_child(mesh, "vertices");
        if (!verts)
            return am_dae_fail(c, mesh, "no <vertices> (the uploader: \"No vertices!\", \"Bad element\")");
        xmlNode *first = am_dae_child(verts, "input");
        xmlNode *ps = first ? am_dae_input_source(c, first) : NULL;
        const char *ac = am_dae_attr(am_dae_child(am_dae_child(ps, "technique_common"), "accessor"), "count");
        size_t pc = ac ? (size_t)strtoull(ac, NULL, 10) : 0;
        if (pc != count)
            return am_dae_fail(c, vw, "count=%zu, but the geometry's position accessor counts %zu (the uploader: \"Could "
                                   "not verify controller\", \"Bad element\")",
                            count, pc);
    }
    long long *vc = NULL, *v = NULL;
    size_t nvc = 0, nv = 0, inputs = 0;
    am_status st;
    if ((st = am_dae_ints(c, am_dae_child(vw, "vcount"), &vc, &nvc)))
        return st;
    if ((st = am_dae_ints(c, am_dae_child(vw, "v"), &v, &nv))) {
        free(vc);
        return st;
    }
    unsigned long long sum = 0;
    for (size_t i = 0; i < nvc; i++)
        sum += vc[i] > 0 ? (unsigned long long)vc[i] : 0;
    for (xmlNode *k = am_dae_child(vw, "input"); k; k = am_dae_next(k, "input"))
        inputs++;
    free(vc);
    free(v);
    (void)ctrl;
    if (nvc != count)
        return am_dae_fail(c, vw, "<vcount> has %zu entries for count=%zu (the uploader: \"Could not verify controller\")",
                        nvc, count);
    if (sum * inputs != nv)
        return am_dae_fail(c, vw, "the vcount list sums to %llu influences of %zu inputs, <v> holds %zu values (the "
                               "uploader: \"Could not verify controller\")",
                        sum, inputs, nv);
    return AM_OK;
}

/* The names of a <source> holding a Name_array or an IDREF_array (the ids used as names). */
static am_status joint_names(am_dae_ctx *c, const xmlNode *src, char ***out, size_t *count)
{
    *out = NULL;
    *count = 0;
    xmlNode *arr = am_dae_child(src, "Name_array");
    if (!arr)
        arr = am_dae_child(src, "IDREF_array");
    if (!arr)
        return am_dae_fail(c, src, "the JOINT source has no <Name_array> or <IDREF_array>");
    /* Counted before anything is stored: a name list is never larger than the joints a skin may hold. */
    size_t listed = 0;
    for (const xmlNode *k = arr->children; k; k = k->next)
        if (k->type == XML_TEXT_NODE || k->type == XML_CDATA_SECTION_NODE)
            for (const char *p = (const char *)k->content, *prev = " "; p && *p; prev = p++)
                listed += !am_dae_is_space(*p) && am_dae_is_space(*prev);
    if (listed > AM_COLLADA_MAX_SKIN_JOINTS)
        return am_dae_fail(c, arr, "%zu joint names, over the limit of %d a skin may list", listed,
                        AM_COLLADA_MAX_SKIN_JOINTS);
    xmlChar *t = xmlNodeGetContent(arr);
    const char *s = t ? (const char *)t : "";
    size_t n = 0, cap = 16;
    char **names = malloc(cap * sizeof *names);
    if (!names) {
        xmlFree(t);
        return am_fail_nomem(c->err, "joint names");
    }
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r')
            e++;
        if (n == cap) {
            char **nn = realloc(names, 2 * cap * sizeof *nn);
            if (!nn)
                goto oom;
            names = nn;
            cap *= 2;
        }
        names[n] = malloc((size_t)(e - s) + 1);
        if (!names[n])
            goto oom;
        memcpy(names[n], s, (size_t)(e - s));
        names[n][e - s] = '\0';
        n++;
        s = e;
    }
    xmlFree(t);
    *out = names;
    *count = n;
    return AM_OK;
oom:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    xmlFree(t);
    return am_fail_nomem(c->err, "joint names");
}

static xmlNode *input_of(const xmlNode *parent, const char *semantic)
{
    for (xmlNode *k = am_dae_child(parent, "input"); k; k = am_dae_next(k, "input")) {
        const char *s = am_dae_attr(k, "semantic");
        if (s && strcmp(s, semantic) == 0)
            return k;
    }
    return NULL;
}

static bool finite_mat(const am_mat4 *m)
{
    for (int k = 0; k < 16; k++)
        if (!isfinite(m->m[k]))
            return false;
    return true;
}

/* The raw influences of every COLLADA position (4.5 step 1: pairs (joint, weight index),
 * joint -1 skipped), checked; then copied onto the mesh's vertices by source position,
 * positions no face uses appended as unreferenced vertices. */
static am_status read_weights(am_dae_ctx *c, const xmlNode *vw, size_t mi, am_scene_skin *skin)
{
    am_scene_mesh *m = &c->scene->meshes[mi];
    xmlNode *wi = input_of(vw, "WEIGHT");
    xmlNode *ws = wi ? am_dae_input_source(c, wi) : NULL;
    size_t inputs = 0;
    for (xmlNode *k = am_dae_child(vw, "input"); k; k = am_dae_next(k, "input"))
        inputs++;
    if (!ws || !am_dae_child(ws, "float_array"))
        return am_dae_fail(c, vw, "no WEIGHT input with a <float_array>");
    if (inputs != 2)
        return am_dae_fail(c, vw, "%zu inputs: the uploader reads (joint, weight) pairs only", inputs);
    double *w = NULL;
    long long *vc = NULL, *v = NULL;
    size_t nw, nvc, nv;
    am_status st;
    if ((st = am_dae_doubles(c, am_dae_child(ws, "float_array"), &w, &nw)) ||
        (st = am_dae_ints(c, am_dae_child(vw, "vcount"), &vc, &nvc)) || (st = am_dae_ints(c, am_dae_child(vw, "v"), &v, &nv))) {
        free(w);
        free(vc);
        return st;
    }
    size_t npos = c->mesh_position_count[mi];
    if (nvc > npos) {
        st = am_dae_fail(c, vw, "%zu weighted positions, the geometry has %zu", nvc, npos);
        goto done;
    }
    /* per position: [start, end) into pos_inf */
    size_t *start = calloc(nvc + 1, sizeof *start);
    am_scene_influence *pos_inf = malloc((nv / 2 + 1) * sizeof *pos_inf);
    if (!start || !pos_inf) {
        free(start);
        free(pos_inf);
        st = am_fail_nomem(c->err, "weights");
        goto done;
    }
    size_t at = 0, ni = 0, negative = 0;
    for (size_t p = 0; p < nvc && !st; p++) {
        start[p] = ni;
        for (long long k = 0; k < vc[p]; k++, at += 2) {
            long long j = v[at], wi_ = v[at + 1];
            if (j == -1)
                continue; /* a binding to the bind shape: ignored */
            if (j < 0 || (size_t)j >= skin->joint_count) {
                st = am_dae_fail(c, vw, "position %zu: a weight on joint index %lld, outside the skin's %zu joints", p, j,
                              skin->joint_count);
                break;
            }
            if (wi_ < 0 || (size_t)wi_ >= nw) {
                st = am_dae_fail(c, vw, "position %zu: weight index %lld outside the WEIGHT array (%zu values)", p, wi_,
                              nw);
                break;
            }
            float wt = (float)w[wi_];
            if (!isfinite(wt)) {
                st = am_dae_fail(c, vw, "position %zu: weight %lld is not a number", p, wi_);
                break;
            }
            if (wt < 0) {
                negative++;
                continue;
            }
            pos_inf[ni++] = (am_scene_influence){(uint32_t)j, wt};
        }
    }
    start[nvc] = ni;
    if (negative && !st)
        am_scene_note(c->scene, "skin '%s': %zu negative weights dropped (the uploader keeps weights > 0 only)",
                      skin->name, negative);
    if (st) {
        free(start);
        free(pos_inf);
        goto done;
    }
    /* which positions the faces use */
    bool *used = calloc(nvc ? nvc : 1, sizeof *used);
    size_t extra = 0;
    if (!used) {
        free(start);
        free(pos_inf);
        st = am_fail_nomem(c->err, "weights");
        goto done;
    }
    for (size_t i = 0; i < m->vertex_count && !st; i++) {
        uint32_t p = m->source_position[i];
        if (p >= nvc)
            st = am_dae_fail(c, vw, "position %u has no <vertex_weights> entry (%zu entries)", p, nvc);
        else
            used[p] = true;
    }
    for (size_t p = 0; p < nvc; p++)
        extra += !used[p];
    size_t nvert = m->vertex_count + extra, total = 0;
    if (!st) {
        for (size_t i = 0; i < m->vertex_count; i++)
            total += start[m->source_position[i] + 1] - start[m->source_position[i]];
        for (size_t p = 0; p < nvc; p++)
            if (!used[p])
                total += start[p + 1] - start[p];
        float *np = realloc(m->positions, (nvert ? nvert : 1) * 3 * sizeof(float));
        if (np)
            m->positions = np;
        float *nn = np ? realloc(m->normals, (nvert ? nvert : 1) * 3 * sizeof(float)) : NULL;
        if (nn)
            m->normals = nn;
        float *nu = nn ? realloc(m->uvs, (nvert ? nvert : 1) * 2 * sizeof(float)) : NULL;
        if (nu)
            m->uvs = nu;
        uint32_t *ns = nu ? realloc(m->source_position, (nvert ? nvert : 1) * sizeof(uint32_t)) : NULL;
        if (ns)
            m->source_position = ns;
        m->influence_start = ns ? malloc((nvert + 1) * sizeof *m->influence_start) : NULL;
        m->influences = m->influence_start ? malloc((total ? total : 1) * sizeof *m->influences) : NULL;
        if (!m->influences) {
            st = am_fail_nomem(c->err, "influences");
        } else {
            size_t vi = m->vertex_count;
            for (size_t p = 0; p < nvc; p++)
                if (!used[p]) {
                    memcpy(&m->positions[3 * vi], &c->mesh_positions[mi][3 * p], 3 * sizeof(float));
                    memset(&m->normals[3 * vi], 0, 3 * sizeof(float));
                    memset(&m->uvs[2 * vi], 0, 2 * sizeof(float));
                    m->source_position[vi++] = (uint32_t)p;
                }
            if (extra)
                am_scene_note(c->scene, "mesh '%s': %zu COLLADA positions no face uses are kept for their weights (the "
                                        "uploader keys weights by every position)",
                              m->name, extra);
            m->vertex_count = nvert;
            size_t o = 0;
            for (size_t i = 0; i < nvert; i++) {
                uint32_t p = m->source_position[i];
                m->influence_start[i] = o;
                for (size_t q = start[p]; q < start[p + 1]; q++)
                    m->influences[o++] = pos_inf[q];
            }
            m->influence_start[nvert] = o;
        }
    }
    free(used);
    free(start);
    free(pos_inf);
done:
    free(w);
    free(vc);
    free(v);
    return st;
}

static am_status read_skin(am_dae_ctx *c, const xmlNode *ctrl, const xmlNode *skin, size_t mi)
{
    am_scene *s = c->scene;
    am_scene_mesh *m = &s->meshes[mi];
    if (m->skin >= 0)
        return am_dae_fail(c, ctrl, "geometry '%s' is skinned by a second controller (the uploader appends both joint "
                                 "lists): not supported",
                        m->name);
    am_scene_skin *nk = realloc(s->skins, (s->skin_count + 1) * sizeof *nk);
    if (!nk)
        return am_fail_nomem(c->err, "skins");
    s->skins = nk;
    am_scene_skin *k = &s->skins[s->skin_count++];
    memset(k, 0, sizeof *k);
    k->skeleton_root = -1;
    const char *nm = am_dae_attr(ctrl, "name");
    const char *id = am_dae_attr(ctrl, "id");
    k->name = am_strdup(id ? id : nm ? nm : "");
    if (!k->name)
        return am_fail_nomem(c->err, "skin name");
    m->skin = (int)s->skin_count - 1;
    am_status st;
    double v[16];
    xmlNode *bsm = am_dae_child(skin, "bind_shape_matrix");
    if (bsm) {
        if ((st = am_dae_fixed(c, bsm, v, 16)))
            return st;
        k->bind_shape = am_dae_ll_matrix(v);
        if (!finite_mat(&k->bind_shape))
            return am_dae_fail(c, bsm, "the bind shape matrix holds a value that is not a number");
        am_mat4 inv;
        if (!am_mat4_inverse(&k->bind_shape, &inv))
            return am_dae_fail(c, bsm, "the bind shape matrix is singular (it flattens the mesh)");
    } else {
        k->bind_shape = am_mat4_identity();
        am_scene_note(s, "skin '%s': no <bind_shape_matrix> (the uploader then leaves it indeterminate): identity "
                         "assumed",
                      k->name);
    }
    xmlNode *joints = am_dae_child(skin, "joints");
    xmlNode *ji = input_of(joints, "JOINT"), *ii = input_of(joints, "INV_BIND_MATRIX");
    xmlNode *jsrc = ji ? am_dae_input_source(c, ji) : NULL;
    if (!jsrc)
        return am_dae_fail(c, joints ? joints : skin, "no JOINT input naming a <source>");
    if ((st = joint_names(c, jsrc, &k->joint_names, &k->joint_count)))
        return st;
    if (k->joint_count == 0)
        return am_dae_fail(c, jsrc, "the skin names no joints");
    size_t nj = k->joint_count;
    k->joint_nodes = malloc(nj * sizeof *k->joint_nodes);
    k->inverse_binds = malloc(nj * sizeof *k->inverse_binds);
    k->upload_positions = calloc(nj, sizeof *k->upload_positions);
    k->upload_position_found = calloc(nj, sizeof *k->upload_position_found);
    if (!k->joint_nodes || !k->inverse_binds || !k->upload_positions || !k->upload_position_found)
        return am_fail_nomem(c->err, "skin joints");
    for (size_t j = 0; j < nj; j++) {
        k->joint_nodes[j] = -1;
        k->inverse_binds[j] = am_mat4_identity();
    }
    xmlNode *isrc = ii ? am_dae_input_source(c, ii) : NULL;
    xmlNode *fa = am_dae_child(isrc, "float_array");
    if (!fa)
        return am_dae_fail(c, joints, "no INV_BIND_MATRIX input with a <float_array>");
    double *ib;
    size_t nib;
    if ((st = am_dae_doubles(c, fa, &ib, &nib)))
        return st;
    size_t mats = nib / 16;
    if (mats < nj) {
        free(ib);
        return am_dae_fail(c, fa, "%zu inverse bind matrices for %zu joints (the uploader would pad with identities and "
                               "pull those joints onto their parents)",
                        mats, nj);
    }
    if (mats > nj)
        am_scene_note(s, "skin '%s': %zu inverse bind matrices for %zu joints: the extra ones are ignored", k->name,
                      mats, nj);
    k->has_inverse_binds = true;
    for (size_t j = 0; j < nj && !st; j++) {
        k->inverse_binds[j] = am_dae_ll_matrix(&ib[16 * j]);
        if (!finite_mat(&k->inverse_binds[j]))
            st = am_dae_fail(c, fa, "the inverse bind matrix of joint %zu '%s' holds a value that is not a number", j,
                          k->joint_names[j]);
    }
    free(ib);
    if (st)
        return st;
    return read_weights(c, am_dae_child(skin, "vertex_weights"), mi, k);
}

/* The skeleton root of a skin: the first <skeleton> of the instance_controller that
 * instances its controller, else none. */
static int skin_root(am_dae_ctx *c, const xmlNode *ctrl)
{
    const char *id = am_dae_attr(ctrl, "id");
    for (size_t i = 0; id && i < c->scene->node_count; i++)
        for (xmlNode *k = am_dae_child(c->node_xml[i], "instance_controller"); k; k = am_dae_next(k, "instance_controller")) {
            const char *url = am_dae_attr(k, "url");
            if (!url || url[0] != '#' || strcmp(url + 1, id) != 0)
                continue;
            xmlNode *sk = am_dae_child(k, "skeleton");
            char ref[512];
            xmlNode *el = sk ? am_dae_find_id(c, am_dae_text_trim(sk, ref, sizeof ref)) : NULL;
            return el ? am_dae_node_index(c, el) : -1;
        }
    return -1;
}

am_status am_dae_read_skins(am_dae_ctx *c)
{
    am_status st = AM_OK;
    /* Every controller is verified first (OpenFile aborts the whole load on one). */
    for (xmlNode *lib = am_dae_child(c->root, "library_controllers"); lib && !st;
         lib = am_dae_next(lib, "library_controllers"))
        for (xmlNode *ctrl = am_dae_child(lib, "controller"); ctrl && !st; ctrl = am_dae_next(ctrl, "controller")) {
            xmlNode *skin = am_dae_child(ctrl, "skin");
            if (skin)
                st = verify_controller(c, ctrl, skin);
        }
    for (xmlNode *lib = am_dae_child(c->root, "library_controllers"); lib && !st;
         lib = am_dae_next(lib, "library_controllers"))
        for (xmlNode *ctrl = am_dae_child(lib, "controller"); ctrl && !st; ctrl = am_dae_next(ctrl, "controller")) {
            xmlNode *skin = am_dae_child(ctrl, "skin");
            if (!skin) {
                am_scene_note(c->scene, "controller '%s' is not a <skin> (a morph?): ignored, as by the uploader",
                              am_dae_attr(ctrl, "id") ? am_dae_attr(ctrl, "id") : "");
                continue;
            }
            xmlNode *geom = am_dae_find_id(c, am_dae_attr(skin, "source"));
            int mi = am_dae_is(geom, "geometry") ? mesh_of_geometry(c, geom) : -1;
            if (mi < 0) {
                am_scene_note(c->scene, "controller '%s': its source is not a mesh geometry: ignored, as by the "
                                        "uploader",
                              am_dae_attr(ctrl, "id") ? am_dae_attr(ctrl, "id") : "");
                continue;
            }
            if ((st = read_skin(c, ctrl, skin, (size_t)mi)))
                break;
            c->scene->skins[c->scene->skin_count - 1].skeleton_root = skin_root(c, ctrl);
        }
    if (!st)
        st = upload_positions(c);
    /* A skinned geometry also placed with <instance_geometry> is uploaded twice. */
    for (size_t i = 0; !st && i < c->scene->node_count; i++)
        for (xmlNode *k = am_dae_child(c->node_xml[i], "instance_geometry"); k; k = am_dae_next(k, "instance_geometry")) {
            xmlNode *geom = am_dae_find_id(c, am_dae_attr(k, "url"));
            int mi = geom ? mesh_of_geometry(c, geom) : -1;
            if (mi >= 0 && c->scene->meshes[mi].skin >= 0)
                am_scene_note(c->scene, "geometry '%s' is skinned and also placed with <instance_geometry>: the "
                                        "uploader would upload it a second time, unrigged",
                              c->scene->meshes[mi].name);
        }
    return st;
}
