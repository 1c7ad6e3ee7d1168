/* Independent jobs over a few threads: am_parallel_for runs job(user, i) for every i in
 * 0..n-1, the caller's thread among the workers, each job taken by the next free thread.
 * Jobs must not share mutable state (each writes its own slots of the caller's arrays);
 * their results are the caller's to combine in index order, so the output never depends
 * on which thread ran what. A thread that cannot be started leaves its jobs to the others
 * (never an error). Used where a big import has work in independent pieces: the LODs of
 * each face, the writers beside the bench. */
#ifndef AM_CORE_PARALLEL_H
#define AM_CORE_PARALLEL_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#define AM_PARALLEL_MAX_THREADS 16

/* The threads to use for `jobs` jobs when the caller asks for `threads` (0: one per
 * online core), at most AM_PARALLEL_MAX_THREADS and never more than the jobs. */
int am_parallel_threads(int threads, size_t jobs);

void am_parallel_for(size_t n, int threads, void (*job)(void *user, size_t i), void *user);

#ifdef __cplusplus
}
#endif

#endif
