#include "support/lod_checks.h"

#include <math.h>
#include <stdbool.h>

int am_test_hinge_corners(const am_bench *b, double x0)
{
    int found = 0;
    for (int ys = -1; ys <= 1; ys += 2)
        for (int zs = -1; zs <= 1; zs += 2) {
            bool hit = false;
            for (size_t v = 0; v < b->vertex_count && !hit; v++) {
                const float *p = &b->bind_pos[3 * v];
                hit = fabs(p[0] - x0) < 1e-3 && fabs(p[1] - ys) < 1e-3 && fabs(p[2] - (1.067 + 0.5 * zs)) < 1e-3;
            }
            found += hit;
        }
    return found;
}
