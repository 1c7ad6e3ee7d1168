/* Resolving a model's file references inside its folder (file_ref.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "readers/file_ref.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/io.h"

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decoding (RFC 3986); false on a bad escape or an escaped NUL. */
static bool percent_decode(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; in[i]; i++) {
        char c = in[i];
        if (c == '%') {
            int hi = hex_value(in[i + 1]), lo = hi < 0 ? -1 : hex_value(in[i + 2]);
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
                return false;
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (n + 1 >= size)
            return false;
        out[n++] = c;
    }
    out[n] = '\0';
    return true;
}

/* True when the path, read segment by segment, never climbs above its start. */
static bool stays_below(const char *p)
{
    int depth = 0;
    while (*p) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return false;
        } else if (len > 0 && !(len == 1 && p[0] == '.')) {
            depth++;
        }
        p += len;
        if (*p == '/')
            p++;
    }
    return true;
}

static bool has_scheme(const char *s)
{
    /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" — more than one letter, so a
     * Windows drive letter "C:" is named as an absolute path instead. */
    size_t i = 0;
    while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (i > 0 && s[i] >= '0' && s[i] <= '9') ||
           (i > 0 && (s[i] == '+' || s[i] == '-' || s[i] == '.')))
        i++;
    return i > 1 && s[i] == ':';
}

am_status am_file_ref_resolve(const char *base_dir, const char *ref, bool uri, char **out_path, am_error *err)
{
    *out_path = NULL;
    char rel[PATH_MAX];
    if (uri ? !percent_decode(ref, rel, sizeof rel) : snprintf(rel, sizeof rel, "%s", ref) >= (int)sizeof rel)
        return am_fail(err, AM_ERR_INVALID, "file reference '%.80s' is malformed or too long", ref);
    for (char *c = rel; *c; c++)
        if (*c == '\\')
            *c = '/'; /* Windows separators: "textures\\skin.png" */
    if (rel[0] == '\0')
        return am_fail(err, AM_ERR_INVALID, "empty file reference");
    if (has_scheme(rel))
        return am_fail(err, AM_ERR_INVALID,
                       "file reference '%.80s' is a URL: only files inside the model's folder are read", ref);
    bool drive = ((rel[0] >= 'a' && rel[0] <= 'z') || (rel[0] >= 'A' && rel[0] <= 'Z')) && rel[1] == ':';
    if (rel[0] == '/' || drive)
        return am_fail(err, AM_ERR_INVALID,
                       "file reference '%.80s' is an absolute path: refused (files must lie inside the model's "
                       "folder, referred to by a relative path)",
                       ref);
    if (!stays_below(rel))
        return am_fail(err, AM_ERR_INVALID,
                       "file reference '%.80s' leaves the model's folder: refused (files must lie inside it)", ref);
    char base_real[PATH_MAX], joined[2 * PATH_MAX], real[PATH_MAX];
    if (!realpath(base_dir, base_real))
        return am_fail(err, AM_ERR_IO, "cannot resolve the model's folder '%.80s': %s", base_dir, strerror(errno));
    snprintf(joined, sizeof joined, "%s/%s", base_real, rel);
    if (!realpath(joined, real))
        return am_fail(err, AM_ERR_IO, "cannot open '%.80s' (in %.80s): %s", rel, base_real, strerror(errno));
    size_t bn = strlen(base_real);
    bool inside = strcmp(base_real, "/") == 0 || (strncmp(real, base_real, bn) == 0 && real[bn] == '/');
    if (!inside)
        return am_fail(err, AM_ERR_INVALID,
                       "file reference '%.80s' resolves to '%.80s', outside the model's folder (a symlink?): refused",
                       ref, real);
    *out_path = am_strdup(real);
    return *out_path ? AM_OK : am_fail_nomem(err, "file path");
}

am_status am_file_ref_read(const char *base_dir, const char *ref, bool uri, size_t max_bytes, uint8_t **data,
                           size_t *size, char **resolved, am_error *err)
{
    *data = NULL;
    *size = 0;
    if (resolved)
        *resolved = NULL;
    char *path;
    am_status s = am_file_ref_resolve(base_dir, ref, uri, &path, err);
    if (s)
        return s;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        s = am_fail(err, AM_ERR_IO, "'%.80s' is not a readable file", ref);
    } else if ((uint64_t)sb.st_size > max_bytes) {
        s = am_fail(err, AM_ERR_INVALID, "'%.80s' is %lld bytes: over the %zu MiB limit", ref, (long long)sb.st_size,
                    max_bytes >> 20);
    } else {
        const am_file_format bounded = {"a file a model refers to", max_bytes, NULL}; /* it may grow meanwhile */
        s = am_read_file_as(path, &bounded, data, size, err);
    }
    if (!s && resolved)
        *resolved = path;
    else
        free(path);
    return s;
}
