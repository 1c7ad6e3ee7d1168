/* LSD radix sort, 8 bits per pass; passes where every key has the same byte are skipped. */
#include "core/radix.h"

#include <stdlib.h>
#include <string.h>

uint32_t am_radix_float_key(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

am_status am_radix_sort_u32(uint32_t *keys, uint32_t *vals, size_t n, am_error *err)
{
    if (n < 2)
        return AM_OK;
    uint32_t *tk = malloc(n * sizeof *tk), *tv = malloc(n * sizeof *tv);
    if (!tk || !tv) {
        free(tk);
        free(tv);
        return am_fail_nomem(err, "sort");
    }
    size_t count[4][256];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < 4; p++)
            count[p][(keys[i] >> (8 * p)) & 0xFF]++;
    uint32_t *sk = keys, *sv = vals, *dk = tk, *dv = tv;
    for (int p = 0; p < 4; p++) {
        if (count[p][(sk[0] >> (8 * p)) & 0xFF] == n)
            continue; /* every key has this byte */
        size_t at[256], sum = 0;
        for (int b = 0; b < 256; b++) {
            at[b] = sum;
            sum += count[p][b];
        }
        for (size_t i = 0; i < n; i++) {
            size_t o = at[(sk[i] >> (8 * p)) & 0xFF]++;
            dk[o] = sk[i];
            dv[o] = sv[i];
        }
        uint32_t *x = sk;
        sk = dk, dk = x;
        x = sv, sv = dv, dv = x;
    }
    if (sk != keys) {
        memcpy(keys, sk, n * sizeof *keys);
        memcpy(vals, sv, n * sizeof *vals);
    }
    free(tk);
    free(tv);
    return AM_OK;
}
