/* The FBX node graph before assimp (fbx_graph.h): Models and their links, from binary or
 * ASCII FBX, in two passes (the Models, sorted; then the links from them). */
#include "readers/assimp/fbx_graph.h"

#include "core/bytes.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "readers/assimp/assimp_read.h"

#define NO_PARENT SIZE_MAX

typedef struct fbx_model {
    uint64_t id;
    size_t at;           /* byte offset of its object */
    const uint8_t *name; /* for messages: "Bone", not NUL-terminated */
    size_t name_len;
    size_t parents; /* links to the root or a Model */
    size_t parent;  /* index of the first parent Model, or NO_PARENT (the root, or none) */
    uint64_t parent_id;
} fbx_model;

typedef struct fbx_graph {
    const uint8_t *d;
    size_t n;
    fbx_model *models;
    size_t count, cap;
    am_fbx_graph_stats st;
    am_error *err;
} fbx_graph;

/* --- the graph ----------------------------------------------------------------------- */

/* A name for messages: printable ASCII only, at most 60 bytes. */
static void show_name(const fbx_model *m, char *buf, size_t size)
{
    size_t k = 0;
    for (size_t i = 0; i < m->name_len && k + 1 < size && k < 60; i++)
        buf[k++] = m->name[i] >= 0x20 && m->name[i] < 0x7f ? (char)m->name[i] : '?';
    buf[k] = '\0';
}

static am_status add_model(fbx_graph *g, uint64_t id, size_t at, const uint8_t *name, size_t name_len)
{
    if (g->count >= AM_ASSIMP_MAX_NODES)
        return am_fail_at(g->err, AM_ERR_INVALID, at,
                          "more than %d Model objects: over the %d nodes animesh reads (refused before the FBX "
                          "reader runs)",
                          AM_ASSIMP_MAX_NODES, AM_ASSIMP_MAX_NODES);
    if (g->count == g->cap) {
        size_t nc = g->cap ? 2 * g->cap : 64;
        fbx_model *grown = realloc(g->models, nc * sizeof *grown);
        if (!grown)
            return am_fail_nomem(g->err, "FBX models");
        g->models = grown;
        g->cap = nc;
    }
    g->models[g->count++] = (fbx_model){id, at, name, name_len, 0, NO_PARENT, 0};
    return AM_OK;
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const fbx_model *)a)->id, y = ((const fbx_model *)b)->id;
    return x < y ? -1 : x > y;
}

/* Sorted by id, one entry per id (assimp, too, keeps one object per id). */
static void sort_models(fbx_graph *g)
{
    if (g->count > 1)
        qsort(g->models, g->count, sizeof *g->models, by_id);
    size_t k = 0;
    for (size_t i = 0; i < g->count; i++)
        if (k == 0 || g->models[k - 1].id != g->models[i].id)
            g->models[k++] = g->models[i];
    g->count = k;
    g->st.models = k;
}

