#!/bin/sh
# Only the API is exported (ctest `check_exports`): reads the built libanimesh.so and fails,
# naming the symbol, when
#   - an exported symbol does not start with am_;
#   - an exported symbol is not declared with AM_API in a public header (include/animesh/*.h);
#   - a function a public header declares with AM_API is not exported (a declaration without
#     a definition, or one the build hid);
#   - the soname is not libanimesh.so.<the ABI version CMakeLists.txt sets>.
#   usage: check_exports.sh LIBRARY SOURCE_DIR
set -eu
LC_ALL=C
export LC_ALL
lib=$1 src=$2
command -v nm > /dev/null || { echo "skipped: no nm"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/animesh-exports.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# Exported: defined, global, in the dynamic symbol table (code and data).
# The linker's own markers of the segments (_edata, _end, __bss_start) are in every shared
# library and name no code or data of ours.
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sed 's/@.*//' |
    grep -vxE '_edata|_end|__bss_start' | sort -u > "$work/exported"
# Declared: the name before '(' on every AM_API line (a declaration may wrap: the name is on
# the AM_API line in this tree's style).
# Comments removed first (they may say "AM_API" and "name (").
grep -hv "^#" "$src"/include/animesh/*.h | tr '\n' ' ' | sed 's|/\*[^*]*\*\{1,\}\([^/*][^*]*\*\{1,\}\)*/| |g' | sed 's/;/;\n/g' |
    sed -n 's/.*AM_API[^(]*[^a-zA-Z0-9_(]\([a-zA-Z_][a-zA-Z0-9_]*\) *(.*/\1/p' | sort -u > "$work/declared"

problems=0
count=$(wc -l < "$work/exported")
[ "$count" -gt 0 ] || { echo "no exported symbol in $lib"; exit 1; }
while IFS= read -r sym; do
    case $sym in
        am_*) ;;
        *) echo "exported without the am_ prefix: $sym"; problems=$((problems + 1)); continue ;;
    esac
    grep -qx "$sym" "$work/declared" || { echo "exported but no public header declares it: $sym"; problems=$((problems + 1)); }
done < "$work/exported"
while IFS= read -r sym; do
    grep -qx "$sym" "$work/exported" || { echo "declared AM_API in include/animesh/ but not exported: $sym"; problems=$((problems + 1)); }
done < "$work/declared"

abi=$(sed -n 's/^set(AM_ABI_VERSION \([0-9]*\)).*/\1/p' "$src/CMakeLists.txt")
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libanimesh.so.$abi" ] || { echo "soname is '$soname', the ABI version gives libanimesh.so.$abi"; problems=$((problems + 1)); }

if [ "$problems" -gt 0 ]; then
    echo "$problems export problem(s) in $lib" >&2
    exit 1
fi
echo "exports: $count symbols, all am_, each declared AM_API in include/animesh/ (and every declaration exported); soname $soname"
