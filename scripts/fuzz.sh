#!/usr/bin/env bash
# Run the libFuzzer targets (tests/fuzz/fuzz_*.c; convention in tests/fuzz/README.md).
#
#   scripts/fuzz.sh SECONDS [TARGET...]     each target for SECONDS (a campaign); the corpus
#                                           it grows is kept in build-fuzz/corpus/NAME/
#   scripts/fuzz.sh --runs N [TARGET...]    each target for N executions with seed 1, from
#                                           its seeds only (repeatable)
#   scripts/fuzz.sh --ci [TARGET...]        as --runs, each target for its count in
#                                           tests/fuzz/ci_runs.txt (what CI runs)
#   scripts/fuzz.sh --calibrate SECONDS     as --runs, each target for SECONDS; writes the
#                                           executions it made, at least AM_FUZZ_MIN_RUNS
#                                           (20000), to tests/fuzz/ci_runs.txt
#
# TARGET is a name (bvh) or fuzz_bvh; default: every tests/fuzz/fuzz_*.c. Builds the targets
# alone in build-fuzz with clang (AddressSanitizer + UndefinedBehaviorSanitizer, stop on the
# first report; ccache when present) and runs AM_FUZZ_JOBS of them at a time (the cores).
# Prints per target: executions, exec/s, coverage (cov/ft from libFuzzer's final stats),
# corpus size, crashes; exits 1 when any target crashed (the input is kept in
# build-fuzz/artifacts/), 2 on usage.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

MODE=time
LIMIT=""
CALIBRATE=0
# Per-target run counts for --ci: "NAME RUNS" a line, about equal seconds each.
RUNS_FILE=tests/fuzz/ci_runs.txt
if [ "${1:-}" = "--runs" ]; then
  MODE=runs
  LIMIT="${2:-}"
  shift 2 || usage
elif [ "${1:-}" = "--ci" ]; then
  MODE=runs
  LIMIT=ci
  shift
elif [ "${1:-}" = "--calibrate" ]; then
  MODE=runs
  CALIBRATE=1
  LIMIT="${2:-}"
  shift 2 || usage
