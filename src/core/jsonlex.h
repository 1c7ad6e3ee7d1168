/* A one-pass JSON reader (RFC 8259) for big documents read straight into their final
 * arrays: no tree is built, numbers are converted without strtod on the common path (a
 * decimal of at most 19 digits and a power of ten up to 22: one exact multiplication or
 * division, i.e. correctly rounded, as strtod would give; everything else goes through
 * strtod).
 *
 * Strict like jansson: numbers exactly in JSON's grammar, strings valid UTF-8 with no raw
 * control characters and no \u0000, literals true / false / null, nothing after the top
 * value. Syntax errors read as core/json_text.h's: "not valid JSON: <what> (line L,
 * column C)", or "empty: expected JSON", `where` naming the source. The caller walks the
 * document:
 *
 *   if (am_jlex_expect(l, '{')) ...;
 *   for (size_t i = 0; am_jlex_more(l, '}', i, &st);) { am_jlex_key(l) -> l->str ...; value ... }
 *   if (st) ...;
 */
#ifndef AM_CORE_JSONLEX_H
#define AM_CORE_JSONLEX_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

typedef struct am_jlex {
    const char *p, *end;   /* p is the next byte */
    const char *base;      /* the document's first byte */
    const char *line_start;
    int line;
    char *str;             /* the last string or key read (NUL-terminated, owned) */
    size_t str_len, str_cap;
    const char *source;    /* names the document in errors */
    am_error *err;
} am_jlex;

typedef struct am_jnum {
    double d;              /* the value (integers too) */
    bool is_int;           /* no fraction and no exponent: an integer in JSON's sense */
    long long i;           /* when is_int */
} am_jnum;

/* A document in memory (not copied; must outlive the reader). */
void am_jlex_from_mem(am_jlex *l, const char *data, size_t size, const char *source, am_error *err);
void am_jlex_free(am_jlex *l);

/* The next non-space byte without consuming it; 0 at the end. */
int am_jlex_peek(am_jlex *l);
/* Consume c (after spaces) or fail with "expected 'c'". */
am_status am_jlex_expect(am_jlex *l, char c);
/* Inside an array or object, before element `index`: true if one follows (eats the ','
 * between elements), false at the closing `close` (eaten). *st holds a syntax error. */
bool am_jlex_more(am_jlex *l, char close, size_t index, am_status *st);
/* A string into l->str. */
am_status am_jlex_string(am_jlex *l);
/* An object key and its ':' into l->str. */
am_status am_jlex_key(am_jlex *l);
am_status am_jlex_number(am_jlex *l, am_jnum *out);
/* true / false (*b) or null (*is_null). */
am_status am_jlex_literal(am_jlex *l, bool *b, bool *is_null);
/* Any value, checked and thrown away. */
am_status am_jlex_skip(am_jlex *l);
/* After the top value: only spaces may follow. */
am_status am_jlex_end(am_jlex *l);

/* A syntax error at the current position. */
am_status am_jlex_fail(am_jlex *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif
