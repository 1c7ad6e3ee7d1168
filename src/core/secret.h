/* Secrets that never leave the process (the WorldBridge token, the RemoteAdmin password).
 *
 * Any text that may quote a peer's words (a reply body, an error string from a reply,
 * curl's message) or hold our own request (dry-run files) goes through these before it is
 * printed, stored in an am_error or written. Masking happens on the whole text BEFORE it is
 * cut to length, so a secret straddling the cut is masked too; every spelling a peer could
 * echo is covered: the secret itself, JSON-escaped ("\"", "\\", "\/") and XML-escaped
 * ("&amp;" ...); and where the text itself was cut short by someone else (a fixed buffer),
 * any tail of the text that begins a secret is masked as well. Each masked byte becomes '*'.
 * If memory runs out, the whole text is masked (never the other way round). */
#ifndef AM_CORE_SECRET_H
#define AM_CORE_SECRET_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Up to this many secrets per call; NULL and "" entries are skipped. */
#define AM_SECRET_MAX 4

typedef struct am_secrets {
    const char *s[AM_SECRET_MAX];
} am_secrets;

/* The first bytes of text (n bytes) as one printable line: secrets masked, then control and
 * non-ASCII bytes shown as '.', then cut to max bytes with "..." appended when longer.
 * out receives at most out_size - 1 characters (max is lowered to fit "..."). */
void am_secret_snippet(const uint8_t *text, size_t n, const am_secrets *secrets, size_t max, char *out,
                       size_t out_size);

/* Mask secrets in place in a NUL-terminated string. `was_cut`: the string is the start of a
 * longer text (a buffer cut it), so a tail of it that begins a secret is masked too. */
void am_secret_mask(char *s, const am_secrets *secrets, bool was_cut);

/* Mask secrets in place in n bytes (same rules). */
void am_secret_mask_bytes(uint8_t *text, size_t n, const am_secrets *secrets, bool was_cut);

#ifdef __cplusplus
}
#endif

#endif
