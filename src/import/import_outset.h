/* The outputs of one import run, replaced together (import.h): every file is held in memory
 * until the run is complete; then the folders are created and each folder's files go
 * through one core output set (core/outset.h: temp files beside their targets, renamed
 * together, a killed run's temps swept, stale names removed). A failure before the commit
 * leaves nothing new behind and no folder created. */
#ifndef AM_IMPORT_OUTSET_H
#define AM_IMPORT_OUTSET_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"

typedef struct am_import_output {
    char path[1024];   /* DIR/NAME */
    am_buf data;       /* owned */
    bool stale;        /* no data: DIR/NAME is removed at commit (a file this run cannot rewrite) */
} am_import_output;

typedef struct am_import_outset {
    am_import_output *files;
    size_t count, cap;
    char owner_dir[1024]; /* the folder whose set owns its earlier files (am_import_outset_own) */
    char manifest[160];   /* "NAME.outset" there, "" when none */
    char (*removed)[1024]; /* after commit: DIR/NAME files removed (stale, or no longer written) */
    size_t removed_count;
    char (*left)[1200];    /* after commit: files a journal or manifest named but animesh never
                            * wrote (or that changed since), left: "left DIR/NAME: why" */
    size_t left_count;
} am_import_outset;

/* Take ownership of `data` (zeroed on return) as the content of `path`. A second file for
 * the same path is refused (AM_ERR_INVALID naming it). */
am_status am_import_outset_add(am_import_outset *o, const char *path, am_buf *data, am_error *err);
/* Copy bytes in. */
am_status am_import_outset_add_copy(am_import_outset *o, const char *path, const void *data, size_t size,
                                    am_error *err);
/* DIR/NAME, left by an earlier run, is removed at commit (e.g. a meshdata a part now with
 * several faces cannot have). */
am_status am_import_outset_stale(am_import_outset *o, const char *path, am_error *err);
/* The set written into `dir` owns what its earlier runs wrote there: `manifest` (a plain
 * name, "NAME.outset") lists its files, and a file an earlier run listed that this run does
 * not write is removed at commit (core/outset.h "own"; docs/outputs.md). */
am_status am_import_outset_own(am_import_outset *o, const char *dir, const char *manifest, am_error *err);
/* Create the folders, stage every file, then rename them all into place. A folder the
 * commit created is removed again when the commit fails (if it is empty). */
am_status am_import_outset_commit(am_import_outset *o, am_error *err);
void am_import_outset_free(am_import_outset *o);

#ifdef __cplusplus
}
#endif

#endif
