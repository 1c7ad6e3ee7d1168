/* The Wavefront OBJ reader (one row of scene_load.c's table); see obj_read.c for what it
 * reads. Exposed for its tests and fuzz target. */
#ifndef AM_READERS_OBJ_READ_H
#define AM_READERS_OBJ_READ_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "scene/scene.h"

/* Largest OBJ file read (checked before reading): 400,000-vertex creatures are ~40 MB. */
#define AM_OBJ_MAX_BYTES ((size_t)512 << 20)

am_status am_obj_read(const uint8_t *data, size_t size, const char *source, const char *base_dir, am_scene *out,
                      am_error *err);

#ifdef __cplusplus
}
#endif

#endif
