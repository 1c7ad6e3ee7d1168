/* CHOLMOD loaded on first use (cholmod_lib.h). */
#include "bind/cholmod_lib.h"

#include <string.h>

#include "core/dynlib.h"

#ifndef AM_CHOLMOD_SONAME
#define AM_CHOLMOD_SONAME "libcholmod.so.3"
#endif

/* OpenBLAS keeps its threads spinning in sched_yield for work: on 2 shared cores the factor
 * ran slower with them (50k creature, factor 0.36-0.69 s with one BLAS thread, 0.84-1.36 s
 * with two), so one unless --threads asks for more. Looked up in CHOLMOD's own libraries:
 * another BLAS (netlib, serial) has no such calls. */
static void set_blas_threads(void *lib, int threads)
{
    void (*set)(int) = NULL, (*stop)(void) = NULL;
    if (!am_dynlib_symbol(lib, "openblas_set_num_threads", &set))
        return;
    set(threads > 0 ? threads : 1);
    if (threads <= 1 && am_dynlib_symbol(lib, "blas_thread_shutdown_", &stop))
        stop(); /* the workers started at load would spin until their timeout */
}

am_status am_cholmod_open(am_cholmod_api *api, int blas_threads, am_error *err)
{
    memset(api, 0, sizeof *api);
    const am_dynlib_call calls[] = {
        {"cholmod_start", &api->start},
        {"cholmod_finish", &api->finish},
        {"cholmod_allocate_sparse", &api->allocate_sparse},
        {"cholmod_analyze", &api->analyze},
        {"cholmod_factorize", &api->factorize},
        {"cholmod_zeros", &api->zeros},
        {"cholmod_solve", &api->solve},
        {"cholmod_free_sparse", &api->free_sparse},
        {"cholmod_free_factor", &api->free_factor},
        {"cholmod_free_dense", &api->free_dense},
    };
    void *lib = NULL;
    am_status s = am_dynlib_open(AM_CHOLMOD_SONAME, "CHOLMOD, the heat solve", calls, sizeof calls / sizeof calls[0],
                                 &lib, err);
    if (!s)
        set_blas_threads(lib, blas_threads);
    am_dynlib_release(lib);
    return s;
}
