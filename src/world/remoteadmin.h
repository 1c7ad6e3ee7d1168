/* OpenSim RemoteAdmin over XML-RPC (spec/opensim-oar.md, "Loading over HTTP"):
 * admin_load_oar with one struct parameter {password, filename, region_name | region_uuid,
 * merge, skip-assets}; merge and skip-assets are the STRINGS "true"/"false". The reply
 * struct carries `loaded` (boolean) and `error` on failure; an XML-RPC <fault> is an error.
 *
 * Loading twice would place the object twice, so a request is retried only when the
 * connection was refused (it never reached the region). The password is sent in the body
 * only; it never appears in an error, and a reply that echoes it is masked. */
#ifndef AM_WORLD_REMOTEADMIN_H
#define AM_WORLD_REMOTEADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"

typedef struct am_ra_options {
    const char *url;         /* the region's HTTP address, e.g. http://127.0.0.1:9000/ */
    const char *password;    /* [RemoteAdmin] access_password */
    long connect_timeout_ms; /* default 5000 */
    long total_timeout_ms;   /* default 600000: a large archive takes a while to load */
    int max_attempts;        /* default 3 (retries only for refused connections) */
    long backoff_ms;         /* default 1000 */
} am_ra_options;

/* Defaults; the password from OPENSIM_REMOTEADMIN_PASSWORD. */
void am_ra_options_default(am_ra_options *opt);

typedef struct am_ra_load_oar {
    const char *filename;    /* a path on the region host or an http(s) URL */
    const char *region_name; /* one of region_name / region_uuid */
    const char *region_uuid;
    bool merge;              /* normally true: keep what is in the region */
    bool skip_assets;
} am_ra_load_oar;

/* The XML-RPC request body (methodCall) for admin_load_oar. Text is XML-escaped. */
am_status am_ra_load_oar_request(const am_ra_load_oar *req, const char *password, am_buf *out, am_error *err);

typedef struct am_ra_reply {
    bool loaded;      /* `loaded` true (or, without it, `success` true), and `success` not false */
    bool fault;       /* an XML-RPC <fault> */
    char error[256];  /* `error` or the fault string, "" when none */
} am_ra_reply;

/* Parse a methodResponse. AM_ERR_INVALID when it is not one (malformed reply). */
am_status am_ra_parse_reply(const uint8_t *xml, size_t size, am_ra_reply *out, am_error *err);

/* Send admin_load_oar and judge the reply: AM_OK only when loaded is true. Errors name
 * the method, the HTTP status or connection failure, and the region's error text. */
am_status am_ra_load_oar_call(const am_ra_options *opt, const am_ra_load_oar *req, am_ra_reply *reply,
                              int *attempts, am_error *err);

#endif
