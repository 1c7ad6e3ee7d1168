/* zlib blocks of a mesh asset (docs/reference/mesh-asset.md#block-compression): RFC 1950 zlib streams (not gzip, not raw
 * deflate), written at level 9 (Z_BEST_COMPRESSION), read until Z_STREAM_END with bytes
 * after the stream ignored, as LLUZipHelper::unzip_llsd does. */
#ifndef AM_MESH_ZBLOCK_H
#define AM_MESH_ZBLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"

/* Inflated size cap used by the mesh decoder (a 65536-vertex face is ~1.5 MB). */
#define AM_ZBLOCK_MAX_INFLATED ((size_t)64 << 20)

/* Append the zlib stream (level 9) of data to out. */
am_status am_zblock_deflate(const uint8_t *data, size_t size, am_buf *out, am_error *err);
/* The same at zlib level 0..9 (0: stored, not compressed; the stream inflates to the same
 * bytes at any level). */
am_status am_zblock_deflate_level(const uint8_t *data, size_t size, int level, am_buf *out, am_error *err);

/* Inflate one zlib stream from data[0..size) into a malloc'd buffer (*out, *out_size).
 * Fails on a damaged or truncated stream (no Z_STREAM_END) and when the output would
 * exceed max_out bytes. Offsets in errors are relative to data. */
am_status am_zblock_inflate(const uint8_t *data, size_t size, size_t max_out, uint8_t **out, size_t *out_size,
                            am_error *err);

#ifdef __cplusplus
}
#endif

#endif
