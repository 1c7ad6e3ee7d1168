/* Independent jobs over a few threads: the pictures of a report, the cells of a sheet.
 *
 * am_parallel_run calls job(ctx, i) once for every i in [0, count), from up to `threads`
 * threads (the caller's among them), each taking the next index when it is free. Jobs must
 * not share what they write: each writes its own slot of ctx (its own result and error).
 * Threads that cannot be started leave their share to the others, so every job runs even
 * when no thread can be created (then all in the caller's thread, in order). No global
 * state; the call returns when every job has returned. */
#ifndef AM_CORE_PARALLEL_H
#define AM_CORE_PARALLEL_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

typedef void (*am_parallel_job)(void *ctx, size_t index);

/* The worker count for `requested` (<= 0: the online cores, at most AM_PARALLEL_MAX) and
 * `count` jobs: never more workers than jobs. */
#define AM_PARALLEL_MAX 16
int am_parallel_threads(int requested, size_t count);

void am_parallel_run(size_t count, int threads, am_parallel_job job, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
