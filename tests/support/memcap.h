/* Whole commands under a memory cap, for the memory-bomb tests: the CLI runs in a child
 * whose address space is capped with setrlimit(RLIMIT_AS), so a reader that allocates far
 * beyond its input fails inside the child instead of taking the machine; the child's peak
 * resident memory is measured either way.
 *
 * Under AddressSanitizer (the Debug test build) the cap cannot be set: ASan's shadow memory
 * alone is terabytes of address space, so every later mmap would fail. There the child runs
 * uncapped and the test's assertion on the measured peak is what catches a bomb. */
#ifndef AM_TESTS_SUPPORT_MEMCAP_H
#define AM_TESTS_SUPPORT_MEMCAP_H

#include <stdbool.h>
#include <stddef.h>

/* True when the cap is really applied (not an ASan build). */
bool am_test_memcap_applies(void);
/* Run the animesh CLI with args (NULL-terminated, no shell) capped at cap_mib of address
 * space; stdout and stderr into out (truncated to out_size). *peak_mib: the child's peak
 * resident set, which on Linux includes this process's resident memory at the fork (exec
 * keeps the old image's high-water mark): run capped commands before memory-heavy tests.
 * Returns the exit code, or 128 + the signal that killed it. */
int am_test_run_cli_capped(size_t cap_mib, size_t *peak_mib, char *out, size_t out_size, const char *const *args);

#endif
