#!/usr/bin/env bash
# Install every Debian package animesh needs (idempotent), then configure and build.
#   scripts/setup.sh                       install + build (build/animesh)
#   scripts/setup.sh --deps                install only
#   scripts/setup.sh --deps --test-deps    also what the real-region integration test needs
#                                          (scripts/test.sh); a failure there only warns: that
#                                          test then skips, saying what is missing
set -euo pipefail
cd "$(dirname "$0")/.."

DEPS_ONLY=0
TEST_DEPS=0
for arg in "$@"; do
  case "$arg" in
    --deps) DEPS_ONLY=1 ;;
    --test-deps) TEST_DEPS=1 ;;
    *) echo "usage: scripts/setup.sh [--deps] [--test-deps]" >&2; exit 2 ;;
  esac
done

PACKAGES=(
  build-essential cmake pkg-config git
  libxml2-dev libopenjp2-7-dev libcurl4-openssl-dev libjansson-dev libcmocka-dev
  zlib1g-dev libpng-dev libassimp-dev libmeshoptimizer-dev
  libdeflate-dev             # whole-buffer DEFLATE: the report's pictures as PNG
  libsuitesparse-dev         # CHOLMOD: the sparse Cholesky of bone heat (animesh bind)
  libopenblas0-pthread       # the BLAS CHOLMOD's supernodal factorisation runs on (3-5x netlib's)
  libembree-dev              # Embree 3: the ray tests of bone heat (visibility, inside)
  libarchive-dev uuid-dev libssl-dev
  libjpeg62-turbo-dev        # JPEG material textures (glTF/FBX imports)
  libsqlite3-dev             # the batch catalogue's database (animesh batch)
  assimp-testmodels          # real test models: CMU mocap (BVH), skinned glTF and FBX
  libmicrohttpd-dev          # the in-test HTTP server for the WorldBridge/RemoteAdmin tests
  clang libclang-rt-14-dev   # libFuzzer targets
  valgrind                   # instruction counts (benchmark_pipeline --callgrind; its client-request header)
)

# The integration test's region: OpenSimulator 0.9.2.2 (../shared/opensim) on Debian's mono,
# under tmux, in a network namespace (iproute2), probed with curl; run_region.sh uses python3,
# the tarball is .tar.xz.
# The preview page's browser tests (tests/test_preview_browser.c, ctest label `browser`):
# headless chromium with software WebGL; without it they skip.
# The batch engines' tests (tests/test_batch_engines.c): GNU parallel, and a single-node Slurm
# cluster (slurmctld, slurmd, munge) the test starts itself; without them they skip.
TEST_PACKAGES=(mono-complete tmux iproute2 curl python3 xz-utils chromium parallel slurm-wlm munge)

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
UPDATED=0
install() {  # install PACKAGE... (those not installed yet)
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "setup: installing ${missing[*]}"
  if [ "$UPDATED" = 0 ]; then
    $SUDO apt-get update -qq || return 1
    UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install "${PACKAGES[@]}"
if [ "$TEST_DEPS" = 1 ] && ! install "${TEST_PACKAGES[@]}"; then
  echo "setup: warning: could not install ${TEST_PACKAGES[*]}: the real-region integration test will skip" >&2
fi
echo "setup: packages present"

[ "$DEPS_ONLY" = 1 ] && exit 0

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAM_BUILD_TESTS=OFF
cmake --build build -j"$(nproc)"
echo "setup: built build/animesh"
