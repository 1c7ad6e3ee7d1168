/* .anim version 1.0 reader and writer (docs/reference/anim-format.md#byte-layout). The reader bounds-checks every
 * field and checks every count against the bytes left before allocating; it keeps raw
 * codes and leftover bytes so the writer reproduces the input byte for byte. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "core/bytes.h"

typedef struct reader {
    const uint8_t *p;
    size_t size, pos;
} reader;

static bool can(const reader *r, size_t n) { return r->size - r->pos >= n; }

static uint16_t rd_u16(reader *r)
{
    uint16_t v = am_le_u16(r->p + r->pos);
    r->pos += 2;
    return v;
}

static uint32_t rd_u32(reader *r)
{
    const uint8_t *b = r->p + r->pos;
    r->pos += 4;
    return am_le_u32(b);
}

static int32_t rd_s32(reader *r)
{
    uint32_t u = rd_u32(r);
    int32_t s;
    memcpy(&s, &u, 4);
    return s;
}

static float rd_f32(reader *r)
{
    uint32_t u = rd_u32(r);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Fail with the check's name, the viewer check's #, the joint (may be "") and the offset. */
static am_status fail(am_error *err, size_t off, const char *check, int row, const char *joint,
                      const char *what)
{
    if (joint && *joint)
        return am_fail_at(err, AM_ERR_INVALID, off, "anim: check '%s' (viewer check #%d): joint '%s': %s",
                          check, row, joint, what);
    return am_fail_at(err, AM_ERR_INVALID, off, "anim: check '%s' (viewer check #%d): %s", check, row,
                      what);
}

/* A CSTR: the terminator must lie inside the buffer. */
static char *rd_cstr(reader *r)
{
    const uint8_t *start = r->p + r->pos;
    const uint8_t *nul = memchr(start, 0, r->size - r->pos);
    if (!nul)
        return NULL;
    size_t n = (size_t)(nul - start);
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    memcpy(s, start, n + 1);
    r->pos += n + 1;
    return s;
}

/* num_rot_keys / num_pos_keys (S32) and the check that its 8-byte keys fit in the bytes
 * left, before anything is allocated (rows 16d/17 for rotations, 19/20 for positions). */
static am_status rd_key_count(reader *r, bool rot, const char *jn, size_t *count, am_error *err)
{
    const char *check = rot ? "num_rot_keys" : "num_pos_keys";
    int row = rot ? 16 : 19;
    if (!can(r, 4))
        return fail(err, r->pos, check, row, jn,
                    rot ? "truncated: cannot read num_rot_keys" : "truncated: cannot read num_pos_keys");
    size_t c_off = r->pos;
    int32_t n = rd_s32(r);
    if (n < 0)
        return fail(err, c_off, check, row, jn, rot ? "negative rotation key count" : "negative position key count");
    if ((size_t)n > (r->size - r->pos) / 8) {
        char what[128];
        snprintf(what, sizeof what, "truncated: %d %s keys need %zu bytes, %zu left", n,
                 rot ? "rotation" : "position", (size_t)n * 8, r->size - r->pos);
        return fail(err, c_off, rot ? "rot_key" : "pos_key", rot ? 17 : 20, jn, what);
    }
    *count = (size_t)n;
    return AM_OK;
}

#define NEED(n, check, row, joint, what)                                                       \
    do {                                                                                       \
        if (!can(&r, (n))) {                                                                   \
            st = fail(err, r.pos, check, row, joint, "truncated: cannot read " what);          \
            goto out;                                                                          \
        }                                                                                      \
    } while (0)

