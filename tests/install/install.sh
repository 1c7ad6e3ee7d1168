#!/bin/sh
# The install test (ctest `install_prefix`): install the build into a temporary prefix, then
# use it as a third party would. Checks the installed tree (command, libanimesh.a and .so,
# headers with their module folders, man page, animesh.pc, the CMake package), that every
# public header compiles on its own (and the umbrella as C++), builds tests/install/count_bones.c
# against `pkg-config animesh` (shared, then --static) and against find_package(animesh), runs
# each on the viewer skeleton and compares the bone count with the file's own <bone> elements.
# Removes everything it made. Exit 77 (skipped) without the viewer skeleton.
#   usage: install.sh BUILD_DIR SOURCE_DIR SKELETON LIBDIR CC "EXTRA_CFLAGS"
set -eu
build=$1 src=$2 skeleton=$3 libdir=$4 cc=$5 extra=$6

[ -r "$skeleton" ] || { echo "skipped: no viewer skeleton at $skeleton"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/animesh-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }

for f in bin/animesh "$libdir/libanimesh.a" "$libdir/libanimesh.so" "$libdir/libanimesh.so.0" \
         include/animesh/animesh.h include/animesh/core/error.h include/animesh/skeleton/skeleton.h \
         include/animesh/readers/gltf/gltf.h share/man/man1/animesh.1 "$libdir/pkgconfig/animesh.pc" \
         "$libdir/cmake/animesh/animeshConfig.cmake" "$libdir/cmake/animesh/animeshConfigVersion.cmake"; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
# No internal or third-party header in the public tree.
if find "$prefix/include" -name '*_internal.h' | grep -q .; then fail "an internal header was installed"; fi
if grep -rlE '#include <(jansson|libxml|curl|archive|png|zlib|meshoptimizer|embree3|assimp|openssl)' \
        "$prefix/include"; then fail "a public header includes a third-party header"; fi

# Every public header on its own, from the installed tree only; the umbrella as C++ too.
inc=$prefix/include/animesh
for h in $(cd "$inc" && find . -name '*.h' | sed 's|^\./||'); do
    printf '#include "%s"\n' "$h" > "$work/one.c"
    "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$work/one.c" || fail "$h does not compile on its own"
done
if command -v c++ > /dev/null; then
    printf '#include <animesh/animesh.h>\nint main() { am_error e; am_error_clear(&e); return 0; }\n' > "$work/umbrella.cpp"
    c++ -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" -I"$inc" "$work/umbrella.cpp" || fail "animesh.h is not usable from C++"
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
"$cc" $extra -o "$work/count_shared" "$src/tests/install/count_bones.c" $(pkg-config --cflags --libs animesh) \
    -Wl,-rpath,"$prefix/$libdir" || fail "build against pkg-config animesh failed"
check_run "$work/count_shared"
readelf -d "$work/count_shared" | grep -q 'libanimesh.so.0' || fail "count_shared does not use libanimesh.so.0"
# shellcheck disable=SC2086
"$cc" $extra -o "$work/count_static" "$src/tests/install/count_bones.c" \
    $(pkg-config --static --cflags animesh) "$prefix/$libdir/libanimesh.a" \
    $(pkg-config --libs $(pkg-config --print-requires-private animesh)) $(pkg-config --variable=private_libs animesh) \
    || fail "build of libanimesh.a with the libraries animesh.pc names failed"
check_run "$work/count_static"

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
echo "installed, built against pkg-config (shared, static) and find_package(animesh): $expected bones"
