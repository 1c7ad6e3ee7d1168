#!/bin/sh
# References anyone can follow (ctest `check_citations`). Fails, naming the file and line, when
#   - a source comment or doc cites a .md page the repository does not hold (resolved from the
#     repository root, else from the citing file's folder), or a section of it (`page.md#anchor`,
#     and the `, #anchor` / ` and #anchor` that may follow) that is not one of its headings;
#   - a citation gives a section NUMBER (`page.md 8.2`, `page.md section 4`, `page.md §6`): the
#     numbers of specifications kept outside the repository; cite a heading instead;
#   - a header's include guard is not the one its path gives: AM_ + the folders (without a
#     leading src/ or include/) + the file name without a leading `am_` or `<folder>_`, upper
#     case, `_H` (src/mesh/mesh_asset.h -> AM_MESH_ASSET_H, anim/bvh.h -> AM_ANIM_BVH_H).
#   usage: check_citations.sh ROOT            check the tree at ROOT
#          check_citations.sh --self-test ROOT  also prove it fails on planted bad citations
set -eu
LC_ALL=C
export LC_ALL

# The heading anchors of a markdown file, one a line (GitHub's rule: lower case, punctuation
# other than - and _ dropped, spaces to hyphens).
anchors() {
    sed -n 's/^#\{1,6\} \{1,\}//p' "$1" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

# The guard a header's path gives.
guard_for() {
    awk -v p="$1" 'BEGIN {
        sub(/\.h$/, "", p); n = split(p, part, "/"); first = 1
        if (part[1] == "src" || part[1] == "include") first = 2
        stem = part[n]; last = (n > first) ? part[n - 1] : ""
        sub(/^am_/, "", stem)
        if (stem == last) stem = ""
        else if (last != "" && index(stem, last "_") == 1) stem = substr(stem, length(last) + 2)
        g = "AM"
        for (i = first; i < n; i++) g = g "_" part[i]
        if (stem != "") g = g "_" stem
        g = toupper(g "_H"); gsub(/[^A-Z0-9_]/, "_", g); print g }'
}