am_status am_anim_parse(const uint8_t *data, size_t size, am_anim *a, am_error *err)
{
    memset(a, 0, sizeof *a);
    reader r = {data, data ? size : 0, 0};
    am_status st = AM_OK;
    a->decoded = true;

    NEED(4, "version", 1, "", "version and sub_version");
    a->version = rd_u16(&r);
    a->sub_version = rd_u16(&r);
    if (a->version != AM_ANIM_VERSION || a->sub_version != AM_ANIM_SUBVERSION) {
        char what[160];
        snprintf(what, sizeof what, "version %u.%u: only 1.0 is supported%s", a->version,
                 a->sub_version,
                 a->version == 0 && a->sub_version == 1 ? " (the legacy 0.1 layout is not read)" : "");
        st = fail(err, 0, "version", 2, "", what);
        goto out;
    }
    NEED(4, "base_priority", 3, "", "base_priority");
    a->base_priority = rd_s32(&r);
    NEED(4, "duration", 6, "", "duration");
    a->duration = rd_f32(&r);
    a->emote_name = rd_cstr(&r);
    if (!a->emote_name) {
        st = can(&r, 1) && memchr(r.p + r.pos, 0, r.size - r.pos)
                 ? am_fail_nomem(err, "emote name")
                 : fail(err, r.pos, "emote_name", 7, "", "emote name has no terminator inside the file");
        goto out;
    }
    NEED(8, "loop_points", 11, "", "loop_in_point / loop_out_point");
    a->loop_in = rd_f32(&r);
    a->loop_out = rd_f32(&r);
    NEED(4, "loop", 12, "", "loop");
    a->loop = rd_s32(&r);
    NEED(8, "ease", 13, "", "ease_in / ease_out");
    a->ease_in = rd_f32(&r);
    a->ease_out = rd_f32(&r);
    NEED(4, "hand_pose", 14, "", "hand_pose");
    a->hand_pose = rd_u32(&r);
    NEED(4, "num_joints", 15, "", "num_joints");
    size_t nj_off = r.pos;
    uint32_t nj = rd_u32(&r);
    if (nj == 0 || nj > AM_ANIM_MAX_JOINTS) {
        char what[96];
        snprintf(what, sizeof what, "num_joints %u is outside 1..%d", nj, AM_ANIM_MAX_JOINTS);
        st = fail(err, nj_off, "num_joints", 15, "", what);
        goto out;
    }
    a->header_end = r.pos;
    a->joints = calloc(nj, sizeof *a->joints);
    if (!a->joints) {
        st = am_fail_nomem(err, "anim joints");
        goto out;
    }
    for (uint32_t j = 0; j < nj; j++) {
        am_anim_joint *jt = &a->joints[j];
        jt->offset = r.pos;
        jt->name = rd_cstr(&r);
        if (!jt->name) {
            char what[64];
            snprintf(what, sizeof what, "joint %u name has no terminator inside the file", j);
            st = fail(err, r.pos, "joint_name", 16, "", what);
            goto out;
        }
        a->joint_count = j + 1;
        const char *jn = jt->name;
        NEED(4, "joint_priority", 16, jn, "joint priority");
        jt->priority = rd_s32(&r);
        size_t nr, np;
        if ((st = rd_key_count(&r, true, jn, &nr, err)) != AM_OK)
            goto out;
        jt->rot_offset = r.pos;
        if (nr && !(jt->rot_keys = calloc(nr, sizeof *jt->rot_keys))) {
            st = am_fail_nomem(err, "rotation keys");
            goto out;
        }
        for (size_t k = 0; k < nr; k++) {
            am_anim_rot_key *key = &jt->rot_keys[k];
            key->time_code = rd_u16(&r);
            key->x_code = rd_u16(&r);
            key->y_code = rd_u16(&r);
            key->z_code = rd_u16(&r);
        }
        jt->rot_count = nr;
        if ((st = rd_key_count(&r, false, jn, &np, err)) != AM_OK)
            goto out;
        jt->pos_offset = r.pos;
        if (np && !(jt->pos_keys = calloc(np, sizeof *jt->pos_keys))) {
            st = am_fail_nomem(err, "position keys");
            goto out;
        }
        for (size_t k = 0; k < np; k++) {
            am_anim_pos_key *key = &jt->pos_keys[k];
            key->time_code = rd_u16(&r);
            key->x_code = rd_u16(&r);
            key->y_code = rd_u16(&r);
            key->z_code = rd_u16(&r);
        }
        jt->pos_count = np;
    }
    NEED(4, "num_constraints", 21, "", "num_constraints");
    a->constraints_offset = r.pos;
    a->constraint_count_raw = rd_s32(&r);
    if (a->constraint_count_raw > 0 && a->constraint_count_raw <= AM_ANIM_MAX_CONSTRAINTS) {
        size_t nc = (size_t)a->constraint_count_raw;
        a->constraints = calloc(nc, sizeof *a->constraints);
        if (!a->constraints) {
            st = am_fail_nomem(err, "constraints");
            goto out;
        }
        for (size_t c = 0; c < nc; c++) {
            am_anim_constraint *cs = &a->constraints[c];
            cs->offset = r.pos;
            if (!can(&r, AM_ANIM_CONSTRAINT_SIZE)) {
                char what[96];
                snprintf(what, sizeof what, "truncated: constraint %zu needs %d bytes, %zu left", c,
                         AM_ANIM_CONSTRAINT_SIZE, r.size - r.pos);
                st = fail(err, r.pos, "constraint", 23, "", what);
                goto out;
            }
            cs->chain_length = r.p[r.pos++];
            cs->type = r.p[r.pos++];
            memcpy(cs->source_volume, r.p + r.pos, 16);
            r.pos += 16;
            for (int i = 0; i < 3; i++)
                cs->source_offset[i] = rd_f32(&r);
            memcpy(cs->target_volume, r.p + r.pos, 16);
            r.pos += 16;
            for (int i = 0; i < 3; i++)
                cs->target_offset[i] = rd_f32(&r);
            for (int i = 0; i < 3; i++)
                cs->target_dir[i] = rd_f32(&r);
            cs->ease_in_start = rd_f32(&r);
            cs->ease_in_stop = rd_f32(&r);
            cs->ease_out_start = rd_f32(&r);
            cs->ease_out_stop = rd_f32(&r);
            a->constraint_count = c + 1;
        }
    }
    if (r.pos < r.size) {
        a->trailing_size = r.size - r.pos;
        a->trailing = malloc(a->trailing_size);
        if (!a->trailing) {
            st = am_fail_nomem(err, "trailing bytes");
            goto out;
        }
        memcpy(a->trailing, r.p + r.pos, a->trailing_size);
    }
    am_anim_redecode(a);
out:
    if (st != AM_OK)
        am_anim_free(a);
    return st;
}

