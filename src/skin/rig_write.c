/* Rig JSON writer: the schema am_rig_parse_json reads (README "Rig JSON"). Numbers are
 * written in the shortest form that reads back to the same value (F32 or F64). */
#include "skin/rig.h"
#include "skin/skin_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>


static am_status json_string(am_buf *out, const char *s, am_error *err)
{
    if (am_buf_append(out, "\"", 1, err))
        return AM_ERR_NOMEM;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        am_status st;
        if (c == '"' || c == '\\')
            st = am_buf_printf(out, err, "\\%c", c);
        else if (c < 0x20)
            st = am_buf_printf(out, err, "\\u%04x", c);
        else
            st = am_buf_append(out, p, 1, err);
        if (st)
            return st;
    }
    return am_buf_append(out, "\"", 1, err);
}

/* [a, b, c, ...] in the shortest text that reads back to the same double. */
static am_status put_numbers(am_buf *out, const double *v, size_t n, am_error *err)
{
    am_status st;
    char b[32];
    for (size_t i = 0; i < n; i++)
        if ((st = am_buf_printf(out, err, "%s%s", i ? ", " : "[", am_skin_fmt(b, v[i]))))
            return st;
    return am_buf_append(out, "]", 1, err);
}

am_status am_rig_to_json(const am_rig *rig, am_buf *out, am_error *err)
{
    am_status st;
#define P(...)                                          \
    do {                                                \
        if ((st = am_buf_printf(out, err, __VA_ARGS__))) \
            return st;                                  \
    } while (0)
    P("{\n  \"name\": ");
    if ((st = json_string(out, rig->name ? rig->name : "rig", err)))
        return st;
    if (rig->explicit_skin) {
        P(",\n  \"skin\": {\"bind_shape\": ");
        if ((st = put_numbers(out, rig->bind_shape.m, 16, err)))
            return st;
        P(", \"joint_positions\": %s}", rig->has_joint_positions ? "true" : "false");
    }
    P(",\n  \"joints\": [\n");
    for (size_t i = 0; i < rig->joint_count; i++) {
        const am_rig_joint *j = &rig->joints[i];
        P("    {\"name\": ");
        if ((st = json_string(out, j->name, err)))
            return st;
        double w[3] = {j->world.x, j->world.y, j->world.z}, p[3] = {j->position.x, j->position.y, j->position.z};
        P(", \"world\": ");
        if ((st = put_numbers(out, w, 3, err)))
            return st;
        if (rig->explicit_skin) {
            P(", \"inverse_bind\": ");
            if ((st = put_numbers(out, j->inverse_bind.m, 16, err)))
                return st;
            if (rig->has_joint_positions) {
                P(", \"position\": ");
                if ((st = put_numbers(out, p, 3, err)))
                    return st;
            }
        }
        P("}%s\n", i + 1 < rig->joint_count ? "," : "");
    }
    P("  ],\n  \"vertices\": [\n");
    for (size_t i = 0; i < rig->vertex_count; i++) {
        const float *p = &rig->positions[3 * i], *n = &rig->normals[3 * i], *t = &rig->uvs[2 * i];
        char f[8][32];
        P("    [%s, %s, %s, %s, %s, %s, %s, %s]%s\n", am_skin_fmt_f32(f[0], p[0]), am_skin_fmt_f32(f[1], p[1]),
          am_skin_fmt_f32(f[2], p[2]), am_skin_fmt_f32(f[3], n[0]), am_skin_fmt_f32(f[4], n[1]),
          am_skin_fmt_f32(f[5], n[2]), am_skin_fmt_f32(f[6], t[0]), am_skin_fmt_f32(f[7], t[1]),
          i + 1 < rig->vertex_count ? "," : "");
    }
    P("  ],\n  \"triangles\": [\n");
    for (size_t i = 0; i < rig->triangle_count; i++) {
        const uint32_t *t = &rig->triangles[3 * i];
        P("    [%u, %u, %u]%s\n", t[0], t[1], t[2], i + 1 < rig->triangle_count ? "," : "");
    }
    if (rig->face_count) {
        P("  ],\n  \"faces\": [");
        for (size_t f = 0; f < rig->face_count; f++)
            P("%s%zu", f ? ", " : "", rig->face_start[f + 1] - rig->face_start[f]);
        P("],\n  \"weights\": [\n");
    } else {
        P("  ],\n  \"weights\": [\n");
    }
    for (size_t i = 0; i < rig->vertex_count; i++) {
        P("    [");
        for (size_t k = rig->weight_start[i]; k < rig->weight_start[i + 1]; k++) {
            char a[32];
            P("%s[%d, %s]", k > rig->weight_start[i] ? ", " : "", rig->influences[k].joint,
              am_skin_fmt(a, rig->influences[k].weight));
        }
        P("]%s\n", i + 1 < rig->vertex_count ? "," : "");
    }
    char r[32], g[32], b[32];
    P("  ],\n  \"material\": {\"rgb\": [%s, %s, %s], \"textured\": %s}\n}\n", am_skin_fmt(r, rig->rgb[0]),
      am_skin_fmt(g, rig->rgb[1]), am_skin_fmt(b, rig->rgb[2]), rig->textured ? "true" : "false");
#undef P
    return AM_OK;
}
