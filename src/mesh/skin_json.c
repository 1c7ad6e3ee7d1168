/* Reference skin JSON (skin_json.h) and loading a skin from either an asset or JSON. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/skin_json.h"
#include "core/json_text.h"

static am_status bad(am_error *err, const char *source, const char *field, const char *msg)
{
    am_fail(err, AM_ERR_INVALID, "%s", msg);
    am_error_where(err, "%s: %s", source, field);
    return AM_ERR_INVALID;
}

static am_status json_matrix(const json_t *v, am_mat4 *m, const char *source, const char *field, am_error *err)
{
    if (!json_is_array(v) || json_array_size(v) != 16)
        return bad(err, source, field, "expected an array of 16 numbers");
    for (size_t i = 0; i < 16; i++) {
        const json_t *e = json_array_get(v, i);
        if (!json_is_number(e))
            return bad(err, source, field, "matrix element is not a number");
        m->m[i] = json_number_value(e);
    }
    return AM_OK;
}

static am_status json_matrix_list(const json_t *v, am_mat4 **out, size_t *count, const char *source, const char *key,
                                  am_error *err)
{
    if (!json_is_array(v))
        return bad(err, source, key, "expected an array of matrices");
    size_t n = json_array_size(v);
    *out = calloc(n ? n : 1, sizeof **out);
    if (!*out)
        return am_fail_nomem(err, key);
    *count = n;
    for (size_t i = 0; i < n; i++) {
        char field[96];
        snprintf(field, sizeof field, "%s[%zu]", key, i);
        am_status s = json_matrix(json_array_get(v, i), &(*out)[i], source, field, err);
        if (s)
            return s;
    }
    return AM_OK;
}

am_status am_mesh_skin_json_parse(const char *text, size_t size, const char *source, am_mesh_skin *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *root = am_json_load_text(text, size, 0, AM_SKIN_JSON_TREE_BUDGET, source, err);
    if (!root)
        return AM_ERR_INVALID;
    am_status s = AM_OK;
    const json_t *names = json_object_get(root, "joint_names");
    if (!json_is_object(root)) {
        s = bad(err, source, "(top)", "expected an object");
        goto done;
    }
    if (!json_is_array(names)) {
        s = bad(err, source, "joint_names", "missing or not an array of strings");
        goto done;
    }
    out->joint_count = json_array_size(names);
    out->joint_names = calloc(out->joint_count ? out->joint_count : 1, sizeof *out->joint_names);
    if (!out->joint_names) {
        s = am_fail_nomem(err, "joint names");
        goto done;
    }
    for (size_t i = 0; i < out->joint_count; i++) {
        const json_t *n = json_array_get(names, i);
        if (!json_is_string(n)) {
            s = bad(err, source, "joint_names", "entry is not a string");
            goto done;
        }
        if (!(out->joint_names[i] = strdup(json_string_value(n)))) {
            s = am_fail_nomem(err, "joint names");
            goto done;
        }
    }
    size_t ibm_n = 0;
    if ((s = json_matrix_list(json_object_get(root, "inverse_bind_matrix"), &out->inverse_bind, &ibm_n, source,
                              "inverse_bind_matrix", err)))
        goto done;
    if (ibm_n != out->joint_count) {
        s = bad(err, source, "inverse_bind_matrix", "count differs from joint_names");
        goto done;
    }
    const json_t *alt = json_object_get(root, "alt_inverse_bind_matrix");
    if (alt && !json_is_null(alt) &&
        (s = json_matrix_list(alt, &out->alt_inverse_bind, &out->alt_count, source, "alt_inverse_bind_matrix", err)))
        goto done;
    if (out->alt_inverse_bind && out->alt_count == 0) {
        /* empty list = absent (the viewer ignores overrides either way); a non-NULL array
         * with alt_count 0 would mean joint_count entries (mesh_asset.h) */
        free(out->alt_inverse_bind);
        out->alt_inverse_bind = NULL;
    }
    const json_t *bsm = json_object_get(root, "bind_shape_matrix");
    out->bind_shape = am_mat4_identity();
    if (bsm && (s = json_matrix(bsm, &out->bind_shape, source, "bind_shape_matrix", err)))
        goto done;
    const json_t *po = json_object_get(root, "pelvis_offset");
    if (json_is_number(po)) {
        out->has_pelvis_offset = true;
        out->pelvis_offset = json_number_value(po);
    }
