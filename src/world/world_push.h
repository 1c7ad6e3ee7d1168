/* A creature into a running region over WorldBridge, the whole sequence (docs/world.md):
 * spawn the mesh, store each animation, play the chosen one, save the world. The wire
 * format, the Idempotency-Keys and the retries are worldbridge.h's; this module only orders
 * the calls and keeps what each returned, so a program other than the CLI pushes the same
 * way the CLI does.
 *
 * The meshdata file is read and validated here, before anything is sent (meshdata.h); the
 * animations and the texture are bytes the caller checked (checks.h am_world_check_anim and
 * am_world_check_texture). */
#ifndef AM_WORLD_PUSH_H
#define AM_WORLD_PUSH_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "skeleton/skeleton.h"
#include "world/worldbridge.h"

/* One animation to store. The bytes are borrowed. */
typedef struct am_world_push_anim {
    const char *name;   /* stored under this name (checks.h am_world_check_text) */
    const uint8_t *data;/* the .anim bytes */
    size_t size;
    char uuid[37];      /* out: the asset UUID the bridge returned ("" before it is stored;
                           in a dry run the bridge's placeholder, as am_worldbridge_call gives it) */
} am_world_push_anim;

/* What to push. Everything is borrowed; anims[i].uuid is filled as each is stored. */
typedef struct am_world_push_request {
    const char *meshdata_path;  /* NAME.meshdata.json as the skin builder writes it: read and
                                   validated before anything is sent (its errors name the file) */
    const am_skeleton *skeleton;/* the viewer skeleton its joint names are checked against;
                                   NULL: checked for form only */
    const char *name;           /* the object's name; NULL: the meshdata's own name */
    double at[3];               /* region position, metres */
    const uint8_t *texture;     /* a .j2c sent inline (texture_size bytes), or NULL */
    size_t texture_size;
    const char *texture_uuid;   /* or a texture already on the grid, or NULL (neither: none) */
    am_world_push_anim *anims;  /* stored in order */
    size_t anim_count;
    const char *play;           /* an anims[i].name (played by its stored UUID) or an asset
                                   UUID; NULL: nothing is played */
    bool save;                  /* save_world at the end */
} am_world_push_request;

/* What was done, filled as it happens: after a failure it says what the region already
 * holds (a re-run sends the same requests with the same Idempotency-Keys, so a bridge that
 * honours them answers with these UUIDs instead of making copies). */
typedef struct am_world_push_done {
    char object[37];    /* the spawned object's UUID; "" when nothing was spawned; in a dry
                           run AM_WORLDBRIDGE_DRY_RUN_OBJECT */
    size_t stored;      /* anims[0 .. stored) are stored (their uuid filled) */
    bool played;        /* request->play is playing */
    bool saved;         /* the world was saved */
    int requests;       /* requests made (in a dry run: the files written) */
    am_string step;     /* what failed: "reading the meshdata" (nothing was sent),
                           "connecting" (the client could not be made: nothing was sent), a command such as "store_anim walk", or "writing the
                           dry run's files"; "" on success (owned: am_world_push_done_free) */
} am_world_push_done;

/* Release what `done` owns (its step); a zeroed `done` is fine. */
void am_world_push_done_free(am_world_push_done *done);

/* Run the sequence with a client made from `opt` (worldbridge.h; a dry run writes each
 * request into opt->dry_run_dir, all together once every request is written, and sends
 * nothing). `done` (required) is overwritten, not freed, and filled whether or not the call
 * succeeds: free it with am_world_push_done_free. Errors: those of
 * am_worldbridge_client_init (AM_ERR_USAGE for a missing or bad base URL) and am_worldbridge_call, the failed
 * step named in done->step; AM_ERR_NOMEM when the step's text cannot be kept. */
am_status am_world_push(const am_worldbridge_options *opt, am_world_push_request *request, am_world_push_done *done,
                        am_error *err);

#ifdef __cplusplus
}
#endif

#endif
