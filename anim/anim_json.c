/* .anim <-> JSON in one schema (documented in anim.h). Floats are written with 9
 * significant digits, which round-trips every single-precision value exactly, so
 * `decode --json | encode` reproduces the file byte for byte. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "core/json_text.h"

static json_t *farr(const float *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static void hex(char *out, const uint8_t *b, size_t n)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[b[i] >> 4];
        out[2 * i + 1] = d[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static json_t *key_json(double t, const double *v, int nv, uint16_t tc, uint16_t xc, uint16_t yc, uint16_t zc,
                        const char *vname)
{
    json_t *k = json_object();
    json_object_set_new(k, "t", json_real((float)t));
    json_t *va = json_array();
    for (int i = 0; i < nv; i++)
        json_array_append_new(va, json_real((float)v[i]));
    json_object_set_new(k, vname, va);
    json_object_set_new(k, "code", json_pack("[iiii]", tc, xc, yc, zc));
    return k;
}

am_status am_anim_to_json(const am_anim *a, am_buf *out, am_error *err)
{
    json_t *root = json_object();
    if (!root)
        return am_fail_nomem(err, "json");
    json_object_set_new(root, "format", json_string("animesh-anim-json-1"));
    json_object_set_new(root, "version", json_integer(a->version));
    json_object_set_new(root, "sub_version", json_integer(a->sub_version));
    json_object_set_new(root, "base_priority", json_integer(a->base_priority));
    json_object_set_new(root, "duration", json_real(a->duration));
    json_object_set_new(root, "emote", json_string(a->emote_name ? a->emote_name : ""));
    json_object_set_new(root, "loop", json_integer(a->loop));
    json_object_set_new(root, "loop_in", json_real(a->loop_in));
    json_object_set_new(root, "loop_out", json_real(a->loop_out));
    json_object_set_new(root, "ease_in", json_real(a->ease_in));
    json_object_set_new(root, "ease_out", json_real(a->ease_out));
    json_object_set_new(root, "hand_pose", json_integer(a->hand_pose));
    json_t *joints = json_array();
    for (size_t j = 0; j < a->joint_count; j++) {
        const am_anim_joint *jt = &a->joints[j];
        json_t *jo = json_object();
        json_object_set_new(jo, "name", json_string(jt->name));
        json_object_set_new(jo, "priority", json_integer(jt->priority));
        json_t *rk = json_array();
        for (size_t k = 0; k < jt->rot_count; k++) {
            const am_anim_rot_key *key = &jt->rot_keys[k];
            double v[4] = {key->rot.x, key->rot.y, key->rot.z, key->rot.w};
            json_array_append_new(rk, key_json(key->time, v, 4, key->time_code, key->x_code, key->y_code, key->z_code, "rot"));
        }
        json_object_set_new(jo, "rot_keys", rk);
        json_t *pk = json_array();
        for (size_t k = 0; k < jt->pos_count; k++) {
            const am_anim_pos_key *key = &jt->pos_keys[k];
            double v[3] = {key->pos.x, key->pos.y, key->pos.z};
            json_array_append_new(pk, key_json(key->time, v, 3, key->time_code, key->x_code, key->y_code, key->z_code, "pos"));
        }
        json_object_set_new(jo, "pos_keys", pk);
        json_array_append_new(joints, jo);
    }
    json_object_set_new(root, "joints", joints);
    json_object_set_new(root, "num_constraints",
                        json_integer(a->constraint_count ? (json_int_t)a->constraint_count : a->constraint_count_raw));
    json_t *cons = json_array();
    for (size_t c = 0; c < a->constraint_count; c++) {
        const am_anim_constraint *cs = &a->constraints[c];
        char name[17], raw[33];
        json_t *co = json_object();
        json_object_set_new(co, "chain_length", json_integer(cs->chain_length));
        json_object_set_new(co, "type", json_integer(cs->type));
        json_object_set_new(co, "source_volume", json_string(am_anim_volume_name(cs->source_volume, name)));
        hex(raw, cs->source_volume, 16);
        json_object_set_new(co, "source_volume_raw", json_string(raw));
        json_object_set_new(co, "source_offset", farr(cs->source_offset, 3));
        json_object_set_new(co, "target_volume", json_string(am_anim_volume_name(cs->target_volume, name)));
        hex(raw, cs->target_volume, 16);
        json_object_set_new(co, "target_volume_raw", json_string(raw));
        json_object_set_new(co, "target_offset", farr(cs->target_offset, 3));
        json_object_set_new(co, "target_dir", farr(cs->target_dir, 3));
        json_object_set_new(co, "ease_in_start", json_real(cs->ease_in_start));
        json_object_set_new(co, "ease_in_stop", json_real(cs->ease_in_stop));
        json_object_set_new(co, "ease_out_start", json_real(cs->ease_out_start));
        json_object_set_new(co, "ease_out_stop", json_real(cs->ease_out_stop));
        json_array_append_new(cons, co);
    }
    json_object_set_new(root, "constraints", cons);
    if (a->trailing_size) {
        char *t = malloc(2 * a->trailing_size + 1);
        if (!t) {
            json_decref(root);
            return am_fail_nomem(err, "json");
        }
        hex(t, a->trailing, a->trailing_size);
        json_object_set_new(root, "trailing", json_string(t));
        free(t);
    }
    char *s = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(9) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s)
        return am_fail(err, AM_ERR_INVALID, "json: cannot serialise (a value is not finite?)");
    am_status st = am_buf_append(out, s, strlen(s), err);
    if (st == AM_OK)
        st = am_buf_append(out, "\n", 1, err);
    free(s);
    return st;
}

/* ---- reading ---- */

