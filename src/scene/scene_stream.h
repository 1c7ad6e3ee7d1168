/* The scene stream: an am_scene (scene.h) as bytes, for a scene read in another process
 * (assimp_child.h: the assimp readers run in a child, which sends back what it read).
 *
 * The stream is the child's whole answer: either a scene or the error its reader gave.
 * The parent trusts nothing in it: the decoder is a binary reader like any other (every
 * count checked against the bytes left before anything is allocated, every length and
 * index range it can know checked, a byte offset in every error), and the caller validates
 * the decoded scene again with am_scene_finish.
 *
 * FORMAT (version 1, little-endian, no padding):
 *   "AMSCNSTR" u32 version, u8 kind (1 = scene, 2 = error)
 *   error:  u32 code, str msg, str where, u64 offset
 *   scene:  str source, str base_dir, u32 format, str format_detail,
 *           nodes, materials, meshes, skins, clips (each u64 count, then the records in
 *           the field order of scene.h), declared (i32 up, i32 forward, f64 unit_m),
 *           notes (u32 count, str each, u64 dropped)
 *   then "END!" and nothing after it.
 *   str = u32 length then the bytes (0xFFFFFFFF = NULL); an optional array = u8 present,
 *   then its elements (its length follows from counts already read: vertex_count,
 *   joint_count, key_count ...); f32 / f64 as IEEE bits; bool as u8 0/1.
 * Every field of every scene struct is carried except am_scene.skeleton (a borrowed
 * pointer, NULL outside a reader). scene_stream.c asserts the size of each struct so that
 * a field added to scene.h breaks the build there until the stream carries it
 * (test_scene_stream.c round-trips a scene with every field set and compares them all).
 *
 * LIMITS: the stream AM_SCENE_STREAM_MAX_BYTES; a string 1 MiB. */
#ifndef AM_SCENE_STREAM_H
#define AM_SCENE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "scene/scene.h"

#define AM_SCENE_STREAM_VERSION 1u
#define AM_SCENE_STREAM_MAX_BYTES ((size_t)4 << 30)
#define AM_SCENE_STREAM_MAX_STRING ((size_t)1 << 20)

/* The scene as a stream (*out malloc'd, *size bytes). AM_ERR_NOMEM, or AM_ERR_INVALID when
 * a string is over the limit or the scene's arrays do not match its counts. */
am_status am_scene_stream_encode(const am_scene *scene, uint8_t **out, size_t *size, am_error *err);

/* An error as a stream (what a reader that failed sends). */
am_status am_scene_stream_encode_error(const am_error *carried, uint8_t **out, size_t *size, am_error *err);

/* Decode a stream into *out (zeroed first; empty after any failure).
 *  - a scene: AM_OK (not yet validated: call am_scene_finish);
 *  - an error record: its code, *err = the error it carries, *was_error = true;
 *  - anything else (cut short, a count beyond the bytes left, a bad length, trailing
 *    bytes): AM_ERR_INVALID "scene stream: ..." at its byte offset, *was_error = false.
 * was_error may be NULL. */
am_status am_scene_stream_decode(const uint8_t *data, size_t size, am_scene *out, bool *was_error, am_error *err);

#endif
