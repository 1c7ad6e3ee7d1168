/* The streaming JSON reader (jsonlex.h). */
#include "core/jsonlex.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 512 /* nesting of a skipped value */

void am_jlex_from_mem(am_jlex *l, const char *data, size_t size, const char *source, am_error *err)
{
    memset(l, 0, sizeof *l);
    l->p = l->base = l->line_start = data;
    l->end = data + size;
    l->line = 1;
    l->source = source ? source : "JSON";
    l->err = err;
}

void am_jlex_free(am_jlex *l)
{
    free(l->str);
    memset(l, 0, sizeof *l);
}

am_status am_jlex_fail(am_jlex *l, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    bool blank = true; /* only spaces: say so, as core/json_text.h does */
    for (const char *q = l->base; q < l->end && blank; q++)
        blank = *q == ' ' || *q == '\t' || *q == '\n' || *q == '\r';
    if (blank)
        return am_fail_where(l->err, AM_ERR_INVALID, l->source, "empty: expected JSON");
    return am_fail_where(l->err, AM_ERR_INVALID, l->source, "not valid JSON: %s (line %d, column %d)", what, l->line,
                         (int)(l->p - l->line_start) + 1);
}

static am_status spaces(am_jlex *l)
{
    while (l->p < l->end && *l->p == ' ') /* the common case: one space after a comma */
        l->p++;
    if (l->p < l->end && (unsigned char)*l->p > ' ')
        return AM_OK;
    for (; l->p < l->end; l->p++) {
        char c = *l->p;
        if (c == '\n') {
            l->line++;
            l->line_start = l->p + 1;
        } else if (c != ' ' && c != '\t' && c != '\r')
            break;
    }
    return AM_OK;
}

int am_jlex_peek(am_jlex *l)
{
    if (l->p < l->end && (unsigned char)*l->p > ' ')
        return (unsigned char)*l->p;
    if (spaces(l) || l->p == l->end)
        return 0;
    return (unsigned char)*l->p;
}

