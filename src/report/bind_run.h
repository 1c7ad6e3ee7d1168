/* The whole `animesh bind` run as one library call: read the mesh (any model file
 * am_scene_load reads), take the skeleton (a skeleton/rig JSON, the joints of another
 * model, or a fit), bind (bind.h), and write into one output set (core/outset.h): every
 * file renamed into the output folder only when all of them are written:
 *   NAME.rig.json            the rig, ready for `animesh skin`
 *   NAME.bind.json           islands and their routes, topology, warnings, timings
 *   NAME.report.json/.txt    the quality report (src/report/quality.h) of the skin built from
 *                            the rig and read back by the bench (the .txt starts with the
 *                            bind summary)
 *   NAME_poses.png, NAME_closeup_N_JOINT.png   its pictures
 *   NAME_placement.png       with a fit: the joints found, front and side, for checking
 *   NAME.llmesh, NAME.dae, NAME.meshdata.json  with `skin` (am_skin_export; the report is
 *                            then measured on the written .llmesh). A mesh of more than one
 *                            face gets no meshdata (WorldBridge takes one face): a warning.
 * The library never prints: `progress` (optional) receives one line per step. */
#ifndef AM_REPORT_BIND_RUN_H
#define AM_REPORT_BIND_RUN_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "bind/bind.h"
#include "bind/bind_io.h"
#include "bind/fit.h"
#include "core/am_string.h"
#include "core/progress.h"
#include "core/error.h"
#include "report/quality.h"
#include "skeleton/skeleton.h"
#include "skin/skin_build.h"

typedef enum am_skeleton_source { AM_SKELETON_RIG = 0, AM_SKELETON_LIKE, AM_SKELETON_FIT } am_skeleton_source;

typedef struct am_bind_job {
    const char *mesh_path;
    am_skeleton_source skeleton_from;
    const char *skeleton_path;   /* RIG: skeleton or rig JSON; LIKE: a rigged model */
    am_fit_kind fit;             /* FIT */
    am_bind_options bind;
    am_bind_frame frame;         /* axes and unit of the mesh (and of a LIKE model) */
    const char *out_dir;
    bool skin;
    bool preview;                /* with skin: NAME.preview.html too (preview.h) */
    const am_quality_pose *poses;/* NULL = the standard poses of its body plan (poses_by_plan.h) */
    size_t pose_count;
    am_render_joints joints;     /* what the report's pose sheet draws (0: auto) */
    am_progress_fn progress;
    void *user;
    /* When am_bind_run is given no viewer skeleton: the viewer's avatar_skeleton.xml, loaded
     * on a thread of its own while the mesh is read (its errors come first, as if loaded
     * before). */
    const char *viewer_path;
} am_bind_job;

/* The command's phases, each timed in wall and process CPU seconds (0 when not run) and
 * written into NAME.bind.json's "seconds" as "command" and "command_cpu" (the renaming of
 * the output set into place, after that file is written, is not in them). */
typedef enum am_bind_phase {
    AM_BIND_PHASE_READ = 0,  /* the mesh file into a bind source */
    AM_BIND_PHASE_SKELETON,  /* the joints: loaded, from a model, or fitted */
    AM_BIND_PHASE_BIND,      /* am_bind and the rig */
    AM_BIND_PHASE_RIG_JSON,  /* NAME.rig.json */
    AM_BIND_PHASE_SKIN,      /* skin: the asset, .dae and meshdata written */
    AM_BIND_PHASE_MEASURE,   /* the bench: the written asset read, or the skin built in memory */
    AM_BIND_PHASE_POSES,     /* the quality report's figures (am_quality_run) */
    AM_BIND_PHASE_PICTURES,  /* the report files (am_report_write) and the placement sheet */
    AM_BIND_PHASE_COUNT
} am_bind_phase;

/* The phase's key in the JSON ("read", "skeleton", "bind", "rig_json", "skin", "measuring",
 * "poses", "pictures"). */
const char *am_bind_phase_name(am_bind_phase p);

/* What a run made; every string and list is owned by the result and freed by
 * am_bind_run_free (a zeroed result holds none). */
typedef struct am_bind_run_result {
    am_string name;              /* the rig's name, from the mesh file's */
    am_string conversion;        /* the mesh's axes and unit, as read */
    am_string skeleton_note;     /* where the joints came from (fit summary, skipped joints) */
    am_bind_result bind;
    am_quality_report quality;
    am_string *files;            /* file_count names written into out_dir, in announced order */
    size_t file_count, file_cap;
    am_string *warnings;         /* warning_count sentences, every one kept */
    size_t warning_count, warning_cap;
    double phase_wall_s[AM_BIND_PHASE_COUNT];
    double phase_cpu_s[AM_BIND_PHASE_COUNT];
} am_bind_run_result;

/* On failure `out` holds nothing (it is freed). */
am_status am_bind_run(const am_bind_job *job, const am_skeleton *viewer, am_bind_run_result *out, am_error *err);
/* Frees the bind, the quality report and every string and list; the result is zeroed. */
void am_bind_run_free(am_bind_run_result *r);

#ifdef __cplusplus
}
#endif

#endif
