/* Rig JSON reader (README "Rig JSON"): jansson parse, then every field checked with an
 * error naming the file and the field. */
#include "skin/rig.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/json_text.h"

#define RIG_MAX_VERTICES (8u * 65536u)
#define RIG_MAX_JOINTS 1024u

static am_status field_fail(am_error *err, const char *src, const char *field, const char *msg)
{
    am_fail(err, AM_ERR_INVALID, "%s", msg);
    am_error_where(err, "%s: %s", src, field);
    return AM_ERR_INVALID;
}

/* A JSON number (integer or real) that is finite. */
static bool get_number(const json_t *v, double *out)
{
    if (!json_is_number(v))
        return false;
    double d = json_number_value(v);
    if (!isfinite(d))
        return false;
    *out = d;
    return true;
}

static am_status parse_vec(const json_t *arr, size_t n, double *out, am_error *err, const char *src,
                           const char *field)
{
    if (!json_is_array(arr) || json_array_size(arr) != n) {
        char msg[64];
        snprintf(msg, sizeof msg, "expected an array of %zu numbers", n);
        return field_fail(err, src, field, msg);
    }
    for (size_t i = 0; i < n; i++)
        if (!get_number(json_array_get(arr, i), &out[i]))
            return field_fail(err, src, field, "expected a finite number");
    return AM_OK;
}

/* Rig names become file names (NAME.llmesh): keep them portable. */
static bool name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 100 || s[0] == '.' || s[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.'))
            return false;
    }
    return true;
}

static am_status parse_joints(const json_t *root, const char *src, am_rig *rig, am_error *err)
{
    const json_t *joints = json_object_get(root, "joints");
    if (!json_is_array(joints) || json_array_size(joints) == 0)
        return field_fail(err, src, "joints", "expected a non-empty array of {\"name\", \"world\"}");
    size_t n = json_array_size(joints);
    if (n > RIG_MAX_JOINTS)
        return field_fail(err, src, "joints", "too many joints");
    rig->joints = calloc(n, sizeof *rig->joints);
    if (!rig->joints)
        return am_fail_nomem(err, "rig joints");
    rig->joint_count = n;
    for (size_t i = 0; i < n; i++) {
        char field[64];
        const json_t *j = json_array_get(joints, i);
        const json_t *name = json_object_get(j, "name");
        snprintf(field, sizeof field, "joints[%zu].name", i);
        if (!json_is_string(name) || json_string_length(name) == 0)
            return field_fail(err, src, field, "expected a joint name (string)");
        rig->joints[i].name = strdup(json_string_value(name));
        if (!rig->joints[i].name)
            return am_fail_nomem(err, "rig joint name");
        snprintf(field, sizeof field, "joints[%zu].world", i);
        double w[3];
        if (parse_vec(json_object_get(j, "world"), 3, w, err, src, field))
            return err ? err->code : AM_ERR_INVALID;
        rig->joints[i].world = am_v3(w[0], w[1], w[2]);
        if (!rig->explicit_skin)
            continue;
        snprintf(field, sizeof field, "joints[%zu].inverse_bind", i);
        if (parse_vec(json_object_get(j, "inverse_bind"), 16, rig->joints[i].inverse_bind.m, err, src, field))
            return AM_ERR_INVALID;
        if (!rig->has_joint_positions)
            continue;
        snprintf(field, sizeof field, "joints[%zu].position", i);
        if (parse_vec(json_object_get(j, "position"), 3, w, err, src, field))
            return AM_ERR_INVALID;
        rig->joints[i].position = am_v3(w[0], w[1], w[2]);
    }
    return AM_OK;
}

/* The optional explicit skin (rig.h): {"bind_shape": [16 numbers, LL layout],
 * "joint_positions": true|false}; its presence makes every joint carry "inverse_bind" (and
 * "position" with joint_positions). */
static am_status parse_skin(const json_t *root, const char *src, am_rig *rig, am_error *err)
{
    rig->bind_shape = am_mat4_identity();
    const json_t *skin = json_object_get(root, "skin");
    if (!skin)
        return AM_OK;
    if (!json_is_object(skin))
        return field_fail(err, src, "skin", "expected {\"bind_shape\": [16 numbers], \"joint_positions\": bool}");
    rig->explicit_skin = true;
    if (parse_vec(json_object_get(skin, "bind_shape"), 16, rig->bind_shape.m, err, src, "skin.bind_shape"))
        return AM_ERR_INVALID;
    am_mat4 inv;
    if (!am_mat4_inverse(&rig->bind_shape, &inv))
        return field_fail(err, src, "skin.bind_shape", "the bind shape matrix is singular");
    const json_t *jp = json_object_get(skin, "joint_positions");
    if (jp && !json_is_boolean(jp))
        return field_fail(err, src, "skin.joint_positions", "expected true or false");
    rig->has_joint_positions = !jp || json_is_true(jp);
    return AM_OK;
}

