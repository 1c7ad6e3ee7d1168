/* The renderer's RGBA images: an am_image is an am_tex_image with 4 channels. Their PNG files
 * go through texture/texture.h's one PNG API (libpng; the pictures' writer, libdeflate). */
#include <stdlib.h>
#include <string.h>

#include "bench/render.h"

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
