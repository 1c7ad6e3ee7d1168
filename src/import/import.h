/* src/import/import.h: the private side of include/animesh/import.h, where its manual is.
 *
 *   model file --am_scene_load_ex--> am_scene --am_import_plan_make--> am_import_plan
 *        (collada.h, ...)                         |  THE route decision (one place):
 *                                                 |   - a COLLADA file whose skin joints all
 *                                                 |     resolve to viewer names: FAITHFUL
 *                                                 |     (import_faithful.c): exactly the skin
 *                                                 |     the viewer's uploader would make;
 *                                                 |   - anything else with a skin: RETARGET
 *                                                 |     (retarget.h: body plan, axes, joint
 *                                                 |     map, computed rigs, clips -> motions;
 *                                                 |     a COLLADA file the uploader would refuse
 *                                                 |     for unknown joints says so; --faithful
 *                                                 |     refuses it as the uploader does)
 *                       am_import_add_motions --> plan.motions (--anim .anim / .bvh)
 *                                                 v
 *   am_import_run: per part am_skin_build -> encode -> .llmesh .dae meshdata rig.json,
 *                  textures -> .j2c, motions -> .anim, bench (rest error; with --bench
 *                  every motion, pose sheets), OAR (a linkset: one prim per part)
 *                  -> all outputs staged, then renamed together; the report.
 *
 * THE PLAN is what a route produces and everything after reads. A route fills:
 *  - parts: one mesh asset each (one prim of the linkset; the first is the root), with the
 *    rig the skin builder gets (explicit skin for the faithful route, computed joints for
 *    a retargeted one), its name (output file stem), texture and plan-time figures;
 *  - textures (PNG files or bytes), referenced by parts;
 *  - motions: named, already-encoded .anim bytes (converted, checked by the viewer's rules);
 *  - findings: what the viewer will do with the file, one sentence each, with a stable code;
 *  - the joint map a retargeted plan used (rig joint -> viewer joint, confidence, reason) and
 *    the axes it took.
 * A route never writes files; am_import_run is the only writer.
 */
#ifndef AM_IMPORT_H
#define AM_IMPORT_H

#include "animesh/import.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/io.h"
#include "map/body_plan.h"
#include "bench/render.h"
#include "retarget/retarget.h"
#include "scene/scene.h"
#include "math/am_math.h"
#include "skeleton/skeleton.h"
#include "skin/rig.h"
#include "skin/skin_build.h"

/* --- the plan ------------------------------------------------------------------------- */

/* Texts (am_string, core/am_string.h) are owned by the struct that holds them and freed by
 * am_import_plan_free / am_import_report_free; they are never cut. */

typedef struct am_import_part {
    am_string name;              /* output file stem */
    am_string meshes;            /* the scene meshes it holds, comma-separated */
    am_rig rig;                  /* what the skin builder gets (owned) */
    int texture;                 /* index into plan.textures, -1 none */
    int face_textures[AM_MESH_MAX_FACES]; /* --merge of retargeted parts: per face, its texture
                                    (-1 none; face_texture_count 0: `texture` for all) */
    size_t face_texture_count;
    /* Plan-time figures (a route leaves what does not apply at 0 / NULL): */
    size_t positions;            /* COLLADA positions of its meshes */
    bool *joint_found;           /* per rig joint: the uploader found its node and a
                                    translation (NULL: all found) */
    size_t weighted_joints;      /* joints with a weight the viewer keeps */
    size_t borrowed_weights;     /* vertices given another position's weights (4.5 trap) */
    size_t unweighted_vertices;  /* no weight kept: the viewer binds them to joint 0 */
    am_mat4 *file_inverse_binds; /* --normalize-binds: the file's, for the before figure */
} am_import_part;

typedef struct am_import_texture {
    am_string name;              /* output stem (NAME.j2c, and the image copied as NAME + ext) */
    char ext[8];                 /* ".png" or ".jpg" */
    char *path;                  /* a PNG file, or NULL with data */
    uint8_t *data;
    size_t size;
} am_import_texture;

/* A motion's texts and bytes freed (the motion is zeroed); am_import_plan_free does it. */
void am_import_motion_free(am_import_motion *m);
/* dst (zeroed or freed first) becomes a copy of src: its own texts, and its own .anim bytes
 * when with_anim (else anim NULL, anim_size kept as a figure). False when out of memory
 * (dst zeroed). */
bool am_import_motion_copy(am_import_motion *dst, const am_import_motion *src, bool with_anim);

typedef struct am_import_plan {
    am_import_route route;
    am_string name;
    am_string source;
    am_string format;            /* the scene's format_detail */
    am_scene_declared declared;
    am_import_part *parts;
    size_t part_count;
    am_import_texture *textures;
    size_t texture_count;
    am_import_motion *motions;
    size_t motion_count;
    am_import_finding *findings;
    size_t finding_count, finding_cap;
    /* The retarget route only (empty otherwise): */
    am_import_map_entry *map;
    size_t map_count;
    am_string axes;              /* how the file's axes and unit were taken */
    am_body_plan body_plan;      /* the creature's body plan (both routes; body_plan.h; owned) */
} am_import_plan;

/* Make the plan from a loaded scene: picks the route (see above) and lets it fill the
 * plan. Errors name the file and what the viewer would refuse ("Model has an unknown
 * joint(s): 'Bone.001', ...", "Skinning disabled due to too many joints: 130, maximum:
 * 110", "not rigged: ... see animesh bind"). On error the plan is empty. */
am_status am_import_plan_make(const am_scene *scene, const am_skeleton *skel, const am_import_options *opts,
                              am_import_plan *plan, am_error *err);
/* Convert and check every --anim file into plan.motions (.anim: decoded and checked as the
 * viewer would; .bvh whose root is a viewer name: the viewer's BVH conversion with its
 * default joint map; a .bvh made on another skeleton: retargeted as a model's motion is,
 * following bone directions (finding motion_joint_map), or with opts->bvh_align_rest the
 * viewer's conversion through the suggested map, as anim from-bvh --align-rest (a zero pose
 * that is not the viewer's rest: finding motion_rest_pose); any other file: retargeted). */
am_status am_import_add_motions(am_import_plan *plan, const am_skeleton *skel, const am_import_options *opts,
                                am_error *err);
void am_import_plan_free(am_import_plan *plan);
/* The texts of one finding / map entry freed (the plan's and report's _free do it for theirs). */
void am_import_finding_free(am_import_finding *f);
void am_import_map_entry_free(am_import_map_entry *e);

/* Record a finding (printf-style). Out of memory drops it. */
void am_import_finding_add(am_import_plan *plan, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same onto any findings array (the report's, during a run). */
void am_import_findings_push(am_import_finding **list, size_t *count, size_t *cap, const char *code, const char *fmt,
                             va_list ap);

/* For the routes: a new part (texture -1), and the plan's texture for a material (PNG or
 * JPEG, a file or embedded bytes; shared between parts; -1 with a finding when the image is
 * neither, or when the material has none). */
am_import_part *am_import_part_new(am_import_plan *plan, am_error *err);
int am_import_texture_for(am_import_plan *plan, const am_scene_material *mat, am_status *st, am_error *err);

/* The routes (import_plan.c dispatches; a route may assume the checks it was chosen by). */
am_status am_import_faithful_plan(const am_scene *scene, const am_skeleton *skel, const am_import_options *opts,
                                  am_import_plan *plan, am_error *err);
/* --merge: one rig from every part (vertices into the bind frame, identity bind shape; a
 * joint in several parts must have one inverse bind and position). by_material (retargeted
 * parts of one face each): parts wearing the same material share one face, the parts'
 * materials being the asset's faces. Refused beyond 8 faces or 110 joints. */
am_status am_import_merge_parts(am_import_plan *plan, bool by_material, am_error *err);
am_status am_import_retarget_plan(const am_scene *scene, const am_skeleton *skel, const am_import_options *opts,
                                  am_import_plan *plan, am_error *err);

/* --- the report ----------------------------------------------------------------------- */

/* Build, write and bench a plan into out_dir (created). Every output of the run is staged
 * under a temporary name and renamed into place only when all are complete: a failure
 * leaves nothing new behind. `report` is filled as far as the run got (free it always). */
am_status am_import_run(const am_import_plan *plan, const am_skeleton *skel, const am_import_options *opts,
                        const char *out_dir, am_import_report *report, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
