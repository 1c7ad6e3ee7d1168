/* animesh/batch.h: a whole library: plan, convert on an engine (local, GNU parallel, Slurm), catalogue, spawn into a grid.
 *
 * Batch: a whole library of creatures converted as jobs any engine can run, each job's
 * result recorded beside its output, the records gathered into a catalogue (docs/batch.md).
 *
 *   LIBRARY folders / manifest --am_batch_plan_make--> CATALOG/plan.json (one job per creature)
 *   CATALOG, job N --am_batch_work--> CATALOG/creatures/NAME/ (one output set, swapped in whole)
 *                                     CATALOG/results/NAME.json (the job's result record)
 *   CATALOG --am_batch_index--> CATALOG/catalog.db (SQLite: creatures, parts, motions, findings)
 *
 * THE CATALOGUE FOLDER is the unit. Nothing but the coordinator (plan, run, status, index)
 * writes plan.json, catalog.db or the hash cache; a worker (possibly on another machine
 * sharing the folder) writes only its creature's folder and its own record, each replaced
 * by a rename, so workers never lock anything another one needs.
 *
 * A JOB'S KEY is the SHA-256 over everything its output depends on: the animesh version,
 * the viewer skeleton file's bytes, the creature's name, its model's and motions' bytes
 * (and a --map file's), and its import options. A record whose key is the job's current key
 * means the job is done (or failed) for exactly these inputs: running again converts
 * nothing; a changed byte, option or version makes the job stale.
 *
 * A JOB is `animesh import` with the job's options (the same code, run as a child process
 * so a crash or a bomb costs that job only): the model, every motion, --bench and --preview
 * by default, and always the creature's OpenSim archive (NAME.oar). Its outputs go into a
 * staging folder beside the creature's, which replaces the creature's folder in one atomic
 * exchange only when the import succeeded; a killed job leaves the previous set untouched
 * and its staging folder is swept by the next job of that creature.
 */
#ifndef AM_ANIMESH_BATCH_H
#define AM_ANIMESH_BATCH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "animesh/core.h"
#include "animesh/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum am_batch_file_kind {
    AM_BATCH_FILE_OTHER = 0,  /* not something a creature is made of (skipped, with why) */
    AM_BATCH_FILE_MODEL,      /* a rigged model: a creature */
    AM_BATCH_FILE_MOTION,     /* a motion: .anim, BVH, a motion-only FBX/glTF/COLLADA */
    AM_BATCH_FILE_UNRIGGED    /* a mesh with no skin (animesh bind first): skipped, with why */
} am_batch_file_kind;

typedef struct am_batch_job {
    char *name;          /* creature name: its folder, record and files (A-Z a-z 0-9 _ - .) */
    char *model;         /* absolute path */
    char **motions;      /* absolute paths, each optionally ":CLIP" (import --anim) */
    size_t motion_count;
    char **options;      /* import options, one argument each ("--scale", "0.01") */
    size_t option_count;
    char *map;           /* absolute path of a --map file (an input: in the key), or NULL */
    char *region;        /* the region it spawns into (manifest), or NULL */
    double position[3];  /* where in that region; has_position false: a layout chooses */
    bool has_position;
    char key[65];        /* SHA-256 hex of its inputs (above) */
} am_batch_job;

typedef struct am_batch_skip {
    char *path;
    char *reason;
} am_batch_skip;

typedef struct am_batch_plan {
    char *catalog;       /* the catalogue folder (absolute) */
    char *skeleton;      /* the viewer skeleton file (absolute) */
    char *version;       /* the animesh version that planned it */
    am_batch_job *jobs;
    size_t job_count;
    am_batch_skip *skipped; /* library files that made no job, each with its reason */
    size_t skip_count;
} am_batch_plan;

/* Zeroed, the defaults (core/option.h). */
typedef struct am_batch_plan_options {
    const char *const *libraries; /* folders searched (recursively, links not followed) */
    size_t library_count;
    const char *manifest;         /* a manifest (docs/batch.md) instead of or beside folders */
    const char *skeleton;         /* the viewer skeleton file (required) */
    const char *const *options;   /* import options of every job without its own (NULL:
                                     the default, --bench --preview) */
    size_t option_count;
    am_progress_fn progress;
    void *progress_user;
} am_batch_plan_options;

