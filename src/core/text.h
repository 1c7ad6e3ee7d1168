/* Text checks for names that travel as JSON or XML text (an object name, an animation
 * name): valid UTF-8, and a way to show any bytes safely in a message. */
#ifndef AM_CORE_TEXT_H
#define AM_CORE_TEXT_H

#include <stdarg.h>
#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

/* True when s[0..n) is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF). On false, *bad_at (may be NULL) is the offset of the first
 * byte that is not. */
bool am_utf8_valid(const char *s, size_t n, size_t *bad_at);

/* s as printable text for a message: valid UTF-8 passes through, every other byte and
 * every control character appears as \xNN; cut with "..." to fit out (size >= 8). */
const char *am_text_shown(const char *s, char *out, size_t size);

/* The same in place: s (a NUL-terminated text in a buffer of `size` bytes) with every
 * control character (C0, DEL, C1) and ill-formed byte as \xNN, cut with "..." to fit.
 * For messages and table cells that quote a file's text (node names, file names): a name
 * holding "\x1b[2J" is printed as that text, never sent to the terminal as an escape.
 * Returns s. */
char *am_text_escape(char *s, size_t size);

/* vsnprintf, then am_text_escape: what a message builder that quotes file text uses. */
void am_text_vformat(char *out, size_t size, const char *fmt, va_list ap);
#ifdef __cplusplus
}
#endif

#endif
