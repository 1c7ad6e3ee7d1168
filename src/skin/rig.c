/* Rig JSON reader (docs/rig-json.md): one pass over the text (core/jsonlex.h, no tree)
 * straight into the rig's arrays, every field checked with an error naming the file and
 * the field. The file is read whole, bounded and sniffed as every user file (core/io.h).
 *
 * Keys may come in any order, so the checks that need another field (a triangle's vertex
 * range, a weight's joint range, an explicit skin's per-joint matrices, the weight count)
 * run once the document is read. Field errors are reported as a whole-document reader
 * reports them: a syntax error anywhere first, then the first error of the fields in the
 * order name, skin, joints, vertices, triangles, weights, material. */
#include "skin/rig.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/jsonlex.h"

/* Sanity bounds (memory, not the viewer's limits: a mesh over the animesh budget is
 * reduced by the skin builder). */
#define RIG_MAX_VERTICES (1u << 24)
#define RIG_MAX_JOINTS 1024u
#define BAD_INDEX UINT32_MAX /* a triangle corner that is not a non-negative integer */
#define VERTICES_MSG "expected an array of at least 3 [px,py,pz,nx,ny,nz,u,v]"
#define TRIANGLES_MSG "expected a non-empty array of [a, b, c]"
#define FACES_MSG "expected an array of 1..8 triangle counts (one per face)"