/* Plan: find every model and motion (folders) or read the manifest, make one job per
 * creature with its key, and write CATALOG/plan.json (created; replaced whole). Folder
 * rule: a model is a creature; it takes the motions of its own folder and of sub-folders
 * holding no model. Duplicates (the same bytes, motions and options as an earlier
 * creature) and files that are no creature are listed in plan.skipped with the reason.
 * Manifest errors name the entry and the field ("lib.json: creatures[3].model: ..."). */
AM_API am_status am_batch_plan_make(const char *catalog, const am_batch_plan_options *opts, am_batch_plan *plan,
                             am_error *err);

/* Read CATALOG/plan.json. */
AM_API am_status am_batch_plan_load(const char *catalog, am_batch_plan *plan, am_error *err);

/* The same from plan.json's bytes in memory (`source` names them in errors); plan->catalog is
 * `catalog` as given. Every job has a valid name, a model and a 64-digit key, or it fails. */
AM_API am_status am_batch_plan_parse(const char *catalog, const uint8_t *data, size_t size, const char *source,
                              am_batch_plan *plan, am_error *err);

AM_API void am_batch_plan_free(am_batch_plan *plan);

/* Recompute every job's key (files changed since planning) and rewrite plan.json when one
 * changed; *changed (may be NULL) counts them. */
AM_API am_status am_batch_plan_refresh(am_batch_plan *plan, size_t *changed, am_error *err);

typedef enum am_batch_state {
    AM_BATCH_PENDING = 0, /* no record */
    AM_BATCH_DONE,        /* a record with the current key, the import succeeded */
    AM_BATCH_FAILED,      /* a record with the current key, the import failed */
    AM_BATCH_STALE        /* a record of other inputs (a file, an option or the version changed) */
} am_batch_state;

AM_API const char *am_batch_state_name(am_batch_state s);

/* The job's state from its record (results/NAME.json) and its key in the plan; `error`
 * (may be NULL; unset or holding an earlier text, which is freed) is set to a failed job's
 * one-line error, whole, and unset otherwise (also when it cannot be kept: out of memory);
 * the caller frees it with am_string_free. */
AM_API am_batch_state am_batch_job_state(const am_batch_plan *plan, size_t job, am_string *error);

/* Zeroed, the defaults (core/option.h). */
typedef struct am_batch_work_options {
    const char *self;     /* the animesh program run as the import child (absolute) */
    bool force;           /* convert even when the record says done for this key */
    double started_s;     /* CLOCK_MONOTONIC seconds the worker began (its start-up and the plan's
                             load count in the job's time); 0: when am_batch_work is called */
    am_progress_fn progress;
    void *progress_user;
} am_batch_work_options;

typedef struct am_batch_work_result {
    bool skipped;         /* already done for this key: nothing converted */
    bool ok;              /* the import succeeded (its set and record are in place) */
    int exit_code;        /* the import's exit code (-1 killed by a signal) */
    int signal;           /* the signal that killed it, 0 none */
    double wall_s, cpu_s;     /* the import's own */
    double job_wall_s;        /* the whole job: its key, the import, the thumbnail, the swap */
    long peak_rss_kb;
    am_string error;      /* a failed job's one-line error, whole (owned) */
} am_batch_work_result;

/* Release what a result owns (its error); a zeroed result is fine. */
AM_API void am_batch_work_result_free(am_batch_work_result *result);

/* Convert job N: the import child into a staging folder, then the folder swapped into
 * CATALOG/creatures/NAME and the record written (also for a failed import: status
 * "failed" with its error, the previous set left in place). Fails (err) only when the
 * catalogue itself cannot be read or written, never because the creature is broken.
 * `result` is overwritten, not freed: free it with am_batch_work_result_free. */
AM_API am_status am_batch_work(const am_batch_plan *plan, size_t job, const am_batch_work_options *opts,
                        am_batch_work_result *result, am_error *err);

typedef enum am_batch_engine {
    AM_BATCH_ENGINE_LOCAL = 0, /* N worker processes on this machine */
    AM_BATCH_ENGINE_PARALLEL,  /* GNU parallel (its joblog, --resume, --sshlogin) */
    AM_BATCH_ENGINE_SLURM      /* an sbatch --array script, submitted when asked */
} am_batch_engine;

