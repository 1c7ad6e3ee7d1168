#include "mesh/mesh_report.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/skin_json.h"

void am_mesh_lod_stats_of(const am_mesh_lod *lod, am_mesh_lod_stats *out)
{
    memset(out, 0, sizeof *out);
    out->max_joint = -1;
    out->faces = lod->face_count;
    for (size_t fi = 0; fi < lod->face_count; fi++) {
        const am_mesh_face *f = &lod->faces[fi];
        if (f->no_geometry) {
            out->no_geometry_faces++;
            continue;
        }
        out->vertices += f->vertex_count;
        out->triangles += f->index_count / 3;
        if (!f->has_weights)
            continue;
        out->weighted_vertices += f->vertex_count;
        out->no_influence += f->no_influence_count;
        for (size_t v = 0; v < f->vertex_count; v++) {
            unsigned k = f->weight_count[v];
            out->influence_hist[k <= 4 ? k : 4]++;
            for (unsigned i = 0; i < k && i < 4; i++)
                if ((int)f->weight_joint[4 * v + i] > out->max_joint)
                    out->max_joint = f->weight_joint[4 * v + i];
        }
    }
}

/* Small builders; jansson's *_new functions take ownership and tolerate NULL. */
static json_t *floats(const float *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static json_t *doubles(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static json_t *tuples(const float *v, size_t count, size_t width)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < count; i++)
        json_array_append_new(a, floats(v + width * i, width));
    return a;
}

static json_t *domain(const double *mn, const double *mx, size_t n)
{
    json_t *o = json_object();
    json_object_set_new(o, "min", doubles(mn, n));
    json_object_set_new(o, "max", doubles(mx, n));
    return o;
}

static json_t *face_json(const am_mesh_face *f)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    if (f->no_geometry) {
        json_object_set_new(o, "no_geometry", json_true());
        return o;
    }
    size_t n = f->vertex_count;
    json_object_set_new(o, "vertex_count", json_integer((json_int_t)n));
    double mn[3] = {f->pos_min.x, f->pos_min.y, f->pos_min.z}, mx[3] = {f->pos_max.x, f->pos_max.y, f->pos_max.z};
    json_object_set_new(o, "position_domain", domain(mn, mx, 3));
    double ns[3] = {f->normalized_scale.x, f->normalized_scale.y, f->normalized_scale.z};
    json_object_set_new(o, "normalized_scale", doubles(ns, 3));
    if (f->positions)
        json_object_set_new(o, "positions", tuples(f->positions, n, 3));
    if (f->normals)
        json_object_set_new(o, "normals", tuples(f->normals, n, 3));
    if (f->uvs) {
        json_object_set_new(o, "uv_domain", domain(f->uv_min, f->uv_max, 2));
        json_object_set_new(o, "uvs", tuples(f->uvs, n, 2));
    }
    json_t *tris = json_array();
    for (size_t i = 0; tris && i + 2 < f->index_count; i += 3) {
        json_t *t = json_array();
        for (int k = 0; k < 3; k++)
            json_array_append_new(t, json_integer(f->indices[i + (size_t)k]));
        json_array_append_new(tris, t);
    }
    json_object_set_new(o, "triangles", tris);
    if (f->has_weights) {
        json_t *w = json_array();
        for (size_t v = 0; w && v < n; v++) {
            json_t *list = json_array();
            for (unsigned k = 0; k < f->weight_count[v] && k < 4; k++) {
                json_t *e = json_array();
                json_array_append_new(e, json_integer(f->weight_joint[4 * v + k]));
                json_array_append_new(e, json_real(f->weight_value[4 * v + k]));
                json_array_append_new(e, json_integer(f->weight_code[4 * v + k]));
                json_array_append_new(list, e);
            }
            json_array_append_new(w, list);
        }
        json_object_set_new(o, "weights", w);
        json_object_set_new(o, "no_influence_vertices", json_integer((json_int_t)f->no_influence_count));
    }
    return o;
}

static json_t *lod_json(const am_mesh_lod *lod)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < lod->face_count; i++)
        json_array_append_new(a, face_json(&lod->faces[i]));
    return a;
}

static json_t *skin_json(const am_mesh_skin *s, am_error *err)
{
    am_buf b = {0};
    if (am_mesh_skin_json_write(s, &b, err)) {
        am_buf_free(&b); /* partly written (e.g. up to a non-finite element) */
        return NULL;
    }
    json_t *o = json_loadb((const char *)b.data, b.size, 0, NULL);
    am_buf_free(&b);
    if (!o)
        return NULL;
    if (s->has_pelvis_offset)
        json_object_set_new(o, "pelvis_offset", json_real(s->pelvis_offset));
    json_object_set_new(o, "lock_scale_if_joint_position", json_boolean(s->lock_scale_if_joint_position));
    return o;
}

am_status am_mesh_asset_to_json(const am_mesh_asset *a, am_buf *out, am_error *err)
{
    json_t *root = json_object();
    if (!root)
        return am_fail_nomem(err, "JSON");
    json_object_set_new(root, "header_size", json_integer((json_int_t)a->header_size));
    if (a->has_version)
        json_object_set_new(root, "version", json_integer((json_int_t)a->version));
    if (a->material_count) {
        json_t *ml = json_array();
        for (size_t i = 0; ml && i < a->material_count; i++)
            json_array_append_new(ml, json_string(a->material_list[i]));
        json_object_set_new(root, "material_list", ml);
    }
    json_t *warn = json_array();
    for (size_t i = 0; warn && i < a->warning_count; i++)
        json_array_append_new(warn, json_string(a->warnings[i]));
    json_object_set_new(root, "warnings", warn);
    json_t *blocks = json_object();
    for (int b = 0; blocks && b < AM_BLOCK_COUNT; b++) {
        if (!a->blocks[b].present)
            continue;
        json_t *e = json_object();
        json_object_set_new(e, "offset", json_integer(a->blocks[b].offset));
        json_object_set_new(e, "size", json_integer(a->blocks[b].size));
        json_object_set_new(e, "file_offset", json_integer((json_int_t)a->header_size + a->blocks[b].offset));
        json_object_set_new(blocks, am_mesh_block_name(b), e);
    }
    json_object_set_new(root, "blocks", blocks);
    json_t *lods = json_object();
    for (int l = 0; lods && l < AM_LOD_COUNT; l++)
        if (a->lods[l].face_count)
            json_object_set_new(lods, am_mesh_block_name(l), lod_json(&a->lods[l]));
    json_object_set_new(root, "lods", lods);
    if (a->physics_mesh.face_count)
        json_object_set_new(root, "physics_mesh", lod_json(&a->physics_mesh));
    if (a->physics_convex_raw)
        json_object_set_new(root, "physics_convex_bytes", json_integer((json_int_t)a->physics_convex_size));
    am_status s = AM_OK;
    if (a->has_skin) {
        json_t *sk = skin_json(&a->skin, err);
        if (!sk) {
            json_decref(root);
            return err && err->code ? err->code : am_fail_nomem(err, "skin JSON");
        }
        json_object_set_new(root, "skin", sk);
    }
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!text)
        return am_fail_nomem(err, "JSON");
    s = am_buf_append(out, text, strlen(text), err);
    if (!s)
        s = am_buf_append(out, "\n", 1, err);
    free(text);
    return s;
}
