/* Jobs over threads (parallel.h). */
#include "core/parallel.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct pool {
    void (*job)(void *user, size_t i, int worker);
    void *user;
    size_t n;
    atomic_size_t next;
} pool;

typedef struct worker_arg {
    pool *p;
    int index;
} worker_arg;

static void *worker(void *arg)
{
    worker_arg *w = arg;
    for (size_t i; (i = atomic_fetch_add(&w->p->next, 1)) < w->p->n;)
        w->p->job(w->p->user, i, w->index);
    return NULL;
}

int am_parallel_threads(int threads, size_t jobs)
{
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (int)(cores < AM_PARALLEL_MAX_THREADS ? cores : AM_PARALLEL_MAX_THREADS) : 1;
    }
    if (threads > AM_PARALLEL_MAX_THREADS)
        threads = AM_PARALLEL_MAX_THREADS;
    if ((size_t)threads > jobs)
        threads = jobs ? (int)jobs : 1;
    return threads;
}

void am_parallel_for(size_t n, int threads, void (*job)(void *user, size_t i, int worker), void *user)
{
    pool p = {job, user, n, 0};
    int nt = am_parallel_threads(threads, n);
    pthread_t tid[AM_PARALLEL_MAX_THREADS];
    bool started[AM_PARALLEL_MAX_THREADS] = {false};
    worker_arg args[AM_PARALLEL_MAX_THREADS];
    for (int t = 0; t < nt; t++)
        args[t] = (worker_arg){&p, t};
    for (int t = 1; t < nt; t++)
        started[t] = pthread_create(&tid[t], NULL, worker, &args[t]) == 0;
    worker(&args[0]);
    for (int t = 1; t < nt; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
}

typedef struct task_call {
    void (*job)(void *user);
    void *user;
} task_call;

static void *task_main(void *arg)
{
    task_call c = *(task_call *)arg;
    free(arg);
    c.job(c.user);
    return NULL;
}

void am_task_start(am_task *t, void (*job)(void *user), void *user)
{
    t->running = false;
    task_call *c = malloc(sizeof *c);
    if (c) {
        *c = (task_call){job, user};
        if (pthread_create(&t->tid, NULL, task_main, c) == 0) {
            t->running = true;
            return;
        }
        free(c);
    }
    job(user); /* no thread: the job is done before the caller goes on */
}

void am_task_join(am_task *t)
{
    if (t->running)
        pthread_join(t->tid, NULL);
    t->running = false;
}
