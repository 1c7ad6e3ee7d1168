/* The faithful route (import.h): a COLLADA scene rigged to the viewer skeleton -> one
 * explicit rig per model the viewer's uploader would make, carrying exactly what it would
 * upload (docs/reference/collada-upload.md):
 *  - models: each skinned mesh's faces (already welded, cut and sorted by the reader), 8 per
 *    model (LLDAELoader::loadModelsFromDomMesh: the rest become extra models);
 *  - joints: the skin's names through the legal-joint map, in file order, its inverse binds
 *    and bind shape in F32 (the uploader keeps them as F32), each joint position the
 *    uploader's (the node translation its rules find, (0, 0, 0) without one);
 *  - weights as the uploader keeps them (4.5): per COLLADA position sorted by weight
 *    (ties: higher joint first), the 4 strongest above 0, renormalised in F32; stored BY
 *    POSITION (normalised into the model's unit cube, the later of two equal positions
 *    overwriting the earlier), and each vertex takes the first stored position within
 *    1e-5 of its own in the map's order (LLModel::getJointInfluences). So coincident
 *    positions share one weight list: reproduced and counted (borrowed_weights). A vertex
 *    left with no weight follows joint_names[0] in the viewer; the rig gives it that joint
 *    with weight 1 (the same drawing; our builder refuses empty lists).
 *  The skin builder then quantises with our exact-sum rule (codes sum to 65535) where the
 *  uploader truncates each weight: a code may differ by at most one step per influence.
 * --merge joins every part into one asset (bind shapes applied to the vertices so one
 * identity bind shape serves all) when the faces fit 8 and the joints 110. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/radix.h"
#include "import/import.h"
#include "skin/skin_weights.h"

#define WEIGHT_EPS 1e-5f /* LLModel::jointPositionalLookup */

/* The F32 value the uploader keeps (-0 as 0: the same number, and what the rig JSON
 * writes, so NAME.rig.json rebuilds the asset byte for byte). */
static double f32(double v)
{
    double r = (double)(float)v;
    return r == 0 ? 0.0 : r;
}

static am_mat4 f32_mat(const am_mat4 *m)
{
    am_mat4 r;
    for (int k = 0; k < 16; k++)
        r.m[k] = f32(m->m[k]);
    return r;
}

/* --- the uploader's weights ------------------------------------------------------------ */

typedef struct kept {
    uint8_t n;
    int joint[4];
    float w[4];
} kept;

/* processDomModel 4.5 steps 2-4 on one position's raw influences. */
static void keep_weights(const am_scene_influence *in, size_t n, kept *out)
{
    /* a small insertion sort by (weight desc, joint desc): LLModel::CompareWeightGreater */
    am_scene_influence buf[64];
    size_t m = n < 64 ? n : 64;
    for (size_t i = 0; i < m; i++) {
        am_scene_influence x = in[i];
        size_t k = i;
        while (k > 0 && (buf[k - 1].weight < x.weight || (buf[k - 1].weight == x.weight && buf[k - 1].joint < x.joint))) {
            buf[k] = buf[k - 1];
            k--;
        }
        buf[k] = x;
    }
    out->n = 0;
    float total = 0;
    for (size_t i = 0; i < m && i < 4; i++)
        if (buf[i].weight > 0.f) {
            out->joint[out->n] = (int)buf[i].joint;
            out->w[out->n] = buf[i].weight;
            total += buf[i].weight;
            out->n++;
        }
    /* no positive weight kept: nothing to scale (and 1/0 would be inf) */
    if (!out->n || !(total > 0.f))
        return;
    if (isinf(total)) {
        /* huge weights: relative to the largest first (sorted, so w[0]), then summed again */
        float largest = out->w[0];
        total = 0;
        for (int i = 0; i < out->n; i++)
            total += out->w[i] /= largest;
    }
    float scale = 1.f / total;
    if (scale != 1.f)
        for (int i = 0; i < out->n; i++)
            out->w[i] *= scale;
}

typedef struct wkey {
    float q[3];  /* normalised position */
    uint32_t pos;/* COLLADA position */
} wkey;

static int cmp_wkey(const void *a, const void *b)
{
    const wkey *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x->q[k] != y->q[k])
            return x->q[k] < y->q[k] ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* keys sorted as cmp_wkey sorts them: three stable radix passes (z, y, then x) over keys in
 * increasing pos, which is the order cmp_wkey's ties fall back to (-0 keyed as 0: the two
 * compare equal). A NaN, which no sort orders, keeps qsort's order. */
