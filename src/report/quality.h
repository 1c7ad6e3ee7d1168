/* The rigger's quality report (docs/reference/quality-figures.md, all of it) on a bench: the weight report and
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
 *   kind: shoulder | elbow | knee | hip | twist | none (band thresholds). */
#ifndef AM_REPORT_QUALITY_H
#define AM_REPORT_QUALITY_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "core/am_string.h"
#include "core/error.h"
#include "core/io.h"
#include "bench/render.h"

typedef enum am_flag { AM_FLAG_PASS = 0, AM_FLAG_MINOR, AM_FLAG_MAJOR, AM_FLAG_BLOCKER, AM_FLAG_NA } am_flag;
const char *am_flag_name(am_flag f);

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
const am_quality_pose *am_quality_standard_poses(size_t *count);
/* A poses file (see above); *out malloc'd, freed with am_quality_poses_free. At most 1 MiB
 * (64 poses of AM_POSE_MAX_JOINTS joints are tens of KB), its JSON tree within a 16 MiB
 * memory budget (core/json_text.h). */
#define AM_QUALITY_POSES_MAX_FILE_BYTES ((size_t)1 << 20)
#define AM_QUALITY_POSES_TREE_BUDGET ((size_t)16 << 20)
am_status am_quality_poses_load(const char *path, am_quality_pose **out, size_t *count, am_error *err);
/* A copy of `src` whose strings `dst` owns (dst's old strings are not freed); on failure
 * (out of memory) dst holds no strings. */
am_status am_quality_pose_copy(am_quality_pose *dst, const am_quality_pose *src, am_error *err);
/* Free the strings of each pose, then the array (NULL is fine). */
void am_quality_poses_free(am_quality_pose *poses, size_t count);

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

/* Record the rig bones no island of the mesh holds (`held[j]` false), as `animesh bind`
 * knows them: a bone outside the mesh gets no weight and means the rig is not where the
 * mesh is (wrong units, another model's skeleton), so every one is a blocker. Fails only
 * when out of memory. */
am_status am_quality_bones_outside(am_quality_report *report, const char *const *names, const bool *held,
                                   size_t count, am_error *err);

/* Run every measurement. poses NULL = the standard library. */
am_status am_quality_run(const am_bench *b, const am_quality_pose *poses, size_t pose_count, am_quality_report *out,
                         am_error *err);
/* The same with the poses measured by `threads` threads at once (0: one per core online;
 * each pose is measured whole by one thread, so the report does not depend on the count). */
am_status am_quality_run_threads(const am_bench *b, const am_quality_pose *poses, size_t pose_count, int threads,
                                 am_quality_report *out, am_error *err);
/* Free every string, list and array of the report; it is zeroed afterwards. */
void am_quality_free(am_quality_report *r);

/* The local channels of a pose on this bench (n written; out holds skel->joint_count). */
am_status am_quality_pose_locals(const am_bench *b, const am_quality_pose *pose, am_bench_local *out, size_t *n,
                                 am_error *err);

/* JSON (everything) and a text summary (one line per figure, flagged). */
am_status am_quality_json(const am_quality_report *r, am_buf *out, am_error *err);
am_status am_quality_text(const am_quality_report *r, am_buf *out, am_error *err);

/* Pictures: the pose sheet (every measured pose, front and side, each labelled with its
 * worst flag) and the close-up of the rank-th worst joint (0 = worst; band joints ordered
 * by flag, then by their worst band), front and side, coloured by strain (*found false
 * when there are not that many band joints; `joint`, optional, gets its name: the caller
 * frees it with am_string_free). The caller frees the
 * image (am_image_free) and writes it where it wants. */
am_status am_quality_render_sheet(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                  size_t pose_count, am_image *out, am_error *err);
am_status am_quality_render_closeup(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                    size_t pose_count, size_t rank, am_image *out, bool *found, am_string *joint,
                                    am_error *err);
/* Both on `threads` threads (0: every core, as above). */
am_status am_quality_render_sheet_threads(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                          size_t pose_count, int threads, am_image *out, am_error *err);
am_status am_quality_render_closeup_threads(const am_bench *b, const am_quality_report *r,
                                            const am_quality_pose *poses, size_t pose_count, size_t rank,
                                            int threads, am_image *out, bool *found, am_string *joint,
                                            am_error *err);

#ifdef __cplusplus
}
#endif

#endif