am_vec3 am_rig_bind_position(const am_rig *rig, size_t v)
{
    am_vec3 p = am_v3(rig->positions[3 * v], rig->positions[3 * v + 1], rig->positions[3 * v + 2]);
    return rig->explicit_skin ? am_mat4_transform_point(&rig->bind_shape, p) : p;
}

static am_status parse_vertices(const json_t *root, const char *src, am_rig *rig, am_error *err)
{
    const json_t *verts = json_object_get(root, "vertices");
    if (!json_is_array(verts) || json_array_size(verts) < 3)
        return field_fail(err, src, "vertices", "expected an array of at least 3 [px,py,pz,nx,ny,nz,u,v]");
    size_t n = json_array_size(verts);
    if (n > RIG_MAX_VERTICES)
        return field_fail(err, src, "vertices", "too many vertices (8 faces of 65536 at most)");
    rig->vertex_count = n;
    rig->positions = malloc(n * 3 * sizeof(float));
    rig->normals = malloc(n * 3 * sizeof(float));
    rig->uvs = malloc(n * 2 * sizeof(float));
    if (!rig->positions || !rig->normals || !rig->uvs)
        return am_fail_nomem(err, "rig vertices");
    for (size_t i = 0; i < n; i++) {
        char field[64];
        snprintf(field, sizeof field, "vertices[%zu]", i);
        double v[8];
        if (parse_vec(json_array_get(verts, i), 8, v, err, src, field))
            return AM_ERR_INVALID;
        /* stored as floats: judged after the conversion (5e307 is a double, not a float) */
        for (int k = 0; k < 8; k++)
            if (!isfinite((float)v[k])) {
                char msg[96];
                snprintf(msg, sizeof msg, "element %d (%g) does not fit a 32-bit float", k, v[k]);
                return field_fail(err, src, field, msg);
            }
        for (int k = 0; k < 3; k++) {
            rig->positions[3 * i + k] = (float)v[k];
            rig->normals[3 * i + k] = (float)v[3 + k];
        }
        rig->uvs[2 * i] = (float)v[6];
        rig->uvs[2 * i + 1] = (float)v[7];
    }
    return AM_OK;
}

static am_status parse_triangles(const json_t *root, const char *src, am_rig *rig, am_error *err)
{
    const json_t *tris = json_object_get(root, "triangles");
    if (!json_is_array(tris) || json_array_size(tris) == 0)
        return field_fail(err, src, "triangles", "expected a non-empty array of [a, b, c]");
    size_t n = json_array_size(tris);
    if (n > 4u * RIG_MAX_VERTICES)
        return field_fail(err, src, "triangles", "too many triangles");
    rig->triangle_count = n;
    rig->triangles = malloc(n * 3 * sizeof(uint32_t));
    if (!rig->triangles)
        return am_fail_nomem(err, "rig triangles");
    for (size_t i = 0; i < n; i++) {
        char field[64];
        snprintf(field, sizeof field, "triangles[%zu]", i);
        const json_t *t = json_array_get(tris, i);
        if (!json_is_array(t) || json_array_size(t) != 3)
            return field_fail(err, src, field, "expected [a, b, c]");
        for (size_t k = 0; k < 3; k++) {
            const json_t *e = json_array_get(t, k);
            if (!json_is_integer(e) || json_integer_value(e) < 0 ||
                (size_t)json_integer_value(e) >= rig->vertex_count) {
                char msg[96];
                snprintf(msg, sizeof msg, "vertex index must be an integer in 0..%zu", rig->vertex_count - 1);
                return field_fail(err, src, field, msg);
            }
            rig->triangles[3 * i + k] = (uint32_t)json_integer_value(e);
        }
        const uint32_t *c = &rig->triangles[3 * i];
        if (c[0] == c[1] || c[1] == c[2] || c[0] == c[2])
            return field_fail(err, src, field, "degenerate triangle (a vertex repeated)");
    }
    return AM_OK;
}

