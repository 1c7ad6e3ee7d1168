/* The bend box (docs/reference/bendbox-test.md): the two-bone smoke test that proves skin, overrides,
 * animation and bench on the smallest rig.
 *
 * PLACEMENT (the frame decision): the box origin -- the hinge -- sits at mPelvis's rest
 * position in the bind frame (the skeleton-file frame of src/skin/rig.h), AM_BENDBOX_HINGE =
 * (0, 0, 1.067). So mHipRight and mHipLeft, placed at the hinge, are overridden to (0,0,0)
 * offsets from their viewer parent mPelvis, mPelvis itself needs no override, and at
 * runtime (mPelvis AT the prim, docs/reference/viewer-skeleton.md#the-pelvis-and-the-two-frames,
 * #animesh-placement and #the-pelvis-override-trap) the box hangs centred on the prim:
 * prim frame = bind frame - (0, 0, 1.067). Numbers "relative to the hinge" are the same in
 * both frames.
 *
 * GEOMETRY (box frame = bind frame - hinge): X -2..+2, Y -1..+1, Z -0.5..+0.5, every face a
 * grid of 1 m squares (4x2 on +-Z, 4x1 on +-Y, 2x1 on +-X), its own vertices (per-face
 * normals): 62 vertices, 28 quads, 56 triangles, counter-clockwise seen from outside.
 * Faces in order +X, -X, +Y, -Y, +Z, -Z; each face is mapped onto its own atlas tile.
 *
 * ATLAS (512 x 256 RGB, 4 x 2 tiles of 128 px, v = 1 at the top row): row 0 holds +X red,
 * -X cyan, +Y green, -Y magenta; row 1 +Z blue, -Z yellow, then two grey spare tiles. Each
 * tile shows its label ("+X"), an arrow toward the tile's top and the face's 1 m grid.
 * Seen from outside, a face's label reads upright with the tile's top toward:
 *   +Z on the four side faces (+-X, +-Y), +Y on the top (+Z), -Y on the bottom (-Z).
 *
 * RIG: mHipRight and mHipLeft at the hinge, identity rest rotation (the viewer's hips have
 * no rest rotation); s = smoothstep(-1, 1, x): mHipLeft = s, mHipRight = 1 - s (x <= -1
 * all mHipRight, x >= 1 all mHipLeft).
 *
 * MOTION: 6 s, looping (loop 0..6 s), priority 4, ease 0. mHipLeft: rotY(-a), a(t) =
 * 90 deg * sin^2(pi t / 6) -- 0 at 0 s, 45 at 1.5 s, 90 at 3 s, 0 at 6 s -- so the +X half
 * folds up toward +Z. mHipRight carries identity keys, so the fold also holds the -X half
 * still against any lower-priority motion. Keys every 0.125 s (48 intervals).
 */
#ifndef AM_BENDBOX_H
#define AM_BENDBOX_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "anim/anim.h"
#include "core/error.h"
#include "core/progress.h"
#include "math/am_math.h"
#include "skeleton/skeleton.h"
#include "skin/rig.h"
#include "texture/texture.h"

#define AM_BENDBOX_HINGE_Z 1.067 /* mPelvis's file-frame rest height */
#define AM_BENDBOX_VERTICES 62
#define AM_BENDBOX_TRIANGLES 56
#define AM_BENDBOX_ATLAS_W 512
#define AM_BENDBOX_ATLAS_H 256
#define AM_BENDBOX_TILE 128
#define AM_BENDBOX_DURATION_S 6.0
#define AM_BENDBOX_PEAK_DEG 90.0
#define AM_BENDBOX_KEY_INTERVALS 48

/* Expectations (docs/reference/bendbox-test.md) the pipeline checks. */
#define AM_BENDBOX_MAX_REST_ERROR_M 1e-4
#define AM_BENDBOX_MAX_TIP_RIGIDITY_M 1e-4
#define AM_BENDBOX_MAX_CENTRE_ERROR_M 1e-3 /* "about [0, 0, 2]": U16 rotation + position codes */

/* The hinge in the bind frame. */
am_vec3 am_bendbox_hinge(void);

/* s = smoothstep(-1, 1, x) of the box-frame x: the weight on mHipLeft. */
double am_bendbox_left_weight(double x);

/* The rig: geometry, UVs into the atlas, both joints, weights; name "bendbox", textured.
 * Free with am_rig_free. */
am_status am_bendbox_build_rig(am_rig *out, am_error *err);

/* The orientation atlas (AM_BENDBOX_ATLAS_W x _H, RGB). Free with am_tex_image_free. */
am_status am_bendbox_build_atlas(am_tex_image *out, am_error *err);

/* The fold angle a(t) in degrees at time t (seconds, taken modulo the 6 s loop). */
double am_bendbox_fold_deg(double t_s);

