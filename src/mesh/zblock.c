#include "mesh/zblock.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

am_status am_zblock_deflate(const uint8_t *data, size_t size, am_buf *out, am_error *err)
{
    return am_zblock_deflate_level(data, size, Z_BEST_COMPRESSION, out, err);
}

am_status am_zblock_deflate_level(const uint8_t *data, size_t size, int level, am_buf *out, am_error *err)
{
    if (level < 0 || level > 9)
        return am_fail(err, AM_ERR_USAGE, "zlib level %d outside 0..9", level);
    if (size > UINT_MAX)
        return am_fail(err, AM_ERR_INVALID, "block of %zu bytes is too large to compress", size);
    uLong bound = compressBound((uLong)size);
    am_status s = am_buf_reserve(out, bound, err);
    if (s)
        return s;
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit(&zs, level) != Z_OK)
        return am_fail(err, AM_ERR_NOMEM, "zlib deflateInit failed");
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)size;
    zs.next_out = out->data + out->size;
    zs.avail_out = (uInt)bound;
    int rc = deflate(&zs, Z_FINISH);
    size_t produced = bound - zs.avail_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
        return am_fail(err, AM_ERR_INVALID, "zlib deflate failed (%d)", rc);
    out->size += produced;
    return AM_OK;
}

am_status am_zblock_inflate(const uint8_t *data, size_t size, size_t max_out, uint8_t **out, size_t *out_size,
                            am_error *err)
{
    *out = NULL;
    *out_size = 0;
    if (size > UINT_MAX)
        return am_fail(err, AM_ERR_INVALID, "compressed block of %zu bytes is too large", size);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit(&zs) != Z_OK)
        return am_fail(err, AM_ERR_NOMEM, "zlib inflateInit failed");
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)size;
    size_t cap = size * 4 + 256, len = 0;
    if (cap > max_out + 1)
        cap = max_out + 1;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        inflateEnd(&zs);
        return am_fail_nomem(err, "inflate buffer");
    }
    am_status st = AM_OK;
    for (;;) {
        if (len == cap) {
            if (cap > max_out) {
                st = am_fail(err, AM_ERR_INVALID, "inflates to more than %zu bytes", max_out);
                break;
            }
            size_t ncap = cap * 2 > max_out + 1 ? max_out + 1 : cap * 2;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                st = am_fail_nomem(err, "inflate buffer");
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t room = cap - len;
        if (room > UINT_MAX)
            room = UINT_MAX;
        zs.next_out = buf + len;
        zs.avail_out = (uInt)room;
        int rc = inflate(&zs, Z_NO_FLUSH);
        len += room - zs.avail_out;
        if (rc == Z_STREAM_END) {
            if (len > max_out)
                st = am_fail(err, AM_ERR_INVALID, "inflates to more than %zu bytes", max_out);
            break;
        }
        if (rc == Z_OK)
            continue;
        if (rc == Z_BUF_ERROR && zs.avail_out != 0) {
            st = am_fail_at(err, AM_ERR_INVALID, (size_t)zs.total_in,
                            "zlib stream truncated (no end of stream after %zu compressed bytes)", size);
            break;
        }
        if (rc == Z_BUF_ERROR)
            continue; /* output full: grow */
        st = am_fail_at(err, AM_ERR_INVALID, (size_t)zs.total_in, "bad zlib stream (%s)",
                        zs.msg ? zs.msg : rc == Z_NEED_DICT ? "needs a dictionary" : "data error");
        break;
    }
    inflateEnd(&zs);
    if (st) {
        free(buf);
        return st;
    }
    *out = buf;
    *out_size = len;
    return AM_OK;
}
