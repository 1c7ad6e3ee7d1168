/* assimp in a child process: the FBX and assimp readers as the tool runs them.
 *
 * assimp is a large C++ parser that crashes on hostile files (a deep ASCII FBX, a cluster
 * index out of range, a node connected to itself, an .md5mesh weight index past the end,
 * a deeply nested .x). So the tool never calls it in its own process: it forks, the child
 * lowers its limits (address space AM_ASSIMP_CHILD_MEMORY_BYTES with RLIMIT_AS, CPU time
 * AM_ASSIMP_CHILD_CPU_SECONDS with RLIMIT_CPU, no core dump), runs the in-process reader
 * (assimp_read.h) and sends back what it read as a scene stream (scene_stream.h), or the
 * error the reader gave, then leaves with _exit (no atexit handler, no stdio flush of the
 * parent's buffers). The parent reads the stream (at most AM_SCENE_STREAM_MAX_BYTES),
 * waits for the child, decodes the stream with its bounds-checked decoder and validates
 * the scene again with am_scene_finish. A child that dies (a signal, a limit, an exit
 * without a complete stream, an unreadable stream) becomes AM_ERR_INVALID naming the file:
 *     "model.fbx: the FBX reader (assimp) crashed (signal 11, Segmentation fault) ..."
 * The same file imports exactly as in process (the stream carries every field).
 *
 * Under AddressSanitizer the address-space limit is not set (ASan reserves terabytes of
 * shadow address space); the CPU limit and the crash handling still apply.
 *
 * Threads: the parent may hold idle library threads (OpenBLAS) when it forks; the child
 * runs only the reader's thread, and nothing in it depends on another thread's locks
 * beyond malloc's, which glibc's fork resets. */
#ifndef AM_IMPORT_ASSIMP_CHILD_H
#define AM_IMPORT_ASSIMP_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "readers/assimp/assimp_read.h"
#include "scene/scene.h"

#define AM_ASSIMP_CHILD_MEMORY_BYTES ((uint64_t)8 << 30)
#define AM_ASSIMP_CHILD_CPU_SECONDS 600u

typedef struct am_child_limits {
    uint64_t memory_bytes; /* RLIMIT_AS; 0 = none */
    unsigned cpu_seconds;  /* RLIMIT_CPU (soft; the hard limit 5 s later); 0 = none */
} am_child_limits;

/* The defaults above. */
am_child_limits am_assimp_child_limits(void);

/* What the child runs: fill `out` (it arrives as the caller's `out`). */
typedef am_status (*am_child_scene_fn)(void *ctx, am_scene *out, am_error *err);

/* Run fn(ctx) in a child under `limits` (NULL = am_assimp_child_limits()) and take its
 * scene into `out`. `reader` names the reader in messages ("the FBX reader (assimp)"),
 * `source` the file. On success `out` holds the child's scene, validated by
 * am_scene_finish, with the caller's `source` and `base_dir` kept when it had them. On
 * failure `out` keeps only what the caller had put there (source, base_dir, format). */
am_status am_child_read_scene(am_child_scene_fn fn, void *ctx, const am_child_limits *limits, const char *reader,
                              const char *source, am_scene *out, am_error *err);

/* The readers of scene_load's table: am_fbx_read / am_assimp_read (assimp_read.h), each
 * in a child. */
am_status am_fbx_read_isolated(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                               am_scene *out, am_error *err);
am_status am_assimp_read_isolated(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                                  am_scene *out, am_error *err);
/* Either with options and limits (NULL = defaults). */
am_status am_assimp_read_isolated_ex(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                                     am_scene_format format, const am_assimp_options *opt,
                                     const am_child_limits *limits, am_scene *out, am_error *err);

#endif