/* Zeroed, the defaults (core/option.h). */
typedef struct am_batch_run_options {
    am_batch_engine engine;
    unsigned jobs;                 /* workers at once (0: the number of cores) */
    const char *self;              /* the animesh program (absolute) */
    bool retry_failed;             /* also run jobs that failed with the current key */
    bool force;                    /* run every job */
    /* parallel */
    bool resume;                   /* parallel --resume with the catalogue's joblog */
    const char *const *sshlogins;  /* parallel --sshlogin (machines sharing the folder) */
    size_t sshlogin_count;
    /* slurm */
    bool submit;                   /* sbatch the script (else only written) */
    const char *const *sbatch_args;/* extra sbatch arguments (partition, time, memory) */
    size_t sbatch_arg_count;
    am_progress_fn progress;       /* a line per finished job and a progress line */
    void *progress_user;
} am_batch_run_options;

typedef struct am_batch_run_result {
    size_t total;          /* jobs in the plan */
    size_t todo;           /* jobs this run started (or wrote into the Slurm script) */
    size_t done, failed;   /* of those, as recorded when the run ended */
    size_t killed;         /* workers killed by a signal mid-job (local, parallel): their previous
                              set and record stand, the job runs again next time it is asked */
    am_string script;      /* slurm: the script written (owned, as the next one) */
    am_string slurm_job;   /* slurm: the job id sbatch gave, "" when not submitted */
} am_batch_run_result;

/* Release what a result owns (its texts); a zeroed result is fine. */
AM_API void am_batch_run_result_free(am_batch_run_result *result);

/* Run the jobs that need it (pending, stale; failed ones with retry_failed) on the engine,
 * then index the records. Keys are refreshed first. `result` is overwritten, not freed: free it
 * with am_batch_run_result_free. */
AM_API am_status am_batch_run(am_batch_plan *plan, const am_batch_run_options *opts, am_batch_run_result *result,
                       am_error *err);

/* Follow a submitted Slurm job (CATALOG/run/slurm.jobid) until squeue no longer lists it,
 * with progress; then index. timeout_s 0: no limit. */
AM_API am_status am_batch_wait(am_batch_plan *plan, double timeout_s, am_progress_fn progress, void *user,
                        am_error *err);

typedef struct am_batch_status {
    size_t total, done, failed, pending, stale;
    am_batch_state *states; /* per job, in plan order (owned) */
    char **errors;          /* per job: a failed job's one-line error, else NULL (owned) */
} am_batch_status;

/* Gather every record into CATALOG/catalog.db (schema in docs/batch.md; a record read only
 * when it changed since the last index: a catalogue with nothing new costs a stat per job),
 * count the states, and write the catalogue's page CATALOG/index.html (every creature with
 * its thumbnail, figures, state and links; sortable, filterable, self-contained). Free the
 * status with am_batch_status_free. */
AM_API am_status am_batch_index(const am_batch_plan *plan, am_batch_status *status, am_error *err);

AM_API void am_batch_status_free(am_batch_status *status);

/* A grid: the regions a catalogue's creatures spawn into (GRID.json, docs/batch.md "Spawning").
 * Each region is reached over OpenSim's RemoteAdmin; its password is read from the
 * environment variable the grid names (never written in the file). */
typedef struct am_batch_grid_region {
    char *name;          /* region_name (what plan.json's job.region names), or NULL */
    char *id;            /* region_id (its UUID), or NULL; one of name / id at least */
    char *url;           /* the RemoteAdmin URL (the region's HTTP port) */
    char *password_env;  /* the environment variable holding [RemoteAdmin] access_password */
    char *catalog;       /* the catalogue's folder as the region host names it (NULL: ours) */
    long uid;            /* the user the region runs as, who owns its saves (-1: ours) */
    am_string host;      /* the URL's host and port: regions of one host share its limit */
} am_batch_grid_region;

typedef struct am_batch_grid {
    char *path;
    am_batch_grid_region *regions;
    size_t region_count;
    size_t layout_region;     /* where creatures without a region go [the first] */
    double layout_origin[3];  /* the layout's first place [8, 8, 25] */
    double layout_spacing;    /* metres between creatures [8] */
    double layout_size;       /* the region's side in metres [256] */
    unsigned per_host;        /* regions served at once on one host [1] */
} am_batch_grid;