typedef struct rd {
    am_error *err;
    const char *src;
    am_status st;
} rd;

__attribute__((format(printf, 2, 3))) static void bad(rd *r, const char *fmt, ...)
{
    if (r->st != AM_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    r->st = am_fail_vwhere(r->err, AM_ERR_INVALID, AM_NO_OFFSET, r->src, fmt, ap);
    va_end(ap);
}

static double num(rd *r, json_t *o, const char *key, double def, bool required, const char *ctx)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        if (required)
            bad(r, "%s: '%s' is missing", ctx, key);
        return def;
    }
    if (!json_is_number(v)) {
        bad(r, "%s: '%s' must be a number", ctx, key);
        return def;
    }
    return json_number_value(v);
}

/* A field the file stores as an F32: judged after the conversion, as the file will hold it
 * (1e308 becomes infinity, 1e-50 becomes 0). */
static float f32(rd *r, json_t *o, const char *key, double def, bool required, const char *ctx)
{
    double d = num(r, o, key, def, required, ctx);
    float f = (float)d;
    if (!isfinite(f))
        bad(r, "%s: '%s' %g does not fit a 32-bit float (the .anim stores F32)", ctx, key, d);
    return f;
}

static long long integer(rd *r, json_t *o, const char *key, long long def, long long lo, long long hi, const char *ctx)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return def;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        bad(r, "%s: '%s' must be an integer in %lld..%lld", ctx, key, lo, hi);
        return def;
    }
    return json_integer_value(v);
}

static bool nums(rd *r, json_t *v, double *out, size_t n, const char *what)
{
    if (!json_is_array(v) || json_array_size(v) != n) {
        bad(r, "%s must be an array of %zu numbers", what, n);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_number(e)) {
            bad(r, "%s[%zu] must be a number", what, i);
            return false;
        }
        out[i] = json_number_value(e);
    }
    return true;
}

static bool codes(rd *r, json_t *v, uint16_t c[4], const char *what)
{
    if (!json_is_array(v) || json_array_size(v) != 4) {
        bad(r, "%s.code must be [t, x, y, z] codes", what);
        return false;
    }
    for (size_t i = 0; i < 4; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) > 65535) {
            bad(r, "%s.code[%zu] must be an integer in 0..65535", what, i);
            return false;
        }
        c[i] = (uint16_t)json_integer_value(e);
    }
    return true;
}

static bool unhex(const char *s, uint8_t *out, size_t n)
{
    if (strlen(s) != 2 * n)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return false;
        out[i] = (uint8_t)v;
    }
    return true;
}