void am_anim_free(am_anim *a)
{
    if (!a)
        return;
    for (size_t j = 0; j < a->joint_count; j++) {
        free(a->joints[j].name);
        free(a->joints[j].rot_keys);
        free(a->joints[j].pos_keys);
    }
    free(a->joints);
    free(a->emote_name);
    free(a->constraints);
    free(a->trailing);
    memset(a, 0, sizeof *a);
}

const char *am_anim_volume_name(const uint8_t raw[16], char out[17])
{
    size_t n = 0;
    while (n < 16 && raw[n])
        n++;
    memcpy(out, raw, n);
    out[n] = '\0';
    return out;
}

int32_t am_anim_joint_priority(const am_anim *a, size_t joint)
{
    int32_t p = a->joints[joint].priority;
    return p == -1 ? a->base_priority : p;
}

am_status am_anim_decode(const uint8_t *data, size_t size, am_anim *out, am_error *err)
{
    am_status st = am_anim_parse(data, size, out, err);
    if (st != AM_OK)
        return st;
    am_anim_report rep;
    st = am_anim_validate(out, NULL, &rep, err);
    /* Without a skeleton, an upload-only refusal (an empty joint name) still plays. */
    for (size_t i = 0; st == AM_OK && i < rep.count; i++) {
        const am_anim_issue *is = &rep.issues[i];
        if (is->severity == AM_ANIM_REJECT || is->severity == AM_ANIM_OURS)
            st = am_fail_at(err, AM_ERR_INVALID, is->offset, "anim: %s", am_str(&is->msg));
    }
    am_anim_report_free(&rep);
    if (st != AM_OK)
        am_anim_free(out);
    return st;
}

/* Binary, and not plainly another format: the parser judges the rest, naming offsets. */
static am_status sniff_anim(const uint8_t *h, size_t n, am_error *err)
{
    const char *kind = am_sniff_kind(h, n);
    if (strcmp(kind, "an .anim file") == 0 || strcmp(kind, "binary data") == 0)
        return AM_OK;
    return am_fail_at(err, AM_ERR_INVALID, 0, "not an .anim file: the file is %s%s", kind,
                      strcmp(kind, "JSON") == 0 ? " (anim encode turns anim JSON into an .anim)" : "");
}

