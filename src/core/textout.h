/* A buffered text writer for the big text outputs (COLLADA, meshdata): small appends into a
 * fixed buffer, flushed either into an am_buf (the whole text in memory) or to a FILE as it
 * goes (a 100 MB .dae never held in memory). Errors are sticky: after the first failure
 * every call does nothing, and am_textout_finish returns the failure (with its message in
 * the am_error given at init). No printf on the hot path: strings, integers and shortest
 * round-trip numbers (core/numfmt.h) are appended directly. */
#ifndef AM_CORE_TEXTOUT_H
#define AM_CORE_TEXTOUT_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/io.h"

#define AM_TEXTOUT_CHUNK 65536

typedef struct am_textout {
    char chunk[AM_TEXTOUT_CHUNK];
    size_t len;          /* bytes pending in chunk */
    am_buf *mem;         /* target: memory ... */
    FILE *file;          /* ... or a file (written, never closed here) */
    const char *name;    /* for I/O errors */
    am_status status;
    am_error *err;
    size_t total;        /* bytes written so far (flushed + pending) */
} am_textout;

void am_textout_to_buf(am_textout *t, am_buf *out, am_error *err);
void am_textout_to_file(am_textout *t, FILE *f, const char *name, am_error *err);
/* Flush what is pending; returns the first error, if any. */
am_status am_textout_finish(am_textout *t);

/* Internal: move the pending bytes out (sets the status on failure). */
void am_textout_flush(am_textout *t);

static inline void am_out_mem(am_textout *t, const char *s, size_t n)
{
    if (t->status)
        return;
    if (t->len + n > AM_TEXTOUT_CHUNK) {
        am_textout_flush(t);
        if (t->status)
            return;
        if (n > AM_TEXTOUT_CHUNK) { /* larger than a chunk: straight through */
            size_t at = 0;
            while (at < n && !t->status) {
                size_t k = n - at < AM_TEXTOUT_CHUNK ? n - at : AM_TEXTOUT_CHUNK;
                memcpy(t->chunk, s + at, k);
                t->len = k;
                t->total += k;
                at += k;
                am_textout_flush(t);
            }
            return;
        }
    }
    memcpy(t->chunk + t->len, s, n);
    t->len += n;
    t->total += n;
}

static inline void am_out_str(am_textout *t, const char *s) { am_out_mem(t, s, strlen(s)); }
static inline void am_out_char(am_textout *t, char c) { am_out_mem(t, &c, 1); }

void am_out_u64(am_textout *t, uint64_t v);
void am_out_i64(am_textout *t, int64_t v);
void am_out_f32(am_textout *t, float v);   /* shortest round-trip (am_fmt_f32) */
void am_out_f64(am_textout *t, double v);  /* shortest round-trip (am_fmt_f64) */
/* printf for the rare structured line (not for bulk numbers). */
void am_out_printf(am_textout *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif
