/* Output sets: the files one run writes, replaced together or not at all.
 *
 * A command that writes several files (the skin's .llmesh + .dae + meshdata, the bend box,
 * a dry run's requests) must never leave a mix of new and old files, nor half a file:
 * a reader such as `push` would send an old meshdata beside a new mesh. So:
 *
 *   am_outset *set;
 *   const char *names[] = {"x.llmesh", "x.dae", "x.meshdata.json"};
 *   if (am_outset_begin(&set, dir, names, 3, err)) return ...;   // sweeps a killed run's temps
 *   s = am_outset_add(set, "x.llmesh", bytes, n, err);          // -> temp file, its fsync begun
 *   ...                                                          // (more adds)
 *   if (no meshdata this time) s = am_outset_remove_stale(set, "x.meshdata.json", err);
 *   if (!s) s = am_outset_commit(set, err);                      // renames them all
 *   am_outset_free(set);                                         // without a commit: removes the temps
 *
 * Contract:
 * - begin: `dir` must exist (create it first with am_mkdir_p). Every name is a plain file
 *   name (no '/') in dir. Under the folder's lock (an exclusive flock(2) on the folder
 *   itself): a commit that a killed run left half done (its journal, below) is finished
 *   first; then, for each name declared (here, or later by add/remove_stale), temp files
 *   "NAME.tmpXXXXXX" (X in [A-Za-z0-9]) that no live run holds are removed; am_outset_swept
 *   counts them. Nothing else is ever touched. Each writer holds an exclusive flock on its
 *   temp from its creation (made and locked while the folder's lock is held, so no sweep
 *   comes between) until its set is committed or freed.
 * - add: the bytes go to "NAME.tmpXXXXXX" in dir, created O_EXCL|O_NOFOLLOW with mode 0666
 *   minus the umask, or with the mode of the regular file being replaced; written in full,
 *   and its fsync started on a thread of its own (at most four at once): the caller goes on
 *   while the disk catches up, and the commit waits for every one (a failed fsync fails the
 *   commit, naming the file, and nothing is replaced). A symbolic link at dir/NAME is never
 *   followed: the link itself is replaced by the file (it may lead out of the folder). A
 *   folder there is refused. Nothing in place changes yet. A name is added at most once.
 * - remove_stale: dir/NAME (a file this run could not rewrite, e.g. a meshdata the skin
 *   cannot have) is removed at commit if it exists; am_outset_was_removed says whether it
 *   was. Adding the name later cancels the removal.
 * - own: the set owns the files its previous runs wrote: MANIFEST (a plain name, e.g.
 *   "NAME.outset") lists, one per line, the names the set wrote, each with the file's
 *   identity as written (device, inode, size, modification time). At commit, each name the
 *   previous manifest lists that this set does not write is removed if it still is that
 *   very file (am_outset_removed_name lists them), and the new manifest is written with the
 *   set. A listed file that is not (planted, edited, an older manifest without identities)
 *   is left and reported (am_outset_warning). Files no manifest lists are never touched.
 * - commit: only once every add succeeded. Under the folder's lock (so two runs' commits
 *   never interleave): the plan (stale names, temp -> name renames) is written to the
 *   journal ".animesh-outset-journal" in dir (with the identity of each temp and of each
 *   stale file as this run saw it) and fsync'd; then the stale names are removed,
 *   the temps renamed in the order added, the folder fsync'd and the journal removed. A kill
 *   or a failure after the journal is written is finished (rolled forward) by the next set
 *   begun in the folder: the set is replaced whole or not at all, as far as the file system
 *   keeps its renames. That next run acts on a journal's entry only while the file still has
 *   the identity the journal recorded; any other file is left and reported
 *   (am_outset_warning): a planted journal removes or overwrites nothing. Errors name the
 *   file (`where`) and say what failed.
 * - free: always call it (NULL is fine). Without a successful commit it removes every temp
 *   file the set made (except those a journal names), so an error path only has to free.
 * Not thread-safe per set; sets in different threads or processes may share a folder. */
#ifndef AM_CORE_OUTSET_H
#define AM_CORE_OUTSET_H

#ifdef __cplusplus
extern "C" {
#endif

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
/* See "own" above; call before commit. */
am_status am_outset_own(am_outset *set, const char *manifest, am_error *err);
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
/* Files renamed into place at begin, finishing a killed run's journaled commit. */
size_t am_outset_rolled_forward(const am_outset *set);
/* True when commit removed dir/NAME as stale. */
bool am_outset_was_removed(const am_outset *set, const char *name);
/* The i-th name commit removed (stale or no longer in the set's manifest); NULL past the end. */
const char *am_outset_removed_name(const am_outset *set, size_t i);
/* The i-th file a journal (at begin) or a manifest (at commit) named but this set left
 * because it is not the file animesh recorded: "left DIR/NAME: why", for the command to
 * print as a warning; NULL past the end. */
const char *am_outset_warning(const am_outset *set, size_t i);

#ifdef __cplusplus
}
#endif

#endif
