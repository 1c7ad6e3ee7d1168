/* PNG through libpng's simplified API (png_image): it converts every colour type and bit
 * depth to 8-bit RGB(A) for us and reports errors as messages, with no setjmp here. */
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

am_status am_tex_png_encode(const am_tex_image *img, am_buf *out, am_error *err)
{
    if (!img->pixels || img->width == 0 || img->height == 0 || (img->channels != 3 && img->channels != 4))
        return am_fail(err, AM_ERR_INVALID, "png: empty image or bad channel count");
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = img->width;
    png.height = img->height;
    png.format = img->channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    png_alloc_size_t need = 0;
    png_int_32 stride = (png_int_32)(img->width * img->channels);
    if (!png_image_write_get_memory_size(png, need, 0, img->pixels, stride, NULL))
        return am_fail(err, AM_ERR_INVALID, "png encode: %s", png.message);
    am_status s = am_buf_reserve(out, need, err);
    if (s)
        return s;
    png_alloc_size_t got = need;
    if (!png_image_write_to_memory(&png, out->data + out->size, &got, 0, img->pixels, stride, NULL))
        return am_fail(err, AM_ERR_INVALID, "png encode: %s", png.message);
    out->size += got;
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
