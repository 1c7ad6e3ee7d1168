/* Errors are values: every fallible call fills an am_error and returns a status.
 * The message says what went wrong; `where` names the file/field/joint; `offset`
 * is the byte offset in binary input when it applies (else AM_NO_OFFSET).
 *
 * Contract (every function below, and every library call that takes an am_error *):
 * - err may be NULL: the status is still returned, nothing is recorded.
 * - The caller's struct may hold anything (never cleared, reused, stack garbage): no
 *   function reads past its arrays, and am_fail / am_fail_at / am_fail_nomem start a NEW
 *   error: they set code, message and offset and reset `where`, so a reused error never
 *   carries an old place into the next message. am_error_where then adds places from the
 *   inside out as the error rises.
 * - Arguments may point into the same am_error (am_fail(err, c, "%s", err->msg) is fine).
 * - `where` keeps the outermost place (normally the file) first; when places do not fit,
 *   the middle of a long place is cut ("/very/long/...er/file.json") so the file name and
 *   the field both stay. */
#ifndef AM_CORE_ERROR_H
#define AM_CORE_ERROR_H

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdarg.h>
#include <stddef.h>

/* Start a new error: code and a printf-style message, `where` emptied, no offset; returns
 * code so callers can `return am_fail(...)`. err may be NULL (the error is then only
 * returned). */
am_status am_fail(am_error *err, am_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Same, recording a byte offset into binary input. */
am_status am_fail_at(am_error *err, am_status code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* am_fail, then am_error_where(err, "%s", where): one call for readers that name their
 * file on every error. */
am_status am_fail_where(am_error *err, am_status code, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The same from a va_list, with an offset (AM_NO_OFFSET when none); `where` NULL or empty
 * adds no place. The one body behind a module's own "fail, naming my place" helper: it
 * builds its place, then hands its arguments on. */
am_status am_fail_vwhere(am_error *err, am_status code, size_t offset, const char *where, const char *fmt,
                         va_list ap) __attribute__((format(printf, 5, 0)));

/* Name the place (file, field) the error belongs to, after am_fail; an existing `where`
 * is kept by prefixing: "file.json: joints[3]". */
void am_error_where(am_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Shorthand for allocation failures. */
am_status am_fail_nomem(am_error *err, const char *what);

#ifdef __cplusplus
}
#endif

#endif
