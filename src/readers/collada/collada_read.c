/* The COLLADA reader's driver (collada.h): the uploader's preprocess, the XML document,
 * the id index, <asset> unit and up axis, the <visual_scene> node tree, materials and
 * images; geometry and skins are read by collada_geom.c and collada_skin.c. */
#include <errno.h>
#include <libxml/parser.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/grow.h"
#include "core/parallel.h"
#include "core/io.h"
#include "core/xml_doc.h"
#include "readers/collada/collada_internal.h"

/* Deeper <node> nesting than any skeleton (the viewer's has 11 levels below mPelvis). */
#define DAE_MAX_NODE_DEPTH 512
/* Any element: the deepest <node> with the few levels around it (<COLLADA>,
 * <library_visual_scenes>, <visual_scene>, a node's <instance_controller>/<bind_material>...). */
#define DAE_MAX_XML_DEPTH (DAE_MAX_NODE_DEPTH + 16)

/* --- XML helpers ------------------------------------------------------------------- */

bool am_dae_is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

xmlNode *am_dae_child(const xmlNode *n, const char *name)
{
    for (xmlNode *k = n ? n->children : NULL; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE && (!name || strcmp((const char *)k->name, name) == 0))
            return k;
    return NULL;
}

xmlNode *am_dae_next(const xmlNode *n, const char *name)
{
    for (xmlNode *k = n ? n->next : NULL; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE && (!name || strcmp((const char *)k->name, name) == 0))
            return k;
    return NULL;
}

const char *am_dae_attr(const xmlNode *n, const char *name)
{
    if (!n || n->type != XML_ELEMENT_NODE)
        return NULL;
    for (const xmlAttr *a = n->properties; a; a = a->next)
        if (strcmp((const char *)a->name, name) == 0)
            return a->children && a->children->content ? (const char *)a->children->content : "";
    return NULL;
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp(((const am_dae_id *)a)->id, ((const am_dae_id *)b)->id);
}

/* Equal ids keep document order, so the first element with an id wins. */
static int cmp_id_order(const void *a, const void *b)
{
    int r = cmp_id(a, b);
    if (r)
        return r;
    size_t x = ((const am_dae_id *)a)->order, y = ((const am_dae_id *)b)->order;
    return x < y ? -1 : x > y;
}

xmlNode *am_dae_find_id(const am_dae_ctx *c, const char *ref)
{
    if (!ref)
        return NULL;
    if (ref[0] == '#')
        ref++;
    am_dae_id key = {ref, NULL, 0};
    const am_dae_id *hit = bsearch(&key, c->ids, c->id_count, sizeof *c->ids, cmp_id);
    return hit ? hit->node : NULL;
}

const char *am_dae_path(const xmlNode *n, char *buf, size_t size)
{
    const xmlNode *chain[8];
    size_t depth = 0;
    for (const xmlNode *k = n; k && k->type == XML_ELEMENT_NODE && depth < 8; k = k->parent) {
        chain[depth++] = k;
        if (am_dae_attr(k, "id"))
            break;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = depth; i-- > 0;) {
        const char *id = am_dae_attr(chain[i], "id");
        int w = id && i == depth - 1 ? snprintf(buf + len, size - len, "%s<%s id='%s'>", len ? "/" : "",
                                               (const char *)chain[i]->name, id)
                                     : snprintf(buf + len, size - len, "%s<%s>", len ? "/" : "",
                                               (const char *)chain[i]->name);
        if (w < 0 || (size_t)w >= size - len)
            break;
        len += (size_t)w;
    }
    if (n && len < size)
        snprintf(buf + len, size - len, " (line %ld)", xmlGetLineNo(n));
    return buf;
}

am_status am_dae_fail(am_dae_ctx *c, const xmlNode *n, const char *fmt, ...)
{
    char msg[200], path[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n)
        return am_fail_where(c->err, AM_ERR_INVALID, c->source, "%s: %s", am_dae_path(n, path, sizeof path), msg);
    return am_fail_where(c->err, AM_ERR_INVALID, c->source, "%s", msg);
}

/* The element's text: its single text child in place, or a concatenated copy. */
static const char *text_of(const xmlNode *n, xmlChar **owned)
{
    *owned = NULL;
    const xmlNode *t = n ? n->children : NULL;
    if (!t)
        return "";
    if (!t->next && (t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE))
        return t->content ? (const char *)t->content : "";
    *owned = xmlNodeGetContent(n);
    return *owned ? (const char *)*owned : "";
}

const char *am_dae_text_trim(const xmlNode *n, char *buf, size_t size)
{
    xmlChar *owned;
    const char *s = text_of(n, &owned);
    while (am_dae_is_space(*s))
        s++;
    snprintf(buf, size, "%s", s);
    size_t len = strlen(buf);
    while (len && am_dae_is_space(buf[len - 1]))
        buf[--len] = '\0';
    xmlFree(owned);
    return buf;
}

/* Count the tokens first so one allocation holds them all (up to `end`, or the NUL). */
static size_t count_tokens(const char *s, const char *end)
{
    size_t n = 0;
    while (s < end && *s) {
        while (s < end && am_dae_is_space(*s))
            s++;
        if (s == end || !*s)
            break;
        n++;
        while (s < end && *s && !am_dae_is_space(*s))
            s++;
    }
    return n;
}

/* One decimal number at p (no leading white space), the end in *end (p when none). The
 * common case (at most 19 significant digits, |exponent| <= 22) is exact and correctly
 * rounded without strtod: the mantissa fits a double exactly and one multiplication or
 * division by an exact power of ten rounds once (Clinger's fast path); anything else
 * (longer mantissas, nan, inf, hex) goes to strtod. */
static double parse_number(const char *p, char **end)
{
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *q = p;
    bool neg = false;
    if (*q == '-' || *q == '+')
        neg = *q++ == '-';
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    bool any = false;
    while (*q == '0') {
        q++;
        any = true;
    }
    while (*q >= '0' && *q <= '9') {
        if (digits < 19)
            m = m * 10 + (uint64_t)(*q - '0');
        else
            exp10++;
        digits++;
        q++;
        any = true;
    }
    if (*q == '.') {
        q++;
        if (digits == 0)
            while (*q == '0') {
                q++;
                exp10--;
                any = true;
            }
        while (*q >= '0' && *q <= '9') {
            if (digits < 19) {
                m = m * 10 + (uint64_t)(*q - '0');
                exp10--;
            }
            digits++;
            q++;
            any = true;
        }
    }
    if (any && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        bool eneg = false;
        if (*e == '-' || *e == '+')
            eneg = *e++ == '-';
        if (*e >= '0' && *e <= '9') {
            int ev = 0;
            while (*e >= '0' && *e <= '9') {
                if (ev < 10000)
                    ev = ev * 10 + (*e - '0');
                e++;
            }
            exp10 += eneg ? -ev : ev;
            q = e;
        }
    }
    if (any && digits <= 19 && m <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = exp10 >= 0 ? (double)m * pow10[exp10] : (double)m / pow10[-exp10];
        *end = (char *)q;
        return neg ? -v : v;
    }
    return strtod(p, end);
}

/* One token into *slot; false when it is not one (the whole token must parse). */
typedef bool (*token_fn)(const char *p, const char **end, void *slot);

static bool double_token(const char *p, const char **end, void *slot)
{
    char *e;
    *(double *)slot = parse_number(p, &e);
    *end = e;
    return e != p && (!*e || am_dae_is_space(*e));
}

static bool int_token(const char *p, const char **end, void *slot)
{
    /* the common case without strtoll: an optional sign and up to 18 digits */
    const char *q = p;
    bool neg = *q == '-';
    if (neg || *q == '+')
        q++;
    long long d = 0;
    int nd = 0;
    while (*q >= '0' && *q <= '9' && nd < 18) {
        d = d * 10 + (*q++ - '0');
        nd++;
    }
    if (nd == 0 || (*q && !am_dae_is_space(*q))) {
        char *e;
        errno = 0;
        d = strtoll(p, &e, 10);
        q = e;
        if (errno == ERANGE)
            return false;
    } else if (neg) {
        d = -d;
    }
    *(long long *)slot = d;
    *end = q;
    return q != p && (!*q || am_dae_is_space(*q));
}

