#include "core/error.h"
#include "core/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void am_error_clear(am_error *err)
{
    if (!err)
        return;
    err->code = AM_OK;
    err->msg[0] = '\0';
    err->where[0] = '\0';
    err->offset = AM_NO_OFFSET;
}

static am_status vfail(am_error *err, am_status code, size_t offset, const char *fmt, va_list ap)
{
    if (!err)
        return code;
    /* Format first: an argument may point into err itself (its old msg or where). */
    char msg[sizeof err->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    memcpy(err->msg, msg, sizeof msg);
    err->code = code;
    err->offset = offset;
    err->where[0] = '\0';
    return code;
}

am_status am_fail(am_error *err, am_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, AM_NO_OFFSET, fmt, ap);
    va_end(ap);
    return code;
}

am_status am_fail_at(am_error *err, am_status code, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, offset, fmt, ap);
    va_end(ap);
    return code;
}

am_status am_fail_vwhere(am_error *err, am_status code, size_t offset, const char *where, const char *fmt,
                         va_list ap)
{
    vfail(err, code, offset, fmt, ap);
    if (where && where[0])
        am_error_where(err, "%s", where);
    return code;
}

am_status am_fail_where(am_error *err, am_status code, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_fail_vwhere(err, code, AM_NO_OFFSET, where, fmt, ap);
    va_end(ap);
    return code;
}

/* Copy at most `room` bytes of s (length n) into out, cutting the middle when it is
 * longer: the head keeps the start of a path, the tail its file name. Returns bytes
 * written (no NUL). */
static size_t put_elided(char *out, size_t room, const char *s, size_t n)
{
    if (n <= room) {
        memcpy(out, s, n);
        return n;
    }
    static const char dots[] = "...";
    if (room <= sizeof dots - 1 + 2) {
        memcpy(out, s + n - room, room); /* too little room for dots: keep the tail */
        return room;
    }
    size_t keep = room - (sizeof dots - 1);
    size_t head = keep / 4, tail = keep - head;
    memcpy(out, s, head);
    memcpy(out + head, dots, sizeof dots - 1);
    memcpy(out + head + sizeof dots - 1, s + n - tail, tail);
    return room;
}

void am_error_where(am_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char place[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(place, sizeof place, fmt, ap);
    va_end(ap);
    /* The old where may be anything the caller left there: read it bounded. */
    char old[sizeof err->where];
    size_t old_n = strnlen(err->where, sizeof err->where);
    if (old_n == sizeof err->where)
        old_n = sizeof err->where - 1;
    memcpy(old, err->where, old_n);
    size_t place_n = strlen(place);
    const size_t cap = sizeof err->where - 1;
    size_t sep = old_n ? 2 : 0;
    size_t n = 0;
    if (place_n + sep + old_n <= cap) {
        memcpy(err->where, place, place_n);
        n = place_n;
    } else {
        /* Share the room: the inner places (fields) keep up to half, the new outer place
         * (usually the file) the rest, each cut in its middle. */
        size_t old_room = old_n < cap / 2 ? old_n : cap / 2;
        size_t place_room = cap - sep - old_room;
        if (place_n < place_room) {
            old_room += place_room - place_n;
            place_room = place_n;
        }
        n = put_elided(err->where, place_room, place, place_n);
        if (old_room < old_n) {
            char cut[sizeof err->where];
            size_t m = put_elided(cut, old_room, old, old_n);
            memcpy(old, cut, m);
            old_n = m;
        }
    }
    if (old_n) {
        memcpy(err->where + n, ": ", 2);
        memcpy(err->where + n + 2, old, old_n);
        n += 2 + old_n;
    }
    err->where[n] = '\0';
}

am_status am_fail_nomem(am_error *err, const char *what)
{
    return am_fail(err, AM_ERR_NOMEM, "out of memory (%s)", what);
}

const char *am_error_format(const am_error *err, char *buf, size_t size)
{
    if (!buf || !size)
        return buf;
    if (!err || err->code == AM_OK) {
        snprintf(buf, size, "no error");
        return buf;
    }
    /* Bounded reads: a struct that was never filled may lack its terminators. */
    int wn = (int)strnlen(err->where, sizeof err->where);
    int mn = (int)strnlen(err->msg, sizeof err->msg);
    int n = 0;
    if (wn)
        n = snprintf(buf, size, "%.*s: ", wn, err->where);
    if (n < 0 || (size_t)n >= size)
        return am_text_escape(buf, size);
    if (err->offset != AM_NO_OFFSET)
        snprintf(buf + n, size - (size_t)n, "%.*s (at byte %zu)", mn, err->msg, err->offset);
    else
        snprintf(buf + n, size - (size_t)n, "%.*s", mn, err->msg);
    /* Messages quote file and node names: control characters are shown, never sent. */
    return am_text_escape(buf, size);
}

int am_status_exit_code(am_status s)
{
    switch (s) {
    case AM_OK: return 0;
    case AM_ERR_USAGE: return 2;
    case AM_ERR_IO: return 3;
    default: return 1;
    }
}
