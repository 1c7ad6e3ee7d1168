/* Size rules, the box-filter resize, image comparison and the `animesh texture` job. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "texture/texture.h"

static bool is_pow2(uint32_t v)
{
    return v && (v & (v - 1)) == 0;
}

uint32_t am_texture_fit_side(uint32_t side)
{
    uint32_t p = 1;
    while (p * 2 <= side && p * 2 <= AM_TEXTURE_MAX_SIDE)
        p *= 2;
    return p;
}

am_status am_texture_check_size(uint32_t width, uint32_t height, am_error *err)
{
    if (width > AM_TEXTURE_MAX_SIDE || height > AM_TEXTURE_MAX_SIDE)
        return am_fail(err, AM_ERR_INVALID,
                       "image is %ux%u: Second Life textures are at most %u pixels on a side "
                       "(the resize option scales it to %ux%u)",
                       width, height, AM_TEXTURE_MAX_SIDE, am_texture_fit_side(width), am_texture_fit_side(height));
    if (!is_pow2(width) || !is_pow2(height))
        return am_fail(err, AM_ERR_INVALID,
                       "image is %ux%u: each side must be a power of two (1, 2, 4, ... 1024) "
                       "(the resize option scales it down to %ux%u)",
                       width, height, am_texture_fit_side(width), am_texture_fit_side(height));
    return AM_OK;
}

/* One axis of a box filter: output cell i covers input [i*r, (i+1)*r), r = in/out. Each
 * input pixel j gets the length of its overlap with that interval as weight. */
typedef struct box_tap {
    uint32_t first, count; /* input pixels first .. first+count-1 */
    size_t w_off;          /* into the weights array */
} box_tap;

static am_status box_taps(uint32_t in, uint32_t out, box_tap **taps, double **weights, am_error *err)
{
    double r = (double)in / out;
    size_t per = (size_t)ceil(r) + 2;
    *taps = calloc(out, sizeof **taps);
    *weights = calloc((size_t)out * per, sizeof **weights);
    if (!*taps || !*weights) {
        free(*taps);
        free(*weights);
        return am_fail_nomem(err, "resize filter");
    }
    for (uint32_t i = 0; i < out; i++) {
        double a = i * r, b = (i + 1) * r;
        uint32_t j0 = (uint32_t)floor(a);
        uint32_t j1 = (uint32_t)ceil(b);
        if (j1 > in)
            j1 = in;
        box_tap *t = &(*taps)[i];
        t->first = j0;
        t->count = j1 - j0;
        t->w_off = (size_t)i * per;
        for (uint32_t j = j0; j < j1; j++) {
            double lo = j > a ? j : a, hi = j + 1 < b ? j + 1 : b;
            (*weights)[t->w_off + (j - j0)] = (hi - lo) / r;
        }
    }
    return AM_OK;
}