/* The fold motion. Storage for the tracks lives in `keep` (it must outlive `out`). */
typedef struct am_bendbox_motion {
    am_motion_track tracks[2];
} am_bendbox_motion;
void am_bendbox_motion_init(am_bendbox_motion *keep, am_motion *out);
/* Sampling options of the written .anim (48 intervals, no reduction). */
am_motion_sample_options am_bendbox_sample_options(void);

/* ---- the whole pipeline (`animesh bendbox`) ---- */

/* progress: called once per step as it finishes, with "[step] detail" (core/progress.h). */

/* Zeroed, the defaults (core/option.h). */
typedef struct am_bendbox_options {
    const char *out_dir;
    const am_skeleton *skel;
    bool bench;             /* run the bench on the written files and render the PNGs; default false */
    am_progress_fn progress;
    void *user;
    bool preview;           /* also bendbox.preview.html (preview.h); default false */
} am_bendbox_options;

#define AM_BENDBOX_MAX_FILES 12

typedef struct am_bendbox_file {
    char path[1024];
    char what[64];
    size_t bytes;
} am_bendbox_file;

typedef struct am_bendbox_check {
    char name[48];
    double value;           /* metres */
    double limit;
    bool pass;
} am_bendbox_check;

/* The fold measured on the WRITTEN .llmesh + .anim at one time. */
typedef struct am_bendbox_fold_sample {
    double t_s;
    double expect_deg;      /* a(t) */
    am_vec3 tip_centre_hinge;  /* centre of the x = +2 end relative to the hinge */
    am_vec3 tip_centre_bind;   /* absolute, bind frame */
    am_vec3 tip_centre_prim;   /* absolute, prim frame (what the viewer draws) */
    am_vec3 expect_hinge;      /* (2 cos a, 0, 2 sin a) */
    double centre_error_m;
    double tip_rigidity_m;     /* x >= 1 pairwise distance change vs bind */
    double right_half_moved_m; /* largest displacement of an x <= -1 vertex (expect ~0) */
} am_bendbox_fold_sample;

#define AM_BENDBOX_FOLD_SAMPLES 4 /* t = 0, 1.5, 3, 6 s */

typedef struct am_bendbox_report {
    am_bendbox_file files[AM_BENDBOX_MAX_FILES]; /* written as one set: all or none */
    size_t file_count;
    size_t temps_swept; /* temp files of a killed earlier run removed from the folder */
    char removed[2][64]; /* an earlier run's files (bendbox.outset) not written again: the --bench PNGs */
    size_t removed_count;
    char left[4][1200]; /* files a journal or manifest named but animesh never wrote: left (the first 4) */
    size_t left_count;

    /* what was built */
    size_t vertices, triangles;
    size_t skin_joints, overrides;
    am_vec3 hip_override[2]; /* mHipRight, mHipLeft: local offsets from mPelvis written */
    size_t anim_keys;
    double anim_max_rot_err_deg;
    int atlas_j2c_max_abs;   /* decoded .j2c vs the atlas PNG: 0 (lossless) */

    /* bench (when options.bench) */
    bool benched;
    double rest_error_m;
    am_vec3 hinge_prim;      /* mHipLeft at rest as the bench places it, prim frame (expect 0) */
    am_bendbox_fold_sample fold[AM_BENDBOX_FOLD_SAMPLES];
    am_bendbox_check checks[8];
    size_t check_count;
    bool all_pass;
} am_bendbox_report;

/* Build and write everything into out_dir (created): bendbox.rig.json, bendbox_atlas.png,
 * bendbox_atlas.j2c (lossless), bendbox.llmesh, bendbox.dae, bendbox.meshdata.json,
 * bendbox_fold.anim; with bench also fold_side.png and rest_front.png. Returns AM_OK when
 * everything was written (and benched); failed expectations are in report->checks and
 * report->all_pass (the CLI turns them into exit 1). */
am_status am_bendbox_run(const am_bendbox_options *opt, am_bendbox_report *report, am_error *err);

/* The report as JSON (appended to out):
 * {"out_dir", "hinge_bind": [x,y,z], "files": [{"path","what","bytes"}],
 *  "skin": {"vertices","triangles","joints","overrides",
 *           "hip_offsets_from_pelvis": {"mHipRight": [..], "mHipLeft": [..]}},
 *  "anim": {"duration_s","priority","loop","keys","max_rot_err_deg"},
 *  "atlas_j2c_max_abs_error",
 *  "bench": null | {"rest_error_m", "hinge_prim": [..],
 *            "fold": [{"t_s","angle_deg","tip_end_centre_from_hinge","tip_end_centre_bind",
 *                      "tip_end_centre_prim","expect_from_hinge","centre_error_m",
 *                      "tip_rigidity_m","minus_x_half_moved_m"}],
 *            "checks": [{"name","value","limit","pass"}]},
 *  "pass"}   (positions in metres) */
am_status am_bendbox_report_json(const am_bendbox_report *report, const char *out_dir, am_buf *out, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
