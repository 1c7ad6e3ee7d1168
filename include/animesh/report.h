/* animesh/report.h: the quality report: standard poses on the bench, findings a grid can act on, pose sheets, the preview page.
 *
 * The public calls: am_report_load (any model or mesh asset import takes, onto a bench),
 * am_quality_run over the body plan's standard poses (am_quality_standard_poses) or poses
 * from a file, am_quality_json / am_quality_text, am_quality_free; am_report_bind_run, the
 * whole `animesh bind` run (bind, skin, report, pictures into one output set;
 * am_report_bind_run_free); am_preview_write_files (the preview page). The report owns its
 * strings and lists.
 * The figures:
 *
 * The rigger's quality report (docs/reference/quality-figures.md, all of it) on a bench: the weight report and
 * the deformation report over test poses, every figure flagged blocker / major / minor
 * against docs/reference/quality-figures.md's thresholds. It measures through the bench (bench.h: the WRITTEN
 * asset, the viewer's FK and skinning) and reuses the bench's own figures (weights,
 * strain, cross-side leak, rigidity); what it adds is written here once.
 *
 * WEIGHTS
 *   unweighted         bench: total decoded weight < 1e-4             > 0: blocker
 *   empty_major        a major bone (>= 5% of height, not eye/teeth/tongue) held by the
 *                      mesh (inside an island, as am_bind decides it) with no weight at all,
 *                      its flesh (the vertices nearest to it) weighted mainly to joints that
 *                      are not its descendants: the signature of a silent auto-weight failure
 *                      (a head weighted to its face bones, or a bone along a weighted twin
 *                      such as the viewer's mSpine3/4 along mChest/mTorso, is not)  any: blocker
 *   sum_dev            bench: |sum - 1| > 0.01                        > 0: major
 *   max_influences     bench (an asset holds at most 4)                > 4: major
 *   cross-side weight  bench: largest Left-bone weight on a vertex > 1% of H right of
 *                      the midline (and vice versa)                     > 0.01: minor
 *                      (the judged figure is the leak on one-sided poses, below)
 *   mirror_err         worst |w(j) - w'(mirror j)| over vertex pairs mirrored in y within
 *                      0.2% of H; applies when >= 90% of the off-midline vertices have a
 *                      partner (a symmetric mesh)                         >= 0.05: minor
 *   rigid parts        each island holding no bone (eye, tooth, hard piece) must be one
 *                      bone at 1.0 on every vertex                        not: major
 * POSES (each only when the skin has weight on every joint it moves)
 *   strain             bench: p1, p99, share of edges outside 0.5..1.6    > 0.2%: minor,
 *                      > 1%: major (docs/reference/quality-figures.md only says "flag above 0.2%")
 *   cross-side leak    bench, one-sided poses: displacement of the other side, in H
 *                                                                       >= 0.001 H: major
 *   joint band volume  around the pose's joint J (parent P, child C in the skin): the
 *                      flesh (vertices whose main joint is P, J or C) within half a segment
 *                      each way of J (s in -0.5..0.5: P->J then J->C) and 1.8 local radii
 *                      of the axis (radius: median distance of the flesh with |s| <= 0.25),
 *                      in 8 bands of s; per band the mean squared distance to the axis,
 *                      posed / rest; worst and best band reported. Flags: below the
 *                      collapse line (shoulder/hip 0.6, elbow/knee 0.85, twist 0.9): minor
 *                      (linear blend skinning itself gets there: docs/reference/quality-figures.md measured 0.47,
 *                      0.68, 0.73 on a clean mesh); below 0.9 x that LBS figure: major
 *                      (worse than LBS on a clean mesh: the weights are at fault).
 *   rigidity           bench: largest change of pairwise distance inside each rigid part
 *                                                                       > 0.001 H: major
 * Self-intersections are not measured (docs/reference/quality-figures.md: "when affordable").
 *
 * STANDARD POSES (docs/reference/quality-figures.md's list; a left-side pose moves the Left joints only, so it
 * also measures the cross-side leak): arm down, arm up (collar 25 deg), elbow 120, knee
 * 120, wrist twist 80, leg forward, leg side, squat, spine bend, spine twist, head turn,
 * head nod; for creatures: tail swing and hind knee. Angles are about bind-frame axes at
 * rest (X forward, Y left, Z up), applied in each joint's rest frame.
 * POSES FILE: {"poses": [{"name": "...", "band": "mElbowLeft", "kind": "elbow",
 *   "joints": [{"name": "mElbowLeft", "axis": [0, 0, 1], "deg": -120}, ...]}]}
 *   kind: shoulder | elbow | knee | hip | twist | none (band thresholds).
 */
