/* src/skin/rig.h: the private side of include/animesh/rig.h, where its manual is. */
#ifndef AM_SKIN_RIG_H
#define AM_SKIN_RIG_H

#include "animesh/rig.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"
#include "math/am_math.h"

/* A rig JSON is an object of at most this many bytes: 8 faces of 65,536 vertices with
 * normals, UVs and 4 weights each take about 150 MB as text, a 425,000-vertex scan about
 * 80 MB (docs/formats.md "Size limits"; a mesh over the animesh budget is reduced by the skin
 * builder, so a rig may hold more vertices than 8 faces). */
#define AM_RIG_MAX_FILE_BYTES ((size_t)256 << 20)
extern const am_file_format am_rig_format;

/* A vertex position in the bind frame: as stored, or through the explicit bind shape. */
am_vec3 am_rig_bind_position(const am_rig *rig, size_t vertex);

/* am_rig_to_json as a job on a thread of its own (core/parallel.h's am_task): written
 * beside other work, its status and error read after the join. */
typedef struct am_rig_json_job {
    const am_rig *rig;
    am_buf *out;
    am_status status;
    am_error err;
} am_rig_json_job;
void am_rig_json_job_run(void *job);

#ifdef __cplusplus
}
#endif

#endif
