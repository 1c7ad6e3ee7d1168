/* libcurl, loaded when a request is made rather than when animesh starts.
 *
 * libcurl brings some thirty libraries of its own (TLS, Kerberos, LDAP, SSH, IDN, ...); their
 * loading and symbol binding was half of every command's start-up (12 of 25 ms measured on
 * `animesh --help`), paid by every command although only `push` and the RemoteAdmin client
 * talk HTTP. am_curl_open loads it (dlopen of the SONAME the build found, kept loaded once
 * loaded) and fills a table of the calls world/http.c makes. No global state: every caller
 * holds its own table. */
#ifndef AM_WORLD_CURL_LIB_H
#define AM_WORLD_CURL_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

#include <curl/curl.h>

#include "core/error.h"

typedef struct am_curl_api {
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *c, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *c);
    CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
    void (*easy_cleanup)(CURL *c);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
} am_curl_api;

/* Load libcurl and fill api. AM_ERR_IO naming the library and dlerror's words when it is
 * not installed or lacks a call. */
am_status am_curl_open(am_curl_api *api, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
