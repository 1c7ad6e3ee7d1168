/* animesh: the library behind the `animesh` command, for programs that get rigged creatures
 * into OpenSim and Second Life as animesh. This umbrella header gathers every public header;
 * each one reads as its module's manual (its first lines say the module's job).
 *
 * Build against the installed library with `pkg-config --cflags --libs animesh` or CMake's
 * `find_package(animesh)` + `target_link_libraries(app animesh::animesh)`. Every call that
 * can fail fills an am_error (core/error.h) and returns an am_status; nothing prints, exits
 * or keeps global state. The data flow (docs/architecture.md):
 *
 *   model file --readers--> am_scene --map, retarget--> am_rig --skin--> mesh asset
 *        (+ .anim motions) --bench, report--> verified --world--> OAR / WorldBridge region
 */
#ifndef AM_ANIMESH_H
#define AM_ANIMESH_H

/* Foundations: errors as values, files, base64, JSON and text helpers, numbers as text,
 * libraries loaded when needed, jobs over threads. */
#include "core/am_string.h"
#include "core/base64.h"
#include "core/dynlib.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/io.h"
#include "core/jsonlex.h"
#include "core/numfmt.h"
#include "core/option.h"
#include "core/outset.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/radix.h"
#include "core/secret.h"
#include "core/sha256.h"
#include "core/text.h"
#include "core/textout.h"
#include "math/am_math.h"

/* The viewer's skeleton, its attachment points, joint maps. */
#include "skeleton/skeleton.h"
#include "skeleton/attachments.h"
#include "skeleton/jointmap.h"

/* Motions: the .anim codec and BVH -> .anim. */
#include "anim/anim.h"
#include "anim/bvh.h"

/* The scene model and the readers that fill it (model file -> am_scene). */
#include "scene/scene.h"
#include "scene/weld.h"
#include "readers/scene_load.h"
#include "readers/file_ref.h"
#include "readers/collada/collada.h"
#include "readers/gltf/gltf.h"
#include "readers/assimp/assimp_read.h"
#include "readers/obj/obj_read.h"
#include "readers/bvh/bvh_scene.h"
#include "map/map_bvh.h"

/* Joint mapping (names, body plan, axes, suggestion) and retargeting. */
#include "map/axes.h"
#include "map/body.h"
#include "map/body_plan.h"
#include "map/joint_names.h"
#include "map/map_suggest.h"
#include "retarget/motion_file.h"
#include "retarget/retarget.h"

/* The mesh asset (LLSD, zlib blocks, decode, encode, compare). */
#include "mesh/llsd.h"
#include "mesh/zblock.h"
#include "mesh/mesh_asset.h"
#include "mesh/mesh_report.h"
#include "mesh/skin_json.h"

/* Rigs and the skin builder; automatic binding; the import pipeline. */
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "skin/skin_compare.h"
#include "skin/skin_cost.h"
#include "skin/skin_weights.h"
#include "bind/bind.h"
#include "bind/bind_io.h"
#include "bind/fit.h"
#include "bind/topology.h"
#include "import/import.h"
#include "import/import_outset.h"

/* Verification: the viewer-faithful bench, its renders, the reports, the bend box. */
#include "bench/bench.h"
#include "bench/bench_report.h"
#include "bench/lbs.h"
#include "bench/render.h"
#include "preview/preview.h"
#include "report/report.h"
#include "report/quality.h"
#include "report/bind_run.h"
#include "bendbox/bendbox.h"

/* Textures and the world: JPEG-2000 for upload, OAR archives, WorldBridge, RemoteAdmin. */
#include "texture/texture.h"
#include "world/checks.h"
#include "world/digest.h"
#include "world/http.h"
#include "world/meshdata.h"
#include "world/oar.h"
#include "world/oar_check.h"
#include "world/oar_files.h"
#include "world/oar_verify.h"
#include "world/remoteadmin.h"
#include "world/worldbridge.h"
#include "world/world_push.h"

/* A whole library: jobs, engines, the catalogue, spawning into a grid. */
#include "batch/batch.h"

#endif
