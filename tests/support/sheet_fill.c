/* Pose sheet framing measured on pixels (sheet_fill.h). */
#include "support/sheet_fill.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "support/test_support.h"

static const uint8_t *px(const am_image *img, int x, int y)
{
    return img->pixels + 4 * ((size_t)y * img->width + (size_t)x);
}

static bool is_header(const uint8_t *p) { return p[0] == 52 && p[1] == 58 && p[2] == 72; }
static bool is_white(const uint8_t *p) { return p[0] == 255 && p[1] == 255 && p[2] == 255; }

static bool mesh_pixel(const uint8_t *p)
{
    double sum = p[0] + p[1] + p[2];
    if (sum < 90)
        return false; /* too dark: rounding blurs the hue */
    for (size_t i = 0; i < 8; i++) {
        float c[3];
        am_render_palette(i, c);
        double cs = c[0] + c[1] + c[2];
        bool near = true;
        for (int k = 0; k < 3 && near; k++)
            near = fabs(p[k] / sum - c[k] / cs) <= 0.02;
        if (near)
            return true;
    }
    return false;
}

static double panel_fill(const am_image *img, const am_test_panel *p)
{
    int x0 = -1, x1 = -1, y0 = -1, y1 = -1;
    for (int y = p->y; y < p->y + p->h; y++)
        for (int x = p->x; x < p->x + p->w; x++)
            if (mesh_pixel(px(img, x, y))) {
                x0 = x0 < 0 || x < x0 ? x : x0;
                x1 = x > x1 ? x : x1;
                y0 = y0 < 0 ? y : y0;
                y1 = y;
            }
    if (x0 < 0)
        return 0;
    return p->h >= p->w ? (double)(y1 - y0 + 1) / p->h : (double)(x1 - x0 + 1) / p->w;
}

size_t am_test_sheet_panels(const am_image *img, int columns, am_test_panel *out, size_t max)
{
    int bands[64][2], nb = 0; /* header bands: first row, one past the last */
    for (int y = 0; y < (int)img->height && nb < 64; y++) {
        if (!is_header(px(img, 2, y)))
            continue;
        int e = y;
        while (e < (int)img->height && is_header(px(img, 2, e)))
            e++;
        bands[nb][0] = y;
        bands[nb][1] = e;
        nb++;
        y = e;
    }
    size_t n = 0;
    for (int b = 0; b < nb; b++) {
        int row = bands[b][1] - 1, width = 0;
        while (width < (int)img->width && !is_white(px(img, width, row)))
            width++;
        /* the strip's frames end where the next row's white title line begins */
        int end = b + 1 < nb ? bands[b + 1][0] : (int)img->height;
        while (end > bands[b][1] && is_white(px(img, 0, end - 1)))
            end--;
        int fw = width / columns;
        for (int c = 0; c < columns && n < max; c++) {
            out[n] = (am_test_panel){c * fw, bands[b][1], fw, end - bands[b][1], 0};
            out[n].fill = panel_fill(img, &out[n]);
            n++;
        }
    }
    return n;
}

double am_test_sheet_min_fill(const char *png, int columns, size_t *panels)
{
    am_image img;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_tex_png_read_rgba(png, &img, &err), AM_OK);
    am_test_panel p[256];
    size_t n = am_test_sheet_panels(&img, columns, p, 256);
    double worst = n ? 1 : 0;
    for (size_t i = 0; i < n; i++)
        worst = fmin(worst, p[i].fill);
    am_image_free(&img);
    if (panels)
        *panels = n;
    return worst;
}
