/* The scene model: freeing, notes, validation + world transforms, the clip evaluator and
 * the source's own skinning (scene.h). */
#include "scene/scene.h"
#include "core/text.h"
#include "core/text_string.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_channel(am_scene_channel *c)
{
    free(c->times);
    free(c->values);
}

void am_scene_free(am_scene *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->nodes && i < s->node_count; i++) {
        free(s->nodes[i].name);
        free(s->nodes[i].sid);
    }
    free(s->nodes);
    for (size_t i = 0; s->meshes && i < s->mesh_count; i++) {
        am_scene_mesh *m = &s->meshes[i];
        free(m->name);
        free(m->positions);
        free(m->normals);
        free(m->uvs);
        for (size_t f = 0; m->faces && f < m->face_count; f++)
            free(m->faces[f].indices);
        free(m->faces);
        free(m->influence_start);
        free(m->influences);
        free(m->source_position);
    }
    free(s->meshes);
    for (size_t i = 0; s->skins && i < s->skin_count; i++) {
        am_scene_skin *k = &s->skins[i];
        free(k->name);
        for (size_t j = 0; k->joint_names && j < k->joint_count; j++)
            free(k->joint_names[j]);
        free(k->joint_names);
        free(k->joint_nodes);
        free(k->inverse_binds);
        free(k->upload_positions);
        free(k->upload_position_found);
    }
    free(s->skins);
    for (size_t i = 0; s->materials && i < s->material_count; i++) {
        free(s->materials[i].name);
        free(s->materials[i].image_path);
        free(s->materials[i].image_data);
        am_string_free(&s->materials[i].image_mime);
    }
    free(s->materials);
    for (size_t i = 0; s->clips && i < s->clip_count; i++) {
        for (size_t c = 0; s->clips[i].channels && c < s->clips[i].channel_count; c++)
            free_channel(&s->clips[i].channels[c]);
        free(s->clips[i].channels);
        free(s->clips[i].name);
    }
    free(s->clips);
    am_string_list_free(s->notes, s->note_count);
    free(s->source);
    free(s->base_dir);
    am_string_free(&s->format_detail);
    memset(s, 0, sizeof *s);
}

void am_scene_note(am_scene *s, const char *fmt, ...)
{
    if (s->note_count >= AM_SCENE_MAX_NOTES) {
        s->notes_dropped++;
        return;
    }
    am_string note = {0};
    va_list ap;
    va_start(ap, fmt);
    bool made = am_string_vsetf_shown(&note, fmt, ap);
    va_end(ap);
    /* The same quirk met many times is one note. */
    bool known = false;
    for (size_t i = 0; made && i < s->note_count && !known; i++)
        known = s->notes[i].length == note.length && memcmp(s->notes[i].data, note.data, note.length) == 0;
    if (!made || (!known && !am_string_list_push(&s->notes, &s->note_count, &s->note_cap, note.data)))
        s->notes_dropped++;
    am_string_free(&note);
}

