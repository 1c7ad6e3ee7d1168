/* Whole-file reads and atomic writes: a file is written to a temporary name in the
 * same directory and renamed into place, so a failure never leaves half a file. */
#ifndef AM_IO_H
#define AM_IO_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Read a whole file. *data is malloc'd with one extra NUL byte (not counted in *size)
 * so text parsers may treat it as a string. Missing/unreadable file -> AM_ERR_IO. */
am_status am_read_file(const char *path, uint8_t **data, size_t *size, am_error *err);

/* Write data to path atomically (temp file + fsync + rename). */
am_status am_write_file_atomic(const char *path, const void *data, size_t size, am_error *err);

/* Create a directory (and parents) if missing. */
am_status am_mkdir_p(const char *path, am_error *err);

/* Join dir and name into buf ("dir/name"); returns buf or NULL if it does not fit. */
char *am_path_join(char *buf, size_t size, const char *dir, const char *name);

/* malloc'd copy of a NUL-terminated string; NULL when out of memory (or s is NULL). */
char *am_strdup(const char *s);

/* A growable byte buffer for writers. */
typedef struct am_buf {
    uint8_t *data;
    size_t size;
    size_t cap;
} am_buf;

am_status am_buf_reserve(am_buf *b, size_t extra, am_error *err);
am_status am_buf_append(am_buf *b, const void *data, size_t n, am_error *err);
am_status am_buf_printf(am_buf *b, am_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void am_buf_free(am_buf *b);

#endif