/* A long list is counted and parsed in pieces side by side (core/parallel.h): cut at white
 * space, so no token is split; each piece's values go to their own place of the one array,
 * and the first piece with a bad token names it, as one pass over the whole would. */
#define PIECE_MIN_CHARS ((size_t)1 << 20) /* a list this long is cut into pieces */
#define MAX_PIECES AM_PARALLEL_MAX_THREADS

typedef struct token_pieces {
    const char *from[MAX_PIECES + 1]; /* piece k: from[k] .. from[k + 1] */
    size_t count[MAX_PIECES];         /* its tokens */
    size_t first[MAX_PIECES];         /* its first token's index in the list */
    size_t bad[MAX_PIECES];           /* its first bad token (SIZE_MAX: none) */
    const char *bad_at[MAX_PIECES];
    token_fn parse;
    size_t elem;
    uint8_t *v;
} token_pieces;

static void count_piece(void *user, size_t k, int worker)
{
    (void)worker;
    token_pieces *t = user;
    t->count[k] = count_tokens(t->from[k], t->from[k + 1]);
}

/* Parse `count` tokens from p into v; the index of the first that is not one (and where it
 * is), or SIZE_MAX. */
static size_t parse_tokens(const char *p, size_t count, token_fn parse, size_t elem, uint8_t *v, const char **bad_at)
{
    for (size_t k = 0; k < count; k++) {
        while (am_dae_is_space(*p))
            p++;
        const char *end;
        if (!parse(p, &end, v + k * elem)) {
            *bad_at = p;
            return k;
        }
        p = end;
    }
    return SIZE_MAX;
}

static void parse_piece(void *user, size_t k, int worker)
{
    (void)worker;
    token_pieces *t = user;
    t->bad[k] = parse_tokens(t->from[k], t->count[k], t->parse, t->elem, t->v + t->first[k] * t->elem, &t->bad_at[k]);
}

/* Every token of an element's text through `parse` into a malloc'd array of `elem` bytes
 * each; a token that does not parse fails naming the element, the token and its index. */
static am_status read_tokens(am_dae_ctx *c, const xmlNode *n, size_t elem, token_fn parse, const char *what,
                             void **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    xmlChar *owned;
    const char *s = text_of(n, &owned);
    size_t len = strlen(s);
    token_pieces t;
    size_t pieces = len < PIECE_MIN_CHARS ? 1 : (size_t)am_parallel_threads(0, MAX_PIECES);
    t.from[0] = s;
    t.from[pieces] = s + len;
    for (size_t k = 1; k < pieces; k++) {
        const char *p = s + len / pieces * k;
        while (*p && !am_dae_is_space(*p))
            p++;
        t.from[k] = p > t.from[k - 1] ? p : t.from[k - 1];
    }
    am_parallel_for(pieces, pieces == 1 ? 1 : 0, count_piece, &t);
    size_t cap = 0;
    for (size_t k = 0; k < pieces; k++) {
        t.first[k] = cap;
        cap += t.count[k];
    }
    if (cap == 0) {
        xmlFree(owned);
        return AM_OK;
    }
    /* Counted before they are stored: a number of text is 2 bytes at least and 8 decoded. */
    if (cap > AM_COLLADA_MAX_VALUES - c->values_read) {
        xmlFree(owned);
        return am_dae_fail(c, n,
                        "memory budget of %zu MiB exceeded while reading the numbers (%zu values here, %zu before: at "
                        "most %zu are decoded per file)",
                        (AM_COLLADA_MAX_VALUES * sizeof(double)) >> 20, cap, c->values_read,
                        (size_t)AM_COLLADA_MAX_VALUES);
    }
    c->values_read += cap;
    uint8_t *v = malloc(cap * elem);
    if (!v) {
        xmlFree(owned);
        return am_fail_nomem(c->err, "COLLADA numbers");
    }
    t.parse = parse;
    t.elem = elem;
    t.v = v;
    am_parallel_for(pieces, pieces == 1 ? 1 : 0, parse_piece, &t);
    for (size_t k = 0; k < pieces; k++) {
        if (t.bad[k] == SIZE_MAX)
            continue;
        const char *p = t.bad_at[k];
        char tok[24];
        size_t tl = 0;
        while (p[tl] && !am_dae_is_space(p[tl]) && tl < sizeof tok - 1)
            tl++;
        memcpy(tok, p, tl);
        tok[tl] = '\0';
        free(v);
        xmlFree(owned);
        return am_dae_fail(c, n, "'%s' (value %zu) is not %s", tok, t.first[k] + t.bad[k], what);
    }
    xmlFree(owned);
    *out = v;
    *count = cap;
    return AM_OK;
}

