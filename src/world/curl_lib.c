/* libcurl loaded on first use (curl_lib.h). */
#define _GNU_SOURCE /* RTLD_NODELETE */
#include "world/curl_lib.h"

#include <dlfcn.h>
#include <string.h>

#ifndef AM_CURL_SONAME
#define AM_CURL_SONAME "libcurl.so.4"
#endif

/* Kept loaded (RTLD_NODELETE): unloading TLS libraries that registered handlers is not safe,
 * and the next request would pay the load again. */
am_status am_curl_open(am_curl_api *api, am_error *err)
{
    memset(api, 0, sizeof *api);
    void *lib = dlopen(AM_CURL_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) {
        const char *why = dlerror();
        return am_fail(err, AM_ERR_IO, "cannot load %s (libcurl, for HTTP): %s", AM_CURL_SONAME, why ? why : "?");
    }
    struct {
        const char *name;
        void **slot;
    } calls[] = {
        {"curl_easy_init", (void **)&api->easy_init},
        {"curl_easy_setopt", (void **)&api->easy_setopt},
        {"curl_easy_perform", (void **)&api->easy_perform},
        {"curl_easy_getinfo", (void **)&api->easy_getinfo},
        {"curl_easy_cleanup", (void **)&api->easy_cleanup},
        {"curl_easy_strerror", (void **)&api->easy_strerror},
        {"curl_slist_append", (void **)&api->slist_append},
        {"curl_slist_free_all", (void **)&api->slist_free_all},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        void *f = dlsym(lib, calls[i].name);
        if (!f) {
            dlclose(lib);
            memset(api, 0, sizeof *api);
            return am_fail(err, AM_ERR_IO, "%s has no %s", AM_CURL_SONAME, calls[i].name);
        }
        memcpy(calls[i].slot, &f, sizeof f); /* object to function pointer, as POSIX dlsym allows */
    }
    dlclose(lib); /* NODELETE: stays loaded; our reference is not needed */
    return AM_OK;
}
