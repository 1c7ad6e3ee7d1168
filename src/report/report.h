/* The quality report of anything animesh writes or imports (`animesh report`, and the
 * report `animesh bind` writes): the input is turned into a bench (bench/bench.h) - a
 * WRITTEN mesh asset read as written, anything else skinned into a mesh asset in memory
 * first - then measured by bench/quality.h and written as files.
 *
 * INPUTS
 *   - a mesh asset (.llmesh, .slm, or any file starting with the asset's binary LLSD):
 *     read by the bench as is;
 *   - a rig JSON (README "Rig JSON"): the skin built in memory (am_skin_build), encoded,
 *     and read back by the bench;
 *   - a model file am_scene_load reads (COLLADA, glTF, FBX, OBJ ...) that carries a skin:
 *     its meshes in the bind frame (bind_io.h: bind shape, declared or given axes), its
 *     joints that are viewer joints where its inverse binds put them, its weights as the
 *     file gives them (weights on joints the viewer does not know are dropped and counted),
 *     then as a rig JSON. An unskinned model is refused: bind it first.
 * OUTPUT FILES (into a stage, see below): STEM.report.json (every figure, quality.h),
 * STEM.report.txt (the same, one line per figure), STEM_poses.png (the pose sheet),
 * STEM_closeup_N_JOINT.png (up to 3 worst joints).
 *
 * STAGE: every output of a run is written into DIR/.animesh-stage-XXXXXX first and renamed
 * into DIR only when all of them exist (am_stage_commit); a failure removes the stage and
 * leaves DIR as it was. */
#ifndef AM_REPORT_H
#define AM_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"
#include "bind/bind_io.h"
#include "core/error.h"
#include "quality.h"
#include "skin/rig.h"

typedef struct am_report_input {
    char what[200];          /* "mesh asset", "rig JSON (skin built in memory)", ... */
    size_t dropped_weights;  /* model files: influences on joints the viewer does not know */
} am_report_input;

am_status am_report_load(const char *path, const am_skeleton *skel, const am_bind_frame *frame, am_bench *out,
                         am_report_input *info, am_error *err);
/* A rig skinned in memory and read back by the bench. */
am_status am_report_bench_rig(const am_rig *rig, const am_skeleton *skel, const char *source, am_bench *out,
                              am_error *err);

#define AM_STAGE_MAX_FILES 64

typedef struct am_stage {
    char dir[1024];
    char stage[1100];
    bool open;
} am_stage;

/* Create DIR (and parents) and a stage folder inside it. */
am_status am_stage_begin(const char *dir, am_stage *st, am_error *err);
/* stage/name into buf (NULL when it does not fit). */
const char *am_stage_path(const am_stage *st, const char *name, char *buf, size_t size);
/* Rename every file of the stage into DIR, then remove the stage. */
am_status am_stage_commit(am_stage *st, am_error *err);
/* Remove the stage and everything in it (safe after a commit, and on a stage never begun). */
void am_stage_abort(am_stage *st);

/* Write the report files of `r` into the stage; `written` (optional) collects the file
 * names (AM_STAGE_MAX_FILES entries of 256). */
am_status am_report_write(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                          size_t pose_count, const am_stage *st, const char *stem, const char *preface,
                          char (*written)[256], size_t *written_count, am_error *err);

#endif