static am_status sort_wkeys(wkey *keys, size_t n, am_error *err)
{
    bool nan = false;
    for (size_t i = 0; i < n && !nan; i++)
        nan = isnan(keys[i].q[0]) || isnan(keys[i].q[1]) || isnan(keys[i].q[2]);
    uint32_t *key = malloc((n ? n : 1) * sizeof *key), *perm = malloc((n ? n : 1) * sizeof *perm);
    wkey *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (nan || !key || !perm || !sorted) {
        free(key);
        free(perm);
        free(sorted);
        qsort(keys, n, sizeof *keys, cmp_wkey); /* nothing lost: the same order, slower */
        return AM_OK;
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    am_status st = AM_OK;
    for (int k = 2; k >= 0 && !st; k--) {
        for (size_t i = 0; i < n; i++) {
            float q = keys[perm[i]].q[k];
            key[i] = am_radix_float_key(q == 0 ? 0.0f : q);
        }
        st = am_radix_sort_u32(key, perm, n, err);
    }
    if (!st) {
        for (size_t i = 0; i < n; i++)
            sorted[i] = keys[perm[i]];
        memcpy(keys, sorted, n * sizeof *keys);
    }
    free(key);
    free(perm);
    free(sorted);
    return st;
}

typedef struct norm_box {
    float trans[3], scale[3];
} norm_box;

static void normalise(const norm_box *b, const float *p, float out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (p[k] + b->trans[k]) * b->scale[k];
}

/* LLModel::normalizeVolumeFaces over every face of the mesh ("with the whole gang"). */
static void mesh_box(const am_scene_mesh *m, norm_box *b)
{
    float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t f = 0; f < m->face_count; f++)
        for (size_t i = 0; i < m->faces[f].index_count; i++) {
            const float *p = &m->positions[3 * (size_t)m->faces[f].indices[i]];
            for (int k = 0; k < 3; k++) {
                mn[k] = p[k] < mn[k] ? p[k] : mn[k];
                mx[k] = p[k] > mx[k] ? p[k] : mx[k];
            }
        }
    for (int k = 0; k < 3; k++) {
        float size = mx[k] - mn[k];
        if (!(fabsf(size) >= 0.00001f))
            size = 1.0f;
        b->trans[k] = (mn[k] + mx[k]) * -0.5f;
        b->scale[k] = 1.0f / size;
    }
}

typedef struct weight_map {
    wkey *keys;   /* sorted, one per distinct normalised position (the last position wins) */
    size_t count;
    kept *by_pos; /* per COLLADA position */
    size_t npos;
    int64_t *first_vertex; /* per COLLADA position: a vertex that came from it, -1 none */
} weight_map;

static void weight_map_free(weight_map *w)
{
    free(w->keys);
    free(w->by_pos);
    free(w->first_vertex);
    memset(w, 0, sizeof *w);
}

static am_status weight_map_make(const am_scene_mesh *m, const norm_box *box, weight_map *w, am_error *err)
{
    memset(w, 0, sizeof *w);
    size_t npos = 0;
    for (size_t v = 0; v < m->vertex_count; v++) {
        size_t p = m->source_position ? m->source_position[v] : v;
        npos = p + 1 > npos ? p + 1 : npos;
    }
    w->npos = npos;
    w->by_pos = calloc(npos ? npos : 1, sizeof *w->by_pos);
    w->first_vertex = malloc((npos ? npos : 1) * sizeof *w->first_vertex);
    w->keys = malloc((npos ? npos : 1) * sizeof *w->keys);
    if (!w->by_pos || !w->first_vertex || !w->keys) {
        weight_map_free(w);
        return am_fail_nomem(err, "weight map");
    }
    for (size_t p = 0; p < npos; p++)
        w->first_vertex[p] = -1;
    for (size_t v = 0; v < m->vertex_count; v++) {
        size_t p = m->source_position ? m->source_position[v] : v;
        if (w->first_vertex[p] >= 0)
            continue;
        w->first_vertex[p] = (int64_t)v;
        keep_weights(&m->influences[m->influence_start[v]], m->influence_start[v + 1] - m->influence_start[v],
                     &w->by_pos[p]);
    }
    size_t n = 0;
    for (size_t p = 0; p < npos; p++) {
        if (w->first_vertex[p] < 0)
            continue;
        normalise(box, &m->positions[3 * (size_t)w->first_vertex[p]], w->keys[n].q);
        w->keys[n].pos = (uint32_t)p;
        n++;
    }
    am_status st = sort_wkeys(w->keys, n, err);
    if (st) {
        weight_map_free(w);
        return st;
    }
    /* std::map assignment: of equal positions the later one stays */
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out && memcmp(w->keys[out - 1].q, w->keys[i].q, sizeof w->keys[i].q) == 0) {
            w->keys[out - 1] = w->keys[i];
            continue;
        }
        w->keys[out++] = w->keys[i];
    }
    w->count = out;
    return AM_OK;
}

/* LLModel::getJointInfluences: the first stored position, in the map's order, within 1e-5
 * of q; failing that (cannot happen for a face vertex) the vertex's own position. */
static uint32_t weight_lookup(const weight_map *w, const float q[3], uint32_t own)
{
    size_t lo = 0, hi = w->count;
    float x0 = q[0] - WEIGHT_EPS;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->keys[mid].q[0] <= x0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < w->count && w->keys[i].q[0] < q[0] + WEIGHT_EPS; i++) {
        float d[3] = {w->keys[i].q[0] - q[0], w->keys[i].q[1] - q[1], w->keys[i].q[2] - q[2]};
        if (sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) < WEIGHT_EPS)
            return w->keys[i].pos;
    }
    return own;
}

