/* WorldBridge meshdata JSON (docs/reference/worldbridge.md "The meshdata JSON"). One submesh only:
 * WorldBridge writes vertex weights into submesh 0 only (docs/reference/lessons.md#rule-12).
 * Positions are the bind frame (metres, Z up), not normalised, so bindShape is the
 * identity here (it maps these positions to the bind frame; an explicit skin's positions
 * are in the mesh's space and bindShape is its own); invBind and altInvBind are
 * the skin block's, element order as the mesh asset (LL layout, translation at 12..14). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/textout.h"
#include "skin/skin_build.h"
#include "skin/skin_internal.h"

#define S(s) am_out_str(o, s)

static void put_mat(am_textout *o, const am_mat4 *m)
{
    am_out_char(o, '[');
    for (int i = 0; i < 16; i++) {
        if (i)
            S(", ");
        am_out_f64(o, m->m[i]);
    }
    am_out_char(o, ']');
}

static void put_json_string(am_textout *o, const char *s)
{
    am_out_char(o, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            am_out_char(o, '\\');
            am_out_char(o, (char)*p);
        } else if (*p < 0x20)
            am_out_printf(o, "\\u%04x", *p);
        else
            am_out_char(o, (char)*p);
    }
    am_out_char(o, '"');
}

static void put_f32s(am_textout *o, const float *p, int n)
{
    am_out_char(o, '[');
    for (int k = 0; k < n; k++) {
        if (k)
            S(", ");
        am_out_f32(o, p[k]);
    }
    am_out_char(o, ']');
}

static am_status put_meshdata(const am_skin_result *res, am_textout *o)
{
    const am_skin_summary *sum = &res->summary;
    const am_mesh_skin *skin = &res->asset.skin;
    am_error *err = o->err;
    if (!res->asset.has_skin || res->face_count == 0)
        return am_fail(err, AM_ERR_INVALID, "meshdata: nothing to write (no skin built)");
    if (res->face_count > 1)
        return am_fail(err, AM_ERR_INVALID,
                       "meshdata: the mesh needs %zu faces (%zu vertices, split at %zu per face) but WorldBridge "
                       "writes vertex weights into submesh 0 only: reduce the mesh to one face",
                       res->face_count, sum->vertex_count, sum->face_vertex_limit);
    size_t n = res->vertex_count;
    uint32_t *remap = malloc(n * sizeof *remap), *order = malloc(n * sizeof *order);
    if (!remap || !order) {
        free(remap);
        free(order);
        return am_fail_nomem(err, "meshdata");
    }
    for (size_t i = 0; i < n; i++)
        remap[i] = UINT32_MAX;
    /* vertices the triangles use, in the rig's order (unused ones dropped) */
    for (size_t i = 0; i < 3 * res->triangle_count; i++)
        remap[res->triangles[i]] = 0;
    size_t used = 0;
    for (size_t v = 0; v < n; v++)
        if (remap[v] == 0) {
            remap[v] = (uint32_t)used;
            order[used++] = (uint32_t)v;
        }
    float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    S("{\"version\": 1, \"name\": ");
    put_json_string(o, am_str(&sum->name));
    S(",\n \"submeshes\": [{\n  \"positions\": [");
    for (size_t i = 0; i < used; i++) {
        const float *p = &res->positions[3 * (size_t)order[i]];
        for (int k = 0; k < 3; k++) {
            mn[k] = p[k] < mn[k] ? p[k] : mn[k];
            mx[k] = p[k] > mx[k] ? p[k] : mx[k];
        }
        if (i)
            S(", ");
        put_f32s(o, p, 3);
    }
    S("],\n  \"normals\": [");
    for (size_t i = 0; i < used; i++) {
        if (i)
            S(", ");
        put_f32s(o, &res->normals[3 * (size_t)order[i]], 3);
    }
    S("],\n  \"uvs\": [");
    for (size_t i = 0; i < used; i++) {
        if (i)
            S(", ");
        put_f32s(o, &res->uvs[2 * (size_t)order[i]], 2);
    }
    S("],\n  \"triangles\": [");
    for (size_t t = 0; t < res->triangle_count; t++) {
        const uint32_t *tr = &res->triangles[3 * t];
        S(t ? ", [" : "[");
        am_out_u64(o, remap[tr[0]]);
        S(", ");
        am_out_u64(o, remap[tr[1]]);
        S(", ");
        am_out_u64(o, remap[tr[2]]);
        am_out_char(o, ']');
    }
    S("],\n  \"rgb\": [");
    for (int k = 0; k < 3; k++) {
        if (k)
            S(", ");
        am_out_f64(o, res->rgb[k]);
    }
    S(res->textured ? "], \"textured\": true\n }],\n" : "], \"textured\": false\n }],\n");
    S(" \"skin\": {\n  \"joints\": [");
    for (size_t j = 0; j < skin->joint_count; j++) {
        if (j)
            S(", ");
        put_json_string(o, skin->joint_names[j]);
    }
    S("],\n  \"bindShape\": ");
    put_mat(o, &res->source_bind_shape);
    S(",\n  \"invBind\": [");
    for (size_t j = 0; j < skin->joint_count; j++) {
        if (j)
            S(",\n    ");
        put_mat(o, &skin->inverse_bind[j]);
    }
    S("],\n  \"altInvBind\": [");
    for (size_t j = 0; j < skin->joint_count; j++) {
        if (j)
            S(",\n    ");
        put_mat(o, &skin->alt_inverse_bind[j]);
    }
    S("],\n  \"pelvisOffset\": ");
    am_out_f64(o, skin->has_pelvis_offset ? skin->pelvis_offset : 0);
    S(",\n  \"weights\": [");
    for (size_t i = 0; i < used; i++) {
        uint32_t v = order[i];
        S(i ? ", [" : "[");
        for (int k = 0; k < res->weight_count[v]; k++) {
            S(k ? ", [" : "[");
            am_out_u64(o, res->weight_joint[4 * v + k]);
            S(", ");
            am_out_f64(o, res->weight_value[4 * v + k]);
            am_out_char(o, ']');
        }
        am_out_char(o, ']');
    }
    S("]\n },\n \"extent\": [");
    for (int k = 0; k < 3; k++) {
        if (k)
            S(", ");
        am_out_f32(o, mx[k] - mn[k]);
    }
    S("]\n}\n");
    free(remap);
    free(order);
    return am_textout_finish(o);
}

am_status am_skin_write_meshdata_json(const am_skin_result *res, am_buf *out, am_error *err)
{
    am_textout *o = malloc(sizeof *o);
    if (!o)
        return am_fail_nomem(err, "meshdata");
    am_textout_to_buf(o, out, err);
    am_status st = put_meshdata(res, o);
    free(o);
    return st;
}
