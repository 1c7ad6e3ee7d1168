#!/usr/bin/env bash
# Install every Debian package animesh needs (idempotent), then configure and build.
#   scripts/setup.sh            install + build (build/animesh)
#   scripts/setup.sh --deps     install only
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake pkg-config git
  libxml2-dev libopenjp2-7-dev libcurl4-openssl-dev libjansson-dev libcmocka-dev
  zlib1g-dev libpng-dev libassimp-dev libmeshoptimizer-dev libsuitesparse-dev
  libarchive-dev uuid-dev libssl-dev
  assimp-testmodels          # real CMU mocap (BVH) used by the tests
  libmicrohttpd-dev          # the in-test HTTP server for the WorldBridge/RemoteAdmin tests
  clang libclang-rt-14-dev   # libFuzzer targets
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

[ "${1:-}" = "--deps" ] && exit 0

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAM_BUILD_TESTS=OFF
cmake --build build -j"$(nproc)"
echo "setup: built build/animesh"
