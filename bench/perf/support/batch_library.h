/* A generated creature library for the batch benchmark and tests (benchmark_batch.c,
 * tests/test_batch*.c): copies of a real small creature, each its own file, with real motions,
 * broken files and files that make no creature. */
#ifndef AM_BENCH_PERF_SUPPORT_BATCH_LIBRARY_H
#define AM_BENCH_PERF_SUPPORT_BATCH_LIBRARY_H

#include <stdbool.h>
#include <stddef.h>

/* Make DIR/lib (its path into lib): `good` creatures (Ruth's root prim r2ROOTPRIM_rigged.dae
 * from the realdata folder `data`, its <unit> varied so each is its own file (1.00, 1.01, ...),
 * in DIR/lib/nightly/creature_NN (even) and DIR/lib/store/creature_NN (odd); every third with
 * TeddyIdle.bvh as anims/idle.bvh below it), `broken` broken ones in DIR/lib/broken (cut
 * short after the skin began, or a skin with nothing in it), and, when `junk` is true, five
 * files that make no creature: a copy of prim_01 (a duplicate), an empty .glb, notes.txt, the
 * unrigged ElfEar.dae and a stray BVH at the top. False with `why` on a failure. */
bool am_bench_batch_library(const char *dir, const char *data, int good, int broken, bool junk, char *lib,
                            size_t lib_size, char *why, size_t why_size);

/* A library of real creatures of every size: `count` COLLADA files from the realdata folder in
 * turn (Ruth's root prim, Linden Lab's bear with TeddyIdle.bvh, the Roth2 body, the Ruth2
 * hands, the Bento avatar), each copy its own bytes (a comment after the XML declaration
 * names it), one folder each under DIR/lib. */
bool am_bench_batch_library_mixed(const char *dir, const char *data, int count, char *lib, size_t lib_size,
                                  char *why, size_t why_size);

#endif
