#include "core/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

/* The stream is libcrypto's context; the type only keeps OpenSSL out of the header. */
struct am_sha256_stream {
    EVP_MD_CTX *ctx;
};

void am_hex_lower(const uint8_t *d, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[2 * n] = '\0';
}

am_status am_sha256(const void *data, size_t n, uint8_t out[32], am_error *err)
{
    unsigned int len = 0;
    if (EVP_Digest(data, n, out, &len, EVP_sha256(), NULL) != 1 || len != 32)
        return am_fail(err, AM_ERR_INVALID, "SHA-256 computation failed (libcrypto)");
    return AM_OK;
}

am_status am_sha256_hex(const void *data, size_t n, char out[65], am_error *err)
{
    uint8_t d[32];
    am_status s = am_sha256(data, n, d, err);
    if (!s)
        am_hex_lower(d, 32, out);
    return s;
}

am_status am_sha256_begin(am_sha256_stream **out, am_error *err)
{
    *out = NULL;
    am_sha256_stream *st = malloc(sizeof *st);
    if (!st)
        return am_fail_nomem(err, "a SHA-256 stream");
    st->ctx = EVP_MD_CTX_new();
    if (!st->ctx || EVP_DigestInit_ex(st->ctx, EVP_sha256(), NULL) != 1) {
        am_sha256_abort(st);
        return am_fail_nomem(err, "a SHA-256 stream");
    }
    *out = st;
    return AM_OK;
}

am_status am_sha256_update(am_sha256_stream *st, const void *data, size_t n, am_error *err)
{
    if (EVP_DigestUpdate(st->ctx, data, n) != 1)
        return am_fail(err, AM_ERR_INVALID, "SHA-256 computation failed (libcrypto)");
    return AM_OK;
}

am_status am_sha256_end_hex(am_sha256_stream *st, char hex[65], am_error *err)
{
    uint8_t d[32];
    unsigned len = 0;
    int ok = EVP_DigestFinal_ex(st->ctx, d, &len) == 1 && len == 32;
    am_sha256_abort(st);
    if (!ok)
        return am_fail(err, AM_ERR_INVALID, "SHA-256 computation failed (libcrypto)");
    am_hex_lower(d, 32, hex);
    return AM_OK;
}

void am_sha256_abort(am_sha256_stream *st)
{
    if (!st)
        return;
    EVP_MD_CTX_free(st->ctx);
    free(st);
}

/* Feeds fd to st block by block; errors name path. */
static am_status hash_fd(am_sha256_stream *st, int fd, const char *path, am_error *err)
{
    enum { BLOCK = 1 << 20 };
    uint8_t *block = malloc(BLOCK);
    if (!block)
        return am_fail_nomem(err, "a file hash");
    am_status s = AM_OK;
    for (;;) {
        ssize_t got = read(fd, block, BLOCK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            s = am_fail_where(err, AM_ERR_IO, path, "cannot read: %s", strerror(errno));
            break;
        }
        if (got == 0)
            break;
        if ((s = am_sha256_update(st, block, (size_t)got, err)))
            break;
    }
    free(block);
    return s;
}

am_status am_sha256_file_hex(const char *path, char hex[65], am_error *err)
{
    /* O_NONBLOCK: a FIFO named by mistake must not hang the open; it is refused below. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return am_fail_where(err, AM_ERR_IO, path, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return am_fail_where(err, AM_ERR_IO, path, "not a regular file");
    }
    am_sha256_stream *sha = NULL;
    am_status s = am_sha256_begin(&sha, err);
    if (!s && (s = hash_fd(sha, fd, path, err)))
        am_sha256_abort(sha);
    else if (!s)
        s = am_sha256_end_hex(sha, hex, err);
    close(fd);
    return s;
}
