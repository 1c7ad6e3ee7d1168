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

#include "animesh/report.h"

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

#ifdef __cplusplus
}
#endif

#endif