bool am_scene_decompose(const am_mat4 *m, am_vec3 *t, am_quat *r, am_vec3 *s)
{
    double rows[9], sc[3];
    for (int i = 0; i < 3; i++) {
        const double *row = &m->m[4 * i];
        sc[i] = sqrt(row[0] * row[0] + row[1] * row[1] + row[2] * row[2]);
        for (int j = 0; j < 3; j++)
            rows[3 * i + j] = sc[i] > 0 ? row[j] / sc[i] : (i == j);
    }
    /* A mirror is a negative scale on X (the rows then form a proper rotation). */
    double det = rows[0] * (rows[4] * rows[8] - rows[5] * rows[7]) - rows[1] * (rows[3] * rows[8] - rows[5] * rows[6]) +
                 rows[2] * (rows[3] * rows[7] - rows[4] * rows[6]);
    if (det < 0) {
        sc[0] = -sc[0];
        for (int j = 0; j < 3; j++)
            rows[j] = -rows[j];
    }
    *t = am_mat4_get_translation(m);
    *r = am_quat_from_rows(rows);
    *s = am_v3(sc[0], sc[1], sc[2]);
    /* Exact when the rows are orthogonal and the matrix is affine. */
    bool exact = sc[0] != 0 && sc[1] != 0 && sc[2] != 0 && fabs(m->m[3]) < 1e-9 && fabs(m->m[7]) < 1e-9 &&
                 fabs(m->m[11]) < 1e-9 && fabs(m->m[15] - 1) < 1e-9;
    for (int i = 0; exact && i < 3; i++)
        for (int k = i + 1; k < 3; k++) {
            double d = rows[3 * i] * rows[3 * k] + rows[3 * i + 1] * rows[3 * k + 1] + rows[3 * i + 2] * rows[3 * k + 2];
            exact = fabs(d) < 1e-5;
        }
    if (exact) {
        am_mat4 back = am_mat4_from_trs(*t, *r, *s);
        double scale = 1;
        for (int k = 0; k < 16; k++)
            scale = fabs(m->m[k]) > scale ? fabs(m->m[k]) : scale;
        exact = am_mat4_max_abs_diff(&back, m) < 1e-5 * scale;
    }
    return exact;
}

void am_scene_node_set_local(am_scene_node *n, const am_mat4 *local)
{
    n->local = *local;
    n->has_trs = am_scene_decompose(local, &n->translation, &n->rotation, &n->scale);
}

void am_scene_node_set_trs(am_scene_node *n, am_vec3 t, am_quat r, am_vec3 s)
{
    n->translation = t;
    n->rotation = am_quat_normalize(r);
    n->scale = s;
    n->has_trs = true;
    n->local = am_mat4_from_trs(t, n->rotation, s);
}

