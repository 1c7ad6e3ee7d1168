/* Progress of a long library call (import, bind, the bend box): one line per step handed to
 * the caller's function, since the library never prints. The CLI prints the lines (to
 * stderr when stdout carries JSON); a program may log or drop them. */
#ifndef AM_CORE_PROGRESS_H
#define AM_CORE_PROGRESS_H

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdarg.h>

/* At most this many bytes of a line are passed on (a longer one is cut). */
#define AM_PROGRESS_LINE_MAX 512

/* Format a line (printf) and hand it to fn; nothing when fn is NULL. */
void am_progress(am_progress_fn fn, void *user, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void am_progress_v(am_progress_fn fn, void *user, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#ifdef __cplusplus
}
#endif

#endif
