/* Skeleton and mesh inputs of binding, and the result as a rig (bind_io.h). */
#include "bind/bind_io.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "core/json_text.h"
#include "map/axes.h"
#include "skin/skin_build.h" /* AM_RIG_MAX_COORD_M */

/* --- frames ------------------------------------------------------------------------ */

/* File frame -> bind frame: the rotation taking up to +Z and forward to +X (map/axes.h),
 * and the unit. */
typedef struct frame_map {
    am_quat rot;
    double unit;
    bool guess_unit; /* neither given nor declared: from the stature, once the mesh is placed */
} frame_map;

static am_status resolve_frame(const am_scene *sc, const am_bind_frame *f, frame_map *m, char *desc, size_t size,
                               am_error *err)
{
    am_bind_frame def = {0, 0, 0};
    if (!f)
        f = &def;
    int up = f->up ? f->up : sc->declared.up ? sc->declared.up : 3;
    int fwd = f->forward ? f->forward : sc->declared.forward ? sc->declared.forward : (abs(up) == 2 ? 3 : 1);
    double unit = f->unit_m > 0 ? f->unit_m : sc->declared.unit_m > 0 ? sc->declared.unit_m : 1.0;
    if (!am_axes_rotation(up, fwd, &m->rot))
        return am_fail(err, AM_ERR_USAGE, "up %s and forward %s are not two different axes", am_axis_name(up),
                       am_axis_name(fwd));
    m->unit = unit;
    m->guess_unit = f->unit_m <= 0 && sc->declared.unit_m <= 0;
    snprintf(desc, size, "%s up (%s), forward %s (%s), 1 unit = %g m (%s)", am_axis_name(up),
             f->up ? "given" : sc->declared.up ? "declared" : "default", am_axis_name(fwd),
             f->forward ? "given" : sc->declared.forward ? "declared" : "default", unit,
             f->unit_m > 0 ? "given" : sc->declared.unit_m > 0 ? "declared" : "default");
    return AM_OK;
}

static am_vec3 to_bind(const frame_map *m, am_vec3 p) { return am_v3_scale(am_quat_rotate(m->rot, p), m->unit); }

/* --- the mesh ---------------------------------------------------------------------- */

/* No unit given or declared (an OBJ): the stature (largest extent) reads as metres,
 * centimetres or millimetres as map/axes.h reads it, so a creature written in
 * centimetres binds and is reported as the same creature in metres. Ambiguous: 1 m. */
static double guess_unit(am_bind_source *out, char *desc, size_t size)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < out->vertex_count; v++)
        for (int c = 0; c < 3; c++) {
            lo[c] = fminf(lo[c], out->positions[3 * v + c]);
            hi[c] = fmaxf(hi[c], out->positions[3 * v + c]);
        }
    double stature = out->vertex_count ? fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])) : 0;
    double unit = am_axes_unit_from_stature(stature);
    for (size_t v = 0; unit > 0 && unit != 1 && v < 3 * out->vertex_count; v++)
        out->positions[v] = (float)(out->positions[v] * unit);
    const char *name = unit == 1 ? "metres" : unit == 0.01 ? "centimetres" : "millimetres";
    char *at = strstr(desc, "1 unit = ");
    if (!at)
        return unit > 0 ? unit : 1;
    size_t room = size - (size_t)(at - desc);
    if (unit > 0)
        snprintf(at, room, "1 unit = %g m (%s: stature %.4g units; the unit_m option overrides)", unit, name, stature);
    else
        snprintf(at, room,
                 "1 unit = 1 m (default: a stature of %.4g units reads as no one unit; the unit_m option overrides)",
                 stature);
    return unit > 0 ? unit : 1;
}

void am_bind_source_free(am_bind_source *s)
{
    if (!s)
        return;
    free(s->positions);
    free(s->normals);
    free(s->uvs);
    free(s->triangles);
    free(s->vertex_mesh);
    am_string_free(&s->name);
    am_string_free(&s->conversion);
    memset(s, 0, sizeof *s);
}

am_bind_mesh am_bind_source_mesh(const am_bind_source *s)
{
    am_bind_mesh m = {s->vertex_count, s->positions, s->triangle_count, s->triangles};
    return m;
}