#ifndef AM_ANIMESH_REPORT_H
#define AM_ANIMESH_REPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/skeleton.h"
#include "animesh/bench.h"
#include "animesh/bind.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum am_flag { AM_FLAG_PASS = 0, AM_FLAG_MINOR, AM_FLAG_MAJOR, AM_FLAG_BLOCKER, AM_FLAG_NA } am_flag;

AM_API const char *am_flag_name(am_flag f);

#define AM_POSE_MAX_JOINTS 8

typedef enum am_band_kind { AM_BAND_NONE = 0, AM_BAND_SHOULDER, AM_BAND_ELBOW, AM_BAND_KNEE, AM_BAND_HIP, AM_BAND_TWIST } am_band_kind;

/* A pose: its texts are owned strings (core/am_string.h), kept whole however long. */
typedef struct am_quality_pose {
    am_string name;
    am_string band_joint;    /* unset or "" = no band measured */
    am_band_kind kind;
    size_t joint_count;
    struct {
        am_string name;
        am_vec3 axis;        /* bind frame */
        double deg;
    } joints[AM_POSE_MAX_JOINTS];
} am_quality_pose;

/* The standard library (static, owned by the module: never pass it to
 * am_quality_poses_free). */
AM_API const am_quality_pose *am_quality_standard_poses(size_t *count);

AM_API am_status am_quality_poses_load(const char *path, am_quality_pose **out, size_t *count, am_error *err);

/* Free the strings of each pose, then the array (NULL is fine). */
AM_API void am_quality_poses_free(am_quality_pose *poses, size_t count);

typedef struct am_quality_band {
    bool measured;
    am_string joint, parent, child;
    am_band_kind kind;
    size_t vertices;
    double radius_m;
    double worst, best;      /* posed / rest mean squared distance to the axis */
    double worst_s, best_s;  /* band centres along s */
    double collapse_line, lbs_reference; /* thresholds used (lbs 0 when docs/reference/quality-figures.md has none) */
    am_flag flag;
} am_quality_band;

typedef struct am_quality_pose_result {
    am_string name;
    bool measured;
    am_string skipped;       /* why not, when not measured */
    am_bench_side side;
    am_bench_strain strain;
    am_flag strain_flag;
    am_bench_leak leak;
    am_flag leak_flag;
    am_quality_band band;
    double rigidity_m;       /* worst over the rigid parts */
    am_flag rigidity_flag;
    am_flag worst;
} am_quality_pose_result;

typedef struct am_quality_island {
    size_t vertices;
    bool has_faces;
    size_t bones_held;
    bool rigid_part;         /* holds no bone */
    bool one_bone;           /* every vertex: one joint at >= 0.999, the same for all */
    am_string bone;          /* that joint (or the main one) */
    am_flag flag;
} am_quality_island;

/* Every text is an owned string (core/am_string.h) and every list grows as needed (no
 * cap): am_quality_free releases them. A zeroed report is empty and valid. */
typedef struct am_quality_report {
    am_string source;
    double height_m;
    am_bench_weights weights;
    am_flag unweighted_flag, sum_dev_flag, influences_flag, cross_side_flag;
    am_string *empty_major;  /* empty_major_count joint names */
    size_t empty_major_count, empty_major_cap;
    am_flag empty_major_flag;
    /* Bones of the rig that lie outside the mesh (no island holds them), when the caller
     * knows the rig it bound (am_quality_bones_outside): each outside bone is a blocker. */
    am_string *outside;      /* outside_count joint names */
    size_t outside_count, outside_cap;
    am_flag outside_flag;    /* AM_FLAG_NA when the caller did not say */
    bool mirror_applies;
    size_t mirror_pairs;
    double mirror_err;
    am_string mirror_joint;
    am_flag mirror_flag;
    am_quality_island *islands;
    size_t island_count;
    size_t rigid_parts;
    am_flag rigid_flag;
    am_quality_pose_result *poses;
    size_t pose_count;
    size_t blockers, majors, minors;
    am_flag worst;
    am_render_joints joints;   /* what its pictures draw over the mesh (am_quality_run leaves
                                  AUTO: dots up to 25 weighted joints; `--joints` sets it) */
} am_quality_report;

/* Run every measurement. poses NULL = the standard library. */
AM_API am_status am_quality_run(const am_bench *b, const am_quality_pose *poses, size_t pose_count, am_quality_report *out,
                         am_error *err);

/* Free every string, list and array of the report; it is zeroed afterwards. */
AM_API void am_quality_free(am_quality_report *r);

/* JSON (everything) and a text summary (one line per figure, flagged). */
AM_API am_status am_quality_json(const am_quality_report *r, am_buf *out, am_error *err);

