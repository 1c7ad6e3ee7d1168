/* Wavefront OBJ reader (scene_load.h's reader contract).
 *
 * What it reads: `v` (x y z, extra values such as w or vertex colours ignored), `vt` (u v,
 * OBJ's v is up like the scene's), `vn`, `f` with any of the v, v/vt, v//vn, v/vt/vn forms,
 * 1-based or negative (relative) indices, polygons fan-triangulated from their first corner;
 * `o` and `g` start a new mesh (the same name again continues nothing: each statement is a
 * new mesh once the current one has faces); `usemtl` starts a face of that material;
 * `mtllib` files (newmtl, Kd, d, map_Kd). External files (.mtl, images) are taken only from
 * inside the model's folder: an absolute path, a `..` component or a symlink leading out is
 * not followed (a note says so); a missing file is a note too, never a failure.
 *
 * Every index is checked against the counts read so far; a malformed number or an index out
 * of range fails naming the line. A mesh's vertices are its distinct (v, vt, vn) corners,
 * ordered by position index first (so a file with positions only keeps the file's vertex
 * order); `source_position` holds each vertex's file position index (0-based), which lets a
 * caller weld the corners split by UV or normal seams. Unused positions are dropped.
 * OBJ declares no units or axes: `declared` stays empty. */
/* realpath is XSI. */
#define _XOPEN_SOURCE 700
#include "readers/obj/obj_read.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/decimal.h"
#include "core/io.h"
#include "core/radix.h"

#define MAX_MTL_BYTES ((size_t)16 << 20)

typedef struct corner {
    int32_t v, t, n; /* 0-based; -1 when absent */
} corner;

typedef struct grow {
    void *data;
    size_t count, cap, elem;
} grow;

/* Room for k more elements; false when out of memory. */
static bool grow_reserve(grow *g, size_t k)
{
    if (g->count + k <= g->cap)
        return true;
    size_t cap = g->cap ? g->cap : 256;
    while (cap < g->count + k) {
        if (cap > SIZE_MAX / 2 / g->elem)
            return false;
        cap *= 2;
    }
    void *d = realloc(g->data, cap * g->elem);
    if (!d)
        return false;
    g->data = d;
    g->cap = cap;
    return true;
}

static void *grow_push(grow *g)
{
    if (!grow_reserve(g, 1))
        return NULL;
    return (char *)g->data + g->elem * g->count++;
}

typedef struct obj_state {
    const char *source;
    const char *base_dir;
    am_scene *scene;
    grow v, vt, vn;       /* float x3, x2, x3 */
    /* The mesh being read. */
    char *mesh_name;
    grow corners;         /* corner x3 per triangle */
    grow tri_material;    /* int per triangle */
    int material;         /* current usemtl, -1 none */
    size_t line;
} obj_state;

