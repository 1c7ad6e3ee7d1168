/* Independent jobs over a few threads (parallel.h). */
#define _DEFAULT_SOURCE /* sysconf's _SC_NPROCESSORS_ONLN */
#include "core/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

typedef struct queue {
    atomic_size_t next;
    size_t count;
    am_parallel_job job;
    void *ctx;
} queue;

static void *drain(void *arg)
{
    queue *q = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&q->next, 1);
        if (i >= q->count)
            return NULL;
        q->job(q->ctx, i);
    }
}

int am_parallel_threads(int requested, size_t count)
{
    long n = requested;
    if (n <= 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
    }
    if (n > AM_PARALLEL_MAX)
        n = AM_PARALLEL_MAX;
    if ((size_t)n > count)
        n = count ? (long)count : 1;
    return (int)n;
}

void am_parallel_run(size_t count, int threads, am_parallel_job job, void *ctx)
{
    queue q = {.count = count, .job = job, .ctx = ctx};
    atomic_init(&q.next, 0);
    int nt = am_parallel_threads(threads, count);
    pthread_t tid[AM_PARALLEL_MAX];
    bool started[AM_PARALLEL_MAX] = {false};
    for (int t = 1; t < nt; t++)
        started[t] = pthread_create(&tid[t], NULL, drain, &q) == 0;
    drain(&q); /* the caller works too, and takes what unstarted threads would have */
    for (int t = 1; t < nt; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
}
