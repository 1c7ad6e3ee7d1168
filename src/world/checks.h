/* Local checks that `push` and `oar` run on their inputs, so nothing invalid leaves the
 * machine: the texture is a raw JPEG-2000 code stream that decodes (OpenJPEG) to a size the
 * viewer accepts (power-of-two sides, 1..1024); each .anim passes the decoder's checks
 * (anim/anim.h: the viewer's rejections and ours) and, with a skeleton, the joint-name
 * checks an upload applies. */
#ifndef AM_WORLD_CHECKS_H
#define AM_WORLD_CHECKS_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "skeleton/skeleton.h"

/* A name that travels as JSON or XML text (an object or animation name): valid UTF-8 and
 * no control characters. The message names `what` ("--anim", "object") and shows the
 * bad byte. */
am_status am_world_check_text(const char *what, const char *text, am_error *err);

/* width/height may be NULL. */
am_status am_world_check_texture(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height, am_error *err);
/* skel may be NULL (names then unchecked). A joint the viewer does not know is refused,
 * as an upload refuses it, unless allow_unknown_joints: the file reaches the region's asset
 * store directly (OAR, store_anim), and the viewer then drops that joint in-world (a prop
 * joint in a stock animation, say); such joints are counted in *unknown_joints (may be
 * NULL) for a warning. What the viewer refuses to play always fails. */
am_status am_world_check_anim(const uint8_t *data, size_t size, const am_skeleton *skel, bool allow_unknown_joints,
                              size_t *unknown_joints, am_error *err);

#ifdef __cplusplus
}
#endif

#endif
