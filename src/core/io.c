#include "core/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

am_status am_read_file(const char *path, uint8_t **data, size_t *size, am_error *err)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        am_fail(err, AM_ERR_IO, "cannot open: %s", strerror(errno));
        am_error_where(err, "%s", path);
        return AM_ERR_IO;
    }
    size_t cap = 65536, n = 0;
    uint8_t *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return am_fail_nomem(err, path);
    }
    for (;;) {
        if (n == cap) {
            if (cap > ((size_t)1 << 40)) {
                free(buf);
                fclose(f);
                am_error_where(err, "%s", path);
                return am_fail(err, AM_ERR_IO, "file too large");
            }
            uint8_t *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return am_fail_nomem(err, path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                fclose(f);
                am_fail(err, AM_ERR_IO, "read failed: %s", strerror(e));
                am_error_where(err, "%s", path);
                return AM_ERR_IO;
            }
            break;
        }
    }
    fclose(f);
    buf[n] = 0;
    *data = buf;
    *size = n;
    return AM_OK;
}

am_status am_write_file_atomic(const char *path, const void *data, size_t size, am_error *err)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (!tmp)
        return am_fail_nomem(err, path);
    snprintf(tmp, len + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        am_fail(err, AM_ERR_IO, "cannot create: %s", strerror(e));
        am_error_where(err, "%s", path);
        return AM_ERR_IO;
    }
    const uint8_t *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            free(tmp);
            am_fail(err, AM_ERR_IO, "write failed: %s", strerror(e));
            am_error_where(err, "%s", path);
            return AM_ERR_IO;
        }
        p += w;
        left -= (size_t)w;
    }
    /* mkstemp makes 0600; written products are ordinary user files. */
    fchmod(fd, 0644);
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        am_fail(err, AM_ERR_IO, "cannot finish writing: %s", strerror(e));
        am_error_where(err, "%s", path);
        return AM_ERR_IO;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        am_fail(err, AM_ERR_IO, "cannot rename into place: %s", strerror(e));
        am_error_where(err, "%s", path);
        return AM_ERR_IO;
    }
    free(tmp);
    return AM_OK;
}

am_status am_mkdir_p(const char *path, am_error *err)
{
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf)
        return am_fail(err, AM_ERR_IO, "bad directory path '%s'", path);
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                am_fail(err, AM_ERR_IO, "cannot create directory: %s", strerror(errno));
                am_error_where(err, "%s", buf);
                return AM_ERR_IO;
            }
            buf[i] = c;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        am_fail(err, AM_ERR_IO, "not a directory");
        am_error_where(err, "%s", path);
        return AM_ERR_IO;
    }
    return AM_OK;
}

char *am_path_join(char *buf, size_t size, const char *dir, const char *name)
{
    int n;
    if (!dir || !dir[0])
        n = snprintf(buf, size, "%s", name);
    else if (dir[strlen(dir) - 1] == '/')
        n = snprintf(buf, size, "%s%s", dir, name);
    else
        n = snprintf(buf, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size)
        return NULL;
    return buf;
}

char *am_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

am_status am_buf_reserve(am_buf *b, size_t extra, am_error *err)
{
    if (extra > SIZE_MAX / 2 - b->size)
        return am_fail_nomem(err, "buffer");
    size_t need = b->size + extra;
    if (need <= b->cap)
        return AM_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    uint8_t *nd = realloc(b->data, cap);
    if (!nd)
        return am_fail_nomem(err, "buffer");
    b->data = nd;
    b->cap = cap;
    return AM_OK;
}

am_status am_buf_append(am_buf *b, const void *data, size_t n, am_error *err)
{
    if (n == 0)
        return AM_OK;
    am_status s = am_buf_reserve(b, n, err);
    if (s)
        return s;
    memcpy(b->data + b->size, data, n);
    b->size += n;
    return AM_OK;
}

am_status am_buf_printf(am_buf *b, am_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return am_fail(err, AM_ERR_INVALID, "format error");
    am_status s = am_buf_reserve(b, (size_t)n + 1, err);
    if (s)
        return s;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->size += (size_t)n;
    return AM_OK;
}

void am_buf_free(am_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->size = b->cap = 0;
}
