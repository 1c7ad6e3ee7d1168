/* A sentence that quotes file text, formatted into an owned string whole: every control
 * character and ill-formed byte shown as \xNN (core/text.h am_text_escape), nothing cut.
 * What a reader's note, a retarget finding or a skin warning is built with. */
#ifndef AM_CORE_TEXT_STRING_H
#define AM_CORE_TEXT_STRING_H

#include <stdarg.h>
#include <stdbool.h>

#include "core/am_string.h"

#ifdef __cplusplus
extern "C" {
#endif

/* vsnprintf + am_text_escape into s (its old text freed); false when out of memory (s kept). */
bool am_string_vsetf_shown(am_string *s, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#ifdef __cplusplus
}
#endif

#endif
