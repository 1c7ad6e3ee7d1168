/* glTF accessors (glTF 2.0 3.6, 3.11): typed elements out of bufferViews, normalisation,
 * strides, matrix column padding and sparse substitution, every read bounds-checked
 * before it happens. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "readers/gltf/gltf_internal.h"

typedef struct elem_type {
    const char *name;
    unsigned mask;
    size_t cols, rows; /* vectors and scalars: one column */
} elem_type;

static const elem_type elem_types[] = {
    {"SCALAR", GLTF_SCALAR, 1, 1}, {"VEC2", GLTF_VEC2, 1, 2}, {"VEC3", GLTF_VEC3, 1, 3}, {"VEC4", GLTF_VEC4, 1, 4},
    {"MAT2", GLTF_MAT2, 2, 2},     {"MAT3", GLTF_MAT3, 3, 3}, {"MAT4", GLTF_MAT4, 4, 4},
};

static size_t component_size(int type)
{
    switch (type) {
    case GLTF_BYTE:
    case GLTF_UNSIGNED_BYTE: return 1;
    case GLTF_SHORT:
    case GLTF_UNSIGNED_SHORT: return 2;
    case GLTF_UNSIGNED_INT:
    case GLTF_FLOAT: return 4;
    default: return 0;
    }
}

static const char *component_name(int type)
{
    switch (type) {
    case GLTF_BYTE: return "BYTE";
    case GLTF_UNSIGNED_BYTE: return "UNSIGNED_BYTE";
    case GLTF_SHORT: return "SHORT";
    case GLTF_UNSIGNED_SHORT: return "UNSIGNED_SHORT";
    case GLTF_UNSIGNED_INT: return "UNSIGNED_INT";
    case GLTF_FLOAT: return "FLOAT";
    default: return "?";
    }
}

/* Little-endian loads (core/bytes.h), whatever the host. */
static uint32_t load_uint(const uint8_t *p, int type)
{
    switch (type) {
    case GLTF_UNSIGNED_BYTE: return p[0];
    case GLTF_UNSIGNED_SHORT: return am_le_u16(p);
    default: return am_le_u32(p);
    }
}

/* One component as a number, with glTF's normalisation (3.11) when asked. */
static double load_number(const uint8_t *p, int type, bool normalized)
{
    switch (type) {
    case GLTF_BYTE: {
        double v = (int8_t)p[0];
        return normalized ? fmax(v / 127.0, -1.0) : v;
    }
    case GLTF_UNSIGNED_BYTE: return normalized ? p[0] / 255.0 : p[0];
    case GLTF_SHORT: {
        double v = (int16_t)am_le_u16(p);
        return normalized ? fmax(v / 32767.0, -1.0) : v;
    }
    case GLTF_UNSIGNED_SHORT: {
        double v = am_le_u16(p);
        return normalized ? v / 65535.0 : v;
    }
    case GLTF_UNSIGNED_INT: return am_le_u32(p);
    default: return am_le_f32(p);
    }
}

/* Where each component of an element starts, relative to the element: matrix columns
 * start on 4-byte boundaries (3.6.2.4), so MAT2/MAT3 of 1- or 2-byte components have
 * padding. Returns the element's size. */
static size_t element_layout(const elem_type *t, size_t csize, size_t *offsets)
{
    size_t col_bytes = t->rows * csize;
    if (t->cols > 1)
        col_bytes = (col_bytes + 3) & ~(size_t)3;
    for (size_t col = 0; col < t->cols; col++)
        for (size_t row = 0; row < t->rows; row++)
            offsets[col * t->rows + row] = col * col_bytes + row * csize;
    return t->cols * col_bytes;
}

typedef struct decode_job {
    bool as_float;
    float *f;
    uint32_t *u;
} decode_job;

static void store(decode_job *job, size_t at, const uint8_t *p, const am_gltf_accessor *a)
{
    if (job->as_float)
        job->f[at] = (float)load_number(p, a->component_type, a->normalized);
    else
        job->u[at] = load_uint(p, a->component_type);
}

/* Sparse substitution (3.6.2.3): `count` indices into the accessor, each replaced by the
 * next tightly packed element of the values view. */
