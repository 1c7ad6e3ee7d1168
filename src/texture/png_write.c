/* The rendered pictures' PNG writer (am_tex_png_encode_picture). A picture is one buffer in
 * memory, so it is filtered in one pass and deflated in one call by libdeflate, whole-buffer
 * DEFLATE at 1.6 times zlib's speed for a 10% smaller file on the bench's pictures
 * (docs/performance.md); the file around it is written here (PNG spec 5): the signature,
 * IHDR, the zlib stream in IDAT chunks, IEND. Textures keep libpng's writer (png.c). */
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "texture/texture.h"

/* Measured on the 10k bind pictures (8.4 MB filtered), CPU s / bytes: level 2 0.024 / 399 kB;
 * 1 no faster alone and 4% bigger; 4 is 2% smaller for 7% more time, 6 7% smaller for 75%
 * more; zlib's level 3 (libpng's writer here before) was 0.038 / 447 kB. Inside the whole
 * bind, where the sheet is encoded while the close-ups are drawn on the other core, level 1
 * took 4-5 ms less than 2 (15 paired runs each way) for 411 -> 427 kB: level 1. */
#define AM_PNG_PICTURE_LEVEL 1

/* A chunk's length and the image's sides are at most 2^31 - 1 (PNG spec 5.3, 11.2.2). */
#define PNG_MAX_31 0x7fffffffu

/* One chunk at p (length, type, data, CRC of type + data); returns the byte after it. */
static uint8_t *put_chunk(uint8_t *p, const char type[4], const uint8_t *data, uint32_t len)
{
    am_be_put_u32(p, len);
    memcpy(p + 4, type, 4);
    if (len)
        memcpy(p + 8, data, len);
    am_be_put_u32(p + 8 + len, libdeflate_crc32(0, p + 4, (size_t)len + 4));
    return p + 12 + len;
}

/* Filter Up (type 2) on every row: each byte minus the byte above it, the first row's against
 * zeros. f gets h rows of 1 + row_bytes. */
static void filter_up(const uint8_t *px, size_t row_bytes, uint32_t h, uint8_t *f)
{
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *cur = px + y * row_bytes;
        uint8_t *o = f + y * (row_bytes + 1);
        *o++ = 2;
        if (y == 0) {
            memcpy(o, cur, row_bytes);
            continue;
        }
        const uint8_t *up = cur - row_bytes;
        for (size_t i = 0; i < row_bytes; i++)
            o[i] = (uint8_t)(cur[i] - up[i]);
    }
}

/* The same from RGBA pixels to RGB rows, the alpha dropped: false at the end of the first row
 * with an alpha below 255 (the picture then keeps its alpha: filter_up over again). Checking
 * alpha row by row in the same pass reads an opaque picture once. Each row is differenced
 * whole into `diff` (4 * w bytes; a loop the compiler vectorises), then packed to RGB a
 * pixel at a time, four bytes stored and three kept (the fourth is overwritten by the next
 * pixel, or is the next row's filter byte, written after it; f has a byte to spare after the
 * last row, being sized for every channel kept). */
static bool filter_up_opaque_rgb(const uint8_t *px, uint32_t w, uint32_t h, uint8_t *f, uint8_t *diff)
{
    const size_t in_row = (size_t)w * 4, out_row = 1 + (size_t)w * 3;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *cur = px + y * in_row;
        if (y == 0)
            memcpy(diff, cur, in_row);
        else
            for (size_t i = 0; i < in_row; i++)
                diff[i] = (uint8_t)(cur[i] - cur[i - in_row]);
        uint32_t all = 0xffffffffu; /* the AND of every pixel: its alpha lane is 255 when opaque */
        for (size_t x = 0; x < w; x++) {
            uint32_t c;
            memcpy(&c, cur + 4 * x, 4);
            all &= c;
        }
        uint8_t lanes[4];
        memcpy(lanes, &all, 4);
        if (lanes[3] != 255)
            return false;
        uint8_t *o = f + y * out_row;
        *o++ = 2;
        for (size_t x = 0; x < w; x++)
            memcpy(o + 3 * x, diff + 4 * x, 4);
    }
    return true;
}