done:
    json_decref(root);
    if (s)
        am_mesh_skin_free(out);
    return s;
}

/* Hand-formatted so each matrix is one line; %.17g round-trips every double. */
static am_status put_matrix(am_buf *out, const am_mat4 *m, am_error *err)
{
    am_status s = am_buf_printf(out, err, "[");
    for (int i = 0; i < 16 && !s; i++) {
        if (!isfinite(m->m[i]))
            return am_fail(err, AM_ERR_INVALID, "matrix element %d is not finite", i);
        s = am_buf_printf(out, err, "%s%.17g", i ? ", " : "", m->m[i]);
    }
    return s ? s : am_buf_printf(out, err, "]");
}

static am_status put_matrix_list(am_buf *out, const char *key, const am_mat4 *ms, size_t n, am_error *err)
{
    am_status s = am_buf_printf(out, err, ",\n \"%s\": [", key);
    for (size_t i = 0; i < n && !s; i++) {
        if (!(s = am_buf_printf(out, err, "%s\n  ", i ? "," : "")) && (s = put_matrix(out, &ms[i], err)))
            am_error_where(err, "%s[%zu]", key, i);
    }
    return s ? s : am_buf_printf(out, err, "\n ]");
}

am_status am_mesh_skin_json_write(const am_mesh_skin *skin, am_buf *out, am_error *err)
{
    am_status s = am_buf_printf(out, err, "{\n \"joint_names\": [");
    for (size_t i = 0; i < skin->joint_count && !s; i++) {
        json_t *str = json_string(skin->joint_names[i]);
        char *q = str ? json_dumps(str, JSON_ENCODE_ANY) : NULL;
        json_decref(str);
        if (!q)
            return am_fail(err, AM_ERR_INVALID, "joint %zu: name is not valid UTF-8", i);
        s = am_buf_printf(out, err, "%s%s", i ? ", " : "", q);
        free(q);
    }
    if (!s)
        s = am_buf_printf(out, err, "]");
    if (!s)
        s = put_matrix_list(out, "inverse_bind_matrix", skin->inverse_bind, skin->joint_count, err);
    if (!s && skin->alt_inverse_bind)
        s = put_matrix_list(out, "alt_inverse_bind_matrix", skin->alt_inverse_bind,
                            skin->alt_count ? skin->alt_count : skin->joint_count, err);
    if (!s)
        s = am_buf_printf(out, err, ",\n \"bind_shape_matrix\": ");
    if (!s)
        s = put_matrix(out, &skin->bind_shape, err);
    return s ? s : am_buf_printf(out, err, "\n}\n");
}

static am_status sniff_skin_json(const uint8_t *h, size_t n, am_error *err)
{
    return am_sniff_text(h, n, "{", "a skin reference JSON (an object)", err);
}

const am_file_format am_mesh_skin_json_format = {"a skin reference JSON", AM_SKIN_JSON_MAX_FILE_BYTES, sniff_skin_json};

am_status am_mesh_skin_load_any(const char *path, am_mesh_skin *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0, which = 0;
    /* a binary-LLSD header map starts '{' followed by a big-endian count (0x00 ...); JSON
     * follows '{' with whitespace, '"' or '}'; anything else (empty, binary) is neither */
    const am_file_format *formats[2] = {&am_mesh_asset_format, &am_mesh_skin_json_format};
    am_status s = am_read_file_any(path, formats, 2, &which, &data, &size, err);
    if (s)
        return s;
    if (which == 1) {
        s = am_mesh_skin_json_parse((const char *)data, size, path, out, err);
        free(data);
        return s;
    }
    am_mesh_asset a;
    s = am_mesh_asset_decode(data, size, &a, err);
    free(data);
    if (s) {
        am_error_where(err, "%s", path);
        return s;
    }
    if (!a.has_skin) {
        am_mesh_asset_free(&a);
        am_fail(err, AM_ERR_INVALID, "mesh asset has no skin block");
        am_error_where(err, "%s", path);
        return AM_ERR_INVALID;
    }
    *out = a.skin; /* move the skin out, free the rest */
    memset(&a.skin, 0, sizeof a.skin);
    a.has_skin = false;
    am_mesh_asset_free(&a);
    return AM_OK;
}
