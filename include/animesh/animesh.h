/* animesh: the library behind the `animesh` command, for programs that get rigged creatures
 * into OpenSim and Second Life as animesh. This umbrella header includes the public API, one
 * header per part; each is the manual of its part (what it does, who owns what, the errors it
 * returns). Nothing else in the source tree is public: the shared library exports exactly the
 * functions these headers declare with AM_API (tests/check_exports.sh holds it to that).
 *
 * Build against the installed library with `pkg-config --cflags --libs animesh` or CMake's
 * `find_package(animesh)` + `target_link_libraries(app animesh::animesh)`, and write
 * `#include <animesh/animesh.h>`. Every call that can fail fills an am_error and returns an
 * am_status; nothing prints, exits or keeps global state. Every options struct means "the
 * defaults" when zeroed. The data flow (docs/architecture.md):
 *
 *   model file --scene--> am_scene --import (joint map, retarget)--> rig --skin--> mesh asset
 *        (+ .anim motions) --bench, report--> verified --world--> OAR / region; batch: a library
 */
#ifndef AM_ANIMESH_H
#define AM_ANIMESH_H

/* What every call shares: the export macro, errors as values, byte buffers, owned strings, progress lines, the value types. */
#include "animesh/core.h"
/* The viewer's skeleton, read from its own avatar_skeleton.xml. */
#include "animesh/skeleton.h"
/* The scene model every reader fills, and loading a model file into it. */
#include "animesh/scene.h"
/* Joint maps (a rig joint -> the viewer joint it drives) and body plans. */
#include "animesh/jointmap.h"
/* A rig: a mesh bound to viewer joints, in the bind frame. */
#include "animesh/rig.h"
/* The .anim codec, exactly as the viewer decodes it; BVH motions. */
#include "animesh/anim.h"
/* Retargeting: a motion from any file onto the viewer skeleton, bones pointing where the source points. */
#include "animesh/retarget.h"
/* The mesh asset (.llmesh): decode, encode, inspect. */
#include "animesh/mesh.h"
/* The skin builder: a rig in, the mesh asset the viewer draws right out. */
#include "animesh/skin.h"
/* Automatic binding: weights for an unrigged mesh (bone heat), with the rigger's report. */
#include "animesh/bind.h"
/* The bench: the WRITTEN files posed and skinned the viewer's way, measured. */
#include "animesh/bench.h"
/* The quality report: standard poses on the bench, findings a grid can act on, pose sheets, the preview page. */
#include "animesh/report.h"
/* Import: a model file in, the creature's files out (mesh assets, motions, rig, textures, archive). */
#include "animesh/import.h"
/* Into the world: OAR archives, loading them over RemoteAdmin, WorldBridge pushes. */
#include "animesh/world.h"
/* A whole library: plan, convert on an engine (local, GNU parallel, Slurm), catalogue, spawn into a grid. */
#include "animesh/batch.h"

#endif
