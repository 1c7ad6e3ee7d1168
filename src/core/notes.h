/* A growing list of formatted lines: the warnings, differences and problems a step
 * collects for its caller, each its own malloc'd string in a realloc'd array that the
 * owner frees (each string, then the array). */
#ifndef AM_NOTES_H
#define AM_NOTES_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdarg.h>
#include <stddef.h>

#include "core/error.h"

/* Append the printf-style text, cut to `size` - 1 bytes (as a char[size] buffer would
 * hold it), to *list (*count entries). On running out of memory the list stays as it was
 * (perhaps with a larger array) and the error is "out of memory (what)". */
am_status am_notes_vadd(char ***list, size_t *count, size_t size, const char *what, am_error *err, const char *fmt,
                        va_list ap) __attribute__((format(printf, 6, 0)));

#ifdef __cplusplus
}
#endif

#endif
