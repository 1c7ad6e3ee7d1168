/* Bench internals shared by its files and its unit tests (not part of the public API). */
#ifndef AM_BENCH_INTERNAL_H
#define AM_BENCH_INTERNAL_H

#include "bench/bench.h"

/* Build a bench from an asset that came out of the DECODER (takes ownership; *decoded is
 * zeroed). For unit tests of the model only: every production path goes through bytes
 * (am_bench_load / am_bench_load_mem) so the bench never sees a writer's structures. */
am_status am_bench_from_decoded(am_mesh_asset *decoded, const char *source, const am_skeleton *skel,
                                const am_bench_options *opts, am_bench *out, am_error *err);

void am_bench_motion_free(am_bench_motion *m);

/* Fill b->sides_follow_y from the weights (after the rest state and bounds exist). */
void am_bench_compute_sides(am_bench *b);

/* The unique edges and the rest pose (b->edges, edge_rest, rest_prim), after the rest state. */
am_status am_bench_prepare_measures(am_bench *b, am_error *err);

#endif
