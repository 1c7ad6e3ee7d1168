/* Retargeting: options, frames and placement, the mapped joints, rigs (retarget.h).
 * The clips are retarget_clip.c's. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retarget/retarget_internal.h"
#include "core/text.h"
#include "core/text_string.h"

void am_retarget_options_init(am_retarget_options *o)
{
    memset(o, 0, sizeof *o);
    o->priority = 4;
    o->loop = AM_LOOP_AUTO;
    o->loop_tolerance_deg = AM_LOOP_TOLERANCE_DEG;
    o->ease_in_s = 0.3;
    o->ease_out_s = 0.3;
    o->place = AM_PLACE_PELVIS;
    o->rot_tol_deg = 0.02;
    o->max_samples = 8192;
}

void am_retarget_sanitise(const char *in, char *out, size_t size)
{
    size_t k = 0;
    for (const char *p = in ? in : ""; *p && k + 1 < size && k < 64; p++)
        out[k++] = isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.' ? *p : '_';
    out[k] = '\0';
    if (k == 0)
        snprintf(out, size, "clip");
}

am_status am_rest_correction_parse(const char *text, am_rest_correction *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(text, '='), *comma = eq ? strchr(eq, ',') : NULL;
    if (!eq || !comma || eq == text)
        return am_fail(err, AM_ERR_USAGE, "rest correction '%s': expected JOINT=AXIS,DEG (e.g. mHead=Z,-50)", text);
    char axis[8] = "";
    size_t an = (size_t)(comma - eq - 1);
    if (an == 0 || an >= sizeof axis)
        return am_fail(err, AM_ERR_USAGE, "rest correction '%s': AXIS must be X, Y or Z", text);
    memcpy(axis, eq + 1, an);
    int c = tolower((unsigned char)axis[0]);
    if (axis[1] != '\0' || (c != 'x' && c != 'y' && c != 'z'))
        return am_fail(err, AM_ERR_USAGE, "rest correction '%s': AXIS must be X, Y or Z", text);
    out->axis = c - 'x' + 1;
    char *end;
    out->degrees = strtod(comma + 1, &end);
    if (end == comma + 1 || *end != '\0' || !isfinite(out->degrees) || fabs(out->degrees) > 360)
        return am_fail(err, AM_ERR_USAGE, "rest correction '%s': DEG must be a number of degrees (-360..360)", text);
    if (!am_string_setn(&out->joint, text, (size_t)(eq - text)))
        return am_fail_nomem(err, "rest correction");
    return AM_OK;
}

void am_rest_correction_free(am_rest_correction *c)
{
    if (c)
        am_string_free(&c->joint);
}

void am_retarget_add_finding(am_retarget_result *r, am_finding_level level, const char *fmt, ...)
{
    am_retarget_finding *nf = realloc(r->findings, (r->finding_count + 1) * sizeof *nf);
    if (!nf)
        return; /* out of memory: the finding is lost, the result stays valid */
    r->findings = nf;
    am_retarget_finding *f = &r->findings[r->finding_count];
    memset(f, 0, sizeof *f);
    f->level = level;
    va_list ap;
    va_start(ap, fmt);
    bool ok = am_string_vsetf_shown(&f->text, fmt, ap);
    va_end(ap);
    if (ok) /* out of memory: the finding is lost, the result stays valid */
        r->finding_count++;
}

void am_retarget_result_free(am_retarget_result *r)
{
    if (!r)
        return;
    am_body_free(&r->body);
    am_map_suggestion_free(&r->suggestion);
    am_joint_map_free(&r->map);
    for (size_t i = 0; r->rigs && i < r->rig_count; i++) {
        am_rig_free(&r->rigs[i].rig);
        am_string_free(&r->rigs[i].name);
    }
    free(r->rigs);
    for (size_t i = 0; r->anims && i < r->anim_count; i++)
        am_retarget_anim_free(&r->anims[i]);
    free(r->anims);
    for (size_t i = 0; r->findings && i < r->finding_count; i++)
        am_string_free(&r->findings[i].text);
    free(r->findings);
    memset(r, 0, sizeof *r);
}

static void free_rt(am_rt *c)
{
    free(c->bindf);
    free(c->m_node);
    free(c->m_joint);
    free(c->m_anc);
    free(c->m_bindv_inv);
    free(c->m_bind);
    free(c->of_joint);
    free(c->node_target);
    free(c->closed);
    free(c->vbind);
    free(c->m_align);
    free(c->m_child);
}