static am_status fail_line(obj_state *st, am_error *err, const char *fmt, const char *detail)
{
    am_fail(err, AM_ERR_INVALID, fmt, detail);
    am_error_where(err, "%s: line %zu", st->source, st->line);
    return AM_ERR_INVALID;
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Parse one number token; false when the token is not a whole finite-or-not number. */
static bool parse_float(const char **pp, const char *end, float *out)
{
    const char *p = skip_ws(*pp, end), *stop;
    double fast;
    if (am_decimal_fast(p, end, &fast, &stop)) { /* "0.123456": the same double strtod gives */
        *out = (float)fast;
        *pp = stop;
        return true;
    }
    char buf[64];
    size_t n = 0;
    while (p + n < end && !isspace((unsigned char)p[n]) && n < sizeof buf - 1) {
        buf[n] = p[n];
        n++;
    }
    if (n == 0 || (p + n < end && !isspace((unsigned char)p[n])))
        return false;
    buf[n] = '\0';
    char *e;
    errno = 0;
    double d = strtod(buf, &e);
    if (*e != '\0')
        return false;
    *out = (float)d; /* NaN/inf pass here; am_scene_finish refuses them naming the mesh */
    *pp = p + n;
    return true;
}

static am_status read_vector(obj_state *st, const char *p, const char *end, grow *g, int want, int need,
                             const char *what, am_error *err)
{
    float *dst = grow_push(g);
    if (!dst)
        return am_fail_nomem(err, st->source);
    for (int k = 0; k < want; k++) {
        const char *q = skip_ws(p, end);
        if (q >= end) {
            if (k < need)
                return fail_line(st, err, "%s needs more numbers", what);
            dst[k] = 0.0f;
            continue;
        }
        if (!parse_float(&p, end, &dst[k]))
            return fail_line(st, err, "%s: not a number", what);
    }
    return AM_OK; /* extra values (w, vertex colours) are ignored */
}

/* One OBJ index: 1-based, or negative relative to `count` read so far. */
static bool resolve_index(long raw, size_t count, int32_t *out)
{
    if (raw > 0 && (size_t)raw <= count) {
        *out = (int32_t)(raw - 1);
        return true;
    }
    if (raw < 0 && (size_t)(-raw) <= count) {
        *out = (int32_t)((long)count + raw);
        return true;
    }
    return false;
}

static am_status parse_corner(obj_state *st, const char **pp, const char *end, corner *c, am_error *err)
{
    const char *p = *pp;
    long raw[3] = {0, 0, 0};
    bool have[3] = {false, false, false};
    for (int part = 0; part < 3; part++) {
        if (part > 0) {
            if (p >= end || *p != '/')
                break;
            p++;
        }
        if (p < end && (*p == '/' || isspace((unsigned char)*p))) {
            if (part == 0)
                return fail_line(st, err, "face corner without a position index%s", "");
            continue;
        }
        /* the common index (digits, at most 18) read directly; else strtol on a bounded copy
         * (the line is not NUL-terminated) */
        size_t n = 0;
        long direct = 0;
        while (p + n < end && n < 18 && p[n] >= '0' && p[n] <= '9')
            direct = direct * 10 + (p[n++] - '0');
        if (n > 0 && (p + n == end || p[n] == '/' || isspace((unsigned char)p[n]))) {
            raw[part] = direct;
            have[part] = true;
            p += n;
            continue;
        }
        char num[24];
        n = 0;
        while (p + n < end && n < sizeof num - 1 && (p[n] == '-' || p[n] == '+' || (p[n] >= '0' && p[n] <= '9')))
            n++;
        memcpy(num, p, n);
        num[n] = '\0';
        char *e;
        errno = 0;
        raw[part] = strtol(num, &e, 10);
        if (n == 0 || *e != '\0' || errno == ERANGE)
            return fail_line(st, err, "face corner: %s", "expected an index");
        have[part] = true;
        p += n;
    }
    if (p < end && !isspace((unsigned char)*p))
        return fail_line(st, err, "face corner: %s", "unexpected character after the indices");
    if (!have[0] || !resolve_index(raw[0], st->v.count, &c->v)) {
        char d[96];
        snprintf(d, sizeof d, "position index %ld out of range (%zu positions so far)", raw[0], st->v.count);
        return fail_line(st, err, "face: %s", d);
    }
    c->t = c->n = -1;
    if (have[1] && !resolve_index(raw[1], st->vt.count, &c->t)) {
        char d[96];
        snprintf(d, sizeof d, "texture index %ld out of range (%zu so far)", raw[1], st->vt.count);
        return fail_line(st, err, "face: %s", d);
    }
    if (have[2] && !resolve_index(raw[2], st->vn.count, &c->n)) {
        char d[96];
        snprintf(d, sizeof d, "normal index %ld out of range (%zu so far)", raw[2], st->vn.count);
        return fail_line(st, err, "face: %s", d);
    }
    *pp = p;
    return AM_OK;
}

static am_status read_face(obj_state *st, const char *p, const char *end, am_error *err)
{
    corner first, prev, cur;
    size_t n = 0;
    for (;;) {
        p = skip_ws(p, end);
        if (p >= end)
            break;
        am_status s = parse_corner(st, &p, end, &cur, err);
        if (s)
            return s;
        if (n == 0)
            first = cur;
        else if (n >= 2) {
            if (!grow_reserve(&st->corners, 3) || !grow_reserve(&st->tri_material, 1))
                return am_fail_nomem(err, st->source);
            corner *tri = (corner *)st->corners.data + st->corners.count;
            tri[0] = first;
            tri[1] = prev;
            tri[2] = cur;
            st->corners.count += 3;
            ((int *)st->tri_material.data)[st->tri_material.count++] = st->material;
        }
        prev = cur;
        n++;
    }
    if (n < 3) {
        char d[32];
        snprintf(d, sizeof d, "%zu", n);
        return fail_line(st, err, "face with %s corners (a face needs at least 3)", d);
    }
    return AM_OK;
}

static int cmp_corner(const void *a, const void *b)
{
    const corner *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return 0;
}

/* Turn the triangles read since the last o/g into a scene mesh. */
static am_status finish_mesh(obj_state *st, am_error *err)
{
    size_t tris = st->tri_material.count;
    if (tris == 0)
        return AM_OK;
    am_scene *sc = st->scene;
    am_scene_mesh *meshes = realloc(sc->meshes, (sc->mesh_count + 1) * sizeof *meshes);
    if (!meshes)
        return am_fail_nomem(err, st->source);
    sc->meshes = meshes;
    am_scene_mesh *m = &sc->meshes[sc->mesh_count++];
    memset(m, 0, sizeof *m);
    m->node = -1;
    m->skin = -1;
    m->name = am_strdup(st->mesh_name ? st->mesh_name : "");
    const corner *cs = st->corners.data;
    size_t nc = 3 * tris;
    /* The unique corners in (v, t, n) order: three stable radix passes (n, then t, then v)
     * instead of qsort and a binary search per corner (42% of reading a 450k mesh). */
    corner *sorted = malloc(nc * sizeof *sorted);
    uint32_t *key = malloc(nc * sizeof *key), *order = malloc(nc * sizeof *order);
    uint32_t *corner_vertex = malloc(nc * sizeof *corner_vertex);
    if (!m->name || !sorted || !key || !order || !corner_vertex) {
        free(sorted);
        free(key);
        free(order);
        free(corner_vertex);
        return am_fail_nomem(err, st->source);
    }
    for (size_t i = 0; i < nc; i++)
        order[i] = (uint32_t)i;
    am_status rs = AM_OK;
    for (int pass = 0; pass < 3 && !rs; pass++) {
        for (size_t i = 0; i < nc; i++) {
            const corner *c = &cs[order[i]];
            key[i] = pass == 0 ? (uint32_t)(c->n + 1) : pass == 1 ? (uint32_t)(c->t + 1) : (uint32_t)c->v;
        }
        rs = am_radix_sort_u32(key, order, nc, err);
    }
    free(key);
    if (rs) {
        free(sorted);
        free(order);
        free(corner_vertex);
        return rs;
    }
    size_t nu = 0;
    bool any_t = false, any_n = false;
    for (size_t i = 0; i < nc; i++) {
        const corner *c = &cs[order[i]];
        if (nu == 0 || cmp_corner(&sorted[nu - 1], c) != 0)
            sorted[nu++] = *c;
        corner_vertex[order[i]] = (uint32_t)(nu - 1);
        any_t |= c->t >= 0;
        any_n |= c->n >= 0;
    }
    free(order);
    m->vertex_count = nu;
    m->positions = malloc(3 * nu * sizeof(float));
    m->source_position = malloc(nu * sizeof(uint32_t));
    m->uvs = any_t ? calloc(2 * nu, sizeof(float)) : NULL;
    m->normals = any_n ? calloc(3 * nu, sizeof(float)) : NULL;
    if (!m->positions || !m->source_position || (any_t && !m->uvs) || (any_n && !m->normals)) {
        free(sorted);
        free(corner_vertex);
        return am_fail_nomem(err, st->source);
    }
    const float *v = st->v.data, *vt = st->vt.data, *vn = st->vn.data;
    for (size_t i = 0; i < nu; i++) {
        memcpy(&m->positions[3 * i], &v[3 * (size_t)sorted[i].v], 3 * sizeof(float));
        m->source_position[i] = (uint32_t)sorted[i].v;
        if (sorted[i].t >= 0)
            memcpy(&m->uvs[2 * i], &vt[2 * (size_t)sorted[i].t], 2 * sizeof(float));
        if (sorted[i].n >= 0)
            memcpy(&m->normals[3 * i], &vn[3 * (size_t)sorted[i].n], 3 * sizeof(float));
    }
    /* Faces: one per material, in order of first use. */
    const int *mat = st->tri_material.data;
    for (size_t t = 0; t < tris; t++) {
        size_t f = 0;
        while (f < m->face_count && m->faces[f].material != mat[t])
            f++;
        if (f == m->face_count) {
            am_scene_face *faces = realloc(m->faces, (m->face_count + 1) * sizeof *faces);
            if (!faces) {
                free(sorted);
                free(corner_vertex);
                return am_fail_nomem(err, st->source);
            }
            m->faces = faces;
            memset(&m->faces[f], 0, sizeof m->faces[f]);
            m->faces[f].material = mat[t];
            size_t count = 0;
            for (size_t u = t; u < tris; u++)
                count += mat[u] == mat[t];
            m->faces[f].indices = malloc(3 * count * sizeof(uint32_t));
            m->face_count++;
            if (!m->faces[f].indices) {
                free(sorted);
                free(corner_vertex);
                return am_fail_nomem(err, st->source);
            }
        }
        am_scene_face *face = &m->faces[f];
        for (int k = 0; k < 3; k++)
            face->indices[face->index_count++] = corner_vertex[3 * t + k];
    }
    free(sorted);
    free(corner_vertex);
    st->corners.count = 0;
    st->tri_material.count = 0;
    return AM_OK;
}

/* --- external files --------------------------------------------------------------- */

/* Resolve `rel` inside base_dir; NULL (with *why set) when it would leave the folder or
 * does not exist. The result is a malloc'd real path. */
static char *resolve_inside(const char *base_dir, const char *rel, const char **why)
{
    *why = NULL;
    if (rel[0] == '/' || rel[0] == '\\' || (isalpha((unsigned char)rel[0]) && rel[1] == ':')) {
        *why = "an absolute path";
        return NULL;
    }
    /* Windows separators are common in OBJ/MTL files: read them as '/'. */
    char norm[PATH_MAX];
    if (strlen(rel) >= sizeof norm) {
        *why = "a path too long";
        return NULL;
    }
    size_t n = 0;
    for (const char *p = rel; *p; p++)
        norm[n++] = *p == '\\' ? '/' : *p;
    norm[n] = '\0';
    for (char *seg = norm; seg;) {
        char *slash = strchr(seg, '/');
        size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
        if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            *why = "a path leaving the model's folder (..)";
            return NULL;
        }
        seg = slash ? slash + 1 : NULL;
    }
    char joined[PATH_MAX];
    if (!am_path_join(joined, sizeof joined, base_dir, norm)) {
        *why = "a path too long";
        return NULL;
    }
    char real_base[PATH_MAX], real_file[PATH_MAX];
    if (!realpath(base_dir, real_base) || !realpath(joined, real_file)) {
        *why = "not found";
        return NULL;
    }
    size_t bl = strlen(real_base);
    if (strncmp(real_file, real_base, bl) != 0 || (real_file[bl] != '/' && strcmp(real_base, "/") != 0)) {
        *why = "a link leading out of the model's folder";
        return NULL;
    }
    return am_strdup(real_file);
}