elif [ $# -ge 1 ]; then
  LIMIT="$1"
  shift
fi
[ "$LIMIT" = ci ] || { [[ "$LIMIT" =~ ^[0-9]+$ ]] && [ "$LIMIT" -gt 0 ]; } || usage
[ "$LIMIT" != ci ] || [ -f "$RUNS_FILE" ] || { echo "fuzz.sh: no $RUNS_FILE (fuzz.sh --calibrate SECONDS)" >&2; exit 2; }
# The time cap in --runs mode keeps CI short even if a target slows down; a target it stops
# short of its count is flagged (fewer executions: less coverage than the count promises).
CAP="${AM_FUZZ_SECONDS:-120}"

command -v clang >/dev/null 2>&1 || { echo "fuzz.sh: clang is needed (scripts/setup.sh installs it)" >&2; exit 2; }

SHARED="${AM_SHARED_DIR:-$(cd .. && pwd)/shared}"
JOBS="${AM_FUZZ_JOBS:-$(nproc)}"
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

for name in "${names[@]}"; do
  [ -f "tests/fuzz/fuzz_$name.c" ] || { echo "fuzz.sh: no target fuzz_$name (tests/fuzz/fuzz_$name.c)" >&2; exit 2; }
done

FUZZ=build-fuzz
CONFIG=(-DCMAKE_BUILD_TYPE=Debug -DAM_BUILD_FUZZ=ON -DAM_BUILD_TESTS=OFF -DAM_SHARED_DIR="$SHARED")
command -v ccache >/dev/null 2>&1 && CONFIG+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
CC=clang cmake -S . -B "$FUZZ" "${CONFIG[@]}" >/dev/null || exit 2
# only the targets (and the library they link): not the CLI, the benchmarks or the shared library
targets=("${names[@]/#/fuzz_}")
built=$SECONDS
cmake --build "$FUZZ" -j"$(nproc)" --target "${targets[@]}" >/dev/null ||
  { cmake --build "$FUZZ" -j1 --target "${targets[@]}" 2>&1 | tail -30; exit 2; }
echo "fuzz.sh: ${#targets[@]} targets built in $((SECONDS - built)) s"

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
ROW='%-24s %12s %9s %7s %7s %8s %8s  %s\n'

# One target: its row of the table in logs/NAME.row, its calibrated count in logs/NAME.runs,
# its exit status in logs/NAME.rc.
run_one() {
  local name="$1" bin="$FUZZ/tests/fuzz/fuzz_$1" seeds="tests/fuzz/corpus/$1" extra="$FUZZ/seeds/$1"
  local work runs="" args dirs dict opt log start rc secs execs rate last cov ft corp crash artifact min
  rm -rf "$extra"
  mkdir -p "$extra"
  copy_seeds "tests/fuzz/$name.seeds" "$extra"
  if [ "$MODE" = runs ]; then
    work="$FUZZ/ci-corpus/$name" # fresh each time: the same inputs every run
    rm -rf "$work"
    if [ "$CALIBRATE" = 1 ]; then
      args=(-seed=1 -max_total_time="$LIMIT")
    else
      runs="$LIMIT"
      [ "$LIMIT" != ci ] || runs=$(awk -v n="$name" '$1 == n { print $2 }' "$RUNS_FILE")
      [ -n "$runs" ] || { echo "fuzz.sh: fuzz_$name has no count in $RUNS_FILE" >&2; return 1; }
      args=(-seed=1 -runs="$runs" -max_total_time="$CAP")
    fi
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
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    crash="1 (exit $rc${artifact:+, input $artifact}; log $log)"
  elif [ -n "$runs" ] && [ "${execs:-0}" -lt "$runs" ]; then
    crash="0 (stopped by the ${CAP} s cap short of $runs executions)"
  fi
  {
    printf "$ROW" "fuzz_$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$corp" "$secs" "$crash"
    [ $rc -eq 0 ] || grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -8 | sed 's/^/    /'
  } >"$FUZZ/logs/$name.row"
  # A slow target keeps the old fixed count: at 3 s COLLADA and glTF reached 3-12% less cov.
  min="${AM_FUZZ_MIN_RUNS:-20000}"
  echo "$name $((${execs:-0} > min ? ${execs:-0} : min))" >"$FUZZ/logs/$name.runs"
  echo "$rc" >"$FUZZ/logs/$name.rc"
}

# JOBS targets at a time (each is one single-threaded process), the table in the targets' order.
for name in "${names[@]}"; do
  rm -f "$FUZZ/logs/$name".{row,runs,rc}
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  run_one "$name" &
done
wait
crashed=0
printf "$ROW" target executions exec/s cov ft corpus seconds crashes
for name in "${names[@]}"; do
  cat "$FUZZ/logs/$name.row" 2>/dev/null || printf "$ROW" "fuzz_$name" ? ? ? ? ? ? "no result"
  [ "$(cat "$FUZZ/logs/$name.rc" 2>/dev/null)" = 0 ] || crashed=1
done
if [ "$CALIBRATE" = 1 ] && [ $crashed = 0 ]; then
  { echo "# fuzz.sh --ci: executions per target (seed 1): what each made in about $LIMIT s on the"
    echo "# machine that ran scripts/fuzz.sh --calibrate $LIMIT, at least ${AM_FUZZ_MIN_RUNS:-20000}."
    # a target not run this time keeps its count
    { for name in "${names[@]}"; do cat "$FUZZ/logs/$name.runs"; done
      [ -f "$RUNS_FILE" ] && grep -v '^#' "$RUNS_FILE"; } | awk '!seen[$1]++' | sort; } >"$RUNS_FILE.new"
  mv "$RUNS_FILE.new" "$RUNS_FILE"
  echo "fuzz.sh: wrote $RUNS_FILE"
fi
exit $crashed