/* --- the mapped joints and the viewer's rest ----------------------------------------- */

static am_status setup_joints(am_rt *c, am_error *err)
{
    const am_scene *s = c->s;
    const am_skeleton *k = c->skel;
    am_retarget_result *r = c->r;
    size_t nn = s->node_count ? s->node_count : 1, nj = k->joint_count;
    c->bindf = malloc(nn * sizeof *c->bindf);
    c->of_joint = malloc(nj * sizeof *c->of_joint);
    c->node_target = malloc(nn * sizeof *c->node_target);
    c->closed = calloc(nj, sizeof *c->closed);
    c->vbind = calloc(nj, sizeof *c->vbind);
    c->m_node = malloc(nj * sizeof *c->m_node);
    c->m_joint = malloc(nj * sizeof *c->m_joint);
    c->m_anc = malloc(nj * sizeof *c->m_anc);
    c->m_bindv_inv = malloc(nj * sizeof *c->m_bindv_inv);
    c->m_bind = malloc(nj * sizeof *c->m_bind);
    if (!c->bindf || !c->of_joint || !c->node_target || !c->closed || !c->vbind || !c->m_node || !c->m_joint ||
        !c->m_anc || !c->m_bindv_inv || !c->m_bind)
        return am_fail_nomem(err, "retarget");
    c->skin = r->body.skin;
    am_body_bind_matrices(s, c->skin, c->bindf);
    /* mapped joints in viewer order */
    for (size_t j = 0; j < nj; j++)
        c->of_joint[j] = -1;
    int *node_of_joint = malloc(nj * sizeof *node_of_joint);
    if (!node_of_joint)
        return am_fail_nomem(err, "retarget");
    for (size_t j = 0; j < nj; j++)
        node_of_joint[j] = -1;
    for (size_t i = 0; i < r->suggestion.count; i++)
        if (r->suggestion.joints[i].target >= 0)
            node_of_joint[r->suggestion.joints[i].target] = r->suggestion.joints[i].node;
    c->nm = 0;
    for (size_t j = 0; j < nj; j++)
        if (node_of_joint[j] >= 0) {
            c->of_joint[j] = (int)c->nm;
            c->m_node[c->nm] = node_of_joint[j];
            c->m_joint[c->nm] = (int)j;
            c->nm++;
        }
    free(node_of_joint);
    if (c->nm == 0)
        return am_fail(err, AM_ERR_INVALID, "no rig joint is mapped to a viewer joint");
    c->top = 0;
    for (size_t m = 0; m < c->nm; m++) {
        c->m_anc[m] = -1;
        for (int p = am_skeleton_parent(k, c->m_joint[m]); p >= 0 && c->m_anc[m] < 0; p = am_skeleton_parent(k, p))
            c->m_anc[m] = c->of_joint[p];
    }
    /* placement: the joint on mPelvis onto the viewer's pelvis, or the file origin kept */
    int pelvis = am_skeleton_find_exact(k, "mPelvis");
    int pm = pelvis >= 0 ? c->of_joint[pelvis] : -1;
    am_vec3 o = am_v3(0, 0, 0);
    if (c->o->place == AM_PLACE_PELVIS && pm >= 0) {
        am_vec3 pb = am_axes_point(&r->axes, am_mat4_get_translation(&c->bindf[c->m_node[pm]]));
        o = am_v3_sub(am_skeleton_rest_world(k, pelvis, AM_FRAME_FILE), pb);
    } else if (c->o->place == AM_PLACE_PELVIS) {
        am_retarget_add_finding(r, AM_FINDING_NOTE,
                                "nothing maps to mPelvis: the file's origin is kept at the bind-frame origin");
    }
    r->placement = o;
    c->A = am_axes_matrix(&r->axes);
    am_mat4_set_translation(&c->A, o);
    r->to_viewer = c->A;
    for (size_t m = 0; m < c->nm; m++) {
        am_mat4 bv = am_mat4_mul(&c->bindf[c->m_node[m]], &c->A);
        c->m_bind[m] = am_mat4_get_translation(&bv);
        char rn[128];
        if (!am_mat4_inverse(&bv, &c->m_bindv_inv[m]))
            return am_fail(err, AM_ERR_INVALID, "rig joint '%s': its bind matrix is singular",
                           am_map_rig_name(s, c->m_node[m], rn, sizeof rn));
    }
    /* where the viewer puts every joint of the closed set at rest (the skin builder's rule:
     * a mapped joint at its rig position unless within 0.1 mm of its default offset) */
    for (size_t m = 0; m < c->nm; m++)
        for (int j = c->m_joint[m]; j >= 0; j = am_skeleton_parent(k, j))
            c->closed[j] = true;
    for (size_t j = 0; j < nj; j++) {
        if (!c->closed[j])
            continue;
        const am_joint *sj = &k->joints[j];
        am_vec3 pw = am_v3(0, 0, 0), ps = am_v3(1, 1, 1);
        am_quat pr = am_quat_identity();
        if (sj->parent >= 0) {
            pw = c->vbind[sj->parent];
            pr = k->joints[sj->parent].world_rot;
            ps = k->joints[sj->parent].scale;
        }
        am_vec3 local = sj->pos;
        if (c->of_joint[j] >= 0) {
            am_vec3 d = am_quat_rotate(am_quat_conj(pr), am_v3_sub(c->m_bind[c->of_joint[j]], pw));
            am_vec3 l = am_v3(d.x / ps.x, d.y / ps.y, d.z / ps.z);
            if (am_v3_dist(l, sj->pos) > AM_JOINT_POS_THRESHOLD)
                local = l;
        }
        c->vbind[j] = am_v3_add(pw, am_quat_rotate(pr, am_v3_mul(local, ps)));
    }
    /* a motion for another skeleton: the target's rest as it is (no joint moves to the
     * source's proportions) */
    if (c->follow) {
        am_retarget_rest_of_rig(NULL, k, c->vbind);
        for (size_t j = 0; j < nj; j++) {
            c->closed[j] = true;
            if (c->o->target_rest)
                c->vbind[j] = c->o->target_rest[j];
        }
    }
    /* mRoot (the prim) in the bind frame: the pelvis minus its runtime local position, which
     * is the override when the viewer applies it and (0, 0, 0) otherwise
     * (docs/reference/viewer-skeleton.md#the-pelvis-override-trap) */
    c->root_bind = pelvis >= 0 ? am_skeleton_rest_world(k, pelvis, AM_FRAME_FILE) : am_v3(0, 0, 0);
    if (pelvis >= 0 && c->closed[pelvis]) {
        r->pelvis_bind = c->vbind[pelvis];
        r->pelvis_overridden = am_v3_dist(c->vbind[pelvis], k->joints[pelvis].pos) > AM_JOINT_POS_THRESHOLD;
        c->root_bind = r->pelvis_overridden ? am_v3(0, 0, 0) : c->vbind[pelvis];
    }
    r->root_bind = c->root_bind;
    if (c->follow) {
        am_status st = am_retarget_follow_setup(c, err);
        if (st)
            return st;
    }
    /* where each node's weights go: itself when mapped, else the suggestion's target */
    for (size_t i = 0; i < s->node_count; i++)
        c->node_target[i] = -1;
    for (size_t m = 0; m < c->nm; m++)
        c->node_target[c->m_node[m]] = (int)m;
    for (size_t i = 0; i < r->suggestion.count; i++) {
        const am_map_joint *mj = &r->suggestion.joints[i];
        if (mj->target < 0 && mj->weight_to >= 0)
            c->node_target[mj->node] = c->node_target[mj->weight_to];
    }
    for (size_t i = 0; i < s->node_count; i++) /* nodes that are not joints: their nearest joint ancestor */
        if (c->node_target[i] < 0)
            for (int p = s->nodes[i].parent; p >= 0 && c->node_target[i] < 0; p = s->nodes[p].parent)
                c->node_target[i] = c->node_target[p];
    return AM_OK;
}