static const char *mime_of(const char *path)
{
    size_t n = strlen(path);
    if (n >= 4 && strcasecmp(path + n - 4, ".png") == 0)
        return "image/png";
    if ((n >= 4 && strcasecmp(path + n - 4, ".jpg") == 0) || (n >= 5 && strcasecmp(path + n - 5, ".jpeg") == 0))
        return "image/jpeg";
    return "";
}

/* A line's first word (its statement, at most 15 characters) into word; returns where
 * its arguments start. */
static const char *statement(const char *p, const char *le, char word[16])
{
    const char *q = skip_ws(p, le);
    size_t n = 0;
    while (q + n < le && !isspace((unsigned char)q[n]) && n < 15) {
        word[n] = q[n];
        n++;
    }
    word[n] = '\0';
    return q + n;
}

/* The rest of a statement, trimmed (names and paths may hold spaces). */
static void rest_of_line(const char *p, const char *end, char *out, size_t size)
{
    p = skip_ws(p, end);
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    size_t n = (size_t)(end - p) < size - 1 ? (size_t)(end - p) : size - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* map_Kd may carry options (-s 1 1 1, -o ..., -bm 1, -clamp on ...): the file name is
 * what follows the last option's values. Options take 1 to 3 numbers, or on/off. */
static const char *map_file_name(char *s)
{
    char *p = s;
    while (*p == '-') {
        while (*p && !isspace((unsigned char)*p))
            p++; /* the option */
        for (;;) {
            while (isspace((unsigned char)*p))
                p++;
            char *e;
            strtod(p, &e);
            bool number = e != p && (isspace((unsigned char)*e) || !*e);
            bool onoff = strncmp(p, "on", 2) == 0 || strncmp(p, "off", 3) == 0;
            if (!number && !onoff)
                break;
            if (number)
                p = e;
            else
                p += p[1] == 'n' ? 2 : 3;
        }
    }
    return p;
}

static am_status read_mtl(obj_state *st, const char *rel, am_error *err)
{
    const char *why;
    char *path = resolve_inside(st->base_dir, rel, &why);
    if (!path) {
        am_scene_note(st->scene, "line %zu: mtllib '%s' not used: %s", st->line, rel, why);
        return AM_OK;
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || (size_t)sb.st_size > MAX_MTL_BYTES) {
        am_scene_note(st->scene, "mtllib '%s' not used: over %zu MB", rel, MAX_MTL_BYTES >> 20);
        free(path);
        return AM_OK;
    }
    uint8_t *data;
    size_t size;
    am_error ioerr;
    if (am_read_file(path, &data, &size, &ioerr)) {
        am_scene_note(st->scene, "mtllib '%s' not read: %s", rel, ioerr.msg);
        free(path);
        return AM_OK;
    }
    free(path);
    am_scene *sc = st->scene;
    am_scene_material *cur = NULL;
    const char *p = (const char *)data, *end = p + size;
    am_status s = AM_OK;
    while (p < end && !s) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end;
        char word[16];
        const char *args = statement(p, le, word);
        if (strcmp(word, "newmtl") == 0) {
            am_scene_material *mats = realloc(sc->materials, (sc->material_count + 1) * sizeof *mats);
            if (!mats) {
                s = am_fail_nomem(err, rel);
                break;
            }
            sc->materials = mats;
            cur = &sc->materials[sc->material_count++];
            memset(cur, 0, sizeof *cur);
            for (int k = 0; k < 4; k++)
                cur->base_color[k] = 1.0;
            char name[512];
            rest_of_line(args, le, name, sizeof name);
            cur->name = am_strdup(name);
            if (!cur->name)
                s = am_fail_nomem(err, rel);
        } else if (cur && strcmp(word, "Kd") == 0) {
            float rgb[3];
            const char *a = args;
            if (parse_float(&a, le, &rgb[0]) && parse_float(&a, le, &rgb[1]) && parse_float(&a, le, &rgb[2]) &&
                isfinite(rgb[0]) && isfinite(rgb[1]) && isfinite(rgb[2]))
                for (int k = 0; k < 3; k++)
                    cur->base_color[k] = rgb[k] < 0 ? 0 : rgb[k] > 1 ? 1 : rgb[k];
            else
                am_scene_note(sc, "%s: material '%s': Kd is not three numbers (white kept)", rel, cur->name);
        } else if (cur && strcmp(word, "d") == 0) {
            float d;
            const char *a = args;
            if (parse_float(&a, le, &d) && isfinite(d))
                cur->base_color[3] = d < 0 ? 0 : d > 1 ? 1 : d;
        } else if (cur && strcmp(word, "map_Kd") == 0) {
            char raw[PATH_MAX];
            rest_of_line(args, le, raw, sizeof raw);
            const char *file = map_file_name(raw);
            char *img = *file ? resolve_inside(st->base_dir, file, &why) : NULL;
            if (!*file)
                am_scene_note(sc, "%s: material '%s': map_Kd names no file", rel, cur->name);
            else if (!img)
                am_scene_note(sc, "%s: material '%s': map_Kd '%s' not used: %s", rel, cur->name, file, why);
            else {
                free(cur->image_path);
                cur->image_path = img;
                if (!am_string_set(&cur->image_mime, mime_of(img)))
                    s = am_fail_nomem(err, "texture type");
            }
        }
        p = eol ? eol + 1 : end;
    }
    free(data);
    return s;
}