static void name_from_path(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = 0;
    for (const char *p = base; *p && *p != '.' && n + 1 < size && n < 100; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        out[n++] = ok ? c : '_';
    }
    if (n == 0 || out[0] == '-')
        n = (size_t)snprintf(out, size, "mesh");
    out[n] = '\0';
}

am_status am_bind_source_from_scene(const am_scene *sc, const am_bind_frame *frame, am_bind_source *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    frame_map fm;
    char conversion[400] = ""; /* our own sentence: axes, unit and how each was taken */
    char name[101];            /* a rig name: 1..100 characters (rig.h) */
    am_status s = resolve_frame(sc, frame, &fm, conversion, sizeof conversion, err);
    if (s)
        return s;
    name_from_path(sc->source ? sc->source : "mesh", name, sizeof name);
    size_t nv = 0, nt = 0;
    for (size_t i = 0; i < sc->mesh_count; i++) {
        nv += sc->meshes[i].vertex_count;
        for (size_t f = 0; f < sc->meshes[i].face_count; f++)
            nt += sc->meshes[i].faces[f].index_count / 3;
    }
    if (nv > UINT32_MAX / 2 || nt > UINT32_MAX / 4) {
        am_fail(err, AM_ERR_INVALID, "%zu vertices is too many to bind", nv);
        am_error_where(err, "%s", sc->source ? sc->source : "scene");
        return AM_ERR_INVALID;
    }
    out->positions = malloc((nv ? nv : 1) * 3 * sizeof(float));
    out->normals = calloc((nv ? nv : 1) * 3, sizeof(float));
    out->uvs = calloc((nv ? nv : 1) * 2, sizeof(float));
    out->triangles = malloc((nt ? nt : 1) * 3 * sizeof(uint32_t));
    out->vertex_mesh = malloc((nv ? nv : 1) * sizeof(uint32_t));
    if (!out->positions || !out->normals || !out->uvs || !out->triangles || !out->vertex_mesh) {
        am_bind_source_free(out);
        return am_fail_nomem(err, "bind mesh");
    }
    out->rgb[0] = out->rgb[1] = out->rgb[2] = 1.0;
    bool have_colour = false;
    size_t base = 0;
    bool need_normals = false;
    for (size_t i = 0; i < sc->mesh_count; i++) {
        const am_scene_mesh *m = &sc->meshes[i];
        am_mat4 place = am_mat4_identity();
        if (m->skin >= 0) {
            place = sc->skins[m->skin].bind_shape;
            out->had_weights = true;
        } else if (m->node >= 0) {
            place = sc->nodes[m->node].world;
        }
        for (size_t v = 0; v < m->vertex_count; v++) {
            am_vec3 p = am_v3(m->positions[3 * v], m->positions[3 * v + 1], m->positions[3 * v + 2]);
            p = to_bind(&fm, am_mat4_transform_point(&place, p));
            float *d = &out->positions[3 * (base + v)];
            d[0] = (float)p.x;
            d[1] = (float)p.y;
            d[2] = (float)p.z;
            out->vertex_mesh[base + v] = (uint32_t)i;
            if (m->normals) {
                am_vec3 n = am_v3(m->normals[3 * v], m->normals[3 * v + 1], m->normals[3 * v + 2]);
                n = am_v3_normalize(to_bind(&fm, am_mat4_transform_dir(&place, n)));
                float *dn = &out->normals[3 * (base + v)];
                dn[0] = (float)n.x;
                dn[1] = (float)n.y;
                dn[2] = (float)n.z;
            }
            if (m->uvs) {
                out->uvs[2 * (base + v)] = m->uvs[2 * v];
                out->uvs[2 * (base + v) + 1] = m->uvs[2 * v + 1];
            }
        }
        need_normals |= !m->normals;
        for (size_t f = 0; f < m->face_count; f++) {
            const am_scene_face *face = &m->faces[f];
            for (size_t k = 0; k < face->index_count; k++)
                out->triangles[3 * out->triangle_count + k] = (uint32_t)(base + face->indices[k]);
            out->triangle_count += face->index_count / 3;
            if (!have_colour && face->material >= 0) {
                const am_scene_material *mat = &sc->materials[face->material];
                for (int c = 0; c < 3; c++)
                    out->rgb[c] = mat->base_color[c];
                out->textured = mat->image_path || mat->image_data;
                have_colour = true;
            }
        }
        base += m->vertex_count;
    }
    out->vertex_count = nv;
    out->unit_m = fm.unit;
    if (fm.guess_unit && !out->had_weights) /* a skinned scene's joints keep the mesh's unit */
        out->unit_m = guess_unit(out, conversion, sizeof conversion);
    /* In metres now: a vertex beyond the rig limit is refused here, before any work (the
     * scene itself is bounded in file units, scene.h; a unit can still take it far). */
    for (size_t v = 0; v < nv; v++) {
        const float *p = &out->positions[3 * v];
        for (int c = 0; c < 3; c++)
            if (!(fabsf(p[c]) <= AM_RIG_MAX_COORD_M)) {
                const am_scene_mesh *m = &sc->meshes[out->vertex_mesh[v]];
                size_t first = 0;
                for (uint32_t i = 0; i < out->vertex_mesh[v]; i++)
                    first += sc->meshes[i].vertex_count;
                am_fail(err, AM_ERR_INVALID,
                        "mesh '%s' vertex %zu (0-based): %c = %g m in the bind frame (%s) is beyond +-%g m: wrong "
                        "units (the unit_m option), or a stray vertex",
                        m->name ? m->name : "", v - first, "xyz"[c], (double)p[c], conversion, AM_RIG_MAX_COORD_M);
                am_error_where(err, "%s", sc->source ? sc->source : "scene");
                am_bind_source_free(out);
                return AM_ERR_INVALID;
            }
    }
    if (need_normals) {
        /* Area-weighted face normals for the vertices the file gave none. */
        float *acc = calloc((nv ? nv : 1) * 3, sizeof *acc);
        if (!acc) {
            am_bind_source_free(out);
            return am_fail_nomem(err, "normals");
        }
        for (size_t t = 0; t < out->triangle_count; t++) {
            const uint32_t *f = &out->triangles[3 * t];
            am_vec3 a = am_v3(out->positions[3 * f[0]], out->positions[3 * f[0] + 1], out->positions[3 * f[0] + 2]);
            am_vec3 b = am_v3(out->positions[3 * f[1]], out->positions[3 * f[1] + 1], out->positions[3 * f[1] + 2]);
            am_vec3 c = am_v3(out->positions[3 * f[2]], out->positions[3 * f[2] + 1], out->positions[3 * f[2] + 2]);
            am_vec3 n = am_v3_cross(am_v3_sub(b, a), am_v3_sub(c, a));
            for (int q = 0; q < 3; q++) {
                acc[3 * f[q]] += (float)n.x;
                acc[3 * f[q] + 1] += (float)n.y;
                acc[3 * f[q] + 2] += (float)n.z;
            }
        }
        base = 0;
        for (size_t i = 0; i < sc->mesh_count; i++) {
            if (!sc->meshes[i].normals)
                for (size_t v = base; v < base + sc->meshes[i].vertex_count; v++) {
                    am_vec3 n = am_v3_normalize(am_v3(acc[3 * v], acc[3 * v + 1], acc[3 * v + 2]));
                    if (am_v3_len(n) == 0)
                        n = am_v3(0, 0, 1);
                    out->normals[3 * v] = (float)n.x;
                    out->normals[3 * v + 1] = (float)n.y;
                    out->normals[3 * v + 2] = (float)n.z;
                }
            base += sc->meshes[i].vertex_count;
        }
        free(acc);
    }
    if (!am_string_set(&out->name, name) || !am_string_set(&out->conversion, conversion)) {
        am_bind_source_free(out);
        return am_fail_nomem(err, "bind mesh");
    }
    return AM_OK;
}