/* The skin's bind pose against the nodes' rest pose. */
static void report_bind_vs_rest(am_rt *c)
{
    if (c->skin < 0)
        return;
    am_mat4 place = am_body_bind_placement(c->s, c->skin), id = am_mat4_identity();
    if (am_mat4_max_abs_diff(&place, &id) > 1e-9) {
        am_vec3 t, sc;
        am_quat q;
        am_scene_decompose(&place, &t, &q, &sc);
        am_retarget_add_finding(
            c->r, AM_FINDING_NOTE,
            "the skin's inverse binds are relative to the mesh's own frame (scale %.4g, %.1f deg, offset %.4g "
            "units): placed where the file's skinning puts the mesh at rest",
            sc.x, am_quat_angle_between(q, am_quat_identity()) * AM_RAD2DEG, am_v3_len(t));
    }
    const am_scene_skin *k = &c->s->skins[c->skin];
    double worst_deg = 0, worst_m = 0;
    int at = -1;
    for (size_t j = 0; j < k->joint_count; j++) {
        int n = k->joint_nodes[j];
        if (n < 0 || !k->has_inverse_binds)
            continue;
        am_vec3 t1, s1, t2, s2;
        am_quat q1, q2;
        am_scene_decompose(&c->bindf[n], &t1, &q1, &s1);
        am_scene_decompose(&c->s->nodes[n].world, &t2, &q2, &s2);
        double deg = am_quat_angle_between(q1, q2) * AM_RAD2DEG, m = am_v3_dist(t1, t2) * c->r->axes.scale;
        if (deg > worst_deg + 1e-9 || m > worst_m + 1e-12) {
            if (deg > worst_deg)
                worst_deg = deg;
            if (m > worst_m)
                worst_m = m;
            at = n;
        }
    }
    char an[128];
    if (at >= 0 && (worst_deg > 0.01 || worst_m > c->pos_tol))
        am_retarget_add_finding(
            c->r, AM_FINDING_NOTE,
            "the skin's bind pose differs from the nodes' rest pose (up to %.2f deg and %.4f m, e.g. at '%s'): "
            "the bind pose is the rest the overrides carry, and clips are measured from it",
            worst_deg, worst_m, am_map_rig_name(c->s, at, an, sizeof an));
}

