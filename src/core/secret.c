/* Secret masking (secret.h). */
#include "core/secret.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The spellings a peer may echo a secret in: as is, JSON-escaped (with and without "\/"),
 * XML-escaped (text, and attribute with quotes). */
#define SPELLINGS 5

static char *escape(const char *s, int how)
{
    size_t n = 0;
    for (const char *p = s; *p; p++)
        n += 6;
    char *o = malloc(n + 1), *w = o;
    if (!o)
        return NULL;
    for (const char *p = s; *p; p++) {
        const char *rep = NULL;
        char c = *p;
        if (how <= 1) { /* JSON */
            if (c == '"')
                rep = "\\\"";
            else if (c == '\\')
                rep = "\\\\";
            else if (c == '/' && how == 1)
                rep = "\\/";
        } else { /* XML */
            if (c == '&')
                rep = "&amp;";
            else if (c == '<')
                rep = "&lt;";
            else if (c == '>')
                rep = "&gt;";
            else if (c == '"' && how == 3)
                rep = "&quot;";
            else if (c == '\'' && how == 3)
                rep = "&apos;";
        }
        if (rep) {
            size_t rl = strlen(rep);
            memcpy(w, rep, rl);
            w += rl;
        } else {
            *w++ = c;
        }
    }
    *w = '\0';
    return o;
}

/* Fill sp with the distinct spellings of s (sp[0] = s itself, the rest malloc'd). Returns
 * the count, or 0 when out of memory. */
static int spellings(const char *s, char *sp[SPELLINGS])
{
    int n = 0;
    sp[n++] = (char *)s;
    for (int how = 0; how < 4; how++) {
        char *e = escape(s, how);
        if (!e) {
            for (int i = 1; i < n; i++)
                free(sp[i]);
            return 0;
        }
        bool dup = false;
        for (int i = 0; i < n && !dup; i++)
            dup = strcmp(sp[i], e) == 0;
        if (dup)
            free(e);
        else
            sp[n++] = e;
    }
    return n;
}

static void mark_spelling(const uint8_t *t, size_t n, const char *v, bool was_cut, uint8_t *mark)
{
    size_t L = strlen(v);
    if (L == 0)
        return;
    for (size_t i = 0; i + L <= n; i++) {
        const uint8_t *hit = memchr(t + i, (uint8_t)v[0], n - L + 1 - i);
        if (!hit)
            break;
        i = (size_t)(hit - t);
        if (memcmp(hit, v, L) == 0)
            memset(mark + i, 1, L);
    }
    if (!was_cut)
        return;
    /* The text stops inside a secret: mask the longest tail that begins one. */
    for (size_t k = L - 1 < n ? L - 1 : n; k > 0; k--)
        if (memcmp(t + n - k, v, k) == 0) {
            memset(mark + n - k, 1, k);
            break;
        }
}

/* --- the decoded view -------------------------------------------------------------
 * The text as a peer's encoder would have it before encoding: %XX, &#NN;, &#xNN;, the XML
 * entities, JSON's \" \\ \/ \uXXXX decoded; line breaks (CR, LF, JSON \n \r, &#10;) and
 * the blanks that indent the next line dropped, so a secret split over lines reads whole.
 * Each decoded byte keeps the span of text it came from; line_end marks a unit a line
 * break followed. */
typedef struct view {
    uint8_t *c;
    size_t *from, *to;
    bool *line_end;
    size_t n;
} view;

static int hexval(uint8_t c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A code point as UTF-8 into out (at most 4 bytes); returns the byte count. */
static size_t utf8(uint32_t cp, uint8_t out[4])
{
    if (cp < 0x80)
        return out[0] = (uint8_t)cp, 1;
    if (cp < 0x800)
        return out[0] = (uint8_t)(0xC0 | cp >> 6), out[1] = (uint8_t)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000)
        return out[0] = (uint8_t)(0xE0 | cp >> 12), out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F)),
               out[2] = (uint8_t)(0x80 | (cp & 0x3F)), 3;
    return out[0] = (uint8_t)(0xF0 | cp >> 18), out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F)),
           out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F)), out[3] = (uint8_t)(0x80 | (cp & 0x3F)), 4;
}

