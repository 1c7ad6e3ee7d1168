#!/usr/bin/env bash
# The real-grid integration target for `animesh batch spawn` (ctest `opensim_grid`, label
# `integration`): two OpenSimulator 0.9.2.2 instances of two regions each (../shared/opensim,
# "A small grid"), started by run_region.sh in one loopback-only network namespace of this run's
# own; a catalogue of six creatures (Ruth's prim under six scales, converted by `batch run`)
# spawned into all four regions (four by the plan's region and position, two by the grid's
# layout) and verified against each region's own save; a rerun loads nothing and finds each
# creature exactly once; a creature converted again replaces its object (the old one proven
# gone); --remove takes all six out again (proven gone). A trap stops both instances, their tmux
# server and the namespace on any exit. Exit 77 (ctest SKIP_RETURN_CODE) with the reason on one
# line when root, mono, tmux, iproute2, curl, python3, the OpenSim build or a namespace cannot
# be had.
#
# usage: opensim_grid.sh ANIMESH WORKDIR SHARED_DIR
set -uo pipefail
ANIMESH=$1
WORK=$2
SHARED=$3
T0=$SECONDS

skip() { echo "SKIP: $*"; exit 77; }
say() { echo "[grid $((SECONDS - T0))s] $*"; }
fail() { echo "FAIL: $*"; exit 1; }

TARBALL=$SHARED/opensim/opensim-0.9.2.2-bin.tar.xz
RUN_REGION=$SHARED/opensim/run_region.sh
MODEL=$SHARED/data/realdata/r2ROOTPRIM_rigged.dae
SKEL=$SHARED/viewer/avatar_skeleton.xml
[ -f "$TARBALL" ] && [ -f "$RUN_REGION" ] || skip "no OpenSim build ($TARBALL, $RUN_REGION)"
[ -f "$MODEL" ] && [ -f "$SKEL" ] || skip "no test creature or skeleton ($MODEL, $SKEL)"
[ "$(id -u)" = 0 ] || skip "needs root to make a network namespace (the regions must not share the host's)"
for c in mono tmux ip curl python3 xz; do
    command -v "$c" >/dev/null 2>&1 || skip "$c is not installed (scripts/setup.sh --test-deps installs it)"
done
mkdir -p "$WORK" || exit 1

export OSIM_NETNS=am-osgrid-$$
export OSIM_FRESH=1
export OSIM_PASSWORD=animesh-grid-$$-secret
export OSIM_REGIONS=2
export OSIM_READY_TIMEOUT=150
export TMUX_TMPDIR=$WORK/tmux-$$
CAT=$WORK/catalog-$$
LIB=$WORK/library-$$

if ! err=$(ip netns add "$OSIM_NETNS" 2>&1); then
    skip "cannot make a network namespace: ${err%%$'\n'*}"
fi