/* --- rigs ----------------------------------------------------------------------------- */

static void base_name(const am_scene *s, const char *given, char *out, size_t n)
{
    if (given && *given) {
        am_retarget_sanitise(given, out, n);
        return;
    }
    const char *src = s->source ? s->source : "model";
    const char *slash = strrchr(src, '/');
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s", slash ? slash + 1 : src);
    char *dot = strrchr(tmp, '.');
    if (dot && dot != tmp)
        *dot = '\0';
    am_retarget_sanitise(tmp, out, n);
}

static void face_normals(am_rig *g)
{
    memset(g->normals, 0, 3 * g->vertex_count * sizeof(float));
    for (size_t t = 0; t < g->triangle_count; t++) {
        const uint32_t *tri = &g->triangles[3 * t];
        am_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = am_v3(g->positions[3 * tri[k]], g->positions[3 * tri[k] + 1], g->positions[3 * tri[k] + 2]);
        am_vec3 n = am_v3_cross(am_v3_sub(p[1], p[0]), am_v3_sub(p[2], p[0])); /* area-weighted */
        for (int k = 0; k < 3; k++) {
            g->normals[3 * tri[k]] += (float)n.x;
            g->normals[3 * tri[k] + 1] += (float)n.y;
            g->normals[3 * tri[k] + 2] += (float)n.z;
        }
    }
    for (size_t v = 0; v < g->vertex_count; v++) {
        am_vec3 n = am_v3_normalize(am_v3(g->normals[3 * v], g->normals[3 * v + 1], g->normals[3 * v + 2]));
        if (am_v3_len(n) == 0)
            n = am_v3(0, 0, 1);
        g->normals[3 * v] = (float)n.x;
        g->normals[3 * v + 1] = (float)n.y;
        g->normals[3 * v + 2] = (float)n.z;
    }
}