static bool finite_f(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static bool finite_m(const am_mat4 *m)
{
    for (int k = 0; k < 16; k++)
        if (!isfinite(m->m[k]))
            return false;
    return true;
}

static am_status where_fail(am_error *err, const am_scene *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static am_status where_fail(am_error *err, const am_scene *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_fail_vwhere(err, AM_ERR_INVALID, AM_NO_OFFSET, s->source ? s->source : "scene", fmt, ap);
    va_end(ap);
    return AM_ERR_INVALID;
}

static am_status check_depth(am_scene *s, am_error *err)
{
    int *depth = malloc((s->node_count ? s->node_count : 1) * sizeof *depth);
    if (!depth)
        return am_fail_nomem(err, "scene nodes");
    for (size_t i = 0; i < s->node_count; i++) {
        int p = s->nodes[i].parent; /* an earlier node (check_nodes) */
        depth[i] = p >= 0 ? depth[p] + 1 : 1;
        if (depth[i] > AM_SCENE_MAX_NODE_DEPTH) {
            free(depth);
            char label[160];
            return where_fail(err, s, "node '%s' is nested %d levels deep: at most %d are read",
                              am_scene_node_label(s, (int)i, label, sizeof label), AM_SCENE_MAX_NODE_DEPTH + 1,
                              AM_SCENE_MAX_NODE_DEPTH);
        }
    }
    free(depth);
    return AM_OK;
}

static am_status check_nodes(am_scene *s, am_error *err)
{
    for (size_t i = 0; i < s->node_count; i++) {
        am_scene_node *n = &s->nodes[i];
        if (!n->name)
            return where_fail(err, s, "node %zu has no name string (readers store \"\")", i);
        char label[160];
        am_scene_node_label(s, (int)i, label, sizeof label);
        if (n->parent >= (int)i || n->parent < -1)
            return where_fail(err, s, "node %zu '%s': parent %d is not an earlier node", i, label, n->parent);
        if (!finite_m(&n->local))
            return where_fail(err, s, "node '%s': its transform has a value that is not finite", label);
    }
    return check_depth(s, err);
}

static am_status check_meshes(const am_scene *s, am_error *err)
{
    for (size_t i = 0; i < s->mesh_count; i++) {
        const am_scene_mesh *m = &s->meshes[i];
        const char *name = m->name ? m->name : "";
        if (m->node < -1 || m->node >= (int)s->node_count)
            return where_fail(err, s, "mesh '%s': node %d out of range", name, m->node);
        if (!m->positions && m->vertex_count)
            return where_fail(err, s, "mesh '%s': no positions", name);
        if (!finite_f(m->positions, 3 * m->vertex_count))
            return where_fail(err, s, "mesh '%s': a position is not finite", name);
        if (m->normals && !finite_f(m->normals, 3 * m->vertex_count))
            return where_fail(err, s, "mesh '%s': a normal is not finite", name);
        if (m->uvs && !finite_f(m->uvs, 2 * m->vertex_count))
            return where_fail(err, s, "mesh '%s': a texture coordinate is not finite", name);
        for (size_t f = 0; f < m->face_count; f++) {
            const am_scene_face *face = &m->faces[f];
            if (face->material < -1 || face->material >= (int)s->material_count)
                return where_fail(err, s, "mesh '%s' face %zu: material %d out of range", name, f, face->material);
            if (face->index_count % 3)
                return where_fail(err, s, "mesh '%s' face %zu: %zu indices is not whole triangles", name, f,
                                  face->index_count);
            for (size_t k = 0; k < face->index_count; k++)
                if (face->indices[k] >= m->vertex_count)
                    return where_fail(err, s, "mesh '%s' face %zu: index %u out of range (%zu vertices)", name, f,
                                      face->indices[k], m->vertex_count);
        }
        if (m->skin < -1 || m->skin >= (int)s->skin_count)
            return where_fail(err, s, "mesh '%s': skin %d out of range", name, m->skin);
        if (m->skin >= 0) {
            if (!m->influence_start || !m->influences)
                return where_fail(err, s, "mesh '%s': skinned but has no influences", name);
            size_t joints = s->skins[m->skin].joint_count;
            for (size_t v = 0; v < m->vertex_count; v++) {
                if (m->influence_start[v + 1] < m->influence_start[v])
                    return where_fail(err, s, "mesh '%s' vertex %zu: influence offsets decrease", name, v);
                for (size_t k = m->influence_start[v]; k < m->influence_start[v + 1]; k++) {
                    const am_scene_influence *inf = &m->influences[k];
                    if (inf->joint >= joints)
                        return where_fail(err, s, "mesh '%s' vertex %zu: weight on joint index %u, the skin has %zu joints",
                                          name, v, inf->joint, joints);
                    if (!isfinite(inf->weight) || inf->weight < 0)
                        return where_fail(err, s, "mesh '%s' vertex %zu: weight %g is not a finite number >= 0", name, v,
                                          (double)inf->weight);
                }
            }
        }
    }
    return AM_OK;
}

static am_status check_skins(am_scene *s, am_error *err)
{
    for (size_t i = 0; i < s->skin_count; i++) {
        const am_scene_skin *k = &s->skins[i];
        const char *name = k->name ? k->name : "";
        if (k->skeleton_root < -1 || k->skeleton_root >= (int)s->node_count)
            return where_fail(err, s, "skin '%s': skeleton root %d out of range", name, k->skeleton_root);
        if (!finite_m(&k->bind_shape))
            return where_fail(err, s, "skin '%s': the bind shape matrix has a value that is not finite", name);
        for (size_t j = 0; j < k->joint_count; j++) {
            if (!k->joint_names || !k->joint_names[j])
                return where_fail(err, s, "skin '%s': joint %zu has no name", name, j);
            if (k->joint_nodes[j] < -1 || k->joint_nodes[j] >= (int)s->node_count)
                return where_fail(err, s, "skin '%s' joint '%s': node %d out of range", name, k->joint_names[j],
                                  k->joint_nodes[j]);
            if (!finite_m(&k->inverse_binds[j]))
                return where_fail(err, s, "skin '%s' joint '%s': the inverse bind matrix has a value that is not finite",
                                  name, k->joint_names[j]);
            if (k->joint_nodes[j] >= 0)
                s->nodes[k->joint_nodes[j]].is_joint = true;
        }
    }
    return AM_OK;
}

static size_t path_width(am_scene_path p) { return p == AM_SCENE_PATH_ROTATION ? 4 : 3; }

static am_status check_clips(am_scene *s, am_error *err)
{
    for (size_t i = 0; i < s->clip_count; i++) {
        am_scene_clip *c = &s->clips[i];
        const char *name = c->name ? c->name : "";
        double lo = INFINITY, hi = -INFINITY;
        for (size_t h = 0; h < c->channel_count; h++) {
            const am_scene_channel *ch = &c->channels[h];
            if (ch->node < 0 || ch->node >= (int)s->node_count)
                return where_fail(err, s, "clip '%s' channel %zu: node %d out of range", name, h, ch->node);
            const am_scene_node *n = &s->nodes[ch->node];
            char nl[160];
            am_scene_node_label(s, ch->node, nl, sizeof nl);
            if (!n->has_trs)
                return where_fail(err, s, "clip '%s': node '%s' is animated but its rest matrix is not a plain "
                                  "translation/rotation/scale (shear)", name, nl);
            if (ch->key_count == 0 || !ch->times || !ch->values)
                return where_fail(err, s, "clip '%s' channel %zu (node '%s'): no keys", name, h, nl);
            size_t w = path_width(ch->path) * (ch->interp == AM_SCENE_INTERP_CUBICSPLINE ? 3 : 1);
            if (!finite_f(ch->times, ch->key_count) || !finite_f(ch->values, w * ch->key_count))
                return where_fail(err, s, "clip '%s' node '%s': a key time or value is not finite", name, nl);
            for (size_t k = 1; k < ch->key_count; k++)
                if (ch->times[k] < ch->times[k - 1])
                    return where_fail(err, s, "clip '%s' node '%s': key %zu time %g s is before key %zu (%g s)", name,
                                      nl, k, (double)ch->times[k], k - 1, (double)ch->times[k - 1]);
            if (ch->path == AM_SCENE_PATH_ROTATION) {
                size_t stride = ch->interp == AM_SCENE_INTERP_CUBICSPLINE ? 12 : 4;
                size_t at = ch->interp == AM_SCENE_INTERP_CUBICSPLINE ? 4 : 0;
                for (size_t k = 0; k < ch->key_count; k++) {
                    const float *q = &ch->values[k * stride + at];
                    if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < 1e-12f)
                        return where_fail(err, s, "clip '%s' node '%s': rotation key %zu has zero length", name,
                                          nl, k);
                }
            }
            lo = ch->times[0] < lo ? ch->times[0] : lo;
            hi = ch->times[ch->key_count - 1] > hi ? ch->times[ch->key_count - 1] : hi;
        }
        if (c->channel_count) {
            c->start_s = lo;
            c->end_s = hi;
        }
    }
    return AM_OK;
}

/* A motion-only scene (no mesh, no skin naming a joint: Mixamo "without skin", a glTF
 * animation pack): the nodes a clip animates and everything below them are its skeleton
 * (end nodes such as HeadTop_End give the last bones their direction). Nodes come parents
 * first, so one pass carries the mark down. */
static void mark_motion_joints(am_scene *s)
{
    if (s->mesh_count)
        return;
    for (size_t i = 0; i < s->node_count; i++)
        if (s->nodes[i].is_joint)
            return;
    for (size_t c = 0; c < s->clip_count; c++)
        for (size_t h = 0; h < s->clips[c].channel_count; h++)
            s->nodes[s->clips[c].channels[h].node].is_joint = true;
    for (size_t i = 0; i < s->node_count; i++)
        if (s->nodes[i].parent >= 0 && s->nodes[s->nodes[i].parent].is_joint)
            s->nodes[i].is_joint = true;
}

static bool bounded_m(const am_mat4 *m)
{
    for (int k = 0; k < 16; k++)
        if (!(fabs(m->m[k]) <= AM_SCENE_MAX_COORD))
            return false;
    return true;
}

static bool bounded_v(am_vec3 p)
{
    return fabs(p.x) <= AM_SCENE_MAX_COORD && fabs(p.y) <= AM_SCENE_MAX_COORD && fabs(p.z) <= AM_SCENE_MAX_COORD;
}

/* Every coordinate bounded (AM_SCENE_MAX_COORD), checked once here where every reader's
 * scene enters, before any kernel runs: the matrices, then each vertex as stored and
 * where its mesh places it (the worlds are computed by then). */
static am_status check_extent(const am_scene *s, am_error *err)
{
    const char *why = "beyond +-1e7 file units: a stray or corrupt value (scene.h AM_SCENE_MAX_COORD)";
    for (size_t i = 0; i < s->node_count; i++)
        if (!bounded_m(&s->nodes[i].world)) {
            char label[160];
            am_scene_node_label(s, (int)i, label, sizeof label);
            return where_fail(err, s, "node '%s': its world transform has an entry %s", label, why);
        }
    for (size_t i = 0; i < s->skin_count; i++) {
        const am_scene_skin *k = &s->skins[i];
        if (!bounded_m(&k->bind_shape))
            return where_fail(err, s, "skin '%s': the bind shape matrix has an entry %s", k->name ? k->name : "", why);
        for (size_t j = 0; j < k->joint_count; j++)
            if (!bounded_m(&k->inverse_binds[j]))
                return where_fail(err, s, "skin '%s' joint '%s': the inverse bind matrix has an entry %s",
                                  k->name ? k->name : "", k->joint_names[j], why);
    }
    for (size_t i = 0; i < s->mesh_count; i++) {
        const am_scene_mesh *m = &s->meshes[i];
        am_mat4 place = m->skin >= 0 ? s->skins[m->skin].bind_shape
                        : m->node >= 0 ? s->nodes[m->node].world
                                       : am_mat4_identity();
        for (size_t v = 0; v < m->vertex_count; v++) {
            am_vec3 p = am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]);
            am_vec3 q = am_mat4_transform_point(&place, p);
            if (!bounded_v(p) || !bounded_v(q)) {
                am_vec3 bad = bounded_v(p) ? q : p;
                return where_fail(err, s, "mesh '%s' vertex %zu (0-based)%s: (%g, %g, %g) is %s",
                                  m->name ? m->name : "", v, bounded_v(p) ? ", where its node places it" : "",
                                  bad.x, bad.y, bad.z, why);
            }
        }
    }
    return AM_OK;
}