static int material_index(const am_scene *sc, const char *name)
{
    for (size_t i = 0; i < sc->material_count; i++)
        if (strcmp(sc->materials[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* --- the reader ------------------------------------------------------------------- */

am_status am_obj_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                      am_error *err)
{
    obj_state st;
    memset(&st, 0, sizeof st);
    st.source = source;
    st.base_dir = base_dir;
    st.scene = out;
    st.material = -1;
    st.v.elem = 3 * sizeof(float);
    st.vt.elem = 2 * sizeof(float);
    st.vn.elem = 3 * sizeof(float);
    st.corners.elem = sizeof(corner);
    st.tri_material.elem = sizeof(int);
    if (!am_string_set(&out->format_detail, "Wavefront OBJ"))
        return am_fail_nomem(err, "format detail");

    const char *p = (const char *)data, *end = p + size;
    am_status s = AM_OK;
    while (p < end && !s) {
        st.line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end;
        if (le > p && le[-1] == '\r')
            le--;
        char word[16];
        const char *args = statement(p, le, word);
        size_t wn = strlen(word);
        if (wn == 0 || word[0] == '#') {
            /* blank or comment */
        } else if (strcmp(word, "v") == 0) {
            s = read_vector(&st, args, le, &st.v, 3, 3, "v", err);
        } else if (strcmp(word, "vt") == 0) {
            s = read_vector(&st, args, le, &st.vt, 2, 1, "vt", err);
        } else if (strcmp(word, "vn") == 0) {
            s = read_vector(&st, args, le, &st.vn, 3, 3, "vn", err);
        } else if (strcmp(word, "f") == 0) {
            s = read_face(&st, args, le, err);
        } else if (strcmp(word, "o") == 0 || strcmp(word, "g") == 0) {
            s = finish_mesh(&st, err);
            char name[512];
            rest_of_line(args, le, name, sizeof name);
            free(st.mesh_name);
            st.mesh_name = am_strdup(name);
            if (!s && !st.mesh_name)
                s = am_fail_nomem(err, source);
        } else if (strcmp(word, "usemtl") == 0) {
            char name[512];
            rest_of_line(args, le, name, sizeof name);
            st.material = material_index(out, name);
            if (st.material < 0)
                am_scene_note(out, "line %zu: usemtl '%s' names no material read from an mtllib (no colour)",
                              st.line, name);
        } else if (strcmp(word, "mtllib") == 0) {
            char name[PATH_MAX];
            rest_of_line(args, le, name, sizeof name);
            s = read_mtl(&st, name, err);
        } else if (strcmp(word, "s") == 0 || strcmp(word, "vp") == 0) {
            /* smoothing groups and parameter-space vertices do not change the mesh */
        } else {
            am_scene_note(out, "'%s' statements ignored (not part of a polygon mesh)", word);
        }
        p = eol ? eol + 1 : end;
    }
    if (!s)
        s = finish_mesh(&st, err);
    if (!s && out->mesh_count == 0) {
        am_fail(err, AM_ERR_INVALID, "no faces: the file holds %zu positions and no 'f' statement", st.v.count);
        am_error_where(err, "%s", source);
        s = AM_ERR_INVALID;
    }
    free(st.v.data);
    free(st.vt.data);
    free(st.vn.data);
    free(st.corners.data);
    free(st.tri_material.data);
    free(st.mesh_name);
    return s;
}
