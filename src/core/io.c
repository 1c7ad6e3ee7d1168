#include "core/io.h"

#include <stdbool.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outset.h"

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Past an optional UTF-8 byte-order mark and whitespace. */
static size_t text_start(const uint8_t *h, size_t n)
{
    size_t i = n >= 3 && h[0] == 0xEF && h[1] == 0xBB && h[2] == 0xBF ? 3 : 0;
    while (i < n && is_space(h[i]))
        i++;
    return i;
}

const char *am_sniff_kind(const uint8_t *h, size_t n)
{
    static const uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const uint8_t jp2[8] = {0, 0, 0, 12, 'j', 'P', ' ', ' '};
    if (n == 0)
        return "empty";
    if (n >= 8 && memcmp(h, png, 8) == 0)
        return "a PNG image";
    if (n >= 4 && h[0] == 0xFF && h[1] == 0x4F && h[2] == 0xFF && h[3] == 0x51)
        return "a JPEG-2000 code stream";
    if (n >= 8 && memcmp(h, jp2, 8) == 0)
        return "a JP2 file (JPEG-2000 in a box container)";
    if (n >= 2 && h[0] == 0x1F && h[1] == 0x8B)
        return "gzip data (an OpenSim archive?)";
    if (n >= 2 && h[0] == '{' && h[1] == 0x00)
        return "a binary mesh asset";
    if (n >= 4 && h[0] == 1 && h[1] == 0 && h[2] == 0 && h[3] == 0)
        return "an .anim file";
    size_t i = text_start(h, n);
    if (i == n)
        return "empty (only whitespace)";
    for (size_t k = 0; k < n; k++)
        if (h[k] < 0x09 || (h[k] > 0x0d && h[k] < 0x20) || h[k] == 0x7f)
            return "binary data";
    if (n - i >= 9 && memcmp(h + i, "HIERARCHY", 9) == 0)
        return "a BVH file";
    if (h[i] == '<') {
        for (size_t k = i; k + 7 <= n; k++)
            if (memcmp(h + k, "COLLADA", 7) == 0)
                return "XML (a COLLADA .dae)";
        return "XML";
    }
    if (h[i] == '{' || h[i] == '[')
        return "JSON";
    return "text";
}

am_status am_sniff_text(const uint8_t *head, size_t n, const char *firsts, const char *what, am_error *err)
{
    size_t i = text_start(head, n);
    if (i < n && strchr(firsts, head[i]) && head[i] != '\0') {
        /* a text format's first bytes hold no control characters */
        bool binary = false;
        for (size_t k = 0; k < n && !binary; k++)
            binary = head[k] < 0x09 || (head[k] > 0x0d && head[k] < 0x20) || head[k] == 0x7f;
        if (!binary)
            return AM_OK;
    }
    const char *kind = am_sniff_kind(head, n);
    if (strcmp(kind, "text") == 0)
        return am_fail_at(err, AM_ERR_INVALID, i, "not %s: the text starts with '%c'", what, head[i]);
    return am_fail(err, AM_ERR_INVALID, "not %s: the file is %s", what, kind);
}

static void mib(char *out, size_t size, size_t bytes)
{
    if (bytes >= ((size_t)1 << 20))
        snprintf(out, size, "%zu bytes (%.1f MiB)", bytes, (double)bytes / (1 << 20));
    else
        snprintf(out, size, "%zu bytes", bytes);
}

static am_status too_large(const char *path, const am_file_format *fmt, size_t limit, size_t got, bool exact,
                           am_error *err)
{
    char have[64], max[64];
    mib(have, sizeof have, got);
    mib(max, sizeof max, limit);
    am_fail(err, AM_ERR_INVALID, "the file is %s%s: over the %s limit for %s (README \"Size limits\")",
            exact ? "" : "more than ", have, max, fmt ? fmt->name : "a file");
    am_error_where(err, "%s", path);
    return AM_ERR_INVALID;
}