static void volume(rd *r, json_t *co, const char *key, uint8_t out[16], const char *ctx)
{
    char rawkey[40];
    snprintf(rawkey, sizeof rawkey, "%s_raw", key);
    json_t *raw = json_object_get(co, rawkey);
    if (raw) {
        if (!json_is_string(raw) || !unhex(json_string_value(raw), out, 16))
            bad(r, "%s: '%s' must be 32 hex digits", ctx, rawkey);
        return;
    }
    json_t *v = json_object_get(co, key);
    if (!json_is_string(v) || strlen(json_string_value(v)) > 16) {
        bad(r, "%s: '%s' must be a name of at most 16 characters", ctx, key);
        return;
    }
    memset(out, 0, 16);
    memcpy(out, json_string_value(v), strlen(json_string_value(v)));
}

static void read_keys(rd *r, json_t *arr, am_anim_joint *jt, bool rot, float dur, const char *ctx)
{
    size_t n = json_array_size(arr);
    if (arr && !json_is_array(arr)) {
        bad(r, "%s must be an array", ctx);
        return;
    }
    if (n == 0)
        return;
    void *keys = calloc(n, rot ? sizeof(am_anim_rot_key) : sizeof(am_anim_pos_key));
    if (!keys) {
        r->st = am_fail_nomem(r->err, "json keys");
        return;
    }
    if (rot)
        jt->rot_keys = keys, jt->rot_count = n;
    else
        jt->pos_keys = keys, jt->pos_count = n;
    for (size_t k = 0; k < n && r->st == AM_OK; k++) {
        char what[96];
        snprintf(what, sizeof what, "%s[%zu]", ctx, k);
        json_t *ko = json_array_get(arr, k);
        if (!json_is_object(ko)) {
            bad(r, "%s must be an object", what);
            return;
        }
        json_t *cv = json_object_get(ko, "code");
        uint16_t c[4];
        if (cv) {
            if (!codes(r, cv, c, what))
                return;
            if (rot) {
                am_anim_rot_key *key = &jt->rot_keys[k];
                key->time_code = c[0], key->x_code = c[1], key->y_code = c[2], key->z_code = c[3];
            } else {
                am_anim_pos_key *key = &jt->pos_keys[k];
                key->time_code = c[0], key->x_code = c[1], key->y_code = c[2], key->z_code = c[3];
            }
            continue;
        }
        /* without a code the key's time is quantised against the duration: it needs one */
        if (!(dur > 0.0f)) {
            bad(r, "%s: a key without 'code' needs a positive 'duration' (the header's is %g s as a 32-bit float)",
                what, (double)dur);
            return;
        }
        double t = f32(r, ko, "t", 0, true, what), v[4] = {0, 0, 0, 1};
        json_t *vv = json_object_get(ko, rot ? "rot" : "pos");
        char vw[112];
        snprintf(vw, sizeof vw, "%s.%s", what, rot ? "rot" : "pos");
        /* a rotation may be [x, y, z, w] or the stored [x, y, z] */
        if (rot && json_is_array(vv) && json_array_size(vv) == 3) {
            if (!nums(r, vv, v, 3, vw))
                return;
            double s = 1 - (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            v[3] = s > 0 ? sqrt(s) : 0;
        } else if (!nums(r, vv, v, rot ? 4 : 3, vw)) {
            return;
        }
        /* The encoder would clamp these silently: a key meant elsewhere is an input error. */
        if (!(t >= 0) || (float)t > dur) {
            bad(r, "%s: 't' %g s is outside 0..%g s (the duration)", what, t, (double)dur);
            return;
        }
        if (rot && !(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]) > 1e-6)) {
            bad(r, "%s is not a rotation (zero quaternion)", vw);
            return;
        }
        for (int i = 0; !rot && i < 3; i++)
            if (fabs(v[i]) > AM_ANIM_POS_RANGE) {
                bad(r, "%s[%d] %g m is outside -5..5 m (the .anim position range)", vw, i, v[i]);
                return;
            }
        if (rot)
            am_anim_rot_key_set(&jt->rot_keys[k], (float)t, (am_quat){v[0], v[1], v[2], v[3]}, dur);
        else
            am_anim_pos_key_set(&jt->pos_keys[k], (float)t, am_v3(v[0], v[1], v[2]), dur);
    }
}

