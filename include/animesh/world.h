/* animesh/world.h: into the world: OAR archives, loading them over RemoteAdmin, WorldBridge pushes.
 *
 * The public calls: am_oar_write / am_oar_write_file (an archive from bytes you hold);
 * am_remoteadmin_load_oar_call (load it into a region over RemoteAdmin; the reply's strings
 * are freed by am_remoteadmin_reply_free); am_world_push (the WorldBridge sequence: spawn the
 * mesh from its meshdata file, store each .anim, play one, save; am_world_push_done says how
 * far it got, also after a failure, and is freed by am_world_push_done_free). Options zeroed
 * are the defaults; _from_env fills URL, token and password from the environment as the CLI
 * does (the library reads none by itself). Errors: AM_ERR_USAGE for a missing or bad URL,
 * AM_ERR_NETWORK for a peer that cannot be reached or times out, AM_ERR_INVALID for a reply
 * that refuses (quoted) and for input the archive or the bridge cannot take (naming the
 * field).
 * The archive:
 *
 * OpenSim archives (OAR) that carry one animesh object (docs/reference/opensim-oar.md).
 *
 * The archive (gzip-compressed tar, written with libarchive, which is loaded when the first
 * archive is written: world/archive_lib.h):
 *   archive.xml                                 first entry, version 0.8, assets included
 *   objects/<Name>_<x>-<y>-<z>__<partUUID>.xml   the scene object group: the root mesh prim
 *                                               and, for a linkset, its child mesh prims
 *   assets/<uuid>_mesh.llmesh                   each mesh (asset type 49)
 *   assets/<uuid>_texture.jp2                   the texture (JPEG-2000 code stream), optional
 *   assets/<uuid>_animation.bvh                 each distinct .anim (binary, despite the suffix)
 *   assets/<uuid>_script.lsl                    the starter script, when an animation is chosen
 * Assets follow in ascending UUID order.
 *
 * Entries are plain ustar headers with the whole path in the name field (at most 99 bytes),
 * which is all OpenSim's own tar reader understands.
 *
 * Reproducible: every UUID is a version-5 UUID derived from content (digest.h), tar entries
 * carry uid/gid 0, mode 0644 and mtime = creation_time, the gzip header has no timestamp;
 * the same input gives the same bytes. With a UUID salt every UUID changes (an asset's is
 * v5 of "<kind>:<sha256>:<salt>") and archive.xml records it as <animesh uuid_salt="S"/>
 * (OpenSim ignores the element), so a reader can check each asset against its UUID.
 *
 * The prim: PCode 9, a mesh sculpt (SculptType 5, SculptTexture = mesh UUID, SculptEntry
 * true) and ExtraParams holding the sculpt entry (0x30) and the mesh-flags entry (0x70,
 * bit 0 = animated mesh) exactly as am_oar_extra_params writes them; the texture in the
 * TextureEntry's default face (other faces' own textures, face_textures, as its face
 * exceptions); the task inventory holds each animation (Type 20 /
 * InvType 19) and, when `play` is set, a script (Type 10 / InvType 10) that calls
 * llStartObjectAnimation on state_entry and on_rez.
 */
#ifndef AM_ANIMESH_WORLD_H
#define AM_ANIMESH_WORLD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct am_oar_anim {
    const char *name; /* inventory name: 1..63 bytes, no control characters or '|' */
    const uint8_t *data;
    size_t size;
} am_oar_anim;

/* Another rigged mesh of the same object: a child prim of the linkset (OtherParts,
 * LinkNum 2, 3, ...). Only the root prim (the input's own mesh) carries the animesh flag
 * and the inventory (the viewer reads the flag from the root, docs/reference/mesh-asset.md#the-animesh-flag); a child
 * carries its mesh, texture and colour, at the root's position (a rigged mesh is drawn
 * where the skeleton puts it, not where its prim is). */
typedef struct am_oar_child {
    const uint8_t *mesh;     /* its .llmesh */
    size_t mesh_size;
    const uint8_t *texture;  /* a .j2c, or NULL */
    size_t texture_size;
    const char *name;        /* prim name; NULL: the object's */
    bool has_color;
    double color[3];
} am_oar_child;

/* One face of the root prim wearing its own texture (a merged creature's parts' materials):
 * a .j2c, or data NULL for the default face's. */
typedef struct am_oar_face_texture {
    const uint8_t *data;
    size_t size;
} am_oar_face_texture;

/* Faces a TextureEntry's exceptions may name (the viewer's 8 faces of a mesh). */
#define AM_OAR_MAX_FACES 8

typedef struct am_oar_input {
    const uint8_t *mesh; /* the .llmesh asset */
    size_t mesh_size;
    const uint8_t *texture; /* a .j2c code stream, or NULL */
    size_t texture_size;
    const am_oar_anim *anims;
    size_t anim_count;
    const char *play;        /* one of the anim names, or NULL (no script) */
    double position[3];      /* region coordinates, metres */
    double scale[3];         /* prim scale; (0,0,0) means (1,1,1) */
    const char *object_name; /* NULL: "animesh" */
    bool has_color;          /* tint the default face (material colour of the rig) */
    double color[3];         /* RGB, 0..1 (used when has_color; else opaque white) */
    int64_t creation_time;   /* archive datetime, CreationDate and tar mtimes (Unix s) */
    const char *uuid_salt;   /* NULL or "": the plain content UUIDs; else see am_oar_check_salt */
    const am_oar_child *children; /* further rigged meshes of the object (a linkset), or NULL */
    size_t child_count;
    /* The root prim's faces 0..face_texture_count-1 (at most AM_OAR_MAX_FACES), each its own
     * texture: a face whose texture is not the default face's (`texture`) is a TextureEntry
     * exception, and its texture an asset of the archive. 0: `texture` on every face. */
    const am_oar_face_texture *face_textures;
    size_t face_texture_count;
} am_oar_input;

