/* CHOLMOD loaded on first use (cholmod_lib.h). */
#define _GNU_SOURCE /* RTLD_NODELETE */
#include "bind/cholmod_lib.h"

#include <dlfcn.h>
#include <string.h>

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
    void *f = dlsym(lib, "openblas_set_num_threads");
    if (f)
        memcpy(&set, &f, sizeof f);
    f = dlsym(lib, "blas_thread_shutdown_");
    if (f)
        memcpy(&stop, &f, sizeof f);
    if (!set)
        return;
    set(threads > 0 ? threads : 1);
    if (threads <= 1 && stop)
        stop(); /* the workers started at load would spin until their timeout */
}

/* Kept loaded (RTLD_NODELETE): OpenBLAS's threads and OpenMP's runtime are not safe to
 * unload, and the next bind would pay the load again. */
am_status am_cholmod_open(am_cholmod_api *api, int blas_threads, am_error *err)
{
    memset(api, 0, sizeof *api);
    void *lib = dlopen(AM_CHOLMOD_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) {
        const char *why = dlerror();
        return am_fail(err, AM_ERR_IO, "cannot load %s (CHOLMOD, the heat solve): %s", AM_CHOLMOD_SONAME,
                       why ? why : "?");
    }
    struct {
        const char *name;
        void *slot;
    } calls[] = {
        {"cholmod_start", &api->start},
        {"cholmod_finish", &api->finish},
        {"cholmod_allocate_triplet", &api->allocate_triplet},
        {"cholmod_triplet_to_sparse", &api->triplet_to_sparse},
        {"cholmod_free_triplet", &api->free_triplet},
        {"cholmod_analyze", &api->analyze},
        {"cholmod_factorize", &api->factorize},
        {"cholmod_zeros", &api->zeros},
        {"cholmod_solve", &api->solve},
        {"cholmod_free_sparse", &api->free_sparse},
        {"cholmod_free_factor", &api->free_factor},
        {"cholmod_free_dense", &api->free_dense},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        void *f = dlsym(lib, calls[i].name);
        if (!f) {
            dlclose(lib);
            memset(api, 0, sizeof *api);
            return am_fail(err, AM_ERR_IO, "%s has no %s", AM_CHOLMOD_SONAME, calls[i].name);
        }
        memcpy(calls[i].slot, &f, sizeof f); /* object to function pointer, as POSIX dlsym allows */
    }
    set_blas_threads(lib, blas_threads);
    dlclose(lib); /* NODELETE: stays loaded; our reference is not needed */
    return AM_OK;
}
