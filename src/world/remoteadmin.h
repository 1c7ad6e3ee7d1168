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

#include "animesh/world.h"

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

/* Parse a methodResponse. AM_ERR_INVALID when it is not one (malformed reply), AM_ERR_NOMEM
 * when its error text cannot be kept. */
am_status am_remoteadmin_parse_reply(const uint8_t *xml, size_t size, am_remoteadmin_reply *out, am_error *err);

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