/* --- skeletons --------------------------------------------------------------------- */

static am_status skel_fail(am_error *err, const char *src, const char *field, const char *fmt, const char *detail)
{
    am_fail(err, AM_ERR_INVALID, fmt, detail);
    am_error_where(err, "%s: %s", src, field);
    return AM_ERR_INVALID;
}

/* Viewer parents and tails for joints whose heads are set. `tail_given[i]` keeps a tail. */
static void finish_skeleton(am_bind_skeleton *s, const am_skeleton *viewer, const bool *tail_given, double height_m)
{
    size_t n = s->joint_count;
    for (size_t i = 0; i < n; i++) {
        s->joints[i].parent = -1;
        int best_depth = -1;
        for (size_t k = 0; k < n; k++) {
            if (k == i || !am_skeleton_is_ancestor(viewer, s->joints[k].skel_joint, s->joints[i].skel_joint))
                continue;
            /* the nearest listed ancestor is the deepest one */
            int depth = 0;
            for (int a = s->joints[k].skel_joint; a >= 0; a = am_skeleton_parent(viewer, a))
                depth++;
            if (depth > best_depth) {
                best_depth = depth;
                s->joints[i].parent = (int)k;
            }
        }
    }
    double leaf = AM_BIND_LEAF_M * (height_m > 0 ? height_m / AM_BIND_LEAF_HEIGHT_M : 1.0);
    for (size_t i = 0; i < n; i++) {
        if (tail_given && tail_given[i])
            continue;
        int child = -1;
        for (size_t k = 0; k < n; k++)
            if (s->joints[k].parent == (int)i && am_v3_dist(s->joints[k].head, s->joints[i].head) > 0 &&
                (child < 0 || s->joints[k].skel_joint < s->joints[child].skel_joint))
                child = (int)k;
        if (child >= 0) {
            s->joints[i].tail = s->joints[child].head;
            continue;
        }
        am_vec3 dir = am_v3(0, 0, 1);
        int p = s->joints[i].parent;
        if (p >= 0 && am_v3_dist(s->joints[i].head, s->joints[p].head) > 0)
            dir = am_v3_normalize(am_v3_sub(s->joints[i].head, s->joints[p].head));
        s->joints[i].tail = am_v3_add(s->joints[i].head, am_v3_scale(dir, leaf));
    }
}

