/* The scene stream (scene_stream.h): encoder and bounds-checked decoder. */
#include "scene/scene_stream.h"

#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"

/* A field added to a scene struct changes its size: carry the new field in put_* and
 * get_* below (and in test_scene_stream.c's rich scene), then update the size here. */
#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(am_scene_node) == 368, "am_scene_node changed: carry the new field in scene_stream.c");
_Static_assert(sizeof(am_scene_material) == 80, "am_scene_material changed: carry the new field in scene_stream.c");
_Static_assert(sizeof(am_scene_face) == 24, "am_scene_face changed: carry the new field in scene_stream.c");
_Static_assert(sizeof(am_scene_influence) == 8, "am_scene_influence changed: carry the new field in scene_stream.c");
_Static_assert(sizeof(am_scene_mesh) == 96, "am_scene_mesh changed: carry the new field in scene_stream.c");
_Static_assert(sizeof(am_scene_skin) == 200, "am_scene_skin changed: carry the new field in scene_stream.c");
_Static_assert(sizeof(am_scene_channel) == 40, "am_scene_channel changed: carry the new field in scene_stream.c");
_Static_assert(sizeof(am_scene_clip) == 40, "am_scene_clip changed: carry the new field in scene_stream.c");
_Static_assert(sizeof(am_scene_declared) == 16, "am_scene_declared changed: carry the new field in scene_stream.c");
_Static_assert(sizeof(am_scene) == 176, "am_scene changed: carry the new field in scene_stream.c");
#endif

static const char magic[8] = {'A', 'M', 'S', 'C', 'N', 'S', 'T', 'R'};
enum { KIND_SCENE = 1, KIND_ERROR = 2 };

/* --- writing ----------------------------------------------------------------------- */

typedef struct writer {
    uint8_t *d;
    size_t n, cap;
    bool failed;   /* out of memory or over the stream limit */
    bool too_long; /* a string over AM_SCENE_STREAM_MAX_STRING */
} writer;

static void put(writer *w, const void *p, size_t n)
{
    if (w->failed || n == 0)
        return;
    if (n > AM_SCENE_STREAM_MAX_BYTES - w->n) {
        w->failed = true;
        return;
    }
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->n + n)
            cap *= 2;
        uint8_t *d = realloc(w->d, cap);
        if (!d) {
            w->failed = true;
            return;
        }
        w->d = d;
        w->cap = cap;
    }
    memcpy(w->d + w->n, p, n);
    w->n += n;
}

static void put_u8(writer *w, uint8_t v) { put(w, &v, 1); }

static void put_u32(writer *w, uint32_t v)
{
    uint8_t b[4];
    am_le_put_u32(b, v);
    put(w, b, 4);
}

static void put_u64(writer *w, uint64_t v)
{
    put_u32(w, (uint32_t)v);
    put_u32(w, (uint32_t)(v >> 32));
}

static void put_i32(writer *w, int v) { put_u32(w, (uint32_t)v); }

static void put_f32(writer *w, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(w, u);
}

static void put_f64(writer *w, double f)
{
    uint64_t u;
    memcpy(&u, &f, 8);
    put_u64(w, u);
}

static void put_str(writer *w, const char *s)
{
    if (!s) {
        put_u32(w, UINT32_MAX);
        return;
    }
    size_t n = strlen(s);
    if (n > AM_SCENE_STREAM_MAX_STRING) {
        w->too_long = true;
        n = 0;
    }
    put_u32(w, (uint32_t)n);
    put(w, s, n);
}

static void put_mat(writer *w, const am_mat4 *m)
{
    for (int i = 0; i < 16; i++)
        put_f64(w, m->m[i]);
}

static void put_v3(writer *w, am_vec3 v)
{
    put_f64(w, v.x);
    put_f64(w, v.y);
    put_f64(w, v.z);
}

static void put_f32s(writer *w, const float *p, size_t n)
{
    put_u8(w, p != NULL);
    for (size_t i = 0; p && i < n; i++)
        put_f32(w, p[i]);
}

