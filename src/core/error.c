#include "core/error.h"

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
    err->code = code;
    err->offset = offset;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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

am_status am_fail_where(am_error *err, am_status code, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, AM_NO_OFFSET, fmt, ap);
    va_end(ap);
    am_error_where(err, "%s", where);
    return code;
}

void am_error_where(am_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char place[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(place, sizeof place, fmt, ap);
    va_end(ap);
    if (err->where[0]) {
        char old[128];
        memcpy(old, err->where, sizeof old);
        snprintf(err->where, sizeof err->where, "%s: %s", place, old);
    } else {
        snprintf(err->where, sizeof err->where, "%s", place);
    }
}

am_status am_fail_nomem(am_error *err, const char *what)
{
    return am_fail(err, AM_ERR_NOMEM, "out of memory (%s)", what);
}

const char *am_error_format(const am_error *err, char *buf, size_t size)
{
    if (!err || err->code == AM_OK) {
        snprintf(buf, size, "no error");
        return buf;
    }
    int n = 0;
    if (err->where[0])
        n = snprintf(buf, size, "%s: ", err->where);
    if (n < 0 || (size_t)n >= size)
        return buf;
    if (err->offset != AM_NO_OFFSET)
        snprintf(buf + n, size - (size_t)n, "%s (at byte %zu)", err->msg, err->offset);
    else
        snprintf(buf + n, size - (size_t)n, "%s", err->msg);
    return buf;
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