am_status am_dae_doubles(am_dae_ctx *c, const xmlNode *n, double **out, size_t *count)
{
    return read_tokens(c, n, sizeof **out, double_token, "a number", (void **)out, count);
}

am_status am_dae_ints(am_dae_ctx *c, const xmlNode *n, long long **out, size_t *count)
{
    return read_tokens(c, n, sizeof **out, int_token, "an integer", (void **)out, count);
}

am_status am_dae_fixed(am_dae_ctx *c, const xmlNode *n, double *out, size_t want)
{
    double *v;
    size_t k;
    am_status st = am_dae_doubles(c, n, &v, &k);
    if (st)
        return st;
    if (k != want) {
        free(v);
        return am_dae_fail(c, n, "expected %zu numbers, found %zu", want, k);
    }
    memcpy(out, v, want * sizeof *v);
    free(v);
    return AM_OK;
}

am_mat4 am_dae_ll_matrix(const double dom[16])
{
    am_mat4 m;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            m.m[4 * i + j] = dom[i + 4 * j];
    return m;
}

/* --- the uploader's preprocess (LLDAELoader::preprocessDAE) ------------------------- */

/* \w plus the characters of its regex class, in the C locale. */
static bool pre_word(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
           ch == '.' || ch == '@' || ch == '#' || ch == '$' || ch == '-';
}

size_t am_collada_preprocess(char *text, size_t size)
{
    /* The viewer's regex "[\w.@#$-]*(\s[\w.@#$-]*)+" between double quotes matches a
     * quoted run of class characters and white space holding at least one white space;
     * its spaces (only ' ', not tabs or newlines) become '_'. The viewer also replaces the
     * same quoted string wherever else it occurs; at any other alignment such a string
     * would sit between two attribute values, which well-formed XML does not have, so the
     * in-place replacement is the same result. */
    size_t hits = 0, i = 0;
    while (i < size) {
        if (text[i] != '"') {
            const char *q = memchr(text + i, '"', size - i);
            if (!q)
                break;
            i = (size_t)(q - text);
        }
        size_t j = i + 1;
        bool ws = false;
        while (j < size && (pre_word((unsigned char)text[j]) || am_dae_is_space(text[j]))) {
            ws |= am_dae_is_space(text[j]);
            j++;
        }
        if (j < size && text[j] == '"' && ws) {
            for (size_t k = i + 1; k < j; k++)
                if (text[k] == ' ')
                    text[k] = '_';
            hits++;
            i = j + 1;
        } else {
            i++;
        }
    }
    return hits;
}

/* --- nodes ------------------------------------------------------------------------- */

/* The node's local matrix: its transform elements composed in document order (COLLADA
 * column form M = M1 M2 ... Mn, so in LL layout L = Ln ... L1). */
