#include "mesh/llsd.h"

#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"

/* ---------- big-endian helpers (32-bit ones: core/bytes.h) ---------- */

static double rd_f64be(const uint8_t *p)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u = (u << 8) | p[i];
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static void wr_f64be(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)u;
        u >>= 8;
    }
}

/* 'd' is written without byte swapping; every supported host is little endian. */
static double rd_f64le(const uint8_t *p)
{
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = (u << 8) | p[i];
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static void wr_f64le(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)u;
        u >>= 8;
    }
}

/* ---------- parser ---------- */

typedef struct parser {
    const uint8_t *data;
    size_t size;
    size_t pos;
    size_t nodes;
    am_llsd_limits lim;
    am_error *err;
} parser;

static am_status need(parser *p, size_t n, const char *what)
{
    if (p->size - p->pos < n)
        return am_fail_at(p->err, AM_ERR_INVALID, p->pos, "LLSD truncated: %s needs %zu bytes, %zu left", what,
                          n, p->size - p->pos);
    return AM_OK;
}

static am_status parse_bytes(parser *p, am_llsd *v, am_llsd_type type, const char *what)
{
    if (need(p, 4, what))
        return AM_ERR_INVALID;
    size_t at = p->pos - 1; /* the marker */
    uint32_t n = am_be_u32(p->data + p->pos);
    p->pos += 4;
    if (n > p->size - p->pos)
        return am_fail_at(p->err, AM_ERR_INVALID, at, "LLSD %s length %u exceeds the %zu bytes left", what, n,
                          p->size - p->pos);
    uint8_t *b = malloc((size_t)n + 1);
    if (!b)
        return am_fail_nomem(p->err, "LLSD bytes");
    memcpy(b, p->data + p->pos, n);
    b[n] = 0;
    p->pos += n;
    v->type = type;
    v->bytes = b;
    v->len = n;
    return AM_OK;
}

static am_status parse_value(parser *p, am_llsd *v, size_t depth);

static am_status count_node(parser *p)
{
    if (++p->nodes > p->lim.max_nodes)
        return am_fail_at(p->err, AM_ERR_INVALID, p->pos, "LLSD has more than %zu values", p->lim.max_nodes);
    return AM_OK;
}

static am_status parse_array(parser *p, am_llsd *v, size_t depth)
{
    am_status s;
    if ((s = need(p, 4, "array count")))
        return s;
    size_t at = p->pos - 1;
    uint32_t n = am_be_u32(p->data + p->pos);
    p->pos += 4;
    /* each element takes at least one byte, plus the closing bracket */
    if (n > p->size - p->pos || (size_t)n + 1 > p->size - p->pos)
        return am_fail_at(p->err, AM_ERR_INVALID, at, "LLSD array count %u exceeds the %zu bytes left", n,
                          p->size - p->pos);
    v->type = AM_LLSD_ARRAY;
    if (n) {
        v->items = calloc(n, sizeof *v->items);
        if (!v->items)
            return am_fail_nomem(p->err, "LLSD array");
        v->cap = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        v->count = (size_t)i + 1;
        if ((s = parse_value(p, &v->items[i], depth + 1)))
            return s;
    }
    if ((s = need(p, 1, "array end ']'")))
        return s;
    if (p->data[p->pos] != ']')
        return am_fail_at(p->err, AM_ERR_INVALID, p->pos, "LLSD array of %u elements not closed by ']' (found 0x%02x)",
                          n, p->data[p->pos]);
    p->pos++;
    return AM_OK;
}

