/* The preview page (preview.h): the bench's poses and the asset's decoded mesh packed into
 * one zlib stream, a JSON description of it, and the page template around both. */
#include "preview/preview.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "bench/bench.h"
#include "mesh/zblock.h"
#include "skin/skin_cost.h"
#include "texture/texture.h"
#include "core/base64.h"

#define PREVIEW_FPS 30.0
#define SAME_TIME_S 1e-6 /* key times closer than this are one frame */

static const char *const lod_names[AM_LOD_COUNT] = {"lowest", "low", "medium", "high"};

/* The binary blob: sections appended 4-byte aligned; the JSON holds their offsets. */
static am_status put(am_buf *blob, const void *data, size_t n, json_t *obj, const char *key, am_error *err)
{
    static const uint8_t zero[4] = {0};
    am_status s = AM_OK;
    if (blob->size % 4)
        s = am_buf_append(blob, zero, 4 - blob->size % 4, err);
    size_t off = blob->size;
    if (!s && n)
        s = am_buf_append(blob, data, n, err);
    if (!s && json_object_set_new(obj, key, json_integer((json_int_t)off)))
        s = am_fail_nomem(err, "preview JSON");
    return s;
}

/* n integers of `width` bytes (2 or 4) as byte planes (every low byte, then the next ...),
 * optionally as differences from the previous value (wrapping): deflate then sees runs
 * instead of interleaved noise (indices of neighbouring triangles differ little). */
static am_status put_planar(am_buf *blob, const void *values, size_t n, int width, bool delta, json_t *obj,
                            const char *key, am_error *err)
{
    uint8_t *planes = malloc(n * (size_t)width + 1);
    if (!planes)
        return am_fail_nomem(err, "preview data");
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = width == 2 ? ((const uint16_t *)values)[i] : ((const uint32_t *)values)[i];
        uint32_t d = delta ? v - prev : v;
        prev = v;
        for (int k = 0; k < width; k++)
            planes[(size_t)k * n + i] = (uint8_t)(d >> (8 * k));
    }
    am_status s = put(blob, planes, n * (size_t)width, obj, key, err);
    free(planes);
    return s;
}

static json_t *vec3_json(am_vec3 v) { return json_pack("[fff]", v.x, v.y, v.z); }

/* A name from a file (a stem, a title) as a JSON string: bytes that are not UTF-8 become
 * U+FFFD, so the name shows (jansson refuses invalid UTF-8, and the page showed
 * "undefined"). NULL only when out of memory. */
static json_t *text_json(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s);
    char *t = malloc(3 * n + 1);
    if (!t)
        return NULL;
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        const unsigned char *u = (const unsigned char *)s + i;
        size_t len = u[0] < 0x80             ? 1
                     : (u[0] & 0xE0) == 0xC0 ? 2
                     : (u[0] & 0xF0) == 0xE0 ? 3
                     : (u[0] & 0xF8) == 0xF0 ? 4
                                             : 0;
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = (u[k] & 0xC0) == 0x80;
        /* one sequence at a time through jansson's own check (overlong forms, surrogates) */
        json_t *one = ok ? json_stringn((const char *)u, len) : NULL;
        if (one) {
            memcpy(t + w, u, len);
            w += len;
            i += len;
            json_decref(one);
        } else {
            memcpy(t + w, "\xEF\xBF\xBD", 3);
            w += 3;
            i++;
        }
    }
    j = json_stringn(t, w);
    free(t);
    return j;
}

static uint16_t quant_u16(double v, double lo, double step)
{
    double q = step > 0 ? floor((v - lo) / step + 0.5) : 0;
    return (uint16_t)(q < 0 ? 0 : q > 65535 ? 65535 : q);
}

/* The joints the page knows: every skin joint of every part (skeleton indices, in first-seen
 * order), each with its nearest ancestor in the set for the overlay's bones. */
typedef struct joint_set {
    int *skel_index;
    int *slot_of; /* skeleton joint -> slot, -1 */
    size_t count;
} joint_set;

