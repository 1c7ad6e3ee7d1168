#!/usr/bin/env bash
# Run the libFuzzer targets (tests/fuzz/fuzz_*.c; convention in tests/fuzz/README.md).
#
#   scripts/fuzz.sh SECONDS [TARGET...]     each target for SECONDS (a campaign); the corpus
#                                           it grows is kept in build-fuzz/corpus/NAME/
#   scripts/fuzz.sh --runs N [TARGET...]    each target for N executions with seed 1, from
#                                           its seeds only (what CI runs: repeatable)
#
# TARGET is a name (bvh) or fuzz_bvh; default: every tests/fuzz/fuzz_*.c. Builds build-fuzz
# with clang (AddressSanitizer + UndefinedBehaviorSanitizer, stop on the first report).
# Prints per target: executions, exec/s, coverage (cov/ft from libFuzzer's final stats),
# corpus size, crashes; exits 1 when any target crashed (the input is kept in
# build-fuzz/artifacts/), 2 on usage.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

MODE=time
LIMIT=""
if [ "${1:-}" = "--runs" ]; then
  MODE=runs
  LIMIT="${2:-}"
  shift 2 || usage
elif [ $# -ge 1 ]; then
  LIMIT="$1"
  shift
fi
[[ "$LIMIT" =~ ^[0-9]+$ ]] && [ "$LIMIT" -gt 0 ] || usage
# The time cap in --runs mode keeps CI short even if a target slows down.
CAP="${AM_FUZZ_SECONDS:-30}"

command -v clang >/dev/null 2>&1 || { echo "fuzz.sh: clang is needed (scripts/setup.sh installs it)" >&2; exit 2; }

FUZZ=build-fuzz
SHARED="${AM_SHARED_DIR:-$(cd .. && pwd)/shared}"
CC=clang cmake -S . -B "$FUZZ" -DCMAKE_BUILD_TYPE=Debug -DAM_BUILD_FUZZ=ON -DAM_BUILD_TESTS=OFF \
  -DAM_SHARED_DIR="$SHARED" >/dev/null || exit 2
cmake --build "$FUZZ" -j"$(nproc)" >/dev/null || { cmake --build "$FUZZ" -j1 2>&1 | tail -30; exit 2; }

if [ $# -gt 0 ]; then
  names=()
  for t in "$@"; do names+=("${t#fuzz_}"); done
else
  names=()
  for src in tests/fuzz/fuzz_*.c; do
    n=$(basename "$src" .c)
    names+=("${n#fuzz_}")
  done
fi

# Third-party seeds named in tests/fuzz/NAME.seeds (one glob a line; "shared:" = the shared
# folder), copied at run time (never into the repository), each cut to 64 KiB.
copy_seeds() {
  local list="$1" dest="$2" line pat f
  [ -f "$list" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%%#*}"
    line="$(echo "$line" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')"
    [ -n "$line" ] || continue
    pat="${line/#shared:/$SHARED/}"
    for f in $pat; do
      [ -f "$f" ] || continue
      head -c 65536 "$f" >"$dest/seed-$(basename "$f")"
    done
  done <"$list"
}

mkdir -p "$FUZZ/artifacts" "$FUZZ/logs"
crashed=0
printf '%-24s %12s %9s %7s %7s %8s %8s  %s\n' target executions exec/s cov ft corpus seconds crashes
for name in "${names[@]}"; do
  bin="$FUZZ/tests/fuzz/fuzz_$name"
  if [ ! -x "$bin" ]; then
    echo "fuzz.sh: no target fuzz_$name (tests/fuzz/fuzz_$name.c)" >&2
    exit 2
  fi
  seeds="tests/fuzz/corpus/$name"
  extra="$FUZZ/seeds/$name"
  rm -rf "$extra"
  mkdir -p "$extra"
  copy_seeds "tests/fuzz/$name.seeds" "$extra"
  if [ "$MODE" = runs ]; then
    work="$FUZZ/ci-corpus/$name" # fresh each time: the same inputs every run
    rm -rf "$work"
    args=(-seed=1 -runs="$LIMIT" -max_total_time="$CAP")
  else
    work="$FUZZ/corpus/$name" # kept: a campaign builds on the last one
    args=(-max_total_time="$LIMIT")
  fi
  mkdir -p "$work"
  dirs=("$work" "$extra")
  [ -d "$seeds" ] && dirs+=("$seeds")
  for dict in "tests/fuzz/$name.dict" "tests/fuzz/fuzz_$name.dict"; do
    [ -f "$dict" ] && args+=(-dict="$dict") && break
  done
  if [ -f "tests/fuzz/$name.options" ]; then
    while IFS= read -r opt; do [ -n "${opt%%#*}" ] && args+=("${opt%%#*}"); done <"tests/fuzz/$name.options"
  fi
  log="$FUZZ/logs/$name.log"
  start=$(date +%s)
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:abort_on_error=0" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$bin" "${args[@]}" -print_final_stats=1 -artifact_prefix="$FUZZ/artifacts/$name-" "${dirs[@]}" >"$log" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\)\/.*/\1/p') # inputs kept (seeds and new)
  crash="0"
  if [ $rc -ne 0 ]; then
    crashed=1
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    crash="1 (exit $rc${artifact:+, input $artifact}; log $log)"
  fi
  printf '%-24s %12s %9s %7s %7s %8s %8s  %s\n' "fuzz_$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
    "$corp" "$secs" "$crash"
  if [ $rc -ne 0 ]; then
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -8 | sed 's/^/    /'
  fi
done
exit $crashed
