#!/bin/sh
# Library messages name options, never flags (ctest `check_library_flags`). A program that
# embeds the library has no command line, so an error or finding the library writes says
# "the normalize_binds option" (the field of the call's options struct) or names the data;
# the CLI prints each such phrase as its flag (src/cli/cli_flags.c). Fails, naming the file
# and line, when a string literal in the library's code (src/ but src/cli/, anim/, skeleton/,
# bench/ but bench/perf/: .c and .h) holds a flag: "--" and a lower-case letter or a printf
# conversion ("--%s" builds one), at the start
# of the string or after a space or punctuation (an HTML comment's "<!--" is no flag).
#   A line is skipped when it is a comment (starts with /*, * or //); a trailing /* comment
#   is cut off first. Each string literal on the line is judged on its own.
#   The allow-list below holds the only genuine uses: the batch module builds command lines
#   for the animesh processes and schedulers it starts (and the Slurm script it writes), so
#   there a flag is an argument, not a message. Each entry: a path and an extended regular
#   expression the WHOLE literal (with its quotes) must match.
#   usage: check_library_flags.sh ROOT              check the tree at ROOT
#          check_library_flags.sh --self-test ROOT  also prove it fails on a planted flag
set -eu
LC_ALL=C
export LC_ALL

ALLOW='src/batch/batch_work.c	"--(out|name|json|skeleton|oar|anim|map|at)"
src/batch/batch_plan.c	"--(out|name|json|oar|skeleton|anim|map|bench|preview)"
src/batch/batch_engine.c	"--(job|force|will-cite|joblog|resume|sshlogin|parsable)"|" --force"
src/batch/batch_engine.c	"%s batch work %s --job \{\}%s"
src/batch/batch_engine.c	"#SBATCH --[a-z-]+=[^"]*"|"# SLURM_ARRAY_TASK_ID\); written by animesh batch run --engine slurm\.\\n"'
FLAG='"([^"]*[^"!a-zA-Z0-9_-])?--[a-z%]'

# allowed FILE LITERAL: is the literal one of FILE's genuine command-line arguments?
allowed() {
    printf '%s\n' "$ALLOW" | while IFS='	' read -r path re; do
        if [ "$path" = "$1" ] && printf '%s\n' "$2" | grep -qxE "$re"; then
            echo yes
        fi
    done
}

# check ROOT: prints one line per flag found; sets $problems to their count.
check() {
    root=$1
    out=$(mktemp "${TMPDIR:-/tmp}/libflags.XXXXXX")
    for dir in src anim skeleton bench; do
        [ -d "$root/$dir" ] && find "$root/$dir" -type f -name '*.[ch]'
    done | grep -v -e '/src/cli/' -e '/bench/perf/' | sort > "$out.files" || true
    while IFS= read -r f; do
        rel=${f#"$root"/}
        sed 's|/\*.*$||' "$f" | grep -nE "$FLAG" | grep -vE '^[0-9]+:[[:space:]]*(\*|//|$)' |
            while IFS= read -r hit; do
                printf '%s\n' "${hit#*:}" | grep -oE '"([^"\\]|\\.)*"' | grep -E "$FLAG" |
                    while IFS= read -r lit; do
                        [ -n "$(allowed "$rel" "$lit")" ] ||
                            echo "a flag in a library string (name the option field instead): $rel:${hit%%:*}: $lit"
                    done
            done
    done < "$out.files" > "$out.hits"
    problems=$(wc -l < "$out.hits")
    cat "$out.hits"
    rm -f "$out" "$out.files" "$out.hits"
}

self_test() {
    root=$1
    work=$(mktemp -d "${TMPDIR:-/tmp}/libflags-self.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/src/demo" "$work/src/cli" "$work/src/batch" "$work/bench/perf"
    # clean: a comment, the CLI, a benchmark program and an allowed batch argument may say flags
    printf '/* pass "--loop" */\nstatic const char *m = "the loop option"; /* not "--loop" */\n' > "$work/src/demo/ok.c"
    printf 'static const char marker[] = "<!--ANIMESH_DATA-->";\n' >> "$work/src/demo/ok.c"
    printf 'static const char *m = "--loop";\n' > "$work/src/cli/cmd.c"
    printf 'static const char *m = "--repeats";\n' > "$work/bench/perf/b.c"
    printf '    bool ok = arg_add(a, "--out");\n' > "$work/src/batch/batch_work.c"
    check "$work" > "$work/log"
    [ "$problems" -eq 0 ] || { cat "$work/log"; echo "self-test: a clean tree was refused" >&2; exit 1; }
    for planted in 'return am_fail(err, 1, "pass --normalize-binds");' 'conflict(a, "(override with --%s)", role);' '    "or give --map MAP.json",' \
        '    bool ok = arg_add(a, "--out") && am_fail(err, 1, "--loop");'; do
        printf '%s\n' "$planted" > "$work/src/batch/batch_work.c"
        check "$work" > "$work/log"
        [ "$problems" -eq 1 ] || { cat "$work/log"; echo "self-test: planted '$planted' not reported" >&2; exit 1; }
    done
    echo "self-test: a clean tree passes; 4 planted flags each reported"
}

if [ "${1:-}" = "--self-test" ]; then
    self_test "$2"
    root=$2
else
    root=${1:-.}
fi
check "$root"
if [ "$problems" -ne 0 ]; then
    echo "$problems library string(s) name a CLI flag" >&2
    exit 1
fi
echo "no library string names a CLI flag"