static am_status node_local(am_dae_ctx *c, const xmlNode *n, am_mat4 *out)
{
    am_mat4 acc = am_mat4_identity();
    bool noted = false;
    for (xmlNode *k = am_dae_child(n, NULL); k; k = am_dae_next(k, NULL)) {
        am_mat4 m;
        double v[16];
        am_status st;
        if (am_dae_is(k, "translate")) {
            if ((st = am_dae_fixed(c, k, v, 3)))
                return st;
            m = am_mat4_translation(am_v3(v[0], v[1], v[2]));
        } else if (am_dae_is(k, "rotate")) {
            if ((st = am_dae_fixed(c, k, v, 4)))
                return st;
            am_quat q = am_quat_axis_angle(am_v3(v[0], v[1], v[2]), v[3] * AM_PI / 180.0);
            if (v[0] == 0 && v[1] == 0 && v[2] == 0)
                q = am_quat_identity();
            m = am_mat4_from_trs(am_v3(0, 0, 0), q, am_v3(1, 1, 1));
        } else if (am_dae_is(k, "scale")) {
            if ((st = am_dae_fixed(c, k, v, 3)))
                return st;
            m = am_mat4_from_trs(am_v3(0, 0, 0), am_quat_identity(), am_v3(v[0], v[1], v[2]));
        } else if (am_dae_is(k, "matrix")) {
            if ((st = am_dae_fixed(c, k, v, 16)))
                return st;
            m = am_dae_ll_matrix(v);
        } else {
            if ((am_dae_is(k, "lookat") || am_dae_is(k, "skew")) && !noted) {
                am_scene_note(c->scene, "node '%s': <%s> is not supported: read as identity",
                              am_dae_attr(n, "name") ? am_dae_attr(n, "name") : "", (const char *)k->name);
                noted = true;
            }
            continue;
        }
        acc = am_mat4_mul(&m, &acc);
    }
    *out = acc;
    return AM_OK;
}

typedef struct node_build {
    size_t cap, xml_cap;
} node_build;

static am_status read_node(am_dae_ctx *c, node_build *nb, const xmlNode *x, int parent, int depth)
{
    am_scene *s = c->scene;
    if (depth > DAE_MAX_NODE_DEPTH)
        return am_dae_fail(c, x, "nodes nested deeper than %d levels", DAE_MAX_NODE_DEPTH);
    am_status st;
    size_t need = s->node_count + 1;
    if ((st = am_grow((void **)&s->nodes, &nb->cap, need, sizeof *s->nodes, "COLLADA nodes", c->err)) ||
        (st = am_grow((void **)&c->node_xml, &nb->xml_cap, need, sizeof *c->node_xml, "COLLADA nodes", c->err)))
        return st;
    size_t i = s->node_count++;
    am_scene_node *n = &s->nodes[i];
    memset(n, 0, sizeof *n);
    c->node_xml[i] = (xmlNode *)x;
    n->parent = parent;
    const char *name = am_dae_attr(x, "name"), *sid = am_dae_attr(x, "sid"), *type = am_dae_attr(x, "type");
    n->name = am_strdup(name ? name : "");
    n->sid = sid ? am_strdup(sid) : NULL;
    if (!n->name || (sid && !n->sid))
        return am_fail_nomem(c->err, "node name");
    n->is_joint = type && strcmp(type, "JOINT") == 0;
    am_mat4 local;
    if ((st = node_local(c, x, &local)))
        return st;
    am_scene_node_set_local(n, &local);
    char nl[160];
    if (am_dae_child(x, "instance_node"))
        am_scene_note(s, "node '%s': <instance_node> is not followed (the uploader does not read it either for skins)",
                      am_scene_node_label(s, (int)i, nl, sizeof nl));
    for (xmlNode *k = am_dae_child(x, "node"); k; k = am_dae_next(k, "node"))
        if ((st = read_node(c, nb, k, (int)i, depth + 1)))
            return st;
    return AM_OK;
}

static am_status read_nodes(am_dae_ctx *c)
{
    node_build nb = {0, 0};
    if (!c->visual_scene)
        return AM_OK;
    for (xmlNode *k = am_dae_child(c->visual_scene, "node"); k; k = am_dae_next(k, "node")) {
        am_status st = read_node(c, &nb, k, -1, 0);
        if (st)
            return st;
    }
    return AM_OK;
}

