/* Test support: how well a pose sheet frames its creature, measured on the rendered pixels.
 * A sheet (import --bench: per row a white title line, then a strip: a dark header band and
 * `columns` panels side by side) is cut into its panels by finding the header bands; in each
 * panel the mesh is every pixel in a palette colour's chromaticity (am_render_palette:
 * Lambert shading scales the colour; background, text, joints and bones are grey, blue or
 * red, far from every palette colour). */
#ifndef AM_TESTS_SUPPORT_SHEET_FILL_H
#define AM_TESTS_SUPPORT_SHEET_FILL_H

#include <stddef.h>

#include "bench/render.h"

typedef struct am_test_panel {
    int x, y, w, h;
    double fill; /* the silhouette's extent along the panel's longer side / that side */
} am_test_panel;

/* The panels of a sheet (at most max), each with its fill; returns how many. */
size_t am_test_sheet_panels(const am_image *img, int columns, am_test_panel *out, size_t max);
/* The smallest fill over every panel of the sheet PNG at `png` (*panels: how many). */
double am_test_sheet_min_fill(const char *png, int columns, size_t *panels);

#endif
