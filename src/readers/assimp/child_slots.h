/* Slots for the reader children (assimp_child.h): at most N of them at once on a host,
 * counted with lock files, not with state in the process.
 *
 * Slot k is the file "animesh-reader-slot-K.lock" in a folder shared by whoever should
 * share the bound: $ANIMESH_READER_SLOT_DIR, else $TMPDIR, else /tmp (also when the one
 * named is not a folder the process can write). Taking it is an
 * exclusive, non-blocking flock on that file (opened without following links, created 0600
 * when missing); a slot is held by whoever holds the lock, and the kernel frees it when the
 * holder exits however it ends (a crash, SIGKILL), so no slot is ever lost. Giving it back
 * removes the file and unlocks it; a taker that locked a file since removed (its path now
 * names another file, or none) lets it go and tries again, so the folder keeps only the
 * files of slots in use. A fork made while the slot is held (the reader's child) keeps it
 * until both have let it go.
 *
 * Why files and not a counter in the process: the upload queue of a grid runs several
 * animesh processes, and the bound must hold across them; and there is no global mutable
 * state to guard. A file a stranger made in the folder (not ours to lock, or not a regular
 * file) counts as a busy slot. */
#ifndef AM_READERS_ASSIMP_CHILD_SLOTS_H
#define AM_READERS_ASSIMP_CHILD_SLOTS_H

#include <stddef.h>

#include "core/error.h"

typedef struct am_child_slot {
    int fd; /* -1 when none held */
    char path[1024];
} am_child_slot;

/* The folder and count from the environment (ANIMESH_READER_SLOT_DIR, TMPDIR, /tmp: the
 * first set; /tmp when that one is not a folder the process can write in;
 * ANIMESH_READER_SLOTS, 1..64, else `default_count`). dir points into the environment or
 * a literal. */
void am_child_slots_config(unsigned default_count, const char **dir, unsigned *count);

/* Take one of `count` slots in `dir`, waiting for one at most wait_seconds (0 = try once).
 * None free in time: AM_ERR_IO ("all N reader slots in DIR stayed busy for S s"). */
am_status am_child_slot_take(const char *dir, unsigned count, unsigned wait_seconds, am_child_slot *slot,
                             am_error *err);
/* Give it back (nothing when none is held). */
void am_child_slot_give(am_child_slot *slot);

#endif