/* Read into buf until it holds `want` bytes or the input ends. */
static bool read_full(int fd, uint8_t *buf, size_t want, size_t *got)
{
    *got = 0;
    while (*got < want) {
        ssize_t r = read(fd, buf + *got, want - *got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return true;
}

/* The first format that accepts the head, or an error naming them all. */
static am_status pick_format(const uint8_t *head, size_t n, const am_file_format *const *formats, size_t count,
                             size_t *which, am_error *err)
{
    am_error first;
    am_error_clear(&first);
    for (size_t i = 0; i < count; i++) {
        const am_file_format *f = formats[i];
        if (!f || !f->sniff) {
            *which = i;
            return AM_OK;
        }
        am_status s = f->sniff(head, n, i == 0 ? &first : NULL);
        if (s == AM_OK) {
            *which = i;
            return AM_OK;
        }
    }
    if (count == 1) {
        if (err)
            *err = first;
        return first.code ? first.code : AM_ERR_INVALID;
    }
    char names[256] = "";
    for (size_t i = 0; i < count; i++) {
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", i == 0 ? "" : i + 1 == count ? " or " : ", ", formats[i]->name);
    }
    return am_fail(err, AM_ERR_INVALID, "not %s: the file is %s", names, am_sniff_kind(head, n));
}

/* A named input opened for reading: O_NONBLOCK so a FIFO cannot block the open, then
 * refused unless fstat says it is a regular file (a FIFO, device or socket may block or
 * never end). *fd is open only on AM_OK. */
static am_status open_regular(const char *path, int *fd, struct stat *sb, am_error *err)
{
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0) {
        am_fail(err, AM_ERR_IO, "cannot open: %s", strerror(errno));
        am_error_where(err, "%s", path);
        return AM_ERR_IO;
    }
    am_status st = AM_OK;
    if (fstat(*fd, sb) != 0 || fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0)
        st = am_fail(err, AM_ERR_IO, "cannot read: %s", strerror(errno));
    else if (!S_ISREG(sb->st_mode))
        st = am_fail(err, AM_ERR_IO, "cannot read: it is %s, not a regular file",
                     S_ISDIR(sb->st_mode)                          ? "a directory"
                     : S_ISFIFO(sb->st_mode)                       ? "a FIFO (named pipe)"
                     : S_ISCHR(sb->st_mode) || S_ISBLK(sb->st_mode) ? "a device"
                     : S_ISSOCK(sb->st_mode)                       ? "a socket"
                                                                   : "a special file");
    if (st) {
        am_error_where(err, "%s", path);
        close(*fd);
        *fd = -1;
    }
    return st;
}

am_status am_read_file_head(const char *path, uint8_t *head, size_t cap, size_t *got, uint64_t *file_size,
                            am_error *err)
{
    *got = 0;
    int fd;
    struct stat sb;
    am_status st = open_regular(path, &fd, &sb, err);
    if (st)
        return st;
    if (file_size)
        *file_size = (uint64_t)sb.st_size;
    if (!read_full(fd, head, cap, got)) {
        st = am_fail(err, AM_ERR_IO, "read failed: %s", strerror(errno));
        am_error_where(err, "%s", path);
    }
    close(fd);
    return st;
}

am_status am_read_file_as(const char *path, const am_file_format *fmt, uint8_t **data, size_t *size, am_error *err)
{
    return am_read_file_any(path, &fmt, 1, NULL, data, size, err);
}

/* The reading itself, from an open descriptor (left open). */
static am_status read_fd_any(int fd, const char *shown, const am_file_format *const *formats, size_t count,
                             size_t *which, uint8_t **data, size_t *size, am_error *err)
{
    *data = NULL;
    *size = 0;
    if (which)
        *which = 0;
    struct stat sb;
    am_status st = AM_OK;
    uint8_t *buf = NULL;
    if (fstat(fd, &sb) != 0)
        goto read_error;
    if (S_ISDIR(sb.st_mode)) {
        st = am_fail(err, AM_ERR_IO, "cannot read: it is a directory");
        am_error_where(err, "%s", shown);
        goto done;
    }
    const bool regular = S_ISREG(sb.st_mode);
    /* The head first: a wrong file is named before its size matters. */
    uint8_t head[AM_SNIFF_BYTES];
    size_t n = 0, got, picked = 0;
    if (!read_full(fd, head, sizeof head, &n))
        goto read_error;
    if (count && (st = pick_format(head, n, formats, count, &picked, err))) {
        am_error_where(err, "%s", shown);
        goto done;
    }
    if (which)
        *which = picked;
    const am_file_format *fmt = count ? formats[picked] : NULL;
    const size_t limit = fmt && fmt->max_bytes ? fmt->max_bytes : AM_READ_MAX_BYTES;
    /* Then the size, from fstat, before anything is allocated for the rest. */
    if (regular && (uint64_t)sb.st_size > (uint64_t)limit) {
        st = too_large(shown, fmt, limit, (size_t)sb.st_size, true, err);
        goto done;
    }
    /* A regular file gets its size plus one byte (which tells that it grew meanwhile); a
     * pipe grows up to limit + 1 (which tells that it is too long). */
    size_t cap = regular ? (size_t)sb.st_size + 1 : 65536;
    if (cap < n + 1)
        cap = n + 1;
    if (cap > limit + 1)
        cap = limit + 1;
    buf = malloc(cap + 1);
    if (!buf) {
        st = am_fail_nomem(err, shown);
        goto done;
    }
    memcpy(buf, head, n);
    while (n == sizeof head || n == cap) {
        if (n == cap) {
            if (cap > limit) {
                st = too_large(shown, fmt, limit, limit, false, err);
                goto done;
            }
            size_t ncap = cap > limit / 2 ? limit + 1 : cap * 2;
            uint8_t *nb = realloc(buf, ncap + 1);
            if (!nb) {
                st = am_fail_nomem(err, shown);
                goto done;
            }
            buf = nb;
            cap = ncap;
        }
        size_t before = n;
        if (!read_full(fd, buf + n, cap - n, &got))
            goto read_error;
        n += got;
        if (n < cap || n == before)
            break; /* the input ended */
    }
    buf[n] = 0;
    *data = buf;
    *size = n;
    buf = NULL;
    goto done;
read_error:
    st = am_fail(err, AM_ERR_IO, "read failed: %s", strerror(errno));
    am_error_where(err, "%s", shown);
done:
    free(buf);
    return st;
}

am_status am_read_file_any(const char *path, const am_file_format *const *formats, size_t count, size_t *which,
                           uint8_t **data, size_t *size, am_error *err)
{
    *data = NULL;
    *size = 0;
    if (strcmp(path, "-") == 0)
        return read_fd_any(STDIN_FILENO, "stdin", formats, count, which, data, size, err);
    int fd;
    struct stat sb;
    am_status st = open_regular(path, &fd, &sb, err);
    if (!st) {
        st = read_fd_any(fd, path, formats, count, which, data, size, err);
        close(fd);
    }
    return st;
}

am_status am_read_fd_as(int fd, const char *shown, const am_file_format *fmt, uint8_t **data, size_t *size,
                        am_error *err)
{
    return read_fd_any(fd, shown, &fmt, 1, NULL, data, size, err);
}

am_status am_read_file(const char *path, uint8_t **data, size_t *size, am_error *err)
{
    return am_read_file_as(path, NULL, data, size, err);
}

am_status am_write_file_atomic(const char *path, const void *data, size_t size, am_error *err)
{
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    if (slash) {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        if (!(dir = malloc(n + 1)))
            return am_fail_nomem(err, path);
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    const char *name = slash ? slash + 1 : path;
    am_outset *set = NULL;
    am_status s = am_outset_begin(&set, dir ? dir : ".", &name, 1, err);
    if (!s)
        s = am_outset_add(set, name, data, size, err);
    if (!s)
        s = am_outset_commit(set, err);
    if (s && err && !strstr(err->where, name))
        am_error_where(err, "%s", path);
    am_outset_free(set);
    free(dir);
    return s;
}

am_status am_mkdir_p(const char *path, am_error *err)
{
    return am_mkdir_p_new(path, NULL, err);
}

void am_rmdir_new(const char *path, const char *created)
{
    if (!created)
        return;
    char buf[4096];
    size_t cl = strlen(created);
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf || strncmp(buf, created, cl) != 0)
        return;
    while (strlen(buf) >= cl && (rmdir(buf) == 0 || errno == ENOENT)) {
        char *slash = strrchr(buf, '/');
        if (!slash || (size_t)(slash - buf) < cl)
            break;
        *slash = '\0';
    }
}

am_status am_mkdir_p_new(const char *path, char **created, am_error *err)
{
    if (created)
        *created = NULL;
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf)
        return am_fail(err, AM_ERR_IO, "bad directory path '%s'", path);
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) == 0) {
                if (created && !*created && !(*created = am_strdup(buf)))
                    return am_fail_nomem(err, "folder name");
            } else if (errno != EEXIST) {
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