int am_dae_node_index(const am_dae_ctx *c, const xmlNode *n)
{
    for (size_t i = 0; i < c->scene->node_count; i++)
        if (c->node_xml[i] == n)
            return (int)i;
    return -1;
}

/* --- ids, asset ---------------------------------------------------------------------- */

static am_status index_ids(am_dae_ctx *c)
{
    size_t cap = 0;
    /* Iterative pre-order walk of every element. */
    xmlNode *n = c->root;
    while (n) {
        if (n->type == XML_ELEMENT_NODE) {
            const char *id = am_dae_attr(n, "id");
            if (id && id[0]) {
                am_status st = am_grow((void **)&c->ids, &cap, c->id_count + 1, sizeof *c->ids, "COLLADA ids", c->err);
                if (st)
                    return st;
                c->ids[c->id_count] = (am_dae_id){id, n, c->id_count};
                c->id_count++;
            }
        }
        if (n->type == XML_ELEMENT_NODE && n->children) {
            n = n->children;
            continue;
        }
        while (n && !n->next && n != c->root)
            n = n->parent;
        if (!n || n == c->root)
            break;
        n = n->next;
    }
    if (c->id_count > 1)
        qsort(c->ids, c->id_count, sizeof *c->ids, cmp_id_order);
    size_t w = 0;
    for (size_t i = 0; i < c->id_count; i++) {
        if (w && strcmp(c->ids[w - 1].id, c->ids[i].id) == 0) {
            am_scene_note(c->scene, "id '%s' is used by more than one element: the first is used", c->ids[i].id);
            continue;
        }
        c->ids[w++] = c->ids[i];
    }
    c->id_count = w;
    return AM_OK;
}

/* The first element called name below n in document order (the uploader's getDescendant),
 * walked without recursion: a file's nesting never reaches the C stack. */
static xmlNode *first_descendant(xmlNode *n, const char *name)
{
    xmlNode *k = n ? n->children : NULL;
    while (k) {
        if (k->type == XML_ELEMENT_NODE) {
            if (strcmp((const char *)k->name, name) == 0)
                return k;
            if (k->children) {
                k = k->children;
                continue;
            }
        }
        while (k && k != n && !k->next)
            k = k->parent;
        if (!k || k == n)
            return NULL;
        k = k->next;
    }
    return NULL;
}

static am_status read_asset(am_dae_ctx *c)
{
    am_scene *s = c->scene;
    xmlNode *asset = am_dae_child(c->root, "asset");
    const char *version = am_dae_attr(c->root, "version");
    xmlNode *tool = first_descendant(asset, "authoring_tool");
    xmlChar *tool_text = tool ? xmlNodeGetContent(tool) : NULL;
    bool detail = am_string_setf(&s->format_detail, "COLLADA %s%s%s", version ? version : "?", tool_text ? ", " : "",
                                 tool_text ? (const char *)tool_text : "");
    xmlFree(tool_text);
    if (!detail)
        return am_fail_nomem(c->err, "format detail");
    xmlNode *unit = am_dae_child(asset, "unit");
    const char *meter = am_dae_attr(unit, "meter");
    if (meter) {
        char *end;
        double m = strtod(meter, &end);
        if (end == meter || *end || !isfinite(m) || m <= 0)
            return am_dae_fail(c, unit, "meter=\"%s\" is not a positive number", meter);
        s->declared.unit_m = m;
    } else {
        am_scene_note(s, "no <unit>: the uploader takes metres");
    }
    xmlNode *up = am_dae_child(asset, "up_axis");
    if (up) {
        xmlChar *t = xmlNodeGetContent(up);
        const char *v = t ? (const char *)t : "";
        while (am_dae_is_space(*v))
            v++;
        size_t n = strlen(v);
        while (n && am_dae_is_space(v[n - 1]))
            n--;
        if (n == 4 && strncmp(v, "X_UP", 4) == 0)
            s->declared.up = 1;
        else if (n == 4 && strncmp(v, "Y_UP", 4) == 0)
            s->declared.up = 2;
        else if (n == 4 && strncmp(v, "Z_UP", 4) == 0)
            s->declared.up = 3;
        xmlFree(t);
        if (!s->declared.up)
            return am_dae_fail(c, up, "up axis is not X_UP, Y_UP or Z_UP");
    } else {
        am_scene_note(s, "no <up_axis>: the uploader assumes Y_UP (a +90 degree turn about X of the uploaded "
                         "object, never of the skin)");
    }
    return AM_OK;
}

