/* assimp in a child process (assimp_child.h): fork, limits, the scene stream back. */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "readers/assimp/assimp_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "readers/assimp/child_slots.h"
#include "readers/assimp/fbx_graph.h"
#include "scene/scene_stream.h"

#if defined(__SANITIZE_ADDRESS__)
#define AM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AM_UNDER_ASAN 1
#endif
#endif

am_child_limits am_assimp_child_limits(uint64_t weight, unsigned factor)
{
    am_child_limits l = {AM_ASSIMP_CHILD_MEMORY_FLOOR, AM_ASSIMP_CHILD_CPU_SECONDS, AM_ASSIMP_CHILD_WALL_SECONDS};
    uint64_t room = AM_ASSIMP_CHILD_MEMORY_MAX - AM_ASSIMP_CHILD_MEMORY_FLOOR;
    l.memory_bytes += factor && weight > room / factor ? room : weight * factor;
    return l;
}

void am_child_limit_within(uint64_t want_soft, uint64_t want_hard, uint64_t soft_now, uint64_t hard_now,
                           uint64_t *soft, uint64_t *hard)
{
    *hard = want_hard < hard_now ? want_hard : hard_now;
    *soft = want_soft < soft_now ? want_soft : soft_now;
    if (*soft > *hard)
        *soft = *hard;
}

#ifndef AM_UNDER_ASAN
/* What the process maps now (VmSize): the child starts with all of it. 0 when unknown. */
static uint64_t mapped_now(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;
    if (f) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE);
    return pages * (uint64_t)(page > 0 ? page : 4096);
}
#endif

/* The limits the child sets, worked out in the parent (which reports them): the wanted
 * ones, each pair never above the caller's own. */
typedef struct child_rlimits {
    bool memory; /* RLIMIT_AS set (never under ASan) */
    struct rlimit as, cpu;
    unsigned wall_seconds;
} child_rlimits;

static child_rlimits effective_limits(const am_child_limits *l)
{
    child_rlimits r;
    memset(&r, 0, sizeof r);
    struct rlimit now;
    uint64_t soft, hard;
#ifndef AM_UNDER_ASAN
    if (l->memory_bytes && getrlimit(RLIMIT_AS, &now) == 0) {
        uint64_t want = mapped_now() + l->memory_bytes;
        am_child_limit_within(want, want, now.rlim_cur, now.rlim_max, &soft, &hard);
        r.memory = true;
        r.as.rlim_cur = (rlim_t)soft;
        r.as.rlim_max = (rlim_t)hard;
    }
#endif
    r.cpu.rlim_cur = r.cpu.rlim_max = RLIM_INFINITY;
    if (getrlimit(RLIMIT_CPU, &now) == 0) {
        uint64_t want_soft = l->cpu_seconds ? l->cpu_seconds : (uint64_t)RLIM_INFINITY;
        uint64_t want_hard = l->cpu_seconds ? (uint64_t)l->cpu_seconds + 5 : (uint64_t)RLIM_INFINITY;
        am_child_limit_within(want_soft, want_hard, now.rlim_cur, now.rlim_max, &soft, &hard);
        r.cpu.rlim_cur = (rlim_t)soft;
        r.cpu.rlim_max = (rlim_t)hard;
    }
    r.wall_seconds = l->wall_seconds;
    return r;
}

/* --- the child --------------------------------------------------------------------- */

static void set_limits(const child_rlimits *r)
{
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    if (r->memory)
        setrlimit(RLIMIT_AS, &r->as);
    setrlimit(RLIMIT_CPU, &r->cpu);
}

static bool write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* A crash in the child is a plain death by signal, whatever handlers the parent had
 * (a test framework's, a sanitizer's): the parent reports it. What the reader prints while
 * it dies (assimp's ai_assert lines) is not for the user: stderr goes to /dev/null. */
static void plain_deaths(void)
{
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGXCPU, SIGPIPE};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], SIG_DFL);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, STDERR_FILENO);
        close(null);
    }
}

/* Never returns: runs the reader, writes its answer, _exit. */
static void child_main(int fd, am_child_scene_fn fn, void *ctx, const child_rlimits *limits, am_scene *out)
{
    plain_deaths();
    set_limits(limits);
    am_error err;
    am_error_clear(&err);
    uint8_t *bytes = NULL;
    size_t size = 0;
    am_status st = fn(ctx, out, &err);
    am_error enc_err;
    if (st == AM_OK)
        st = am_scene_stream_encode(out, &bytes, &size, &err);
    if (st != AM_OK && am_scene_stream_encode_error(&err, &bytes, &size, &enc_err) != AM_OK)
        _exit(3);
    _exit(write_all(fd, bytes, size) ? 0 : 4);
}

/* --- the parent -------------------------------------------------------------------- */

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Everything the child writes, until it closes the pipe, the stream limit, or the
 * wall-clock limit (wall_seconds after t0; 0 = none) passes (*timed_out). */
