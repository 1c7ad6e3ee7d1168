/* The quality report of anything animesh writes or imports (`animesh report`, and the
 * report `animesh bind` writes): the input is turned into a bench (bench/bench.h) - a
 * WRITTEN mesh asset read as written, anything else skinned into a mesh asset in memory
 * first - then measured by src/report/quality.h and written as files.
 *
 * INPUTS
 *   - a mesh asset (.llmesh, .slm, or any file starting with the asset's binary LLSD):
 *     read by the bench as is;
 *   - a rig JSON (docs/rig-json.md): the skin built in memory (am_skin_build, the high
 *     LOD only: the bench measures it and nothing here reads the others or the cost),
 *     encoded (its blocks stored, zlib level 0: never written) and read back by the
 *     bench;
 *   - a model file am_scene_load reads (COLLADA, glTF, FBX, OBJ ...) that carries a skin:
 *     planned by import's own route (import/import.h: faithful, or retargeted when its
 *     joints are not the viewer's; axes from --up/--forward/--unit), so report accepts what
 *     import accepts and refuses what it refuses, with the same words. A plan of several
 *     parts is judged as one creature: the parts' rigs united (joints by name, positions in
 *     the bind frame). An unskinned model is refused: bind it first.
 * OUTPUT FILES (added to the caller's output set, core/outset.h, so they are replaced
 * together with everything else the run writes): STEM.report.json (every figure,
 * quality.h), STEM.report.txt (the same, one line per figure), STEM_poses.png (the pose
 * sheet), STEM_closeup_N_JOINT.png (up to 3 worst joints). */
#ifndef AM_REPORT_H
#define AM_REPORT_H

#include "animesh/report.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "bind/bind_io.h"
#include "core/am_string.h"
#include "core/error.h"
#include "core/outset.h"
#include "report/quality.h"
#include "skin/rig.h"

/* A rig skinned in memory and read back by the bench. */
am_status am_report_bench_rig(const am_rig *rig, const am_skeleton *skel, const char *source, am_bench *out,
                              am_error *err);

/* Is `path` a mesh asset (by its name, or its first byte: the asset's binary LLSD map)?
 * `bench` and `preview` read those as written and any other model through
 * am_report_model_parts / am_report_load, import's own route. */
bool am_report_is_mesh_asset(const char *path);

/* A model file as the mesh assets import would write for it (import's route: faithful or
 * retargeted; every LOD, encoded as written, in memory), one per part. `what` (optional)
 * gets the sentence am_report_input.what holds (the caller frees it with am_string_free). */
typedef struct am_report_part {
    am_string name;          /* the part's output stem, as import names it */
    am_buf asset;            /* the encoded mesh asset */
} am_report_part;
am_status am_report_model_parts(const char *path, const am_skeleton *skel, const am_bind_frame *frame,
                                am_report_part **parts, size_t *count, am_string *what, am_error *err);
/* Frees each part's name and asset, then the array. */
void am_report_parts_free(am_report_part *parts, size_t count);

/* The most files one report writes (the JSON, the text, the pose sheet, 3 close-ups). */
#define AM_REPORT_MAX_FILES 8

/* Add the report files of `r` to `set`. `written` (optional, with `written_count`) collects
 * their names: each is appended to the list *written of *written_count owned strings (start
 * with NULL and 0; the list is grown here), which the caller frees with
 * am_string_list_free(*written, *written_count), after a failure too. */
am_status am_report_write(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                          size_t pose_count, am_outset *set, const char *stem, const char *preface,
                          am_string **written, size_t *written_count, am_error *err);
/* The same, its pictures drawn and encoded on `threads` threads (0: every core, as
 * am_report_write; `bind --threads N` passes N). */
am_status am_report_write_threads(const am_bench *b, const am_quality_report *r, const am_quality_pose *poses,
                                  size_t pose_count, int threads, am_outset *set, const char *stem,
                                  const char *preface, am_string **written, size_t *written_count, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
