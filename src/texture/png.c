/* PNG read through libpng's simplified API (png_image): it converts every colour type and
 * bit depth to 8-bit RGB(A) for us and reports errors as messages, with no setjmp here.
 * Written by our own one-pass encoder over zlib (below). */
#include <png.h>
#include <zlib.h>
#include <stdlib.h>
#include <string.h>

#include "texture/texture.h"

/* Larger inputs are refused before allocating (a 1024 texture is the goal; --resize may
 * shrink a bigger picture, but not an absurd one). */
#define AM_PNG_MAX_SIDE 8192u

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

am_status am_tex_image_alloc(am_tex_image *img, uint32_t width, uint32_t height, uint32_t channels, am_error *err)
{
    memset(img, 0, sizeof *img);
    if (width == 0 || height == 0 || (channels != 3 && channels != 4))
        return am_fail(err, AM_ERR_INVALID, "image: bad size %ux%u with %u channels", width, height, channels);
    size_t n = (size_t)width * height * channels;
    img->pixels = calloc(n, 1);
    if (!img->pixels)
        return am_fail_nomem(err, "image pixels");
    img->width = width;
    img->height = height;
    img->channels = channels;
    return AM_OK;
}

void am_tex_image_free(am_tex_image *img)
{
    if (!img)
        return;
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Walk the chunks (length, type, data, CRC; PNG spec 5.3) so damage is named by chunk and
 * byte offset before libpng, whose messages name neither, reads the image. */
static am_status walk_chunks(const uint8_t *d, size_t n, am_error *err)
{
    size_t pos = sizeof png_signature;
    for (int first = 1;; first = 0) {
        if (pos + 12 > n)
            return am_fail_at(err, AM_ERR_INVALID, pos, "corrupt PNG: truncated before the IEND chunk (%zu bytes)", n);
        uint32_t len = be32(d + pos);
        const uint8_t *type = d + pos + 4;
        char name[5] = {0};
        for (int i = 0; i < 4; i++) {
            if (!((type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= 'a' && type[i] <= 'z')))
                return am_fail_at(err, AM_ERR_INVALID, pos + 4, "corrupt PNG: a chunk type that is not 4 letters");
            name[i] = (char)type[i];
        }
        if (first && strcmp(name, "IHDR") != 0)
            return am_fail_at(err, AM_ERR_INVALID, pos, "corrupt PNG: the first chunk is %s, not IHDR", name);
        if (len > 0x7fffffffu || len > n - pos - 12)
            return am_fail_at(err, AM_ERR_INVALID, pos,
                              "corrupt PNG: chunk %s of %u bytes runs past the end (%zu bytes)", name, len, n);
        uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), type, len + 4);
        /* as libpng: a critical chunk (upper-case first letter) must pass; a damaged
         * ancillary one is dropped with a warning, so it does not fail the image */
        if (crc != be32(d + pos + 8 + len) && name[0] >= 'A' && name[0] <= 'Z')
            return am_fail_at(err, AM_ERR_INVALID, pos, "corrupt PNG: chunk %s fails its CRC check", name);
        if (strcmp(name, "IEND") == 0)
            return AM_OK;
        pos += 12 + (size_t)len;
    }
}

/* libpng's message often starts with the chunk it was in ("IDAT: incorrect data check"):
 * the offset of that chunk (the first of its type), or AM_NO_OFFSET. */
static size_t chunk_named(const uint8_t *d, size_t n, const char *msg)
{
    if (strlen(msg) < 5 || msg[4] != ':')
        return AM_NO_OFFSET;
    for (size_t pos = sizeof png_signature; pos + 12 <= n;) {
        if (memcmp(d + pos + 4, msg, 4) == 0)
            return pos;
        size_t len = be32(d + pos);
        if (len > n - pos - 12)
            break;
        pos += 12 + len;
    }
    return AM_NO_OFFSET;
}

