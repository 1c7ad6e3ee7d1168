/* Lists of formatted lines a step collects for its caller (warnings, notes, differences,
 * problems), in one of two shapes:
 * - a growing list: each line its own malloc'd string in a realloc'd array that the owner
 *   frees (each string, then the array);
 * - a fixed table of rows in the result struct (char rows[max][row_size]): lines past
 *   `max` are dropped, and the caller may count them. */
#ifndef AM_CORE_NOTES_H
#define AM_CORE_NOTES_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* Append the printf-style text, cut to `size` - 1 bytes (as a char[size] buffer would
 * hold it), to *list (*count entries). On running out of memory the list stays as it was
 * (perhaps with a larger array) and the error is "out of memory (what)". */
am_status am_notes_vadd(char ***list, size_t *count, size_t size, const char *what, am_error *err, const char *fmt,
                        va_list ap) __attribute__((format(printf, 6, 0)));

/* Format (am_text_vformat: quoted file text escaped, cut to the row) into the next free row
 * of `rows` (`max` rows of `row_size` bytes, *count in use) and count it; false, nothing
 * written, when the table is full. */
bool am_rows_vadd(char *rows, size_t row_size, size_t max, size_t *count, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

#ifdef __cplusplus
}
#endif

#endif
