/* The outputs of one import run, replaced together (import.h): every file is held in memory
 * until the run is complete, then staged next to its destination under a hidden temporary
 * name and, once all are staged, renamed into place one after the other. A failure before
 * the renames leaves nothing new behind (staged files are removed; the output folder is
 * only created at commit).
 *
 * Same shape as the core "output set" being built for issue 13 (stage all, then rename
 * all): when src/core/outset.h lands, this becomes a thin call to it. */
#ifndef AM_IMPORT_OUTSET_H
#define AM_IMPORT_OUTSET_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"

typedef struct am_import_output {
    char path[1024];
    am_buf data; /* owned */
} am_import_output;

typedef struct am_import_outset {
    am_import_output *files;
    size_t count, cap;
} am_import_outset;

/* Take ownership of `data` (zeroed on return) as the content of `path`. A second file for
 * the same path is refused (AM_ERR_INVALID naming it). */
am_status am_import_outset_add(am_import_outset *o, const char *path, am_buf *data, am_error *err);
/* Copy bytes in. */
am_status am_import_outset_add_copy(am_import_outset *o, const char *path, const void *data, size_t size,
                                    am_error *err);
/* Create the folders, stage every file, then rename them all into place. */
am_status am_import_outset_commit(am_import_outset *o, am_error *err);
void am_import_outset_free(am_import_outset *o);

#endif