static am_status add_joint(am_bind_skeleton *s, const am_skeleton *viewer, const char *name, const char *src,
                           const char *field, am_error *err)
{
    int sj = am_skeleton_find(viewer, name);
    if (sj < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown joint '%.100s': not in avatar_skeleton.xml", name);
        return skel_fail(err, src, field, "%s", msg);
    }
    for (size_t k = 0; k < s->joint_count; k++)
        if (s->joints[k].skel_joint == sj) {
            char msg[200];
            snprintf(msg, sizeof msg, "'%.60s' names the viewer joint %.60s a second time", name,
                     viewer->joints[sj].name);
            return skel_fail(err, src, field, "%s", msg);
        }
    am_bind_joint *J = &s->joints[s->joint_count++];
    memset(J, 0, sizeof *J);
    if (!am_string_set(&J->name, viewer->joints[sj].name))
        return am_fail_nomem(err, "skeleton joint name");
    J->skel_joint = sj;
    return AM_OK;
}

static bool vec3_of(const json_t *a, am_vec3 *out)
{
    if (!json_is_array(a) || json_array_size(a) != 3)
        return false;
    double v[3];
    for (size_t k = 0; k < 3; k++) {
        const json_t *e = json_array_get(a, k);
        if (!json_is_number(e) || !isfinite(json_number_value(e)))
            return false;
        v[k] = json_number_value(e);
    }
    *out = am_v3(v[0], v[1], v[2]);
    return true;
}

/* The rig's unit (metres per rig unit): declared ("unit_m"), else read against the mesh
 * (rig_units in bind_io.h). `lo`/`hi`: the box of the heads and given tails as written. */
static double rig_unit(const json_t *root, am_vec3 lo, am_vec3 hi, const am_bind_source *mesh, char *note,
                       size_t note_size)
{
    const json_t *declared = json_object_get(root, "unit_m");
    if (json_is_number(declared)) {
        snprintf(note, note_size, "1 rig unit = %g m (declared)", json_number_value(declared));
        return json_number_value(declared);
    }
    am_vec3 e = am_v3_sub(hi, lo);
    double extent = fmax(e.x, fmax(e.y, e.z)), mesh_m = 0;
    if (mesh && mesh->vertex_count) {
        float mlo[3] = {INFINITY, INFINITY, INFINITY}, mhi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t v = 0; v < mesh->vertex_count; v++)
            for (int c = 0; c < 3; c++) {
                mlo[c] = fminf(mlo[c], mesh->positions[3 * v + c]);
                mhi[c] = fmaxf(mhi[c], mesh->positions[3 * v + c]);
            }
        mesh_m = fmax(mhi[0] - mlo[0], fmax(mhi[1] - mlo[1], mhi[2] - mlo[2]));
    }
    /* the same size as the mesh in metres: metres (as every rig before); the same size as
     * the mesh in its own file units: the mesh's unit; else the stature rule on its own */
    double u = 1;
    const char *why = "metres: the size of the mesh in metres";
    if (mesh_m > 0 && extent > 0 && !(extent >= 0.2 * mesh_m && extent <= 5 * mesh_m)) {
        double mesh_units = mesh_m / mesh->unit_m;
        if (mesh->unit_m != 1 && extent >= 0.2 * mesh_units && extent <= 5 * mesh_units) {
            u = mesh->unit_m;
            why = "the mesh's unit: the rig is the size of the mesh in its file units";
        } else if (am_axes_unit_from_stature(extent) > 0) {
            u = am_axes_unit_from_stature(extent);
            why = u == 1 ? "metres by its own size" : u == 0.01 ? "centimetres by its own size" : "millimetres by its own size";
        } else {
            why = "metres: its size reads as no one unit";
        }
    } else if (!(mesh_m > 0)) {
        why = "metres (no mesh to compare)";
    }
    snprintf(note, note_size, "1 rig unit = %g m (%s; joints span %.4g units; \"unit_m\" declares it)", u, why, extent);
    return u;
}

