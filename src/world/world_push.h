/* A creature into a running region over WorldBridge, the whole sequence (docs/world.md):
 * spawn the mesh, store each animation, play the chosen one, save the world. The wire
 * format, the Idempotency-Keys and the retries are worldbridge.h's; this module only orders
 * the calls and keeps what each returned, so a program other than the CLI pushes the same
 * way the CLI does.
 *
 * The meshdata file is read and validated here, before anything is sent (meshdata.h); the
 * animations and the texture are bytes the caller checked (checks.h am_world_check_anim and
 * am_world_check_texture). */
#ifndef AM_WORLD_PUSH_H
#define AM_WORLD_PUSH_H

#include "animesh/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/am_string.h"
#include "core/error.h"
#include "skeleton/skeleton.h"
#include "world/worldbridge.h"

#ifdef __cplusplus
}
#endif

#endif
