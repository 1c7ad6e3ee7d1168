#!/usr/bin/env bash
# Build the AddressSanitizer + UndefinedBehaviorSanitizer configuration with -Werror and run
# the whole cmocka suite through ctest, then the integration test against a real OpenSim region
# (ctest label `integration`; it skips, saying why, without mono or a network namespace); then
# run each fuzz target briefly when clang exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --deps --test-deps

BUILD=build-test
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DAM_WERROR=ON -DAM_SANITIZE=ON -DAM_BUILD_TESTS=ON
cmake --build "$BUILD" -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$BUILD" && ctest --output-on-failure -j"$(nproc)" -LE integration)
(cd "$BUILD" && ctest --output-on-failure -L integration)
# ctest shows no output for a skipped test: say why it skipped.
grep -h '^SKIP: ' "$BUILD/Testing/Temporary/LastTest.log" 2>/dev/null | sed 's/^/integration: /' || true

if command -v clang >/dev/null 2>&1 && [ -f tests/fuzz/CMakeLists.txt ]; then
  FUZZ=build-fuzz
  CC=clang cmake -S . -B "$FUZZ" -DCMAKE_BUILD_TYPE=Debug -DAM_BUILD_FUZZ=ON -DAM_BUILD_TESTS=OFF >/dev/null
  cmake --build "$FUZZ" -j"$(nproc)" >/dev/null
  for f in "$FUZZ"/tests/fuzz/fuzz_*; do
    [ -x "$f" ] || continue
    name=$(basename "$f")
    corpus="tests/fuzz/corpus/${name#fuzz_}"
    mkdir -p "$FUZZ/corpus-$name"
    # Fixed seed and run count: the same binary explores the same inputs every run, so CI is
    # repeatable; the time cap keeps it short. Longer runs: AM_FUZZ_RUNS / AM_FUZZ_SECONDS.
    echo "fuzz: $name (${AM_FUZZ_RUNS:-40000} runs, at most ${AM_FUZZ_SECONDS:-30}s)"
    dict="tests/fuzz/$name.dict"
    "$f" -seed=1 -runs="${AM_FUZZ_RUNS:-40000}" -max_total_time="${AM_FUZZ_SECONDS:-30}" \
      -print_final_stats=1 $( [ -f "$dict" ] && echo "-dict=$dict" ) "$FUZZ/corpus-$name" \
      $( [ -d "$corpus" ] && echo "$corpus" ) 2>&1 | grep -E 'stat::number_of_executed_units|ERROR|SUMMARY' || true
    test "${PIPESTATUS[0]}" -eq 0
  done
fi