static am_status sniff_anim_json(const uint8_t *h, size_t n, am_error *err)
{
    return am_sniff_text(h, n, "{", "anim JSON (an object)", err);
}

const am_file_format am_anim_file_format = {"an .anim file", AM_ANIM_MAX_FILE_BYTES, sniff_anim};
const am_file_format am_anim_json_format = {"an anim JSON", AM_ANIM_JSON_MAX_FILE_BYTES, sniff_anim_json};

am_status am_anim_load(const char *path, am_anim *out, am_error *err)
{
    uint8_t *data = NULL;
    size_t size = 0;
    memset(out, 0, sizeof *out);
    am_status st = am_read_file_as(path, &am_anim_file_format, &data, &size, err);
    if (st != AM_OK)
        return st;
    st = am_anim_decode(data, size, out, err);
    free(data);
    if (st != AM_OK)
        am_error_where(err, "%s", path);
    return st;
}

/* ---- writer ---- */

static am_status w_u32(am_buf *o, uint32_t v, am_error *err)
{
    uint8_t b[4];
    am_le_put_u32(b, v);
    return am_buf_append(o, b, 4, err);
}

static am_status w_s32(am_buf *o, int32_t v, am_error *err)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return w_u32(o, u, err);
}

static am_status w_f32(am_buf *o, float v, am_error *err)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return w_u32(o, u, err);
}

static am_status w_key(am_buf *o, uint16_t t, uint16_t x, uint16_t y, uint16_t z, am_error *err)
{
    uint8_t b[8];
    am_le_put_u16(b, t);
    am_le_put_u16(b + 2, x);
    am_le_put_u16(b + 4, y);
    am_le_put_u16(b + 6, z);
    return am_buf_append(o, b, 8, err);
}

#define TRY(expr)                                                                              \
    do {                                                                                       \
        am_status s_ = (expr);                                                                 \
        if (s_ != AM_OK)                                                                       \
            return s_;                                                                         \
    } while (0)

uint64_t am_anim_encoded_size(const am_anim *a)
{
    uint64_t n = 4 + 4 + 4 + (a->emote_name ? strlen(a->emote_name) : 0) + 1 + 4 * 7;
    for (size_t j = 0; j < a->joint_count; j++) {
        const am_anim_joint *jt = &a->joints[j];
        n += (jt->name ? strlen(jt->name) : 0) + 1 + 4 + 4 + 8 * (uint64_t)jt->rot_count + 4 +
             8 * (uint64_t)jt->pos_count;
    }
    bool read_records = a->constraint_count > 0 ||
                        (a->constraint_count_raw >= 0 && a->constraint_count_raw <= AM_ANIM_MAX_CONSTRAINTS);
    n += 4 + (read_records ? (uint64_t)a->constraint_count * AM_ANIM_CONSTRAINT_SIZE : 0) + a->trailing_size;
    return n;
}