am_status am_tex_png_decode(const uint8_t *data, size_t size, am_tex_image *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (size < sizeof png_signature || memcmp(data, png_signature, sizeof png_signature) != 0)
        return am_fail(err, AM_ERR_INVALID, "not a PNG file (no PNG signature)");
    if (walk_chunks(data, size, err))
        return AM_ERR_INVALID;
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&png, data, size)) {
        am_status s =
            am_fail_at(err, AM_ERR_INVALID, chunk_named(data, size, png.message), "corrupt PNG: %s", png.message);
        png_image_free(&png);
        return s;
    }
    if (png.width > AM_PNG_MAX_SIDE || png.height > AM_PNG_MAX_SIDE) {
        am_status s = am_fail(err, AM_ERR_INVALID, "PNG is %ux%u: larger than %u pixels on a side", png.width,
                              png.height, AM_PNG_MAX_SIDE);
        png_image_free(&png);
        return s;
    }
    uint32_t channels = (png.format & PNG_FORMAT_FLAG_ALPHA) ? 4 : 3;
    png.format = channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    am_status s = am_tex_image_alloc(out, png.width, png.height, channels, err);
    if (s) {
        png_image_free(&png);
        return s;
    }
    if (!png_image_finish_read(&png, NULL, out->pixels, (png_int_32)(png.width * channels), NULL)) {
        s = am_fail_at(err, AM_ERR_INVALID, chunk_named(data, size, png.message), "corrupt PNG: %s", png.message);
        png_image_free(&png);
        am_tex_image_free(out);
        return s;
    }
    png_image_free(&png);
    return AM_OK;
}

static am_status sniff_png(const uint8_t *h, size_t n, am_error *err)
{
    if (n >= sizeof png_signature && memcmp(h, png_signature, sizeof png_signature) == 0)
        return AM_OK;
    return am_fail_at(err, AM_ERR_INVALID, 0, "not a PNG file (no PNG signature): the file is %s", am_sniff_kind(h, n));
}

const am_file_format am_png_file_format = {"a PNG image", AM_PNG_MAX_FILE_BYTES, sniff_png};

/* --- encoding: our own writer over zlib, one pass ---
 * libpng's simplified writer compresses every picture twice (once to size the buffer, once
 * to fill it) and tries five filters per row through its slow generic path. Here each row
 * gets the filter with the smallest sum of absolute bytes (the heuristic of PNG spec 12.8)
 * and one deflate at a level for pictures people look at, into a buffer sized from
 * deflateBound before it starts. */

/* Measured on the 10k bind pictures: level 6 makes files 20% smaller than level 3 for
 * 20% more of the whole command's CPU; level 1 is no faster and 7% bigger than 3. */
