/* PNG read through libpng's simplified API (png_image): it converts every colour type and
 * bit depth to 8-bit RGB(A) for us and reports errors as messages, with no setjmp here.
 * Textures are written by libpng's row writer in one pass (below); rendered pictures by
 * png_write.c. */
#include <png.h>
#include <zlib.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
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


/* Walk the chunks (length, type, data, CRC; PNG spec 5.3) so damage is named by chunk and
 * byte offset before libpng, whose messages name neither, reads the image. */
static am_status walk_chunks(const uint8_t *d, size_t n, am_error *err)
{
    size_t pos = sizeof png_signature;
    for (int first = 1;; first = 0) {
        if (pos + 12 > n)
            return am_fail_at(err, AM_ERR_INVALID, pos, "corrupt PNG: truncated before the IEND chunk (%zu bytes)", n);
        uint32_t len = am_be_u32(d + pos);
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
        if (crc != am_be_u32(d + pos + 8 + len) && name[0] >= 'A' && name[0] <= 'Z')
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
        size_t len = am_be_u32(d + pos);
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

/* --- encoding textures: libpng's row writer, one pass ---
 * libpng's simplified writer (png_image_write_to_memory) compresses every image twice:
 * once to size the buffer, once to fill it. Its classic writer streams the compressed rows
 * into our growing buffer instead, so each image is filtered and deflated once. */

/* Measured on the 10k bind pictures, when they were written here: level 6 makes files 20% smaller than level 3 for
 * 20% more of the whole command's CPU; level 1 is no faster and 7% bigger than 3. */
#define AM_PNG_DEFLATE_LEVEL 3

typedef struct png_sink {
    am_buf *out;
    am_error *err;
    am_status status;
} png_sink;

static void sink_write(png_structp png, png_bytep data, size_t n)
{
    png_sink *k = png_get_io_ptr(png);
    if (k->status == AM_OK)
        k->status = am_buf_append(k->out, data, n, k->err);
    if (k->status)
        png_error(png, "out of memory");
}

static void sink_flush(png_structp png)
{
    (void)png;
}

static void encode_error(png_structp png, png_const_charp msg)
{
    png_sink *k = png_get_error_ptr(png);
    if (k->status == AM_OK) /* libpng's own complaint, not our buffer's */
        k->status = am_fail(k->err, AM_ERR_INVALID, "png encode: %s", msg);
    png_longjmp(png, 1);
}

static void encode_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static bool opaque(const am_tex_image *img)
{
    if (img->channels != 4)
        return false;
    size_t n = (size_t)img->width * img->height;
    for (size_t i = 0; i < n; i++)
        if (img->pixels[4 * i + 3] != 255)
            return false;
    return true;
}

am_status am_tex_png_encode(const am_tex_image *img, am_buf *out, am_error *err)
{
    if (!img->pixels || img->width == 0 || img->height == 0 || (img->channels != 3 && img->channels != 4))
        return am_fail(err, AM_ERR_INVALID, "png: empty image or bad channel count");
    size_t row_bytes = (size_t)img->width * img->channels;
    if (row_bytes > PNG_SIZE_MAX / img->height)
        return am_fail(err, AM_ERR_INVALID, "png encode: %ux%u pixels is too large", img->width, img->height);
    bool rgb = img->channels == 3 || opaque(img);
    png_sink sink = {out, err, AM_OK};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, encode_error, encode_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return am_fail_nomem(err, "png encode state");
    }
    const size_t start = out->size;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        out->size = start;
        /* set by sink_write or encode_error before the jump; read through memory */
        return *(volatile am_status *)&sink.status;
    }
    png_set_write_fn(png, &sink, sink_write, sink_flush);
    png_set_compression_level(png, AM_PNG_DEFLATE_LEVEL);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS); /* libpng's choice per row */
    png_set_IHDR(png, info, img->width, img->height, 8, rgb ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    if (rgb && img->channels == 4)
        png_set_filler(png, 0, PNG_FILLER_AFTER); /* the rows carry an alpha byte libpng drops */
    for (uint32_t y = 0; y < img->height; y++)
        png_write_row(png, (png_const_bytep)(img->pixels + (size_t)y * row_bytes));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return AM_OK;
}

typedef am_status (*png_encoder)(const am_tex_image *img, am_buf *out, am_error *err);

static am_status write_png(const char *path, const am_tex_image *img, png_encoder encode, am_error *err)
{
    am_buf b = {0};
    am_status s = encode(img, &b, err);
    if (s)
        am_error_where(err, "%s", path);
    else /* names the path itself */
        s = am_write_file_atomic(path, b.data, b.size, err);
    am_buf_free(&b);
    return s;
}

am_status am_tex_png_write(const char *path, const am_tex_image *img, am_error *err)
{
    return write_png(path, img, am_tex_png_encode, err);
}

am_status am_tex_png_write_picture(const char *path, const am_tex_image *img, am_error *err)
{
    return write_png(path, img, am_tex_png_encode_picture, err);
}