am_status am_anim_encode(const am_anim *a, am_buf *o, am_error *err)
{
    if (a->joint_count > AM_ANIM_MAX_JOINTS || a->joint_count == 0)
        return am_fail(err, AM_ERR_INVALID, "anim encode: %zu joints (must be 1..%d)", a->joint_count,
                       AM_ANIM_MAX_JOINTS);
    if (a->constraint_count > AM_ANIM_MAX_CONSTRAINTS)
        return am_fail(err, AM_ERR_INVALID, "anim encode: %zu constraints (at most %d)",
                       a->constraint_count, AM_ANIM_MAX_CONSTRAINTS);
    /* What every reader accepts (anim check, decode, import, the bench: AM_ANIM_MAX_FILE_BYTES),
     * refused before a byte is made: every .anim writer comes through here. */
    uint64_t size = am_anim_encoded_size(a);
    if (size > AM_ANIM_MAX_FILE_BYTES) {
        size_t keys = 0;
        for (size_t j = 0; j < a->joint_count; j++)
            keys += a->joints[j].rot_count + a->joints[j].pos_count;
        return am_fail(err, AM_ERR_INVALID,
                       "the .anim would be %.1f MiB (%zu joints, %zu keys), over the %zu MiB its readers accept "
                       "(anim check, decode, import): fewer keys (a lower frame rate), a shorter clip or fewer "
                       "joints",
                       (double)size / (1 << 20), a->joint_count, keys, AM_ANIM_MAX_FILE_BYTES >> 20);
    }
    uint8_t b4[4];
    am_le_put_u16(b4, a->version);
    am_le_put_u16(b4 + 2, a->sub_version);
    TRY(am_buf_append(o, b4, 4, err));
    TRY(w_s32(o, a->base_priority, err));
    TRY(w_f32(o, a->duration, err));
    const char *emote = a->emote_name ? a->emote_name : "";
    TRY(am_buf_append(o, emote, strlen(emote) + 1, err));
    TRY(w_f32(o, a->loop_in, err));
    TRY(w_f32(o, a->loop_out, err));
    TRY(w_s32(o, a->loop, err));
    TRY(w_f32(o, a->ease_in, err));
    TRY(w_f32(o, a->ease_out, err));
    TRY(w_u32(o, a->hand_pose, err));
    TRY(w_u32(o, (uint32_t)a->joint_count, err));
    for (size_t j = 0; j < a->joint_count; j++) {
        const am_anim_joint *jt = &a->joints[j];
        if (!jt->name) /* an empty name is legal bytes (the viewer refuses it on upload) */
            return am_fail(err, AM_ERR_INVALID, "anim encode: joint %zu has no name", j);
        if (jt->rot_count > INT32_MAX || jt->pos_count > INT32_MAX)
            return am_fail(err, AM_ERR_INVALID, "anim encode: joint '%s' has too many keys", jt->name);
        TRY(am_buf_append(o, jt->name, strlen(jt->name) + 1, err));
        TRY(w_s32(o, jt->priority, err));
        TRY(w_s32(o, (int32_t)jt->rot_count, err));
        for (size_t k = 0; k < jt->rot_count; k++) {
            const am_anim_rot_key *key = &jt->rot_keys[k];
            TRY(w_key(o, key->time_code, key->x_code, key->y_code, key->z_code, err));
        }
        TRY(w_s32(o, (int32_t)jt->pos_count, err));
        for (size_t k = 0; k < jt->pos_count; k++) {
            const am_anim_pos_key *key = &jt->pos_keys[k];
            TRY(w_key(o, key->time_code, key->x_code, key->y_code, key->z_code, err));
        }
    }
    /* Records are written only when they were read (count 0..10); otherwise the stored
     * count stands and its records, if any, are part of `trailing`. */
    bool read_records = a->constraint_count > 0 ||
                        (a->constraint_count_raw >= 0 && a->constraint_count_raw <= AM_ANIM_MAX_CONSTRAINTS);
    TRY(w_s32(o, read_records ? (int32_t)a->constraint_count : a->constraint_count_raw, err));
    if (read_records) {
        for (size_t c = 0; c < a->constraint_count; c++) {
            const am_anim_constraint *cs = &a->constraints[c];
            uint8_t hdr[2] = {cs->chain_length, cs->type};
            TRY(am_buf_append(o, hdr, 2, err));
            TRY(am_buf_append(o, cs->source_volume, 16, err));
            for (int i = 0; i < 3; i++)
                TRY(w_f32(o, cs->source_offset[i], err));
            TRY(am_buf_append(o, cs->target_volume, 16, err));
            for (int i = 0; i < 3; i++)
                TRY(w_f32(o, cs->target_offset[i], err));
            for (int i = 0; i < 3; i++)
                TRY(w_f32(o, cs->target_dir[i], err));
            TRY(w_f32(o, cs->ease_in_start, err));
            TRY(w_f32(o, cs->ease_in_stop, err));
            TRY(w_f32(o, cs->ease_out_start, err));
            TRY(w_f32(o, cs->ease_out_stop, err));
        }
    }
    if (a->trailing_size)
        TRY(am_buf_append(o, a->trailing, a->trailing_size, err));
    return AM_OK;
}