AM_API am_status am_quality_text(const am_quality_report *r, am_buf *out, am_error *err);

/* What am_report_load read; `what` is an owned string (core/am_string.h), released by
 * am_report_input_free. */
typedef struct am_report_input {
    am_string what;          /* "mesh asset", "rig JSON (skin built in memory)", ... */
    size_t dropped_weights;  /* rig JSON: influences on joints the viewer does not know (0) */
    int route;               /* model files: the import route taken (am_import_route) */
    size_t parts;            /* model files: the parts import would write (judged as one) */
} am_report_input;

AM_API void am_report_input_free(am_report_input *info);

/* On failure *info holds nothing to free (am_report_input_free is still safe). */
AM_API am_status am_report_load(const char *path, const am_skeleton *skel, const am_bind_frame *frame, am_bench *out,
                         am_report_input *info, am_error *err);

typedef enum am_fit_kind { AM_FIT_HUMANOID = 0, AM_FIT_QUADRUPED = 1 } am_fit_kind;

typedef enum am_report_skeleton_source { AM_SKELETON_RIG = 0, AM_SKELETON_LIKE, AM_SKELETON_FIT } am_report_skeleton_source;

typedef struct am_report_bind_job {
    const char *mesh_path;
    am_report_skeleton_source skeleton_from;
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
    /* When am_report_bind_run is given no viewer skeleton: the viewer's avatar_skeleton.xml, loaded
     * on a thread of its own while the mesh is read (its errors come first, as if loaded
     * before). */
    const char *viewer_path;
} am_report_bind_job;

/* The command's phases, each timed in wall and process CPU seconds (0 when not run) and
 * written into NAME.bind.json's "seconds" as "command" and "command_cpu" (the renaming of
 * the output set into place, after that file is written, is not in them). */
typedef enum am_report_bind_phase {
    AM_BIND_PHASE_READ = 0,  /* the mesh file into a bind source */
    AM_BIND_PHASE_SKELETON,  /* the joints: loaded, from a model, or fitted */
    AM_BIND_PHASE_BIND,      /* am_bind and the rig */
    AM_BIND_PHASE_RIG_JSON,  /* NAME.rig.json */
    AM_BIND_PHASE_SKIN,      /* skin: the asset, .dae and meshdata written */
    AM_BIND_PHASE_MEASURE,   /* the bench: the written asset read, or the skin built in memory */
    AM_BIND_PHASE_POSES,     /* the quality report's figures (am_quality_run) */
    AM_BIND_PHASE_PICTURES,  /* the report files (am_report_write) and the placement sheet */
    AM_BIND_PHASE_COUNT
} am_report_bind_phase;

/* The phase's key in the JSON ("read", "skeleton", "bind", "rig_json", "skin", "measuring",
 * "poses", "pictures"). */
AM_API const char *am_report_bind_phase_name(am_report_bind_phase p);

/* What a run made; every string and list is owned by the result and freed by
 * am_report_bind_run_free (a zeroed result holds none). */
typedef struct am_report_bind_result {
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
} am_report_bind_result;

/* On failure `out` holds nothing (it is freed). */
AM_API am_status am_report_bind_run(const am_report_bind_job *job, const am_skeleton *viewer, am_report_bind_result *out, am_error *err);

/* Frees the bind, the quality report and every string and list; the result is zeroed. */
AM_API void am_report_bind_run_free(am_report_bind_result *r);

/* What the page holds, for the command's summary and the size figures. */
typedef struct am_preview_stats {
    size_t page_bytes;
    size_t data_bytes;         /* the binary before deflate */
    size_t packed_bytes;       /* after deflate (before base64) */
    size_t high_triangles;     /* over every part */
    size_t frames;             /* over every clip */
    double clip_seconds;       /* over every clip */
    size_t clips_resampled;    /* the budget's reductions (above) */
    size_t clips_left_out;
    size_t textures_resized;
} am_preview_stats;

/* The same from files: mesh_paths (each a part, named by its stem) and anim_paths (clip =
 * stem); an image beside a mesh named STEM.png, STEM.jpg, STEM_texture.png or STEM_atlas.png
 * is its texture, read only when it resolves inside the mesh's folder. base_dir (may be
 * NULL): the folder whose listing gave the paths that begin with "base_dir/"; each such
 * input is read only when it resolves inside it (readers/file_ref.h: a symbolic link out of
 * the folder, relative or absolute, is refused naming it); other paths are read as given. */
AM_API am_status am_preview_write_files(const char *title, const char *base_dir, const char *const *mesh_paths,
                                 size_t mesh_count, const char *const *anim_paths, size_t anim_count,
                                 const am_skeleton *skel, am_buf *out, am_preview_stats *stats, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
