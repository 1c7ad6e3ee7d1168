/* Fuzz the texture decoders: arbitrary bytes as a PNG, as a JPEG (through the import
 * pipeline's sniffing am_image_decode) and as a JPEG-2000 code stream must give an image or
 * a clean error (with its chunk or marker and offset), never a crash or a leak. Decoded
 * images re-encode, and the pictures' writer gives them back exactly. Seeds: corpus/texture/ (small PNGs of every colour type, JPEGs and .j2c
 * streams, made for this project). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "texture/texture.h"

/* The rendered pictures' writer (png_write.c) must give back exactly the pixels it was given:
 * RGB when every alpha is 255, RGBA otherwise. */
static void picture_round_trip(const am_tex_image *img)
{
    am_buf b = {0};
    am_tex_image back;
    if (am_tex_png_encode_picture(img, &b, NULL) || am_tex_png_decode(b.data, b.size, &back, NULL))
        abort();
    size_t n = (size_t)img->width * img->height;
    bool opaque = true;
    for (size_t i = 0; img->channels == 4 && i < n; i++)
        opaque = opaque && img->pixels[4 * i + 3] == 255;
    if (back.width != img->width || back.height != img->height || back.channels != (opaque ? 3u : 4u))
        abort();
    for (size_t i = 0; i < n; i++)
        if (memcmp(back.pixels + i * back.channels, img->pixels + i * img->channels, back.channels) != 0)
            abort();
    am_tex_image_free(&back);
    am_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_tex_image img;
    am_error err;
    am_fuzz_dirty_error(&err);
    if (am_tex_png_decode(data, size, &img, &err) == AM_OK) {
        am_buf b = {0};
        (void)am_tex_png_encode(&img, &b, &err);
        am_buf_free(&b);
        picture_round_trip(&img);
        am_tex_image_free(&img);
    } else {
        am_fuzz_format(&err);
    }
    am_fuzz_dirty_error(&err);
    if (am_tex_jpeg_decode(data, size, &img, &err) == AM_OK)
        am_tex_image_free(&img);
    else
        am_fuzz_format(&err);
    am_fuzz_dirty_error(&err);
    if (am_image_decode(data, size, &img, &err) == AM_OK)
        am_tex_image_free(&img);
    else
        am_fuzz_format(&err);
    am_fuzz_dirty_error(&err);
    if (am_j2c_decode(data, size, &img, &err) == AM_OK)
        am_tex_image_free(&img);
    else
        am_fuzz_format(&err);
    return 0;
}
