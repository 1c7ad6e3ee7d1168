/* libcurl loaded on first use (curl_lib.h). */
#include "world/curl_lib.h"

#include <string.h>

#include "core/dynlib.h"

#ifndef AM_CURL_SONAME
#define AM_CURL_SONAME "libcurl.so.4"
#endif

am_status am_curl_open(am_curl_api *api, am_error *err)
{
    memset(api, 0, sizeof *api);
    const am_dynlib_call calls[] = {
        {"curl_easy_init", &api->easy_init},
        {"curl_easy_setopt", &api->easy_setopt},
        {"curl_easy_perform", &api->easy_perform},
        {"curl_easy_getinfo", &api->easy_getinfo},
        {"curl_easy_cleanup", &api->easy_cleanup},
        {"curl_easy_strerror", &api->easy_strerror},
        {"curl_slist_append", &api->slist_append},
        {"curl_slist_free_all", &api->slist_free_all},
    };
    return am_dynlib_open(AM_CURL_SONAME, "libcurl, for HTTP", calls, sizeof calls / sizeof calls[0], NULL, err);
}
