/* Rig JSON writer: the schema am_rig_parse_json reads (docs/rig-json.md). Numbers are
 * written in the shortest form that reads back to the same value (F32 or F64). */
#include "skin/rig.h"
#include "core/numfmt.h"
#include "skin/skin_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
        /* one line per vertex, built without printf (a big rig has hundreds of thousands) */
        const float *v8[8] = {&rig->positions[3 * i],     &rig->positions[3 * i + 1], &rig->positions[3 * i + 2],
                              &rig->normals[3 * i],       &rig->normals[3 * i + 1],   &rig->normals[3 * i + 2],
                              &rig->uvs[2 * i],           &rig->uvs[2 * i + 1]};
        char line[8 * 34 + 16], *e = line;
        memcpy(e, "    [", 5);
        e += 5;
        for (int k = 0; k < 8; k++) {
            if (k) {
                memcpy(e, ", ", 2);
                e += 2;
            }
            e += am_fmt_f32(e, *v8[k]);
        }
        memcpy(e, i + 1 < rig->vertex_count ? "],\n" : "]\n", i + 1 < rig->vertex_count ? 3 : 2);
        e += i + 1 < rig->vertex_count ? 3 : 2;
        if ((st = am_buf_append(out, line, (size_t)(e - line), err)))
            return st;
    }
    P("  ],\n  \"triangles\": [\n");
    for (size_t i = 0; i < rig->triangle_count; i++) {
        const uint32_t *t = &rig->triangles[3 * i];
        char line[64], *e = line;
        memcpy(e, "    [", 5);
        e += 5;
        for (int k = 0; k < 3; k++) {
            if (k) {
                memcpy(e, ", ", 2);
                e += 2;
            }
            e += am_fmt_u64(e, t[k]);
        }
        memcpy(e, i + 1 < rig->triangle_count ? "],\n" : "]\n", i + 1 < rig->triangle_count ? 3 : 2);
        e += i + 1 < rig->triangle_count ? 3 : 2;
        if ((st = am_buf_append(out, line, (size_t)(e - line), err)))
            return st;
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
        char line[1024], *e = line;
        memcpy(e, "    [", 5);
        e += 5;
        for (size_t k = rig->weight_start[i]; k < rig->weight_start[i + 1]; k++) {
            if ((size_t)(e - line) > sizeof line - 64) { /* a long list: flush */
                if ((st = am_buf_append(out, line, (size_t)(e - line), err)))
                    return st;
                e = line;
            }
            if (k > rig->weight_start[i]) {
                memcpy(e, ", ", 2);
                e += 2;
            }
            *e++ = '[';
            if (rig->influences[k].joint < 0)
                *e++ = '-'; /* never for a valid rig; written as is */
            e += am_fmt_u64(e, (uint64_t)(rig->influences[k].joint < 0 ? -(int64_t)rig->influences[k].joint
                                                                        : rig->influences[k].joint));
            memcpy(e, ", ", 2);
            e += 2;
            e += am_fmt_f64(e, rig->influences[k].weight);
            *e++ = ']';
        }
        memcpy(e, i + 1 < rig->vertex_count ? "],\n" : "]\n", i + 1 < rig->vertex_count ? 3 : 2);
        e += i + 1 < rig->vertex_count ? 3 : 2;
        if ((st = am_buf_append(out, line, (size_t)(e - line), err)))
            return st;
    }
    char r[32], g[32], b[32];
    P("  ],\n  \"material\": {\"rgb\": [%s, %s, %s], \"textured\": %s}\n}\n", am_skin_fmt(r, rig->rgb[0]),
      am_skin_fmt(g, rig->rgb[1]), am_skin_fmt(b, rig->rgb[2]), rig->textured ? "true" : "false");
#undef P
    return AM_OK;
}

void am_rig_json_job_run(void *job)
{
    am_rig_json_job *j = job;
    am_error_clear(&j->err);
    j->status = am_rig_to_json(j->rig, j->out, &j->err);
}
