#!/bin/sh
# The house has no back doors (ctest `check_layout`). Fails, naming the file, when
#   - the folders' includes make a loop (a folder includes another that, directly or through
#     others, includes it: tsort finds the loop);
#   - a file includes another folder's private header (*_internal.h);
#   - the bench module (bench/*.c, *.h: the viewer's model) includes import, report or preview
#     (the benchmark programs, bench/perf/, may);
#   - a library function (not static, in src/ but the CLI, anim/, bench/, skeleton/) does not
#     start with am_, or its prefix names another module's folder (am_skin_* outside skin/).
#     One pairing is the design: the readers make scenes, so readers/ names its entry points
#     am_scene_load* and am_scene_*_bvh (scene/ is the model they fill; scene/ never includes
#     readers/);
#   - a public header (include/animesh/*.h) includes anything but the C library and its
#     siblings.
#   usage: check_layout.sh ROOT              check the tree at ROOT
#          check_layout.sh --self-test ROOT  also prove it fails on planted faults
set -eu
LC_ALL=C
export LC_ALL

folders="anim batch bench bendbox bind core import map math mesh preview readers report retarget scene skeleton skin texture world"

# The library's source files, one a line, relative to ROOT.
sources() {
    (cd "$1" && find src anim bench skeleton -type f \( -name '*.c' -o -name '*.h' \) |
        grep -v -e '^src/cli/' -e '^bench/perf/' | sort)
}
# The module folder of a relative path.
folder_of() {
    case $1 in
        src/*) p=${1#src/}; echo "${p%%/*}" ;;
        *) echo "${1%%/*}" ;;
    esac
}

# check ROOT: one line per problem; the count in $problems.
check() {
    root=$1
    problems=0
    out=$(mktemp "${TMPDIR:-/tmp}/animesh-layout.XXXXXX")
    sources "$root" > "$out.files"
    : > "$out.edges"
    while IFS= read -r f; do
        a=$(folder_of "$f")
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$root/$f" > "$out.inc"
        while IFS= read -r inc; do
            case $inc in */*) ;; *) continue ;; esac
            b=${inc%%/*}
            [ "$b" = animesh ] && continue
            [ "$b" = "$a" ] && continue
            echo "$a $b" >> "$out.edges"
            case $inc in
                *_internal.h) echo "$f includes $inc, a private header of $b/"; problems=$((problems + 1)) ;;
            esac
            if [ "$a" = bench ]; then
                case $b in import | report | preview)
                    echo "$f (the bench module) includes $inc: the bench never reaches into $b/"
                    problems=$((problems + 1)) ;;
                esac
            fi
        done < "$out.inc"
        # Library functions: a definition starts at column 0 with its return type, not static.
        case $f in *.c)
            grep -E '^[a-zA-Z_][a-zA-Z0-9_ *]*[ *]\**[a-zA-Z_][a-zA-Z0-9_]*\(' "$root/$f" |
                grep -vE '^(static|typedef|extern|return|if|else|for|while|switch)\b' |
                grep -vE ';[[:space:]]*$' |
                sed 's/^[^(]*[ *]\([a-zA-Z_][a-zA-Z0-9_]*\)(.*/\1/' > "$out.fns" || true
            while IFS= read -r fn; do
                case $fn in
                    main) continue ;;
                    am_*) ;;
                    *) echo "$f defines $fn: a library function without the am_ prefix"; problems=$((problems + 1)); continue ;;
                esac
                word=${fn#am_}; word=${word%%_*}
                for other in $folders; do
                    if [ "$word" = "$other" ] && [ "$other" != "$a" ] && [ "$a:$other" != readers:scene ]; then
                        echo "$f defines $fn: its prefix names $other/, it lives in $a/"
                        problems=$((problems + 1))
                    fi
                done
            done < "$out.fns" ;;
        esac
    done < "$out.files"
    sort -u "$out.edges" -o "$out.edges"
    if ! tsort "$out.edges" > /dev/null 2> "$out.loop"; then
        echo "the folders' includes make a loop: $(grep -v 'input contains a loop' "$out.loop" | sed 's/^tsort: //' | tr '\n' ' ')"
        problems=$((problems + 1))
    fi
    for h in "$root"/include/animesh/*.h; do
        bad=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$h" |
            grep -vE '^"animesh/[a-z_]+\.h"$|^<std[a-z]+\.h>$|^<stdio\.h>$' || true)
        if [ -n "$bad" ]; then
            echo "include/animesh/$(basename "$h") includes $bad: a public header includes only the C library and include/animesh/"
            problems=$((problems + 1))
        fi
    done
    rm -f "$out" "$out.files" "$out.edges" "$out.inc" "$out.fns" "$out.loop"
}

self_test=0
if [ "${1:-}" = --self-test ]; then self_test=1; shift; fi
tree=$1

if [ "$self_test" = 1 ]; then
    # A copy of the tree's layout with planted faults: each must be reported.
    work=$(mktemp -d "${TMPDIR:-/tmp}/animesh-layout-self.XXXXXX")
    trap 'rm -rf "$work"' EXIT INT TERM
    mkdir -p "$work/src/skin" "$work/src/mesh" "$work/bench" "$work/include/animesh" "$work/src/report" "$work/anim" "$work/skeleton"
    printf '#include "mesh/m.h"\nint am_skin_a(void) { return 0; }\n' > "$work/src/skin/a.c"
    printf '#include "skin/skin_internal.h"\nint am_mesh_b(void) { return 0; }\nint helper(void) { return 1; }\n' > "$work/src/mesh/b.c"
    printf '#include "report/r.h"\nint am_bench_c(void) { return 0; }\nint am_skin_d(void) { return 0; }\n' > "$work/bench/c.c"
    printf '#include "core/error.h"\n' > "$work/include/animesh/x.h"
    : > "$work/src/report/r.h"
    check "$work" > "$work/found" || true
    for want in "a private header of skin" "the bench never reaches into report" "helper: a library function without the am_ prefix" \
                "am_skin_d: its prefix names skin/" "make a loop" "x.h includes \"core/error.h\""; do
        if ! grep -q "$want" "$work/found"; then
            echo "self-test: the planted fault '$want' was not reported"; cat "$work/found"; exit 1
        fi
    done
    echo "self-test: 6 planted faults each reported"
fi

check "$tree"
if [ "$problems" -gt 0 ]; then
    echo "$problems layout problem(s)" >&2
    exit 1
fi
echo "layout: no loop between folders, no private header across them, the bench apart, every library function am_ with its folder's prefix"