static bool same_kept(const kept *a, const kept *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++)
        if (a->joint[i] != b->joint[i] || a->w[i] != b->w[i])
            return false;
    return true;
}

/* --- parts ---------------------------------------------------------------------------------- */

/* The viewer parent of a skin joint as the file nests it: the nearest ancestor node whose
 * sid or name is a viewer joint. -1 when none (e.g. it hangs under an "Avatar" node). */
static int file_parent_joint(const am_scene *s, const am_skeleton *skel, int node, const char **via)
{
    *via = NULL;
    for (int a = node >= 0 ? s->nodes[node].parent : -1; a >= 0; a = s->nodes[a].parent) {
        const am_scene_node *n = &s->nodes[a];
        int j = n->sid ? am_skeleton_find(skel, n->sid) : -1;
        if (j < 0)
            j = am_skeleton_find(skel, n->name);
        if (j >= 0)
            return j;
        if (!*via)
            *via = n->name;
    }
    return -1;
}

/* Findings about a skin's joints that do not depend on the model split. */
static void joint_findings(am_import_plan *plan, const am_scene *s, const am_skeleton *skel, const am_scene_mesh *m,
                           const am_scene_skin *k)
{
    char flat[280] = "", missing[280] = "";
    size_t nflat = 0, nmissing = 0, lf = 0, lm = 0;
    for (size_t j = 0; j < k->joint_count; j++) {
        int sj = am_skeleton_find(skel, k->joint_names[j]);
        if (sj < 0)
            continue;
        if (!k->upload_position_found || !k->upload_position_found[j]) {
            if (nmissing++ < 6) {
                int w = snprintf(missing + lm, sizeof missing - lm, "%s'%s'", lm ? ", " : "", k->joint_names[j]);
                lm += w > 0 && (size_t)w < sizeof missing - lm ? (size_t)w : 0;
            }
            continue;
        }
        const char *via;
        int fp = file_parent_joint(s, skel, k->joint_nodes[j], &via);
        int vp = skel->joints[sj].parent;
        if (fp != vp) {
            if (nflat++ < 4) {
                int w = snprintf(flat + lf, sizeof flat - lf, "%s%s under %s (viewer parent %s)", lf ? "; " : "",
                                 skel->joints[sj].name,
                                 fp >= 0 ? skel->joints[fp].name : via ? via : "the scene root",
                                 vp >= 0 ? skel->joints[vp].name : "mRoot");
                lf += w > 0 && (size_t)w < sizeof flat - lf ? (size_t)w : 0;
            }
        }
    }
    if (nflat)
        am_import_finding_add(plan, "flattened_hierarchy",
                              "mesh '%s': flattened hierarchy: %zu joint%s not nested under %s viewer parent: %s%s. "
                              "The uploader takes each node's own translation as its offset from the VIEWER parent",
                              m->name, nflat, nflat == 1 ? " is" : "s are", nflat == 1 ? "its" : "their", flat,
                              nflat > 4 ? "; ..." : "");
    if (nmissing)
        am_import_finding_add(plan, "joint_not_in_scene",
                              "mesh '%s': %zu skin joint%s no node with a translation in the scene: %s%s. The "
                              "uploader writes position (0, 0, 0): the viewer pulls %s onto %s viewer parent",
                              m->name, nmissing, nmissing == 1 ? " has" : "s have", missing, nmissing > 6 ? ", ..." : "",
                              nmissing == 1 ? "it" : "them", nmissing == 1 ? "its" : "their");
}