am_status am_anim_from_json(const char *text, size_t size, const char *source, am_anim *a, am_error *err)
{
    memset(a, 0, sizeof *a);
    rd r = {err, source ? source : "json", AM_OK};
    json_t *root = am_json_load_text(text, size, 0, AM_ANIM_JSON_TREE_BUDGET, r.src, err);
    if (!root)
        return AM_ERR_INVALID;
    if (!json_is_object(root)) {
        bad(&r, "the top level must be an object");
        goto done;
    }
    a->version = (uint16_t)integer(&r, root, "version", 1, 0, 65535, "header");
    a->sub_version = (uint16_t)integer(&r, root, "sub_version", 0, 0, 65535, "header");
    a->base_priority = (int32_t)integer(&r, root, "base_priority", 4, INT32_MIN, INT32_MAX, "header");
    a->duration = f32(&r, root, "duration", 0, true, "header");
    if (r.st == AM_OK && a->duration > AM_ANIM_MAX_DURATION)
        bad(&r, "header: 'duration' %g s is over the viewer's %g s limit", (double)a->duration,
            (double)AM_ANIM_MAX_DURATION);
    json_t *em = json_object_get(root, "emote");
    if (em && !json_is_string(em))
        bad(&r, "header: 'emote' must be a string");
    const char *es = em && json_is_string(em) ? json_string_value(em) : "";
    a->emote_name = malloc(strlen(es) + 1);
    if (!a->emote_name) {
        r.st = am_fail_nomem(err, "json");
        goto done;
    }
    strcpy(a->emote_name, es);
    json_t *lp = json_object_get(root, "loop");
    a->loop = json_is_boolean(lp) ? json_is_true(lp) : (int32_t)integer(&r, root, "loop", 0, INT32_MIN, INT32_MAX, "header");
    a->loop_in = f32(&r, root, "loop_in", 0, false, "header");
    a->loop_out = f32(&r, root, "loop_out", a->duration, false, "header");
    a->ease_in = f32(&r, root, "ease_in", 0, false, "header");
    a->ease_out = f32(&r, root, "ease_out", 0, false, "header");
    a->hand_pose = (uint32_t)integer(&r, root, "hand_pose", 0, 0, UINT32_MAX, "header");
    json_t *joints = json_object_get(root, "joints");
    size_t nj = json_array_size(joints);
    if (r.st == AM_OK && (!json_is_array(joints) || nj == 0 || nj > AM_ANIM_MAX_JOINTS))
        bad(&r, "'joints' must be an array of 1..%d joints", AM_ANIM_MAX_JOINTS);
    if (r.st != AM_OK)
        goto done;
    a->joints = calloc(nj, sizeof *a->joints);
    if (!a->joints) {
        r.st = am_fail_nomem(err, "json");
        goto done;
    }
    for (size_t j = 0; j < nj && r.st == AM_OK; j++) {
        char ctx[48];
        snprintf(ctx, sizeof ctx, "joints[%zu]", j);
        json_t *jo = json_array_get(joints, j);
        am_anim_joint *jt = &a->joints[j];
        a->joint_count = j + 1;
        json_t *nm = json_object_get(jo, "name");
        if (!json_is_string(nm)) {
            bad(&r, "%s: 'name' must be a string", ctx);
            break;
        }
        jt->name = malloc(strlen(json_string_value(nm)) + 1);
        if (!jt->name) {
            r.st = am_fail_nomem(err, "json");
            break;
        }
        strcpy(jt->name, json_string_value(nm));
        jt->priority = (int32_t)integer(&r, jo, "priority", -1, INT32_MIN, INT32_MAX, ctx);
        char kctx[64];
        snprintf(kctx, sizeof kctx, "%s.rot_keys", ctx);
        read_keys(&r, json_object_get(jo, "rot_keys"), jt, true, a->duration, kctx);
        snprintf(kctx, sizeof kctx, "%s.pos_keys", ctx);
        read_keys(&r, json_object_get(jo, "pos_keys"), jt, false, a->duration, kctx);
    }
    json_t *cons = json_object_get(root, "constraints");
    size_t nc = json_array_size(cons);
    if (cons && !json_is_array(cons))
        bad(&r, "'constraints' must be an array");
    if (nc > AM_ANIM_MAX_CONSTRAINTS)
        bad(&r, "%zu constraints: at most %d are read by the viewer", nc, AM_ANIM_MAX_CONSTRAINTS);
    a->constraint_count_raw = (int32_t)integer(&r, root, "num_constraints", (long long)nc, INT32_MIN, INT32_MAX, "header");
    if (r.st == AM_OK && a->constraint_count_raw != (int32_t)nc &&
        (nc || (a->constraint_count_raw >= 0 && a->constraint_count_raw <= AM_ANIM_MAX_CONSTRAINTS)))
        bad(&r, "'num_constraints' %d differs from the %zu constraints listed", a->constraint_count_raw, nc);
    if (r.st == AM_OK && nc) {
        a->constraints = calloc(nc, sizeof *a->constraints);
        if (!a->constraints) {
            r.st = am_fail_nomem(err, "json");
            goto done;
        }
        a->constraint_count = nc;
    }
    for (size_t c = 0; c < nc && r.st == AM_OK; c++) {
        char ctx[48];
        snprintf(ctx, sizeof ctx, "constraints[%zu]", c);
        json_t *co = json_array_get(cons, c);
        am_anim_constraint *cs = &a->constraints[c];
        if (!json_is_object(co)) {
            bad(&r, "%s must be an object", ctx);
            break;
        }
        cs->chain_length = (uint8_t)integer(&r, co, "chain_length", 0, 0, 255, ctx);
        cs->type = (uint8_t)integer(&r, co, "type", 0, 0, 255, ctx);
        volume(&r, co, "source_volume", cs->source_volume, ctx);
        volume(&r, co, "target_volume", cs->target_volume, ctx);
        double v[3];
        char w[80];
        const char *vk[3] = {"source_offset", "target_offset", "target_dir"};
        float *vd[3] = {cs->source_offset, cs->target_offset, cs->target_dir};
        for (int i = 0; i < 3 && r.st == AM_OK; i++) {
            snprintf(w, sizeof w, "%s.%s", ctx, vk[i]);
            json_t *arr = json_object_get(co, vk[i]);
            if (!arr)
                continue; /* default 0 0 0 */
            if (nums(&r, arr, v, 3, w))
                for (int k = 0; k < 3; k++) {
                    vd[i][k] = (float)v[k];
                    if (!isfinite(vd[i][k]))
                        bad(&r, "%s[%d] %g does not fit a 32-bit float (the .anim stores F32)", w, k, v[k]);
                }
        }
        cs->ease_in_start = f32(&r, co, "ease_in_start", 0, false, ctx);
        cs->ease_in_stop = f32(&r, co, "ease_in_stop", 0, false, ctx);
        cs->ease_out_start = f32(&r, co, "ease_out_start", 0, false, ctx);
        cs->ease_out_stop = f32(&r, co, "ease_out_stop", 0, false, ctx);
    }
    json_t *tr = json_object_get(root, "trailing");
    if (r.st == AM_OK && tr) {
        const char *s = json_is_string(tr) ? json_string_value(tr) : NULL;
        size_t n = s ? strlen(s) / 2 : 0;
        a->trailing = n ? malloc(n) : NULL;
        if (!s || strlen(s) % 2 || (n && !a->trailing) || (n && !unhex(s, a->trailing, n)))
            bad(&r, "'trailing' must be hex bytes");
        else
            a->trailing_size = n;
    }
    if (r.st == AM_OK)
        am_anim_redecode(a);
done:
    json_decref(root);
    if (r.st != AM_OK)
        am_anim_free(a);
    return r.st;
}
