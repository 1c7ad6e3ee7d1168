/* The buffered text writer (textout.h). */
#include "core/textout.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "core/numfmt.h"

void am_textout_to_buf(am_textout *t, am_buf *out, am_error *err)
{
    t->len = 0;
    t->mem = out;
    t->file = NULL;
    t->name = NULL;
    t->status = AM_OK;
    t->err = err;
    t->total = 0;
}

void am_textout_to_file(am_textout *t, FILE *f, const char *name, am_error *err)
{
    am_textout_to_buf(t, NULL, err);
    t->file = f;
    t->name = name ? name : "output";
}

void am_textout_flush(am_textout *t)
{
    if (t->status || t->len == 0)
        return;
    if (t->file) {
        if (fwrite(t->chunk, 1, t->len, t->file) != t->len)
            t->status = am_fail(t->err, AM_ERR_IO, "%s: write failed: %s", t->name, strerror(errno));
    } else if (t->mem)
        t->status = am_buf_append(t->mem, t->chunk, t->len, t->err);
    t->len = 0;
}

am_status am_textout_finish(am_textout *t)
{
    am_textout_flush(t);
    return t->status;
}

/* Room for one number in the chunk (flushing first when there is not): the numbers are
 * formatted straight into it, not through a copy. Null when the writer has failed. */
static char *number_room(am_textout *t)
{
    if (t->status)
        return NULL;
    if (t->len + AM_FMT_NUM_MAX > AM_TEXTOUT_CHUNK) {
        am_textout_flush(t);
        if (t->status)
            return NULL;
    }
    return t->chunk + t->len;
}

static void number_done(am_textout *t, size_t n)
{
    t->len += n;
    t->total += n;
}

void am_out_u64(am_textout *t, uint64_t v)
{
    char *at = number_room(t);
    if (at)
        number_done(t, am_fmt_u64(at, v));
}

void am_out_i64(am_textout *t, int64_t v)
{
    if (v < 0) {
        am_out_char(t, '-');
        am_out_u64(t, (uint64_t)0 - (uint64_t)v);
    } else
        am_out_u64(t, (uint64_t)v);
}

void am_out_f32(am_textout *t, float v)
{
    char *at = number_room(t);
    if (at)
        number_done(t, am_fmt_f32(at, v));
}

void am_out_f64(am_textout *t, double v)
{
    char *at = number_room(t);
    if (at)
        number_done(t, am_fmt_f64(at, v));
}

void am_out_printf(am_textout *t, const char *fmt, ...)
{
    if (t->status)
        return;
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->status = am_fail(t->err, AM_ERR_INVALID, "text output: bad format");
        return;
    }
    if ((size_t)n < sizeof small) {
        am_out_mem(t, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        t->status = am_fail_nomem(t->err, "text output");
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    am_out_mem(t, big, (size_t)n);
    free(big);
}
