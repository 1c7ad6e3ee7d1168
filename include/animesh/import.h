/* animesh/import.h: a model file in, the creature's files out (docs/import.md).
 *
 * One call does what `animesh import` does: am_import_file loads the model (COLLADA,
 * glTF/GLB, FBX and the other formats assimp reads, BVH), decides the route, converts every
 * motion of opts.anim_paths, builds and writes every part, benches what it wrote, and fills
 * an am_import_report:
 *   - a COLLADA file rigged to the viewer skeleton takes the FAITHFUL route: exactly the skin
 *     the viewer's uploader would make of it;
 *   - anything else with a skin is RETARGETED: body plan, axes, joint map, a rig per skinned
 *     mesh and a motion per clip on the viewer skeleton (animesh/retarget.h).
 *
 * Files written into out_dir (created), named from opts.name or the model's stem: NAME.llmesh
 * (or NAME_PART.llmesh per part), NAME.dae, NAME.meshdata.json, NAME.rig.json, textures as .j2c,
 * one .anim per motion, NAME.import.txt, NAME.outset; with opts.bench the pose sheets, with
 * opts.preview NAME.preview.html, with opts.oar_path the OpenSim archive. Every output of a
 * run is staged and renamed into place only when all are complete: a failure leaves the
 * previous run's files as they were and nothing half-written (report.written lists what
 * this run wrote, report.removed the previous run's files it replaced).
 *
 * Options: a zeroed am_import_options is the defaults (am_import_options_init writes them
 * out). Ownership: the report owns every string and array in it; free it with
 * am_import_report_free, after success or failure (it is filled as far as the run got).
 *
 * Errors (am_status, with the file in err->where): AM_ERR_INVALID for what the viewer would
 * refuse ("Model has an unknown joint(s): ...", "Skinning disabled due to too many joints:
 * 130, maximum: 110", "not rigged") and for a motion whose body plan is not the creature's
 * (unless opts.allow_body_mismatch); AM_ERR_IO for a file that cannot be read or written;
 * AM_ERR_USAGE for an option out of range; AM_ERR_NOMEM. What the viewer will do with a file
 * it takes is a finding in report.findings (a stable code and a sentence), never an error.
 */
#ifndef AM_ANIMESH_IMPORT_H
#define AM_ANIMESH_IMPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/skeleton.h"
#include "animesh/scene.h"
#include "animesh/jointmap.h"
#include "animesh/retarget.h"
#include "animesh/skin.h"
#include "animesh/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum am_import_route {
    AM_IMPORT_FAITHFUL = 0, /* rigged to the viewer skeleton: the uploader's skin */
    AM_IMPORT_RETARGET = 1  /* another skeleton: joint mapping + retargeted clips */
} am_import_route;

AM_API const char *am_import_route_name(am_import_route route);

/* Zeroed, the defaults (core/option.h): every flag off, the skin and retarget options
 * zeroed (their own defaults), the object at 128, 128, 25. */
typedef struct am_import_options {
    const char *name;            /* output stem; NULL: the model file's name, sanitised */
    bool merge;                  /* one asset from every skinned mesh (<= 8 faces, <= 110 joints) */
    bool normalize_binds;        /* pure-translation inverse binds, mesh kept where it is */
    bool bench;                  /* bench every part with every motion, pose sheets */
    am_render_joints joints;     /* --joints: what a part's pose sheet draws (default
                                    AM_RENDER_JOINTS_AUTO, 0) */
    bool preview;                /* --preview: NAME.preview.html (import_preview.h) */
    bool meshdata_required;      /* --meshdata: a multi-face part is an error, not a warning */
    bool faithful_only;          /* --faithful: a file the faithful route cannot take is refused
                                    (as the uploader refuses it) instead of retargeted */
    am_retarget_options retarget; /* the retarget route: axes, --map, clips, placement, loop,
                                     priority, rest corrections (name: the plan's); zeroed: its
                                     defaults */
    const char *const *anim_paths; /* --anim: .anim, .bvh, or FILE[:CLIP] of a model or
                                      motion-only file (motion_file.h) */
    size_t anim_count;
    bool allow_body_mismatch;    /* --allow-body-mismatch: retarget a motion whose body plan is
                                    not the creature's (else refused: body_plan.h) */
    bool bvh_align_rest;         /* --align-rest: a .bvh's bones turned onto its own zero-pose
                                    directions (am_bvh_options.align_rest) */
    const char *oar_path;        /* --oar: also write the creature's archive */
    const char *play;            /* --play CLIP: the motion the archive's starter script plays
                                    on rez (a motion's name or its clip's); NULL: the first */
    am_skin_options skin;        /* region limit, LOD settings (face vertex limit is set by
                                    the faithful route to the uploader's own cut) */
    double oar_position[3];      /* region position of the object; each 0: its default of
                                    128, 128, 25; AM_OPTION_ZERO: 0 */
    int64_t creation_time;       /* OAR times (SOURCE_DATE_EPOCH in the CLI); default 0, 1970 */
    /* Optional progress: called with one line per step (the library never prints). */
    am_progress_fn progress;
    void *progress_user;
    /* Where the FBX (assimp) reader runs, for the model and every motion file (scene.h);
     * zero: in a child process under limits, as the CLI reads them. AM_SCENE_READER_IN_PROCESS
     * for a program that must not fork and reads only files it trusts. */
    am_scene_reader_process reader_process;
} am_import_options;

/* The defaults, written out (the same meaning as a zeroed struct). */
AM_API void am_import_options_init(am_import_options *opts);

typedef struct am_import_finding {
    am_string code;              /* stable: "polylist_count", "flattened_hierarchy", ... */
    am_string text;
} am_import_finding;

typedef struct am_import_motion {
    am_string name;              /* inventory / file name */
    am_string source;            /* where it came from */
    uint8_t *anim;               /* encoded .anim, verified */
    size_t anim_size;
    double duration_s;
    bool loop;
    /* A motion retargeted from a model or motion-only file (import --anim FILE[:CLIP]): */
    bool retargeted;
    am_string clip;              /* the clip as the file names it */
    size_t joints_mapped, joints_unmapped;
    size_t keys_before, keys_after;
    double worst_direction_deg;  /* largest bone-direction difference to the source */
    char body_plan[16];          /* the motion's skeleton's plan: am_body_plan_label ("quadruped"),
                                    "" when not read */
} am_import_motion;

typedef struct am_import_map_entry {
    am_string rig;               /* the rig joint (node name, or #N) */
    am_string viewer;            /* the viewer joint it drives, "" when unmapped */
    double confidence;           /* 0..1 */
    am_string reason;
    bool fallback;               /* placed by the map's fallback (a guess: map_suggest.h) */
} am_import_map_entry;

typedef struct am_import_joint {
    am_string name;
    bool weighted;               /* carries a weight the viewer keeps */
    bool found;                  /* the uploader found its node and a translation */
    am_vec3 position;            /* written override: local position under its viewer parent */
    am_vec3 default_pos;
    double moved_m;              /* |position - default|: the viewer moves it when > 0.1 mm */
    double world_moved_m;        /* how far the viewer draws it at rest from its default */
    double bind_offset_m;        /* where its inverse bind says it is vs where the viewer puts it */
    am_vec3 bind_scale;          /* the scale of its inverse bind's inverse (its bind-pose matrix) */
    double bind_scale_dev;       /* largest |scale - viewer scale| of that, per axis */
    double bind_rot_deg;         /* its inverse bind's rotation against the viewer's */
} am_import_joint;

typedef struct am_import_anim_result {
    am_string name;
    double duration_s;
    size_t samples;              /* times measured (evenly over the motion, both ends) */
    am_vec3 min_prim, max_prim;  /* bounding box over every sample, prim frame */
    am_vec3 min_bind, max_bind;  /* the same in the bind frame */
    double max_displacement_m;   /* from the rest pose, worst sample */
    double strain_p1, strain_p99;/* worst sample (lowest p1, highest p99) */
    double strain_share;         /* worst share of edges outside 0.5..1.6 */
    double tear_m;               /* worst sample: an edge's growth beyond twice its rest-pose
                                    length (am_bench_strain.tear_m), metres */
    double tear_ratio;           /* that edge's posed / rest-pose length */
    double spike_m;              /* worst sample: a vertex torn from every neighbour
                                    (am_bench_strain.spike_m), metres */
    double creature_m;           /* the creature's rest box diagonal, every part together */
    bool exploded;               /* am_bench_tears on the worst sample: a vertex leaves its
                                    neighbours (riding its joints never does) */
    bool strained;               /* strain share above the 0.2 % flag
                                    (docs/reference/quality-figures.md) */
} am_import_anim_result;

typedef struct am_import_part_report {
    am_string name;
    am_string meshes;
    size_t positions, vertices, faces, triangles;
    size_t joint_count, weighted_joints, moved_joints;
    am_import_joint *joints;     /* joint_count, skin order */
    size_t borrowed_weights, unweighted_vertices;
    double rest_error_m;         /* the bench on the written asset (bind frame) */
    double rest_error_before_m;  /* --normalize-binds: with the file's inverse binds; else -1 */
    bool pelvis_override;        /* mPelvis moved: position keys of any motion replace it */
    am_vec3 pelvis_position;
    size_t scaled_binds;         /* joints whose inverse bind carries scale or rotation */
    am_skin_summary *skin;       /* cost, LODs, weights, files, warnings (owned) */
    am_import_anim_result *anims;/* one per motion when benched */
    size_t anim_count;
    am_string pose_sheet;        /* written PNG, "" when none */
} am_import_part_report;

typedef struct am_import_report {
    am_import_route route;
    am_string name;
    am_string source;
    am_string format;
    am_scene_declared declared;
    am_import_part_report *parts;
    size_t part_count;
    am_import_finding *findings; /* copied from the plan, then the run's own */
    size_t finding_count, finding_cap;
    am_string *written;          /* every file written, in order */
    size_t written_count, written_cap;
    am_string *removed;          /* the previous run's files (its NAME.outset) not written again, removed */
    size_t removed_count, removed_cap;
    am_string *left;             /* files its NAME.outset (or a journal) named that animesh never wrote
                                  * or that changed since: left, "left DIR/NAME: why" */
    size_t left_count, left_cap;
    am_string *motions;          /* motion names, in plan order (motion_count, every one) */
    am_string plays;             /* with --oar: the motion that plays on rez ("" none) */
    am_import_motion *motion_info; /* the same motions' figures (motion_count; anim NULL: no bytes) */
    size_t motion_count;
    am_import_map_entry *map;    /* copied from a retargeted plan */
    size_t map_count;
    am_string axes;
    am_body_plan body_plan;      /* copied from the plan (am_body_plan_copy; owned) */
    am_string pose_sheet;        /* every part together (several parts, --bench), "" when none */
} am_import_report;

AM_API void am_import_report_free(am_import_report *r);

/* The report as JSON (docs/import.md: the report). */
AM_API am_status am_import_report_json(const am_import_report *r, am_buf *out, am_error *err);

/* The whole command: load (with the skeleton, so COLLADA joint positions follow the
 * uploader's legal-joint map), plan, motions, run. */
AM_API am_status am_import_file(const char *model_path, const am_skeleton *skel, const am_import_options *opts,
                         const char *out_dir, am_import_report *report, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
