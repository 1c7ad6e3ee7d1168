/* Base64 (RFC 4648): how binary data travels inside JSON (a glTF data: URI, a WorldBridge
 * request's files, an OAR's inline assets). */
#ifndef AM_CORE_BASE64_H
#define AM_CORE_BASE64_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Standard base64 (with padding, no line breaks) into a malloc'd string. */
am_status am_base64_encode(const void *data, size_t n, char **out, am_error *err);
/* And back: white space is skipped; anything else outside the alphabet, a length that is not
 * a multiple of 4 or misplaced padding is AM_ERR_INVALID. *out is malloc'd (n may be 0). */
am_status am_base64_decode(const char *text, uint8_t **out, size_t *n, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