static am_status build_rig(am_rt *c, size_t mesh, const char *name, am_retarget_rig *out, am_error *err)
{
    const am_scene *s = c->s;
    const am_scene_mesh *m = &s->meshes[mesh];
    const am_scene_skin *k = &s->skins[m->skin];
    memset(out, 0, sizeof *out);
    if (!am_string_set(&out->name, name))
        return am_fail_nomem(err, "rig name");
    out->mesh = (int)mesh;
    am_rig *g = &out->rig;
    g->name = am_strdup(name);
    g->joints = calloc(c->nm, sizeof *g->joints);
    size_t nv = m->vertex_count, ni = 0;
    for (size_t f = 0; f < m->face_count; f++)
        ni += m->faces[f].index_count;
    g->vertex_count = nv;
    g->positions = malloc((nv ? nv : 1) * 3 * sizeof(float));
    g->normals = malloc((nv ? nv : 1) * 3 * sizeof(float));
    g->uvs = calloc((nv ? nv : 1) * 2, sizeof(float));
    g->triangles = malloc((ni ? ni : 1) * sizeof(uint32_t));
    g->weight_start = malloc((nv + 1) * sizeof(size_t));
    size_t ninf = m->influence_start[nv];
    g->influences = malloc((ninf + nv + 1) * sizeof *g->influences);
    am_mat4 *pal = malloc((k->joint_count ? k->joint_count : 1) * sizeof *pal);
    if (!g->name || !g->joints || !g->positions || !g->normals || !g->uvs || !g->triangles || !g->weight_start ||
        !g->influences || !pal) {
        free(pal);
        return am_fail_nomem(err, "rig");
    }
    g->joint_count = c->nm;
    for (size_t j = 0; j < c->nm; j++) {
        g->joints[j].name = am_strdup(c->skel->joints[c->m_joint[j]].name);
        if (!g->joints[j].name) {
            free(pal);
            return am_fail_nomem(err, "rig");
        }
        g->joints[j].world = c->m_bind[j];
    }
    /* vertices into the primary skin's bind pose (its own: v * bind shape; another skin's:
     * blended through its inverse binds onto the primary bind matrices), then A */
    bool own = m->skin == c->skin;
    for (size_t j = 0; !own && j < k->joint_count; j++) {
        am_mat4 bi = am_mat4_mul(&k->bind_shape, &k->inverse_binds[j]);
        int n = k->joint_nodes[j];
        pal[j] = n >= 0 ? am_mat4_mul(&bi, &c->bindf[n]) : k->bind_shape;
    }
    /* the mesh's own skin: vertex x bind shape x X (the bind frame placed in the scene) */
    am_mat4 place = am_body_bind_placement(c->s, m->skin), bsx = am_mat4_mul(&k->bind_shape, &place);
    double nrm[9]; /* inverse transpose of that 3x3, rows */
    am_mat4 bs_inv;
    if (!am_mat4_inverse(&bsx, &bs_inv))
        bs_inv = am_mat4_identity();
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            nrm[3 * i + j] = bs_inv.m[4 * j + i];
    size_t w = 0, over4 = 0;
    for (size_t v = 0; v < nv; v++) {
        am_vec3 p = am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]), q;
        double total = 0;
        for (size_t i = m->influence_start[v]; i < m->influence_start[v + 1]; i++)
            total += m->influences[i].weight;
        if (own || total <= 0) {
            q = am_mat4_transform_point(&bsx, p);
        } else {
            q = am_v3(0, 0, 0);
            for (size_t i = m->influence_start[v]; i < m->influence_start[v + 1]; i++)
                q = am_v3_add(q, am_v3_scale(am_mat4_transform_point(&pal[m->influences[i].joint], p),
                                             m->influences[i].weight / total));
        }
        q = am_mat4_transform_point(&c->A, q);
        g->positions[3 * v] = (float)q.x;
        g->positions[3 * v + 1] = (float)q.y;
        g->positions[3 * v + 2] = (float)q.z;
        if (m->normals) {
            am_vec3 n0 = am_v3(m->normals[3 * v], m->normals[3 * v + 1], m->normals[3 * v + 2]);
            am_vec3 n1 = am_v3(nrm[0] * n0.x + nrm[3] * n0.y + nrm[6] * n0.z, nrm[1] * n0.x + nrm[4] * n0.y + nrm[7] * n0.z,
                               nrm[2] * n0.x + nrm[5] * n0.y + nrm[8] * n0.z);
            am_vec3 n2 = am_v3_normalize(am_quat_rotate(c->r->axes.rot, n1));
            g->normals[3 * v] = (float)n2.x;
            g->normals[3 * v + 1] = (float)n2.y;
            g->normals[3 * v + 2] = (float)n2.z;
        }
        if (m->uvs) {
            g->uvs[2 * v] = m->uvs[2 * v];
            g->uvs[2 * v + 1] = m->uvs[2 * v + 1];
        }
        /* weights onto the mapped joints (unmapped ones onto their nearest mapped ancestor) */
        g->weight_start[v] = w;
        for (size_t i = m->influence_start[v]; i < m->influence_start[v + 1]; i++) {
            const am_scene_influence *inf = &m->influences[i];
            if (!(inf->weight > 0))
                continue;
            int node = k->joint_nodes[inf->joint];
            int t = node >= 0 ? c->node_target[node] : -1;
            g->influences[w].joint = t >= 0 ? t : c->top;
            g->influences[w].weight = inf->weight;
            w++;
        }
        if (w == g->weight_start[v]) {
            g->influences[w].joint = c->top;
            g->influences[w].weight = 1;
            w++;
            out->unweighted++;
        }
        size_t distinct = 0; /* joints this vertex ends up on */
        for (size_t i = g->weight_start[v]; i < w; i++) {
            bool seen = false;
            for (size_t e = g->weight_start[v]; e < i && !seen; e++)
                seen = g->influences[e].joint == g->influences[i].joint;
            distinct += !seen;
        }
        over4 += distinct > 4;
    }
    g->weight_start[nv] = w;
    free(pal);
    for (size_t f = 0, t = 0; f < m->face_count; f++)
        for (size_t i = 0; i < m->faces[f].index_count; i++)
            g->triangles[t++] = m->faces[f].indices[i];
    g->triangle_count = ni / 3;
    if (!m->normals)
        face_normals(g);
    g->rgb[0] = g->rgb[1] = g->rgb[2] = 1;
    int mat = m->face_count ? m->faces[0].material : -1;
    if (mat >= 0) {
        const am_scene_material *mt = &s->materials[mat];
        for (int i = 0; i < 3; i++)
            g->rgb[i] = fmin(1, fmax(0, mt->base_color[i]));
        g->textured = mt->image_path || mt->image_data;
    }
    /* an unnamed mesh is called what its part's file is called: mesh<N> */
    char mn[128];
    if (m->name && m->name[0])
        snprintf(mn, sizeof mn, "%s", m->name);
    else
        snprintf(mn, sizeof mn, "mesh%zu", mesh);
    if (over4)
        am_retarget_add_finding(
            c->r, AM_FINDING_WARNING,
            "mesh '%s': %zu vertices are weighted to more than 4 joints: the viewer keeps the 4 largest, "
            "so they bend a little differently from the source",
            mn, over4);
    if (out->unweighted)
        am_retarget_add_finding(
            c->r, AM_FINDING_WARNING,
            "mesh '%s': %zu vertices carry no weight (the source leaves them in place): given to %s, they "
            "follow it",
            mn, out->unweighted, c->skel->joints[c->m_joint[c->top]].name);
    return AM_OK;
}