static am_status joint_set_build(const am_bench *parts, size_t np, const am_skeleton *sk, joint_set *js, am_error *err)
{
    js->skel_index = malloc((sk->joint_count ? sk->joint_count : 1) * sizeof *js->skel_index);
    js->slot_of = malloc((sk->joint_count ? sk->joint_count : 1) * sizeof *js->slot_of);
    js->count = 0;
    if (!js->skel_index || !js->slot_of)
        return am_fail_nomem(err, "preview joints");
    for (size_t j = 0; j < sk->joint_count; j++)
        js->slot_of[j] = -1;
    for (size_t p = 0; p < np; p++)
        for (size_t i = 0; i < parts[p].skin_joint_count; i++) {
            int j = parts[p].skin_joint[i];
            if (j >= 0 && js->slot_of[j] < 0) {
                js->slot_of[j] = (int)js->count;
                js->skel_index[js->count++] = j;
            }
        }
    return AM_OK;
}

static void joint_set_free(joint_set *js)
{
    free(js->skel_index);
    free(js->slot_of);
}

/* One LOD of one part: the bench's flattened vertices (bind frame), decoded weights and
 * triangles, quantised. */
static am_status lod_pack(const am_bench *b, size_t est_tris, am_buf *blob, json_t *lods, am_error *err)
{
    size_t n = b->vertex_count, t = b->triangle_count;
    json_t *o = json_object();
    uint16_t *pos = malloc((n ? n : 1) * 3 * sizeof *pos);
    uint16_t *w = malloc((n ? n : 1) * 4 * sizeof *w);
    uint16_t *uv = b->uv ? malloc((n ? n : 1) * 2 * sizeof *uv) : NULL;
    void *tri = malloc((t ? t : 1) * 3 * (n > 65535 ? 4 : 2));
    am_status s = AM_OK;
    if (!o || !pos || !w || !tri || (b->uv && !uv)) {
        s = am_fail_nomem(err, "preview LOD");
        goto done;
    }
    double lo[3] = {b->bind_min.x, b->bind_min.y, b->bind_min.z};
    double hi[3] = {b->bind_max.x, b->bind_max.y, b->bind_max.z};
    double step[3];
    for (int k = 0; k < 3; k++)
        step[k] = (hi[k] - lo[k]) / 65535.0;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            pos[3 * i + k] = quant_u16(b->bind_pos[3 * i + k], lo[k], step[k]);
        for (int k = 0; k < 4; k++)
            w[4 * i + k] = k < b->influences[i] ? quant_u16(b->weights[4 * i + k], 0, 1.0 / 65535.0) : 0;
    }
    double uvlo[2] = {0, 0}, uvstep[2] = {0, 0};
    if (uv) {
        double uvhi[2] = {-INFINITY, -INFINITY};
        uvlo[0] = uvlo[1] = INFINITY;
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 2; k++) {
                double v = b->uv[2 * i + k];
                uvlo[k] = v < uvlo[k] ? v : uvlo[k];
                uvhi[k] = v > uvhi[k] ? v : uvhi[k];
            }
        for (int k = 0; k < 2; k++) {
            if (!(uvhi[k] >= uvlo[k]))
                uvlo[k] = uvhi[k] = 0;
            uvstep[k] = (uvhi[k] - uvlo[k]) / 65535.0;
        }
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 2; k++)
                uv[2 * i + k] = quant_u16(b->uv[2 * i + k], uvlo[k], uvstep[k]);
    }
    for (size_t i = 0; i < 3 * t; i++) {
        if (n > 65535)
            ((uint32_t *)tri)[i] = b->triangles[i];
        else
            ((uint16_t *)tri)[i] = (uint16_t)b->triangles[i];
    }
    json_object_set_new(o, "level", json_string(lod_names[b->lod]));
    json_object_set_new(o, "vertices", json_integer((json_int_t)n));
    json_object_set_new(o, "triangles", json_integer((json_int_t)t));
    json_object_set_new(o, "est_tris", json_integer((json_int_t)est_tris));
    json_object_set_new(o, "pos_min", json_pack("[fff]", lo[0], lo[1], lo[2]));
    json_object_set_new(o, "pos_step", json_pack("[fff]", step[0], step[1], step[2]));
    json_object_set_new(o, "index_bytes", json_integer(n > 65535 ? 4 : 2));
    if ((s = put_planar(blob, pos, 3 * n, 2, false, o, "pos", err)) ||
        (s = put(blob, b->joints, n * 4, o, "joints", err)) || (s = put_planar(blob, w, 4 * n, 2, false, o, "weights", err)) ||
        (s = put_planar(blob, tri, 3 * t, n > 65535 ? 4 : 2, true, o, "tris", err)))
        goto done;
    if (uv) {
        json_object_set_new(o, "uv_min", json_pack("[ff]", uvlo[0], uvlo[1]));
        json_object_set_new(o, "uv_step", json_pack("[ff]", uvstep[0], uvstep[1]));
        if ((s = put_planar(blob, uv, 2 * n, 2, false, o, "uv", err)))
            goto done;
    }
    if (json_array_append(lods, o))
        s = am_fail_nomem(err, "preview JSON");
