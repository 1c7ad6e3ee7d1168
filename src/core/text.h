/* Text checks for names that travel as JSON or XML text (an object name, an animation
 * name): valid UTF-8, and a way to show any bytes safely in a message. */
#ifndef AM_CORE_TEXT_H
#define AM_CORE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* True when s[0..n) is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF). On false, *bad_at (may be NULL) is the offset of the first
 * byte that is not. */
bool am_utf8_valid(const char *s, size_t n, size_t *bad_at);

/* s as printable text for a message: valid UTF-8 passes through, every other byte and
 * every control character appears as \xNN; cut with "..." to fit out (size >= 8). */
const char *am_text_shown(const char *s, char *out, size_t size);

#endif
