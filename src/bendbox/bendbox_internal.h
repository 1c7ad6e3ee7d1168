/* Shared between the bend box's own files (not part of its public API). */
#ifndef AM_BENDBOX_INTERNAL_H
#define AM_BENDBOX_INTERNAL_H

#include <stddef.h>

/* Face `face` (0..5 in the order +X, -X, +Y, -Y, +Z, -Z): its label, squares along the
 * tile's u and v, and its tile column and row in the atlas. Returns 0 for a bad index. */
size_t am_bendbox_face_info(int face, const char **label, int *nu, int *nv, int *col, int *row);

#endif