am_status am_tex_resize_box(const am_tex_image *in, uint32_t width, uint32_t height, am_tex_image *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (width == 0 || height == 0 || width > in->width || height > in->height)
        return am_fail(err, AM_ERR_INVALID, "resize: %ux%u -> %ux%u is not a reduction", in->width, in->height,
                       width, height);
    box_tap *tx = NULL, *ty = NULL;
    double *wx = NULL, *wy = NULL, *row = NULL;
    am_status s = box_taps(in->width, width, &tx, &wx, err);
    if (!s)
        s = box_taps(in->height, height, &ty, &wy, err);
    if (!s)
        s = am_tex_image_alloc(out, width, height, in->channels, err);
    uint32_t ch = in->channels;
    /* row: one input row after the horizontal pass, accumulated over the vertical taps. */
    if (!s && !(row = calloc((size_t)width * ch, sizeof *row)))
        s = am_fail_nomem(err, "resize row");
    for (uint32_t y = 0; !s && y < height; y++) {
        memset(row, 0, (size_t)width * ch * sizeof *row);
        const box_tap *vy = &ty[y];
        for (uint32_t k = 0; k < vy->count; k++) {
            double wv = wy[vy->w_off + k];
            const uint8_t *src = in->pixels + (size_t)(vy->first + k) * in->width * ch;
            for (uint32_t x = 0; x < width; x++) {
                const box_tap *hx = &tx[x];
                for (uint32_t m = 0; m < hx->count; m++) {
                    double w = wv * wx[hx->w_off + m];
                    const uint8_t *p = src + (size_t)(hx->first + m) * ch;
                    for (uint32_t c = 0; c < ch; c++)
                        row[(size_t)x * ch + c] += w * p[c];
                }
            }
        }
        uint8_t *dst = out->pixels + (size_t)y * width * ch;
        for (size_t i = 0; i < (size_t)width * ch; i++) {
            double v = floor(row[i] + 0.5);
            dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    free(tx);
    free(ty);
    free(wx);
    free(wy);
    free(row);
    if (s)
        am_tex_image_free(out);
    return s;
}

am_status am_tex_compare(const am_tex_image *a, const am_tex_image *b, am_tex_diff *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (a->width != b->width || a->height != b->height || a->channels != b->channels)
        return am_fail(err, AM_ERR_INVALID, "images differ in shape: %ux%ux%u vs %ux%ux%u", a->width, a->height,
                       a->channels, b->width, b->height, b->channels);
    size_t n = (size_t)a->width * a->height * a->channels;
    double sum = 0, sq = 0;
    int mx = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)a->pixels[i] - (int)b->pixels[i]);
        if (d > mx)
            mx = d;
        sum += d;
        sq += (double)d * d;
    }
    out->max_abs = mx;
    out->mean_abs = n ? sum / n : 0;
    double mse = n ? sq / n : 0;
    out->psnr_db = mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : INFINITY;
    return AM_OK;
}

am_status am_texture_convert(const char *png_path, const char *j2c_path, const am_texture_options *opt,
                             am_texture_result *res, am_error *err)
{
    memset(res, 0, sizeof *res);
    am_tex_image img, small = {0};
    uint8_t *file;
    size_t file_size;
    am_status s = am_read_file_as(png_path, &am_image_file_format, &file, &file_size, err);
    if (s)
        return s;
    /* the size rule from the header, before the decode costs anything */
    uint32_t w, h;
    s = am_image_size(file, file_size, &w, &h, err);
    if (!s && (!opt || !opt->resize))
        s = am_texture_check_size(w, h, err);
    if (!s)
        s = am_image_decode(file, file_size, &img, err);
    free(file);
    if (s) {
        am_error_where(err, "%s", png_path);
        return s;
    }
    res->in_width = img.width;
    res->in_height = img.height;
    res->channels = img.channels;
    const am_tex_image *use = &img;
    if (am_texture_check_size(img.width, img.height, NULL) != AM_OK) {
        if (!opt || !opt->resize) {
            s = am_texture_check_size(img.width, img.height, err);
            am_error_where(err, "%s", png_path);
            am_tex_image_free(&img);
            return s;
        }
        s = am_tex_resize_box(&img, am_texture_fit_side(img.width), am_texture_fit_side(img.height), &small, err);
        if (s) {
            am_tex_image_free(&img);
            return s;
        }
        use = &small;
        res->resized = true;
    }
    res->out_width = use->width;
    res->out_height = use->height;
    am_buf b = {0};
    am_j2c_options jo = {opt && opt->lossless};
    s = am_j2c_encode(use, &jo, &b, err);
    if (s)
        am_error_where(err, "%s", png_path);
    else
        s = am_write_file_atomic(j2c_path, b.data, b.size, err);
    res->j2c_bytes = s ? 0 : b.size;
    am_buf_free(&b);
    am_tex_image_free(&small);
    am_tex_image_free(&img);
    return s;
}
