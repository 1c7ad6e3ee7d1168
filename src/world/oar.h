/* src/world/oar.h: the private side of include/animesh/world.h, where its manual is. */
#ifndef AM_WORLD_OAR_H
#define AM_WORLD_OAR_H

#include "animesh/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"
#include "world/digest.h"

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

/* Check the input (names, play, finite position, texture magic, salt) and derive every UUID. */
am_status am_oar_plan_make(const am_oar_input *in, am_oar_plan *plan, am_error *err);
void am_oar_plan_free(am_oar_plan *plan);

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
