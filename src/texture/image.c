/* Image sniffing and the one decode entry for model textures (texture.h). */
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "texture/texture.h"

static bool starts(const uint8_t *d, size_t n, const void *magic, size_t m)
{
    return n >= m && memcmp(d, magic, m) == 0;
}

am_image_type am_image_sniff(const uint8_t *d, size_t n, const char **kind)
{
    static const struct {
        const char *magic;
        size_t size;
        size_t at;
        am_image_type type;
        const char *name;
    } table[] = {
        {"\x89PNG\r\n\x1a\n", 8, 0, AM_IMAGE_PNG, "PNG"},
        {"\xff\xd8\xff", 3, 0, AM_IMAGE_JPEG, "JPEG"},
        {"GIF8", 4, 0, AM_IMAGE_OTHER, "GIF"},
        {"WEBP", 4, 8, AM_IMAGE_OTHER, "WebP"}, /* RIFF....WEBP */
        {"\xabKTX 2", 6, 0, AM_IMAGE_OTHER, "KTX2"},
        {"\xabKTX 1", 6, 0, AM_IMAGE_OTHER, "KTX"},
        {"DDS ", 4, 0, AM_IMAGE_OTHER, "DDS"},
        {"\xff\x4f\xff\x51", 4, 0, AM_IMAGE_OTHER, "JPEG 2000"},
        {"\0\0\0\x0cjP  ", 8, 0, AM_IMAGE_OTHER, "JPEG 2000"},
        {"II*\0", 4, 0, AM_IMAGE_OTHER, "TIFF"},
        {"MM\0*", 4, 0, AM_IMAGE_OTHER, "TIFF"},
        {"8BPS", 4, 0, AM_IMAGE_OTHER, "Photoshop"},
        {"BM", 2, 0, AM_IMAGE_OTHER, "BMP"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (n >= table[i].at && starts(d + table[i].at, n - table[i].at, table[i].magic, table[i].size)) {
            if (kind)
                *kind = table[i].name;
            return table[i].type;
        }
    if (kind)
        *kind = "unknown";
    return AM_IMAGE_UNKNOWN;
}

const char *am_image_mime(am_image_type type)
{
    return type == AM_IMAGE_PNG ? "image/png" : type == AM_IMAGE_JPEG ? "image/jpeg" : "";
}

am_status am_image_decode(const uint8_t *data, size_t size, am_tex_image *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    const char *kind;
    switch (am_image_sniff(data, size, &kind)) {
    case AM_IMAGE_PNG: return am_tex_png_decode(data, size, out, err);
    case AM_IMAGE_JPEG: return am_tex_jpeg_decode(data, size, out, err);
    case AM_IMAGE_OTHER:
        return am_fail(err, AM_ERR_INVALID, "a %s image: only PNG and JPEG textures are read (convert it to PNG)",
                       kind);
    default: return am_fail(err, AM_ERR_INVALID, "not a PNG or JPEG image (unrecognised first bytes)");
    }
}

am_status am_image_size(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height, am_error *err)
{
    *width = *height = 0;
    const char *kind;
    switch (am_image_sniff(data, size, &kind)) {
    case AM_IMAGE_PNG:
        /* signature (8), then IHDR first: length (4), "IHDR", width, height (big-endian) */
        if (size < 24 || memcmp(data + 12, "IHDR", 4) != 0)
            return am_fail(err, AM_ERR_INVALID, "corrupt PNG: the first chunk is not IHDR");
        *width = am_be_u32(data + 16);
        *height = am_be_u32(data + 20);
        return AM_OK;
    case AM_IMAGE_JPEG: return am_tex_jpeg_size(data, size, width, height, err);
    case AM_IMAGE_OTHER:
        return am_fail(err, AM_ERR_INVALID, "a %s image: only PNG and JPEG textures are read (convert it to PNG)",
                       kind);
    default: return am_fail(err, AM_ERR_INVALID, "not a PNG or JPEG image (unrecognised first bytes)");
    }
}

/* PNG or JPEG from the first bytes; anything else named for what it is. */
static am_status sniff_image(const uint8_t *h, size_t n, am_error *err)
{
    const char *kind;
    am_image_type t = am_image_sniff(h, n, &kind);
    if (t == AM_IMAGE_PNG || t == AM_IMAGE_JPEG)
        return AM_OK;
    if (t == AM_IMAGE_OTHER)
        return am_fail(err, AM_ERR_INVALID, "a %s image: only PNG and JPEG textures are read (convert it to PNG)",
                       kind);
    return am_fail(err, AM_ERR_INVALID, "not a PNG or JPEG image: the file is %s", am_sniff_kind(h, n));
}

const am_file_format am_image_file_format = {"a PNG or JPEG image", AM_PNG_MAX_FILE_BYTES, sniff_image};

/* A whole file through `decode`, bounded by its format; the error names the path. */
static am_status read_with(const char *path, const am_file_format *fmt,
                           am_status (*decode)(const uint8_t *, size_t, am_tex_image *, am_error *), am_tex_image *out,
                           am_error *err)
{
    uint8_t *data;
    size_t size;
    memset(out, 0, sizeof *out);
    am_status s = am_read_file_as(path, fmt, &data, &size, err);
    if (s)
        return s;
    s = decode(data, size, out, err);
    free(data);
    if (s)
        am_error_where(err, "%s", path);
    return s;
}

am_status am_image_read(const char *path, am_tex_image *out, am_error *err)
{
    return read_with(path, &am_image_file_format, am_image_decode, out, err);
}

am_status am_tex_png_read(const char *path, am_tex_image *out, am_error *err)
{
    return read_with(path, &am_png_file_format, am_tex_png_decode, out, err);
}

am_status am_tex_image_to_rgba(const am_tex_image *in, am_tex_image *out, am_error *err)
{
    am_status s = am_tex_image_alloc(out, in->width, in->height, 4, err);
    if (s)
        return s;
    size_t n = (size_t)in->width * in->height;
    for (size_t i = 0; i < n; i++) {
        memcpy(out->pixels + 4 * i, in->pixels + in->channels * i, 3);
        out->pixels[4 * i + 3] = in->channels == 4 ? in->pixels[4 * i + 3] : 255;
    }
    return AM_OK;
}

am_status am_tex_png_read_rgba(const char *path, am_tex_image *out, am_error *err)
{
    am_tex_image tex;
    memset(out, 0, sizeof *out);
    am_status s = am_tex_png_read(path, &tex, err);
    if (s)
        return s;
    s = am_tex_image_to_rgba(&tex, out, err);
    am_tex_image_free(&tex);
    return s;
}
