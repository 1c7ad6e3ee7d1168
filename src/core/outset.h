/* Output sets: the files one run writes, replaced together or not at all.
 *
 * A command that writes several files (the skin's .llmesh + .dae + meshdata, the bend box,
 * a dry run's requests) must never leave a mix of new and old files, nor half a file:
 * a reader such as `push` would send an old meshdata beside a new mesh. So:
 *
 *   am_outset *set;
 *   const char *names[] = {"x.llmesh", "x.dae", "x.meshdata.json"};
 *   if (am_outset_begin(&set, dir, names, 3, err)) return ...;   // sweeps a killed run's temps
 *   s = am_outset_add(set, "x.llmesh", bytes, n, err);          // -> temp file, fsync'd
 *   ...                                                          // (more adds)
 *   if (no meshdata this time) s = am_outset_remove_stale(set, "x.meshdata.json", err);
 *   if (!s) s = am_outset_commit(set, err);                      // renames them all
 *   am_outset_free(set);                                         // without a commit: removes the temps
 *
 * Contract:
 * - begin: `dir` must exist (create it first with am_mkdir_p). Every name is a plain file
 *   name (no '/') in dir. For each name declared (here, or later by add/remove_stale),
 *   temp files "NAME.tmpXXXXXX" (X in [A-Za-z0-9]) that an earlier, killed run left there
 *   are removed; am_outset_swept counts them. Nothing else is ever touched. A temp that a
 *   live run is still writing is left alone: each writer holds an exclusive flock(2) on its
 *   temp until its set is committed or freed.
 * - add: the bytes go to "TARGET.tmpXXXXXX" beside the target, created O_EXCL with mode
 *   0666 minus the umask, or with the mode of the file being replaced; written in full and
 *   fsync'd. When dir/NAME is a symbolic link the target is the file it points to (links
 *   followed, a dangling link's file is created): the link stays, its file is replaced.
 *   Nothing in place changes yet. A name is added at most once.
 * - remove_stale: dir/NAME (a file this run could not rewrite, e.g. a meshdata the skin
 *   cannot have) is removed at commit if it exists; am_outset_was_removed says whether it
 *   was. Adding the name later cancels the removal.
 * - commit: only once every add succeeded. Removes the stale names first, then renames
 *   each temp onto its target in the order added, then fsyncs the directories. The renames
 *   are back to back (no encoding or I/O of the contents between them); a failure or a kill
 *   inside that short window can still leave some files renamed, and the next run into the
 *   folder sweeps the temps left. Errors name the file (`where`) and say what failed.
 * - free: always call it (NULL is fine). Without a successful commit it removes every temp
 *   file the set made, so an error path only has to free.
 * Not thread-safe per set; sets in different threads or processes may share a folder. */
#ifndef AM_CORE_OUTSET_H
#define AM_CORE_OUTSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

typedef struct am_outset am_outset;

am_status am_outset_begin(am_outset **set, const char *dir, const char *const *names, size_t count, am_error *err);
am_status am_outset_add(am_outset *set, const char *name, const void *data, size_t size, am_error *err);
/* The same, the contents written by fill(f, user, err) into a stream of the temp file as
 * they are made (a big text never held in memory, e.g. a .dae); fill returns its status,
 * write errors of the stream are caught here. */
typedef am_status (*am_outset_fill)(FILE *f, void *user, am_error *err);
am_status am_outset_add_stream(am_outset *set, const char *name, am_outset_fill fill, void *user, am_error *err);
am_status am_outset_remove_stale(am_outset *set, const char *name, am_error *err);
am_status am_outset_commit(am_outset *set, am_error *err);
void am_outset_free(am_outset *set);

/* dir/NAME as the user named it (NULL when the name was never declared). */
const char *am_outset_path(const am_outset *set, const char *name);
/* The temp file holding an added name's bytes, readable until commit (a step that must
 * read back what it wrote, such as the bend box's bench, reads it here); NULL when the name
 * was not added or after commit. */
const char *am_outset_temp_path(const am_outset *set, const char *name);
/* Temp files of killed earlier runs removed so far (begin, and names declared later). */
size_t am_outset_swept(const am_outset *set);
/* True when commit removed dir/NAME as stale. */
bool am_outset_was_removed(const am_outset *set, const char *name);

#endif