static am_status build_rigs(am_rt *c, am_error *err)
{
    const am_scene *s = c->s;
    size_t skinned = 0;
    for (size_t i = 0; i < s->mesh_count; i++)
        skinned += s->meshes[i].skin >= 0;
    if (skinned == 0)
        return AM_OK;
    c->r->rigs = calloc(skinned, sizeof *c->r->rigs);
    if (!c->r->rigs)
        return am_fail_nomem(err, "rigs");
    char base[80];
    base_name(s, c->o->name, base, sizeof base);
    for (size_t i = 0; i < s->mesh_count; i++) {
        if (s->meshes[i].skin < 0)
            continue;
        char name[128], mesh[64];
        if (skinned == 1) {
            snprintf(name, sizeof name, "%s", base);
        } else {
            char idx[16];
            snprintf(idx, sizeof idx, "mesh%zu", i);
            am_retarget_sanitise(s->meshes[i].name && *s->meshes[i].name ? s->meshes[i].name : idx, mesh, sizeof mesh);
            snprintf(name, sizeof name, "%s_%s", base, mesh);
        }
        am_status st = build_rig(c, i, name, &c->r->rigs[c->r->rig_count], err);
        c->r->rig_count++;
        if (st)
            return st;
    }
    return AM_OK;
}

/* --- the route -------------------------------------------------------------------------- */

static am_status check_scene(const am_scene *s, am_error *err)
{
    size_t skinned = 0;
    for (size_t i = 0; i < s->mesh_count; i++)
        skinned += s->meshes[i].skin >= 0;
    if (s->mesh_count && !skinned)
        return am_fail(err, AM_ERR_INVALID,
                       "the model has no skin: %zu mesh%s but none is skinned to a skeleton, so there is nothing to put "
                       "on the viewer skeleton",
                       s->mesh_count, s->mesh_count == 1 ? "" : "es");
    if (!s->mesh_count && !s->clip_count)
        return am_fail(err, AM_ERR_INVALID, "nothing to import: no mesh and no animation");
    return AM_OK;
}

