/* Shared helpers for the cmocka tests: where the shared data is, temp dirs, running the CLI. */
#ifndef AM_TEST_SUPPORT_H
#define AM_TEST_SUPPORT_H

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
/* A whole file (malloc'd, NUL after the data); fails the test when it cannot be read. */
uint8_t *am_test_slurp(const char *path, size_t *size);
/* Write text to a file (test fixtures). */
void am_test_write_text(const char *path, const char *text);

#endif
