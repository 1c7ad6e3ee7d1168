/* Binary LLSD (docs/reference/mesh-asset.md#binary-llsd): a value tree, a bounds-checked parser and a formatter.
 *
 * Wire format (LLSDBinaryFormatter / LLSDBinaryParser): one ASCII marker byte, then
 *   '!' undefined | '1' true | '0' false | 'i' S32 BE | 'r' F64 BE | 'u' 16 raw bytes |
 *   's' string, 'l' URI, 'b' binary: U32 BE length + bytes | 'd' F64 in HOST (LE) order |
 *   '[' U32 BE count, values, ']' | '{' U32 BE count, ('k' U32 BE len, key, value)*, '}'.
 * No "<? LLSD/Binary ?>" prefix is written or accepted. Counts must be exact: a missing
 * element or a missing closing bracket is an error.
 *
 * The tree: every node owns its children. Maps keep keys in parse (or insertion) order
 * and lookups return the first match; the formatter writes map keys in byte-wise
 * ascending order, as the viewer's std::map-backed LLSD does. Strings, URIs, binaries
 * and keys are stored with their length and an extra NUL (so a string is usable as C).
 */
#ifndef AM_MESH_LLSD_H
#define AM_MESH_LLSD_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"

typedef enum am_llsd_type {
    AM_LLSD_UNDEF,
    AM_LLSD_BOOLEAN,
    AM_LLSD_INTEGER,
    AM_LLSD_REAL,
    AM_LLSD_UUID,
    AM_LLSD_STRING,
    AM_LLSD_URI,
    AM_LLSD_DATE,
    AM_LLSD_BINARY,
    AM_LLSD_ARRAY,
    AM_LLSD_MAP
} am_llsd_type;

typedef struct am_llsd am_llsd;

struct am_llsd {
    am_llsd_type type;
    size_t offset;        /* byte offset of the marker in the parsed input (0 when built) */
    union {
        bool boolean;
        int32_t integer;
        double real;      /* REAL and DATE */
        uint8_t uuid[16];
    } v;
    uint8_t *bytes;       /* STRING / URI / BINARY payload (+1 NUL byte), else NULL */
    size_t len;           /* payload length */
    am_llsd *items;       /* ARRAY elements / MAP values */
    char **keys;          /* MAP keys (NUL-terminated) */
    size_t *key_lens;     /* MAP key lengths (a key may hold NUL bytes) */
    size_t count;         /* elements or pairs */
    size_t cap;
};

/* Limits for the parser. The viewer parses unzipped blocks with depth 96
 * (UNZIP_LLSD_MAX_DEPTH); max_nodes bounds memory on hostile input. */
typedef struct am_llsd_limits {
    size_t max_depth;
    size_t max_nodes;
} am_llsd_limits;

#define AM_LLSD_MAX_DEPTH 96
#define AM_LLSD_DEFAULT_MAX_NODES ((size_t)1 << 20)

/* Parse one value from data[0..size). *consumed = bytes used (the rest is ignored, as
 * the viewer does). limits may be NULL (defaults above). Errors carry the byte offset. */
am_status am_llsd_parse(const uint8_t *data, size_t size, const am_llsd_limits *limits, am_llsd *out,
                        size_t *consumed, am_error *err);

/* Append the binary form of v to out. */
am_status am_llsd_format(const am_llsd *v, am_buf *out, am_error *err);

void am_llsd_free(am_llsd *v);

/* --- building (every node starts zeroed = UNDEF) --- */
void am_llsd_set_undef(am_llsd *v);
void am_llsd_set_boolean(am_llsd *v, bool b);
void am_llsd_set_integer(am_llsd *v, int32_t i);
void am_llsd_set_real(am_llsd *v, double r);
void am_llsd_set_date(am_llsd *v, double seconds);
void am_llsd_set_uuid(am_llsd *v, const uint8_t uuid[16]);
/* Copies the bytes. type is STRING, URI or BINARY. */
am_status am_llsd_set_bytes(am_llsd *v, am_llsd_type type, const void *data, size_t len, am_error *err);
/* Takes ownership of a malloc'd buffer (which must have room for len + 1 bytes if the
 * caller wants the NUL; the formatter never reads past len). */
void am_llsd_take_bytes(am_llsd *v, am_llsd_type type, uint8_t *data, size_t len);
am_status am_llsd_set_string(am_llsd *v, const char *s, am_error *err);
void am_llsd_set_array(am_llsd *v);
void am_llsd_set_map(am_llsd *v);
/* Append an UNDEF element / a key with an UNDEF value and return it. The pointer stays
 * valid until the next append to the SAME container. NULL on allocation failure. */
am_llsd *am_llsd_push(am_llsd *array, am_error *err);
am_llsd *am_llsd_insert(am_llsd *map, const char *key, am_error *err);

/* --- reading --- */
/* First value under key, or NULL (also NULL when m is not a map). */
const am_llsd *am_llsd_get(const am_llsd *m, const char *key);
/* Numeric value of INTEGER / REAL / BOOLEAN (the viewer's asReal); false otherwise. */
bool am_llsd_as_number(const am_llsd *v, double *out);
const char *am_llsd_type_name(am_llsd_type t);

#ifdef __cplusplus
}
#endif

#endif