static void put_u32s(writer *w, const uint32_t *p, size_t n)
{
    put_u8(w, p != NULL);
    for (size_t i = 0; p && i < n; i++)
        put_u32(w, p[i]);
}

static void put_node(writer *w, const am_scene_node *nd)
{
    put_str(w, nd->name);
    put_str(w, nd->sid);
    put_i32(w, nd->parent);
    put_mat(w, &nd->local);
    put_v3(w, nd->translation);
    put_f64(w, nd->rotation.x);
    put_f64(w, nd->rotation.y);
    put_f64(w, nd->rotation.z);
    put_f64(w, nd->rotation.w);
    put_v3(w, nd->scale);
    put_u8(w, nd->has_trs);
    put_u8(w, nd->is_joint);
    put_u8(w, nd->has_file_index);
    put_i32(w, nd->file_index);
    put_mat(w, &nd->world);
}

static void put_material(writer *w, const am_scene_material *m)
{
    put_str(w, m->name);
    for (int i = 0; i < 4; i++)
        put_f64(w, m->base_color[i]);
    put_str(w, m->image_path);
    put_u8(w, m->image_data != NULL);
    if (m->image_data) {
        put_u64(w, m->image_size);
        put(w, m->image_data, m->image_size);
    }
    put_str(w, am_str(&m->image_mime));
}

static void put_mesh(writer *w, const am_scene_mesh *m)
{
    size_t vc = m->vertex_count;
    put_str(w, m->name);
    put_i32(w, m->node);
    put_u64(w, vc);
    put_f32s(w, m->positions, 3 * vc);
    put_f32s(w, m->normals, 3 * vc);
    put_f32s(w, m->uvs, 2 * vc);
    put_u64(w, m->faces ? m->face_count : 0);
    for (size_t f = 0; m->faces && f < m->face_count; f++) {
        put_i32(w, m->faces[f].material);
        put_u64(w, m->faces[f].index_count);
        put_u32s(w, m->faces[f].indices, m->faces[f].index_count);
    }
    put_i32(w, m->skin);
    bool skinned = m->influence_start && m->influences;
    put_u8(w, skinned);
    if (skinned) {
        for (size_t v = 0; v <= vc; v++)
            put_u64(w, m->influence_start[v]);
        for (size_t k = 0; k < m->influence_start[vc]; k++) {
            put_u32(w, m->influences[k].joint);
            put_f32(w, m->influences[k].weight);
        }
    }
    put_u32s(w, m->source_position, vc);
}

static void put_skin(writer *w, const am_scene_skin *k)
{
    size_t jc = k->joint_count;
    put_str(w, k->name);
    put_u64(w, jc);
    put_u8(w, k->joint_names != NULL);
    for (size_t j = 0; k->joint_names && j < jc; j++)
        put_str(w, k->joint_names[j]);
    put_u8(w, k->joint_nodes != NULL);
    for (size_t j = 0; k->joint_nodes && j < jc; j++)
        put_i32(w, k->joint_nodes[j]);
    put_u8(w, k->inverse_binds != NULL);
    for (size_t j = 0; k->inverse_binds && j < jc; j++)
        put_mat(w, &k->inverse_binds[j]);
    put_u8(w, k->has_inverse_binds);
    put_mat(w, &k->bind_shape);
    put_i32(w, k->skeleton_root);
    put_u8(w, k->upload_positions != NULL);
    for (size_t j = 0; k->upload_positions && j < jc; j++)
        put_v3(w, k->upload_positions[j]);
    put_u8(w, k->upload_position_found != NULL);
    for (size_t j = 0; k->upload_position_found && j < jc; j++)
        put_u8(w, k->upload_position_found[j]);
}

/* Floats per key of a channel (what the decoder checks the values against). */
static size_t key_floats(am_scene_path path, am_scene_interp interp)
{
    size_t width = path == AM_SCENE_PATH_ROTATION ? 4 : 3;
    return interp == AM_SCENE_INTERP_CUBICSPLINE ? 3 * width : width;
}

