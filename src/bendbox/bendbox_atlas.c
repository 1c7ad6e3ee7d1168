/* The orientation atlas: one coloured tile per face direction with its label, an arrow
 * toward the tile's top and the face's 1 m grid, so orientation can be read in the viewer. */
#include <string.h>

#include "bendbox/bendbox.h"
#include "bendbox/bendbox_internal.h"

/* 5 x 7 glyphs for the labels, one string of '#' and '.' per row. */
static const char *glyph(char c)
{
    switch (c) {
    case '+': return "....." "..#.." "..#.." "#####" "..#.." "..#.." ".....";
    case '-': return "....." "....." "....." "#####" "....." "....." ".....";
    case 'X': return "#...#" "#...#" ".#.#." "..#.." ".#.#." "#...#" "#...#";
    case 'Y': return "#...#" "#...#" ".#.#." "..#.." "..#.." "..#.." "..#..";
    case 'Z': return "#####" "....#" "...#." "..#.." ".#..." "#...." "#####";
    default: return NULL;
    }
}

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

static void put(am_tex_image *img, int x, int y, rgb c)
{
    if (x < 0 || y < 0 || x >= (int)img->width || y >= (int)img->height)
        return;
    uint8_t *p = img->pixels + ((size_t)y * img->width + (size_t)x) * img->channels;
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
}

static void rect(am_tex_image *img, int x0, int y0, int w, int h, rgb c)
{
    for (int y = y0; y < y0 + h; y++)
        for (int x = x0; x < x0 + w; x++)
            put(img, x, y, c);
}

static void text(am_tex_image *img, int cx, int cy, const char *s, int scale, rgb c)
{
    int n = (int)strlen(s), w = n * 5 * scale + (n - 1) * scale;
    int x = cx - w / 2, y = cy - 7 * scale / 2;
    for (int k = 0; k < n; k++, x += 6 * scale) {
        const char *g = glyph(s[k]);
        for (int r = 0; g && r < 7; r++)
            for (int q = 0; q < 5; q++)
                if (g[r * 5 + q] == '#')
                    rect(img, x + q * scale, y + r * scale, scale, scale, c);
    }
}

am_status am_bendbox_build_atlas(am_tex_image *img, am_error *err)
{
    am_status s = am_tex_image_alloc(img, AM_BENDBOX_ATLAS_W, AM_BENDBOX_ATLAS_H, 3, err);
    if (s)
        return s;
    /* Per face: fill, then ink (label, arrow, grid) that contrasts with it. */
    static const rgb fill[6] = {{225, 35, 35},  {40, 200, 215}, {40, 170, 60},
                                {200, 60, 200}, {50, 80, 225},  {230, 200, 40}};
    static const rgb ink[6] = {{255, 255, 255}, {0, 0, 0}, {255, 255, 255},
                               {255, 255, 255}, {255, 255, 255}, {0, 0, 0}};
    const int T = AM_BENDBOX_TILE;
    rect(img, 0, 0, AM_BENDBOX_ATLAS_W, AM_BENDBOX_ATLAS_H, (rgb){128, 128, 128}); /* spare tiles */
    for (int f = 0; f < 6; f++) {
        const char *label;
        int nu, nv, col, row;
        am_bendbox_face_info(f, &label, &nu, &nv, &col, &row);
        int x0 = col * T, y0 = row * T;
        rect(img, x0, y0, T, T, fill[f]);
        /* The 1 m grid of the face (the mapped area is the tile minus a 4 px inset). */
        rgb line = {(uint8_t)(fill[f].r * 3 / 5), (uint8_t)(fill[f].g * 3 / 5), (uint8_t)(fill[f].b * 3 / 5)};
        for (int i = 0; i <= nu; i++) {
            int x = x0 + 4 + (T - 8) * i / nu;
            rect(img, x - 1, y0 + 4, 2, T - 8, line);
        }
        for (int j = 0; j <= nv; j++) {
            int y = y0 + 4 + (T - 8) * j / nv;
            rect(img, x0 + 4, y - 1, T - 8, 2, line);
        }
        /* Arrow toward the tile's top: head rows 14..29, shaft to row 40. */
        int cx = x0 + T / 2;
        for (int r = 0; r < 16; r++)
            rect(img, cx - r, y0 + 14 + r, 2 * r + 1, 1, ink[f]);
        rect(img, cx - 3, y0 + 30, 7, 11, ink[f]);
        text(img, cx, y0 + 80, label, 6, ink[f]);
    }
    return AM_OK;
}
