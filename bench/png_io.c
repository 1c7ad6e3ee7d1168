/* PNG in and out through libpng's simplified API; images are RGBA, rows top to bottom. */
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "render.h"

am_status am_image_alloc(am_image *img, int width, int height, am_error *err)
{
    memset(img, 0, sizeof *img);
    if (width <= 0 || height <= 0 || width > 32768 || height > 32768)
        return am_fail(err, AM_ERR_INVALID, "image size %d x %d out of range (1..32768)", width, height);
    img->rgba = calloc((size_t)width * (size_t)height, 4);
    if (!img->rgba)
        return am_fail_nomem(err, "image");
    img->width = width;
    img->height = height;
    return AM_OK;
}

void am_image_free(am_image *img)
{
    if (!img)
        return;
    free(img->rgba);
    memset(img, 0, sizeof *img);
}

am_status am_png_read(const char *path, am_image *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0;
    am_status s = am_read_file(path, &data, &size, err);
    if (s)
        return s;
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&pi, data, size)) {
        s = am_fail(err, AM_ERR_INVALID, "%s: not a readable PNG (%s)", path, pi.message);
        free(data);
        return s;
    }
    pi.format = PNG_FORMAT_RGBA;
    s = am_image_alloc(out, (int)pi.width, (int)pi.height, err);
    if (s) {
        png_image_free(&pi);
        free(data);
        return s;
    }
    if (!png_image_finish_read(&pi, NULL, out->rgba, 0, NULL)) {
        s = am_fail(err, AM_ERR_INVALID, "%s: PNG decode failed (%s)", path, pi.message);
        am_image_free(out);
    }
    png_image_free(&pi);
    free(data);
    return s;
}

am_status am_png_encode(const am_image *img, am_buf *out, am_error *err)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = (png_uint_32)img->width;
    pi.height = (png_uint_32)img->height;
    pi.format = PNG_FORMAT_RGBA;
    png_alloc_size_t need = 0;
    if (!png_image_write_to_memory(&pi, NULL, &need, 0, img->rgba, 0, NULL))
        return am_fail(err, AM_ERR_INVALID, "PNG encode failed (%s)", pi.message);
    am_status s = am_buf_reserve(out, need, err);
    if (s)
        return s;
    png_alloc_size_t got = need;
    if (!png_image_write_to_memory(&pi, out->data + out->size, &got, 0, img->rgba, 0, NULL))
        return am_fail(err, AM_ERR_INVALID, "PNG encode failed (%s)", pi.message);
    out->size += got;
    return AM_OK;
}

am_status am_png_write(const char *path, const am_image *img, am_error *err)
{
    am_buf b = {0};
    am_status s = am_png_encode(img, &b, err);
    if (!s)
        s = am_write_file_atomic(path, b.data, b.size, err);
    am_buf_free(&b);
    return s;
}