static am_status field_fail(am_error *err, const char *src, const char *field, const char *msg)
{
    am_fail(err, AM_ERR_INVALID, "%s", msg);
    am_error_where(err, "%s: %s", src, field);
    return AM_ERR_INVALID;
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

am_vec3 am_rig_bind_position(const am_rig *rig, size_t v)
{
    am_vec3 p = am_v3(rig->positions[3 * v], rig->positions[3 * v + 1], rig->positions[3 * v + 2]);
    return rig->explicit_skin ? am_mat4_transform_point(&rig->bind_shape, p) : p;
}

/* --- the reader --- */

/* A vector's state: read, or why not. */
enum { VEC_OK = 0, VEC_SHAPE, VEC_NOT_NUMBER, VEC_ABSENT };

typedef struct field_err {
    bool set;
    char field[64];
    char msg[160];
} field_err;

typedef struct joint_in {
    bool name_bad;
    int world, inverse_bind, position; /* VEC_* */
} joint_in;

typedef struct key_set { /* keys of one object, for duplicates */
    char **keys;
    size_t n, cap;
} key_set;

typedef struct reader {
    am_jlex lx;
    const char *src;
    am_rig *rig;
    bool has_name, has_joints, has_vertices, has_triangles, has_weights, has_faces;
    field_err e_name, e_skin, e_joints, e_vertices, e_triangles, e_faces, e_weights, e_material;
    long long face_counts[8];     /* "faces": triangle counts as read (-1: not an integer) */
    size_t face_n;
    joint_in *jin;
    size_t jcap, vcap, tcap, icap, rcap, icap_inf;
    int skin_bind_shape;          /* VEC_* */
    bool skin_jp_bad;
    size_t tri_shape_bad;         /* first triangle not [a, b, c] (SIZE_MAX: none) */
    bool weights_array_bad;
    size_t weight_rows, row_bad;  /* rows read; first row not an array */
    size_t pair_bad;              /* influence index of the first immediate pair error */
    char pair_msg[96];
    size_t pair_bad_row, pair_bad_k;
} reader;

static void note(field_err *e, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(field_err *e, const char *field, const char *fmt, ...)
{
    if (e->set)
        return;
    e->set = true;
    snprintf(e->field, sizeof e->field, "%s", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

static am_status grow(void **p, size_t *cap, size_t need, size_t elem, am_error *err)
{
    return am_grow(p, cap, need, elem, "rig", err);
}

/* A key of an object: refused when the object has had it already (duplicate keys are a
 * syntax error, as jansson's JSON_REJECT_DUPLICATES makes them). */
static am_status key_of(reader *r, key_set *ks)
{
    am_status st = am_jlex_key(&r->lx);
    if (st)
        return st;
    for (size_t i = 0; i < ks->n; i++)
        if (strcmp(ks->keys[i], r->lx.str) == 0)
            return am_jlex_fail(&r->lx, "duplicate object key '%s'", r->lx.str);
    if ((st = grow((void **)&ks->keys, &ks->cap, ks->n + 1, sizeof *ks->keys, r->lx.err)))
        return st;
    if (!(ks->keys[ks->n] = strdup(r->lx.str)))
        return am_fail_nomem(r->lx.err, "rig");
    ks->n++;
    return AM_OK;
}

static void keys_free(key_set *ks)
{
    for (size_t i = 0; i < ks->n; i++)
        free(ks->keys[i]);
    free(ks->keys);
    memset(ks, 0, sizeof *ks);
}

/* Reads (or skips) the value of one member of an object; its key is in r->lx.str. */
typedef am_status (*member_fn)(reader *r, void *ctx);

/* The members of an object whose '{' has been taken, up to its '}': each key refused when
 * repeated, then its value to `member`. The first failure ends the walk. */
static am_status walk_object(reader *r, member_fn member, void *ctx)
{
    key_set ks = {0};
    am_status st;
    for (size_t i = 0; am_jlex_more(&r->lx, '}', i, &st); i++)
        if ((st = key_of(r, &ks)) || (st = member(r, ctx)))
            break;
    keys_free(&ks);
    return st;
}

/* An array of exactly n finite numbers into out (doubles); *state says how it went. */
static am_status read_vec(reader *r, double *out, size_t n, int *state)
{
    am_jlex *l = &r->lx;
    *state = VEC_OK;
    if (am_jlex_peek(l) != '[') {
        *state = VEC_SHAPE;
        return am_jlex_skip(l);
    }
    l->p++;
    am_status st;
    size_t i = 0;
    bool bad = false;
    for (; am_jlex_more(l, ']', i, &st); i++) {
        int c = am_jlex_peek(l);
        if (c == '-' || (c >= '0' && c <= '9')) {
            am_jnum v;
            if ((st = am_jlex_number(l, &v)))
                return st;
            if (i < n)
                out[i] = v.d;
        } else {
            bad = true;
            if ((st = am_jlex_skip(l)))
                return st;
        }
    }
    if (st)
        return st;
    *state = i != n ? VEC_SHAPE : bad ? VEC_NOT_NUMBER : VEC_OK;
    return AM_OK;
}

static const char *vec_msg(int state, size_t n, char *buf, size_t size)
{
    if (state == VEC_NOT_NUMBER)
        return "expected a finite number";
    snprintf(buf, size, "expected an array of %zu numbers", n);
    return buf;
}

static am_status read_name(reader *r)
{
    am_jlex *l = &r->lx;
    r->has_name = true;
    am_status st;
    if (am_jlex_peek(l) != '"') {
        note(&r->e_name, "name", "expected a name of 1-100 characters from A-Z a-z 0-9 _ - . (it names the output files)");
        return am_jlex_skip(l);
    }
    if ((st = am_jlex_string(l)))
        return st;
    if (!name_ok(l->str) || strlen(l->str) != l->str_len)
        note(&r->e_name, "name", "expected a name of 1-100 characters from A-Z a-z 0-9 _ - . (it names the output files)");
    else if (!r->rig->name && !(r->rig->name = strdup(l->str)))
        return am_fail_nomem(l->err, "rig name");
    return AM_OK;
}

static am_status skin_member(reader *r, void *ctx)
{
    (void)ctx;
    am_jlex *l = &r->lx;
    am_rig *rig = r->rig;
    if (strcmp(l->str, "bind_shape") == 0)
        return read_vec(r, rig->bind_shape.m, 16, &r->skin_bind_shape);
    if (strcmp(l->str, "joint_positions") != 0)
        return am_jlex_skip(l);
    int c = am_jlex_peek(l);
    if (c != 't' && c != 'f' && c != 'n') {
        r->skin_jp_bad = true;
        return am_jlex_skip(l);
    }
    bool b, z;
    am_status st = am_jlex_literal(l, &b, &z);
    if (!st) {
        r->skin_jp_bad = z;
        rig->has_joint_positions = b;
    }
    return st;
}

/* The optional explicit skin (rig.h): {"bind_shape": [16 numbers, LL layout],
 * "joint_positions": true|false}; its presence makes every joint carry "inverse_bind" (and
 * "position" with joint_positions). */
static am_status read_skin(reader *r)
{
    am_jlex *l = &r->lx;
    am_rig *rig = r->rig;
    if (am_jlex_peek(l) != '{') {
        note(&r->e_skin, "skin", "expected {\"bind_shape\": [16 numbers], \"joint_positions\": bool}");
        return am_jlex_skip(l);
    }
    l->p++;
    rig->explicit_skin = true;
    rig->has_joint_positions = true;
    r->skin_bind_shape = VEC_ABSENT;
    return walk_object(r, skin_member, NULL);
}

/* The value must be an array: opened (*open true), else `msg` noted for `field` and the
 * value skipped. */
static am_status open_array(reader *r, field_err *e, const char *field, const char *msg, bool *open)
{
    *open = am_jlex_peek(&r->lx) == '[';
    if (*open) {
        r->lx.p++;
        return AM_OK;
    }
    note(e, field, "%s", msg);
    return am_jlex_skip(&r->lx);
}

/* Element i of an array of at most `max`: past it, the error is noted and the element
 * skipped (*skipped true). */
static am_status past_limit(reader *r, size_t i, size_t max, field_err *e, const char *field, const char *msg,
                            bool *skipped)
{
    *skipped = i >= max;
    if (!*skipped)
        return AM_OK;
    note(e, field, "%s", msg);
    return am_jlex_skip(&r->lx);
}

static am_status joint_member(reader *r, void *ctx)
{
    am_jlex *l = &r->lx;
    size_t i = *(const size_t *)ctx;
    am_rig_joint *j = &r->rig->joints[i];
    joint_in *ji = &r->jin[i];
    am_status st;
    if (strcmp(l->str, "name") == 0) {
        if (am_jlex_peek(l) != '"')
            return am_jlex_skip(l);
        if ((st = am_jlex_string(l)))
            return st;
        ji->name_bad = l->str_len == 0 || strlen(l->str) != l->str_len;
        if (!ji->name_bad && !j->name && !(j->name = strdup(l->str)))
            return am_fail_nomem(l->err, "rig joint name");
        return AM_OK;
    }
    if (strcmp(l->str, "world") == 0) {
        double w[3];
        if (!(st = read_vec(r, w, 3, &ji->world)) && ji->world == VEC_OK)
            j->world = am_v3(w[0], w[1], w[2]);
        return st;
    }
    if (strcmp(l->str, "inverse_bind") == 0)
        return read_vec(r, j->inverse_bind.m, 16, &ji->inverse_bind);
    if (strcmp(l->str, "position") == 0) {
        double w[3];
        if (!(st = read_vec(r, w, 3, &ji->position)) && ji->position == VEC_OK)
            j->position = am_v3(w[0], w[1], w[2]);
        return st;
    }
    return am_jlex_skip(l);
}

static am_status read_joint(reader *r, size_t i)
{
    am_jlex *l = &r->lx;
    am_rig_joint *j = &r->rig->joints[i];
    joint_in *ji = &r->jin[i];
    memset(j, 0, sizeof *j);
    ji->name_bad = true;
    ji->world = ji->inverse_bind = ji->position = VEC_ABSENT;
    if (am_jlex_peek(l) != '{')
        return am_jlex_skip(l); /* no name: the first thing it lacks */
    l->p++;
    return walk_object(r, joint_member, &i);
}

static am_status read_joints(reader *r)
{
    am_jlex *l = &r->lx;
    am_rig *rig = r->rig;
    r->has_joints = true;
    bool open, skipped;
    am_status st = open_array(r, &r->e_joints, "joints", "expected a non-empty array of {\"name\", \"world\"}", &open);
    if (st || !open)
        return st;
    size_t i = 0;
    for (; am_jlex_more(l, ']', i, &st); i++) {
        if ((st = past_limit(r, i, RIG_MAX_JOINTS, &r->e_joints, "joints", "too many joints", &skipped)))
            return st;
        if (skipped)
            continue;
        if ((st = grow((void **)&rig->joints, &r->jcap, i + 1, sizeof *rig->joints, l->err)))
            return st;
        size_t jc = r->jcap;
        if (jc > r->icap) { /* the per-joint states follow the joints' capacity */
            joint_in *g = realloc(r->jin, jc * sizeof *g);
            if (!g)
                return am_fail_nomem(l->err, "rig joints");
            r->jin = g;
            r->icap = jc;
        }
        rig->joint_count = i + 1;
        if ((st = read_joint(r, i)))
            return st;
    }
    if (!st && i == 0)
        note(&r->e_joints, "joints", "expected a non-empty array of {\"name\", \"world\"}");
    return st;
}

static am_status read_vertices(reader *r)
{
    am_jlex *l = &r->lx;
    am_rig *rig = r->rig;
    r->has_vertices = true;
    bool open, skipped;
    am_status st = open_array(r, &r->e_vertices, "vertices", VERTICES_MSG, &open);
    if (st || !open)
        return st;
    size_t i = 0;
    field_err first = {0}; /* an element's error, reported after the array's own */
    for (; am_jlex_more(l, ']', i, &st); i++) {
        if ((st = past_limit(r, i, RIG_MAX_VERTICES, &r->e_vertices, "vertices", "too many vertices (16777216 at most)",
                             &skipped)))
            return st;
        if (skipped)
            continue;
        if (i >= r->vcap) {
            size_t cap = r->vcap;
            if ((st = grow((void **)&rig->positions, &cap, i + 1, 3 * sizeof(float), l->err)))
                return st;
            cap = r->vcap;
            if ((st = grow((void **)&rig->normals, &cap, i + 1, 3 * sizeof(float), l->err)))
                return st;
            cap = r->vcap;
            if ((st = grow((void **)&rig->uvs, &cap, i + 1, 2 * sizeof(float), l->err)))
                return st;
            r->vcap = cap;
        }
        double v[8];
        int state;
        if ((st = read_vec(r, v, 8, &state)))
            return st;
        if (state != VEC_OK) {
            char f[64], m[64];
            snprintf(f, sizeof f, "vertices[%zu]", i);
            note(&first, f, "%s", vec_msg(state, 8, m, sizeof m));
            memset(v, 0, sizeof v);
        }
        /* stored as floats: judged after the conversion (5e307 is a double, not a float) */
        for (int k = 0; k < 8; k++)
            if (!isfinite((float)v[k])) {
                char f[64];
                snprintf(f, sizeof f, "vertices[%zu]", i);
                note(&first, f, "element %d (%g) does not fit a 32-bit float", k, v[k]);
                v[k] = 0;
            }
        for (int k = 0; k < 3; k++) {
            rig->positions[3 * i + k] = (float)v[k];
            rig->normals[3 * i + k] = (float)v[3 + k];
        }
        rig->uvs[2 * i] = (float)v[6];
        rig->uvs[2 * i + 1] = (float)v[7];
    }
    if (st)
        return st;
    rig->vertex_count = i < RIG_MAX_VERTICES ? i : RIG_MAX_VERTICES;
    if (i < 3)
        note(&r->e_vertices, "vertices", VERTICES_MSG);
    if (first.set)
        note(&r->e_vertices, first.field, "%s", first.msg);
    return AM_OK;
}

/* A triangle's corner: a non-negative integer (range checked later), else BAD_INDEX. */
static am_status read_corner(reader *r, uint32_t *out)
{
    am_jlex *l = &r->lx;
    int c = am_jlex_peek(l);
    *out = BAD_INDEX;
    if (c != '-' && (c < '0' || c > '9'))
        return am_jlex_skip(l);
    am_jnum v;
    am_status st = am_jlex_number(l, &v);
    if (!st && v.is_int && v.i >= 0 && v.i < (long long)BAD_INDEX)
        *out = (uint32_t)v.i;
    return st;
}

static am_status read_triangles(reader *r)
{
    am_jlex *l = &r->lx;
    am_rig *rig = r->rig;
    r->has_triangles = true;
    bool open, skipped;
    am_status st = open_array(r, &r->e_triangles, "triangles", TRIANGLES_MSG, &open);
    if (st || !open)
        return st;
    size_t i = 0;
    for (; am_jlex_more(l, ']', i, &st); i++) {
        if ((st = past_limit(r, i, 4u * RIG_MAX_VERTICES, &r->e_triangles, "triangles", "too many triangles", &skipped)))
            return st;
        if (skipped)
            continue;
        if ((st = grow((void **)&rig->triangles, &r->tcap, i + 1, 3 * sizeof(uint32_t), l->err)))
            return st;
        uint32_t *t = &rig->triangles[3 * i];
        t[0] = t[1] = t[2] = BAD_INDEX;
        if (am_jlex_peek(l) != '[') {
            if (r->tri_shape_bad == SIZE_MAX)
                r->tri_shape_bad = i;
            if ((st = am_jlex_skip(l)))
                return st;
            continue;
        }
        l->p++;
        size_t k = 0;
        for (; am_jlex_more(l, ']', k, &st); k++) {
            uint32_t c;
            if ((st = read_corner(r, &c)))
                return st;
            if (k < 3)
                t[k] = c;
        }
        if (st)
            return st;
        if (k != 3 && r->tri_shape_bad == SIZE_MAX)
            r->tri_shape_bad = i;
    }
    if (st)
        return st;
    rig->triangle_count = i < 4u * RIG_MAX_VERTICES ? i : 4u * RIG_MAX_VERTICES;
    if (i == 0)
        note(&r->e_triangles, "triangles", TRIANGLES_MSG);
    return AM_OK;
}

/* Optional "faces": [triangle count per face] (rig.h face_start; checked in validate). */
static am_status read_faces(reader *r)
{
    am_jlex *l = &r->lx;
    r->has_faces = true;
    if (am_jlex_peek(l) != '[') {
        note(&r->e_faces, "faces", FACES_MSG);
        return am_jlex_skip(l);
    }
    l->p++;
    am_status st;
    size_t i = 0;
    for (; am_jlex_more(l, ']', i, &st); i++) {
        long long v = -1;
        int c = am_jlex_peek(l);
        if (c == '-' || (c >= '0' && c <= '9')) {
            am_jnum n;
            if ((st = am_jlex_number(l, &n)))
                return st;
            if (n.is_int)
                v = n.i;
        } else if ((st = am_jlex_skip(l))) {
            return st;
        }
        if (i < 8)
            r->face_counts[i] = v;
    }
    if (st)
        return st;
    r->face_n = i;
    return AM_OK;
}

static am_status check_faces(reader *r)
{
    am_rig *rig = r->rig;
    if (!r->has_faces || r->e_faces.set)
        return AM_OK;
    if (r->face_n == 0 || r->face_n > 8) {
        note(&r->e_faces, "faces", FACES_MSG);
        return AM_OK;
    }
    size_t at = 0;
    for (size_t f = 0; f < r->face_n; f++) {
        long long v = r->face_counts[f];
        if (v < 1 || (unsigned long long)v > rig->triangle_count - at) {
            char field[32];
            snprintf(field, sizeof field, "faces[%zu]", f);
            note(&r->e_faces, field, "expected a triangle count >= 1 (the counts sum to the triangles)");
            return AM_OK;
        }
        at += (size_t)v;
    }
    if (at != rig->triangle_count) {
        note(&r->e_faces, "faces", "the face triangle counts do not sum to the number of triangles");
        return AM_OK;
    }
    if (!(rig->face_start = malloc((r->face_n + 1) * sizeof *rig->face_start)))
        return am_fail_nomem(r->lx.err, "rig faces");
    rig->face_count = r->face_n;
    at = 0;
    for (size_t f = 0; f < r->face_n; f++) {
        rig->face_start[f] = at;
        at += (size_t)r->face_counts[f];
    }
    rig->face_start[r->face_n] = at;
    return AM_OK;
}

static am_status read_weights(reader *r)
{
    am_jlex *l = &r->lx;
    am_rig *rig = r->rig;
    r->has_weights = true;
    if (am_jlex_peek(l) != '[') {
        r->weights_array_bad = true;
        return am_jlex_skip(l);
    }
    l->p++;
    am_status st;
    size_t i = 0, at = 0;
    for (; am_jlex_more(l, ']', i, &st); i++) {
        if ((st = grow((void **)&rig->weight_start, &r->rcap, i + 2, sizeof *rig->weight_start, l->err)))
            return st;
        rig->weight_start[i] = at;
        if (am_jlex_peek(l) != '[') {
            if (r->row_bad == SIZE_MAX)
                r->row_bad = i;
            if ((st = am_jlex_skip(l)))
                return st;
            continue;
        }
        l->p++;
        for (size_t k = 0; am_jlex_more(l, ']', k, &st); k++) {
            if ((st = grow((void **)&rig->influences, &r->icap_inf, at + 1, sizeof *rig->influences, l->err)))
                return st;
            am_rig_influence *in = &rig->influences[at];
            in->joint = 0;
            in->weight = 0;
            const char *bad = NULL;
            /* [joint_index, weight] */
            if (am_jlex_peek(l) != '[') {
                bad = "expected [joint_index, weight]";
                if ((st = am_jlex_skip(l)))
                    return st;
            } else {
                l->p++;
                size_t e = 0;
                bool joint_int = false, weight_ok = false;
                for (; am_jlex_more(l, ']', e, &st); e++) {
                    int c = am_jlex_peek(l);
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        am_jnum v;
                        if ((st = am_jlex_number(l, &v)))
                            return st;
                        if (e == 0 && v.is_int) {
                            joint_int = true; /* its range is checked once the joints are known */
                            in->joint = v.i < INT_MIN ? INT_MIN : v.i > INT_MAX ? INT_MAX : (int)v.i;
                        } else if (e == 1) {
                            weight_ok = v.d >= 0;
                            in->weight = v.d;
                        }
                    } else if ((st = am_jlex_skip(l)))
                        return st;
                }
                if (st)
                    return st;
                if (e != 2 || !joint_int)
                    bad = "expected [joint_index, weight]";
                else if (!weight_ok)
                    bad = "weight must be a finite number >= 0";
            }
            if (bad && r->pair_bad == SIZE_MAX) {
                r->pair_bad = at;
                r->pair_bad_row = i;
                r->pair_bad_k = k;
                snprintf(r->pair_msg, sizeof r->pair_msg, "%s", bad);
            }
            at++;
        }
        if (st)
            return st;
    }
    if (st)
        return st;
    if ((st = grow((void **)&rig->weight_start, &r->rcap, i + 1, sizeof *rig->weight_start, l->err)))
        return st;
    rig->weight_start[i] = at;
    r->weight_rows = i;
    return AM_OK;
}

typedef struct material_errs {
    field_err rgb, tex;
} material_errs;

static am_status material_member(reader *r, void *ctx)
{
    material_errs *me = ctx;
    am_jlex *l = &r->lx;
    am_rig *rig = r->rig;
    am_status st;
    if (strcmp(l->str, "rgb") == 0) {
        int state;
        double c[3];
        if ((st = read_vec(r, c, 3, &state)))
            return st;
        char m[64];
        if (state != VEC_OK)
            note(&me->rgb, "material.rgb", "%s", vec_msg(state, 3, m, sizeof m));
        else if (c[0] < 0 || c[0] > 1 || c[1] < 0 || c[1] > 1 || c[2] < 0 || c[2] > 1)
            note(&me->rgb, "material.rgb", "colour components must be in 0..1");
        else
            memcpy(rig->rgb, c, sizeof c);
        return AM_OK;
    }
    if (strcmp(l->str, "textured") != 0)
        return am_jlex_skip(l);
    int c = am_jlex_peek(l);
    if (c != 't' && c != 'f') {
        if ((st = am_jlex_skip(l)))
            return st;
        note(&me->tex, "material.textured", "expected true or false");
        return AM_OK;
    }
    bool b = false, z = true;
    if ((st = am_jlex_literal(l, &b, &z)))
        return st;
    rig->textured = b;
    return AM_OK;
}

static am_status read_material(reader *r)
{
    am_jlex *l = &r->lx;
    if (am_jlex_peek(l) != '{') {
        note(&r->e_material, "material", "expected {\"rgb\": [r, g, b], \"textured\": bool}");
        return am_jlex_skip(l);
    }
    l->p++;
    material_errs me = {0};
    am_status st = walk_object(r, material_member, &me);
    if (me.rgb.set)
        note(&r->e_material, me.rgb.field, "%s", me.rgb.msg);
    if (me.tex.set)
        note(&r->e_material, me.tex.field, "%s", me.tex.msg);
    return st;
}

/* The checks that need the whole document, in the fields' order. */
static am_status validate(reader *r)
{
    am_rig *rig = r->rig;
    am_error *err = r->lx.err;
    const char *src = r->src;
    char f[80], m[160];
    if (!r->has_name || !rig->name)
        note(&r->e_name, "name", "expected a name of 1-100 characters from A-Z a-z 0-9 _ - . (it names the output files)");
    if (r->e_name.set)
        return field_fail(err, src, r->e_name.field, r->e_name.msg);
    if (rig->explicit_skin && !r->e_skin.set) {
        am_mat4 inv;
        if (r->skin_bind_shape != VEC_OK)
            note(&r->e_skin, "skin.bind_shape", "%s",
                 vec_msg(r->skin_bind_shape == VEC_ABSENT ? VEC_SHAPE : r->skin_bind_shape, 16, m, sizeof m));
        else if (!am_mat4_inverse(&rig->bind_shape, &inv))
            note(&r->e_skin, "skin.bind_shape", "the bind shape matrix is singular");
        else if (r->skin_jp_bad)
            note(&r->e_skin, "skin.joint_positions", "expected true or false");
    }
    if (r->e_skin.set)
        return field_fail(err, src, r->e_skin.field, r->e_skin.msg);
    if (!r->has_joints || (!r->e_joints.set && rig->joint_count == 0))
        note(&r->e_joints, "joints", "expected a non-empty array of {\"name\", \"world\"}");
    for (size_t i = 0; !r->e_joints.set && i < rig->joint_count; i++) {
        const joint_in *ji = &r->jin[i];
        if (ji->name_bad) {
            snprintf(f, sizeof f, "joints[%zu].name", i);
            note(&r->e_joints, f, "expected a joint name (string)");
        } else if (ji->world != VEC_OK) {
            snprintf(f, sizeof f, "joints[%zu].world", i);
            note(&r->e_joints, f, "%s", vec_msg(ji->world == VEC_ABSENT ? VEC_SHAPE : ji->world, 3, m, sizeof m));
        } else if (rig->explicit_skin && ji->inverse_bind != VEC_OK) {
            snprintf(f, sizeof f, "joints[%zu].inverse_bind", i);
            note(&r->e_joints, f, "%s",
                 vec_msg(ji->inverse_bind == VEC_ABSENT ? VEC_SHAPE : ji->inverse_bind, 16, m, sizeof m));
        } else if (rig->explicit_skin && rig->has_joint_positions && ji->position != VEC_OK) {
            snprintf(f, sizeof f, "joints[%zu].position", i);
            note(&r->e_joints, f, "%s", vec_msg(ji->position == VEC_ABSENT ? VEC_SHAPE : ji->position, 3, m, sizeof m));
        }
    }
    if (r->e_joints.set)
        return field_fail(err, src, r->e_joints.field, r->e_joints.msg);
    if (!r->has_vertices)
        note(&r->e_vertices, "vertices", VERTICES_MSG);
    if (r->e_vertices.set)
        return field_fail(err, src, r->e_vertices.field, r->e_vertices.msg);
    if (!r->has_triangles)
        note(&r->e_triangles, "triangles", TRIANGLES_MSG);
    size_t nv = rig->vertex_count;
    for (size_t i = 0; !r->e_triangles.set && i < rig->triangle_count; i++) {
        const uint32_t *c = &rig->triangles[3 * i];
        bool shape = i == r->tri_shape_bad, range = c[0] >= nv || c[1] >= nv || c[2] >= nv;
        if (!shape && !range && c[0] != c[1] && c[1] != c[2] && c[0] != c[2])
            continue;
        snprintf(f, sizeof f, "triangles[%zu]", i);
        if (shape)
            note(&r->e_triangles, f, "expected [a, b, c]");
        else if (range)
            note(&r->e_triangles, f, "vertex index must be an integer in 0..%zu", nv - 1);
        else
            note(&r->e_triangles, f, "degenerate triangle (a vertex repeated)");
    }
    if (r->e_triangles.set)
        return field_fail(err, src, r->e_triangles.field, r->e_triangles.msg);
    am_status fst = check_faces(r);
    if (fst)
        return fst;
    if (r->e_faces.set)
        return field_fail(err, src, r->e_faces.field, r->e_faces.msg);
    if (!r->has_weights || r->weights_array_bad || r->weight_rows != nv)
        note(&r->e_weights, "weights", "expected one influence list per vertex (%zu)", nv);
    else if (r->row_bad != SIZE_MAX) {
        snprintf(f, sizeof f, "weights[%zu]", r->row_bad);
        note(&r->e_weights, f, "expected an array of [joint_index, weight]");
    } else {
        size_t end = r->pair_bad == SIZE_MAX ? rig->weight_start[nv] : r->pair_bad;
        for (size_t v = 0; v < nv && !r->e_weights.set; v++)
            for (size_t k = rig->weight_start[v]; k < rig->weight_start[v + 1] && k < end; k++) {
                int j = rig->influences[k].joint;
                if (j < 0 || (size_t)j >= rig->joint_count) {
                    snprintf(f, sizeof f, "weights[%zu][%zu]", v, k - rig->weight_start[v]);
                    note(&r->e_weights, f, "joint index %d out of range (%zu joints)", j, rig->joint_count);
                    break;
                }
            }
        if (!r->e_weights.set && r->pair_bad != SIZE_MAX) {
            snprintf(f, sizeof f, "weights[%zu][%zu]", r->pair_bad_row, r->pair_bad_k);
            note(&r->e_weights, f, "%s", r->pair_msg);
        }
    }
    if (r->e_weights.set)
        return field_fail(err, src, r->e_weights.field, r->e_weights.msg);
    if (r->e_material.set)
        return field_fail(err, src, r->e_material.field, r->e_material.msg);
    return AM_OK;
}

static am_status rig_member(reader *r, void *ctx)
{
    (void)ctx;
    const char *k = r->lx.str;
    if (strcmp(k, "name") == 0)
        return read_name(r);
    if (strcmp(k, "skin") == 0)
        return read_skin(r);
    if (strcmp(k, "joints") == 0)
        return read_joints(r);
    if (strcmp(k, "vertices") == 0)
        return read_vertices(r);
    if (strcmp(k, "triangles") == 0)
        return read_triangles(r);
    if (strcmp(k, "faces") == 0)
        return read_faces(r);
    if (strcmp(k, "weights") == 0)
        return read_weights(r);
    if (strcmp(k, "material") == 0)
        return read_material(r);
    return am_jlex_skip(&r->lx);
}

static am_status read_rig(reader *r)
{
    am_jlex *l = &r->lx;
    am_rig *rig = r->rig;
    rig->rgb[0] = rig->rgb[1] = rig->rgb[2] = 1.0;
    rig->bind_shape = am_mat4_identity();
    r->tri_shape_bad = r->row_bad = r->pair_bad = SIZE_MAX;
    int c = am_jlex_peek(l);
    am_status st;
    if (c == '[') { /* a JSON document, but not a rig */
        if ((st = am_jlex_skip(l)) || (st = am_jlex_end(l)))
            return st;
        return field_fail(l->err, r->src, "(top level)", "expected a JSON object");
    }
    if (c != '{')
        return am_jlex_fail(l, "'[' or '{' expected near %s", c ? "the start" : "the end");
    l->p++;
    if ((st = walk_object(r, rig_member, NULL)) || (st = am_jlex_end(l)))
        return st;
    return validate(r);
}

/* Memory left over by the doubling growth, given back. */
static void shrink(am_rig *rig)
{
    size_t n = rig->vertex_count ? rig->vertex_count : 1, t = rig->triangle_count ? rig->triangle_count : 1;
    void *g;
    if (rig->positions && (g = realloc(rig->positions, 3 * n * sizeof(float))))
        rig->positions = g;
    if (rig->normals && (g = realloc(rig->normals, 3 * n * sizeof(float))))
        rig->normals = g;
    if (rig->uvs && (g = realloc(rig->uvs, 2 * n * sizeof(float))))
        rig->uvs = g;
    if (rig->triangles && (g = realloc(rig->triangles, 3 * t * sizeof(uint32_t))))
        rig->triangles = g;
    size_t ni = rig->weight_start ? rig->weight_start[rig->vertex_count] : 0;
    if (rig->influences && (g = realloc(rig->influences, (ni ? ni : 1) * sizeof *rig->influences)))
        rig->influences = g;
}

static am_status parse_with(reader *r, am_rig *out)
{
    memset(out, 0, sizeof *out);
    r->rig = out;
    am_status st = read_rig(r);
    free(r->jin);
    am_jlex_free(&r->lx);
    if (st)
        am_rig_free(out);
    else
        shrink(out);
    return st;
}

am_status am_rig_parse_json(const char *json, size_t size, const char *source, am_rig *out, am_error *err)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.src = source ? source : "rig";
    am_jlex_from_mem(&r.lx, json, size, r.src, err);
    return parse_with(&r, out);
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
    free(rig->face_start);
    free(rig->weight_start);
    free(rig->influences);
    memset(rig, 0, sizeof *rig);
}