static am_status parse_map(parser *p, am_llsd *v, size_t depth)
{
    am_status s;
    if ((s = need(p, 4, "map count")))
        return s;
    size_t at = p->pos - 1;
    uint32_t n = am_be_u32(p->data + p->pos);
    p->pos += 4;
    /* each pair takes at least 'k' + length + a one-byte value */
    if (n > (p->size - p->pos) / 6)
        return am_fail_at(p->err, AM_ERR_INVALID, at, "LLSD map count %u exceeds the %zu bytes left", n,
                          p->size - p->pos);
    v->type = AM_LLSD_MAP;
    if (n) {
        v->items = calloc(n, sizeof *v->items);
        v->keys = calloc(n, sizeof *v->keys);
        v->key_lens = calloc(n, sizeof *v->key_lens);
        if (!v->items || !v->keys || !v->key_lens)
            return am_fail_nomem(p->err, "LLSD map");
        v->cap = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        v->count = (size_t)i + 1;
        if ((s = need(p, 5, "map key")))
            return s;
        if (p->data[p->pos] != 'k')
            return am_fail_at(p->err, AM_ERR_INVALID, p->pos, "LLSD map key %u: expected 'k', found 0x%02x", i,
                              p->data[p->pos]);
        size_t kat = p->pos;
        uint32_t kl = am_be_u32(p->data + p->pos + 1);
        p->pos += 5;
        if (kl > p->size - p->pos)
            return am_fail_at(p->err, AM_ERR_INVALID, kat, "LLSD map key length %u exceeds the %zu bytes left", kl,
                              p->size - p->pos);
        char *k = malloc((size_t)kl + 1);
        if (!k)
            return am_fail_nomem(p->err, "LLSD key");
        memcpy(k, p->data + p->pos, kl);
        k[kl] = 0;
        v->keys[i] = k;
        v->key_lens[i] = kl;
        p->pos += kl;
        if ((s = parse_value(p, &v->items[i], depth + 1))) {
            if (p->err)
                am_error_where(p->err, "key '%s'", k);
            return s;
        }
    }
    if ((s = need(p, 1, "map end '}'")))
        return s;
    if (p->data[p->pos] != '}')
        return am_fail_at(p->err, AM_ERR_INVALID, p->pos, "LLSD map of %u pairs not closed by '}' (found 0x%02x)", n,
                          p->data[p->pos]);
    p->pos++;
    return AM_OK;
}

static am_status parse_value(parser *p, am_llsd *v, size_t depth)
{
    am_status s;
    if (depth > p->lim.max_depth)
        return am_fail_at(p->err, AM_ERR_INVALID, p->pos, "LLSD nested deeper than %zu", p->lim.max_depth);
    if ((s = count_node(p)))
        return s;
    if ((s = need(p, 1, "a type marker")))
        return s;
    v->offset = p->pos;
    uint8_t m = p->data[p->pos++];
    switch (m) {
    case '!': v->type = AM_LLSD_UNDEF; return AM_OK;
    case '1': v->type = AM_LLSD_BOOLEAN; v->v.boolean = true; return AM_OK;
    case '0': v->type = AM_LLSD_BOOLEAN; v->v.boolean = false; return AM_OK;
    case 'i':
        if ((s = need(p, 4, "integer")))
            return s;
        v->type = AM_LLSD_INTEGER;
        v->v.integer = (int32_t)am_be_u32(p->data + p->pos);
        p->pos += 4;
        return AM_OK;
    case 'r':
        if ((s = need(p, 8, "real")))
            return s;
        v->type = AM_LLSD_REAL;
        v->v.real = rd_f64be(p->data + p->pos);
        p->pos += 8;
        return AM_OK;
    case 'd':
        if ((s = need(p, 8, "date")))
            return s;
        v->type = AM_LLSD_DATE;
        v->v.real = rd_f64le(p->data + p->pos);
        p->pos += 8;
        return AM_OK;
    case 'u':
        if ((s = need(p, 16, "UUID")))
            return s;
        v->type = AM_LLSD_UUID;
        memcpy(v->v.uuid, p->data + p->pos, 16);
        p->pos += 16;
        return AM_OK;
    case 's': return parse_bytes(p, v, AM_LLSD_STRING, "string");
    case 'l': return parse_bytes(p, v, AM_LLSD_URI, "URI");
    case 'b': return parse_bytes(p, v, AM_LLSD_BINARY, "binary");
    case '[': return parse_array(p, v, depth);
    case '{': return parse_map(p, v, depth);
    default:
        return am_fail_at(p->err, AM_ERR_INVALID, p->pos - 1, "LLSD: unknown type marker 0x%02x", m);
    }
}

am_status am_llsd_parse(const uint8_t *data, size_t size, const am_llsd_limits *limits, am_llsd *out,
                        size_t *consumed, am_error *err)
{
    memset(out, 0, sizeof *out);
    parser p = {data, size, 0, 0, {AM_LLSD_MAX_DEPTH, AM_LLSD_DEFAULT_MAX_NODES}, err};
    if (limits)
        p.lim = *limits;
    if (!data)
        p.size = 0;
    am_status s = parse_value(&p, out, 0);
    if (s) {
        am_llsd_free(out);
        return s;
    }
    if (consumed)
        *consumed = p.pos;
    return AM_OK;
}

/* ---------- formatter ---------- */

static int key_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = memcmp(a, b, n);
    if (c)
        return c;
    return al < bl ? -1 : al > bl ? 1 : 0;
}

