/* src/skin/skin_build.h: the private side of include/animesh/skin.h, where its manual is. */
#ifndef AM_SKIN_BUILD_H
#define AM_SKIN_BUILD_H

#include "animesh/skin.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/am_string.h"
#include "core/error.h"
#include "core/io.h"
#include "core/option.h"
#include "core/outset.h"
#include "math/am_math.h"
#include "mesh/mesh_asset.h"
#include "skeleton/skeleton.h"
#include "skin/rig.h"

/* Vertices per face: the uploader starts a new face at 65532 and the COLLADA checklist
 * (docs/reference/collada-upload.md#exporter-checklist) says at most 65531, so the .dae and the .llmesh split alike. */
#define AM_SKIN_DEFAULT_FACE_VERTEX_LIMIT 65531

/* Largest bind-frame coordinate accepted, metres (a rig beyond it is refused as a units
 * mistake). The viewer scales an animesh whose animated box exceeds 64 m down to fit
 * (docs/reference/viewer-skeleton.md#corrective-fix-ups); the summary warns about that separately. */
#define AM_RIG_MAX_COORD_M 1000.0
#define AM_ANIMESH_MAX_LEGAL_SIZE_M 64.0

struct am_skin_summary;

/* Zero fields turned into their defaults, as a build does first (for a caller that reads
 * the options it passes, e.g. to decide a budget beforehand). Idempotent: a negative region
 * limit or border tolerance (AM_OPTION_ZERO) stays and reads as "none". */
void am_skin_options_resolve(am_skin_options *opts);

enum { AM_SKIN_T_JOINTS_WEIGHTS, AM_SKIN_T_BUDGET, AM_SKIN_T_FACES, AM_SKIN_T_LODS, AM_SKIN_T_ASSET,
       AM_SKIN_T_ENCODE, AM_SKIN_T_DAE, AM_SKIN_T_MESHDATA };

/* The same text streamed into an open file (never held in memory; `name` names it in I/O
 * errors). The caller opens, checks and closes the file. */
am_status am_skin_write_collada_file(const am_skin_result *res, FILE *f, const char *name, am_error *err);

/* Build, encode, check the region limit and write DIR/NAME.llmesh, NAME.dae and
 * NAME.meshdata.json as ONE output set (core/outset.h; DIR is created): every file is
 * written to a temp file first and they are renamed together only when all are complete,
 * so no failure leaves new files beside old ones. Over the region limit nothing is written
 * (AM_ERR_INVALID); with the automatic budget a miss of the size prediction is corrected
 * by one rebuild with the budget the measured size allows. A skin that needs several
 * faces is a success: the .llmesh and .dae are put in place, no meshdata (WorldBridge
 * weights submesh 0 only; summary.meshdata_written false, a warning says why and what to
 * do) and an old NAME.meshdata.json is removed (summary.meshdata_removed) so `push` cannot
 * send it with the new mesh; with opts->require_meshdata such a skin is refused before
 * anything is written. `summary` (optional; zeroed, or filled by an earlier call, whose
 * strings are then freed) is filled whenever the build succeeded; its paths are empty when
 * nothing was written. Free it with am_skin_summary_free. */
am_status am_skin_export(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts,
                         const char *out_dir, am_skin_summary *summary, am_error *err);

/* The same outputs added to a set the caller began in the output folder and will commit
 * (a pipeline writing more files with them, such as the bend box). The summary's paths are
 * the final names; am_outset_temp_path gives the bytes before the commit. */
am_status am_skin_export_to_set(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts, am_outset *set,
                                am_skin_summary *summary, am_error *err);

/* am_skin_build then am_skin_encode into mesh; an automatic budget that the measured size
 * shows over the region limit (the prediction missed) is rebuilt once with the budget the
 * measured bytes allow (what am_skin_export does). Free res and mesh on success. */
am_status am_skin_build_encoded(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts,
                                am_skin_result *res, am_buf *mesh, am_error *err);

/* The same, with `beside(user, res)` run on a thread of its own while each built result is
 * encoded (joined before the encode's result is looked at, and run again on a rebuilt
 * result): a writer of the build's own outputs (the .dae, the meshdata), which read the
 * result and never the encoded bytes, done during the deflate instead of after it. It must
 * replace whatever an earlier run of it made. */
typedef void (*am_skin_beside_fn)(void *user, const am_skin_result *res);
am_status am_skin_build_encoded_beside(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts,
                                       am_skin_result *res, am_buf *mesh, am_skin_beside_fn beside, void *user,
                                       am_error *err);

#ifdef __cplusplus
}
#endif

#endif
