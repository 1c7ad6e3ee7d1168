#!/usr/bin/env bash
# Build the AddressSanitizer + UndefinedBehaviorSanitizer configuration with -Werror and run
# the whole cmocka suite through ctest, then the integration test against a real OpenSim region
# (ctest label `integration`; it skips, saying why, without mono or a network namespace), both
# in a fresh temporary root which must be empty when the tests end (every test cleans up after
# itself); then run every fuzz target for a fixed number of executions with a fixed seed
# (scripts/fuzz.sh --runs) when clang exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --deps --test-deps

BUILD=build-test
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DAM_WERROR=ON -DAM_SANITIZE=ON -DAM_BUILD_TESTS=ON
cmake --build "$BUILD" -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/animesh-ci-XXXXXX")
trap 'rm -rf "$TEST_TMP"' EXIT
(cd "$BUILD" && TMPDIR="$TEST_TMP" ctest --output-on-failure -j"$(nproc)" -LE integration)
(cd "$BUILD" && TMPDIR="$TEST_TMP" ctest --output-on-failure -L integration)
# ctest shows no output for a skipped test: say why it skipped.
grep -h '^SKIP: ' "$BUILD/Testing/Temporary/LastTest.log" 2>/dev/null | sed 's/^/integration: /' || true
if [ -n "$(ls -A "$TEST_TMP")" ]; then
  echo "test.sh: the tests left files in their temporary root $TEST_TMP:" >&2
  ls -lA "$TEST_TMP" >&2
  exit 1
fi
echo "test.sh: the tests left nothing in their temporary root"

if command -v clang >/dev/null 2>&1 && [ -f tests/fuzz/CMakeLists.txt ]; then
  # Fixed seed and run count: the same binaries explore the same inputs every run, so CI
  # is repeatable and short; scripts/fuzz.sh SECONDS runs a real campaign.
  bash scripts/fuzz.sh --runs "${AM_FUZZ_RUNS:-20000}"
fi