static void put_clip(writer *w, const am_scene_clip *c)
{
    put_str(w, c->name);
    put_u64(w, c->channels ? c->channel_count : 0);
    for (size_t i = 0; c->channels && i < c->channel_count; i++) {
        const am_scene_channel *ch = &c->channels[i];
        put_i32(w, ch->node);
        put_u32(w, (uint32_t)ch->path);
        put_u32(w, (uint32_t)ch->interp);
        put_u64(w, ch->key_count);
        put_f32s(w, ch->times, ch->key_count);
        put_f32s(w, ch->values, ch->key_count * key_floats(ch->path, ch->interp));
    }
    put_f64(w, c->start_s);
    put_f64(w, c->end_s);
}

static void put_header(writer *w, uint8_t kind)
{
    put(w, magic, sizeof magic);
    put_u32(w, AM_SCENE_STREAM_VERSION);
    put_u8(w, kind);
}

static am_status finish_writer(writer *w, uint8_t **out, size_t *size, am_error *err)
{
    put(w, "END!", 4);
    if (w->failed || w->too_long) {
        free(w->d);
        *out = NULL;
        *size = 0;
        if (w->too_long)
            return am_fail(err, AM_ERR_INVALID, "scene stream: a name is over %zu bytes",
                           AM_SCENE_STREAM_MAX_STRING);
        return w->n >= AM_SCENE_STREAM_MAX_BYTES - 16
                   ? am_fail(err, AM_ERR_INVALID, "scene stream: the scene is over %zu MiB",
                             AM_SCENE_STREAM_MAX_BYTES >> 20)
                   : am_fail_nomem(err, "scene stream");
    }
    *out = w->d;
    *size = w->n;
    return AM_OK;
}

am_status am_scene_stream_encode(const am_scene *s, uint8_t **out, size_t *size, am_error *err)
{
    writer w = {0};
    put_header(&w, KIND_SCENE);
    put_str(&w, s->source);
    put_str(&w, s->base_dir);
    put_u32(&w, (uint32_t)s->format);
    put_str(&w, am_str(&s->format_detail));
    put_u64(&w, s->nodes ? s->node_count : 0);
    for (size_t i = 0; s->nodes && i < s->node_count; i++)
        put_node(&w, &s->nodes[i]);
    put_u64(&w, s->materials ? s->material_count : 0);
    for (size_t i = 0; s->materials && i < s->material_count; i++)
        put_material(&w, &s->materials[i]);
    put_u64(&w, s->meshes ? s->mesh_count : 0);
    for (size_t i = 0; s->meshes && i < s->mesh_count; i++)
        put_mesh(&w, &s->meshes[i]);
    put_u64(&w, s->skins ? s->skin_count : 0);
    for (size_t i = 0; s->skins && i < s->skin_count; i++)
        put_skin(&w, &s->skins[i]);
    put_u64(&w, s->clips ? s->clip_count : 0);
    for (size_t i = 0; s->clips && i < s->clip_count; i++)
        put_clip(&w, &s->clips[i]);
    put_i32(&w, s->declared.up);
    put_i32(&w, s->declared.forward);
    put_f64(&w, s->declared.unit_m);
    size_t notes = s->note_count < AM_SCENE_MAX_NOTES ? s->note_count : AM_SCENE_MAX_NOTES;
    put_u32(&w, (uint32_t)notes);
    for (size_t i = 0; i < notes; i++)
        put_str(&w, am_str(&s->notes[i]));
    put_u64(&w, s->notes_dropped);
    return finish_writer(&w, out, size, err);
}

am_status am_scene_stream_encode_error(const am_error *carried, uint8_t **out, size_t *size, am_error *err)
{
    writer w = {0};
    put_header(&w, KIND_ERROR);
    char msg[sizeof carried->msg + 1], where[sizeof carried->where + 1];
    memcpy(msg, carried->msg, sizeof carried->msg);
    msg[sizeof carried->msg] = '\0';
    memcpy(where, carried->where, sizeof carried->where);
    where[sizeof carried->where] = '\0';
    put_u32(&w, (uint32_t)carried->code);
    put_str(&w, msg);
    put_str(&w, where);
    put_u64(&w, carried->offset);
    return finish_writer(&w, out, size, err);
}