am_status am_tex_png_encode_picture(const am_tex_image *img, am_buf *out, am_error *err)
{
    if (!img->pixels || img->width == 0 || img->height == 0 || (img->channels != 3 && img->channels != 4))
        return am_fail(err, AM_ERR_INVALID, "png: empty image or bad channel count");
    const uint32_t w = img->width, h = img->height, ch = img->channels;
    if (w > PNG_MAX_31 || h > PNG_MAX_31 || w > (SIZE_MAX - 1) / ch || h > SIZE_MAX / (1 + (size_t)w * ch))
        return am_fail(err, AM_ERR_INVALID, "png encode: %ux%u pixels is too large", w, h);
    /* sized for every channel kept, which an opaque RGBA picture's RGB rows fit in too */
    uint8_t *f = malloc(h * (1 + (size_t)w * ch));
    if (!f)
        return am_fail_nomem(err, "png filtered rows");
    uint8_t *diff = ch == 4 ? malloc((size_t)w * 4) : NULL;
    if (ch == 4 && !diff) {
        free(f);
        return am_fail_nomem(err, "png filtered rows");
    }
    const bool drop_alpha = ch == 4 && filter_up_opaque_rgb(img->pixels, w, h, f, diff);
    free(diff);
    if (!drop_alpha)
        filter_up(img->pixels, (size_t)w * ch, h, f);
    const uint32_t out_ch = drop_alpha ? 3 : ch;
    const size_t filtered = h * (1 + (size_t)w * out_ch);

    struct libdeflate_compressor *c = libdeflate_alloc_compressor(AM_PNG_PICTURE_LEVEL);
    if (!c) {
        free(f);
        return am_fail_nomem(err, "png deflate state");
    }
    /* a bound below the input has wrapped round: an image too large to compress in memory */
    const size_t bound = libdeflate_zlib_compress_bound(c, filtered);
    uint8_t *z = bound >= filtered ? malloc(bound) : NULL;
    const size_t zn = z ? libdeflate_zlib_compress(c, f, filtered, z, bound) : 0;
    libdeflate_free_compressor(c);
    free(f);
    if (!z)
        return bound < filtered ? am_fail(err, AM_ERR_INVALID, "png encode: %ux%u pixels is too large", w, h)
                                : am_fail_nomem(err, "png deflate output");
    if (zn == 0) { /* libdeflate promises its bound: a broken library, not our input */
        free(z);
        return am_fail(err, AM_ERR_INVALID, "png encode: deflate output exceeds its bound");
    }

    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    const size_t idats = zn / PNG_MAX_31 + (zn % PNG_MAX_31 != 0);
    const size_t framing = sizeof signature + (12 + 13) + 12 * idats + 12; /* IHDR, IDATs, IEND */
    am_status s = zn > SIZE_MAX - framing ? am_fail_nomem(err, "png file") : am_buf_reserve(out, zn + framing, err);
    if (s) {
        free(z);
        return s;
    }
    uint8_t *p = out->data + out->size;
    memcpy(p, signature, sizeof signature);
    uint8_t ihdr[13] = {0};
    am_be_put_u32(ihdr, w);
    am_be_put_u32(ihdr + 4, h);
    ihdr[8] = 8;                   /* bits per sample */
    ihdr[9] = out_ch == 3 ? 2 : 6; /* colour type RGB / RGBA; compression, filter, interlace 0 */
    p = put_chunk(p + sizeof signature, "IHDR", ihdr, sizeof ihdr);
    for (size_t at = 0; at < zn; at += PNG_MAX_31) {
        uint32_t len = (uint32_t)(zn - at < PNG_MAX_31 ? zn - at : PNG_MAX_31);
        p = put_chunk(p, "IDAT", z + at, len);
    }
    p = put_chunk(p, "IEND", NULL, 0);
    out->size = (size_t)(p - out->data);
    free(z);
    return AM_OK;
}
