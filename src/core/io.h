/* Whole-file reads and atomic writes: a file is written to a temporary name in the
 * same directory and renamed into place, so a failure never leaves half a file (several
 * files that belong together: core/outset.h).
 *
 * Reads are bounded: a reader names its format (am_file_format), whose first bytes are
 * looked at and whose size limit is checked from the file's size before anything else is
 * read or allocated, so a wrong or huge file is refused at once (docs/formats.md "Size limits"). */
#ifndef AM_CORE_IO_H
#define AM_CORE_IO_H

#include "animesh/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* What a reader expects of a file. */
typedef struct am_file_format {
    const char *name; /* for messages, with its article: "a mesh asset", "an .anim file" */
    size_t max_bytes; /* larger files are refused (AM_ERR_INVALID) before they are read */
    /* Optional: look at the first bytes (n = min(AM_SNIFF_BYTES, file size)) and refuse a
     * file that is plainly not this format, saying what it looks like (am_sniff_kind);
     * AM_OK to read on. The message should not name the file: the reader adds it. */
    am_status (*sniff)(const uint8_t *head, size_t n, am_error *err);
} am_file_format;

#define AM_SNIFF_BYTES 512
/* The limit for a read without a format (our own files read back). */
#define AM_READ_MAX_BYTES ((size_t)1 << 30)

/* Read a whole file (path "-" reads stdin). A named path must be a regular file: a FIFO, a
 * device, a socket or a directory is refused (AM_ERR_IO) without blocking, since it is
 * opened O_NONBLOCK and checked with fstat before any read; only stdin may be a stream.
 * Sniffs the head, checks the size limit (from fstat for a regular file, while reading for
 * stdin's pipe), then reads. *data is malloc'd with
 * one extra NUL byte (not counted in *size) so text parsers may treat it as a string.
 * fmt may be NULL (no sniff, AM_READ_MAX_BYTES). Missing/unreadable file -> AM_ERR_IO
 * keeping errno's words ("Permission denied"); sniff or size refusals -> AM_ERR_INVALID.
 * Errors name the path. */
am_status am_read_file_as(const char *path, const am_file_format *fmt, uint8_t **data, size_t *size, am_error *err);
/* The same for a file that may be one of several formats (count >= 1): the first whose
 * sniff accepts the head decides the limit, and *which (may be NULL) says which; when none
 * accepts, "not A or B: the file is <kind>". */
am_status am_read_file_any(const char *path, const am_file_format *const *formats, size_t count, size_t *which,
                           uint8_t **data, size_t *size, am_error *err);
/* The first bytes of a named regular file (up to cap; *got says how many) and its size, for
 * a reader that decides from them what to do; refused as am_read_file_as refuses it (a FIFO,
 * device or directory, without blocking). */
am_status am_read_file_head(const char *path, uint8_t *head, size_t cap, size_t *got, uint64_t *file_size,
                            am_error *err);
/* am_read_file_as on a descriptor the caller opened and checked (e.g. O_NOFOLLOW, its owner),
 * read from where it stands and left open; `shown` names it in errors. */
am_status am_read_fd_as(int fd, const char *shown, const am_file_format *fmt, uint8_t **data, size_t *size,
                        am_error *err);
/* am_read_file_as(path, NULL, ...). */
am_status am_read_file(const char *path, uint8_t **data, size_t *size, am_error *err);

/* What the first bytes of a file look like, for messages that help when the wrong file
 * was given: "empty", "a PNG image", "a JPEG-2000 code stream", "a binary mesh asset",
 * "an .anim file", "XML", "JSON", "a BVH file", "binary data" or "text". */
const char *am_sniff_kind(const uint8_t *head, size_t n);
/* A sniff for text formats: AM_OK when the first byte after whitespace (and an optional
 * UTF-8 byte-order mark) is one of `firsts`; otherwise "not <what>: the file is <kind>". */
am_status am_sniff_text(const uint8_t *head, size_t n, const char *firsts, const char *what, am_error *err);

/* Write data to path atomically (temp file + fsync + rename), as a one-file output set
 * (core/outset.h: the mode of a file replaced is kept, a symbolic link is written through,
 * a killed run's temps of that name are swept). */
am_status am_write_file_atomic(const char *path, const void *data, size_t size, am_error *err);

/* Create a directory (and parents) if missing. */
am_status am_mkdir_p(const char *path, am_error *err);
/* The same; *created (malloc'd, free it) is the outermost folder this call made, NULL when
 * path existed. With it, am_rmdir_new undoes the call after a failure. */
am_status am_mkdir_p_new(const char *path, char **created, am_error *err);
/* Remove path and its parents up to `created` (from am_mkdir_p_new), each only while it is
 * empty; nothing when created is NULL. Does not free `created`. */
void am_rmdir_new(const char *path, const char *created);

/* Join dir and name into buf ("dir/name"); returns buf or NULL if it does not fit. */
char *am_path_join(char *buf, size_t size, const char *dir, const char *name);

/* malloc'd copy of a NUL-terminated string; NULL when out of memory (or s is NULL). */
char *am_strdup(const char *s);

am_status am_buf_reserve(am_buf *b, size_t extra, am_error *err);
am_status am_buf_append(am_buf *b, const void *data, size_t n, am_error *err);
am_status am_buf_printf(am_buf *b, am_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif
