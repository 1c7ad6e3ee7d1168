/* OpenSim archives (OAR) that carry one animesh object (docs/reference/opensim-oar.md).
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
 * llStartObjectAnimation on state_entry and on_rez. */
#ifndef AM_WORLD_OAR_H
#define AM_WORLD_OAR_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"
#include "world/digest.h"

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

/* UUIDs chosen for an input (filled by am_oar_plan, reported by the CLI). */
typedef struct am_oar_plan {
    am_uuid archive_id, part, mesh, texture, script;
    am_uuid *anim_assets; /* per input anim */
    am_uuid *anim_items;  /* per input anim */
    am_uuid script_item;
    int has_texture, has_script;
    am_uuid *child_part, *child_mesh, *child_texture; /* per child */
    int *child_has_texture;
    am_uuid face_texture[AM_OAR_MAX_FACES]; /* per input face texture (face_has_texture) */
    int face_has_texture[AM_OAR_MAX_FACES];
} am_oar_plan;

/* An object or animation name as OpenSim stores it: 1..63 bytes, no control character and
 * no '|' (the inventory's separator). `what` ("object", "animation") starts the message. */
am_status am_oar_check_name(const char *what, const char *name, am_error *err);

/* A UUID salt: 1..AM_OAR_MAX_SALT characters from A-Z a-z 0-9 . _ - */
#define AM_OAR_MAX_SALT 64
am_status am_oar_check_salt(const char *salt, am_error *err);

/* Check the input (names, play, finite position, texture magic, salt) and derive every UUID. */
am_status am_oar_plan_make(const am_oar_input *in, am_oar_plan *plan, am_error *err);
void am_oar_plan_free(am_oar_plan *plan);

/* The gzip-compressed tar into out. AM_ERR_IO naming libarchive when it cannot be loaded. */
am_status am_oar_write(const am_oar_input *in, am_buf *out, am_error *err);
/* The same, written atomically to path. */
am_status am_oar_write_file(const am_oar_input *in, const char *path, am_error *err);

/* Pieces, exposed for tests and other writers. */

/* The shape's ExtraParams blob (docs/reference/opensim-oar.md,
 * docs/reference/mesh-asset.md#the-animesh-flag): count 2, sculpt entry (type 0x30, size 17: mesh
 * UUID then 5), mesh-flags entry (type 0x70, size 4: LE u32 1). Always 34 bytes. */
#define AM_OAR_EXTRA_PARAMS_SIZE 34
void am_oar_extra_params(const am_uuid *mesh, uint8_t out[AM_OAR_EXTRA_PARAMS_SIZE]);
/* A child prim's: count 1, the sculpt entry only (no animesh flag). Always 24 bytes. */
#define AM_OAR_CHILD_EXTRA_PARAMS_SIZE 24
void am_oar_extra_params_child(const am_uuid *mesh, uint8_t out[AM_OAR_CHILD_EXTRA_PARAMS_SIZE]);

/* A TextureEntry whose default face carries `texture` (or the default plywood texture
 * 89556747-24cb-43ed-920b-47caed15465f when NULL), white, repeats 1, no offset/rotation,
 * no exceptions. Always 63 bytes. */
#define AM_OAR_TEXTURE_ENTRY_SIZE 63
void am_oar_texture_entry(const am_uuid *texture, const double *rgb, uint8_t out[AM_OAR_TEXTURE_ENTRY_SIZE]);
/* The same with face exceptions in the texture section: each face f < n whose faces[f] is
 * not NULL and not `texture` wears faces[f] (faces sharing a texture in one exception; the
 * face bitfield as the viewer reads it, 7 bits a byte, high bit = more). out holds at least
 * AM_OAR_TEXTURE_ENTRY_MAX bytes; returns the size written. */
#define AM_OAR_TEXTURE_ENTRY_MAX (AM_OAR_TEXTURE_ENTRY_SIZE + AM_OAR_MAX_FACES * 18)
size_t am_oar_texture_entry_faces(const am_uuid *texture, const double *rgb, const am_uuid *const *faces, size_t n,
                                  uint8_t *out);

/* The LSL starter script for anim_name (malloc'd). */
am_status am_oar_lsl_script(const char *anim_name, char **out, am_error *err);

/* The object XML (SceneObjectGroup) and archive.xml text, appended to out. */
am_status am_oar_object_xml(const am_oar_input *in, const am_oar_plan *plan, am_buf *out, am_error *err);
am_status am_oar_archive_xml(const am_oar_input *in, const am_oar_plan *plan, am_buf *out, am_error *err);
/* Every path in the archive is at most this long: OpenSim's tar reader reads only the
 * 100-byte ustar name field (no prefix, no pax), NUL-trimmed. */
#define AM_OAR_MAX_PATH 99

/* "objects/<Name>_<x>-<y>-<z>__<uuid>.xml" into out (the name cut to keep the path within
 * AM_OAR_MAX_PATH, characters other than A-Z a-z 0-9 - . replaced by '_'). */
void am_oar_object_path(const am_oar_input *in, const am_oar_plan *plan, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
