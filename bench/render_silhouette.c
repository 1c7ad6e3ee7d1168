/* The posed mesh's orthographic silhouette (render.h, am_render_silhouette): what the preview
 * page's side shot must match, drawn here from the bench's own posed vertices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/render.h"

/* Is the pixel centre (px, py) inside or on the triangle (any winding)? */
static bool covers(const double *a, const double *b, const double *c, double px, double py)
{
    double e0 = (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]);
    double e1 = (c[0] - b[0]) * (py - b[1]) - (c[1] - b[1]) * (px - b[0]);
    double e2 = (a[0] - c[0]) * (py - c[1]) - (a[1] - c[1]) * (px - c[0]);
    return (e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0);
}

am_status am_render_silhouette(const am_bench *b, const float *bind, int width, int height, uint8_t *mask,
                               am_error *err)
{
    if (width <= 0 || height <= 0 || !mask)
        return am_fail(err, AM_ERR_USAGE, "silhouette: a %d x %d image cannot be drawn", width, height);
    memset(mask, 0, (size_t)width * (size_t)height);
    size_t n = b->vertex_count;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        double x = bind[3 * i], z = bind[3 * i + 2];
        lo[0] = fmin(lo[0], x), hi[0] = fmax(hi[0], x);
        lo[1] = fmin(lo[1], z), hi[1] = fmax(hi[1], z);
    }
    if (!n || !(hi[0] >= lo[0]) || !(hi[1] >= lo[1]))
        return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source), "silhouette: no finite vertex to draw");
    double wx = hi[0] - lo[0], wz = hi[1] - lo[1], m = 0.05 * fmax(wx, wz);
    double s = fmin(width / (wx + 2 * m), height / (wz + 2 * m));
    if (!(s > 0) || !isfinite(s))
        return am_fail_where(err, AM_ERR_INVALID, am_str(&b->source),
                             "silhouette: the posed mesh has no extent in x and z");
    double cx = (lo[0] + hi[0]) / 2, cz = (lo[1] + hi[1]) / 2;
    for (size_t t = 0; t < b->triangle_count; t++) {
        double v[3][2];
        for (int k = 0; k < 3; k++) {
            const float *p = bind + 3 * b->triangles[3 * t + k];
            v[k][0] = width / 2.0 + (p[0] - cx) * s;  /* +X right */
            v[k][1] = height / 2.0 - (p[2] - cz) * s; /* +Z up */
        }
        int x0 = (int)floor(fmin(v[0][0], fmin(v[1][0], v[2][0]))), x1 = (int)ceil(fmax(v[0][0], fmax(v[1][0], v[2][0])));
        int y0 = (int)floor(fmin(v[0][1], fmin(v[1][1], v[2][1]))), y1 = (int)ceil(fmax(v[0][1], fmax(v[1][1], v[2][1])));
        x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
        x1 = x1 > width ? width : x1, y1 = y1 > height ? height : y1;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++)
                if (!mask[(size_t)y * width + x] && covers(v[0], v[1], v[2], x + 0.5, y + 0.5))
                    mask[(size_t)y * width + x] = 1;
    }
    return AM_OK;
}