am_status am_scene_finish(am_scene *s, am_error *err)
{
    am_status st;
    if ((st = check_nodes(s, err)) || (st = check_meshes(s, err)) || (st = check_skins(s, err)) ||
        (st = check_clips(s, err)))
        return st;
    mark_motion_joints(s);
    for (size_t i = 0; i < s->node_count; i++) {
        am_scene_node *n = &s->nodes[i];
        n->world = n->parent >= 0 ? am_mat4_mul(&n->local, &s->nodes[n->parent].world) : n->local;
    }
    return check_extent(s, err);
}

int am_scene_node_number(const am_scene *s, int node)
{
    if (node >= 0 && (size_t)node < s->node_count && s->nodes[node].has_file_index)
        return s->nodes[node].file_index;
    return node;
}

int am_scene_node_by_number(const am_scene *s, long number)
{
    if (number < 0)
        return -1;
    for (size_t i = 0; i < s->node_count; i++)
        if (am_scene_node_number(s, (int)i) == number)
            return (int)i;
    return -1;
}

const char *am_scene_node_label(const am_scene *s, int node, char *out, size_t size)
{
    const char *n = node >= 0 && (size_t)node < s->node_count ? s->nodes[node].name : NULL;
    if (n && n[0])
        snprintf(out, size, "%s", n);
    else
        snprintf(out, size, "#%d", am_scene_node_number(s, node));
    return out;
}

