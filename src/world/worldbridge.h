/* The WorldBridge client: the one module that knows the wire format (docs/reference/worldbridge.md,
 * "Wire format"). Every command is POST <base>/<command> with a JSON object body and
 * Content-Type application/json; the reply is {"ok": true, ...} or {"ok": false,
 * "error": "..."}. Every request carries Idempotency-Key = SHA-256 (hex) of its exact body
 * bytes, so a retried call can be recognised by the bridge and never spawns or stores twice.
 *
 * Retries (with exponential backoff) happen only when it is safe and useful: connection
 * refused, dropped before the reply or in the middle of it, a timeout, or a 5xx status (the
 * Idempotency-Key makes a repeat safe even when the bridge acted on the first try). 4xx,
 * {"ok": false} and malformed replies are final. The bearer token is sent as
 * "Authorization: Bearer <token>" and never appears in an error, a dry-run file or any
 * output: every text quoting the bridge is masked before it is cut (core/secret.h). */
#ifndef AM_WORLD_WORLDBRIDGE_H
#define AM_WORLD_WORLDBRIDGE_H

#include "animesh/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

/* jansson's JSON value, declared here so the public API includes no third-party header
 * (C11 allows the typedef again in jansson.h, which the sources include). */
typedef struct json_t json_t;

#include "core/error.h"
#include "core/option.h"

struct am_outset;

typedef struct am_worldbridge_client {
    am_worldbridge_options opt;
    int sequence;  /* requests made so far (numbers the dry-run files) */
    struct am_outset *dry_set; /* the dry run's files until am_worldbridge_client_finish */
} am_worldbridge_client;

am_status am_worldbridge_client_init(am_worldbridge_client *c, const am_worldbridge_options *opt, am_error *err);
/* Dry run: put every request file written so far in place, together (core/outset.h).
 * No-op otherwise. */
am_status am_worldbridge_client_finish(am_worldbridge_client *c, am_error *err);
/* Release the client; a dry run not finished writes nothing. */
void am_worldbridge_client_free(am_worldbridge_client *c);

/* What one command returned. */
typedef struct am_worldbridge_result {
    json_t *reply;          /* the parsed reply object (NULL in dry-run); json_decref it */
    long http_status;       /* of the last attempt; 0 when nothing replied */
    int attempts;           /* requests sent (0 in dry-run) */
    long backoff_waited_ms; /* the backoff slept between them (the planned delays, summed) */
    char idempotency_key[65];
    char uuid[37];          /* the reply's "uuid" when it carries one, else "" */
} am_worldbridge_result;

void am_worldbridge_result_free(am_worldbridge_result *r);

/* Send one command. body is borrowed and serialised once (compact, keys in insertion
 * order); those exact bytes are sent on every attempt and hashed into the key. Errors name
 * the command, the HTTP status (or the connection failure), the attempts and the first bytes
 * of the reply: "spawn_mesh: HTTP 500 after 4 attempts: {\"ok\":false,...". On failure
 * result->attempts and http_status are still filled. Status AM_ERR_NETWORK for transport and
 * HTTP failures, AM_ERR_INVALID for a well-formed refusal or a malformed reply, AM_ERR_IO
 * when a dry-run file cannot be written. */
am_status am_worldbridge_call(am_worldbridge_client *c, const char *command, const json_t *body,
                              am_worldbridge_result *result, am_error *err);

/* Judge what the bridge replied with a 2xx status: a JSON object with "ok": true, and a
 * "uuid" for spawn_mesh and store_anim. Fills result->reply (json_decref it) and uuid.
 * Errors quote the reply (token masked). am_worldbridge_call uses it; public for the fuzz target. */
am_status am_worldbridge_judge_reply(const char *command, long status, const uint8_t *body, size_t size,
                                     const char *token, am_worldbridge_result *result, am_error *err);

/* Request bodies (new references; NULL with err set on failure). */

/* spawn_mesh: meshdata is borrowed (copied by reference); texture is either j2c bytes
 * (tex_j2c, tex_size) sent as {"j2c_base64", "bytes", "sha256"}, or tex_uuid sent as
 * {"uuid"}, or neither (null). */
json_t *am_worldbridge_spawn_mesh_body(json_t *meshdata, const double position[3], const uint8_t *tex_j2c,
                                       size_t tex_size, const char *tex_uuid, const char *name, am_error *err);
/* store_anim: {"name", "anim_base64", "bytes", "sha256"}. */
json_t *am_worldbridge_store_anim_body(const char *name, const uint8_t *anim, size_t size, am_error *err);
/* play_anim: {"uuid": object, "anim": asset uuid or stored name, "name": anim name}. */
json_t *am_worldbridge_play_anim_body(const char *object_uuid, const char *anim, const char *name, am_error *err);
/* save_world: {}. */
json_t *am_worldbridge_save_world_body(am_error *err);

/* Placeholder written into dry-run bodies where a real run would use a UUID returned by an
 * earlier command. */
#define AM_WORLDBRIDGE_DRY_RUN_OBJECT "{{spawn_mesh.uuid}}"

#ifdef __cplusplus
}
#endif

#endif
