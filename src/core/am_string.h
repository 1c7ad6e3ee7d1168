/* Owned strings: text a library struct holds for its caller (a name, a path, a sentence),
 * as a pointer and a length, never cut to a fixed array.
 *
 * Rules, for every public struct with an am_string field:
 * - `data` is malloc'd, NUL-terminated, and owned by the struct: the struct's own `_free`
 *   releases it. `length` is strlen(data).
 * - An unset string is {NULL, 0} and reads as "" through am_str(); a zeroed struct holds
 *   only unset strings.
 * - A caller only reads them; setting is the library's (am_string_set, am_string_setf). */
#ifndef AM_CORE_STRING_H
#define AM_CORE_STRING_H

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Free every string of a list, then the list (NULL is fine). */
void am_string_list_free(am_string *list, size_t count);

/* Replace the text with a copy of `text` (NULL: unset). False when out of memory: the old
 * text is kept. */
bool am_string_set(am_string *s, const char *text);
/* The same with the first n bytes of text (no NUL needed). */
bool am_string_setn(am_string *s, const char *text, size_t n);
/* Replace the text with a printf-style one. False when out of memory: the old text is kept. */
bool am_string_setf(am_string *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool am_string_vsetf(am_string *s, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Append printf-style text to s (unset: the text becomes s); false when out of memory (s
 * unchanged). What a list or a sentence built a piece at a time uses. */
bool am_string_appendf(am_string *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool am_string_vappendf(am_string *s, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* A copy of src into dst (dst's old text freed); false when out of memory (dst kept). */
bool am_string_copy(am_string *dst, const am_string *src);

/* Append text to a list of strings grown by doubling (*count, *cap); false when out of
 * memory (the list is unchanged). */
bool am_string_list_push(am_string **list, size_t *count, size_t *cap, const char *text);

#ifdef __cplusplus
}
#endif

#endif
