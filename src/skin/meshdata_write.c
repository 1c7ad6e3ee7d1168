/* WorldBridge meshdata JSON (worldbridge.md "The meshdata JSON"). One submesh only:
 * WorldBridge writes vertex weights into submesh 0 only (lessons rule 12).
 * Positions are the bind frame (metres, Z up), not normalised, so bindShape is the
 * identity here (it maps these positions to the bind frame; an explicit skin's positions
 * are in the mesh's space and bindShape is its own); invBind and altInvBind are
 * the skin block's, element order as the mesh asset (LL layout, translation at 12..14). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "skin/skin_build.h"
#include "skin/skin_internal.h"

#define P(...)                                          \
    do {                                                \
        if ((st = am_buf_printf(out, err, __VA_ARGS__))) \
            return st;                                  \
    } while (0)

static am_status put_mat(am_buf *out, const am_mat4 *m, am_error *err)
{
    am_status st;
    char b[32];
    P("[");
    for (int i = 0; i < 16; i++)
        P("%s%s", i ? ", " : "", am_skin_fmt(b, m->m[i]));
    P("]");
    return AM_OK;
}

static am_status put_json_string(am_buf *out, const char *s, am_error *err)
{
    am_status st;
    P("\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            P("\\%c", *p);
        else if (*p < 0x20)
            P("\\u%04x", *p);
        else
            P("%c", *p);
    }
    P("\"");
    return AM_OK;
}

am_status am_write_meshdata_json(const am_skin_result *res, am_buf *out, am_error *err)
{
    am_status st;
    const am_skin_summary *sum = &res->summary;
    const am_skin_info *skin = &res->asset.skin;
    if (!res->asset.has_skin || res->face_count == 0)
        return am_fail(err, AM_ERR_INVALID, "meshdata: nothing to write (no skin built)");
    if (res->face_count > 1)
        return am_fail(err, AM_ERR_INVALID,
                       "meshdata: the mesh needs %zu faces (%zu vertices, split at %zu per face) but WorldBridge "
                       "writes vertex weights into submesh 0 only (lessons rule 12): reduce the mesh to one face",
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
    char a[32], b[32], c[32];
    st = AM_OK;
#undef P
#define P(...)                                                \
    do {                                                      \
        if ((st = am_buf_printf(out, err, __VA_ARGS__)))       \
            goto done;                                        \
    } while (0)
    P("{\"version\": 1, \"name\": ");
    if ((st = put_json_string(out, sum->name, err)))
        goto done;
    P(",\n \"submeshes\": [{\n  \"positions\": [");
    for (size_t i = 0; i < used; i++) {
        const float *p = &res->positions[3 * (size_t)order[i]];
        for (int k = 0; k < 3; k++) {
            mn[k] = p[k] < mn[k] ? p[k] : mn[k];
            mx[k] = p[k] > mx[k] ? p[k] : mx[k];
        }
        P("%s[%s, %s, %s]", i ? ", " : "", am_skin_fmt_f32(a, p[0]), am_skin_fmt_f32(b, p[1]), am_skin_fmt_f32(c, p[2]));
    }
    P("],\n  \"normals\": [");
    for (size_t i = 0; i < used; i++) {
        const float *p = &res->normals[3 * (size_t)order[i]];
        P("%s[%s, %s, %s]", i ? ", " : "", am_skin_fmt_f32(a, p[0]), am_skin_fmt_f32(b, p[1]), am_skin_fmt_f32(c, p[2]));
    }
    P("],\n  \"uvs\": [");
    for (size_t i = 0; i < used; i++) {
        const float *p = &res->uvs[2 * (size_t)order[i]];
        P("%s[%s, %s]", i ? ", " : "", am_skin_fmt_f32(a, p[0]), am_skin_fmt_f32(b, p[1]));
    }
    P("],\n  \"triangles\": [");
    for (size_t t = 0; t < res->triangle_count; t++) {
        const uint32_t *tr = &res->triangles[3 * t];
        P("%s[%u, %u, %u]", t ? ", " : "", remap[tr[0]], remap[tr[1]], remap[tr[2]]);
    }
    P("],\n  \"rgb\": [%s, %s, %s], \"textured\": %s\n }],\n", am_skin_fmt(a, res->rgb[0]), am_skin_fmt(b, res->rgb[1]),
      am_skin_fmt(c, res->rgb[2]), res->textured ? "true" : "false");
    P(" \"skin\": {\n  \"joints\": [");
    for (size_t j = 0; j < skin->joint_count; j++) {
        if (j)
            P(", ");
        if ((st = put_json_string(out, skin->joint_names[j], err)))
            goto done;
    }
    P("],\n  \"bindShape\": ");
    if ((st = put_mat(out, &res->source_bind_shape, err)))
        goto done;
    P(",\n  \"invBind\": [");
    for (size_t j = 0; j < skin->joint_count; j++) {
        P("%s", j ? ",\n    " : "");
        if ((st = put_mat(out, &skin->inverse_bind[j], err)))
            goto done;
    }
    P("],\n  \"altInvBind\": [");
    for (size_t j = 0; j < skin->joint_count; j++) {
        P("%s", j ? ",\n    " : "");
        if ((st = put_mat(out, &skin->alt_inverse_bind[j], err)))
            goto done;
    }
    P("],\n  \"pelvisOffset\": %s,\n  \"weights\": [", am_skin_fmt(a, skin->has_pelvis_offset ? skin->pelvis_offset : 0));
    for (size_t i = 0; i < used; i++) {
        uint32_t v = order[i];
        P("%s[", i ? ", " : "");
        for (int k = 0; k < res->weight_count[v]; k++)
            P("%s[%d, %s]", k ? ", " : "", res->weight_joint[4 * v + k], am_skin_fmt(a, res->weight_value[4 * v + k]));
        P("]");
    }
    P("]\n },\n \"extent\": [%s, %s, %s]\n}\n", am_skin_fmt_f32(a, mx[0] - mn[0]), am_skin_fmt_f32(b, mx[1] - mn[1]),
      am_skin_fmt_f32(c, mx[2] - mn[2]));
done:
    free(remap);
    free(order);
    return st;
}
