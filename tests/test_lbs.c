/* am_lbs against hand-computed blends (docs/reference/mesh-asset.md#skinning-formula: renormalised weights, index clamp
 * to 109, the CPU path's fallback when the weights sum to zero). */
#include "support/test_support.h"

#include <math.h>
#include <string.h>

#include "bench/lbs.h"
#include "bench/perf/support/test_random.h"

static void identity(float *m)
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static void translation(float *m, float x, float y, float z)
{
    identity(m);
    m[12] = x;
    m[13] = y;
    m[14] = z;
}

static void test_identity_palette_leaves_points(void **state)
{
    (void)state;
    float pal[16];
    identity(pal);
    float pos[6] = {1, 2, 3, -0.5f, 0.25f, 7};
    uint8_t j[8] = {0};
    float w[8] = {0.999f, 0, 0, 0, 0.4f, 0.4f, 0, 0};
    float out[6];
    am_lbs(pos, j, w, 2, pal, 1, out);
    for (int i = 0; i < 6; i++)
        assert_float_equal(out[i], pos[i], 1e-6);
}

/* Weights 0.1 and 0.3 renormalise to 0.25 / 0.75. Joint 0 translates by (1,0,0); joint 1
 * rotates 90 degrees about Z (row-vector LL layout: row 0 = image of X = +Y). For the
 * point (1, 0, 0): joint 0 gives (2, 0, 0), joint 1 gives (0, 1, 0); the blend is
 * (0.5, 0.75, 0). */
static void test_blend_renormalises_like_the_shader(void **state)
{
    (void)state;
    float pal[32];
    translation(pal, 1, 0, 0);
    identity(pal + 16);
    pal[16 + 0] = 0;
    pal[16 + 1] = 1;
    pal[16 + 4] = -1;
    pal[16 + 5] = 0;
    float pos[3] = {1, 0, 0};
    uint8_t j[4] = {0, 1, 0, 0};
    float w[4] = {0.1f, 0.3f, 0, 0};
    float out[3];
    am_lbs(pos, j, w, 1, pal, 2, out);
    assert_float_equal(out[0], 0.5f, 1e-6);
    assert_float_equal(out[1], 0.75f, 1e-6);
    assert_float_equal(out[2], 0.0f, 1e-6);
}

/* An index beyond the palette takes the last entry (the shader clamps to 109; with a
 * shorter palette we clamp to its end rather than read garbage). */
static void test_index_clamps_to_109_and_to_palette_end(void **state)
{
    (void)state;
    static float pal[120 * 16];
    for (int k = 0; k < 120; k++)
        translation(pal + 16 * k, (float)k, 0, 0);
    float pos[3] = {0, 0, 0};
    uint8_t j[4] = {115, 0, 0, 0};
    float w[4] = {0.5f, 0, 0, 0};
    float out[3];
    am_lbs(pos, j, w, 1, pal, 120, out);
    assert_float_equal(out[0], 109.0f, 1e-6);
    am_lbs(pos, j, w, 1, pal, 3, out);
    assert_float_equal(out[0], 2.0f, 1e-6);
}

static void test_zero_weights_bind_slot_zero_fully(void **state)
{
    (void)state;
    float pal[32];
    translation(pal, 0, 0, 5);
    translation(pal + 16, 0, 0, 9);
    float pos[3] = {1, 1, 1};
    uint8_t j[4] = {1, 0, 0, 0};
    float w[4] = {0, 0, 0, 0};
    float out[3];
    am_lbs(pos, j, w, 1, pal, 2, out);
    assert_float_equal(out[2], 10.0f, 1e-6); /* slot 0 names joint 1 */
}

/* Every path this CPU runs gives the scalar reference (transform per slot in double, then
 * blend) to 1e-6, on data that exercises what each path does differently: 1-4 influences
 * (unused slots weight 0), weights not summing to 1, all-zero and negative sums (slot 0 at
 * weight 1), indices beyond the palette and beyond 109, and every count from 1 to 41 so the
 * 4-vertex groups and the tails both run. */
static void test_every_dispatch_path_matches_the_reference(void **state)
{
    (void)state;
    enum { MAXN = 41, PAL = 120 };
    static float pal[PAL * 16];
    uint32_t seed = 12345;
    for (int j = 0; j < PAL; j++) {
        float *m = pal + 16 * j;
        for (int k = 0; k < 16; k++)
            m[k] = 2.0f * am_test_rand_unit(&seed) - 1.0f;
        m[12] *= 3, m[13] *= 3, m[14] *= 3;
    }
    float pos[3 * MAXN], w[4 * MAXN], ref[3 * MAXN], out[3 * MAXN + 1];
    uint8_t jt[4 * MAXN];
    for (int i = 0; i < MAXN; i++) {
        for (int k = 0; k < 3; k++)
            pos[3 * i + k] = 4.0f * am_test_rand_unit(&seed) - 2.0f;
        int used = 1 + (int)(am_test_rand(&seed) % 4);
        for (int k = 0; k < 4; k++) {
            jt[4 * i + k] = (uint8_t)(am_test_rand(&seed) % 256); /* beyond 109 and the palette too */
            w[4 * i + k] = k < used ? am_test_rand_unit(&seed) : 0.0f;
        }
        if (i % 9 == 4)
            w[4 * i] = w[4 * i + 1] = w[4 * i + 2] = w[4 * i + 3] = 0.0f; /* zero sum */
        if (i % 13 == 7)
            w[4 * i + 1] = -(w[4 * i] + w[4 * i + 2] + w[4 * i + 3]) - 1.0f; /* negative sum */
    }
    int paths = 0;
    for (int p = AM_LBS_AUTO; p < AM_LBS_PATH_COUNT; p++) {
        if (!am_lbs_path_supported((am_lbs_path)p))
            continue;
        paths++;
        for (size_t pc = 1; pc <= PAL; pc += 37) {
            for (size_t n = 1; n <= MAXN; n++) {
                am_lbs_reference(pos, jt, w, n, pal, pc, ref);
                out[3 * n] = 12345.0f; /* a guard after the last vertex */
                am_lbs_on((am_lbs_path)p, pos, jt, w, n, pal, pc, out);
                assert_true(out[3 * n] == 12345.0f);
                for (size_t i = 0; i < 3 * n; i++)
                    if (fabsf(out[i] - ref[i]) > 1e-6f * fmaxf(1.0f, fabsf(ref[i])))
                        fail_msg("path %s, palette %zu, n %zu: out[%zu] = %.9g, reference %.9g",
                                 am_lbs_path_name((am_lbs_path)p), pc, n, i, out[i], ref[i]);
            }
        }
    }
    print_message("LBS paths checked: %d (am_lbs takes %s)\n", paths, am_lbs_path_name(am_lbs_best_path()));
    assert_ge(paths, 2); /* auto and portable at least */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dispatch_path_matches_the_reference),
        cmocka_unit_test(test_identity_palette_leaves_points),
        cmocka_unit_test(test_blend_renormalises_like_the_shader),
        cmocka_unit_test(test_index_clamps_to_109_and_to_palette_end),
        cmocka_unit_test(test_zero_weights_bind_slot_zero_fully),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
