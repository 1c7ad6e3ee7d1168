/* assimp in a child process: the FBX and assimp readers as the tool runs them.
 *
 * assimp is a large C++ parser that crashes on hostile files (a deep ASCII FBX, a cluster
 * index out of range, a node connected to itself, an .md5mesh weight index past the end,
 * a deeply nested .x). So the tool never calls it in its own process: it forks, the child
 * lowers its limits (below), runs the in-process reader (assimp_read.h) and sends back what
 * it read as a scene stream (scene_stream.h), or the error the reader gave, then leaves
 * with _exit (no atexit handler, no stdio flush of the parent's buffers). The parent reads
 * the stream (at most AM_SCENE_STREAM_MAX_BYTES), waits for the child, decodes the stream
 * with its bounds-checked decoder and validates the scene again with am_scene_finish. A
 * child that dies (a signal, a limit, an exit without a complete stream, an unreadable
 * stream) becomes AM_ERR_INVALID naming the file:
 *     "model.fbx: the FBX reader (assimp) crashed (signal 11, Segmentation fault) ..."
 * The same file imports exactly as in process (the stream carries every field).
 *
 * LIMITS (docs/limits.md), set in the child before the reader runs, each never above the
 * caller's own (the lower of the two, soft and hard: a process run under `prlimit --as=1.5G
 * --cpu=2` gives its reader at most 1.5 GB and 2 s):
 *  - memory (RLIMIT_AS): what the process maps at the fork (inherited, mostly shared) plus a
 *    budget from the input's size: AM_ASSIMP_CHILD_MEMORY_FLOOR + factor x weight, at most
 *    AM_ASSIMP_CHILD_MEMORY_MAX. The weight of a binary FBX is its bytes plus what its arrays
 *    declare once inflated (fbx_graph.h), factor AM_ASSIMP_CHILD_FACTOR_BINARY; of an ASCII
 *    FBX or another format, its bytes, factor AM_ASSIMP_CHILD_FACTOR_TEXT. Measured with
 *    assimp 5.2 alone: rpm_avatar.fbx (1.19 MB, 1.86 MB of arrays) 12 MB, 4x its weight; an
 *    ASCII FBX of 25 MB of one-digit values 1.73 GB, 70x. A 1 MB upload gets about 0.5 GiB.
 *  - CPU (RLIMIT_CPU) AM_ASSIMP_CHILD_CPU_SECONDS (the hard limit 5 s later), and wall-clock
 *    time AM_ASSIMP_CHILD_WALL_SECONDS, after which the parent kills the child (a reader
 *    blocked or starved of CPU counts no CPU time);
 *  - no core dump.
 * Under AddressSanitizer the address-space limit is not set (ASan reserves terabytes of
 * shadow address space); the CPU and wall-clock limits and the crash handling still apply.
 *
 * CONCURRENCY: at most AM_ASSIMP_CHILD_SLOTS readers run at once on the host (the
 * environment's ANIMESH_READER_SLOTS, 1 to 64, changes it), whatever runs them: threads of one
 * process, or the processes of a grid's upload queue. A reader takes a slot before it forks
 * (child_slots.h: an flock'ed file in a shared folder, so a slot is freed when its holder
 * exits, however it ends, and no state lives in the process) and waits for one at most its
 * wall-clock limit. With the defaults a host's readers take at most 2 x 8 GiB, and a small
 * upload much less.
 *
 * Threads: the parent may hold idle library threads (OpenBLAS) when it forks; the child
 * runs only the reader's thread, and nothing in it depends on another thread's locks
 * beyond malloc's, which glibc's fork resets. */
#ifndef AM_READERS_ASSIMP_CHILD_H
#define AM_READERS_ASSIMP_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "readers/assimp/assimp_read.h"
#include "scene/scene.h"

#define AM_ASSIMP_CHILD_MEMORY_FLOOR ((uint64_t)512 << 20)
#define AM_ASSIMP_CHILD_MEMORY_MAX ((uint64_t)8 << 30)
#define AM_ASSIMP_CHILD_FACTOR_BINARY 32u
#define AM_ASSIMP_CHILD_FACTOR_TEXT 96u
#define AM_ASSIMP_CHILD_CPU_SECONDS 600u
#define AM_ASSIMP_CHILD_WALL_SECONDS 900u
#define AM_ASSIMP_CHILD_SLOTS 2u

typedef struct am_child_limits {
    uint64_t memory_bytes; /* the reader's budget over what the process maps (RLIMIT_AS); 0 = none */
    unsigned cpu_seconds;  /* RLIMIT_CPU (soft; the hard limit 5 s later); 0 = none */
    unsigned wall_seconds; /* killed after this long; 0 = none */
} am_child_limits;

/* The limits for an input of `weight` bytes read with `factor` (above): the memory budget
 * AM_ASSIMP_CHILD_MEMORY_FLOOR + factor x weight, at most AM_ASSIMP_CHILD_MEMORY_MAX; the
 * CPU and wall-clock defaults. */
am_child_limits am_assimp_child_limits(uint64_t weight, unsigned factor);

/* A limit pair the child may set: the wanted soft and hard values, each no higher than the
 * caller's (`soft_now`, `hard_now`; RLIM_INFINITY for none), the soft never above the hard. */
void am_child_limit_within(uint64_t want_soft, uint64_t want_hard, uint64_t soft_now, uint64_t hard_now,
                           uint64_t *soft, uint64_t *hard);

/* What the child runs: fill `out` (it arrives as the caller's `out`). */
typedef am_status (*am_child_scene_fn)(void *ctx, am_scene *out, am_error *err);

/* Run fn(ctx) in a child under `limits` (NULL = am_assimp_child_limits(0, 0)), in a slot
 * (above), and take its
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
