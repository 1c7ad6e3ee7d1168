/* A shared library loaded when first needed (dlopen), its calls looked up into a table.
 *
 * The big optional libraries (libcurl for HTTP, assimp for FBX, Embree for a bind's ray
 * tests, CHOLMOD for the heat solve, libarchive for OpenSim archives) are loaded by the
 * module that uses them rather than linked into every command, whose start-up they were
 * four fifths of. A library loaded here stays loaded (RTLD_NODELETE: C++ statics, TLS
 * handlers and thread pools are not safe to unload) and keeps its symbols to itself
 * (RTLD_LOCAL); its own dependencies' functions are bound when first called (RTLD_LAZY).
 * No global state: each caller fills its own table. */
#ifndef AM_CORE_DYNLIB_H
#define AM_CORE_DYNLIB_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* One call: its symbol name and where its address goes (a function pointer's address). */
typedef struct am_dynlib_call {
    const char *name;
    void *slot;
} am_dynlib_call;

/* Load soname and fill every call's slot. `what` says what the library is for, in the
 * error: AM_ERR_IO "cannot load libcurl.so.4 (libcurl, for HTTP): <dlerror>" or
 * "libcurl.so.4 has no curl_easy_init" (then every slot is left NULL). *handle (optional)
 * receives the library for further look-ups of optional symbols (am_dynlib_symbol), to be
 * released with am_dynlib_release. */
am_status am_dynlib_open(const char *soname, const char *what, const am_dynlib_call *calls, size_t count,
                         void **handle, am_error *err);

/* An optional symbol of a loaded library or its dependencies, as a function pointer's bits
 * written to slot; false (slot untouched) when it has none. */
bool am_dynlib_symbol(void *handle, const char *name, void *slot);

/* Done with a handle from am_dynlib_open (the library itself stays loaded). NULL is a no-op. */
void am_dynlib_release(void *handle);

#ifdef __cplusplus
}
#endif

#endif
