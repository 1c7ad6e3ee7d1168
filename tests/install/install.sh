#!/bin/sh
# The install test (ctest `install_prefix`): install the build into a temporary prefix, then
# use it as a third party would. Checks the installed tree (command, libanimesh.a and .so,
# the public headers (include/animesh/*.h, nothing else), man page, animesh.pc, the CMake package), that every
# public header compiles on its own as C11 and as C++17 (-Wall -Wextra -Werror -pedantic),
# builds tests/install/count_bones.c against `pkg-config animesh` (shared, then --static) and
# against find_package(animesh), runs each on the viewer skeleton and compares the bone count
# with the file's own <bone> elements; builds examples/retarget_gltf.c against pkg-config as C11
# and as C++17 and runs both on the real glTF avatar and Mixamo walk (SKELETON's ../data/realdata;
# built but not run where those are missing). Removes everything it made. Exit 77 (skipped)
# without the viewer skeleton.
#   usage: install.sh BUILD_DIR SOURCE_DIR SKELETON LIBDIR CC "EXTRA_CFLAGS"
set -eu
build=$1 src=$2 skeleton=$3 libdir=$4 cc=$5 extra=$6

[ -r "$skeleton" ] || { echo "skipped: no viewer skeleton at $skeleton"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/animesh-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }
abi=$(sed -n 's/^set(AM_ABI_VERSION \([0-9]*\)).*/\1/p' "$src/CMakeLists.txt")

for f in bin/animesh "$libdir/libanimesh.a" "$libdir/libanimesh.so" "$libdir/libanimesh.so.$abi" \
         include/animesh/animesh.h include/animesh/core.h include/animesh/skeleton.h \
         include/animesh/import.h share/man/man1/animesh.1 "$libdir/pkgconfig/animesh.pc" \
         "$libdir/cmake/animesh/animeshConfig.cmake" "$libdir/cmake/animesh/animeshConfigVersion.cmake"; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
# The public API is exactly include/animesh/*.h: no module folder, no internal or third-party
# header in the public tree, and the same headers as the source tree's include/animesh/.
if find "$prefix/include/animesh" -mindepth 1 -type d | grep -q .; then fail "a module folder was installed under include/animesh"; fi
[ "$(cd "$prefix/include/animesh" && ls)" = "$(cd "$src/include/animesh" && ls)" ] ||
    fail "the installed headers are not include/animesh/*.h"
if grep -rlE '#include <(jansson|libxml|curl|archive|png|zlib|meshoptimizer|embree3|assimp|openssl)' \
        "$prefix/include"; then fail "a public header includes a third-party header"; fi

# Every public header on its own, from the installed tree only, as C11 and as C++17 (a C++
# program includes any of them: extern "C", no C-only syntax); the umbrella called from C++.
strict="-Wall -Wextra -Werror -pedantic"
cxx=; if command -v c++ > /dev/null; then cxx=c++; else echo "no c++: the headers are checked as C only"; fi
inc=$prefix/include
headers=0
for h in $(cd "$inc" && find animesh -name '*.h'); do
    printf '#include "%s"\n' "$h" > "$work/one.c"
    # shellcheck disable=SC2086 # the flags are words
    "$cc" -std=c11 $strict -fsyntax-only -I"$inc" "$work/one.c" || fail "$h does not compile on its own as C11"
    if [ -n "$cxx" ]; then
        cp "$work/one.c" "$work/one.cpp"
        # shellcheck disable=SC2086
        "$cxx" -std=c++17 $strict -fsyntax-only -I"$inc" "$work/one.cpp" || fail "$h does not compile on its own as C++17"
    fi
    headers=$((headers + 1))
done
# A header's declarations keep C linkage in a C++ program (compiling alone cannot tell: a missing
# guard shows only when linking); the umbrella only includes.
unguarded=$(cd "$inc" && grep -rL --include='*.h' 'extern "C"' animesh | grep -vx 'animesh/animesh.h' || true)
[ -z "$unguarded" ] || fail "no extern \"C\" guard in: $unguarded"
if [ -n "$cxx" ]; then
    printf '#include <animesh/animesh.h>\nint main() { am_error e; am_error_clear(&e); return 0; }\n' > "$work/umbrella.cpp"
    # shellcheck disable=SC2086
    "$cxx" -std=c++17 $strict -fsyntax-only -I"$inc" "$work/umbrella.cpp" || fail "animesh.h is not usable from C++"
