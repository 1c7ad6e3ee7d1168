/* OpenSim RemoteAdmin over XML-RPC (docs/reference/opensim-oar.md, "Loading over HTTP"):
 * admin_load_oar with one struct parameter {password, filename, region_name | region_id,
 * merge, skip-assets}; merge and skip-assets are the STRINGS "true"/"false". The reply
 * struct carries `loaded` (boolean) and `error` on failure; an XML-RPC <fault> is an error.
 * admin_save_oar {password, filename, region_name | region_id} answers `saved`. The region is
 * named by `region_id`: OpenSim's own doc comment says region_uuid, its code reads region_id
 * (measured against 0.9.2.2).
 *
 * `loaded: true` only means the load returned: OpenSim logs a bad archive's errors and still
 * answers true (oar_check.h). admin_save_oar waits at most 5 s for the save and then answers
 * `saved: true` whether the file is complete or not: read it only once it is whole.
 *
 * Loading twice would place the object twice, so a request is retried only when the
 * connection was refused (it never reached the region). The password is sent in the body
 * only; it never appears in an error, and a reply that echoes it is masked. */
#ifndef AM_WORLD_REMOTEADMIN_H
#define AM_WORLD_REMOTEADMIN_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "core/io.h"
#include "core/option.h"

/* The defaults (`push --help` prints them from am_remoteadmin_options_init). Retries: the same
 * schedule as WorldBridge's, 3 retries 500 ms apart doubling (3.5 s in all), so one --retries
 * and --backoff mean the same for both; a refused connection never reached the region, so
 * retrying it is always safe, and the wait covers a listener restarting, not a region booting
 * (that takes longer: the error then says the connection was refused). */
#define AM_REMOTEADMIN_DEFAULT_CONNECT_TIMEOUT_MS 5000L
#define AM_REMOTEADMIN_DEFAULT_TOTAL_TIMEOUT_MS 600000L /* a large archive takes a while to load */
#define AM_REMOTEADMIN_DEFAULT_RETRIES 3
#define AM_REMOTEADMIN_DEFAULT_BACKOFF_MS 500L
#define AM_REMOTEADMIN_MAX_BACKOFF_MS 8000L /* the doubling stops here */

/* Zeroed, the defaults (core/option.h): each 0 below reads as its default. */
typedef struct am_remoteadmin_options {
    const char *url;         /* the region's HTTP address, e.g. http://127.0.0.1:9000/ */
    const char *password;    /* [RemoteAdmin] access_password */
    long connect_timeout_ms; /* 0: AM_REMOTEADMIN_DEFAULT_CONNECT_TIMEOUT_MS */
    long total_timeout_ms;   /* 0: AM_REMOTEADMIN_DEFAULT_TOTAL_TIMEOUT_MS */
    int max_attempts;        /* 0: AM_REMOTEADMIN_DEFAULT_RETRIES + 1 (retries only for refused
                                connections); 1: no retry */
    long backoff_ms;         /* before the first retry, doubled each time; 0: the default
                                AM_REMOTEADMIN_DEFAULT_BACKOFF_MS; AM_OPTION_ZERO: no wait */
} am_remoteadmin_options;

/* The defaults, written out (the same meaning as a zeroed struct). */
void am_remoteadmin_options_init(am_remoteadmin_options *opt);
/* The password from OPENSIM_REMOTEADMIN_PASSWORD when that is set and not empty (what the
 * CLI does; the library reads no environment on its own). */
void am_remoteadmin_options_from_env(am_remoteadmin_options *opt);

typedef struct am_remoteadmin_load_oar {
    const char *filename;    /* a path on the region host or an http(s) URL */
    const char *region_name; /* one of region_name / region_id (the region's UUID) */
    const char *region_id;
    bool merge;              /* normally true: keep what is in the region */
    bool skip_assets;
} am_remoteadmin_load_oar;

/* The XML-RPC request body (methodCall) for admin_load_oar. Text is XML-escaped. */
am_status am_remoteadmin_load_oar_request(const am_remoteadmin_load_oar *req, const char *password, am_buf *out,
                                          am_error *err);

typedef struct am_remoteadmin_save_oar {
    const char *filename;    /* a path on the region host the region can write */
    const char *region_name; /* one of region_name / region_id */
    const char *region_id;
} am_remoteadmin_save_oar;

/* The methodCall body for admin_save_oar. */
am_status am_remoteadmin_save_oar_request(const am_remoteadmin_save_oar *req, const char *password, am_buf *out,
                                          am_error *err);

typedef struct am_remoteadmin_reply {
    bool loaded;      /* `loaded` true (or, without it, `success` true), and `success` not false */
    bool saved;       /* the same for `saved` (admin_save_oar) */
    bool success;     /* no fault and `success` not false (a console command's empty reply) */
    bool fault;       /* an XML-RPC <fault> */
    am_string error;  /* `error` or the fault string, whole (password masked), "" when none */
} am_remoteadmin_reply;

/* Release what a reply owns (its error text); a zeroed reply is fine. Every call below
 * overwrites its reply without freeing it: free a reply before it is filled again. */
void am_remoteadmin_reply_free(am_remoteadmin_reply *reply);

/* Parse a methodResponse. AM_ERR_INVALID when it is not one (malformed reply), AM_ERR_NOMEM
 * when its error text cannot be kept. */
am_status am_remoteadmin_parse_reply(const uint8_t *xml, size_t size, am_remoteadmin_reply *out, am_error *err);

/* Send admin_load_oar and judge the reply: AM_OK only when loaded is true. Errors name
 * the method, the HTTP status or connection failure, and the region's error text. */
am_status am_remoteadmin_load_oar_call(const am_remoteadmin_options *opt, const am_remoteadmin_load_oar *req,
                                       am_remoteadmin_reply *reply, int *attempts, am_error *err);
/* Send admin_save_oar: AM_OK only when saved is true (the file may still be being written). */
am_status am_remoteadmin_save_oar_call(const am_remoteadmin_options *opt, const am_remoteadmin_save_oar *req,
                                       am_remoteadmin_reply *reply, int *attempts, am_error *err);

/* admin_console_command {password, command}: type one line on the region's console. OpenSim
 * 0.9.2.2 answers an empty struct once the command returned, and {success: false, error} for a
 * wrong password (measured); the console's own output is not in the reply, so what the command
 * did must be seen otherwise, e.g. in a save. AM_OK unless a fault or `success` false. Used by batch spawn for `delete object id UUID` (docs/batch.md "Spawning"). */
am_status am_remoteadmin_console_call(const am_remoteadmin_options *opt, const char *command,
                                      am_remoteadmin_reply *reply, int *attempts, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