static am_status parse_weights(const json_t *root, const char *src, am_rig *rig, am_error *err)
{
    const json_t *weights = json_object_get(root, "weights");
    if (!json_is_array(weights) || json_array_size(weights) != rig->vertex_count) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected one influence list per vertex (%zu)", rig->vertex_count);
        return field_fail(err, src, "weights", msg);
    }
    size_t total = 0;
    for (size_t i = 0; i < rig->vertex_count; i++) {
        const json_t *row = json_array_get(weights, i);
        if (!json_is_array(row)) {
            char field[64];
            snprintf(field, sizeof field, "weights[%zu]", i);
            return field_fail(err, src, field, "expected an array of [joint_index, weight]");
        }
        total += json_array_size(row);
    }
    rig->weight_start = malloc((rig->vertex_count + 1) * sizeof(size_t));
    rig->influences = malloc((total ? total : 1) * sizeof(am_rig_influence));
    if (!rig->weight_start || !rig->influences)
        return am_fail_nomem(err, "rig weights");
    size_t at = 0;
    for (size_t i = 0; i < rig->vertex_count; i++) {
        const json_t *row = json_array_get(weights, i);
        rig->weight_start[i] = at;
        for (size_t k = 0; k < json_array_size(row); k++) {
            char field[64];
            snprintf(field, sizeof field, "weights[%zu][%zu]", i, k);
            const json_t *pair = json_array_get(row, k);
            if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(json_array_get(pair, 0)))
                return field_fail(err, src, field, "expected [joint_index, weight]");
            json_int_t j = json_integer_value(json_array_get(pair, 0));
            if (j < 0 || (size_t)j >= rig->joint_count) {
                char msg[96];
                snprintf(msg, sizeof msg, "joint index %lld out of range (%zu joints)", (long long)j,
                         rig->joint_count);
                return field_fail(err, src, field, msg);
            }
            double w;
            if (!get_number(json_array_get(pair, 1), &w) || w < 0)
                return field_fail(err, src, field, "weight must be a finite number >= 0");
            rig->influences[at].joint = (int)j;
            rig->influences[at].weight = w;
            at++;
        }
    }
    rig->weight_start[rig->vertex_count] = at;
    return AM_OK;
}

static am_status parse_material(const json_t *root, const char *src, am_rig *rig, am_error *err)
{
    rig->rgb[0] = rig->rgb[1] = rig->rgb[2] = 1.0;
    rig->textured = false;
    const json_t *mat = json_object_get(root, "material");
    if (!mat)
        return AM_OK;
    if (!json_is_object(mat))
        return field_fail(err, src, "material", "expected {\"rgb\": [r, g, b], \"textured\": bool}");
    const json_t *rgb = json_object_get(mat, "rgb");
    if (rgb) {
        if (parse_vec(rgb, 3, rig->rgb, err, src, "material.rgb"))
            return AM_ERR_INVALID;
        for (int k = 0; k < 3; k++)
            if (rig->rgb[k] < 0 || rig->rgb[k] > 1)
                return field_fail(err, src, "material.rgb", "colour components must be in 0..1");
    }
    const json_t *tex = json_object_get(mat, "textured");
    if (tex) {
        if (!json_is_boolean(tex))
            return field_fail(err, src, "material.textured", "expected true or false");
        rig->textured = json_is_true(tex);
    }
    return AM_OK;
}

am_status am_rig_parse_json(const char *json, size_t size, const char *source, am_rig *out, am_error *err)
{
    const char *src = source ? source : "rig";
    memset(out, 0, sizeof *out);
    json_t *root = am_json_load_text(json, size, JSON_REJECT_DUPLICATES, src, err);
    if (!root)
        return AM_ERR_INVALID;
    am_status st = AM_OK;
    if (!json_is_object(root)) {
        st = field_fail(err, src, "(top level)", "expected a JSON object");
        goto done;
    }
    const json_t *name = json_object_get(root, "name");
    if (!json_is_string(name) || !name_ok(json_string_value(name))) {
        st = field_fail(err, src, "name",
                        "expected a name of 1-100 characters from A-Z a-z 0-9 _ - . (it names the output files)");
        goto done;
    }
    out->name = strdup(json_string_value(name));
    if (!out->name) {
        st = am_fail_nomem(err, "rig name");
        goto done;
    }
    if ((st = parse_skin(root, src, out, err)) || (st = parse_joints(root, src, out, err)) || (st = parse_vertices(root, src, out, err)) ||
        (st = parse_triangles(root, src, out, err)) || (st = parse_weights(root, src, out, err)) ||
        (st = parse_material(root, src, out, err)))
        goto done;
done:
    json_decref(root);
    if (st)
        am_rig_free(out);
    return st;
}

static am_status sniff_rig(const uint8_t *h, size_t n, am_error *err)
{
    return am_sniff_text(h, n, "{", "a rig JSON (an object)", err);
}

const am_file_format am_rig_format = {"a rig JSON", AM_RIG_MAX_FILE_BYTES, sniff_rig};

am_status am_rig_load(const char *path, am_rig *out, am_error *err)
{
    uint8_t *data = NULL;
    size_t size = 0;
    memset(out, 0, sizeof *out);
    am_status st = am_read_file_as(path, &am_rig_format, &data, &size, err);
    if (st)
        return st;
    st = am_rig_parse_json((const char *)data, size, path, out, err);
    free(data);
    return st;
}

void am_rig_free(am_rig *rig)
{
    if (!rig)
        return;
    for (size_t i = 0; rig->joints && i < rig->joint_count; i++)
        free(rig->joints[i].name);
    free(rig->joints);
    free(rig->name);
    free(rig->positions);
    free(rig->normals);
    free(rig->uvs);
    free(rig->triangles);
    free(rig->weight_start);
    free(rig->influences);
    memset(rig, 0, sizeof *rig);
}