/* --- reading ----------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *d;
    size_t n, pos;
    bool bad;
    am_error *err;
} reader;

static bool fail(reader *r, const char *what)
{
    if (!r->bad)
        am_fail_at(r->err, AM_ERR_INVALID, r->pos, "scene stream: %s", what);
    r->bad = true;
    return false;
}

static bool nomem(reader *r, const char *what)
{
    if (!r->bad)
        am_fail_nomem(r->err, what);
    r->bad = true;
    return false;
}

static const uint8_t *take(reader *r, size_t n)
{
    if (r->bad)
        return NULL;
    if (n > r->n - r->pos) {
        fail(r, "cut short");
        return NULL;
    }
    const uint8_t *p = r->d + r->pos;
    r->pos += n;
    return p;
}

static uint32_t get_u32(reader *r)
{
    const uint8_t *b = take(r, 4);
    return b ? am_le_u32(b) : 0;
}

static uint64_t get_u64(reader *r)
{
    uint64_t lo = get_u32(r);
    return lo | (uint64_t)get_u32(r) << 32;
}

static uint8_t get_u8(reader *r)
{
    const uint8_t *b = take(r, 1);
    return b ? b[0] : 0;
}

static bool get_bool(reader *r)
{
    uint8_t v = get_u8(r);
    if (v > 1)
        fail(r, "a flag is neither 0 nor 1");
    return v == 1;
}

static int get_i32(reader *r) { return (int)(int32_t)get_u32(r); }

static float get_f32(reader *r)
{
    uint32_t u = get_u32(r);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double get_f64(reader *r)
{
    uint64_t u = get_u64(r);
    double f;
    memcpy(&f, &u, 8);
    return f;
}

/* A count of records of at least `min_bytes` each: refused when the bytes left cannot
 * hold them (so nothing is allocated for a count the stream does not back). */
static size_t get_count(reader *r, size_t min_bytes, const char *what)
{
    uint64_t c = get_u64(r);
    if (r->bad)
        return 0;
    if (c > (r->n - r->pos) / min_bytes) {
        fail(r, what);
        return 0;
    }
    return (size_t)c;
}