fi

expected=$(grep -c '<bone ' "$skeleton")
check_run() { # $1 program
    got=$("$1" "$skeleton") || fail "$1 failed"
    [ "$got" = "$expected" ] || fail "$1 printed $got bones, the skeleton has $expected"
}

export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
pkg-config --exists animesh || fail "pkg-config does not find animesh.pc"
[ "$(pkg-config --modversion animesh)" = "$("$prefix/bin/animesh" --version | cut -d' ' -f2)" ] ||
    fail "animesh.pc's version is not the command's"
# shellcheck disable=SC2086 # the flags are words
"$cc" -std=c11 $strict $extra -o "$work/count_shared" "$src/tests/install/count_bones.c" $(pkg-config --cflags --libs animesh) \
    -Wl,-rpath,"$prefix/$libdir" || fail "build against pkg-config animesh failed"
check_run "$work/count_shared"
readelf -d "$work/count_shared" | grep -q "libanimesh.so.$abi" || fail "count_shared does not use libanimesh.so.$abi"
# shellcheck disable=SC2086
"$cc" $extra -o "$work/count_static" "$src/tests/install/count_bones.c" \
    $(pkg-config --static --cflags animesh) "$prefix/$libdir/libanimesh.a" \
    $(pkg-config --libs $(pkg-config --print-requires-private animesh)) $(pkg-config --variable=private_libs animesh) \
    || fail "build of libanimesh.a with the libraries animesh.pc names failed"
check_run "$work/count_static"

# The example program (examples/retarget_gltf.c, written in the common subset) against
# pkg-config, as C11 and as C++17, run on the real avatar and walk where they are.
realdata=$(dirname "$(dirname "$skeleton")")/data/realdata
example_run() { # $1 program
    [ -r "$realdata/rpm_avatar.glb" ] && [ -r "$realdata/Walking.fbx" ] || return 0
    "$1" "$skeleton" "$realdata/rpm_avatar.glb" "$realdata/Walking.fbx" "$work/example-out" > "$work/example.txt" ||
        fail "$1 failed"
    [ -s "$work/example-out/Walking.anim" ] || fail "$1 wrote no Walking.anim"
    grep -q '^wrote .*\.llmesh$' "$work/example.txt" || fail "$1 wrote no .llmesh"
    rm -rf "$work/example-out"
}
examples="C11"
# shellcheck disable=SC2086
"$cc" -std=c11 $strict $extra -o "$work/example_c" "$src/examples/retarget_gltf.c" $(pkg-config --cflags --libs animesh) \
    -Wl,-rpath,"$prefix/$libdir" || fail "examples/retarget_gltf.c does not build as C11 against pkg-config animesh"
example_run "$work/example_c"
if [ -n "$cxx" ]; then
    cp "$src/examples/retarget_gltf.c" "$work/example.cpp"
    # shellcheck disable=SC2086
    "$cxx" -std=c++17 $strict $extra -o "$work/example_cpp" "$work/example.cpp" $(pkg-config --cflags --libs animesh) \
        -Wl,-rpath,"$prefix/$libdir" || fail "examples/retarget_gltf.c does not build as C++17 against pkg-config animesh"
    example_run "$work/example_cpp"
    examples="C11 and C++17"
fi

cmake -S "$src/tests/install" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" > "$work/cmake.log" 2>&1 &&
    cmake --build "$work/cmake" >> "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "find_package(animesh) build failed"; }
check_run "$work/cmake/count_bones"

# The man page has a section for every command --help lists, holding that command's --help
# (its usage line, word for word).
man1=$prefix/share/man/man1/animesh.1
for cmd in $("$prefix/bin/animesh" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 && $1 != "commands:" { print $1 }'); do
    grep -q "^\.SS \"animesh $cmd\"" "$man1" || fail "animesh.1 has no section for $cmd"
    usage=$("$prefix/bin/animesh" "$cmd" --help | head -n 1)
    grep -qxF "$usage" "$man1" || fail "animesh.1 lacks '$usage' (animesh $cmd --help)"
done
echo "installed, built against pkg-config (shared, static) and find_package(animesh): $expected bones;" \
     "$headers headers alone as C11${cxx:+ and C++17}; examples/retarget_gltf.c as $examples"
