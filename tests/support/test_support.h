/* Shared helpers for the cmocka tests: where the shared data is, temp dirs, running the CLI. */
#ifndef AM_TESTS_SUPPORT_TEST_SUPPORT_H
#define AM_TESTS_SUPPORT_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "skeleton/skeleton.h"

/* Debian 12's cmocka (1.1.5) has only a float comparison; compare doubles properly.
 * assert_near fails with both values printed when |a - b| > tol (or either is NaN). */
void am_test_assert_near(double a, double b, double tol, const char *ea, const char *eb,
                         const char *file, int line);
#define assert_near(a, b, tol) \
    am_test_assert_near((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)
#ifndef assert_double_equal
#define assert_double_equal(a, b, tol) assert_near(a, b, tol)
#endif

/* Comparisons that print both sides when they fail ("x = 3, limit = 2: expected x < limit"),
 * for integers of any signedness (compared as numbers: -1 < 0u holds) and floating point
 * (NaN fails every comparison), and pointers into one buffer (char, byte, float or void
 * pointers). assert_lt(a, b) is a < b; le <=, gt >, ge >=. */
typedef struct am_test_value {
    enum { AM_TEST_SIGNED, AM_TEST_UNSIGNED, AM_TEST_FLOAT, AM_TEST_POINTER } kind;
    intmax_t i;
    uintmax_t u;
    long double f;
} am_test_value;
am_test_value am_test_signed(intmax_t v);
am_test_value am_test_unsigned(uintmax_t v);
am_test_value am_test_float(long double v);
am_test_value am_test_pointer(const void *p);
#define AM_TEST_VALUE(x)                                                                          \
    _Generic((x), float: am_test_float, double: am_test_float, long double: am_test_float,         \
             _Bool: am_test_unsigned, unsigned char: am_test_unsigned, unsigned short: am_test_unsigned, \
             unsigned int: am_test_unsigned, unsigned long: am_test_unsigned,                     \
             unsigned long long: am_test_unsigned, char *: am_test_pointer, const char *: am_test_pointer, \
             unsigned char *: am_test_pointer, const unsigned char *: am_test_pointer,            \
             float *: am_test_pointer, const float *: am_test_pointer, void *: am_test_pointer,   \
             const void *: am_test_pointer, default: am_test_signed)(x)
void am_test_assert_compare(am_test_value a, am_test_value b, const char *op, const char *ea, const char *eb,
                            const char *file, int line);
#define AM_TEST_COMPARE(a, op, b) \
    am_test_assert_compare(AM_TEST_VALUE(a), AM_TEST_VALUE(b), #op, #a, #b, __FILE__, __LINE__)
#define assert_lt(a, b) AM_TEST_COMPARE(a, <, b)
#define assert_le(a, b) AM_TEST_COMPARE(a, <=, b)
#define assert_gt(a, b) AM_TEST_COMPARE(a, >, b)
#define assert_ge(a, b) AM_TEST_COMPARE(a, >=, b)

/* Test data from outside the repository that a machine may lack (Debian's assimp-testmodels
 * under /usr/share/assimp/models): when path cannot be read the test is skipped, printing
 * the path and why. The shared folder's data is required, never skipped (am_test_slurp and
 * am_test_load_viewer_skeleton fail when it is missing). */
void am_test_skip_unless_readable_at(const char *path, const char *file, int line);
#define am_test_skip_if_missing(path) am_test_skip_unless_readable_at((path), __FILE__, __LINE__)

/* "<shared>/<rel>" into a static-free caller buffer. */
const char *am_test_shared_path(char *buf, size_t size, const char *rel);
/* The viewer skeleton from ../shared/viewer (fails the test if missing). */
void am_test_load_viewer_skeleton(am_skeleton *skel);
/* A fresh temporary directory "$TMPDIR/animesh-test-XXXXXX" (mkdtemp; /tmp without
 * TMPDIR); remove it with am_test_rmtree when the test ends. */
const char *am_test_tmpdir(char *buf, size_t size);
/* Remove a directory and everything in it (what am_test_tmpdir made); fails the test when
 * something cannot be removed. Symbolic links are removed, never followed. */
void am_test_rmtree(const char *dir);
/* Entries in a directory, "." and ".." not counted (-1 when it cannot be opened). */
int am_test_count_entries(const char *dir);
/* Run the animesh CLI with a shell command line appended; captures stdout+stderr into out
 * (truncated to out_size) and returns the exit code. */
int am_test_run_cli(char *out, size_t out_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The two files hold the same bytes and are not empty; else the test fails naming both. */
void am_test_assert_same_file(const char *a, const char *b);
/* A whole file (malloc'd, NUL after the data); fails the test when it cannot be read. */
uint8_t *am_test_slurp(const char *path, size_t *size);
/* Write text to a file (test fixtures). */
void am_test_write_text(const char *path, const char *text);

#endif
