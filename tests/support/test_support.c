#define _XOPEN_SOURCE 700 /* nftw */
#include "test_support.h"

#include "core/io.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
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

void am_test_assert_same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    uint8_t *da = am_test_slurp(a, &na), *db = am_test_slurp(b, &nb);
    bool same = na > 0 && na == nb && memcmp(da, db, na) == 0;
    free(da);
    free(db);
    if (!same)
        fail_msg("%s (%zu bytes) and %s (%zu bytes) differ (or are empty)", a, na, b, nb);
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

am_test_value am_test_signed(intmax_t v)
{
    return (am_test_value){.kind = AM_TEST_SIGNED, .i = v};
}

am_test_value am_test_unsigned(uintmax_t v)
{
    return (am_test_value){.kind = AM_TEST_UNSIGNED, .u = v};
}

am_test_value am_test_float(long double v)
{
    return (am_test_value){.kind = AM_TEST_FLOAT, .f = v};
}

am_test_value am_test_pointer(const void *p)
{
    return (am_test_value){.kind = AM_TEST_POINTER, .u = (uintmax_t)(uintptr_t)p};
}

static long double as_float(am_test_value v)
{
    return v.kind == AM_TEST_FLOAT ? v.f : v.kind == AM_TEST_SIGNED ? (long double)v.i : (long double)v.u;
}

/* -1, 0, 1 as a is below, equal to or above b; 2 when unordered (a NaN). Integers are
 * compared exactly, whatever their signedness. */
static int order(am_test_value a, am_test_value b)
{
    if (a.kind == AM_TEST_FLOAT || b.kind == AM_TEST_FLOAT) {
        long double x = as_float(a), y = as_float(b);
        return isnan(x) || isnan(y) ? 2 : (x > y) - (x < y);
    }
    if (a.kind == AM_TEST_SIGNED && a.i < 0)
        return b.kind == AM_TEST_SIGNED ? (a.i > b.i) - (a.i < b.i) : -1;
    if (b.kind == AM_TEST_SIGNED && b.i < 0)
        return 1;
    uintmax_t x = a.kind == AM_TEST_SIGNED ? (uintmax_t)a.i : a.u;
    uintmax_t y = b.kind == AM_TEST_SIGNED ? (uintmax_t)b.i : b.u;
    return (x > y) - (x < y);
}

static void format_value(am_test_value v, char *buf, size_t size)
{
    if (v.kind == AM_TEST_FLOAT)
        snprintf(buf, size, "%.17Lg", v.f);
    else if (v.kind == AM_TEST_SIGNED)
        snprintf(buf, size, "%jd", v.i);
    else if (v.kind == AM_TEST_POINTER)
        snprintf(buf, size, "%#jx", v.u);
    else
        snprintf(buf, size, "%ju", v.u);
}

void am_test_assert_compare(am_test_value a, am_test_value b, const char *op, const char *ea, const char *eb,
                            const char *file, int line)
{
    int o = order(a, b);
    bool holds = o != 2 && (strcmp(op, "<") == 0    ? o < 0
                            : strcmp(op, "<=") == 0 ? o <= 0
                            : strcmp(op, ">") == 0  ? o > 0
                                                    : o >= 0);
    if (holds)
        return;
    char va[64], vb[64];
    format_value(a, va, sizeof va);
    format_value(b, vb, sizeof vb);
    print_error("%s:%d: %s = %s, %s = %s: expected %s %s %s\n", file, line, ea, va, eb, vb, ea, op, eb);
    _fail(file, line);
}

void am_test_skip_unless_readable_at(const char *path, const char *file, int line)
{
    if (access(path, R_OK) == 0)
        return;
    print_message("skipped: %s cannot be read (%s)\n", path,
                  strncmp(path, "/usr/share/assimp/", 18) == 0 ? "install Debian's assimp-testmodels" : strerror(errno));
    _skip(file, line);
}
