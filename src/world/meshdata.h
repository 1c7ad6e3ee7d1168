/* The meshdata JSON that WorldBridge's spawn_mesh carries (schema: docs/reference/worldbridge.md,
 * "The meshdata JSON"), checked here before anything leaves the machine.
 *
 * Checks, each failure naming the file and the field ("submeshes[0].triangles[7][2]"):
 *   version == 1; name a non-empty string; submeshes a non-empty array; per submesh:
 *   positions [[x,y,z],...] (1..65536 vertices: one face's limit), normals and uvs (when
 *   present) one per position, triangles [[a,b,c],...] of integer indices below the vertex
 *   count, rgb three numbers in 0..1 (omitted = white), textured a boolean (optional);
 *   extent three positive numbers (optional);
 *   skin (optional): joints distinct non-empty names (1..110; with a skeleton each must be
 *   a viewer bone or collision volume, docs/reference/lessons.md#rule-1), bindShape 16 numbers, invBind and
 *   altInvBind one 16-number matrix per joint, pelvisOffset a number, weights one list per
 *   vertex of submesh 0 with 1..4 [joint_index, w] pairs, distinct indices below the joint
 *   count, w in (0, 1], summing to 1 within 1e-3. A skinned meshdata must have exactly one
 *   submesh: WorldBridge writes weights into submesh 0 only (docs/reference/lessons.md#rule-12). */
#ifndef AM_WORLD_MESHDATA_H
#define AM_WORLD_MESHDATA_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

/* jansson's JSON value, declared here so the public API includes no third-party header
 * (C11 allows the typedef again in jansson.h, which the sources include). */
typedef struct json_t json_t;

#include "core/error.h"
#include "core/io.h"
#include "skeleton/skeleton.h"

/* A meshdata file is a JSON object of at most this many bytes: one face of 65,536
 * vertices with normals, UVs and weights is about 25 MB as text (docs/formats.md "Size limits"). */
#define AM_MESHDATA_MAX_FILE_BYTES ((size_t)64 << 20)
/* Its tree's memory budget (core/json_text.h): the mesh travels as one base64 string (not
 * in the budget), the rest is a few hundred values. */
#define AM_MESHDATA_TREE_BUDGET ((size_t)64 << 20)
extern const am_file_format am_meshdata_format;

typedef struct am_meshdata_summary {
    size_t submeshes;
    size_t vertices;  /* all submeshes */
    size_t triangles; /* all submeshes */
    size_t joints;    /* 0 when there is no skin */
    bool skinned;
    char name[128];
} am_meshdata_summary;

/* Validate a parsed document. skel may be NULL (joint names are then checked for form
 * only). sum may be NULL. Returns AM_ERR_INVALID naming the first bad field. */
am_status am_meshdata_validate(const json_t *doc, const am_skeleton *skel, am_meshdata_summary *sum,
                               am_error *err);

/* Read and parse path (duplicate keys refused), then validate; *doc is the caller's
 * (json_decref). Errors carry the path as `where`. */
am_status am_meshdata_load(const char *path, const am_skeleton *skel, json_t **doc, am_meshdata_summary *sum,
                           am_error *err);

#ifdef __cplusplus
}
#endif

#endif
