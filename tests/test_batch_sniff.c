/* What `batch plan` takes a library file for (am_batch_sniff), on the real files: the
 * rigged COLLADA is a creature, the unrigged ear is a mesh to bind, and a COLLADA file cut
 * short before its skin is said to be cut short (it was called "geometry and no skin", a
 * verdict on a part of the file that is not there). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "batch/batch.h"
#include "support/test_support.h"

static void test_real_files_and_a_cut_one(void **state)
{
    (void)state;
    char bear[1024], ear[1024], female[1024], dir[512], cut[700];
    am_test_shared_path(bear, sizeof bear, "data/realdata/Little Bear_90.dae");
    am_test_shared_path(ear, sizeof ear, "data/realdata/ElfEar.dae");
    am_test_shared_path(female, sizeof female, "data/realdata/female_2016_08_05.dae");
    am_test_skip_if_missing(bear);
    am_test_skip_if_missing(ear);
    am_test_skip_if_missing(female);
    char why[256];
    assert_int_equal(am_batch_sniff(bear, why, sizeof why), AM_BATCH_FILE_MODEL);
    assert_string_equal(why, "a COLLADA file with a skin controller");
    assert_int_equal(am_batch_sniff(ear, why, sizeof why), AM_BATCH_FILE_UNRIGGED);
    assert_string_equal(why, "a COLLADA file with geometry and no skin");

    /* The reference avatar's first 3000 bytes: its geometry begins, its skin is not reached. */
    assert_non_null(am_test_tmpdir(dir, sizeof dir));
    snprintf(cut, sizeof cut, "%s/cut.dae", dir);
    size_t n = 0;
    uint8_t *data = am_test_slurp(female, &n);
    assert_true(n > 3000);
    FILE *f = fopen(cut, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, 3000, f), 3000);
    fclose(f);
    free(data);
    assert_int_equal(am_batch_sniff(cut, why, sizeof why), AM_BATCH_FILE_OTHER);
    assert_string_equal(why, "a COLLADA file cut short (no closing </COLLADA>)");
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_files_and_a_cut_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