static am_status read_all(int fd, const struct timespec *t0, unsigned wall_seconds, uint8_t **out, size_t *size,
                          bool *too_big, bool *timed_out)
{
    uint8_t *d = NULL;
    size_t n = 0, cap = 0;
    *too_big = *timed_out = false;
    for (;;) {
        if (n == cap) {
            if (cap >= AM_SCENE_STREAM_MAX_BYTES) {
                *too_big = true;
                break;
            }
            size_t nc = cap ? 2 * cap : 65536;
            if (nc > AM_SCENE_STREAM_MAX_BYTES)
                nc = AM_SCENE_STREAM_MAX_BYTES;
            uint8_t *nd = realloc(d, nc);
            if (!nd) {
                free(d);
                return AM_ERR_NOMEM;
            }
            d = nd;
            cap = nc;
        }
        if (wall_seconds) {
            double left = wall_seconds - seconds_since(t0);
            if (left <= 0) {
                *timed_out = true;
                break;
            }
            struct pollfd p = {fd, POLLIN, 0};
            int ready = poll(&p, 1, left > 1000 ? 1000000 : (int)(left * 1000) + 1);
            if (ready < 0 && errno != EINTR)
                break;
            if (ready <= 0)
                continue;
        }
        ssize_t r = read(fd, d + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    *out = d;
    *size = n;
    return AM_OK;
}

static int wait_child(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

/* The child's death as an error naming the file. */
static am_status child_died(int status, const child_rlimits *l, bool timed_out, const char *reader,
                            const char *source, am_error *err)
{
    if (timed_out)
        am_fail(err, AM_ERR_INVALID, "%s took more than its %u s of wall-clock time and was stopped: the file is too "
                "costly or hostile; nothing of it was read", reader, l->wall_seconds);
    else if (status == -1)
        am_fail(err, AM_ERR_INVALID, "%s was lost (waitpid failed)", reader);
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        am_fail(err, AM_ERR_INVALID, "%s used its %llu s of CPU time and was stopped (signal %d): the file is too "
                "costly or hostile; nothing of it was read", reader, (unsigned long long)l->cpu.rlim_cur, SIGXCPU);
    else if (WIFSIGNALED(status) && l->memory)
        am_fail(err, AM_ERR_INVALID,
                "%s crashed (signal %d, %s): the file is malformed or hostile (or took more than the reader's "
                "%llu MiB of address space); nothing of it was read", reader, WTERMSIG(status),
                strsignal(WTERMSIG(status)), (unsigned long long)(l->as.rlim_cur >> 20));
    else if (WIFSIGNALED(status))
        am_fail(err, AM_ERR_INVALID,
                "%s crashed (signal %d, %s): the file is malformed or hostile; nothing of it was read", reader,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        am_fail(err, AM_ERR_INVALID, "%s stopped (exit status %d) without an answer: the file is malformed or "
                "hostile; nothing of it was read", reader, WEXITSTATUS(status));
    else
        am_fail(err, AM_ERR_INVALID, "%s ended without a complete answer", reader);
    am_error_where(err, "%s", source);
    return AM_ERR_INVALID;
}

/* The child's run in a slot: fork, read its answer within the wall-clock limit, wait. */
static am_status run_child(am_child_scene_fn fn, void *ctx, const child_rlimits *lim, const char *reader,
                           const char *source, am_scene *out, uint8_t **bytes, size_t *size, am_error *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return am_fail_where(err, AM_ERR_IO, source, "cannot start %s: pipe: %s", reader, strerror(errno));
#ifdef F_SETPIPE_SZ
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20); /* fewer wake-ups for a large scene; the default if refused */
#endif
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return am_fail_where(err, e == ENOMEM || e == EAGAIN ? AM_ERR_NOMEM : AM_ERR_IO, source,
                             "cannot start %s: fork: %s", reader, strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1], fn, ctx, lim, out);
    }
    close(fds[1]);
    bool too_big = false, timed_out = false;
    am_status st = read_all(fds[0], &t0, lim->wall_seconds, bytes, size, &too_big, &timed_out);
    close(fds[0]);
    if (st != AM_OK || too_big || timed_out)
        kill(pid, SIGKILL);
    int status = wait_child(pid);
    if (st != AM_OK)
        return am_fail_where(err, AM_ERR_NOMEM, source, "out of memory reading the answer of %s", reader);
    if (too_big) {
        free(*bytes);
        *bytes = NULL;
        return am_fail_where(err, AM_ERR_INVALID, source, "%s sent back more than %zu MiB", reader,
                             AM_SCENE_STREAM_MAX_BYTES >> 20);
    }
    if (timed_out || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(*bytes);
        *bytes = NULL;
        return child_died(status, lim, timed_out, reader, source, err);
    }
    return AM_OK;
}

am_status am_child_read_scene(am_child_scene_fn fn, void *ctx, const am_child_limits *limits, const char *reader,
                              const char *source, am_scene *out, am_error *err)
{
    am_child_limits l = limits ? *limits : am_assimp_child_limits(0, 0);
    child_rlimits lim = effective_limits(&l);
    if (!source)
        source = out->source ? out->source : "(model)";
    const char *slot_dir;
    unsigned slots;
    am_child_slots_config(AM_ASSIMP_CHILD_SLOTS, &slot_dir, &slots);
    am_child_slot slot;
    am_status st = am_child_slot_take(slot_dir, slots, l.wall_seconds ? l.wall_seconds : AM_ASSIMP_CHILD_WALL_SECONDS,
                                      &slot, err);
    if (st != AM_OK) {
        am_error_where(err, "%s", source);
        return st;
    }
    uint8_t *bytes = NULL;
    size_t size = 0;
    st = run_child(fn, ctx, &lim, reader, source, out, &bytes, &size, err);
    am_child_slot_give(&slot);
    if (st != AM_OK)
        return st;
    am_scene got;
    bool was_error = false;
    st = am_scene_stream_decode(bytes, size, &got, &was_error, err);
    free(bytes);
    if (st != AM_OK) {
        if (was_error)
            return st; /* the reader's own error, as it gave it */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err ? err->msg : "bad stream");
        return am_fail_where(err, AM_ERR_INVALID, source, "%s sent back an unreadable answer (%s)", reader, why);
    }
    /* The caller's names stay (scene_load owns them); the child's copies go. */
    if (out->source) {
        free(got.source);
        got.source = out->source;
    }
    if (out->base_dir) {
        free(got.base_dir);
        got.base_dir = out->base_dir;
    }
    got.skeleton = out->skeleton;
    am_scene keep = *out;
    *out = got;
    st = am_scene_finish(out, err);
    if (st != AM_OK) {
        if (out->source == keep.source)
            out->source = NULL;
        if (out->base_dir == keep.base_dir)
            out->base_dir = NULL;
        am_scene_free(out);
        memset(out, 0, sizeof *out);
        out->source = keep.source;
        out->base_dir = keep.base_dir;
        out->format = keep.format;
        out->skeleton = keep.skeleton;
    }
    return st;
}