# check ROOT: prints one line per problem, returns the count in $problems.
check() {
    root=$1
    problems=0
    out=$(mktemp "${TMPDIR:-/tmp}/citations.XXXXXX")
    # Every file a citation may sit in: sources, scripts, build files, docs.
    for dir in src anim bench skeleton include tests scripts cmake docs; do
        [ -d "$root/$dir" ] && find "$root/$dir" -type f \( -name '*.[ch]' -o -name '*.md' -o -name '*.sh' \
            -o -name '*.cmake' -o -name 'CMakeLists.txt' -o -name '*.html' -o -name '*.js' -o -name '*.dict' \
            -o -name '*.in' -o -name '*.txt' -o -name '*.json' \)
    done > "$out.files"
    for f in README.md CMakeLists.txt; do [ -f "$root/$f" ] && echo "$root/$f" >> "$out.files"; done
    # This script's own examples are not citations.
    grep -v '/tests/check_citations\.sh$' "$out.files" > "$out.tmp" || true
    mv "$out.tmp" "$out.files"

    # 1. section numbers after a page
    while IFS= read -r f; do
        grep -nE '[A-Za-z0-9_-]\.md (section |sections |check |§ ?)?[0-9]+([.][0-9]+)?' "$f" 2>/dev/null |
            sed "s|^|${f#"$root"/}:|"
    done < "$out.files" > "$out.sections" || true
    while IFS= read -r line; do
        echo "section-number citation (cite a heading: page.md#anchor): $line"
        problems=$((problems + 1))
    done < "$out.sections"

    # 2. pages and anchors that do not exist
    while IFS= read -r f; do
        rel=${f#"$root"/}
        grep -noE '[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md(#[A-Za-z0-9_-]+((,| and) #[A-Za-z0-9_-]+)*)?([^A-Za-z0-9_#]|$)' \
            "$f" 2>/dev/null | sed -E "s/[^A-Za-z0-9_-]$//; s|^|$rel:|" || true
    done < "$out.files" > "$out.cites"
    while IFS= read -r hit; do
        rel=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; cite=${rest#*:}
        page=${cite%%#*}
        case $page in http*|*//*) continue ;; esac
        dir=$(dirname "$root/$rel")
        case $page in
            ../*|*/../*) # a relative link must stay inside the repository
                up=$(cd "$dir/$(dirname "$page")" 2>/dev/null && pwd) || up=
                case $up in
                    "$root" | "$root"/*) ;;
                    *) echo "page outside the repository: $rel:$line: $page"
                        problems=$((problems + 1)); continue ;;
                esac ;;
        esac
        if [ -f "$root/$page" ]; then target=$root/$page
        elif [ -f "$dir/$page" ]; then target=$dir/$page
        else
            echo "no such page in the repository: $rel:$line: $page"
            problems=$((problems + 1)); continue
        fi
        case $cite in *'#'*) ;; *) continue ;; esac
        list=$(anchors "$target")
        for a in $(echo "${cite#*#}" | sed 's/,\{0,1\} and / /g; s/, / /g; s/#//g'); do
            if ! echo "$list" | grep -qxF "$a"; then
                echo "no heading '#$a' in $page: $rel:$line"
                problems=$((problems + 1))
            fi
        done
    done < "$out.cites"

    # 3. include guards
    for dir in src anim bench skeleton include tests; do
        [ -d "$root/$dir" ] && find "$root/$dir" -type f -name '*.h'
    done > "$out.headers"
    while IFS= read -r h; do
        rel=${h#"$root"/}
        want=$(guard_for "$rel")
        have=$(sed -n 's/^#ifndef \([A-Za-z0-9_]*\).*/\1/p' "$h" | head -n 1)
        if [ "$have" != "$want" ]; then
            echo "include guard of $rel is '${have:-none}', its path gives $want"
            problems=$((problems + 1))
        fi
    done < "$out.headers"
    rm -f "$out" "$out.files" "$out.tmp" "$out.sections" "$out.cites" "$out.headers"
}

self_test() {
    root=$1
    work=$(mktemp -d "${TMPDIR:-/tmp}/citations-self.XXXXXX")
    trap 'rm -rf "$work"' EXIT INT TERM
    mkdir -p "$work/docs/reference" "$work/src/mesh"
    printf '# Page\n\n## Weights\n\n## The pelvis and the two frames\n' > "$work/docs/reference/page.md"
    # A clean tree passes.
    printf '#ifndef AM_MESH_GOOD_H\n#define AM_MESH_GOOD_H\n/* (docs/reference/page.md#weights and #the-pelvis-and-the-two-frames) */\n#endif\n' \
        > "$work/src/mesh/good.h"
    check "$work" > "$work/log"
    [ "$problems" -eq 0 ] || { cat "$work/log"; echo "self-test: a clean tree was refused" >&2; exit 1; }
    # Each planted fault is found, by name.
    plant() { # file text expected-message
        printf '%s\n' "$2" > "$work/$1"
        check "$work" > "$work/log"
        rm -f "$work/$1"
        if [ "$problems" -lt 1 ] || ! grep -qF "$3" "$work/log"; then
            cat "$work/log"; echo "self-test: planted '$2' in $1 not reported as '$3'" >&2; exit 1
        fi
    }
    plant src/mesh/bad1.c '/* (mesh-asset.md 8.2) */' 'section-number citation'
    plant src/mesh/bad2.c '/* see skeleton.md section 5 */' 'section-number citation'
    plant src/mesh/bad3.c '/* as lessons.md says */' 'no such page in the repository: src/mesh/bad3.c:1: lessons.md'
    plant src/mesh/bad6.c '/* the spec (../shared/spec/quality.md) */' 'page outside the repository'
    plant src/mesh/bad4.c '/* docs/reference/page.md#weights, #no-such-heading */' "no heading '#no-such-heading'"
    plant src/mesh/bad5.h '#ifndef AM_IMPORT_BAD5_H' 'its path gives AM_MESH_BAD5_H'
    echo "self-test: a clean tree passes; 6 planted faults each reported"
    rm -rf "$work"
    trap - EXIT INT TERM
}

if [ "${1:-}" = "--self-test" ]; then
    self_test "$2"
    shift
fi
root=$(cd "$1" && pwd)
check "$root"
if [ "$problems" -ne 0 ]; then
    echo "$problems citation or include-guard problem(s)" >&2
    exit 1
fi
echo "citations and include guards: all resolve"
