#!/usr/bin/env bash
# Build the AddressSanitizer + UndefinedBehaviorSanitizer configuration with -Werror (gcc, the
# product's compiler) and run, in one ctest run, the whole cmocka suite and the integration test
# against a real OpenSim region (ctest label `integration`; it skips, saying why, without mono
# or a network namespace), in a fresh temporary root which must be empty when the tests end
# (every test cleans up after itself). Meanwhile, from the start, when clang exists: build the
# fuzz targets and run each for its fixed number of executions with a fixed seed
# (scripts/fuzz.sh --ci), at a lower priority, so the fuzz work fills the time the build and
# the tests leave idle. ccache, when present, compiles both builds. Ends with each phase's
# wall and CPU seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --deps --test-deps

BUILD=build-test
mkdir -p "$BUILD"
rm -f "$BUILD"/{configure,build,ctest,fuzz}.time
# phase NAME CMD...: run CMD; its wall, user and system seconds in $BUILD/NAME.time. A bash of
# its own times it, so the CPU counted is CMD's processes' alone, never the fuzz job's.
phase() {
  bash -c 'TIMEFORMAT="%R %U %S"; f=$1; shift; { time { "$@" 2>&3; }; } 3>&2 2>"$f"' _ "$BUILD/$1.time" "${@:2}"
}
CONFIG=(-DCMAKE_BUILD_TYPE=Debug -DAM_WERROR=ON -DAM_SANITIZE=ON -DAM_BUILD_TESTS=ON)
command -v ccache >/dev/null 2>&1 && CONFIG+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
# gold (binutils) links the ~110 sanitized programs in half the CPU of the default ld.bfd
command -v ld.gold >/dev/null 2>&1 && CONFIG+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=gold -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=gold)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/animesh-ci-XXXXXX")
FUZZ_PID=
stop_fuzz() { [ -z "$FUZZ_PID" ] || kill -TERM -- "-$FUZZ_PID" 2>/dev/null || true; }
trap 'stop_fuzz; rm -rf "$TEST_TMP"' EXIT

FUZZ=0
if command -v clang >/dev/null 2>&1 && [ -f tests/fuzz/CMakeLists.txt ]; then
  FUZZ=1
  # Fixed seed and run counts: the same binaries explore the same inputs every run, so CI
  # is repeatable and short; scripts/fuzz.sh SECONDS runs a real campaign.
  MODE=(--ci)
  [ -z "${AM_FUZZ_RUNS:-}" ] || MODE=(--runs "$AM_FUZZ_RUNS")
  # Its own process group (setsid), so that a failed test stops it with all its children.
  setsid nice -n 10 bash -c 'TIMEFORMAT="%R %U %S"; { time bash scripts/fuzz.sh "${@:2}" >"$1/fuzz.log" 2>&1; } 2>"$1/fuzz.time"' \
    _ "$BUILD" "${MODE[@]}" &
  FUZZ_PID=$!
fi

phase configure cmake -S . -B "$BUILD" "${CONFIG[@]}"
phase build cmake --build "$BUILD" -j"$(nproc)"

# The region test mostly waits on mono: it holds one ctest slot beyond the cores, and its COST
# (tests/CMakeLists.txt) makes ctest start it first, as it does the slowest unit tests.
phase ctest env TMPDIR="$TEST_TMP" ctest --test-dir "$BUILD" --output-on-failure -j"$(($(nproc) + 1))"
# ctest shows no output for a skipped test: say why it skipped.
grep -h '^SKIP: ' "$BUILD/Testing/Temporary/LastTest.log" 2>/dev/null | sed 's/^/integration: /' || true
if [ -n "$(ls -A "$TEST_TMP")" ]; then
  echo "test.sh: the tests left files in their temporary root $TEST_TMP:" >&2
  ls -lA "$TEST_TMP" >&2
  exit 1
fi
echo "test.sh: the tests left nothing in their temporary root"

fuzz_rc=0
if [ "$FUZZ" = 1 ]; then
  wait "$FUZZ_PID" || fuzz_rc=$?
  FUZZ_PID=
  cat "$BUILD/fuzz.log"
fi

# wall and CPU (user + system, children included) of each phase; the fuzz job runs beside the others
printf '%-28s %8s %8s\n' "test.sh: phase" wall cpu
for name in configure build ctest fuzz; do
  [ -f "$BUILD/$name.time" ] || continue
  awk -v p="test.sh: $name" '{ printf "%-28s %8.1f %8.1f\n", p, $1, $2 + $3 }' "$BUILD/$name.time"
done
printf '%-28s %8s\n' "test.sh: all (set-up included)" "$SECONDS"
exit "$fuzz_rc"