static const char *shown(int c, char buf[16])
{
    if (c == 0)
        return "the end";
    if (c >= 0x20 && c < 0x7F)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

am_status am_jlex_expect(am_jlex *l, char c)
{
    int n = am_jlex_peek(l);
    if (n != (unsigned char)c) {
        char b[16];
        return am_jlex_fail(l, "'%c' expected near %s", c, shown(n, b));
    }
    l->p++;
    return AM_OK;
}

bool am_jlex_more(am_jlex *l, char close, size_t index, am_status *st)
{
    *st = AM_OK;
    int c = am_jlex_peek(l);
    if (c == (unsigned char)close) {
        l->p++;
        return false;
    }
    if (index == 0) {
        if (c == 0)
            *st = am_jlex_fail(l, "'%c' expected near the end", close);
        return c != 0;
    }
    if (c != ',') {
        char b[16];
        *st = am_jlex_fail(l, "',' or '%c' expected near %s", close, shown(c, b));
        return false;
    }
    l->p++;
    c = am_jlex_peek(l);
    if (c == (unsigned char)close || c == 0) {
        char b[16];
        *st = am_jlex_fail(l, "a value expected after ',' near %s", shown(c, b));
        return false;
    }
    return true;
}

static am_status put_char(am_jlex *l, char c)
{
    if (l->str_len + 2 > l->str_cap) {
        size_t cap = l->str_cap ? 2 * l->str_cap : 64;
        char *g = realloc(l->str, cap);
        if (!g)
            return am_fail_nomem(l->err, "JSON string");
        l->str = g;
        l->str_cap = cap;
    }
    l->str[l->str_len++] = c;
    l->str[l->str_len] = '\0';
    return AM_OK;
}

static am_status put_utf8(am_jlex *l, uint32_t cp)
{
    char b[4];
    int n;
    if (cp < 0x80)
        b[0] = (char)cp, n = 1;
    else if (cp < 0x800)
        b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[2] = (char)(0x80 | (cp & 0x3F)),
        n = 3;
    else
        b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    for (int i = 0; i < n; i++) {
        am_status st = put_char(l, b[i]);
        if (st)
            return st;
    }
    return AM_OK;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

am_status am_jlex_string(am_jlex *l)
{
    am_status st = am_jlex_expect(l, '"');
    if (st)
        return st;
    l->str_len = 0;
    if ((st = put_char(l, 0)))
        return st;
    l->str_len = 0;
    for (;;) {
        if (l->p == l->end)
            return am_jlex_fail(l, "premature end of input in a string");
        unsigned char c = (unsigned char)*l->p;
        if (c == '"') {
            l->p++;
            return AM_OK;
        }
        if (c < 0x20)
            return am_jlex_fail(l, "control character 0x%02x in a string", c);
        if (c == '\\') {
            if (l->end - l->p < 2)
                return am_jlex_fail(l, "premature end of input in a string");
            char e = l->p[1];
            const char *map = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *k = strchr(map, e);
            if (e && k) {
                l->p += 2;
                st = put_char(l, to[k - map]);
            } else if (e == 'u') {
                int cp = l->end - l->p >= 6 ? hex4(l->p + 2) : -1;
                if (cp < 0)
                    return am_jlex_fail(l, "invalid \\u escape in a string");
                l->p += 6;
                if (cp >= 0xD800 && cp < 0xDC00) { /* a surrogate pair */
                    int lo = l->end - l->p >= 6 && l->p[0] == '\\' && l->p[1] == 'u' ? hex4(l->p + 2) : -1;
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return am_jlex_fail(l, "invalid Unicode surrogate in a string");
                    l->p += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF)
                    return am_jlex_fail(l, "invalid Unicode surrogate in a string");
                if (cp == 0)
                    return am_jlex_fail(l, "\\u0000 is not allowed in a string");
                st = put_utf8(l, (uint32_t)cp);
            } else
                return am_jlex_fail(l, "invalid escape '\\%c' in a string", e ? e : '?');
            if (st)
                return st;
            continue;
        }
        if (c < 0x80) {
            l->p++;
            if ((st = put_char(l, (char)c)))
                return st;
            continue;
        }
        /* UTF-8: the right number of continuation bytes, no overlong form, no surrogate */
        int n = c >= 0xF0 ? (c <= 0xF4 ? 3 : -1) : c >= 0xE0 ? 2 : c >= 0xC2 ? 1 : -1;
        if (n < 0 || l->end - l->p < n + 1)
            return am_jlex_fail(l, "invalid UTF-8 in a string");
        uint32_t cp = c & (n == 1 ? 0x1F : n == 2 ? 0x0F : 0x07);
        for (int i = 1; i <= n; i++) {
            unsigned char d = (unsigned char)l->p[i];
            if ((d & 0xC0) != 0x80)
                return am_jlex_fail(l, "invalid UTF-8 in a string");
            cp = cp << 6 | (d & 0x3F);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return am_jlex_fail(l, "invalid UTF-8 in a string");
        for (int i = 0; i <= n; i++)
            if ((st = put_char(l, l->p[i])))
                return st;
        l->p += n + 1;
    }
}

am_status am_jlex_key(am_jlex *l)
{
    if (am_jlex_peek(l) != '"') {
        char b[16];
        return am_jlex_fail(l, "string or '}' expected near %s", shown(am_jlex_peek(l), b));
    }
    am_status st = am_jlex_string(l);
    return st ? st : am_jlex_expect(l, ':');
}

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

am_status am_jlex_number(am_jlex *l, am_jnum *out)
{
    am_status st;
    {
        if (!(l->p < l->end && (unsigned char)*l->p > ' ') && (st = spaces(l)))
            return st; /* (the caller has usually peeked already) */
        const char *p = l->p, *end = l->end;
        bool neg = false;
        if (p < end && *p == '-')
            neg = true, p++;
        if (p == end || *p < '0' || *p > '9') {
            char b[16];
            return am_jlex_fail(l, "a number expected near %s", shown(p < end ? (unsigned char)*p : 0, b));
        }
        /* the digits (leading zeros included) into m while there are at most 19 of them */
        uint64_t m = 0;
        int count = 0, exp10 = 0;
        bool is_int = true;
        const char *d0 = p;
        if (*p == '0') {
            p++;
            if (p < end && *p >= '0' && *p <= '9')
                return am_jlex_fail(l, "invalid number (a leading zero)");
        } else
            for (; p < end && (unsigned)(*p - '0') < 10u; p++)
                m = m * 10 + (uint64_t)(*p - '0');
        count = (int)(p - d0);
        if (p < end && *p == '.') {
            is_int = false;
            p++;
            const char *f0 = p;
            for (; p < end && (unsigned)(*p - '0') < 10u; p++)
                m = m * 10 + (uint64_t)(*p - '0');
            if (p == f0)
                return am_jlex_fail(l, "invalid number (no digit after '.')");
            exp10 = -(int)(p - f0);
            count += (int)(p - f0);
        }
        int dropped = count > 19; /* m wrapped: strtod decides (integers: too big) */
        if (p < end && (*p == 'e' || *p == 'E')) {
            is_int = false;
            p++;
            bool eneg = false;
            if (p < end && (*p == '+' || *p == '-'))
                eneg = *p == '-', p++;
            if (p == end || *p < '0' || *p > '9')
                return am_jlex_fail(l, "invalid number (no digit in the exponent)");
            int e = 0;
            for (; p < end && *p >= '0' && *p <= '9'; p++)
                if (e < 100000)
                    e = e * 10 + (*p - '0');
            exp10 += eneg ? -e : e;
        }
        size_t len = (size_t)(p - l->p);
        if (is_int) {
            /* dropped integer digits: too big for 64 bits either way */
            bool big = dropped > 0 || (neg ? m > (uint64_t)INT64_MAX + 1 : m > (uint64_t)INT64_MAX);
            if (big)
                return am_jlex_fail(l, "too big integer");
            out->is_int = true;
            out->i = neg ? (long long)(0 - m) : (long long)m;
            out->d = (double)out->i;
        } else {
            out->is_int = false;
            double d;
            if (dropped == 0 && m < (1ull << 53) && exp10 >= -22 && exp10 <= 22)
                d = exp10 < 0 ? (double)m / pow10_exact[-exp10] : (double)m * pow10_exact[exp10];
            else { /* the rare long or far number: strtod on a copy of the token */
                char small[400], *tok = len < sizeof small ? small : malloc(len + 1);
                if (!tok)
                    return am_fail_nomem(l->err, "JSON number");
                memcpy(tok, l->p + neg, len - neg);
                tok[len - neg] = '\0';
                d = strtod(tok, NULL);
                if (tok != small)
                    free(tok);
            }
            if (isinf(d))
                return am_jlex_fail(l, "real number overflow");
            out->d = neg ? -d : d;
        }
        l->p += len;
        return AM_OK;
    }
}

am_status am_jlex_literal(am_jlex *l, bool *b, bool *is_null)
{
    am_status st;
    if ((st = spaces(l)))
        return st;
    size_t n = (size_t)(l->end - l->p);
    *is_null = false;
    if (n >= 4 && memcmp(l->p, "true", 4) == 0)
        *b = true, l->p += 4;
    else if (n >= 5 && memcmp(l->p, "false", 5) == 0)
        *b = false, l->p += 5;
    else if (n >= 4 && memcmp(l->p, "null", 4) == 0)
        *b = false, *is_null = true, l->p += 4;
    else
        return am_jlex_fail(l, "invalid token");
    return AM_OK;
}

static am_status skip_at(am_jlex *l, int depth)
{
    if (depth > MAX_DEPTH)
        return am_jlex_fail(l, "maximum nesting depth %d exceeded", MAX_DEPTH);
    int c = am_jlex_peek(l);
    am_status st = AM_OK;
    if (c == '{' || c == '[') {
        l->p++;
        char close = c == '{' ? '}' : ']';
        for (size_t i = 0; am_jlex_more(l, close, i, &st); i++)
            if ((c == '{' && (st = am_jlex_key(l))) || (st = skip_at(l, depth + 1)))
                return st;
        return st;
    }
    if (c == '"')
        return am_jlex_string(l);
    if (c == '-' || (c >= '0' && c <= '9')) {
        am_jnum n;
        return am_jlex_number(l, &n);
    }
    if (c == 't' || c == 'f' || c == 'n') {
        bool b, z;
        return am_jlex_literal(l, &b, &z);
    }
    char b[16];
    return am_jlex_fail(l, "a value expected near %s", shown(c, b));
}

am_status am_jlex_skip(am_jlex *l) { return skip_at(l, 0); }

am_status am_jlex_end(am_jlex *l)
{
    int c = am_jlex_peek(l);
    if (c) {
        char b[16];
        return am_jlex_fail(l, "end of file expected near %s", shown(c, b));
    }
    return AM_OK;
}
