/* Packing archive entries back into an OAR, and moving an archive's objects.
 *
 * am_oar_pack writes entries (archive.xml first, as read) as the OAR writer does (oar.h): plain
 * ustar with the whole path in the name field, uid/gid 0, mode 0644, one mtime, gzip without a
 * timestamp; the same entries give the same bytes.
 *
 * am_oar_place is how `batch spawn` puts a creature where a layout says when its archive was
 * built for another place: OpenSim 0.9.2.2's admin_load_oar takes no displacement (only merge
 * and skip-assets), so the archive itself is moved. Every part's <GroupPosition> in every
 * objects/ entry becomes the new position (a child prim shares its root's group position) and
 * the entry's name its rounded position (objects/<Name>_<x>-<y>-<z>__<UUID>.xml); assets and
 * UUIDs are untouched, so a moved copy stores nothing twice on the grid. */
#ifndef AM_WORLD_OAR_PACK_H
#define AM_WORLD_OAR_PACK_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"
#include "world/oar_check.h"

/* The gzip-compressed tar of entries, in their order, into out. */
am_status am_oar_pack(const am_oar_entry *entries, size_t count, int64_t mtime, am_buf *out, am_error *err);

/* An archive's bytes with its objects at `position` (region metres, finite, 0..10000). */
am_status am_oar_place(const am_oar_contents *c, const double position[3], int64_t mtime, am_buf *out,
                       am_error *err);

#ifdef __cplusplus
}
#endif

#endif
