/* The renderer's RGBA images and their PNG files. The PNG codec itself lives once, in
 * src/texture (libpng; the pictures' writer png_write.c, libdeflate); an am_image is an
 * am_tex_image with 4 channels. */
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "bench/render.h"
#include "texture/texture.h"

am_status am_image_alloc(am_image *img, int width, int height, am_error *err)
{
    memset(img, 0, sizeof *img);
    if (width <= 0 || height <= 0 || width > 32768 || height > 32768)
        return am_fail(err, AM_ERR_INVALID, "image size %d x %d out of range (1..32768)", width, height);
    img->pixels = calloc((size_t)width * (size_t)height, 4);
    if (!img->pixels)
        return am_fail_nomem(err, "image");
    img->width = (uint32_t)width;
    img->height = (uint32_t)height;
    img->channels = 4;
    return AM_OK;
}

void am_image_free(am_image *img)
{
    if (!img)
        return;
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

am_status am_image_from_tex(const am_tex_image *tex, am_image *out, am_error *err)
{
    am_status s = am_image_alloc(out, (int)tex->width, (int)tex->height, err);
    if (s)
        return s;
    size_t n = (size_t)tex->width * tex->height;
    for (size_t i = 0; i < n; i++) {
        memcpy(out->pixels + 4 * i, tex->pixels + tex->channels * i, 3);
        out->pixels[4 * i + 3] = tex->channels == 4 ? tex->pixels[4 * i + 3] : 255;
    }
    return AM_OK;
}

am_status am_png_read(const char *path, am_image *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    am_tex_image tex;
    am_status s = am_tex_png_read(path, &tex, err);
    if (s)
        return s;
    s = am_image_from_tex(&tex, out, err);
    am_tex_image_free(&tex);
    return s;
}

/* The bench's images are rendered pictures: texture/texture.h's encoder for them. */
am_status am_png_encode(const am_image *img, am_buf *out, am_error *err)
{
    return am_tex_png_encode_picture(img, out, err);
}

am_status am_png_write(const char *path, const am_image *img, am_error *err)
{
    return am_tex_png_write_picture(path, img, err);
}