instance() {  # instance a|b CMD...: run_region.sh for one of the two instances
    local which=$1; shift
    if [ "$which" = a ]; then
        OSIM_RUN=$WORK/run-a OSIM_TMUX=grid-a OSIM_PORT=9000 OSIM_UDP_PORT=9010 OSIM_REGION="Grid A" \
            bash "$RUN_REGION" "$@"
    else
        OSIM_RUN=$WORK/run-b OSIM_TMUX=grid-b OSIM_PORT=9100 OSIM_UDP_PORT=9110 OSIM_REGION="Grid B" \
            bash "$RUN_REGION" "$@"
    fi
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    # A start still under way would bring its instance up after the stops below (and keep it):
    # it is ended first, and waited for.
    for pid in ${PID_A:-} ${PID_B:-}; do kill "$pid" 2>/dev/null || true; done
    for pid in ${PID_A:-} ${PID_B:-}; do wait "$pid" 2>/dev/null || true; done
    if [ -d "$TMUX_TMPDIR" ]; then
        instance a stop >>"$WORK/region-a.log" 2>&1 || true
        instance b stop >>"$WORK/region-b.log" 2>&1 || true
        tmux kill-server 2>/dev/null || true
        rm -rf "$TMUX_TMPDIR"
    fi
    if ip netns list 2>/dev/null | grep -qw "$OSIM_NETNS"; then
        for pid in $(ip netns pids "$OSIM_NETNS" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
        ip netns del "$OSIM_NETNS" 2>/dev/null || true
    fi
    rm -rf "$CAT" "$LIB"
    say "done (exit $rc): both instances, tmux server and namespace $OSIM_NETNS gone; total $((SECONDS - T0)) s"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

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
rm -f "$WORK/run-a/opensim.pid" "$WORK/run-b/opensim.pid"

# The catalogue, while the instances start.
say "starting two instances of two regions each in namespace $OSIM_NETNS"
t=$SECONDS
instance a start "$BIN" >"$WORK/region-a.log" 2>&1 &
PID_A=$!
sleep 2
instance b start "$BIN" >"$WORK/region-b.log" 2>&1 &
PID_B=$!
mkdir -p "$LIB" && ln -sf "$MODEL" "$LIB/ruth.dae"
cat >"$LIB/manifest.json" <<'EOF'
{"creatures": [
 {"name": "a1", "model": "ruth.dae", "region": "Grid A", "position": [100, 100, 30]},
 {"name": "a2", "model": "ruth.dae", "options": ["--scale", "2"], "region": "Grid A 2", "position": [60, 60, 30]},
 {"name": "b1", "model": "ruth.dae", "options": ["--scale", "3"], "region": "Grid B", "position": [128, 128, 30]},
 {"name": "b2", "model": "ruth.dae", "options": ["--scale", "1.5"], "region": "Grid B 2", "position": [40, 200, 30]},
 {"name": "l1", "model": "ruth.dae", "options": ["--scale", "0.5"]},
 {"name": "l2", "model": "ruth.dae", "options": ["--scale", "0.75"]}
]}
EOF
convert() {
    "$ANIMESH" batch plan --manifest "$LIB/manifest.json" --out "$CAT" --skeleton "$SKEL" -- >"$WORK/plan.log" 2>&1 &&
        "$ANIMESH" batch run "$CAT" --jobs 2 >"$WORK/run.log" 2>&1 || { cat "$WORK/plan.log" "$WORK/run.log"; fail "conversion"; }
}
convert
cat >"$WORK/grid.json" <<'EOF'
{"animesh_grid": 1,
 "regions": [
  {"name": "Grid A", "url": "http://127.0.0.1:9000/", "password_env": "GRID_A_PASSWORD"},
  {"name": "Grid A 2", "url": "http://127.0.0.1:9000/", "password_env": "GRID_A_PASSWORD"},
  {"name": "Grid B", "url": "http://127.0.0.1:9100/", "password_env": "GRID_B_PASSWORD"},
  {"name": "Grid B 2", "url": "http://127.0.0.1:9100/", "password_env": "GRID_B_PASSWORD"}
 ],
 "layout": {"region": "Grid B 2", "origin": [20, 20, 25], "spacing": 10},
 "per_host": 2}
EOF
rc_a=0 rc_b=0
wait $PID_A || rc_a=$?
PID_A=
[ "$rc_a" = 0 ] || { tail -5 "$WORK/region-a.log"; fail "instance A did not start: $WORK/region-a.log"; }
wait $PID_B || rc_b=$?
PID_B=
[ "$rc_b" = 0 ] || { tail -5 "$WORK/region-b.log"; fail "instance B did not start: $WORK/region-b.log"; }
say "both instances up in $((SECONDS - t)) s"
export GRID_A_PASSWORD=$OSIM_PASSWORD GRID_B_PASSWORD=$OSIM_PASSWORD

# spawn NAME EXPECT-PYTHON [FLAGS...]: batch spawn --json in the namespace; the Python
# expression `EXPECT` must hold of the JSON (d) and the exit code (rc).
spawn() {
    local name=$1 expect=$2; shift 2
    local t1=$SECONDS
    ip netns exec "$OSIM_NETNS" "$ANIMESH" batch spawn "$CAT" --grid "$WORK/grid.json" --json "$@" \
        >"$WORK/$name.json" 2>"$WORK/$name.log"
    local rc=$?
    python3 - "$WORK/$name.json" "$rc" "$expect" "$name" <<'EOF' || { cat "$WORK/$name.log"; fail "$name"; }
import json, sys
d = json.load(open(sys.argv[1])); rc = int(sys.argv[2]); expect = sys.argv[3]; name = sys.argv[4]
for c in d["creatures"]:
    print("  %-3s %-9s %-8s %-15s %s %.3f s %s" % (c["creature"], c["region"], "verified" if c["verified"] else "",
          c["outcome"], c["object"], c["seconds"], c["error"] or ""))
for r in d["regions"]:
    print("  region %-9s loaded %d deleted %d failed %d in %.2f s (save %.2f s)" % (r["region"], r["loaded"],
          r["deleted"], r["failed"], r["seconds"], r["save_seconds"]))
print("  %s: exit %d, %d spawned, %d replaced, %d already, %d removed, %d failed in %.2f s" % (name, rc,
      d["spawned"], d["replaced"], d["already"], d["removed"], d["failed"], d["seconds"]))
ok = eval(expect, {"d": d, "rc": rc, "all": all, "any": any, "set": set})
if not ok:
    print("  expected: " + expect)
    sys.exit(1)
EOF
    say "$name took $((SECONDS - t1)) s"
}

ALL_VERIFIED='all(c["verified"] for c in d["creatures"])'
spawn first "rc == 0 and d['spawned'] == 6 and $ALL_VERIFIED and set(c['region'] for c in d['creatures']) == {'Grid A', 'Grid A 2', 'Grid B', 'Grid B 2'}" --verify
spawn rerun "rc == 0 and d['spawned'] == 0 and d['already'] == 6 and $ALL_VERIFIED and all(r['loaded'] == 0 for r in d['regions'])" --verify
# An operator left instance A's console on its other region: the delete must still reach Grid A.
instance a console 'change region Grid A 2' >/dev/null 2>&1
sed -i 's/"position": \[100, 100, 30\]}/"position": [100, 100, 30], "options": ["--scale", "1.25"]}/' "$LIB/manifest.json"
convert
spawn replace "rc == 0 and d['replaced'] == 1 and d['already'] == 5 and $ALL_VERIFIED and [c['outcome'] for c in d['creatures'] if c['creature'] == 'a1'] == ['replaced']" --verify
spawn remove "rc == 0 and d['removed'] == 6 and d['failed'] == 0" --remove --verify
spawn empty "rc == 0 and d['removed'] == 0 and d['spawned'] == 0" --remove
exit 0
