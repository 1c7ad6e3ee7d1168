/* Loading a model file into a scene (scene.h): the format is recognised from the file's
 * first bytes (and its extension where the bytes cannot tell), then that format's reader
 * fills the scene and am_scene_finish validates it. One table in scene_load.c lists the
 * readers; adding a format is one reader file plus one row there.
 *
 * Every reader:
 *  - fills a scene whose `source`, `base_dir` and `format` the loader has already set
 *    (it must not clear them), and leaves validation to am_scene_finish;
 *  - takes the whole file's bytes (or, for assimp, its path), a `source` name for messages
 *    and the folder external files must resolve inside (`base_dir`): a path that leaves it
 *    (.., an absolute path elsewhere, a symlink out) is refused, never followed;
 *  - bounds-checks every offset and count against the bytes it has;
 *  - stores what the file says in the file's own units and axes (scene.h), records the
 *    quirks it met with am_scene_note, and never guesses a conversion;
 *  - fails with an error naming the file and the element ("Little Bear_90.dae:
 *    <controller id='x'>/<vertex_weights>: vcount sums to 120 influences, <v> has 118"). */
#ifndef AM_READERS_SCENE_LOAD_H
#define AM_READERS_SCENE_LOAD_H

#include "animesh/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include <stdbool.h>

#include "scene/scene.h"

/* A reader from bytes. */
typedef am_status (*am_scene_reader_fn)(const uint8_t *data, size_t size, const char *source,
                                        const char *base_dir, am_scene *out, am_error *err);

typedef struct am_scene_format_info {
    am_scene_format format;
    const char *name;        /* "COLLADA", "glTF", ... */
    const char *extensions;  /* space-separated, lower case: ".dae" */
    size_t max_bytes;        /* refused above this size, checked before reading */
} am_scene_format_info;

/* Which format a file is, from its first bytes (`head`, `head_size` of them) and its name.
 * AM_SCENE_FORMAT_UNKNOWN when none matches. */
am_scene_format am_scene_sniff(const uint8_t *head, size_t head_size, const char *path);
/* The table row of a format, NULL when the format has no reader in this build. */
const am_scene_format_info *am_scene_format_lookup(am_scene_format format);
/* True when the file's format is read in a child process by default (FBX and the other
 * assimp formats, readers/assimp/assimp_child.h; see am_scene_load_options.reader_process): a caller running threads of its own beside the load keeps
 * them from loading libraries meanwhile (a fork while another thread is inside dlopen can
 * leave the child's loader locked). False when the file cannot be looked at. */
bool am_scene_reads_in_child(const char *path);

#ifdef __cplusplus
}
#endif

#endif
