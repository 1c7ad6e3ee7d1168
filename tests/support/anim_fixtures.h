/* .anim fixtures shared by the anim tests. */
#ifndef AM_TESTS_SUPPORT_ANIM_FIXTURES_H
#define AM_TESTS_SUPPORT_ANIM_FIXTURES_H

#include <stdint.h>

/* The 134-byte file of docs/reference/anim-format.md#worked-example (the worked example), transcribed from the
 * reference's bytes: two joints, mPelvis (rotation + position keys) and mHipLeft. */
#define AM_TEST_ANIM_WORKED_SIZE 134
extern const uint8_t am_test_anim_worked[AM_TEST_ANIM_WORKED_SIZE];

#endif