/* A string: NULL for the NULL marker; `required` refuses the marker. */
static char *get_str(reader *r, bool required)
{
    uint32_t n = get_u32(r);
    if (r->bad)
        return NULL;
    if (n == UINT32_MAX) {
        if (required)
            fail(r, "a required name is missing");
        return NULL;
    }
    if (n > AM_SCENE_STREAM_MAX_STRING)
        return fail(r, "a string is over the length limit"), NULL;
    const uint8_t *p = take(r, n);
    if (!p)
        return NULL;
    if (memchr(p, 0, n))
        return fail(r, "a string holds a NUL byte"), NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return nomem(r, "scene stream string"), NULL;
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

/* A required string into an owned one (dst unset on failure). */
static void get_owned(reader *r, am_string *dst)
{
    char *s = get_str(r, true);
    dst->data = s;
    dst->length = s ? strlen(s) : 0;
}

static void *alloc_array(reader *r, size_t count, size_t elem)
{
    if (count == 0)
        count = 1;
    void *p = calloc(count, elem);
    if (!p)
        nomem(r, "scene stream array");
    return p;
}

/* An optional array of n floats (4 bytes each in the stream). */
static float *get_f32s(reader *r, size_t n)
{
    if (!get_bool(r) || r->bad)
        return NULL;
    if (n > (r->n - r->pos) / 4)
        return fail(r, "an array is longer than the bytes left"), NULL;
    float *p = alloc_array(r, n, sizeof *p);
    for (size_t i = 0; p && i < n; i++)
        p[i] = get_f32(r);
    return p;
}

static uint32_t *get_u32s(reader *r, size_t n)
{
    if (!get_bool(r) || r->bad)
        return NULL;
    if (n > (r->n - r->pos) / 4)
        return fail(r, "an array is longer than the bytes left"), NULL;
    uint32_t *p = alloc_array(r, n, sizeof *p);
    for (size_t i = 0; p && i < n; i++)
        p[i] = get_u32(r);
    return p;
}

static void get_mat(reader *r, am_mat4 *m)
{
    for (int i = 0; i < 16; i++)
        m->m[i] = get_f64(r);
}

static am_vec3 get_v3(reader *r)
{
    am_vec3 v;
    v.x = get_f64(r);
    v.y = get_f64(r);
    v.z = get_f64(r);
    return v;
}

static void get_node(reader *r, am_scene_node *nd)
{
    nd->name = get_str(r, true);
    nd->sid = get_str(r, false);
    nd->parent = get_i32(r);
    get_mat(r, &nd->local);
    nd->translation = get_v3(r);
    nd->rotation.x = get_f64(r);
    nd->rotation.y = get_f64(r);
    nd->rotation.z = get_f64(r);
    nd->rotation.w = get_f64(r);
    nd->scale = get_v3(r);
    nd->has_trs = get_bool(r);
    nd->is_joint = get_bool(r);
    nd->has_file_index = get_bool(r);
    nd->file_index = get_i32(r);
    get_mat(r, &nd->world);
}

static void get_material(reader *r, am_scene_material *m)
{
    m->name = get_str(r, true);
    for (int i = 0; i < 4; i++)
        m->base_color[i] = get_f64(r);
    m->image_path = get_str(r, false);
    if (get_bool(r) && !r->bad) {
        uint64_t n = get_u64(r);
        if (r->bad)
            return;
        if (n > r->n - r->pos) {
            fail(r, "image bytes longer than the bytes left");
            return;
        }
        m->image_data = alloc_array(r, (size_t)n, 1);
        const uint8_t *p = take(r, (size_t)n);
        if (m->image_data && p) {
            memcpy(m->image_data, p, (size_t)n);
            m->image_size = (size_t)n;
        }
    }
    get_owned(r, &m->image_mime);
}

static void get_mesh(reader *r, am_scene_mesh *m)
{
    m->name = get_str(r, true);
    m->node = get_i32(r);
    size_t vc = get_count(r, 1, "vertex count beyond the bytes left");
    m->vertex_count = vc;
    if (vc > SIZE_MAX / 16)
        return (void)fail(r, "vertex count too large");
    m->positions = get_f32s(r, 3 * vc);
    if (!r->bad && vc && !m->positions)
        fail(r, "a mesh with vertices has no positions");
    m->normals = get_f32s(r, 3 * vc);
    m->uvs = get_f32s(r, 2 * vc);
    size_t fc = get_count(r, 13, "face count beyond the bytes left");
    if (r->bad)
        return;
    m->faces = alloc_array(r, fc, sizeof *m->faces);
    if (!m->faces)
        return;
    m->face_count = fc;
    for (size_t f = 0; f < fc && !r->bad; f++) {
        m->faces[f].material = get_i32(r);
        size_t ic = get_count(r, 4, "index count beyond the bytes left");
        m->faces[f].index_count = ic;
        m->faces[f].indices = get_u32s(r, ic);
        if (!r->bad && !m->faces[f].indices)
            fail(r, "a face has no index array");
    }
    m->skin = get_i32(r);
    if (get_bool(r) && !r->bad) {
        if (vc + 1 > (r->n - r->pos) / 8)
            return (void)fail(r, "influence starts beyond the bytes left");
        m->influence_start = alloc_array(r, vc + 1, sizeof *m->influence_start);
        if (!m->influence_start)
            return;
        for (size_t v = 0; v <= vc; v++) {
            uint64_t s = get_u64(r);
            if (r->bad)
                return;
            if ((v == 0 && s != 0) || (v > 0 && s < m->influence_start[v - 1]) || s > (r->n - r->pos) / 8)
                return (void)fail(r, "influence starts not increasing from 0");
            m->influence_start[v] = (size_t)s;
        }
        size_t ni = m->influence_start[vc];
        if (ni > (r->n - r->pos) / 8)
            return (void)fail(r, "influences beyond the bytes left");
        m->influences = alloc_array(r, ni, sizeof *m->influences);
        for (size_t k = 0; m->influences && k < ni; k++) {
            m->influences[k].joint = get_u32(r);
            m->influences[k].weight = get_f32(r);
        }
    }
    m->source_position = get_u32s(r, vc);
}

static void get_skin(reader *r, am_scene_skin *k)
{
    k->name = get_str(r, true);
    size_t jc = get_count(r, 1, "joint count beyond the bytes left");
    k->joint_count = jc;
    if (r->bad)
        return;
    if (get_bool(r) && !r->bad) {
        if (jc > (r->n - r->pos) / 4)
            return (void)fail(r, "joint names beyond the bytes left");
        k->joint_names = alloc_array(r, jc, sizeof *k->joint_names);
        for (size_t j = 0; k->joint_names && j < jc && !r->bad; j++)
            k->joint_names[j] = get_str(r, true);
    }
    if (get_bool(r) && !r->bad) {
        if (jc > (r->n - r->pos) / 4)
            return (void)fail(r, "joint nodes beyond the bytes left");
        k->joint_nodes = alloc_array(r, jc, sizeof *k->joint_nodes);
        for (size_t j = 0; k->joint_nodes && j < jc; j++)
            k->joint_nodes[j] = get_i32(r);
    }
    if (get_bool(r) && !r->bad) {
        if (jc > (r->n - r->pos) / 128)
            return (void)fail(r, "inverse binds beyond the bytes left");
        k->inverse_binds = alloc_array(r, jc, sizeof *k->inverse_binds);
        for (size_t j = 0; k->inverse_binds && j < jc; j++)
            get_mat(r, &k->inverse_binds[j]);
    }
    k->has_inverse_binds = get_bool(r);
    get_mat(r, &k->bind_shape);
    k->skeleton_root = get_i32(r);
    if (get_bool(r) && !r->bad) {
        if (jc > (r->n - r->pos) / 24)
            return (void)fail(r, "upload positions beyond the bytes left");
        k->upload_positions = alloc_array(r, jc, sizeof *k->upload_positions);
        for (size_t j = 0; k->upload_positions && j < jc; j++)
            k->upload_positions[j] = get_v3(r);
    }
    if (get_bool(r) && !r->bad) {
        if (jc > r->n - r->pos)
            return (void)fail(r, "upload flags beyond the bytes left");
        k->upload_position_found = alloc_array(r, jc, sizeof *k->upload_position_found);
        for (size_t j = 0; k->upload_position_found && j < jc; j++)
            k->upload_position_found[j] = get_bool(r);
    }
    if (!r->bad && jc && (!k->joint_names || !k->joint_nodes || !k->inverse_binds))
        fail(r, "a skin with joints lacks its names, nodes or inverse binds");
}

static void get_clip(reader *r, am_scene_clip *c)
{
    c->name = get_str(r, true);
    size_t cc = get_count(r, 26, "channel count beyond the bytes left");
    if (r->bad)
        return;
    c->channels = alloc_array(r, cc, sizeof *c->channels);
    if (!c->channels)
        return;
    c->channel_count = cc;
    for (size_t i = 0; i < cc && !r->bad; i++) {
        am_scene_channel *ch = &c->channels[i];
        ch->node = get_i32(r);
        uint32_t path = get_u32(r), interp = get_u32(r);
        if (!r->bad && (path > AM_SCENE_PATH_SCALE || interp > AM_SCENE_INTERP_CUBICSPLINE))
            return (void)fail(r, "a channel's path or interpolation is unknown");
        ch->path = (am_scene_path)path;
        ch->interp = (am_scene_interp)interp;
        size_t kc = get_count(r, 4, "key count beyond the bytes left");
        ch->key_count = kc;
        ch->times = get_f32s(r, kc);
        ch->values = get_f32s(r, kc * key_floats(ch->path, ch->interp));
    }
    c->start_s = get_f64(r);
    c->end_s = get_f64(r);
}

static void get_error(reader *r, am_error *err)
{
    uint32_t code = get_u32(r);
    char *msg = get_str(r, true), *where = get_str(r, true);
    uint64_t offset = get_u64(r);
    if (!r->bad && (code == AM_OK || code > AM_ERR_NETWORK))
        fail(r, "the error record's code is not an error");
    if (!r->bad && err) {
        am_fail_at(err, (am_status)code, offset == UINT64_MAX ? AM_NO_OFFSET : (size_t)offset, "%s", msg);
        if (where[0])
            am_error_where(err, "%s", where);
    }
    free(msg);
    free(where);
}

static void get_scene(reader *r, am_scene *s)
{
    s->source = get_str(r, false);
    s->base_dir = get_str(r, false);
    uint32_t format = get_u32(r);
    if (!r->bad && format > AM_SCENE_FORMAT_OBJ)
        return (void)fail(r, "unknown scene format");
    s->format = (am_scene_format)format;
    get_owned(r, &s->format_detail);

#define GET_ARRAY(field, count, min_bytes, get_one, what)                                                       \
    do {                                                                                                        \
        size_t n_ = get_count(r, min_bytes, what " count beyond the bytes left");                               \
        if (r->bad)                                                                                             \
            return;                                                                                             \
        s->field = alloc_array(r, n_, sizeof *s->field);                                                        \
        if (!s->field)                                                                                          \
            return;                                                                                             \
        s->count = n_;                                                                                          \
        for (size_t i_ = 0; i_ < n_ && !r->bad; i_++)                                                           \
            get_one(r, &s->field[i_]);                                                                          \
        if (r->bad)                                                                                             \
            return;                                                                                             \
    } while (0)
    GET_ARRAY(nodes, node_count, 8, get_node, "node");
    GET_ARRAY(materials, material_count, 8, get_material, "material");
    GET_ARRAY(meshes, mesh_count, 8, get_mesh, "mesh");
    GET_ARRAY(skins, skin_count, 8, get_skin, "skin");
    GET_ARRAY(clips, clip_count, 8, get_clip, "clip");
#undef GET_ARRAY
    s->declared.up = get_i32(r);
    s->declared.forward = get_i32(r);
    s->declared.unit_m = get_f64(r);
    uint32_t notes = get_u32(r);
    if (!r->bad && notes > AM_SCENE_MAX_NOTES)
        return (void)fail(r, "more notes than a scene holds");
    if (!r->bad && notes) {
        s->notes = alloc_array(r, notes, sizeof *s->notes);
        s->note_cap = s->notes ? notes : 0;
    }
    for (uint32_t i = 0; i < notes && s->notes && !r->bad; i++) {
        get_owned(r, &s->notes[i]);
        if (s->notes[i].data)
            s->note_count = i + 1;
    }
    s->notes_dropped = (size_t)get_u64(r);
}

am_status am_scene_stream_decode(const uint8_t *data, size_t size, am_scene *out, bool *was_error, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (was_error)
        *was_error = false;
    am_error local;
    reader r = {data, data ? size : 0, 0, false, err ? err : &local};
    const uint8_t *m = take(&r, sizeof magic);
    if (m && memcmp(m, magic, sizeof magic) != 0) {
        r.pos = 0;
        fail(&r, "not a scene stream (no magic)");
    }
    uint32_t version = get_u32(&r);
    uint8_t kind = get_u8(&r);
    if (!r.bad && version != AM_SCENE_STREAM_VERSION)
        fail(&r, "unknown version");
    if (!r.bad && kind != KIND_SCENE && kind != KIND_ERROR)
        fail(&r, "unknown record kind");
    am_error carried;
    am_error_clear(&carried);
    if (!r.bad) {
        if (kind == KIND_SCENE)
            get_scene(&r, out);
        else
            get_error(&r, &carried);
    }
    const uint8_t *end = take(&r, 4);
    if (end && memcmp(end, "END!", 4) != 0)
        r.pos -= 4, fail(&r, "no end mark");
    if (!r.bad && r.pos != r.n)
        fail(&r, "bytes after the end mark");
    if (r.bad) {
        am_scene_free(out);
        return r.err->code;
    }
    if (kind == KIND_ERROR) {
        if (was_error)
            *was_error = true;
        if (err)
            *err = carried;
        return carried.code;
    }
    return AM_OK;
}
