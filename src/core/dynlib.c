/* Shared libraries loaded when first needed (dynlib.h). */
#define _GNU_SOURCE /* RTLD_NODELETE */
#include "core/dynlib.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

bool am_dynlib_symbol(void *handle, const char *name, void *slot)
{
    void *f = dlsym(handle, name);
    if (!f)
        return false;
    memcpy(slot, &f, sizeof f); /* object to function pointer, as POSIX dlsym allows */
    return true;
}

void am_dynlib_release(void *handle)
{
    if (handle)
        dlclose(handle);
}

am_status am_dynlib_open(const char *soname, const char *what, const am_dynlib_call *calls, size_t count,
                         void **handle, am_error *err)
{
    if (handle)
        *handle = NULL;
    /* Lazy: a function of the library's own dependencies is bound when first called. Bound
     * at once, CHOLMOD's LAPACK and BLAS took 10 ms of lookups for the few calls it makes;
     * the calls we make are each looked up below, so a missing one is still an error. */
    void *lib = dlopen(soname, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) {
        const char *why = dlerror();
        return am_fail(err, AM_ERR_IO, "cannot load %s (%s): %s", soname, what, why ? why : "?");
    }
    for (size_t i = 0; i < count; i++)
        if (!am_dynlib_symbol(lib, calls[i].name, calls[i].slot)) {
            for (size_t k = 0; k < i; k++)
                memset(calls[k].slot, 0, sizeof(void *));
            dlclose(lib);
            return am_fail(err, AM_ERR_IO, "%s has no %s", soname, calls[i].name);
        }
    if (handle)
        *handle = lib; /* the caller releases it (am_dynlib_release) */
    else
        dlclose(lib);
    return AM_OK;
}
