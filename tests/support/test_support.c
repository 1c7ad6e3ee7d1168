#define _XOPEN_SOURCE 700 /* nftw */
#include "test_support.h"

#include "core/io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <ftw.h>
#include <sys/wait.h>
#include <unistd.h>

const char *am_test_shared_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/%s", AM_SHARED_DIR, rel);
    return buf;
}

void am_test_load_viewer_skeleton(am_skeleton *skel)
{
    char path[4096];
    am_error err;
    am_error_clear(&err);
    am_status s = am_skeleton_load(am_test_shared_path(path, sizeof path, "viewer/avatar_skeleton.xml"), skel, &err);
    if (s) {
        char buf[512];
        fail_msg("cannot load the viewer skeleton: %s", am_error_format(&err, buf, sizeof buf));
    }
}

const char *am_test_tmpdir(char *buf, size_t size)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, size, "%s/animesh-test-XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(buf))
        fail_msg("mkdtemp failed");
    return buf;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void am_test_rmtree(const char *dir)
{
    if (!dir || !dir[0] || strcmp(dir, "/") == 0)
        fail_msg("am_test_rmtree: refusing '%s'", dir ? dir : "(null)");
    if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fail_msg("cannot remove the test folder %s", dir);
}

int am_test_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

int am_test_run_cli(char *out, size_t out_size, const char *fmt, ...)
{
    char args[8192], cmd[9000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", AM_CLI_PATH, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        fail_msg("popen failed for %s", cmd);
    size_t n = 0;
    if (out && out_size)
        out[0] = '\0';
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, p)) > 0) {
        if (out && n + 1 < out_size) {
            size_t take = got < out_size - 1 - n ? got : out_size - 1 - n;
            memcpy(out + n, chunk, take);
            n += take;
            out[n] = '\0';
        }
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

uint8_t *am_test_slurp(const char *path, size_t *size)
{
    uint8_t *d = NULL;
    am_error err;
    if (am_read_file(path, &d, size, &err))
        fail_msg("cannot read %s", path);
    return d;
}

void am_test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

void am_test_assert_near(double a, double b, double tol, const char *ea, const char *eb,
                         const char *file, int line)
{
    if (isnan(a) || isnan(b) || fabs(a - b) > tol) {
        print_error("%s:%d: %s = %.9g, %s = %.9g, difference %.3g > %.3g\n", file, line, ea, a, eb,
                    b, fabs(a - b), tol);
        _fail(file, line);
    }
}