/* --clip NAME names a clip as the file does ('Armature|Action') or as the report and the
 * written .anim name it ('Armature_Action'): the file's name wins; a written name that
 * several clips share is refused, naming them. */
static am_status select_clips(const am_scene *s, const am_retarget_options *o, bool *want, am_error *err)
{
    for (size_t i = 0; i < s->clip_count; i++)
        want[i] = o->clip_count == 0;
    char list[400] = "";
    size_t n = 0;
    for (size_t i = 0; i < s->clip_count && n + 1 < sizeof list; i++) {
        char w[128];
        am_retarget_sanitise(s->clips[i].name, w, sizeof w);
        int k = strcmp(w, s->clips[i].name) == 0
                    ? snprintf(list + n, sizeof list - n, "%s'%s'", i ? ", " : "", s->clips[i].name)
                    : snprintf(list + n, sizeof list - n, "%s'%s' (written %s)", i ? ", " : "", s->clips[i].name, w);
        if (k > 0)
            n = n + (size_t)k < sizeof list ? n + (size_t)k : sizeof list - 1;
    }
    for (size_t k = 0; k < o->clip_count; k++) {
        size_t exact = 0, written = 0, first = 0;
        for (size_t i = 0; i < s->clip_count; i++)
            if (strcmp(s->clips[i].name, o->clips[k]) == 0)
                want[i] = true, exact++;
        for (size_t i = 0; !exact && i < s->clip_count; i++) {
            char w[128];
            am_retarget_sanitise(s->clips[i].name, w, sizeof w);
            if (strcmp(w, o->clips[k]) == 0 && written++ == 0)
                first = i;
        }
        if (written == 1)
            want[first] = true;
        else if (written > 1)
            return am_fail(
                err, AM_ERR_USAGE,
                "the clips option '%s': %zu clips are written under that name; give the file's name (it has %s)",
                o->clips[k], written, list);
        else if (!exact)
            return am_fail(err, AM_ERR_USAGE, "the clips option '%s': the model has no such clip (it has %s)",
                           o->clips[k], s->clip_count ? list : "none");
    }
    return AM_OK;
}

/* Defaults and AM_OPTION_ZERO turned into values, once, as am_retarget begins: the code
 * below reads plain numbers. */
static void resolve_options(am_retarget_options *o)
{
    o->priority = (int32_t)am_option_int(o->priority, 4);
    o->loop_tolerance_deg = am_option_real(o->loop_tolerance_deg, AM_LOOP_TOLERANCE_DEG);
    o->ease_in_s = am_option_real(o->ease_in_s, 0.3);
    o->ease_out_s = am_option_real(o->ease_out_s, 0.3);
    o->rot_tol_deg = am_option_real(o->rot_tol_deg, 0.02);
    if (o->max_samples == 0)
        o->max_samples = 8192;
}