static am_status apply_sparse(am_gltf_ctx *c, json_t *sparse, const char *where, const am_gltf_accessor *a,
                              const size_t *offsets, size_t elem_size, decode_job *job)
{
    char w[96];
    snprintf(w, sizeof w, "%s.sparse", where);
    size_t count;
    am_status st = am_gltf_get_size(c, sparse, "count", 0, a->count, w, &count);
    if (st)
        return st;
    if (count == 0)
        return am_gltf_fail(c, "%s: count is missing or 0", w);
    json_t *ji = json_object_get(sparse, "indices"), *jv = json_object_get(sparse, "values");
    if (!json_is_object(ji) || !json_is_object(jv))
        return am_gltf_fail(c, "%s: 'indices' and 'values' are required objects", w);
    int iview, vview;
    size_t ioff, voff, istride, vstride, isize, vsize;
    const uint8_t *idata, *vdata;
    size_t views = am_gltf_count(c, "bufferViews");
    char wi[112], wv[112];
    snprintf(wi, sizeof wi, "%s.indices", w);
    snprintf(wv, sizeof wv, "%s.values", w);
    if ((st = am_gltf_get_index(c, ji, "bufferView", views, "bufferViews", true, wi, &iview)) ||
        (st = am_gltf_get_index(c, jv, "bufferView", views, "bufferViews", true, wv, &vview)) ||
        (st = am_gltf_get_size(c, ji, "byteOffset", 0, SIZE_MAX / 4, wi, &ioff)) ||
        (st = am_gltf_get_size(c, jv, "byteOffset", 0, SIZE_MAX / 4, wv, &voff)) ||
        (st = am_gltf_view_bytes(c, (size_t)iview, wi, &idata, &isize, &istride)) ||
        (st = am_gltf_view_bytes(c, (size_t)vview, wv, &vdata, &vsize, &vstride)))
        return st;
    json_t *jt = json_object_get(ji, "componentType");
    int itype = json_is_integer(jt) ? (int)json_integer_value(jt) : 0;
    if (itype != GLTF_UNSIGNED_BYTE && itype != GLTF_UNSIGNED_SHORT && itype != GLTF_UNSIGNED_INT)
        return am_gltf_fail(c, "%s.componentType: must be UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT", wi);
    size_t icsize = component_size(itype);
    if (ioff > isize || count > (isize - ioff) / icsize)
        return am_gltf_fail(c, "%s: byteOffset %zu + %zu indices x %zu bytes is past the end of bufferViews[%d] (%zu bytes)",
                         wi, ioff, count, icsize, iview, isize);
    if (voff > vsize || count > (vsize - voff) / elem_size)
        return am_gltf_fail(c, "%s: byteOffset %zu + %zu values x %zu bytes is past the end of bufferViews[%d] (%zu bytes)",
                         wv, voff, count, elem_size, vview, vsize);
    for (size_t k = 0; k < count; k++) {
        uint32_t target = load_uint(idata + ioff + k * icsize, itype);
        if (target >= a->count)
            return am_gltf_fail(c, "%s: index %u (entry %zu) is out of range: the accessor has %zu elements", wi, target,
                             k, a->count);
        const uint8_t *src = vdata + voff + k * elem_size;
        for (size_t j = 0; j < a->comps; j++)
            store(job, (size_t)target * a->comps + j, src + offsets[j], a);
    }
    return AM_OK;
}