static void sanitize(const char *in, char *out, size_t size)
{
    size_t w = 0;
    for (size_t i = 0; in[i] && w + 1 < size; i++) {
        char c = in[i];
        out[w++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.')
                       ? c
                       : '_';
    }
    out[w] = '\0';
}

/* The rig of one model: faces [f0, f1) of a skinned mesh. */
static am_status model_rig(am_import_plan *plan, const am_scene *s, const am_skeleton *skel, const am_scene_mesh *m,
                           const weight_map *wm, const norm_box *box, size_t f0, size_t f1, am_import_part *part,
                           am_error *err)
{
    const am_scene_skin *k = &s->skins[m->skin];
    am_rig *r = &part->rig;
    size_t nv = 0, nt = 0;
    uint32_t *map = malloc((m->vertex_count ? m->vertex_count : 1) * sizeof *map);
    if (!map)
        return am_fail_nomem(err, "rig");
    for (size_t v = 0; v < m->vertex_count; v++)
        map[v] = UINT32_MAX;
    for (size_t f = f0; f < f1; f++) {
        nt += m->faces[f].index_count / 3;
        for (size_t i = 0; i < m->faces[f].index_count; i++)
            if (map[m->faces[f].indices[i]] == UINT32_MAX)
                map[m->faces[f].indices[i]] = (uint32_t)nv++;
    }
    r->name = am_strdup(am_str(&part->name));
    r->vertex_count = nv;
    r->positions = malloc((nv ? nv : 1) * 3 * sizeof(float));
    r->normals = malloc((nv ? nv : 1) * 3 * sizeof(float));
    r->uvs = malloc((nv ? nv : 1) * 2 * sizeof(float));
    r->triangle_count = nt;
    r->triangles = malloc((nt ? nt : 1) * 3 * sizeof(uint32_t));
    r->face_count = f1 - f0;
    r->face_start = malloc((r->face_count + 1) * sizeof *r->face_start);
    r->weight_start = malloc((nv + 1) * sizeof *r->weight_start);
    r->influences = malloc((nv ? nv : 1) * 4 * sizeof *r->influences);
    r->joint_count = k->joint_count;
    r->joints = calloc(k->joint_count, sizeof *r->joints);
    part->joint_found = malloc(k->joint_count * sizeof *part->joint_found);
    bool *weighted = calloc(k->joint_count, sizeof *weighted);
    if (!r->name || !r->positions || !r->normals || !r->uvs || !r->triangles || !r->face_start || !r->weight_start ||
        !r->influences || !r->joints || !part->joint_found || !weighted) {
        free(map);
        free(weighted);
        return am_fail_nomem(err, "rig");
    }
    size_t t = 0;
    for (size_t f = f0; f < f1; f++) {
        r->face_start[f - f0] = t;
        for (size_t i = 0; i < m->faces[f].index_count; i++)
            r->triangles[3 * t + i] = map[m->faces[f].indices[i]];
        t += m->faces[f].index_count / 3;
    }
    r->face_start[r->face_count] = t;
    /* vertices in the rig's order, with the uploader's weights */
    size_t at = 0;
    uint32_t *order = malloc((nv ? nv : 1) * sizeof *order);
    if (!order) {
        free(map);
        free(weighted);
        return am_fail_nomem(err, "rig");
    }
    for (size_t v = 0; v < m->vertex_count; v++)
        if (map[v] != UINT32_MAX)
            order[map[v]] = (uint32_t)v;
    for (size_t i = 0; i < nv; i++) {
        uint32_t v = order[i];
        memcpy(&r->positions[3 * i], &m->positions[3 * (size_t)v], 3 * sizeof(float));
        if (m->normals)
            memcpy(&r->normals[3 * i], &m->normals[3 * (size_t)v], 3 * sizeof(float));
        else
            memset(&r->normals[3 * i], 0, 3 * sizeof(float));
        if (m->uvs)
            memcpy(&r->uvs[2 * i], &m->uvs[2 * (size_t)v], 2 * sizeof(float));
        else
            memset(&r->uvs[2 * i], 0, 2 * sizeof(float));
        uint32_t own = m->source_position ? m->source_position[v] : v;
        float q[3];
        normalise(box, &m->positions[3 * (size_t)v], q);
        uint32_t src = weight_lookup(wm, q, own);
        const kept *kw = &wm->by_pos[src];
        if (src != own && !same_kept(kw, &wm->by_pos[own]))
            part->borrowed_weights++;
        r->weight_start[i] = at;
        if (kw->n == 0) {
            /* no weight kept: the viewer binds the vertex to joint_names[0] */
            r->influences[at++] = (am_rig_influence){0, 1.0};
            part->unweighted_vertices++;
        }
        for (int q2 = 0; q2 < kw->n; q2++) {
            r->influences[at++] = (am_rig_influence){kw->joint[q2], (double)kw->w[q2]};
            weighted[kw->joint[q2]] = true;
        }
    }
    r->weight_start[nv] = at;
    free(order);
    free(map);
    for (size_t j = 0; j < k->joint_count; j++) {
        int sj = am_skeleton_find(skel, k->joint_names[j]);
        am_rig_joint *rj = &r->joints[j];
        rj->name = am_strdup(sj >= 0 ? skel->joints[sj].name : k->joint_names[j]);
        if (!rj->name) {
            free(weighted);
            return am_fail_nomem(err, "rig joint");
        }
        rj->inverse_bind = f32_mat(&k->inverse_binds[j]);
        am_vec3 u = k->upload_positions ? k->upload_positions[j] : am_v3(0, 0, 0);
        rj->position = am_v3(f32(u.x), f32(u.y), f32(u.z));
        am_mat4 bind;
        rj->world = am_mat4_inverse(&rj->inverse_bind, &bind) ? am_mat4_get_translation(&bind) : am_v3(0, 0, 0);
        part->joint_found[j] = k->upload_position_found ? k->upload_position_found[j] : true;
        part->weighted_joints += weighted[j];
    }
    free(weighted);
    r->explicit_skin = true;
    r->has_joint_positions = true;
    r->bind_shape = f32_mat(&k->bind_shape);
    /* the first face's material colours the part */
    const am_scene_face *f = &m->faces[f0];
    const am_scene_material *mat = f->material >= 0 ? &s->materials[f->material] : NULL;
    for (int c = 0; c < 3; c++) {
        double v = mat ? mat->base_color[c] : 1;
        r->rgb[c] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
    am_status st;
    part->texture = am_import_texture_for(plan, mat, &st, err);
    r->textured = part->texture >= 0;
    /* every face its own texture in the .dae; the archive's prim wears the first on all */
    bool several = false;
    for (size_t g = f0; g < f1 && !st && f1 - f0 <= AM_MESH_MAX_FACES; g++) {
        const am_scene_material *other = m->faces[g].material >= 0 ? &s->materials[m->faces[g].material] : NULL;
        part->face_textures[part->face_texture_count++] = g == f0 ? part->texture
                                                                  : am_import_texture_for(plan, other, &st, err);
        several |= part->face_textures[g - f0] != part->texture;
    }
    for (size_t g = f0 + 1; g < f1 && !st; g++) {
        const am_scene_material *other = m->faces[g].material >= 0 ? &s->materials[m->faces[g].material] : NULL;
        if (other && other->image_path && (!mat || !mat->image_path || strcmp(other->image_path, mat->image_path)))
            am_import_finding_add(plan, "one_texture_per_part",
                                  "part '%s': face %zu uses another texture (%s): the .dae and the OAR give it its "
                                  "own",
                                  am_str(&part->name), g - f0, other->image_path);
    }
    if (!several)
        part->face_texture_count = 0; /* one texture: the part's own, as before */
    return st;
}

static am_status mesh_parts(am_import_plan *plan, const am_scene *s, const am_skeleton *skel, size_t mi,
                            size_t skinned, am_error *err)
{
    const am_scene_mesh *m = &s->meshes[mi];
    const am_scene_skin *k = &s->skins[m->skin];
    if (k->joint_count > AM_MAX_JOINTS_PER_MESH) {
        am_fail(err, AM_ERR_INVALID,
                "mesh '%s': Skinning disabled due to too many joints: %zu, maximum: %d (the uploader's refusal; "
                "list at most %d joints in <joints>)",
                m->name, k->joint_count, AM_MAX_JOINTS_PER_MESH, AM_MAX_JOINTS_PER_MESH);
        am_error_where(err, "%s", am_str(&plan->source));
        return AM_ERR_INVALID;
    }
    for (size_t j = 0; j < k->joint_count; j++)
        for (size_t i = 0; i < j; i++)
            if (am_skeleton_find(skel, k->joint_names[i]) == am_skeleton_find(skel, k->joint_names[j])) {
                am_fail(err, AM_ERR_INVALID, "mesh '%s': skin joints %zu '%s' and %zu '%s' are one viewer joint",
                        m->name, i, k->joint_names[i], j, k->joint_names[j]);
                am_error_where(err, "%s", am_str(&plan->source));
                return AM_ERR_INVALID;
            }
    if (m->face_count == 0) {
        am_import_finding_add(plan, "empty_mesh", "mesh '%s' has no triangles: skipped", m->name);
        return AM_OK;
    }
    norm_box box;
    mesh_box(m, &box);
    weight_map wm;
    am_status st = weight_map_make(m, &box, &wm, err);
    if (st)
        return st;
    joint_findings(plan, s, skel, m, k);
    /* LLModelPreview::rebuildUploadData: the unscaled rotation of the bind shape */
    am_vec3 bt, bs;
    am_quat bq;
    am_scene_decompose(&k->bind_shape, &bt, &bq, &bs);
    if (bq.w < 0)
        bq = (am_quat){-bq.x, -bq.y, -bq.z, -bq.w};
    if (fabs(bq.x) > 0.01 || fabs(bq.y) > 0.01 || fabs(bq.z) > 0.01 || fabs(bq.w - 1) > 0.01)
        am_import_finding_add(plan, "bind_shape_rotation",
                              "mesh '%s': the bind shape matrix turns the mesh %.1f degrees (the uploader: \"Warning: "
                              "bind shape matrix is not in standard X-forward orientation.\"); the viewer turns a rezzed "
                              "animesh's skeleton by its inverse",
                              m->name, 2 * acos(fmin(1.0, fabs(bq.w))) * 180.0 / AM_PI);
    size_t models = (m->face_count + AM_MESH_MAX_FACES - 1) / AM_MESH_MAX_FACES;
    if (models > 1)
        am_import_finding_add(plan, "more_than_8_faces",
                              "mesh '%s' has %zu faces: the uploader makes %zu models of at most 8 faces (one prim "
                              "each)",
                              m->name, m->face_count, models);
    size_t positions = 0;
    for (size_t p = 0; p < wm.npos; p++)
        positions += wm.first_vertex[p] >= 0;
    for (size_t md = 0; md < models && !st; md++) {
        am_import_part *part = am_import_part_new(plan, err);
        if (!part) {
            st = AM_ERR_NOMEM;
            break;
        }
        char mesh_name[100];
        sanitize(m->name, mesh_name, sizeof mesh_name);
        bool named;
        if (skinned == 1 && models == 1)
            named = am_string_copy(&part->name, &plan->name);
        else if (md == 0) /* a file stem: each half kept to 60 (the rig's name rule: 1..100 characters) */
            named = am_string_setf(&part->name, "%.60s_%.60s", am_str(&plan->name), mesh_name);
        else /* the uploader's label of an extra model: the name + 'b', 'c', ... */
            named = am_string_setf(&part->name, "%.60s_%.60s%c", am_str(&plan->name), mesh_name, (char)('a' + md));
        if (!named || !am_string_set(&part->meshes, m->name)) {
            st = am_fail_nomem(err, "import parts");
            break;
        }
        part->positions = positions;
        size_t f0 = md * AM_MESH_MAX_FACES, f1 = f0 + AM_MESH_MAX_FACES < m->face_count ? f0 + AM_MESH_MAX_FACES
                                                                                           : m->face_count;
        st = model_rig(plan, s, skel, m, &wm, &box, f0, f1, part, err);
        if (!st && part->borrowed_weights)
            am_import_finding_add(plan, "coincident_weights",
                                  "part '%s': %zu vertices take the weights of another COLLADA position at the same "
                                  "place (the uploader keys weights by position): reproduced",
                                  am_str(&part->name), part->borrowed_weights);
        if (!st && part->unweighted_vertices)
            am_import_finding_add(plan, "unweighted_vertices",
                                  "part '%s': %zu vertices keep no weight: the viewer binds them to the first joint, "
                                  "'%s'",
                                  am_str(&part->name), part->unweighted_vertices, part->rig.joints[0].name);
    }
    weight_map_free(&wm);
    return st;
}

/* Whether parts a and b wear the same material: the same texture, or untextured and the
 * same colour. */
static bool same_material(const am_import_part *a, const am_import_part *b)
{
    if (a->texture >= 0 || b->texture >= 0)
        return a->texture == b->texture;
    return memcmp(a->rig.rgb, b->rig.rgb, sizeof a->rig.rgb) == 0;
}

/* by_material: every part one face: the group (first part wearing the same material) of each
 * part, and the number of groups; false when some part has several faces. */
static bool material_groups(const am_import_plan *plan, size_t *group, size_t *count)
{
    *count = 0;
    for (size_t i = 0; i < plan->part_count; i++) {
        if (plan->parts[i].rig.face_count > 1)
            return false;
        group[i] = i;
        for (size_t k = 0; k < i && group[i] == i; k++)
            if (same_material(&plan->parts[k], &plan->parts[i]))
                group[i] = group[k];
        *count += group[i] == i;
    }
    return true;
}

am_status am_import_merge_parts(am_import_plan *plan, bool by_material, am_error *err)
{
    size_t faces = 0, verts = 0, tris = 0, infl = 0, groups = 0;
    size_t *group = malloc((plan->part_count ? plan->part_count : 1) * sizeof *group);
    size_t *vstart = malloc((plan->part_count ? plan->part_count : 1) * sizeof *vstart);
    if (!group || !vstart) {
        free(group);
        free(vstart);
        return am_fail_nomem(err, "merge");
    }
    by_material = by_material && material_groups(plan, group, &groups);
    for (size_t i = 0; i < plan->part_count; i++) {
        const am_rig *r = &plan->parts[i].rig;
        faces += r->face_count ? r->face_count : 1; /* 0: all its triangles one run */
        verts += r->vertex_count;
        tris += r->triangle_count;
        infl += r->weight_start[r->vertex_count];
    }
    if (by_material)
        faces = groups; /* the parts' materials as faces */
    if (faces > AM_MESH_MAX_FACES) {
        am_fail(err, AM_ERR_INVALID, "the merge option: the %zu meshes hold %zu %s, one asset holds at most %d faces",
                plan->part_count, faces, by_material ? "materials" : "faces", AM_MESH_MAX_FACES);
        am_error_where(err, "%s", am_str(&plan->source));
        free(group);
        free(vstart);
        return AM_ERR_INVALID;
    }
    am_import_part merged;
    memset(&merged, 0, sizeof merged);
    merged.texture = plan->parts[0].texture;
    am_rig *r = &merged.rig;
    r->name = am_strdup(am_str(&plan->name));
    r->joints = calloc(AM_MAX_JOINTS_PER_MESH + 1, sizeof *r->joints);
    merged.joint_found = calloc(AM_MAX_JOINTS_PER_MESH + 1, sizeof *merged.joint_found);
    r->positions = malloc(3 * verts * sizeof(float));
    r->normals = malloc(3 * verts * sizeof(float));
    r->uvs = malloc(2 * verts * sizeof(float));
    r->triangles = malloc(3 * tris * sizeof(uint32_t));
    r->face_start = malloc((faces + 1) * sizeof *r->face_start);
    r->weight_start = malloc((verts + 1) * sizeof *r->weight_start);
    r->influences = malloc((infl ? infl : 1) * sizeof *r->influences);
    am_status st = AM_OK;
    if (!am_string_copy(&merged.name, &plan->name) || !r->name || !r->joints || !merged.joint_found || !r->positions || !r->normals || !r->uvs || !r->triangles ||
        !r->face_start || !r->weight_start || !r->influences) {
        st = am_fail_nomem(err, "merge");
        goto fail;
    }
    /* a faithful part's skin is explicit (the file's inverse binds); a retargeted part's is
     * computed from its joints' rest places, the same for every part */
    bool explicit_skin = plan->parts[0].rig.explicit_skin;
    r->explicit_skin = explicit_skin;
    r->has_joint_positions = explicit_skin || plan->parts[0].rig.has_joint_positions;
    r->bind_shape = am_mat4_identity();
    memcpy(r->rgb, plan->parts[0].rig.rgb, sizeof r->rgb);
    r->textured = plan->parts[0].rig.textured;
    size_t vbase = 0, tbase = 0, at = 0;
    for (size_t i = 0; i < plan->part_count && !st; i++) {
        const am_import_part *p = &plan->parts[i];
        const am_rig *s = &p->rig;
        int remap[AM_MAX_JOINTS_PER_MESH];
        for (size_t j = 0; j < s->joint_count; j++) {
            int hit = -1;
            for (size_t q = 0; q < r->joint_count && hit < 0; q++)
                if (strcmp(r->joints[q].name, s->joints[j].name) == 0)
                    hit = (int)q;
            if (hit >= 0) {
                const am_rig_joint *a = &r->joints[hit], *b = &s->joints[j];
                if (explicit_skin != s->explicit_skin ||
                    (explicit_skin ? am_mat4_max_abs_diff(&a->inverse_bind, &b->inverse_bind) > 1e-4 ||
                                         am_v3_dist(a->position, b->position) > AM_JOINT_POS_THRESHOLD
                                   : am_v3_dist(a->world, b->world) > 1e-4)) {
                    st = am_fail(
                        err, AM_ERR_INVALID,
                        "the merge option: joint '%s' has another inverse bind or position in mesh '%s' than in an "
                        "earlier mesh: they cannot share one skin",
                        b->name, am_str(&p->meshes));
                    break;
                }
            } else {
                if (r->joint_count == AM_MAX_JOINTS_PER_MESH) {
                    st = am_fail(err, AM_ERR_INVALID, "the merge option: the meshes use more than %d joints together",
                                 AM_MAX_JOINTS_PER_MESH);
                    break;
                }
                hit = (int)r->joint_count++;
                r->joints[hit] = s->joints[j];
                r->joints[hit].name = am_strdup(s->joints[j].name);
                merged.joint_found[hit] = p->joint_found ? p->joint_found[j] : true;
                if (!r->joints[hit].name) {
                    st = am_fail_nomem(err, "merge");
                    break;
                }
            }
            remap[j] = hit;
        }
        if (st)
            break;
        /* vertices into the bind frame: p * bind_shape; normals by its inverse transpose */
        am_mat4 inv;
        if (!am_mat4_inverse(&s->bind_shape, &inv))
            inv = am_mat4_identity();
        am_mat4 nrm = am_mat4_transpose(&inv);
        for (size_t v = 0; v < s->vertex_count; v++) {
            am_vec3 q = am_rig_bind_position(s, v);
            am_vec3 n = am_mat4_transform_dir(&nrm, am_v3(s->normals[3 * v], s->normals[3 * v + 1], s->normals[3 * v + 2]));
            n = am_v3_normalize(n);
            float *dp = &r->positions[3 * (vbase + v)], *dn = &r->normals[3 * (vbase + v)];
            dp[0] = (float)q.x, dp[1] = (float)q.y, dp[2] = (float)q.z;
            dn[0] = (float)n.x, dn[1] = (float)n.y, dn[2] = (float)n.z;
            memcpy(&r->uvs[2 * (vbase + v)], &s->uvs[2 * v], 2 * sizeof(float));
            r->weight_start[vbase + v] = at;
            for (size_t k = s->weight_start[v]; k < s->weight_start[v + 1]; k++)
                r->influences[at++] = (am_rig_influence){remap[s->influences[k].joint], s->influences[k].weight};
        }
        vstart[i] = vbase;
        if (!by_material) {
            for (size_t f = 0; f < s->face_count; f++)
                r->face_start[r->face_count++] = tbase + s->face_start[f];
            if (s->face_count == 0)
                r->face_start[r->face_count++] = tbase;
            for (size_t t = 0; t < 3 * s->triangle_count; t++)
                r->triangles[3 * tbase + t] = (uint32_t)(vbase + s->triangles[t]);
            tbase += s->triangle_count;
        }
        vbase += s->vertex_count;
        merged.positions += p->positions;
        merged.borrowed_weights += p->borrowed_weights;
        merged.unweighted_vertices += p->unweighted_vertices;
        if (!am_string_appendf(&merged.meshes, "%s%s", merged.meshes.length ? ", " : "", am_str(&p->meshes)))
            st = am_fail_nomem(err, "merge");
    }
    if (st)
        goto fail;
    /* by material: one face per group, its parts' triangles one after another */
    am_string faces_text = {0};
    bool ok = true;
    for (size_t g = 0; by_material && g < plan->part_count; g++) {
        if (group[g] != g)
            continue;
        merged.face_textures[merged.face_texture_count++] = plan->parts[g].texture;
        r->face_start[r->face_count++] = tbase;
        const am_import_part *gp = &plan->parts[g];
        ok = ok && am_string_appendf(&faces_text, "%sface %zu %s (", faces_text.length ? "; " : "", r->face_count - 1,
                                     gp->texture >= 0 ? am_str(&plan->textures[gp->texture].name) : "untextured");
        for (size_t i = g; i < plan->part_count; i++) {
            if (group[i] != g)
                continue;
            const am_rig *s = &plan->parts[i].rig;
            for (size_t t = 0; t < 3 * s->triangle_count; t++)
                r->triangles[3 * tbase + t] = (uint32_t)(vstart[i] + s->triangles[t]);
            tbase += s->triangle_count;
            ok = ok && am_string_appendf(&faces_text, "%s%s", i == g ? "" : ", ", am_str(&plan->parts[i].meshes));
        }
        ok = ok && am_string_appendf(&faces_text, ")");
    }
    if (!ok) {
        am_string_free(&faces_text);
        st = am_fail_nomem(err, "merge");
        goto fail;
    }
    r->vertex_count = vbase;
    r->triangle_count = tbase;
    r->face_start[r->face_count] = tbase;
    r->weight_start[vbase] = at;
    /* weighted joints of the union */
    bool used[AM_MAX_JOINTS_PER_MESH] = {false};
    for (size_t k = 0; k < at; k++)
        used[r->influences[k].joint] = true;
    for (size_t j = 0; j < r->joint_count; j++)
        merged.weighted_joints += used[j];
    for (size_t i = 0; i < plan->part_count; i++) {
        am_string_free(&plan->parts[i].name);
        am_string_free(&plan->parts[i].meshes);
        am_rig_free(&plan->parts[i].rig);
        free(plan->parts[i].joint_found);
    }
    plan->parts[0] = merged;
    plan->part_count = 1;
    am_import_finding_add(plan, "merged", "the merge option: %s joined into one asset: %zu faces, %zu joints",
                          am_str(&merged.meshes), r->face_count, r->joint_count);
    if (by_material && groups > 1)
        am_import_finding_add(
            plan, "merged_faces",
            "the merge option: the parts' materials are the asset's faces: %s. The .dae gives each face "
            "its material and image (the uploader's \"Include textures\" takes them) and the "
            "archive's prim each face its texture (docs/second-life.md)",
            am_str(&faces_text));
    am_string_free(&faces_text);
    free(group);
    free(vstart);
    return AM_OK;
fail:
    free(group);
    free(vstart);
    am_rig_free(&merged.rig);
    free(merged.joint_found);
    am_string_free(&merged.name);
    am_string_free(&merged.meshes);
    if (st != AM_ERR_NOMEM)
        am_error_where(err, "%s", am_str(&plan->source));
    return st;
}

am_status am_import_faithful_plan(const am_scene *s, const am_skeleton *skel, const am_import_options *opts,
                                  am_import_plan *plan, am_error *err)
{
    for (size_t i = 0; i < s->note_count; i++)
        am_import_finding_add(plan, "reader", "%s", am_str(&s->notes[i]));
    /* docs/reference/collada-upload.md#units-and-up-axis: the document transform reaches the uploaded object,
     * never the skin */
    if (s->declared.up != 3)
        am_import_finding_add(plan, "up_axis",
                              "the file declares %s: the uploader turns the uploaded object (+90 deg about %s), never "
                              "the skin; for an animesh that turn joins the skeleton's root rotation, so the creature "
                              "appears rolled in-world. The skin is written as the file gives it (export with Z_UP)",
                              s->declared.up == 1 ? "X_UP" : s->declared.up == 2 ? "Y_UP" : "no up axis (Y_UP assumed)",
                              s->declared.up == 1 ? "Y" : "X");
    if (s->declared.unit_m > 0 && fabs(s->declared.unit_m - 1) > 1e-9)
        am_import_finding_add(plan, "unit",
                              "the file declares %g m per unit: the uploader scales the uploaded object by it, never "
                              "the skin (a rigged mesh ignores its prim's scale): the skin is in the file's numbers as "
                              "metres",
                              s->declared.unit_m);
    if (s->notes_dropped)
        am_import_finding_add(plan, "reader", "%zu more reader notes", s->notes_dropped);
    size_t skinned = 0;
    for (size_t m = 0; m < s->mesh_count; m++) {
        if (s->meshes[m].skin >= 0)
            skinned++;
        else
            am_import_finding_add(plan, "static_mesh_skipped",
                                  "mesh '%s' is not rigged: not part of the animesh (the uploader would add it as a "
                                  "static prim)",
                                  s->meshes[m].name);
    }
    am_status st = AM_OK;
    for (size_t m = 0; m < s->mesh_count && !st; m++)
        if (s->meshes[m].skin >= 0)
            st = mesh_parts(plan, s, skel, m, skinned, err);
    if (!st && plan->part_count == 0) {
        st = am_fail(err, AM_ERR_INVALID, "no rigged mesh has triangles");
        am_error_where(err, "%s", am_str(&plan->source));
    }
    if (!st && opts->merge && plan->part_count > 1)
        st = am_import_merge_parts(plan, false, err);
    return st;
}
