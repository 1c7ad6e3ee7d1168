#!/usr/bin/env bash
# The real-region integration target (ctest label `integration`, run by scripts/test.sh after
# the unit suite): OpenSimulator 0.9.2.2 from ../shared/opensim, unpacked once into the build
# tree, started ONCE by ../shared/opensim/run_region.sh inside a network namespace of its own
# that has only loopback (OpenSim binds 0.0.0.0: it never runs in the host's namespace), the
# cases (CASES, a cmocka program) run inside that namespace, then the region is stopped. A trap
# stops the region, its tmux server and the namespace on any exit, a failing case or Ctrl-C
# included. Exit 77 (ctest SKIP_RETURN_CODE) with the reason on one line when root, mono,
# tmux, iproute2, curl, python3, the OpenSim build or a namespace cannot be had.
#
# usage: opensim_region.sh CASES WORKDIR SHARED_DIR
#   WORKDIR  in the build tree: the unpacked binaries (kept between runs), the region's run
#            directory, the cases' files
set -uo pipefail
CASES=$1
WORK=$2
SHARED=$3
T0=$SECONDS

skip() { echo "SKIP: $*"; exit 77; }
say() { echo "[integration $((SECONDS - T0))s] $*"; }

TARBALL=$SHARED/opensim/opensim-0.9.2.2-bin.tar.xz
RUN_REGION=$SHARED/opensim/run_region.sh
[ -f "$TARBALL" ] && [ -f "$RUN_REGION" ] || skip "no OpenSim build ($TARBALL, $RUN_REGION)"
[ "$(id -u)" = 0 ] || skip "needs root to make a network namespace (the region must not share the host's)"
for c in mono tmux ip curl python3 xz; do
    command -v "$c" >/dev/null 2>&1 || skip "$c is not installed (scripts/setup.sh --test-deps installs it)"
done
mkdir -p "$WORK" || exit 1

# One namespace, tmux server and run directory per run: runs (and other checkouts) never meet.
export OSIM_NETNS=am-osim-$$
export OSIM_RUN=$WORK/run
export OSIM_FRESH=1
export OSIM_PASSWORD=animesh-it-$$-secret
export OSIM_REGION="Animesh Test"
export OSIM_READY_TIMEOUT=90
export TMUX_TMPDIR=$WORK/tmux-$$
export AM_OSIM_RUN_REGION=$RUN_REGION

if ! err=$(ip netns add "$OSIM_NETNS" 2>&1); then
    skip "cannot make a network namespace: ${err%%$'\n'*}"
fi

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [ -d "$TMUX_TMPDIR" ]; then
        bash "$RUN_REGION" stop >>"$WORK/region.log" 2>&1 || true
        tmux kill-server 2>/dev/null || true
        rm -rf "$TMUX_TMPDIR"
    fi
    if ip netns list 2>/dev/null | grep -qw "$OSIM_NETNS"; then
        # anything still inside our own namespace was started by this run
        for pid in $(ip netns pids "$OSIM_NETNS" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
        ip netns del "$OSIM_NETNS" 2>/dev/null || true
    fi
    say "done (exit $rc): region, tmux server and namespace $OSIM_NETNS gone; total $((SECONDS - T0)) s"
    exit "$rc"
}
CASES_PID=
stop_cases() { [ -n "$CASES_PID" ] && kill "$CASES_PID" 2>/dev/null; exit "$1"; }
trap cleanup EXIT
trap 'stop_cases 130' INT
trap 'stop_cases 143' TERM

# Unpack once (kept in the build tree; again only when the tarball changes).
BIN=$WORK/opensim-0.9.2.2/bin
STAMP=$WORK/unpacked-$(stat -c %s-%Y "$TARBALL")
if [ ! -f "$STAMP" ] || [ ! -f "$BIN/OpenSim.exe" ]; then
    say "unpacking $(basename "$TARBALL")"
    rm -rf "$WORK/opensim-0.9.2.2" "$WORK"/unpacked-*
    tar -xJf "$TARBALL" -C "$WORK" || exit 1
    touch "$STAMP"
fi
mkdir -p "$TMUX_TMPDIR"
# A pid file an earlier run left behind names a pid the system may have given to another
# process since: run_region.sh would take it for a running region.
rm -f "$OSIM_RUN/opensim.pid"
say "starting the region in namespace $OSIM_NETNS"
t=$SECONDS
if ! bash "$RUN_REGION" start "$BIN" >"$WORK/region.log" 2>&1; then
    tail -5 "$WORK/region.log"
    echo "the region did not start: see $WORK/region.log and $OSIM_RUN/OpenSim.log"
    exit 1
fi
say "region up in $((SECONDS - t)) s"
t=$SECONDS
# The cases stop short of the whole target's budget, so the trap always gets to clean up; they
# run in the background so that a signal reaches the trap at once (`wait` is interruptible).
timeout --kill-after=5 150 ip netns exec "$OSIM_NETNS" "$CASES" &
CASES_PID=$!
wait "$CASES_PID"
rc=$?
CASES_PID=
say "cases took $((SECONDS - t)) s (exit $rc)"
exit $rc