static am_status decode(am_gltf_ctx *c, size_t index, const char *what, unsigned types, unsigned comp_types,
                        am_gltf_accessor *a, decode_job *job)
{
    memset(a, 0, sizeof *a);
    char where[96];
    snprintf(where, sizeof where, "accessors[%zu] (%s)", index, what);
    json_t *obj = json_array_get(am_gltf_array(c, "accessors"), index);
    if (!json_is_object(obj))
        return am_gltf_fail(c, "%s: not an accessor object", where);
    json_t *jc = json_object_get(obj, "componentType");
    a->component_type = json_is_integer(jc) ? (int)json_integer_value(jc) : 0;
    size_t csize = component_size(a->component_type);
    if (!csize)
        return am_gltf_fail(c, "%s: componentType is missing or not a glTF component type", where);
    const char *type_name = am_gltf_get_string(obj, "type");
    const elem_type *t = NULL;
    for (size_t i = 0; i < sizeof elem_types / sizeof elem_types[0]; i++)
        if (strcmp(type_name, elem_types[i].name) == 0)
            t = &elem_types[i];
    if (!t)
        return am_gltf_fail(c, "%s: type '%s' is not SCALAR, VECn or MATn", where, type_name);
    json_t *jn = json_object_get(obj, "normalized");
    if (jn && !json_is_boolean(jn))
        return am_gltf_fail(c, "%s: normalized is not a boolean", where);
    a->normalized = json_is_true(jn);
    if (a->normalized && (a->component_type == GLTF_FLOAT || a->component_type == GLTF_UNSIGNED_INT))
        return am_gltf_fail(c, "%s: normalized is only for BYTE/SHORT components, not %s", where,
                         component_name(a->component_type));
    if (!(t->mask & types) || !(GLTF_C(a->component_type) & comp_types) || (!job->as_float && a->normalized))
        return am_gltf_fail(c, "%s: %s%s of %s is not accepted here", where, a->normalized ? "normalized " : "", t->name,
                         component_name(a->component_type));
    a->comps = t->cols * t->rows;
    am_status st = am_gltf_get_size(c, obj, "count", 0, AM_GLTF_MAX_ACCESSOR_COUNT, where, &a->count);
    if (st)
        return st;
    if (a->count == 0)
        return am_gltf_fail(c, "%s: count is missing or 0", where);
    size_t total = a->count * a->comps;
    if (total > AM_GLTF_MAX_DECODED_COMPONENTS - c->decoded_components)
        return am_gltf_fail(c, "%s: decoding it would exceed the limit of %zu values decoded per file", where,
                         AM_GLTF_MAX_DECODED_COMPONENTS);
    c->decoded_components += total;
    size_t offsets[16];
    size_t elem_size = element_layout(t, csize, offsets);
    int view;
    size_t offset;
    if ((st = am_gltf_get_index(c, obj, "bufferView", am_gltf_count(c, "bufferViews"), "bufferViews", false, where, &view)) ||
        (st = am_gltf_get_size(c, obj, "byteOffset", 0, SIZE_MAX / 4, where, &offset)))
        return st;
    /* calloc: an accessor without a bufferView is zeros (then sparse values, if any). */
    void *mem = calloc(total, job->as_float ? sizeof(float) : sizeof(uint32_t));
    if (!mem)
        return am_fail_nomem(c->err, where);
    if (job->as_float)
        job->f = mem;
    else
        job->u = mem;
    if (view >= 0) {
        const uint8_t *data;
        size_t size, stride;
        if ((st = am_gltf_view_bytes(c, (size_t)view, where, &data, &size, &stride)))
            goto fail;
        if (stride == 0)
            stride = elem_size;
        if (stride < elem_size) {
            st = am_gltf_fail(c, "%s: bufferViews[%d].byteStride %zu is smaller than the %zu-byte element", where, view,
                           stride, elem_size);
            goto fail;
        }
        /* byteOffset + stride * (count - 1) + element size <= byteLength */
        if (offset > size || (a->count - 1) > (size - offset) / stride ||
            elem_size > size - offset - stride * (a->count - 1)) {
            st = am_gltf_fail(c,
                           "%s: byteOffset %zu + byteStride %zu x (count %zu - 1) + element %zu bytes is past the end "
                           "of bufferViews[%d] (%zu bytes)",
                           where, offset, stride, a->count, elem_size, view, size);
            goto fail;
        }
        for (size_t i = 0; i < a->count; i++) {
            const uint8_t *e = data + offset + i * stride;
            for (size_t j = 0; j < a->comps; j++)
                store(job, i * a->comps + j, e + offsets[j], a);
        }
    } else if (json_object_get(obj, "byteOffset") && offset) {
        st = am_gltf_fail(c, "%s: byteOffset without a bufferView", where);
        goto fail;
    }
    json_t *sparse = json_object_get(obj, "sparse");
    if (sparse) {
        if (!json_is_object(sparse)) {
            st = am_gltf_fail(c, "%s: sparse is not an object", where);
            goto fail;
        }
        if ((st = apply_sparse(c, sparse, where, a, offsets, elem_size, job)))
            goto fail;
    }
    return AM_OK;
fail:
    free(mem);
    job->f = NULL;
    job->u = NULL;
    return st;
}

am_status am_gltf_read_floats(am_gltf_ctx *c, size_t index, const char *what, unsigned types, unsigned comp_types,
                           am_gltf_accessor *info, float **out)
{
    decode_job job = {true, NULL, NULL};
    am_status st = decode(c, index, what, types, comp_types, info, &job);
    *out = job.f;
    return st;
}

am_status am_gltf_read_uints(am_gltf_ctx *c, size_t index, const char *what, unsigned types, unsigned comp_types,
                          am_gltf_accessor *info, uint32_t **out)
{
    decode_job job = {false, NULL, NULL};
    am_status st = decode(c, index, what, types, comp_types & GLTF_C_UINTS, info, &job);
    *out = job.u;
    return st;
}

am_status am_gltf_accessor_count(am_gltf_ctx *c, size_t index, const char *what, size_t *count)
{
    json_t *obj = json_array_get(am_gltf_array(c, "accessors"), index);
    char where[96];
    snprintf(where, sizeof where, "accessors[%zu] (%s)", index, what);
    if (!json_is_object(obj))
        return am_gltf_fail(c, "%s: not an accessor object", where);
    am_status st = am_gltf_get_size(c, obj, "count", 0, AM_GLTF_MAX_ACCESSOR_COUNT, where, count);
    if (!st && *count == 0)
        st = am_gltf_fail(c, "%s: count is missing or 0", where);
    return st;
}
