/* wait4 (the child's own peak memory) is a BSD call. */
#define _DEFAULT_SOURCE
#include "memcap.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

#if defined(__SANITIZE_ADDRESS__)
#define AM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AM_TEST_ASAN 1
#endif
#endif

bool am_test_memcap_applies(void)
{
#ifdef AM_TEST_ASAN
    return false;
#else
    return true;
#endif
}

int am_test_run_cli_capped(size_t cap_mib, size_t *peak_mib, char *out, size_t out_size, const char *const *args)
{
    const char *argv[64] = {AM_CLI_PATH};
    size_t argc = 1;
    for (; args[argc - 1] && argc < 63; argc++)
        argv[argc] = args[argc - 1];
    argv[argc] = NULL;
    int fd[2];
    if (pipe(fd) != 0)
        fail_msg("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[1]);
        /* OpenBLAS's worker threads spin on their buffer's failed allocation under a cap and
         * then block the exit (blas_thread_shutdown_ joins them): one thread, none started. */
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        if (am_test_memcap_applies()) {
            struct rlimit rl = {(rlim_t)cap_mib << 20, (rlim_t)cap_mib << 20};
            if (setrlimit(RLIMIT_AS, &rl) != 0)
                _exit(126);
        }
        execv(AM_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    close(fd[1]);
    size_t n = 0;
    if (out_size)
        out[0] = '\0';
    char chunk[4096];
    ssize_t got;
    while ((got = read(fd[0], chunk, sizeof chunk)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        size_t take = n + 1 < out_size ? ((size_t)got < out_size - 1 - n ? (size_t)got : out_size - 1 - n) : 0;
        memcpy(out + n, chunk, take);
        n += take;
        if (out_size)
            out[n] = '\0';
    }
    close(fd[0]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            fail_msg("wait4: %s", strerror(errno));
    *peak_mib = (size_t)ru.ru_maxrss >> 10; /* KiB on Linux */
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