done:
    json_decref(o);
    free(pos);
    free(w);
    free(uv);
    free(tri);
    return s;
}

/* A line of the page's "reduced to the budget" statement (docs/preview.md "Size budget"). */
static void note(json_t *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(json_t *notes, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    json_array_append_new(notes, text_json(line));
}

/* The texture as the upload gets it: each side the largest power of two at most the side
 * and at most 1024 (am_texture_fit_side, what `import` writes), box-filtered and sent as a
 * PNG; *out stays empty when the image already has those sides. An 8192^2 source is a
 * 1024^2 picture in the page, not 64 times that. */
static am_status texture_as_uploaded(const am_preview_part *pp, am_buf *out, json_t *notes, am_preview_stats *st,
                                     am_error *err)
{
    am_tex_image img = {0}, small = {0};
    am_status s = am_image_decode(pp->texture_image, pp->texture_size, &img, err);
    if (s) {
        am_error_where(err, "the texture of %s", pp->source ? pp->source : pp->name ? pp->name : "the mesh");
        return s;
    }
    uint32_t w = am_texture_fit_side(img.width), h = am_texture_fit_side(img.height);
    if (w != img.width || h != img.height) {
        if (!(s = am_tex_resize_box(&img, w, h, &small, err)) && !(s = am_tex_png_encode(&small, out, err))) {
            note(notes, "texture of %s resized from %ux%u to %ux%u, as the upload is", pp->name ? pp->name : "part",
                 img.width, img.height, w, h);
            st->textures_resized++;
        }
    }
    am_tex_image_free(&img);
    am_tex_image_free(&small);
    return s;
}

/* A part: every LOD present (high first) and its palette C_i = IBM_i * S_j. */
static am_status part_pack(const am_preview_part *pp, am_bench *lods_of_part, int top, const joint_set *js,
                           const am_skeleton *sk, am_buf *blob, json_t *parts, json_t *notes, am_preview_stats *st,
                           am_error *err)
{
    const am_bench *hi = &lods_of_part[top];
    json_t *o = json_object(), *lods = json_array(), *pal = json_array();
    am_status s = AM_OK;
    if (!o || !lods || !pal) {
        json_decref(o), json_decref(lods), json_decref(pal);
        return am_fail_nomem(err, "preview JSON");
    }
    size_t bytes[AM_LOD_COUNT];
    for (int l = 0; l < AM_LOD_COUNT; l++)
        bytes[l] = hi->asset.blocks[l].present ? (size_t)hi->asset.blocks[l].size : 0;
    am_mesh_cost cost;
    am_skin_cost_from_sizes(bytes, &cost);
    for (int l = AM_LOD_HIGH; l >= 0 && !s; l--)
        if (lods_of_part[l].vertex_count)
            s = lod_pack(&lods_of_part[l], (size_t)(cost.est_tris[l] + 0.5), blob, lods, err);
    for (size_t i = 0; i < hi->palette_count && !s; i++) {
        int j = hi->skin_joint[i];
        am_vec3 sc = sk->joints[j].scale;
        double sv[3] = {sc.x, sc.y, sc.z};
        const am_mat4 *ibm = &hi->asset.skin.inverse_bind[i];
        json_t *c = json_array();
        for (int r = 0; r < 4; r++)
            for (int k = 0; k < 3; k++)
                json_array_append_new(c, json_real(ibm->m[4 * r + k] * sv[k]));
        json_array_append_new(pal, json_pack("{s:i,s:o}", "joint", js->slot_of[j], "c", c));
    }
    json_object_set_new(o, "name", text_json(pp->name ? pp->name : "part"));
    json_object_set_new(o, "lods", lods);
    json_object_set_new(o, "palette", pal);
    json_object_set_new(o, "streaming_cost", json_real(cost.streaming_cost));
    json_object_set_new(o, "est_tris_max", json_real(cost.est_tris_max));
    if (!s && pp->texture_image && pp->texture_size) {
        char *b64 = NULL;
        const uint8_t *img = pp->texture_image;
        size_t img_size = pp->texture_size;
        am_buf resized = {0};
        if (!(s = texture_as_uploaded(pp, &resized, notes, st, err)) && resized.size)
            img = resized.data, img_size = resized.size;
        if (!s && !(s = am_base64_encode(img, img_size, &b64, err))) {
            am_buf url = {0};
            bool jpeg = img_size > 2 && img[0] == 0xFF && img[1] == 0xD8;
            if (!(s = am_buf_printf(&url, err, "data:image/%s;base64,%s", jpeg ? "jpeg" : "png", b64)))
                json_object_set_new(o, "texture", json_stringn((const char *)url.data, url.size));
            am_buf_free(&url);
        }
        free(b64);
        am_buf_free(&resized);
    }
    if (!s && json_array_append(parts, o))
        s = am_fail_nomem(err, "preview JSON");
    json_decref(o);
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The frame times of a clip in curve time: its key times and the fps grid, over
 * [0, loop_out] for a looping clip (playback never reaches past it) else [0, duration]. */
static am_status clip_times(const am_bench_motion_info *mi, double fps, double **out, size_t *n, bool *resampled,
                            am_error *err)
{
    double end = mi->loop ? mi->loop_out : mi->duration;
    if (!(end >= 0))
        end = 0;
    size_t grid = (size_t)floor(end * fps + 1e-9) + 2;
    /* the budget: key times join the grid only while they are no more than the grid's own
     * frames (30 per second of clip); a denser clip is resampled on the grid alone */
    *resampled = mi->key_time_count > grid;
    size_t keys = *resampled ? 0 : mi->key_time_count;
    double *t = malloc((grid + keys) * sizeof *t);
    if (!t)
        return am_fail_nomem(err, "preview frames");
    size_t c = 0;
    for (size_t k = 0; k + 1 < grid; k++)
        t[c++] = (double)k / fps;
    t[c++] = end;
    for (size_t k = 0; k < keys; k++)
        if (mi->key_times[k] >= 0 && mi->key_times[k] <= end)
            t[c++] = mi->key_times[k];
    qsort(t, c, sizeof *t, cmp_double);
    size_t w = 0;
    for (size_t i = 0; i < c; i++)
        if (t[i] <= end && (w == 0 || t[i] - t[w - 1] > SAME_TIME_S))
            t[w++] = t[i];
    *out = t;
    *n = w;
    return AM_OK;
}

/* A clip: per frame, each page joint's world rotation and position (bench FK, moved into
 * the bind frame), quantised. */
static am_status clip_pack(const am_bench *b, int motion, const am_preview_clip *pc, const joint_set *js, double fps,
                           am_buf *blob, json_t *clips, json_t *notes, am_preview_stats *st, am_error *err)
{
    am_bench_motion_info mi;
    am_status s = am_bench_motion_get_info(b, (size_t)motion, &mi, err);
    if (s)
        return s;
    am_anim meta;
    if ((s = am_anim_decode(pc->anim, pc->anim_size, &meta, err)))
        return s;
    double *times = NULL;
    size_t nf = 0, nj = b->skel->joint_count, nu = js->count;
    bool resampled = false;
    if ((s = clip_times(&mi, fps, &times, &nf, &resampled, err))) {
        am_anim_free(&meta);
        return s;
    }
    am_bench_local *loc = malloc(nj * sizeof *loc);
    am_vec3 *lpos = malloc(nj * sizeof *lpos), *wpos = malloc(nj * sizeof *wpos);
    am_quat *lrot = malloc(nj * sizeof *lrot), *wrot = malloc(nj * sizeof *wrot);
    size_t cells = nf * nu > 0 ? nf * nu : 1;
    double *raw = malloc(cells * 7 * sizeof *raw);
    int16_t *q = malloc(cells * 4 * sizeof *q);
    uint16_t *p = malloc(cells * 3 * sizeof *p);
    float *tf = malloc((nf ? nf : 1) * sizeof *tf);
    json_t *o = json_object();
    if (!loc || !lpos || !wpos || !lrot || !wrot || !raw || !q || !p || !tf || !o) {
        s = am_fail_nomem(err, "preview frames");
        goto done;
    }
    am_quat to_bind = am_quat_conj(b->root_rot);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t f = 0; f < nf && !s; f++) {
        size_t nl = 0;
        if ((s = am_bench_motion_locals(b, motion, times[f], loc, &nl, err)))
            break;
        memcpy(lpos, b->rest_local_pos, nj * sizeof *lpos);
        memcpy(lrot, b->rest_local_rot, nj * sizeof *lrot);
        for (size_t i = 0; i < nl; i++) {
            if (loc[i].has_rot)
                lrot[loc[i].joint] = loc[i].rot;
            if (loc[i].has_pos)
                lpos[loc[i].joint] = loc[i].pos;
        }
        am_bench_fk(b, lpos, lrot, NULL, wpos, wrot);
        for (size_t u = 0; u < nu; u++) {
            int j = js->skel_index[u];
            am_quat r = am_quat_normalize(am_quat_mul(to_bind, wrot[j]));
            if (r.w < 0)
                r = (am_quat){-r.x, -r.y, -r.z, -r.w};
            am_vec3 x = am_bench_prim_to_bind(b, wpos[j]);
            double *d = raw + 7 * (f * nu + u);
            d[0] = r.x, d[1] = r.y, d[2] = r.z, d[3] = r.w, d[4] = x.x, d[5] = x.y, d[6] = x.z;
            for (int k = 0; k < 3; k++) {
                lo[k] = d[4 + k] < lo[k] ? d[4 + k] : lo[k];
                hi[k] = d[4 + k] > hi[k] ? d[4 + k] : hi[k];
            }
        }
        tf[f] = (float)times[f];
    }
    if (s)
        goto done;
    double step[3];
    for (int k = 0; k < 3; k++) {
        if (!(hi[k] >= lo[k]))
            lo[k] = hi[k] = 0;
        step[k] = (hi[k] - lo[k]) / 65535.0;
    }
    for (size_t i = 0; i < nf * nu; i++) {
        for (int k = 0; k < 4; k++) {
            double v = floor(raw[7 * i + k] * 32767.0 + 0.5);
            q[4 * i + k] = (int16_t)(v < -32767 ? -32767 : v > 32767 ? 32767 : v);
        }
        for (int k = 0; k < 3; k++)
            p[3 * i + k] = quant_u16(raw[7 * i + 4 + k], lo[k], step[k]);
    }
    json_object_set_new(o, "name", text_json(pc->name));
    json_object_set_new(o, "duration", json_real(mi.duration));
    json_object_set_new(o, "loop", json_boolean(mi.loop));
    json_object_set_new(o, "loop_in", json_real(mi.loop_in));
    json_object_set_new(o, "loop_out", json_real(mi.loop_out));
    json_object_set_new(o, "ease_in", json_real(meta.ease_in));
    json_object_set_new(o, "ease_out", json_real(meta.ease_out));
    json_object_set_new(o, "priority", json_integer(mi.priority));
    json_object_set_new(o, "frames", json_integer((json_int_t)nf));
    json_object_set_new(o, "keys", json_integer((json_int_t)mi.key_time_count));
    json_object_set_new(o, "resampled", json_boolean(resampled));
    json_object_set_new(o, "pos_min", json_pack("[fff]", lo[0], lo[1], lo[2]));
    json_object_set_new(o, "pos_step", json_pack("[fff]", step[0], step[1], step[2]));
    if ((s = put(blob, tf, nf * 4, o, "times", err)) || (s = put(blob, q, nf * nu * 8, o, "rot", err)) ||
        (s = put(blob, p, nf * nu * 6, o, "pos", err)))
        goto done;
    if (json_array_append(clips, o))
        s = am_fail_nomem(err, "preview JSON");
    if (st) {
        st->frames += nf;
        st->clip_seconds += mi.loop ? mi.loop_out : mi.duration;
        st->clips_resampled += resampled;
    }
    if (resampled)
        note(notes, "clip %s resampled at %g fps: %zu frames for its %zu key times", pc->name, fps, nf,
             mi.key_time_count);
done:
    json_decref(o);
    am_anim_free(&meta);
    free(times);
    free(loc);
    free(lpos);
    free(wpos);
    free(lrot);
    free(wrot);
    free(raw);
    free(q);
    free(p);
    free(tf);
    return s;
}

/* The rest pose's joint frames (no clip), unquantised, bind frame. */
static am_status rest_json(const am_bench *b, const joint_set *js, json_t *root, am_error *err)
{
    size_t nj = b->skel->joint_count;
    am_vec3 *wpos = malloc(nj * sizeof *wpos);
    am_quat *wrot = malloc(nj * sizeof *wrot);
    json_t *rest = json_array();
    if (!wpos || !wrot || !rest) {
        free(wpos), free(wrot), json_decref(rest);
        return am_fail_nomem(err, "preview rest");
    }
    am_bench_fk(b, b->rest_local_pos, b->rest_local_rot, NULL, wpos, wrot);
    am_quat to_bind = am_quat_conj(b->root_rot);
    for (size_t u = 0; u < js->count; u++) {
        int j = js->skel_index[u];
        am_quat r = am_quat_normalize(am_quat_mul(to_bind, wrot[j]));
        am_vec3 x = am_bench_prim_to_bind(b, wpos[j]);
        json_array_append_new(rest, json_pack("{s:[ffff],s:[fff]}", "q", r.x, r.y, r.z, r.w, "p", x.x, x.y, x.z));
    }
    json_object_set_new(root, "rest", rest);
    free(wpos);
    free(wrot);
    return AM_OK;
}

/* The JSON as text that no HTML tokenizer can read out of a <script> element: '<', '>'
 * and '&' as \u003c, \u003e, \u0026 (they occur only inside strings, where JSON.parse
 * reads the escapes back), '/' as "\/" (JSON_ESCAPE_SLASH). malloc'd; NULL: no memory. */
static char *json_for_html(const json_t *root)
{
    char *json = json_dumps(root, JSON_COMPACT | JSON_ESCAPE_SLASH | JSON_REAL_PRECISION(9));
    if (!json)
        return NULL;
    size_t n = 0, extra = 0;
    for (; json[n]; n++)
        extra += json[n] == '<' || json[n] == '>' || json[n] == '&' ? 5 : 0;
    if (!extra)
        return json;
    char *out = malloc(n + extra + 1);
    if (out) {
        char *w = out;
        for (const char *c = json; *c; c++) {
            if (*c == '<' || *c == '>' || *c == '&')
                w += sprintf(w, "\\u%04x", (unsigned)*c);
            else
                *w++ = *c;
        }
        *w = '\0';
    }
    free(json);
    return out;
}

/* The page: the template with the data scripts in place of its marker. */
static am_status assemble(const char *json, const char *b64, am_buf *out, am_error *err)
{
    static const char marker[] = "<!--ANIMESH_DATA-->";
    const char *at = strstr(am_preview_page_template, marker);
    if (!at)
        return am_fail(err, AM_ERR_INVALID, "preview: the page template has no data marker");
    am_status s = am_buf_append(out, am_preview_page_template, (size_t)(at - am_preview_page_template), err);
    if (!s)
        s = am_buf_printf(out, err, "<script id=\"animesh-data\" type=\"application/json\">%s</script>\n", json);
    if (!s)
        s = am_buf_printf(out, err, "<script id=\"animesh-blob\" type=\"application/octet-stream\">%s</script>", b64);
    if (!s)
        s = am_buf_append(out, at + strlen(marker), strlen(at + strlen(marker)), err);
    return s;
}

am_status am_preview_write(const am_preview_input *in, am_buf *out, am_preview_stats *stats, am_error *err)
{
    if (!in || !in->parts || !in->part_count || !in->skel)
        return am_fail(err, AM_ERR_USAGE, "preview: at least one mesh asset and the viewer skeleton are needed");
    if (in->clip_count && !in->clips)
        return am_fail(err, AM_ERR_USAGE, "preview: clips announced but not given");
    double fps = in->fps > 0 ? in->fps : PREVIEW_FPS;
    am_preview_stats st;
    memset(&st, 0, sizeof st);
    size_t np = in->part_count;
    am_bench *benches = calloc(np * AM_LOD_COUNT, sizeof *benches);
    am_bench *hi = calloc(np, sizeof *hi);
    int *top_lod = calloc(np, sizeof *top_lod);
    joint_set js = {0};
    am_buf blob = {0}, packed = {0};
    char *b64 = NULL, *json = NULL;
    json_t *root = json_object(), *parts = json_array(), *clips = json_array(), *joints = json_array();
    json_t *notes = json_array();
    am_status s = AM_OK;
    if (!benches || !hi || !top_lod || !root || !parts || !clips || !joints || !notes) {
        s = am_fail_nomem(err, "preview");
        goto done;
    }
    for (size_t p = 0; p < np && !s; p++) {
        const am_preview_part *pp = &in->parts[p];
        const char *src = pp->source ? pp->source : pp->name ? pp->name : "mesh";
        am_mesh_asset head;
        memset(&head, 0, sizeof head);
        s = am_mesh_asset_decode_header(pp->mesh, pp->mesh_size, &head, err);
        int top = -1;
        for (int l = AM_LOD_HIGH; l >= 0 && !s; l--) {
            if (!head.blocks[l].present || head.blocks[l].size <= 0)
                continue; /* a LOD the asset does not hold */
            am_bench_options bo = {AM_BENCH_LOD(l)};
            s = am_bench_load_mem(pp->mesh, pp->mesh_size, src, in->skel, &bo, &benches[p * AM_LOD_COUNT + l], err);
            if (top < 0)
                top = l;
        }
        am_mesh_asset_free(&head);
        if (s && !strstr(err->where, src))
            am_error_where(err, "%s", src);
        if (!s && (top < 0 || benches[p * AM_LOD_COUNT + top].vertex_count == 0))
            s = am_fail_where(err, AM_ERR_INVALID, src, "preview: the mesh asset has no LOD with vertices to draw");
        if (!s) {
            top_lod[p] = top;
            st.high_triangles += benches[p * AM_LOD_COUNT + top].triangle_count;
        }
    }
    if (s)
        goto done;
    for (size_t p = 0; p < np; p++)
        hi[p] = benches[p * AM_LOD_COUNT + top_lod[p]];
    if ((s = joint_set_build(hi, np, in->skel, &js, err)))
        goto done;
    /* motions on the first part's bench: every part shares the skeleton and its overrides
     * come from its own skin, so each part's palette uses the same joint frames only when
     * their overrides agree; the page is for one creature built by one skin build. */
    am_bench *b0 = &benches[top_lod[0]];
    /* the budget (preview.h): clips in order while they fit, the rest left out and said so */
    size_t motions = 0, left_out = 0;
    double seconds = 0;
    for (size_t c = 0; c < in->clip_count && !s; c++) {
        const char *src = in->clips[c].source ? in->clips[c].source : in->clips[c].name;
        am_anim head;
        if ((s = am_anim_decode(in->clips[c].anim, in->clips[c].anim_size, &head, err))) {
            if (!strstr(err->where, src))
                am_error_where(err, "%s", src);
            break;
        }
        double length = head.loop ? head.loop_out : head.duration;
        am_anim_free(&head);
        if (motions >= AM_PREVIEW_MAX_CLIPS || seconds + length > AM_PREVIEW_MAX_CLIP_SECONDS) {
            left_out++;
            continue;
        }
        seconds += length;
        s = am_bench_add_anim_mem(b0, in->clips[c].anim, in->clips[c].anim_size, src, err);
        if (!s)
            s = clip_pack(b0, (int)motions++, &in->clips[c], &js, fps, &blob, clips, notes, &st, err);
    }
    if (left_out) {
        note(notes, "%zu of %zu clips left out: a page holds at most %d clips and %g s of clip", left_out,
             in->clip_count, AM_PREVIEW_MAX_CLIPS, AM_PREVIEW_MAX_CLIP_SECONDS);
        st.clips_left_out = left_out;
    }
    for (size_t p = 0; p < np && !s; p++)
        s = part_pack(&in->parts[p], &benches[p * AM_LOD_COUNT], top_lod[p], &js, in->skel, &blob, parts, notes, &st,
                      err);
    for (size_t u = 0; u < js.count && !s; u++) {
        int j = js.skel_index[u], a = in->skel->joints[j].parent;
        while (a >= 0 && js.slot_of[a] < 0)
            a = in->skel->joints[a].parent;
        json_array_append_new(joints, json_pack("{s:s,s:i}", "name", in->skel->joints[j].name, "parent",
                                                a >= 0 ? js.slot_of[a] : -1));
    }
    if (!s)
        s = rest_json(b0, &js, root, err);
    if (s)
        goto done;
    if ((s = am_zblock_deflate(blob.data, blob.size, &packed, err)) ||
        (s = am_base64_encode(packed.data, packed.size, &b64, err)))
        goto done;
    json_object_set_new(root, "format", json_string("animesh-preview 1"));
    json_object_set_new(root, "title", text_json(in->title ? in->title : in->parts[0].name ? in->parts[0].name : "creature"));
    json_object_set_new(root, "blob_bytes", json_integer((json_int_t)blob.size));
    am_vec3 lo = b0->bind_min, hi_box = b0->bind_max; /* every part: the creature's box */
    for (size_t p = 1; p < np; p++) {
        lo = (am_vec3){fmin(lo.x, hi[p].bind_min.x), fmin(lo.y, hi[p].bind_min.y), fmin(lo.z, hi[p].bind_min.z)};
        hi_box = (am_vec3){fmax(hi_box.x, hi[p].bind_max.x), fmax(hi_box.y, hi[p].bind_max.y),
                           fmax(hi_box.z, hi[p].bind_max.z)};
    }
    json_object_set_new(root, "height", json_real(hi_box.z - lo.z));
    json_object_set_new(root, "bind_min", vec3_json(lo));
    json_object_set_new(root, "bind_max", vec3_json(hi_box));
    json_object_set_new(root, "root", vec3_json(am_bench_prim_to_bind(b0, am_v3(0, 0, 0))));
    json_object_set_new(root, "joints", joints);
    json_object_set_new(root, "parts", parts);
    json_object_set_new(root, "clips", clips);
    json_object_set_new(root, "reduced", notes);
    joints = parts = clips = notes = NULL;
    /* no text can leave its element: '/', '<', '>' and '&' only ever stand inside JSON
     * strings, and there they are escapes (no "</script>", no "<!--" that would put the
     * tokenizer into its escaped states and swallow the page's own code) */
    json = json_for_html(root);
    if (!json) {
        s = am_fail_nomem(err, "preview JSON");
        goto done;
    }
    size_t before = out->size;
    if ((s = assemble(json, b64, out, err)))
        goto done;
    st.page_bytes = out->size - before;
    st.data_bytes = blob.size;
    st.packed_bytes = packed.size;
    if (stats)
        *stats = st;
done:
    for (size_t i = 0; benches && i < np * AM_LOD_COUNT; i++)
        am_bench_free(&benches[i]);
    free(benches);
    free(hi);
    free(top_lod);
    joint_set_free(&js);
    am_buf_free(&blob);
    am_buf_free(&packed);
    free(b64);
    free(json);
    json_decref(root);
    json_decref(parts);
    json_decref(clips);
    json_decref(joints);
    json_decref(notes);
    return s;
}