/* --- the entry point ----------------------------------------------------------------- */

static void ctx_free(am_dae_ctx *c)
{
    free(c->ids);
    free(c->node_xml);
    free(c->mesh_xml);
    free(c->material_xml);
    for (size_t i = 0; c->mesh_positions && i < c->scene->mesh_count; i++)
        free(c->mesh_positions[i]);
    free(c->mesh_positions);
    free(c->mesh_position_count);
    free(c->mesh_accessor_count);
}

am_status am_collada_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                          am_error *err)
{
    if (size > AM_COLLADA_MAX_BYTES) {
        am_fail(err, AM_ERR_INVALID, "COLLADA file of %zu bytes is over the %zu MB limit", size,
                AM_COLLADA_MAX_BYTES >> 20);
        am_error_where(err, "%s", source);
        return AM_ERR_INVALID;
    }
    if (size > INT_MAX) {
        am_fail(err, AM_ERR_INVALID, "file too large for the XML parser");
        am_error_where(err, "%s", source);
        return AM_ERR_INVALID;
    }
    char *text = malloc(size + 1);
    if (!text)
        return am_fail_nomem(err, source);
    memcpy(text, data, size);
    text[size] = '\0';
    size_t renamed = am_collada_preprocess(text, size);

    /* Long text on (XML_PARSE_HUGE): a high-poly mesh's <float_array> passes libxml2's 10 MB
     * text cap. What HUGE turns off is replaced by core/xml_doc.h: a <!DOCTYPE> is refused
     * before any declaration in it is parsed (so no entity exists to expand), elements are
     * nested at most DAE_MAX_XML_DEPTH deep, and the tree has a memory budget. */
    const am_xml_rules rules = {
        .max_depth = DAE_MAX_XML_DEPTH, .budget_bytes = AM_COLLADA_TREE_BUDGET, .long_text = true};
    xmlDoc *doc;
    am_status xst = am_xml_read(text, size, source, &rules, &doc, err);
    free(text);
    if (xst)
        return xst;

    am_dae_ctx c;
    memset(&c, 0, sizeof c);
    c.source = source;
    c.base_dir = base_dir ? base_dir : ".";
    c.scene = out;
    c.err = err;
    c.root = xmlDocGetRootElement(doc);
    am_status st = AM_OK;
    if (!am_dae_is(c.root, "COLLADA")) {
        am_fail(err, AM_ERR_INVALID, "the root element is <%s>, not <COLLADA>",
                c.root ? (const char *)c.root->name : "none");
        am_error_where(err, "%s", source);
        st = AM_ERR_INVALID;
        goto done;
    }
    if (renamed)
        am_scene_note(out, "%zu quoted names with spaces had them replaced by '_' (the uploader's preprocess, "
                           "LLDAELoader::preprocessDAE)",
                      renamed);
    c.visual_scene = first_descendant(c.root, "visual_scene");
    if ((st = index_ids(&c)) || (st = read_asset(&c)) || (st = read_nodes(&c)) || (st = am_dae_read_geometries(&c)) ||
        (st = am_dae_read_skins(&c)))
        goto done;
    if (!c.visual_scene)
        am_scene_note(out, "no <visual_scene>: the uploader reports \"Document has no visual_scene\" and finds no "
                           "joint positions");
done:
    ctx_free(&c);
    xmlFreeDoc(doc);
    return st;
}
