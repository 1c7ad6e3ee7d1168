/* The fast path of decimal conversion (decimal.h). */
#include "core/decimal.h"

#include <stdint.h>

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool am_decimal_fast(const char *p, const char *end, double *out, const char **stop)
{
    bool neg = false;
    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    uint64_t m = 0;
    int digits = 0, frac = 0;
    bool point = false;
    for (; p < end; p++) {
        if (*p >= '0' && *p <= '9') {
            if (++digits > 19)
                return false;
            m = m * 10 + (uint64_t)(*p - '0');
            frac += point;
        } else if (*p == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (digits == 0 || m >= (1ull << 53) || frac > 22)
        return false;
    if (p < end && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
        return false;
    double d = (double)m / pow10_exact[frac];
    *out = neg ? -d : d;
    *stop = p;
    return true;
}