am_status am_retarget(const am_scene *s, const am_skeleton *skel, const am_retarget_options *opts,
                      am_retarget_result *r, am_error *err)
{
    memset(r, 0, sizeof *r);
    am_retarget_options o;
    if (opts)
        o = *opts;
    else
        am_retarget_options_init(&o);
    if ((o.priority < 0 && o.priority != AM_OPTION_ZERO) || o.priority > AM_ANIM_MAX_PRIORITY)
        return am_fail(err, AM_ERR_USAGE, "the priority option %d: must be 0..6", o.priority);
    resolve_options(&o);
    am_status st = check_scene(s, err);
    bool *want = calloc(s->clip_count + 1, sizeof *want);
    if (!want)
        return am_fail_nomem(err, "retarget");
    if (!st)
        st = select_clips(s, &o, want, err);
    for (size_t i = 0; !st && i < s->clip_count; i++)
        if (want[i] && s->clips[i].end_s - s->clips[i].start_s > AM_ANIM_MAX_DURATION)
            st = am_fail(err, AM_ERR_INVALID,
                         "clip '%s' lasts %.2f s, over the viewer's %.0f s limit for an animation (choose other clips with "
                         "the clips option, or shorten it)",
                         s->clips[i].name, s->clips[i].end_s - s->clips[i].start_s, (double)AM_ANIM_MAX_DURATION);
    if (!st)
        st = am_map_suggest_scene(s, skel, &o.axes, o.map, &r->body, &r->axes, &r->suggestion, err);
    if (!st)
        st = am_map_suggestion_to_map(&r->suggestion, &r->body, skel, &r->map, err);
    am_rt c = {.s = s, .skel = skel, .o = &o, .r = r, .follow = o.follow_directions};
    if (!st) {
        c.pos_tol = o.pos_tol_m > 0 ? o.pos_tol_m : fmax(1e-4, 1e-4 * r->axes.stature_m);
        for (size_t i = 0; i < r->axes.conflict_count; i++)
            am_retarget_add_finding(r, AM_FINDING_WARNING, "%s", r->axes.conflicts[i]);
        for (size_t i = 0; i < r->suggestion.note_count; i++)
            am_retarget_add_finding(r, AM_FINDING_NOTE, "%s", am_str(&r->suggestion.notes[i]));
        for (size_t i = 0; i < r->suggestion.warning_count; i++)
            am_retarget_add_finding(r, AM_FINDING_WARNING, "%s", am_str(&r->suggestion.warnings[i]));
        st = setup_joints(&c, err);
    }
    if (!st) {
        report_bind_vs_rest(&c);
        if (r->pelvis_overridden)
            am_retarget_add_finding(
                r, AM_FINDING_NOTE,
                "mPelvis is overridden to (%.4f, %.4f, %.4f): the viewer draws the bind-frame origin at the "
                "prim, and the pelvis position keys include the override",
                r->pelvis_bind.x, r->pelvis_bind.y, r->pelvis_bind.z);
        st = build_rigs(&c, err);
    }
    size_t nclips = 0;
    for (size_t i = 0; i < s->clip_count; i++)
        nclips += want[i];
    if (!st && nclips && !(r->anims = calloc(nclips, sizeof *r->anims)))
        st = am_fail_nomem(err, "anims");
    for (size_t i = 0; !st && i < s->clip_count; i++) {
        if (!want[i])
            continue;
        st = am_retarget_clip(&c, i, &r->anims[r->anim_count], err);
        r->anim_count++;
        if (st)
            am_error_where(err, "clip '%s'", s->clips[i].name);
    }
    /* unique anim names: NAME, NAME_2, NAME_3 ... numbered from the clip's own name (not
     * NAME_2_3, which outgrew the name after some 40 clips of one name), the number starting
     * past the earlier clips of the same name, so n clips of one name cost n^2 compares */
    am_string *given = st ? NULL : calloc(r->anim_count ? r->anim_count : 1, sizeof *given);
    if (!st && !given)
        st = am_fail_nomem(err, "anim names");
    for (size_t i = 0; !st && i < r->anim_count; i++) {
        if (!am_string_copy(&given[i], &r->anims[i].name)) {
            st = am_fail_nomem(err, "anim names");
            break;
        }
        size_t n = 0; /* the earlier clips of this name: this one is NAME_(n+1) */
        for (size_t k = 0; k < i; k++)
            n += strcmp(am_str(&given[k]), am_str(&given[i])) == 0;
        for (size_t k = 0; !st && k < i; k++)
            if (strcmp(am_str(&r->anims[i].name), am_str(&r->anims[k].name)) == 0) {
                if (!am_string_setf(&r->anims[i].name, "%s_%zu", am_str(&given[i]), ++n))
                    st = am_fail_nomem(err, "anim names");
                k = (size_t)-1; /* restart the scan */
            }
    }
    if (given)
        am_string_list_free(given, r->anim_count);
    free(want);
    free_rt(&c);
    if (st)
        am_retarget_result_free(r);
    return st;
}

am_status am_retarget_write_anim(const am_retarget_result *r, size_t i, const am_skeleton *skel, const char *path,
                                 am_buf *out_bytes, am_motion_stats *stats, am_error *err)
{
    if (i >= r->anim_count)
        return am_fail(err, AM_ERR_USAGE, "motion %zu out of range (%zu)", i, r->anim_count);
    am_motion_sample_options so = {.intervals = AM_MOTION_CLIP_TIMES,
                                   .reduce = r->anims[i].reduce_deg > 0,
                                   .rot_tol_deg = r->anims[i].reduce_deg};
    am_status st = am_motion_write_anim(&r->anims[i].motion, &so, skel, path, out_bytes, stats, err);
    if (st)
        am_error_where(err, "clip '%s'", am_str(&r->anims[i].clip));
    return st;
}