/* One encoded unit at t[i..n): its decoded bytes into out, its length in *len. */
static size_t decode_unit(const uint8_t *t, size_t i, size_t n, uint8_t out[4], size_t *len)
{
    static const struct { const char *name; char c; } ent[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    size_t left = n - i;
    if (t[i] == '%' && left >= 3 && hexval(t[i + 1]) >= 0 && hexval(t[i + 2]) >= 0) {
        *len = 3;
        out[0] = (uint8_t)(hexval(t[i + 1]) << 4 | hexval(t[i + 2]));
        return 1;
    }
    if (t[i] == '&' && left >= 4 && t[i + 1] == '#') {
        bool hex = t[i + 2] == 'x' || t[i + 2] == 'X';
        size_t j = i + 2 + hex;
        uint32_t cp = 0;
        size_t digits = 0;
        while (j < n && digits < 8 && (hex ? hexval(t[j]) >= 0 : (t[j] >= '0' && t[j] <= '9'))) {
            cp = cp * (hex ? 16 : 10) + (uint32_t)(hex ? hexval(t[j]) : t[j] - '0');
            j++, digits++;
        }
        if (digits && j < n && t[j] == ';' && cp <= 0x10FFFF) {
            *len = j + 1 - i;
            return utf8(cp, out);
        }
    }
    if (t[i] == '&')
        for (size_t e = 0; e < sizeof ent / sizeof ent[0]; e++) {
            size_t l = strlen(ent[e].name);
            if (left >= l && memcmp(t + i, ent[e].name, l) == 0) {
                *len = l;
                out[0] = (uint8_t)ent[e].c;
                return 1;
            }
        }
    if (t[i] == '\\' && left >= 2) {
        uint8_t c = t[i + 1];
        if (c == '"' || c == '\\' || c == '/' || c == 'n' || c == 'r') {
            *len = 2;
            out[0] = c == 'n' ? '\n' : c == 'r' ? '\r' : c;
            return 1;
        }
        if (c == 'u' && left >= 6 && hexval(t[i + 2]) >= 0 && hexval(t[i + 3]) >= 0 && hexval(t[i + 4]) >= 0 &&
            hexval(t[i + 5]) >= 0) {
            *len = 6;
            uint32_t cp = (uint32_t)(hexval(t[i + 2]) << 12 | hexval(t[i + 3]) << 8 | hexval(t[i + 4]) << 4 |
                                     hexval(t[i + 5]));
            return utf8(cp, out);
        }
    }
    *len = 1;
    out[0] = t[i];
    return 1;
}

static bool view_build(const uint8_t *t, size_t n, view *v)
{
    memset(v, 0, sizeof *v);
    v->c = malloc(n);
    v->from = malloc(n * sizeof *v->from);
    v->to = malloc(n * sizeof *v->to);
    v->line_end = calloc(n, 1);
    if (!v->c || !v->from || !v->to || !v->line_end)
        return false;
    bool after_break = false;
    for (size_t i = 0; i < n;) {
        uint8_t d[4];
        size_t len;
        size_t k = decode_unit(t, i, n, d, &len);
        if (k == 1 && (d[0] == '\n' || d[0] == '\r')) {
            if (v->n)
                v->line_end[v->n - 1] = true;
            after_break = true;
        } else if (!(after_break && k == 1 && (d[0] == ' ' || d[0] == '\t'))) {
            after_break = false;
            for (size_t j = 0; j < k && v->n < n; j++) { /* a unit never decodes longer than it is */
                v->c[v->n] = d[j];
                v->from[v->n] = i;
                v->to[v->n] = i + len;
                v->n++;
            }
        }
        i += len;
    }
    return true;
}

static void view_free(view *v)
{
    free(v->c);
    free(v->from);
    free(v->to);
    free(v->line_end);
}

static void mark_span(const view *v, size_t a, size_t b, uint8_t *mark)
{
    memset(mark + v->from[a], 1, v->to[b] - v->from[a]);
}

/* A needle in the decoded view: every whole occurrence; and where a line (or the text)
 * ends with a part of it of at least AM_SECRET_MIN_PART bytes, that part (the rest may
 * follow where we cannot see it: the next packet, a cut of someone else's). */
#define AM_SECRET_MIN_PART 4
static void mark_in_view(const view *v, const char *needle, uint8_t *mark)
{
    size_t L = strlen(needle);
    if (L == 0 || v->n == 0)
        return;
    for (size_t i = 0; i + L <= v->n; i++)
        if (v->c[i] == (uint8_t)needle[0] && memcmp(v->c + i, needle, L) == 0)
            mark_span(v, i, i + L - 1, mark);
    for (size_t e = 0; e < v->n; e++) {
        if (!v->line_end[e] && e != v->n - 1) /* a line's end, or the text's */
            continue;
        for (size_t k = L - 1 < e + 1 ? L - 1 : e + 1; k >= AM_SECRET_MIN_PART; k--)
            if (memcmp(v->c + e + 1 - k, needle, k) == 0) {
                mark_span(v, e + 1 - k, e, mark);
                break;
            }
    }
}

/* The base64 spellings of s (standard and URL alphabets) at each of the 3 alignments it
 * may have inside a longer encoded text: the characters that depend on s alone. Returns
 * the count put in b64 (each malloc'd), 0..6; -1 when out of memory. */
static int base64_spellings(const char *s, char *b64[6])
{
    static const char std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t L = strlen(s);
    int count = 0;
    for (size_t k = 0; k < 3; k++) {
        size_t bytes = k + L, chars = (bytes * 8 + 5) / 6;
        uint8_t *in = calloc(bytes + 3, 1);
        char *enc = malloc(chars + 1);
        if (!in || !enc) {
            free(in);
            free(enc);
            for (int i = 0; i < count; i++)
                free(b64[i]);
            return -1;
        }
        memcpy(in + k, s, L);
        for (size_t c = 0; c < chars; c++) {
            size_t bit = 6 * c, byte = bit / 8, shift = bit % 8;
            unsigned v = (unsigned)in[byte] << 8 | in[byte + 1];
            enc[c] = std[(v >> (10 - shift)) & 0x3F];
        }
        free(in);
        size_t first = (8 * k + 5) / 6, end = 8 * (k + L) / 6; /* chars [first, end) are s's alone */
        if (end >= first + AM_SECRET_MIN_PART) {
            enc[end] = '\0';
            memmove(enc, enc + first, end - first + 1);
            char *url = malloc(end - first + 1);
            if (!url) {
                free(enc);
                for (int i = 0; i < count; i++)
                    free(b64[i]);
                return -1;
            }
            for (size_t c = 0; c <= end - first; c++)
                url[c] = enc[c] == '+' ? '-' : enc[c] == '/' ? '_' : enc[c];
            b64[count++] = enc;
            if (strcmp(url, enc) != 0)
                b64[count++] = url;
            else
                free(url);
        } else {
            free(enc);
        }
    }
    return count;
}

void am_secret_mask_bytes(uint8_t *text, size_t n, const am_secrets *secrets, bool was_cut)
{
    if (!text || n == 0 || !secrets)
        return;
    uint8_t *mark = calloc(n, 1);
    view v;
    if (!mark || !view_build(text, n, &v)) {
        if (mark)
            view_free(&v);
        memset(text, '*', n);
        free(mark);
        return;
    }
    for (int k = 0; k < AM_SECRET_MAX; k++) {
        const char *s = secrets->s[k];
        if (!s || !s[0])
            continue;
        char *sp[SPELLINGS], *b64[6];
        int count = spellings(s, sp);
        int nb = base64_spellings(s, b64);
        if (count == 0 || nb < 0) {
            for (int i = 1; i < count; i++)
                free(sp[i]);
            memset(text, '*', n);
            free(mark);
            view_free(&v);
            return;
        }
        for (int i = 0; i < count; i++) {
            mark_spelling(text, n, sp[i], was_cut, mark);
            if (i)
                free(sp[i]);
        }
        mark_in_view(&v, s, mark);
        for (int i = 0; i < nb; i++) {
            mark_in_view(&v, b64[i], mark);
            free(b64[i]);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (mark[i])
            text[i] = '*';
    free(mark);
    view_free(&v);
}

void am_secret_mask(char *s, const am_secrets *secrets, bool was_cut)
{
    if (s)
        am_secret_mask_bytes((uint8_t *)s, strlen(s), secrets, was_cut);
}

/* The longest spelling of any secret (what a window past the cut must hold). */
static size_t longest(const am_secrets *secrets)
{
    size_t m = 0;
    for (int k = 0; secrets && k < AM_SECRET_MAX; k++)
        if (secrets->s[k]) {
            size_t l = strlen(secrets->s[k]) * 10; /* an escape is at most 10 bytes (&#x10FFFF;) */
            if (l > m)
                m = l;
        }
    return m;
}

void am_secret_snippet(const uint8_t *text, size_t n, const am_secrets *secrets, size_t max, char *out, size_t out_size)
{
    if (!out || out_size == 0)
        return;
    out[0] = '\0';
    if (out_size < 5)
        return;
    if (max > out_size - 4)
        max = out_size - 4;
    if (!text)
        n = 0;
    size_t shown = n < max ? n : max;
    /* Mask a window reaching past the cut by the longest secret, so one straddling the cut
     * is found whole. */
    size_t extra = longest(secrets);
    size_t window = n - shown > extra ? shown + extra : n;
    uint8_t *w = window ? malloc(window) : NULL;
    if (window && !w) {
        memset(out, '*', shown);
    } else {
        if (window)
            memcpy(w, text, window);
        am_secret_mask_bytes(w, window, secrets, window < n);
        for (size_t i = 0; i < shown; i++)
            out[i] = (w[i] >= 0x20 && w[i] < 0x7f) ? (char)w[i] : '.';
        free(w);
    }
    out[shown] = '\0';
    if (n > shown)
        memcpy(out + shown, "...", 4);
}