#define AM_PNG_DEFLATE_LEVEL 3

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Close the chunk whose length field starts at d: length, type, data, CRC. */
static size_t finish_chunk(uint8_t *d, uint32_t len)
{
    put_be32(d, len);
    put_be32(d + 8 + len, (uint32_t)crc32(crc32(0L, Z_NULL, 0), d + 4, len + 4));
    return 12 + (size_t)len;
}

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c)
{
    int p = (int)a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static uint64_t row_cost(const uint8_t *o, size_t n)
{
    uint64_t cost = 0;
    for (size_t i = 0; i < n; i++)
        cost += o[i] < 128 ? o[i] : 256u - o[i];
    return cost;
}

/* Filter one row (bpp bytes a pixel; prev is the row above, zeros for the first) into the
 * five candidate rows of cand (each 1 + n bytes, the filter byte first); return the one
 * to send. */
static const uint8_t *filter_row(const uint8_t *row, const uint8_t *prev, size_t n, size_t bpp, uint8_t *cand)
{
    uint8_t *o[5];
    for (int f = 0; f < 5; f++) {
        o[f] = cand + (size_t)f * (n + 1);
        o[f][0] = (uint8_t)f;
        o[f]++;
    }
    memcpy(o[0], row, n);
    for (size_t i = 0; i < bpp; i++) { /* the first pixel: left and upper-left are zero */
        o[1][i] = row[i];
        o[2][i] = (uint8_t)(row[i] - prev[i]);
        o[3][i] = (uint8_t)(row[i] - (prev[i] >> 1));
        o[4][i] = (uint8_t)(row[i] - prev[i]);
    }
    for (size_t i = bpp; i < n; i++) {
        uint8_t a = row[i - bpp], b = prev[i], c = prev[i - bpp];
        o[1][i] = (uint8_t)(row[i] - a);
        o[2][i] = (uint8_t)(row[i] - b);
        o[3][i] = (uint8_t)(row[i] - ((a + b) >> 1));
        o[4][i] = (uint8_t)(row[i] - paeth(a, b, c));
    }
    uint64_t best_cost = UINT64_MAX;
    int best = 0;
    for (int f = 0; f < 5; f++) {
        uint64_t cost = row_cost(o[f], n);
        if (cost < best_cost) {
            best_cost = cost;
            best = f;
        }
    }
    return o[best] - 1;
}

am_status am_tex_png_encode(const am_tex_image *img, am_buf *out, am_error *err)
{
    if (!img->pixels || img->width == 0 || img->height == 0 || (img->channels != 3 && img->channels != 4))
        return am_fail(err, AM_ERR_INVALID, "png: empty image or bad channel count");
    size_t row_bytes = (size_t)img->width * img->channels;
    if (row_bytes + 1 > 0x7fffffffu / img->height) /* one IDAT chunk, zlib's 32-bit counts */
        return am_fail(err, AM_ERR_INVALID, "png encode: %ux%u is more than 2 GB of pixels", img->width, img->height);
    uint8_t *cand = malloc(5 * (row_bytes + 1) + row_bytes); /* and a row of zeros */
    if (!cand)
        return am_fail_nomem(err, "png encode rows");
    uint8_t *zeros = cand + 5 * (row_bytes + 1);
    memset(zeros, 0, row_bytes);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit(&z, AM_PNG_DEFLATE_LEVEL) != Z_OK) {
        free(cand);
        return am_fail_nomem(err, "png encode: deflate state");
    }
    size_t raw = (row_bytes + 1) * img->height;
    uLong bound = deflateBound(&z, (uLong)raw);
    /* signature, IHDR (25), IDAT header and CRC (12), IEND (12) */
    am_status s = am_buf_reserve(out, sizeof png_signature + 25 + 12 + (size_t)bound + 12, err);
    if (s) {
        deflateEnd(&z);
        free(cand);
        return s;
    }
    uint8_t *d = out->data + out->size, *p = d;
    memcpy(p, png_signature, sizeof png_signature);
    p += sizeof png_signature;
    memcpy(p + 4, "IHDR", 4);
    put_be32(p + 8, img->width);
    put_be32(p + 12, img->height);
    p[16] = 8;                              /* bit depth */
    p[17] = img->channels == 4 ? 6 : 2;     /* RGBA or RGB */
    p[18] = p[19] = p[20] = 0;              /* deflate, adaptive filtering, no interlace */
    p += finish_chunk(p, 13);
    uint8_t *idat = p;
    memcpy(idat + 4, "IDAT", 4);
    z.next_out = idat + 8;
    z.avail_out = (uInt)bound;
    int zs = Z_OK;
    for (uint32_t y = 0; y < img->height && zs == Z_OK; y++) {
        const uint8_t *row = img->pixels + (size_t)y * row_bytes;
        const uint8_t *prev = y ? row - row_bytes : zeros;
        const uint8_t *sent = filter_row(row, prev, row_bytes, img->channels, cand);
        z.next_in = (Bytef *)sent;
        z.avail_in = (uInt)(row_bytes + 1);
        zs = deflate(&z, y + 1 == img->height ? Z_FINISH : Z_NO_FLUSH);
    }
    size_t packed = (size_t)z.total_out;
    deflateEnd(&z);
    free(cand);
    if (zs != Z_STREAM_END) /* deflateBound is an upper bound: cannot happen */
        return am_fail(err, AM_ERR_INVALID, "png encode: deflate stopped (zlib status %d)", zs);
    p = idat + finish_chunk(idat, (uint32_t)packed);
    memcpy(p + 4, "IEND", 4);
    p += finish_chunk(p, 0);
    out->size += (size_t)(p - d);
    return AM_OK;
}

am_status am_tex_png_write(const char *path, const am_tex_image *img, am_error *err)
{
    am_buf b = {0};
    am_status s = am_tex_png_encode(img, &b, err);
    if (s)
        am_error_where(err, "%s", path);
    else /* names the path itself */
        s = am_write_file_atomic(path, b.data, b.size, err);
    am_buf_free(&b);
    return s;
}