/* Read GRID.json. Errors name the file, the entry and the field ("grid.json: regions[1].url:
 * ..."); a "password" field is refused (name the variable in password_env). */
AM_API am_status am_batch_grid_load(const char *path, am_batch_grid *grid, am_error *err);

AM_API void am_batch_grid_free(am_batch_grid *grid);

typedef enum am_batch_spawn_outcome {
    AM_SPAWN_SKIPPED = 0, /* not converted (pending, failed, stale): nothing sent */
    AM_SPAWN_ALREADY,     /* spawned before with the same spawn key: nothing sent */
    AM_SPAWN_SPAWNED,     /* loaded (first time) */
    AM_SPAWN_REPLACED,    /* its earlier copy deleted, then loaded */
    AM_SPAWN_REMOVED,     /* --remove: deleted from its region */
    AM_SPAWN_FAILED       /* error says why; nothing else of the grid depends on it */
} am_batch_spawn_outcome;

AM_API const char *am_batch_spawn_outcome_name(am_batch_spawn_outcome o);

/* Every text below is owned by the result (am_batch_spawn_result_free). */
typedef struct am_batch_spawn_item {
    am_string creature;
    long region;             /* index in grid->regions, -1 none */
    double position[3];
    bool layout;             /* the position came from the layout (the archive was moved) */
    am_batch_spawn_outcome outcome;
    am_string object;        /* the object UUID(s) standing now (comma-separated, every one), "" unknown */
    am_string replaced;      /* the UUID(s) deleted first (comma-separated, each elsewhere followed
                                by its region in parentheses) */
    bool verified;           /* --verify: found in the region's save, identical, one copy */
    double seconds;          /* the load (or the deletes) */
    am_string error;         /* why it failed, or a warning for one that did not */
} am_batch_spawn_item;

typedef struct am_batch_spawn_region {
    size_t loaded, deleted, failed;
    double seconds;          /* the region's whole turn */
    double save_seconds;     /* the save that found the objects and verified them */
    am_string error;         /* a region-wide failure (unreachable, no password) */
} am_batch_spawn_region;

/* Zeroed, the defaults (core/option.h). */
typedef struct am_batch_spawn_options {
    bool verify;              /* compare each creature with the region's save, as push --verify */
    bool remove;              /* take the catalogue's creatures out of the grid instead */
    unsigned per_host;        /* 0: the grid's */
    long connect_timeout_ms;  /* 0: RemoteAdmin's defaults */
    long total_timeout_ms;
    long save_appear_ms;      /* 0: oar_verify's default */
    am_progress_fn progress;  /* a line per creature, from several threads */
    void *progress_user;
} am_batch_spawn_options;

typedef struct am_batch_spawn_result {
    am_batch_spawn_item *items;     /* per job (spawn) or per recorded spawn (--remove) */
    size_t item_count;
    am_batch_spawn_region *regions; /* per grid region */
    size_t region_count;            /* the grid's region_count */
    size_t spawned, replaced, already, removed, skipped, failed;
    double seconds;
} am_batch_spawn_result;

/* Spawn every converted creature into its region (job.region, else the layout's) at its
 * position (job.position, else the layout's next place) with admin_load_oar merge "true";
 * record each spawn in catalog.db's spawns table; a creature whose spawn key (its job key,
 * region and position) is recorded is not sent again; one spawned before under another key
 * has its earlier object deleted first (`delete object id UUID` on the region's console).
 * --remove deletes every recorded spawn. Regions are served in parallel, per_host at once
 * per host; a region that refuses or times out fails its own creatures only. AM_OK when the
 * run happened (failures are in the items); an error only when the catalogue cannot be
 * read or written, or memory runs out. */
AM_API am_status am_batch_spawn(const am_batch_plan *plan, const am_batch_grid *grid, const am_batch_spawn_options *opts,
                         am_batch_spawn_result *result, am_error *err);

AM_API void am_batch_spawn_result_free(am_batch_spawn_result *result);

#ifdef __cplusplus
}
#endif

#endif
