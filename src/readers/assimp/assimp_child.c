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
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scene/scene_stream.h"

#if defined(__SANITIZE_ADDRESS__)
#define AM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AM_UNDER_ASAN 1
#endif
#endif

am_child_limits am_assimp_child_limits(void)
{
    am_child_limits l = {AM_ASSIMP_CHILD_MEMORY_BYTES, AM_ASSIMP_CHILD_CPU_SECONDS};
    return l;
}

/* The address-space limit the child really gets (none under ASan). */
static uint64_t memory_limit(const am_child_limits *l)
{
#ifdef AM_UNDER_ASAN
    (void)l;
    return 0;
#else
    return l->memory_bytes;
#endif
}

/* --- the child --------------------------------------------------------------------- */

static void set_limits(const am_child_limits *l)
{
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    if (memory_limit(l)) {
        struct rlimit as = {(rlim_t)memory_limit(l), (rlim_t)memory_limit(l)};
        setrlimit(RLIMIT_AS, &as);
    }
    if (l->cpu_seconds) {
        struct rlimit cpu = {(rlim_t)l->cpu_seconds, (rlim_t)l->cpu_seconds + 5};
        setrlimit(RLIMIT_CPU, &cpu);
    }
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
static void child_main(int fd, am_child_scene_fn fn, void *ctx, const am_child_limits *limits, am_scene *out)
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

static am_status read_all(int fd, uint8_t **out, size_t *size, bool *too_big)
{
    uint8_t *d = NULL;
    size_t n = 0, cap = 0;
    *too_big = false;
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
static am_status child_died(int status, const am_child_limits *l, const char *reader, const char *source,
                            am_error *err)
{
    if (status == -1)
        am_fail(err, AM_ERR_INVALID, "%s was lost (waitpid failed)", reader);
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        am_fail(err, AM_ERR_INVALID, "%s used its %u s of CPU time and was stopped (signal %d): the file is too "
                "costly or hostile; nothing of it was read", reader, l->cpu_seconds, SIGXCPU);
    else if (WIFSIGNALED(status) && memory_limit(l))
        am_fail(err, AM_ERR_INVALID,
                "%s crashed (signal %d, %s): the file is malformed or hostile (or took more than the reader's "
                "%llu MiB of memory); nothing of it was read", reader, WTERMSIG(status),
                strsignal(WTERMSIG(status)), (unsigned long long)(memory_limit(l) >> 20));
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

am_status am_child_read_scene(am_child_scene_fn fn, void *ctx, const am_child_limits *limits, const char *reader,
                              const char *source, am_scene *out, am_error *err)
{
    am_child_limits l = limits ? *limits : am_assimp_child_limits();
    if (!source)
        source = out->source ? out->source : "(model)";
    int fds[2];
    if (pipe(fds) != 0)
        return am_fail_where(err, AM_ERR_IO, source, "cannot start %s: pipe: %s", reader, strerror(errno));
#ifdef F_SETPIPE_SZ
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20); /* fewer wake-ups for a large scene; the default if refused */
#endif
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
        child_main(fds[1], fn, ctx, &l, out);
    }
    close(fds[1]);
    uint8_t *bytes = NULL;
    size_t size = 0;
    bool too_big = false;
    am_status st = read_all(fds[0], &bytes, &size, &too_big);
    close(fds[0]);
    if (st != AM_OK || too_big)
        kill(pid, SIGKILL);
    int status = wait_child(pid);
    if (st != AM_OK)
        return am_fail_where(err, AM_ERR_NOMEM, source, "out of memory reading the answer of %s", reader);
    if (too_big) {
        free(bytes);
        return am_fail_where(err, AM_ERR_INVALID, source, "%s sent back more than %zu MiB", reader,
                             AM_SCENE_STREAM_MAX_BYTES >> 20);
    }
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(bytes);
        return child_died(status, &l, reader, source, err);
    }
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
    return am_child_read_scene(run_assimp, &job, limits, reader, source, out, err);
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
