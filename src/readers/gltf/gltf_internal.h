/* Shared by the glTF reader's files (gltf.h is the manual): the read context, JSON
 * helpers that name the element they fail on, and the accessor decoder. */
#ifndef AM_READERS_GLTF_INTERNAL_H
#define AM_READERS_GLTF_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "readers/gltf/gltf.h"

/* glTF component types (glTF 2.0 5.1.3). */
enum {
    GLTF_BYTE = 5120,
    GLTF_UNSIGNED_BYTE = 5121,
    GLTF_SHORT = 5122,
    GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125,
    GLTF_FLOAT = 5126
};

/* Masks for gltf_read_*: which element types and component types a use accepts. */
enum {
    GLTF_SCALAR = 1u << 0,
    GLTF_VEC2 = 1u << 1,
    GLTF_VEC3 = 1u << 2,
    GLTF_VEC4 = 1u << 3,
    GLTF_MAT2 = 1u << 4,
    GLTF_MAT3 = 1u << 5,
    GLTF_MAT4 = 1u << 6
};
#define GLTF_C(type) (1u << ((type) - GLTF_BYTE)) /* component-type mask bit */
#define GLTF_C_ANY                                                                                          \
    (GLTF_C(GLTF_BYTE) | GLTF_C(GLTF_UNSIGNED_BYTE) | GLTF_C(GLTF_SHORT) | GLTF_C(GLTF_UNSIGNED_SHORT) |   \
     GLTF_C(GLTF_UNSIGNED_INT) | GLTF_C(GLTF_FLOAT))
#define GLTF_C_UINTS (GLTF_C(GLTF_UNSIGNED_BYTE) | GLTF_C(GLTF_UNSIGNED_SHORT) | GLTF_C(GLTF_UNSIGNED_INT))

typedef struct am_gltf_buffer {
    bool loaded;
    uint8_t *owned;      /* decoded data: URI or external file; NULL for the GLB BIN chunk */
    const uint8_t *data;
    size_t size;         /* the buffer's byteLength (checked <= the bytes it has) */
} am_gltf_buffer;

typedef struct am_gltf_ctx {
    const char *source;
    const char *base_dir;
    am_error *err;
    am_scene *scene;
    json_t *root;
    bool glb;
    const uint8_t *bin;  /* the GLB BIN chunk, NULL when none */
    size_t bin_size;
    am_gltf_buffer *buffers;
    size_t buffer_count;
    size_t buffer_bytes;         /* loaded so far (AM_GLTF_MAX_TOTAL_BUFFER_BYTES) */
    size_t decoded_components;   /* decoded so far (AM_GLTF_MAX_DECODED_COMPONENTS) */
    size_t node_count;           /* glTF nodes */
    int *node_map;               /* glTF node -> scene node, -1 when not in the scene */
} am_gltf_ctx;

/* What an accessor holds (filled by the readers below). */
typedef struct am_gltf_accessor {
    size_t count;
    size_t comps;        /* components per element: 1 (SCALAR) .. 16 (MAT4) */
    int component_type;
    bool normalized;
} am_gltf_accessor;

/* Fail with "element: message" in msg and the file in `where` (printf-style). */
#define am_gltf_fail(c, ...) am_fail_where((c)->err, AM_ERR_INVALID, (c)->source, __VA_ARGS__)
/* Name the element on an error that rose from a lower layer (file_ref, base64, ...). */
am_status am_gltf_wrap(am_gltf_ctx *c, am_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* JSON helpers. `where` names the object for messages ("meshes[0].primitives[1]"). */
json_t *am_gltf_array(am_gltf_ctx *c, const char *key);      /* a top-level array, NULL when absent */
size_t am_gltf_count(am_gltf_ctx *c, const char *key);       /* its length, 0 when absent */
/* An optional index into an array of `limit` items: *out = -1 when absent. */
am_status am_gltf_get_index(am_gltf_ctx *c, json_t *obj, const char *key, size_t limit, const char *limit_name,
                         bool required, const char *where, int *out);
/* An optional non-negative integer (default `def`), at most `max`. */
am_status am_gltf_get_size(am_gltf_ctx *c, json_t *obj, const char *key, size_t def, size_t max, const char *where,
                        size_t *out);
/* An optional array of exactly n numbers (default kept in out). */
am_status am_gltf_get_numbers(am_gltf_ctx *c, json_t *obj, const char *key, size_t n, const char *where, double *out);
/* An optional string ("" when absent; never NULL). */
const char *am_gltf_get_string(json_t *obj, const char *key);
/* A malloc'd copy (NULL -> nomem error). */
am_status am_gltf_strdup(am_gltf_ctx *c, const char *s, char **out);

/* One scene item (item_size bytes, zeroed) per element of the top-level array `key`,
 * each filled by `read`; *count set before the first read (am_scene_free then frees a
 * partly read list). Nothing allocated when the array is absent or empty. */
typedef am_status (*am_gltf_item_fn)(am_gltf_ctx *c, size_t index, json_t *obj, void *item);
am_status am_gltf_read_list(am_gltf_ctx *c, const char *key, size_t item_size, void **items, size_t *count,
                         am_gltf_item_fn read);

/* Buffers and views (am_gltf_buffers.c). */
am_status am_gltf_view_bytes(am_gltf_ctx *c, size_t view, const char *what, const uint8_t **data, size_t *size,
                          size_t *stride);
/* A `data:` URI's bytes (base64 only); *mime (may be NULL) gets its media type. */
am_status am_gltf_data_uri(am_gltf_ctx *c, const char *uri, const char *what, size_t max_bytes, uint8_t **out,
                        size_t *size, char *mime, size_t mime_size);
void am_gltf_buffers_free(am_gltf_ctx *c);

/* Accessors (am_gltf_accessor.c): decode accessor `index` into a malloc'd array of
 * count * comps values. `what` names the use ("POSITION of meshes[0].primitives[1]").
 * Floats get `normalized` applied; uints accept only non-normalized integer types. */
am_status am_gltf_read_floats(am_gltf_ctx *c, size_t index, const char *what, unsigned types, unsigned comp_types,
                           am_gltf_accessor *info, float **out);
am_status am_gltf_read_uints(am_gltf_ctx *c, size_t index, const char *what, unsigned types, unsigned comp_types,
                          am_gltf_accessor *info, uint32_t **out);
/* The element count of accessor `index` without decoding it. */
am_status am_gltf_accessor_count(am_gltf_ctx *c, size_t index, const char *what, size_t *count);

/* The parts, in the order am_gltf_read.c calls them. */
am_status am_gltf_read_nodes(am_gltf_ctx *c);     /* scene selection, node order, transforms */
am_status am_gltf_read_materials(am_gltf_ctx *c);
am_status am_gltf_read_skins(am_gltf_ctx *c);
am_status am_gltf_read_meshes(am_gltf_ctx *c);    /* one scene mesh per mesh instance */
am_status am_gltf_read_animations(am_gltf_ctx *c);

#endif