int am_scene_find_node(const am_scene *s, const char *name)
{
    for (size_t i = 0; i < s->node_count; i++)
        if (strcmp(s->nodes[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* The key interval holding t: keys a and a + 1 with u in [0, 1]; a single key or t outside
 * the keys clamps (u = 0 at the nearest end). */
static size_t find_interval(const am_scene_channel *ch, double t, double *u, double *dt)
{
    size_t n = ch->key_count;
    *u = 0;
    *dt = 0;
    if (n == 1 || t <= ch->times[0])
        return 0;
    if (t >= ch->times[n - 1])
        return n - 1;
    size_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ch->times[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    *dt = (double)ch->times[lo + 1] - ch->times[lo];
    *u = *dt > 0 ? (t - ch->times[lo]) / *dt : 0;
    return lo;
}

static void slerp_f(const float *a, const float *b, double u, float *out)
{
    am_quat qa = am_quat_normalize((am_quat){a[0], a[1], a[2], a[3]});
    am_quat qb = am_quat_normalize((am_quat){b[0], b[1], b[2], b[3]});
    if (am_quat_dot(qa, qb) < 0) /* the shortest arc, as glTF players take it */
        qb = (am_quat){-qb.x, -qb.y, -qb.z, -qb.w};
    am_quat q = am_quat_slerp(u, qa, qb);
    out[0] = (float)q.x;
    out[1] = (float)q.y;
    out[2] = (float)q.z;
    out[3] = (float)q.w;
}

void am_scene_eval_channel(const am_scene_channel *ch, double t, float out[4])
{
    size_t w = path_width(ch->path);
    double u, dt;
    size_t a = find_interval(ch, t, &u, &dt);
    bool at_key = u == 0 || a + 1 >= ch->key_count;
    if (ch->interp == AM_SCENE_INTERP_CUBICSPLINE) {
        /* glTF 2.0 Appendix C: p(u) = (2u^3 - 3u^2 + 1) v_a + (u^3 - 2u^2 + u) dt b_a
         *                            + (-2u^3 + 3u^2) v_b + (u^3 - u^2) dt a_b,
         * b_a = out-tangent of key a, a_b = in-tangent of key b. */
        const float *ka = &ch->values[3 * w * a];
        if (at_key) {
            memcpy(out, ka + w, w * sizeof(float));
        } else {
            const float *kb = &ch->values[3 * w * (a + 1)];
            double u2 = u * u, u3 = u2 * u;
            double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
            for (size_t k = 0; k < w; k++)
                out[k] = (float)(h00 * ka[w + k] + h10 * dt * ka[2 * w + k] + h01 * kb[w + k] + h11 * dt * kb[k]);
        }
    } else {
        const float *va = &ch->values[w * a];
        if (at_key || ch->interp == AM_SCENE_INTERP_STEP) {
            memcpy(out, va, w * sizeof(float));
        } else {
            const float *vb = &ch->values[w * (a + 1)];
            if (ch->path == AM_SCENE_PATH_ROTATION)
                slerp_f(va, vb, u, out);
            else
                for (size_t k = 0; k < w; k++)
                    out[k] = (float)(va[k] + u * ((double)vb[k] - va[k]));
        }
    }
    if (ch->path == AM_SCENE_PATH_ROTATION) {
        double len = sqrt((double)out[0] * out[0] + (double)out[1] * out[1] + (double)out[2] * out[2] +
                          (double)out[3] * out[3]);
        for (int k = 0; k < 4; k++)
            out[k] = len > 0 ? (float)(out[k] / len) : (k == 3);
    }
}

void am_scene_eval_clip(const am_scene *s, const am_scene_clip *clip, double t, am_scene_trs *out_trs,
                        am_mat4 *out_local)
{
    if (clip) {
        if (t < clip->start_s)
            t = clip->start_s;
        if (t > clip->end_s)
            t = clip->end_s;
    }
    for (size_t i = 0; i < s->node_count; i++) {
        const am_scene_node *n = &s->nodes[i];
        out_trs[i] = (am_scene_trs){n->translation, n->rotation, n->scale};
        if (out_local)
            out_local[i] = n->local;
    }
    if (!clip)
        return;
    for (size_t h = 0; h < clip->channel_count; h++) {
        const am_scene_channel *ch = &clip->channels[h];
        float v[4];
        am_scene_eval_channel(ch, t, v);
        am_scene_trs *trs = &out_trs[ch->node];
        if (ch->path == AM_SCENE_PATH_TRANSLATION)
            trs->translation = am_v3(v[0], v[1], v[2]);
        else if (ch->path == AM_SCENE_PATH_ROTATION)
            trs->rotation = (am_quat){v[0], v[1], v[2], v[3]};
        else
            trs->scale = am_v3(v[0], v[1], v[2]);
    }
    /* Touched nodes are rebuilt from their TRS with every channel applied. */
    if (out_local)
        for (size_t h = 0; h < clip->channel_count; h++) {
            const am_scene_trs *trs = &out_trs[clip->channels[h].node];
            out_local[clip->channels[h].node] = am_mat4_from_trs(trs->translation, trs->rotation, trs->scale);
        }
}

void am_scene_world_from_local(const am_scene *s, const am_mat4 *local, am_mat4 *out)
{
    for (size_t i = 0; i < s->node_count; i++) {
        int p = s->nodes[i].parent;
        out[i] = p >= 0 ? am_mat4_mul(&local[i], &out[p]) : local[i];
    }
}

am_status am_scene_skin_positions(const am_scene *s, size_t mesh, const am_mat4 *world, float *out, am_error *err)
{
    if (mesh >= s->mesh_count)
        return am_fail(err, AM_ERR_USAGE, "mesh %zu out of range (%zu meshes)", mesh, s->mesh_count);
    const am_scene_mesh *m = &s->meshes[mesh];
    if (m->skin < 0) {
        memcpy(out, m->positions, 3 * m->vertex_count * sizeof(float));
        return AM_OK;
    }
    const am_scene_skin *k = &s->skins[m->skin];
    am_mat4 *palette = malloc((k->joint_count ? k->joint_count : 1) * sizeof *palette);
    if (!palette)
        return am_fail_nomem(err, "skinning palette");
    for (size_t j = 0; j < k->joint_count; j++) {
        am_mat4 bi = am_mat4_mul(&k->bind_shape, &k->inverse_binds[j]);
        if (k->joint_nodes[j] >= 0) {
            palette[j] = am_mat4_mul(&bi, &world[k->joint_nodes[j]]);
        } else {
            /* No node: the joint stays at its bind pose, so it contributes the bind shape. */
            palette[j] = k->bind_shape;
        }
    }
    for (size_t v = 0; v < m->vertex_count; v++) {
        am_vec3 p = am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]);
        double total = 0;
        for (size_t i = m->influence_start[v]; i < m->influence_start[v + 1]; i++)
            total += m->influences[i].weight;
        am_vec3 acc = am_v3(0, 0, 0);
        if (total > 0) {
            for (size_t i = m->influence_start[v]; i < m->influence_start[v + 1]; i++) {
                const am_scene_influence *inf = &m->influences[i];
                am_vec3 q = am_mat4_transform_point(&palette[inf->joint], p);
                acc = am_v3_add(acc, am_v3_scale(q, inf->weight / total));
            }
        } else {
            acc = am_mat4_transform_point(&k->bind_shape, p);
        }
        out[3 * v] = (float)acc.x;
        out[3 * v + 1] = (float)acc.y;
        out[3 * v + 2] = (float)acc.z;
    }
    free(palette);
    return AM_OK;
}