static size_t find_model(const fbx_graph *g, uint64_t id)
{
    size_t lo = 0, hi = g->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->models[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->count && g->models[lo].id == id ? lo : NO_PARENT;
}

static bool is_word(const uint8_t *p, size_t len, const char *word)
{
    return len == strlen(word) && memcmp(p, word, len) == 0;
}

/* One "C" entry. assimp's node walk follows the links without a property name, from a
 * Model to the root or to another Model; "OP" links carry a property, "PP" are skipped. */
static am_status add_link(fbx_graph *g, const uint8_t *type, size_t type_len, uint64_t src, uint64_t dst, size_t at)
{
    if (is_word(type, type_len, "PP") || is_word(type, type_len, "OP"))
        return AM_OK;
    size_t child = find_model(g, src);
    if (child == NO_PARENT)
        return AM_OK;
    size_t parent = dst == 0 ? NO_PARENT : find_model(g, dst);
    if (dst != 0 && parent == NO_PARENT)
        return AM_OK;
    fbx_model *m = &g->models[child];
    char name[64];
    if (parent == child) {
        show_name(m, name, sizeof name);
        return am_fail_at(g->err, AM_ERR_INVALID, at,
                          "Models linked in a cycle: Model '%s' (id %llu) is linked to itself; the FBX reader would "
                          "never finish its node tree (refused before it runs)",
                          name, (unsigned long long)m->id);
    }
    g->st.links++;
    g->st.roots += dst == 0;
    if (++m->parents == 1) {
        m->parent = parent;
        m->parent_id = dst;
        return AM_OK;
    }
    show_name(m, name, sizeof name);
    return am_fail_at(g->err, AM_ERR_INVALID, at,
                      "Model '%s' (id %llu) is linked to two parents (ids %llu and %llu): FBX nodes form a tree, and "
                      "the FBX reader would copy this model and everything below it under each parent (refused "
                      "before it runs)",
                      name, (unsigned long long)m->id, (unsigned long long)m->parent_id, (unsigned long long)dst);
}

/* With one parent each, the links form a forest unless some Models loop. */
static am_status check_cycles(fbx_graph *g)
{
    if (!g->count)
        return AM_OK;
    uint8_t *state = calloc(g->count, 1); /* 0 unseen, 1 on the walk, 2 done */
    size_t *walk = malloc(g->count * sizeof *walk);
    am_status st = AM_OK;
    if (!state || !walk)
        st = am_fail_nomem(g->err, "FBX model graph");
    for (size_t i = 0; !st && i < g->count; i++) {
        size_t len = 0, k = i;
        while (k != NO_PARENT && state[k] == 0) {
            state[k] = 1;
            walk[len++] = k;
            k = g->models[k].parent;
        }
        if (k != NO_PARENT && state[k] == 1) {
            char name[64];
            show_name(&g->models[k], name, sizeof name);
            st = am_fail_at(g->err, AM_ERR_INVALID, g->models[k].at,
                            "Models linked in a cycle: Model '%s' (id %llu) is its own ancestor; the FBX reader would "
                            "never finish its node tree (refused before it runs)",
                            name, (unsigned long long)g->models[k].id);
        }
        while (len)
            state[walk[--len]] = 2;
    }
    free(state);
    free(walk);
    return st;
}

/* --- binary FBX ------------------------------------------------------------------------ */

static const char binary_magic[] = "Kaydara FBX Binary  "; /* then 0x00 0x1a 0x00, u32 version */

/* A little-endian field of 4 or 8 bytes (binary FBX 7.5 widened its record header). */
static uint64_t le(const uint8_t *p, int bytes)
{
    return bytes == 8 ? am_le_u64(p) : am_le_u32(p);
}

typedef struct fbx_record {
    size_t at, end; /* the record: [at, end) */
    const uint8_t *name;
    size_t name_len;
    uint64_t props; /* count */
    size_t props_at, props_end, children_at;
} fbx_record;

/* The record at pos inside [.., limit): 1 read, 0 the null record ending a list, -1 error. */
static int read_record(fbx_graph *g, bool wide, size_t pos, size_t limit, fbx_record *r)
{
    size_t w = wide ? 8 : 4, head = 3 * w + 1;
    if (limit - pos < head) {
        am_fail_at(g->err, AM_ERR_INVALID, pos, "corrupt binary FBX: a record header runs past its end");
        return -1;
    }
    const uint8_t *p = g->d + pos;
    uint64_t end = le(p, (int)w), props = le(p + w, (int)w), props_len = le(p + 2 * w, (int)w);
    size_t name_len = p[3 * w];
    if (end == 0)
        return 0;
    if (end <= pos || end > limit || end - pos < head + name_len || props_len > end - pos - head - name_len) {
        am_fail_at(g->err, AM_ERR_INVALID, pos,
                   "corrupt binary FBX: a record's end offset (%llu) or property length (%llu) is outside its parent",
                   (unsigned long long)end, (unsigned long long)props_len);
        return -1;
    }
    r->at = pos;
    r->end = (size_t)end;
    r->name = p + head;
    r->name_len = name_len;
    r->props = props;
    r->props_at = pos + head + name_len;
    r->props_end = r->props_at + (size_t)props_len;
    r->children_at = r->props_end;
    return 1;
}

typedef struct fbx_prop {
    uint8_t type;
    uint64_t value;    /* L, I */
    const uint8_t *bytes; /* S, R */
    size_t len;
} fbx_prop;

/* The next property of a record at *pos (< end); false (err set) when it runs past. */
static bool next_prop(fbx_graph *g, size_t *pos, size_t end, fbx_prop *out)
{
    const uint8_t *d = g->d;
    size_t at = *pos, size = 0;
    memset(out, 0, sizeof *out);
    if (at >= end)
        goto past;
    out->type = d[at++];
    switch (out->type) {
    case 'C': size = 1; break;
    case 'Y': size = 2; break;
    case 'I':
    case 'F': size = 4; break;
    case 'L':
    case 'D': size = 8; break;
    case 'S':
    case 'R':
        if (end - at < 4)
            goto past;
        size = (size_t)le(d + at, 4);
        at += 4;
        out->bytes = d + at;
        out->len = size;
        break;
    case 'f': case 'd': case 'l': case 'i': case 'b': case 'c':
        /* count, encoding, stored bytes; then the bytes (raw or deflated): skipped */
        if (end - at < 12)
            goto past;
        out->value = le(d + at, 4);
        size = (size_t)le(d + at + 8, 4);
        at += 12;
        break;
    default:
        am_fail_at(g->err, AM_ERR_INVALID, at - 1, "corrupt binary FBX: unknown property type 0x%02x", out->type);
        return false;
    }
    if (size > end - at)
        goto past;
    if (out->type == 'L')
        out->value = le(d + at, 8);
    else if (out->type == 'I')
        out->value = (uint64_t)(int64_t)(int32_t)(uint32_t)le(d + at, 4);
    *pos = at + size;
    return true;
past:
    am_fail_at(g->err, AM_ERR_INVALID, *pos, "corrupt binary FBX: a property runs past its record");
    return false;
}

/* A Model object: id (L), "Name\0\1Model" (S), its kind (S). */
static am_status binary_model(fbx_graph *g, const fbx_record *r)
{
    size_t pos = r->props_at;
    fbx_prop id, name;
    if (r->props < 2 || !next_prop(g, &pos, r->props_end, &id) || !next_prop(g, &pos, r->props_end, &name))
        return r->props < 2 ? AM_OK : AM_ERR_INVALID;
    if (id.type != 'L')
        return AM_OK; /* assimp refuses it itself */
    const uint8_t *zero = name.type == 'S' ? memchr(name.bytes, 0, name.len) : NULL;
    return add_model(g, id.value, r->at, name.bytes, zero ? (size_t)(zero - name.bytes) : name.len);
}

/* A "C" link: type (S), child id (L), parent id (L)[, property (S)]. */
static am_status binary_link(fbx_graph *g, const fbx_record *r)
{
    size_t pos = r->props_at;
    fbx_prop type, src, dst;
    if (r->props < 3)
        return AM_OK;
    if (!next_prop(g, &pos, r->props_end, &type) || !next_prop(g, &pos, r->props_end, &src) ||
        !next_prop(g, &pos, r->props_end, &dst))
        return AM_ERR_INVALID;
    if (type.type != 'S' || src.type != 'L' || dst.type != 'L')
        return AM_OK;
    return add_link(g, type.bytes, type.len, src.value, dst.value, r->at);
}

/* The bytes an array property inflates to: its declared count times its element's size. */
static uint64_t array_bytes(const fbx_prop *p)
{
    switch (p->type) {
    case 'd':
    case 'l': return p->value * 8;
    case 'f':
    case 'i': return p->value * 4;
    case 'b':
    case 'c': return p->value;
    default: return 0;
    }
}

/* Pass 1: every record (nesting bounded, array sizes summed), the Models of Objects;
 * pass 2: the links of Connections. Records are walked in file order with a stack of the
 * open records' ends: a record's children lie between its properties and its end, and end
 * with a null record. */
static am_status binary_pass(fbx_graph *g, int pass)
{
    bool wide = le(g->d + 23, 4) >= 7500;
    size_t head = wide ? 25u : 13u;
    const char *section = pass == 1 ? "Objects" : "Connections";
    const char *entry = pass == 1 ? "Model" : "C";
    size_t ends[AM_FBX_MAX_DEPTH];
    size_t depth = 0, pos = 27;
    bool in_section = false;
    for (;;) {
        size_t limit = depth ? ends[depth - 1] : g->n;
        if (depth && limit - pos < head) { /* a list that ends without its null record */
            pos = limit;
            depth--;
            continue;
        }
        if (!depth && g->n - pos < head)
            return AM_OK;
        fbx_record r;
        int got = read_record(g, wide, pos, limit, &r);
        if (got < 0)
            return AM_ERR_INVALID;
        if (got == 0) {
            if (!depth)
                return AM_OK; /* the top level's end; the footer follows */
            pos = limit;
            depth--;
            continue;
        }
        if (!depth)
            in_section = is_word(r.name, r.name_len, section);
        if (pass == 1) {
            size_t at = r.props_at;
            for (uint64_t k = 0; k < r.props; k++) {
                fbx_prop p;
                if (!next_prop(g, &at, r.props_end, &p))
                    return AM_ERR_INVALID;
                g->st.array_bytes += array_bytes(&p);
            }
            if (g->st.array_bytes > AM_FBX_MAX_ARRAY_BYTES)
                return am_fail_at(g->err, AM_ERR_INVALID, r.at,
                                  "the arrays declare more than %llu MiB of values once inflated: over what the FBX "
                                  "reader is given (refused before it runs)",
                                  (unsigned long long)(AM_FBX_MAX_ARRAY_BYTES >> 20));
        }
        if (depth == 1 && in_section && is_word(r.name, r.name_len, entry)) {
            am_status st = pass == 1 ? binary_model(g, &r) : binary_link(g, &r);
            if (st)
                return st;
        }
        if (r.children_at < r.end) {
            if (depth == AM_FBX_MAX_DEPTH)
                return am_fail_at(g->err, AM_ERR_INVALID, r.at,
                                  "records nested deeper than %d levels (refused before the FBX reader runs)",
                                  AM_FBX_MAX_DEPTH);
            ends[depth++] = r.end;
            pos = r.children_at;
        } else {
            pos = r.end;
        }
    }
}

/* --- ASCII FBX ------------------------------------------------------------------------- */

typedef struct ascii_token {
    const uint8_t *p; /* strings without their quotes */
    size_t len;
    bool string;
} ascii_token;

typedef struct ascii_entry {
    int kind; /* 0 none, 1 Model, 2 C */
    size_t at;
    ascii_token values[4];
    size_t count;
} ascii_entry;

static bool parse_id(const ascii_token *t, uint64_t *id)
{
    if (t->string || t->len == 0 || t->len > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < t->len; i++) {
        if (t->p[i] < '0' || t->p[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(t->p[i] - '0');
    }
    *id = v;
    return true;
}

static am_status finish_entry(fbx_graph *g, ascii_entry *e)
{
    am_status st = AM_OK;
    uint64_t src, dst;
    if (e->kind == 1 && e->count >= 1 && parse_id(&e->values[0], &src)) {
        const ascii_token *name = e->count >= 2 ? &e->values[1] : NULL;
        const uint8_t *np = name ? name->p : NULL;
        size_t nl = name ? name->len : 0;
        if (nl >= 7 && memcmp(np, "Model::", 7) == 0)
            np += 7, nl -= 7;
        st = add_model(g, src, e->at, np, nl);
    } else if (e->kind == 2 && e->count >= 3 && e->values[0].string && parse_id(&e->values[1], &src) &&
               parse_id(&e->values[2], &dst)) {
        st = add_link(g, e->values[0].p, e->values[0].len, src, dst, e->at);
    }
    memset(e, 0, sizeof *e);
    return st;
}

static bool is_delimiter(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == '{' || c == '}' || c == ';' ||
           c == '"' || c == ':';
}

static am_status ascii_pass(fbx_graph *g, int pass)
{
    const uint8_t *d = g->d;
    size_t n = g->n, i = 0, depth = 0;
    /* the section open at depth 1, from the key before its brace */
    bool in_section = false;
    const char *section = pass == 1 ? "Objects" : "Connections";
    const char *entry = pass == 1 ? "Model" : "C";
    ascii_token key0 = {0};
    ascii_entry e = {0};
    am_status st = AM_OK;
    while (!st && i < n) {
        uint8_t c = d[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',') {
            i++;
        } else if (c == ';') {
            const uint8_t *nl = memchr(d + i, '\n', n - i);
            i = nl ? (size_t)(nl - d) + 1 : n;
        } else if (c == '{') {
            st = finish_entry(g, &e);
            if (depth == 0)
                in_section = key0.p && is_word(key0.p, key0.len, section);
            depth++;
            i++;
        } else if (c == '}') {
            st = finish_entry(g, &e);
            if (depth == 0)
                return am_fail_at(g->err, AM_ERR_INVALID, i, "corrupt ASCII FBX: a closing brace without its opening one");
            if (--depth == 0)
                in_section = false;
            i++;
        } else if (c == '"') {
            const uint8_t *close = memchr(d + i + 1, '"', n - i - 1);
            if (!close)
                return am_fail_at(g->err, AM_ERR_INVALID, i, "corrupt ASCII FBX: a string without its closing quote");
            ascii_token t = {d + i + 1, (size_t)(close - d) - i - 1, true};
            if (depth == 1 && e.kind && e.count < 4)
                e.values[e.count++] = t;
            i = (size_t)(close - d) + 1;
        } else {
            size_t j = i;
            while (j < n && !is_delimiter(d[j]))
                j++;
            ascii_token t = {d + i, j - i, false};
            if (j < n && d[j] == ':') { /* a key */
                if (depth == 0) {
                    key0 = t;
                } else if (depth == 1 && in_section) {
                    st = finish_entry(g, &e);
                    if (is_word(t.p, t.len, entry)) {
                        e.kind = pass;
                        e.at = i;
                    }
                }
                j++;
            } else if (depth == 1 && e.kind && e.count < 4) {
                e.values[e.count++] = t;
            }
            i = j > i ? j : i + 1;
        }
    }
    if (!st)
        st = finish_entry(g, &e);
    return st;
}

/* --- entry ------------------------------------------------------------------------------- */

am_status am_fbx_check_graph(const uint8_t *data, size_t size, am_fbx_graph_stats *stats, am_error *err)
{
    fbx_graph g = {.d = data, .n = size, .err = err};
    bool binary = size >= 27 && memcmp(data, binary_magic, 20) == 0;
    am_status st = binary ? binary_pass(&g, 1) : ascii_pass(&g, 1);
    if (!st) {
        sort_models(&g);
        st = binary ? binary_pass(&g, 2) : ascii_pass(&g, 2);
    }
    if (!st)
        st = check_cycles(&g);
    if (stats)
        *stats = g.st;
    free(g.models);
    return st;
}
