/* SHA-256 (FIPS 180-4, computed by OpenSSL's libcrypto), the one place the library takes it:
 * content fingerprints (world/digest.h's UUIDs, WorldBridge's Idempotency-Key), batch job
 * keys and file hashes. A whole buffer, a stream fed in pieces, or a file read in blocks. */
#ifndef AM_CORE_SHA256_H
#define AM_CORE_SHA256_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* The 32-byte SHA-256 of data. */
am_status am_sha256(const void *data, size_t n, uint8_t out[32], am_error *err);
/* Same, as 64 lowercase hex digits plus NUL. */
am_status am_sha256_hex(const void *data, size_t n, char out[65], am_error *err);

/* n bytes as 2n lowercase hex digits plus NUL (out holds 2n + 1). */
void am_hex_lower(const uint8_t *d, size_t n, char *out);

/* A digest fed in pieces: begin, update any number of times, end (which frees it, whatever
 * happened before; am_sha256_abort frees one that will not be ended). */
typedef struct am_sha256_stream am_sha256_stream;

am_status am_sha256_begin(am_sha256_stream **out, am_error *err);
am_status am_sha256_update(am_sha256_stream *st, const void *data, size_t n, am_error *err);
/* The digest as 64 lowercase hex digits plus NUL; frees st. */
am_status am_sha256_end_hex(am_sha256_stream *st, char hex[65], am_error *err);
void am_sha256_abort(am_sha256_stream *st);

/* The SHA-256 of a regular file's bytes, read in 1 MiB blocks; errors name the path. */
am_status am_sha256_file_hex(const char *path, char hex[65], am_error *err);

#ifdef __cplusplus
}
#endif

#endif
