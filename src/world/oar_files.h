/* An OpenSim archive from files (`animesh oar`): read the mesh asset, the texture and the
 * .anim files (each as its format, size-limited), check them as `push` does (a rigged mesh,
 * a decodable power-of-two .j2c, every .anim through the decoder's checks and, with a
 * skeleton, its joint names), plan, write, read the archive back whole and check it, then
 * write it in place atomically. Nothing is written unless every step passed. */
#ifndef AM_WORLD_OAR_FILES_H
#define AM_WORLD_OAR_FILES_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/am_string.h"
#include "core/error.h"
#include "skeleton/skeleton.h"
#include "world/oar.h"
#include "world/oar_check.h"

typedef struct am_oar_files {
    const char *mesh_path;          /* NAME.llmesh (a mesh asset with a skin block) */
    const char *texture_path;       /* T.j2c or NULL */
    /* anim_count inventory names (am_oar_check_name) and their .anim files, borrowed from
     * the caller for the call; no limit on the count (neither the archive nor OpenSim's
     * task inventory has one). */
    const char *const *anim_names;
    const char *const *anim_paths;
    size_t anim_count;
    const am_skeleton *skel;        /* NULL: the joint names are not checked */
    bool allow_unknown_joints;      /* a joint the skeleton lacks is counted, not refused */
} am_oar_files;

typedef struct am_oar_files_report {
    am_oar_plan plan;               /* the archive's UUIDs; free with am_oar_files_report_free */
    am_oar_check_report check;      /* what the read-back check counted */
    am_string object_path;          /* the object's entry in the archive */
    size_t *unknown_joints;         /* malloc'd, anim_count: per .anim, joints not in the
                                       skeleton (the viewer drops them in-world; only when
                                       allowed); NULL when there are no anims */
} am_oar_files_report;

/* Build the archive of `files` with the rest of `in` (position, scale, colour, object name,
 * play, salt, creation time: the caller's; its mesh, texture and anims are ignored) and write
 * it to out_path. Errors name the file (`where`). */
am_status am_oar_write_files(const am_oar_files *files, const am_oar_input *in, const char *out_path,
                             am_oar_files_report *rep, am_error *err);
/* Frees the plan, object_path and unknown_joints; the report is zeroed (a zeroed one is
 * fine to free). */
void am_oar_files_report_free(am_oar_files_report *rep);

#ifdef __cplusplus
}
#endif

#endif