AM_API am_status am_oar_check_salt(const char *salt, am_error *err);

/* The gzip-compressed tar into out. AM_ERR_IO naming libarchive when it cannot be loaded. */
AM_API am_status am_oar_write(const am_oar_input *in, am_buf *out, am_error *err);

/* The same, written atomically to path. */
AM_API am_status am_oar_write_file(const am_oar_input *in, const char *path, am_error *err);

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
AM_API void am_remoteadmin_options_init(am_remoteadmin_options *opt);

/* The password from OPENSIM_REMOTEADMIN_PASSWORD when that is set and not empty (what the
 * CLI does; the library reads no environment on its own). */
AM_API void am_remoteadmin_options_from_env(am_remoteadmin_options *opt);

typedef struct am_remoteadmin_load_oar {
    const char *filename;    /* a path on the region host or an http(s) URL */
    const char *region_name; /* one of region_name / region_id (the region's UUID) */
    const char *region_id;
    bool merge;              /* normally true: keep what is in the region */
    bool skip_assets;
} am_remoteadmin_load_oar;

typedef struct am_remoteadmin_reply {
    bool loaded;      /* `loaded` true (or, without it, `success` true), and `success` not false */
    bool saved;       /* the same for `saved` (admin_save_oar) */
    bool success;     /* no fault and `success` not false (a console command's empty reply) */
    bool fault;       /* an XML-RPC <fault> */
    am_string error;  /* `error` or the fault string, whole (password masked), "" when none */
} am_remoteadmin_reply;

/* Release what a reply owns (its error text); a zeroed reply is fine. Every call below
 * overwrites its reply without freeing it: free a reply before it is filled again. */
AM_API void am_remoteadmin_reply_free(am_remoteadmin_reply *reply);

/* Send admin_load_oar and judge the reply: AM_OK only when loaded is true. Errors name
 * the method, the HTTP status or connection failure, and the region's error text. */
AM_API am_status am_remoteadmin_load_oar_call(const am_remoteadmin_options *opt, const am_remoteadmin_load_oar *req,
                                       am_remoteadmin_reply *reply, int *attempts, am_error *err);

/* Zeroed, the defaults (core/option.h): each 0 below reads as its default. */
typedef struct am_worldbridge_options {
    const char *base_url;    /* e.g. http://127.0.0.1:9000/wb (a trailing '/' is fine) */
    const char *token;       /* bearer token or NULL */
    long connect_timeout_ms; /* 0: the default 5000 */
    long total_timeout_ms;   /* per attempt; 0: the default 60000 */
    int max_attempts;        /* 0: the default 4; 1: no retry */
    long backoff_ms;         /* first retry delay, doubled each time, capped at 8 s; 0: the
                                default 500; AM_OPTION_ZERO: no wait */
    const char *dry_run_dir; /* when set: write each request to files there, send nothing */
} am_worldbridge_options;

/* The defaults, written out (the same meaning as a zeroed struct). */
AM_API void am_worldbridge_options_init(am_worldbridge_options *opt);

/* base_url and token from WORLDBRIDGE_URL / WORLDBRIDGE_TOKEN when those are set and not
 * empty (what the CLI does; the library reads no environment on its own). */
AM_API void am_worldbridge_options_from_env(am_worldbridge_options *opt);

/* One animation to store. The bytes are borrowed. */
typedef struct am_world_push_anim {
    const char *name;   /* stored under this name (checked before anything is sent) */
    const uint8_t *data;/* the .anim bytes */
    size_t size;
    char uuid[37];      /* out: the asset UUID the bridge returned ("" before it is stored;
                           in a dry run the bridge's placeholder) */
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
AM_API void am_world_push_done_free(am_world_push_done *done);

/* Run the sequence against the bridge `opt` names (a dry run writes each request into
 * opt->dry_run_dir, all together once every request is written, and sends nothing). `done`
 * (required) is overwritten, not freed, and filled whether or not the call succeeds: free it
 * with am_world_push_done_free. Errors: the meshdata's own (AM_ERR_INVALID or AM_ERR_IO,
 * naming the file); AM_ERR_USAGE for a missing or bad base URL; AM_ERR_NETWORK when the bridge
 * cannot be reached or times out; AM_ERR_INVALID when it refuses a command or replies
 * malformed (the HTTP status and its words quoted); the failed step named in done->step;
 * AM_ERR_NOMEM when the step's text cannot be kept. */
AM_API am_status am_world_push(const am_worldbridge_options *opt, am_world_push_request *request, am_world_push_done *done,
                        am_error *err);

#ifdef __cplusplus
}
#endif

#endif