static am_status parse_skeleton(const char *json, size_t size, const char *src, const am_skeleton *viewer,
                                double height_m, const am_bind_source *mesh, am_bind_skeleton *out, char *note,
                                size_t note_size, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (note_size)
        note[0] = '\0';
    /* A skeleton is a few hundred joints: 64 MiB of tree is far beyond any. */
    json_t *root = am_json_load_text(json, size, 0, (size_t)64 << 20, src, err);
    if (!root)
        return err ? err->code : AM_ERR_INVALID;
    const json_t *joints = json_object_get(root, "joints");
    am_status s = AM_OK;
    bool *tail_given = NULL;
    if (!json_is_array(joints) || json_array_size(joints) == 0) {
        s = skel_fail(err, src, "joints", "%s", "expected a non-empty array of joints ({\"name\", \"head\", \"tail\"} or {\"name\", \"world\"})");
        goto done;
    }
    size_t n = json_array_size(joints);
    if (n > 4096) {
        s = skel_fail(err, src, "joints", "%s", "more than 4096 joints");
        goto done;
    }
    out->joints = calloc(n, sizeof *out->joints);
    tail_given = calloc(n, sizeof *tail_given);
    if (!out->joints || !tail_given) {
        s = am_fail_nomem(err, "skeleton");
        goto done;
    }
    for (size_t i = 0; i < n && !s; i++) {
        const json_t *j = json_array_get(joints, i);
        char field[64];
        snprintf(field, sizeof field, "joints[%zu].name", i);
        const json_t *name = json_object_get(j, "name");
        if (!json_is_string(name)) {
            s = skel_fail(err, src, field, "%s", "expected the joint's name (a string)");
            break;
        }
        if ((s = add_joint(out, viewer, json_string_value(name), src, field, err)))
            break;
        am_bind_joint *J = &out->joints[out->joint_count - 1];
        const json_t *head = json_object_get(j, "head"), *world = json_object_get(j, "world");
        snprintf(field, sizeof field, "joints[%zu].%s", i, head ? "head" : "world");
        if (!vec3_of(head ? head : world, &J->head)) {
            s = skel_fail(err, src, field, "%s", "expected [x, y, z] (finite numbers, metres)");
            break;
        }
        const json_t *tail = json_object_get(j, "tail");
        if (tail) {
            snprintf(field, sizeof field, "joints[%zu].tail", i);
            if (!vec3_of(tail, &J->tail)) {
                s = skel_fail(err, src, field, "%s", "expected [x, y, z] (finite numbers, metres)");
                break;
            }
            tail_given[i] = am_v3_dist(J->head, J->tail) > 0;
        }
    }
    const json_t *unit = json_object_get(root, "unit_m");
    if (!s && unit && !(json_is_number(unit) && json_number_value(unit) > 0 && json_number_value(unit) <= 1000))
        s = skel_fail(err, src, "unit_m", "%s", "expected metres per rig unit (a number > 0, at most 1000)");
    if (!s) { /* into the mesh's frame: metres (rig_unit), every joint within the rig limit */
        am_vec3 lo = am_v3(INFINITY, INFINITY, INFINITY), hi = am_v3(-INFINITY, -INFINITY, -INFINITY);
        for (size_t i = 0; i < out->joint_count; i++)
            for (int t = 0; t < 1 + (int)tail_given[i]; t++) {
                am_vec3 p = t ? out->joints[i].tail : out->joints[i].head;
                lo = am_v3(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
                hi = am_v3(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
            }
        char why[240];
        double u = rig_unit(root, lo, hi, mesh, why, sizeof why);
        if (note_size)
            snprintf(note, note_size, "%s", why);
        for (size_t i = 0; i < out->joint_count && !s; i++) {
            am_bind_joint *J = &out->joints[i];
            J->head = am_v3_scale(J->head, u);
            J->tail = am_v3_scale(J->tail, u);
            am_vec3 h = J->head;
            if (!(fabs(h.x) <= AM_RIG_MAX_COORD_M && fabs(h.y) <= AM_RIG_MAX_COORD_M && fabs(h.z) <= AM_RIG_MAX_COORD_M) ||
                (tail_given[i] && !(fabs(J->tail.x) <= AM_RIG_MAX_COORD_M && fabs(J->tail.y) <= AM_RIG_MAX_COORD_M &&
                                    fabs(J->tail.z) <= AM_RIG_MAX_COORD_M))) {
                char field[64];
                snprintf(field, sizeof field, "joints[%zu]", i);
                am_string msg = {0};
                s = am_string_setf(&msg, "%s lies beyond +-%g m (%.150s)", am_str(&J->name), AM_RIG_MAX_COORD_M, why)
                        ? skel_fail(err, src, field, "%s", am_str(&msg))
                        : am_fail_nomem(err, "skeleton message");
                am_string_free(&msg);
            }
        }
    }
    if (!s)
        finish_skeleton(out, viewer, tail_given, height_m);
done:
    free(tail_given);
    json_decref(root);
    if (s)
        am_bind_skeleton_free(out);
    return s;
}

am_status am_bind_skeleton_parse_json(const char *json, size_t size, const char *src, const am_skeleton *viewer,
                                      double height_m, am_bind_skeleton *out, am_error *err)
{
    return parse_skeleton(json, size, src, viewer, height_m, NULL, out, NULL, 0, err);
}

am_status am_bind_skeleton_load(const char *path, const am_skeleton *viewer, double height_m, am_bind_skeleton *out,
                                am_error *err)
{
    return am_bind_skeleton_load_for(path, viewer, height_m, NULL, out, NULL, 0, err);
}

am_status am_bind_skeleton_load_for(const char *path, const am_skeleton *viewer, double height_m,
                                    const am_bind_source *mesh, am_bind_skeleton *out, char *note, size_t note_size,
                                    am_error *err)
{
    uint8_t *data;
    size_t size;
    am_status s = am_read_file(path, &data, &size, err);
    if (s)
        return s;
    s = parse_skeleton((const char *)data, size, path, viewer, height_m, mesh, out, note, note_size, err);
    free(data);
    return s;
}

am_status am_bind_skeleton_from_heads(const char *const *names, const am_vec3 *heads, size_t n, const am_skeleton *viewer,
                                      double height_m, const char *src, am_bind_skeleton *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    out->joints = calloc(n ? n : 1, sizeof *out->joints);
    if (!out->joints)
        return am_fail_nomem(err, "skeleton");
    for (size_t i = 0; i < n; i++) {
        char field[64];
        snprintf(field, sizeof field, "joint %zu", i);
        am_status s = add_joint(out, viewer, names[i], src, field, err);
        if (s) {
            am_bind_skeleton_free(out);
            return s;
        }
        out->joints[out->joint_count - 1].head = heads[i];
    }
    finish_skeleton(out, viewer, NULL, height_m);
    return AM_OK;
}

am_status am_bind_skeleton_from_scene(const am_scene *sc, const am_bind_frame *frame, const am_skeleton *viewer,
                                      double height_m, am_bind_skeleton *out, size_t *skipped, am_error *err)
{
    memset(out, 0, sizeof *out);
    *skipped = 0;
    frame_map fm;
    char desc[200];
    am_status s = resolve_frame(sc, frame, &fm, desc, sizeof desc, err);
    if (s)
        return s;
    size_t total = 0;
    for (size_t k = 0; k < sc->skin_count; k++)
        total += sc->skins[k].joint_count;
    if (total == 0) {
        am_fail(err, AM_ERR_INVALID,
                "no skin: the model has no joints to bind to (the joints come from a rigged model)");
        am_error_where(err, "%s", sc->source ? sc->source : "scene");
        return AM_ERR_INVALID;
    }
    const char **names = malloc(total * sizeof *names);
    am_vec3 *heads = malloc(total * sizeof *heads);
    if (!names || !heads) {
        free(names);
        free(heads);
        return am_fail_nomem(err, "skeleton");
    }
    size_t n = 0;
    for (size_t k = 0; k < sc->skin_count; k++) {
        const am_scene_skin *skin = &sc->skins[k];
        for (size_t j = 0; j < skin->joint_count; j++) {
            int sj = am_skeleton_find(viewer, skin->joint_names[j]);
            if (sj < 0) {
                (*skipped)++;
                continue;
            }
            bool dup = false;
            for (size_t q = 0; q < n && !dup; q++)
                dup = am_skeleton_find(viewer, names[q]) == sj;
            if (dup)
                continue; /* the same joint in a second skin */
            am_vec3 p;
            am_mat4 bind;
            if (skin->has_inverse_binds && am_mat4_inverse(&skin->inverse_binds[j], &bind))
                p = am_mat4_get_translation(&bind);
            else if (skin->joint_nodes[j] >= 0)
                p = am_mat4_get_translation(&sc->nodes[skin->joint_nodes[j]].world);
            else {
                (*skipped)++;
                continue;
            }
            names[n] = skin->joint_names[j];
            heads[n++] = to_bind(&fm, p);
        }
    }
    if (n == 0)
        s = am_fail(err, AM_ERR_INVALID, "none of the model's %zu skin joints is a viewer joint", total);
    else
        s = am_bind_skeleton_from_heads(names, heads, n, viewer, height_m, sc->source ? sc->source : "model", out, err);
    free(names);
    free(heads);
    return s;
}

/* --- the rig --------------------------------------------------------------------------- */

am_status am_bind_to_rig(const am_bind_source *src, const am_bind_skeleton *skel, const am_bind_result *res,
                         am_rig *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    size_t nv = src->vertex_count;
    out->name = am_strdup(am_str(&src->name));
    out->joints = calloc(skel->joint_count, sizeof *out->joints);
    out->positions = malloc(nv * 3 * sizeof(float));
    out->normals = malloc(nv * 3 * sizeof(float));
    out->uvs = malloc(nv * 2 * sizeof(float));
    out->triangles = malloc((src->triangle_count ? src->triangle_count : 1) * 3 * sizeof(uint32_t));
    out->weight_start = malloc((nv + 1) * sizeof *out->weight_start);
    out->influences = malloc((nv ? 4 * nv : 1) * sizeof *out->influences);
    if (!out->name || !out->joints || !out->positions || !out->normals || !out->uvs || !out->triangles ||
        !out->weight_start || !out->influences) {
        am_rig_free(out);
        return am_fail_nomem(err, "rig");
    }
    out->joint_count = skel->joint_count;
    for (size_t j = 0; j < skel->joint_count; j++) {
        out->joints[j].name = am_strdup(am_str(&skel->joints[j].name));
        if (!out->joints[j].name) {
            am_rig_free(out);
            return am_fail_nomem(err, "rig");
        }
        out->joints[j].world = skel->joints[j].head;
    }
    out->vertex_count = nv;
    memcpy(out->positions, src->positions, nv * 3 * sizeof(float));
    memcpy(out->normals, src->normals, nv * 3 * sizeof(float));
    memcpy(out->uvs, src->uvs, nv * 2 * sizeof(float));
    for (size_t t = 0; t < src->triangle_count; t++) {
        const uint32_t *f = &src->triangles[3 * t];
        if (f[0] == f[1] || f[1] == f[2] || f[0] == f[2])
            continue;
        memcpy(&out->triangles[3 * out->triangle_count++], f, 3 * sizeof *f);
    }
    size_t at = 0;
    for (size_t v = 0; v < nv; v++) {
        out->weight_start[v] = at;
        for (int k = 0; k < res->count[v]; k++) {
            out->influences[at].joint = res->joint[4 * v + k];
            out->influences[at++].weight = res->weight[4 * v + k];
        }
    }
    out->weight_start[nv] = at;
    for (int c = 0; c < 3; c++)
        out->rgb[c] = src->rgb[c];
    out->textured = src->textured;
    out->bind_shape = am_mat4_identity();
    return AM_OK;
}
