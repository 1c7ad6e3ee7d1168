/* src/batch/batch.h: the private side of include/animesh/batch.h, where its manual is. */
#ifndef AM_BATCH_H
#define AM_BATCH_H

#include "animesh/batch.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "core/progress.h"

/* --- what a file is ---------------------------------------------------------------------- */

/* What a file is, from its content (the first bytes, and for glTF, COLLADA and FBX whether
 * it holds a skin, a mesh or only animation), never from its extension alone. `why` (may
 * be NULL) says what was seen ("a glTF file with 1 skin", "empty", "a PNG image"). */
am_batch_file_kind am_batch_sniff(const char *path, char *why, size_t why_size);

/* --- the plan ---------------------------------------------------------------------------- */

/* The key of a job from its files' current bytes (hashing through CATALOG/.hashes, a cache
 * keyed by device, inode, size and modification time, when `cache` is true: only the
 * coordinator uses it). */
am_status am_batch_job_key(const am_batch_plan *plan, const am_batch_job *job, bool cache, char key[65],
                           am_error *err);

/* --- a job ----------------------------------------------------------------------------- */

/* The job index of a worker launched by an engine without an explicit N: SLURM_ARRAY_TASK_ID
 * or JOB_COMPLETION_INDEX (Kubernetes Indexed Job); false when neither holds a number. */
bool am_batch_job_from_env(size_t *job);

/* --- engines ------------------------------------------------------------------------------ */

/* --- the catalogue ------------------------------------------------------------------------- */

/* --- spawning ---------------------------------------------------------------------------- */

/* The region a job's region text names (its name, else its id), or -1. */
long am_batch_grid_find(const am_batch_grid *grid, const char *region);

#ifdef __cplusplus
}
#endif

#endif
