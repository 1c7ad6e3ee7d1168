/* Files a model refers to (a glTF buffer or image `uri`, a COLLADA <init_from>, an FBX
 * texture path): resolved inside the model's folder, never outside it.
 *
 * A reference is refused (AM_ERR_INVALID, naming it) when it is absolute, carries a URI
 * scheme ("http:", "file:", ...), has a NUL, climbs above the folder with "..", or resolves
 * (through symlinks, realpath) to a file outside the folder. A reference that stays inside
 * but names no readable file is AM_ERR_IO. */
#ifndef AM_READERS_FILE_REF_H
#define AM_READERS_FILE_REF_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Resolve `ref` (URI percent-escapes such as %20 decoded when `uri` is true) inside
 * `base_dir`. *out_path (malloc'd) gets the resolved absolute path. */
am_status am_file_ref_resolve(const char *base_dir, const char *ref, bool uri, char **out_path, am_error *err);

/* Resolve and read the whole file, refusing one larger than max_bytes before reading it.
 * *resolved (may be NULL) gets the resolved path. */
am_status am_file_ref_read(const char *base_dir, const char *ref, bool uri, size_t max_bytes, uint8_t **data,
                           size_t *size, char **resolved, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
