/* CHOLMOD (SuiteSparse), loaded when a bind solves, rather than when animesh starts.
 *
 * libcholmod brings LAPACK, OpenBLAS, gfortran, METIS and OpenMP; their loading was 10 of
 * the 25 ms every command spent starting (measured on an empty program linked with and
 * without it), paid by every command although only the heat bind solves. OpenBLAS also
 * starts its worker threads when it loads, and they spin in sched_yield for work: loaded
 * here, their count is set at once (and with one thread asked for, the workers are stopped)
 * instead of spinning beside whatever runs first.
 *
 * am_cholmod_open loads it (dlopen of the SONAME the build found, kept loaded once loaded)
 * and fills a table of the calls heat.c makes. No global state: every solve holds its own
 * table. */
#ifndef AM_BIND_CHOLMOD_LIB_H
#define AM_BIND_CHOLMOD_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

#include <suitesparse/cholmod.h>

#include "core/error.h"

typedef struct am_cholmod_api {
    __typeof__(&cholmod_start) start;
    __typeof__(&cholmod_finish) finish;
    __typeof__(&cholmod_allocate_sparse) allocate_sparse;
    __typeof__(&cholmod_analyze) analyze;
    __typeof__(&cholmod_factorize) factorize;
    __typeof__(&cholmod_zeros) zeros;
    __typeof__(&cholmod_solve) solve;
    __typeof__(&cholmod_free_sparse) free_sparse;
    __typeof__(&cholmod_free_factor) free_factor;
    __typeof__(&cholmod_free_dense) free_dense;
} am_cholmod_api;

/* Load CHOLMOD and fill api; the BLAS under it (when it is OpenBLAS) gets blas_threads
 * threads (<= 0: one). AM_ERR_IO naming the library and dlerror's words when it is not
 * installed or lacks a call. */
am_status am_cholmod_open(am_cholmod_api *api, int blas_threads, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
