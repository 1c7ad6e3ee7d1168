/* Array growth (grow.h). */
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>

am_status am_grow(void **p, size_t *cap, size_t need, size_t elem, const char *what, am_error *err)
{
    if (need <= *cap)
        return AM_OK;
    size_t c = *cap ? *cap : 256;
    while (c < need) {
        if (c > SIZE_MAX / 2 / (elem ? elem : 1))
            return am_fail_nomem(err, what);
        c *= 2;
    }
    void *g = realloc(*p, c * elem);
    if (!g)
        return am_fail_nomem(err, what);
    *p = g;
    *cap = c;
    return AM_OK;
}
