/* animesh/core.h: what every call shares: the export macro, errors as values, byte buffers, owned strings, progress lines, the value types.
 */
#ifndef AM_ANIMESH_CORE_H
#define AM_ANIMESH_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which symbols the shared library exports.
 *
 * libanimesh is built with hidden visibility (-fvisibility=hidden): a function is part of the
 * library's ABI only when a public header under include/animesh/ declares it with AM_API. The
 * test check_exports (tests/check_exports.sh) reads the built libanimesh.so and fails on any
 * exported symbol that does not start with am_ or that no public header declares.
 *
 * The version: AM_VERSION_MAJOR.MINOR.PATCH, the soname libanimesh.so.AM_ABI_VERSION (raised
 * whenever an exported function is removed or changes, or a public struct changes layout). */

#if defined(__GNUC__) || defined(__clang__)
#define AM_API __attribute__((visibility("default")))
#else
#define AM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum am_status {
    AM_OK = 0,
    AM_ERR_INVALID = 1, /* bad input data or a failed check (exit code 1) */
    AM_ERR_USAGE = 2,   /* wrong arguments (exit code 2) */
    AM_ERR_IO = 3,      /* a file could not be read or written (exit code 3) */
    AM_ERR_NOMEM = 4,   /* out of memory (exit code 1) */
    AM_ERR_NETWORK = 5  /* a remote peer failed (exit code 1) */
} am_status;

#define AM_NO_OFFSET ((size_t)-1)

typedef struct am_error {
    am_status code;
    char msg[256];
    char where[1024]; /* room for a long path and the field inside it */
    size_t offset;
} am_error;

/* A buffer that always holds am_error_format's full text. */
#define AM_ERROR_TEXT_MAX (sizeof(((am_error *)0)->where) + sizeof(((am_error *)0)->msg) + 48)

/* Reset to "no error". Safe on NULL. */
AM_API void am_error_clear(am_error *err);

/* "where: msg (at byte N)" into buf (truncated to size; AM_ERROR_TEXT_MAX always fits). */
AM_API const char *am_error_format(const am_error *err, char *buf, size_t size);

/* The process exit code the CLI uses for a status (see docs/cli.md "Exit codes"). */
AM_API int am_status_exit_code(am_status s);

/* "Zero, not the default" for a field whose header says it takes it. */
#define AM_OPTION_ZERO (-1)

/* Called once per step with the step's line (no newline); user is the caller's pointer. */
typedef void (*am_progress_fn)(void *user, const char *line);

/* A growable byte buffer for writers. */
typedef struct am_buf {
    uint8_t *data;
    size_t size;
    size_t cap;
} am_buf;

AM_API void am_buf_free(am_buf *b);

typedef struct am_string {
    char *data;    /* NUL-terminated; NULL when unset */
    size_t length; /* bytes before the NUL */
} am_string;

/* The text as a C string: "" when unset. */
static inline const char *am_str(const am_string *s)
{
    return s && s->data ? s->data : "";
}

/* True when the string holds no text (unset or ""). */
static inline bool am_string_empty(const am_string *s)
{
    return !s || s->length == 0;
}

/* Release the text; the string is unset afterwards. Safe on NULL and on unset strings. A
 * struct's own _free frees its strings; this is for a string a call hands over by itself
 * (am_batch_job_state's error). */
AM_API void am_string_free(am_string *s);

typedef struct am_vec3 {
    double x, y, z;
} am_vec3;

typedef struct am_quat {
    double x, y, z, w;
} am_quat;

typedef struct am_mat4 {
    double m[16]; /* LL layout: m[4*row + col], row vectors, translation m[12..14] */
} am_mat4;

#ifdef __cplusplus
}
#endif

#endif