/* --- the assimp readers ------------------------------------------------------------ */

typedef struct assimp_job {
    const uint8_t *data;
    size_t size;
    const char *source, *base_dir;
    am_scene_format format;
    const am_assimp_options *opt;
} assimp_job;

static am_status run_assimp(void *ctx, am_scene *out, am_error *err)
{
    const assimp_job *j = ctx;
    return am_assimp_read_ex(j->data, j->size, j->source, j->base_dir, j->format, j->opt, out, err);
}

am_status am_assimp_read_isolated_ex(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                                     am_scene_format format, const am_assimp_options *opt,
                                     const am_child_limits *limits, am_scene *out, am_error *err)
{
    assimp_job job = {data, size, source, base_dir, format, opt};
    const char *reader = format == AM_SCENE_FORMAT_FBX ? "the FBX reader (assimp)" : "the assimp reader";
    /* The budget from the input (assimp_child.h). An FBX's graph is checked here first too,
     * so a file refused for it costs no fork; a version too old is left to the child's
     * reader, whose message names it. */
    uint64_t weight = size;
    unsigned factor = AM_ASSIMP_CHILD_FACTOR_TEXT, version = 0;
    if (format == AM_SCENE_FORMAT_FBX && am_fbx_version(data, size, &version, NULL) == AM_OK && version >= 7100) {
        am_fbx_graph_stats stats;
        if (am_fbx_check_graph(data, size, &stats, err)) {
            am_error_where(err, "Connections");
            am_error_where(err, "%s", source ? source : "(model)");
            return AM_ERR_INVALID;
        }
        if (size >= 20 && memcmp(data, "Kaydara FBX Binary", 18) == 0) {
            weight += stats.array_bytes;
            factor = AM_ASSIMP_CHILD_FACTOR_BINARY;
        }
    }
    am_child_limits derived = am_assimp_child_limits(weight, factor);
    return am_child_read_scene(run_assimp, &job, limits ? limits : &derived, reader, source, out, err);
}

am_status am_fbx_read_isolated(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                               am_scene *out, am_error *err)
{
    return am_assimp_read_isolated_ex(data, size, source, base_dir, AM_SCENE_FORMAT_FBX, NULL, NULL, out, err);
}

am_status am_assimp_read_isolated(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                                  am_scene *out, am_error *err)
{
    return am_assimp_read_isolated_ex(data, size, source, base_dir, AM_SCENE_FORMAT_ASSIMP, NULL, NULL, out, err);
}
