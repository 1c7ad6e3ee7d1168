/* Growing an array by doubling, for readers that learn a count only as they go. */
#ifndef AM_CORE_GROW_H
#define AM_CORE_GROW_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#include "core/error.h"

/* Make *p hold at least `need` elements of `elem` bytes (capacity *cap, doubled from 256;
 * contents kept). On failure *p is unchanged and AM_ERR_NOMEM names `what`. */
am_status am_grow(void **p, size_t *cap, size_t need, size_t elem, const char *what, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
