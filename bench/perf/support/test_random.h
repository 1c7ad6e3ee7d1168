/* Test and benchmark support: reproducible pseudo-random numbers (xorshift32) without
 * global state. */
#ifndef AM_BENCH_PERF_SUPPORT_TEST_RANDOM_H
#define AM_BENCH_PERF_SUPPORT_TEST_RANDOM_H

#include <stdint.h>

static inline uint32_t am_test_rand(uint32_t *s)
{
    uint32_t x = *s ? *s : 1u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

/* Uniform in [0, 1). */
static inline float am_test_rand_unit(uint32_t *s) { return (float)(am_test_rand(s) >> 8) / 16777216.0f; }

#endif
