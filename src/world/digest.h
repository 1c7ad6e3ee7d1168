/* Content fingerprints for the world path: UUIDs derived from content, so re-exporting the
 * same creature yields the same asset IDs. SHA-256 itself (what WorldBridge verifies and what
 * the Idempotency-Key is) lives in core/sha256.h, base64 in core/base64.h. */
#ifndef AM_WORLD_DIGEST_H
#define AM_WORLD_DIGEST_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/base64.h" /* base64 moved to core; kept reachable from here */
#include "core/error.h"
#include "core/sha256.h" /* the content hash the UUIDs are made from */

/* A UUID is kept as its 16 bytes in network order (the order of the RFC text form and of
 * the OpenSim ExtraParams blob). */
typedef struct am_uuid {
    uint8_t b[16];
} am_uuid;

/* The fixed namespace of every animesh name-based UUID (RFC 4122 version 5, SHA-1). */
#define AM_UUID_NAMESPACE "8fe70114-ca16-4444-9d08-e92ae3b78847"

/* Version-5 UUID of the text `name` in the animesh namespace. */
void am_uuid_from_name(const char *name, am_uuid *out);
/* Version-5 UUID of "<kind>:<sha256 hex of data>": same bytes and kind, same UUID. */
am_status am_uuid_from_content(const char *kind, const void *data, size_t n, am_uuid *out, am_error *err);
/* The same with a salt: "<kind>:<sha256 hex of data>:<salt>" (salt NULL or "" = unsalted).
 * A new salt gives every asset a new UUID, the way out when a grid already stores a damaged
 * copy under the unsalted one (an asset UUID is stored once; a later load skips it). */
am_status am_uuid_from_content_salted(const char *kind, const char *salt, const void *data, size_t n, am_uuid *out,
                                      am_error *err);
/* Lowercase text form, 36 characters plus NUL. */
void am_uuid_format(const am_uuid *u, char out[37]);
/* Parse the 36-character text form; false when s is not a UUID. */
int am_uuid_parse(const char *s, am_uuid *out);

#ifdef __cplusplus
}
#endif

#endif
