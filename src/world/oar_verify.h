/* Proving a load: after admin_load_oar, the region saves itself (admin_save_oar) to a
 * temporary file, which is read back once whole and compared with the archive that was sent
 * (oar_check.h). The temporary file and its directory are removed again, whatever happens.
 *
 * The region writes the file on ITS host: this works when that host's file system is this
 * machine's (a region on loopback, or a directory both see at the same path, `dir`). The
 * directory is made with mkdtemp and opened to writes by others (mode 0733, no listing) so a
 * region running as another user can save into it. Since anyone may put files there, the
 * save is trusted only as what nobody else could have made:
 * - its name holds 128 random bits (getrandom), unrelated to the folder's visible name;
 * - it is opened O_NOFOLLOW | O_NONBLOCK and accepted only as a regular file with one link,
 *   owned by the region's user (region_uid; our own by default), modified and changed no
 *   earlier than the request (a link, a FIFO, a planted or older file: AM_ERR_INVALID at
 *   once, never a wait); every later look must find the same inode;
 * - waiting is bounded (appear_ms, then complete_ms), and the folder is emptied and removed
 *   on every return, whatever others put in it.
 *
 * What plays: a region saves SOPAnims, the animations playing, only once the starter script
 * has run llStartObjectAnimation, which may be after the load returns (the first save of a new
 * object often names none). When our archive holds a starter script, the region is asked to
 * save again, every play_poll_ms, until the save shows an animation playing or play_wait_ms
 * has passed since the first save; diff then says what plays, after how many saves, and what
 * the starter script starts (a save that still shows none is for the caller to report). */
#ifndef AM_WORLD_OAR_VERIFY_H
#define AM_WORLD_OAR_VERIFY_H

#ifdef __cplusplus
extern "C" {
#endif

#include "core/error.h"
#include "core/option.h"
#include "world/oar_check.h"
#include "world/remoteadmin.h"

/* Zeroed, the defaults (core/option.h); a field where zero is a choice takes AM_OPTION_ZERO
 * for it. */
typedef struct am_oar_verify_options {
    const char *dir;  /* where the temporary directory goes; NULL: $TMPDIR, else /tmp */
    long appear_ms;   /* how long the save may take to show up here after `saved`; 0: 3000 */
    long complete_ms; /* then how long it may take to be whole; 0: the RemoteAdmin total timeout */
    long poll_ms;     /* how often to look; 0: 200 */
    long region_uid;  /* the user the region runs as, who must own the save; 0: ours (the
                         default); AM_OPTION_ZERO: root (uid 0); am_oar_verify_uid converts */
    long play_wait_ms; /* how long to wait for the starter script's animation to play; 0: 20000;
                          AM_OPTION_ZERO: no wait */
    long play_poll_ms; /* how often to save again while waiting; 0: 1000 */
    const char *region_dir; /* `dir` as the region host names it (a share mounted elsewhere there);
                               NULL (default): the same path */
} am_oar_verify_options;

/* The defaults, written out (the same meaning as a zeroed struct). */
void am_oar_verify_options_init(am_oar_verify_options *vo);
/* region_uid for a user id, where -1 (or any negative) means ours: 0 for ours, AM_OPTION_ZERO
 * for root. */
long am_oar_verify_uid(long uid);

/* Whether our first object's root holds a starter script (an LSL item), and the animation it
 * starts (`string ANIMATION = "...";`, as oar_shape.c writes it) into name ("" when the script
 * cannot be read so). */
bool am_oar_starter_animation(const am_oar_contents *ours, char *name, size_t size);

/* Save the region named by region_name or region_id, read the save back and compare it with
 * ours into diff (free with am_oar_diff_free). AM_OK when the comparison ran (diff->count 0 =
 * verified); otherwise the error names what failed: admin_save_oar's reply, a save that never
 * appeared here (AM_ERR_IO: the region host's file system is not this one), or one that never
 * became whole. */
am_status am_oar_verify(const am_remoteadmin_options *ra, const char *region_name, const char *region_id,
                        const am_oar_contents *ours, const am_oar_verify_options *vo, am_oar_diff *diff,
                        am_error *err);

/* The save itself, for callers that want more than one comparison from it (batch spawn: every
 * creature of a region from one save, and the UUIDs OpenSim gave the objects it loaded, which
 * are in the objects' entries): the region saves itself as above and *saved holds the entries
 * keep() accepts (am_oar_read_filtered; keep NULL: all). Same rules, same clean-up. */
am_status am_oar_region_save(const am_remoteadmin_options *ra, const char *region_name, const char *region_id,
                             am_oar_keep_fn keep, void *user, const am_oar_verify_options *vo,
                             am_oar_contents *saved, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
