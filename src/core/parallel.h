/* Independent jobs over a few threads: am_parallel_for runs job(user, i, worker) for every
 * i in 0..n-1, the caller's thread among the workers, each job taken by the next free
 * thread; worker (0 .. am_parallel_threads(threads, n) - 1, the caller's is 0) names the
 * thread, for scratch memory of its own.
 * Jobs must not share mutable state (each writes its own slots of the caller's arrays);
 * their results are the caller's to combine in index order, so the output never depends
 * on which thread ran what. A thread that cannot be started leaves its jobs to the others
 * (never an error). am_task is the same for one job that runs beside the caller's own
 * work: started, then joined. Used where a big import has work in independent pieces: the
 * LODs of each face, the rig JSON beside the build, the writers beside the bench. */
#ifndef AM_CORE_PARALLEL_H
#define AM_CORE_PARALLEL_H

#ifdef __cplusplus
extern "C" {
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define AM_PARALLEL_MAX_THREADS 16

/* The threads to use for `jobs` jobs when the caller asks for `threads` (0: one per
 * online core), at most AM_PARALLEL_MAX_THREADS and never more than the jobs. */
int am_parallel_threads(int threads, size_t jobs);

void am_parallel_for(size_t n, int threads, void (*job)(void *user, size_t i, int worker), void *user);

/* One job on a thread of its own: am_task_start runs job(user) there (or, when no thread
 * can be started, right away in the caller's), am_task_join waits for it. Every started
 * task must be joined; what the job writes is the caller's to read after the join. */
typedef struct am_task {
    pthread_t tid;
    bool running;
} am_task;

void am_task_start(am_task *t, void (*job)(void *user), void *user);
void am_task_join(am_task *t);

#ifdef __cplusplus
}
#endif

#endif