static am_status put(am_buf *out, const void *d, size_t n, am_error *err)
{
    return am_buf_append(out, d, n, err);
}

static am_status put_len(am_buf *out, uint8_t marker, size_t len, am_error *err)
{
    if (len > UINT32_MAX)
        return am_fail(err, AM_ERR_INVALID, "LLSD value of %zu bytes/elements is too long for a U32 length", len);
    uint8_t h[5];
    h[0] = marker;
    am_be_put_u32(h + 1, (uint32_t)len);
    return put(out, h, 5, err);
}

static am_status format_value(const am_llsd *v, am_buf *out, am_error *err, size_t depth)
{
    am_status s;
    uint8_t b[17];
    if (depth > AM_LLSD_MAX_DEPTH)
        return am_fail(err, AM_ERR_INVALID, "LLSD nested deeper than %d", AM_LLSD_MAX_DEPTH);
    switch (v->type) {
    case AM_LLSD_UNDEF: return put(out, "!", 1, err);
    case AM_LLSD_BOOLEAN: return put(out, v->v.boolean ? "1" : "0", 1, err);
    case AM_LLSD_INTEGER:
        b[0] = 'i';
        am_be_put_u32(b + 1, (uint32_t)v->v.integer);
        return put(out, b, 5, err);
    case AM_LLSD_REAL:
        b[0] = 'r';
        wr_f64be(b + 1, v->v.real);
        return put(out, b, 9, err);
    case AM_LLSD_DATE:
        b[0] = 'd';
        wr_f64le(b + 1, v->v.real);
        return put(out, b, 9, err);
    case AM_LLSD_UUID:
        b[0] = 'u';
        memcpy(b + 1, v->v.uuid, 16);
        return put(out, b, 17, err);
    case AM_LLSD_STRING:
    case AM_LLSD_URI:
    case AM_LLSD_BINARY: {
        uint8_t m = v->type == AM_LLSD_STRING ? 's' : v->type == AM_LLSD_URI ? 'l' : 'b';
        if ((s = put_len(out, m, v->len, err)))
            return s;
        return v->len ? put(out, v->bytes, v->len, err) : AM_OK;
    }
    case AM_LLSD_ARRAY:
        if ((s = put_len(out, '[', v->count, err)))
            return s;
        for (size_t i = 0; i < v->count; i++)
            if ((s = format_value(&v->items[i], out, err, depth + 1)))
                return s;
        return put(out, "]", 1, err);
    case AM_LLSD_MAP: {
        if ((s = put_len(out, '{', v->count, err)))
            return s;
        /* byte-wise ascending key order, as the viewer's std::map emits them */
        size_t *order = malloc((v->count ? v->count : 1) * sizeof *order);
        if (!order)
            return am_fail_nomem(err, "LLSD map order");
        for (size_t i = 0; i < v->count; i++) {
            size_t j = i;
            while (j > 0 && key_cmp(v->keys[order[j - 1]], v->key_lens[order[j - 1]], v->keys[i], v->key_lens[i]) > 0) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        for (size_t n = 0; n < v->count && !s; n++) {
            size_t i = order[n];
            if (!(s = put_len(out, 'k', v->key_lens[i], err)) && !(s = put(out, v->keys[i], v->key_lens[i], err)))
                s = format_value(&v->items[i], out, err, depth + 1);
        }
        free(order);
        if (s)
            return s;
        return put(out, "}", 1, err);
    }
    }
    return am_fail(err, AM_ERR_INVALID, "LLSD: bad node type %d", (int)v->type);
}

am_status am_llsd_format(const am_llsd *v, am_buf *out, am_error *err)
{
    return format_value(v, out, err, 0);
}

/* ---------- tree ---------- */

void am_llsd_free(am_llsd *v)
{
    if (!v)
        return;
    free(v->bytes);
    for (size_t i = 0; i < v->count; i++) {
        if (v->items)
            am_llsd_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->key_lens);
    memset(v, 0, sizeof *v);
}

void am_llsd_set_undef(am_llsd *v)
{
    am_llsd_free(v);
}

void am_llsd_set_boolean(am_llsd *v, bool b)
{
    am_llsd_free(v);
    v->type = AM_LLSD_BOOLEAN;
    v->v.boolean = b;
}

void am_llsd_set_integer(am_llsd *v, int32_t i)
{
    am_llsd_free(v);
    v->type = AM_LLSD_INTEGER;
    v->v.integer = i;
}

void am_llsd_set_real(am_llsd *v, double r)
{
    am_llsd_free(v);
    v->type = AM_LLSD_REAL;
    v->v.real = r;
}

void am_llsd_set_date(am_llsd *v, double seconds)
{
    am_llsd_free(v);
    v->type = AM_LLSD_DATE;
    v->v.real = seconds;
}

void am_llsd_set_uuid(am_llsd *v, const uint8_t uuid[16])
{
    am_llsd_free(v);
    v->type = AM_LLSD_UUID;
    memcpy(v->v.uuid, uuid, 16);
}

am_status am_llsd_set_bytes(am_llsd *v, am_llsd_type type, const void *data, size_t len, am_error *err)
{
    uint8_t *b = malloc(len + 1);
    if (!b)
        return am_fail_nomem(err, "LLSD bytes");
    if (len)
        memcpy(b, data, len);
    b[len] = 0;
    am_llsd_take_bytes(v, type, b, len);
    return AM_OK;
}

void am_llsd_take_bytes(am_llsd *v, am_llsd_type type, uint8_t *data, size_t len)
{
    am_llsd_free(v);
    v->type = type;
    v->bytes = data;
    v->len = len;
}

am_status am_llsd_set_string(am_llsd *v, const char *s, am_error *err)
{
    return am_llsd_set_bytes(v, AM_LLSD_STRING, s, strlen(s), err);
}

void am_llsd_set_array(am_llsd *v)
{
    am_llsd_free(v);
    v->type = AM_LLSD_ARRAY;
}

void am_llsd_set_map(am_llsd *v)
{
    am_llsd_free(v);
    v->type = AM_LLSD_MAP;
}

static bool grow(am_llsd *c, bool with_keys)
{
    if (c->count < c->cap)
        return true;
    size_t ncap = c->cap ? c->cap * 2 : 8;
    am_llsd *items = realloc(c->items, ncap * sizeof *items);
    if (!items)
        return false;
    c->items = items;
    if (with_keys) {
        char **keys = realloc(c->keys, ncap * sizeof *keys);
        if (!keys)
            return false;
        c->keys = keys;
        size_t *lens = realloc(c->key_lens, ncap * sizeof *lens);
        if (!lens)
            return false;
        c->key_lens = lens;
    }
    c->cap = ncap;
    return true;
}

am_llsd *am_llsd_push(am_llsd *array, am_error *err)
{
    if (array->type != AM_LLSD_ARRAY) {
        am_fail(err, AM_ERR_INVALID, "LLSD push on a %s", am_llsd_type_name(array->type));
        return NULL;
    }
    if (!grow(array, false)) {
        am_fail_nomem(err, "LLSD array");
        return NULL;
    }
    am_llsd *v = &array->items[array->count++];
    memset(v, 0, sizeof *v);
    return v;
}

am_llsd *am_llsd_insert(am_llsd *map, const char *key, am_error *err)
{
    if (map->type != AM_LLSD_MAP) {
        am_fail(err, AM_ERR_INVALID, "LLSD insert on a %s", am_llsd_type_name(map->type));
        return NULL;
    }
    size_t kl = strlen(key);
    char *k = malloc(kl + 1);
    if (!k || !grow(map, true)) {
        free(k);
        am_fail_nomem(err, "LLSD map");
        return NULL;
    }
    memcpy(k, key, kl + 1);
    map->keys[map->count] = k;
    map->key_lens[map->count] = kl;
    am_llsd *v = &map->items[map->count++];
    memset(v, 0, sizeof *v);
    return v;
}

const am_llsd *am_llsd_get(const am_llsd *m, const char *key)
{
    if (!m || m->type != AM_LLSD_MAP)
        return NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i < m->count; i++)
        if (m->key_lens[i] == kl && memcmp(m->keys[i], key, kl) == 0)
            return &m->items[i];
    return NULL;
}

bool am_llsd_as_number(const am_llsd *v, double *out)
{
    if (!v)
        return false;
    switch (v->type) {
    case AM_LLSD_INTEGER: *out = v->v.integer; return true;
    case AM_LLSD_REAL: *out = v->v.real; return true;
    case AM_LLSD_BOOLEAN: *out = v->v.boolean ? 1.0 : 0.0; return true;
    default: return false;
    }
}

const char *am_llsd_type_name(am_llsd_type t)
{
    static const char *names[] = {"undefined", "boolean", "integer", "real", "uuid", "string",
                                  "uri", "date", "binary", "array", "map"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}
