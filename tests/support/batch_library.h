/* Generated creature libraries for the batch tests (test_batch.c, test_batch_slurm.c,
 * test_batch_record.c, test_zeroed_options.c). */
#ifndef AM_TESTS_SUPPORT_BATCH_LIBRARY_H
#define AM_TESTS_SUPPORT_BATCH_LIBRARY_H

#include <stddef.h>

#include "batch/batch.h"

/* Creatures that convert, and broken ones (each a job that fails). */
#define AM_TEST_BATCH_GOOD 36
#define AM_TEST_BATCH_BROKEN 4

/* Make DIR/lib (its path into lib): AM_TEST_BATCH_GOOD creatures (Ruth's root prim from
 * the shared realdata folder `data`, its <unit> varied so each is its own file, every third
 * with TeddyIdle.bvh in an anims/ sub-folder: 12 motions), AM_TEST_BATCH_BROKEN broken ones
 * (cut short, garbage), and five files that make no creature: a duplicate of prim_01, an
 * empty .glb, notes.txt, the unrigged ElfEar.dae and a stray BVH at the top. */
void am_test_batch_library(char *lib, size_t lib_size, const char *dir, const char *data);

/* A library of one creature, the walking quadruped (DIR/library/quad.glb), planned into
 * DIR/catalog (its path into catalog) with zeroed options but for the library and the viewer
 * skeleton: the plan holds that one job (else the test fails). */
void am_test_quad_catalog(const char *dir, char *catalog, size_t catalog_size, am_batch_plan *plan);

#endif
