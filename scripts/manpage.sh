#!/bin/sh
# animesh.1 from the built command's own help: `animesh --help` gives the synopsis and the
# command list, `animesh CMD --help` each command's section, and every `CMD SUB --help` a
# command's help names (map suggest, skin compare) a section of its own. The text is kept as
# --help prints it (preformatted), so the man page and --help never drift.
#   usage: scripts/manpage.sh path/to/animesh VERSION > animesh.1
set -eu
bin=$1
version=$2

# roff-safe preformatted text: backslashes escaped, a leading . or ' made literal.
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

section() { # $1 title, rest: the command's arguments
    title=$1
    shift
    printf '.SS "%s"\n.nf\n' "$title"
    "$bin" "$@" --help | roff
    printf '.fi\n'
}

commands=$("$bin" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 && $1 != "commands:" { print $1 }')
[ -n "$commands" ] || { echo "manpage.sh: no commands in '$bin --help'" >&2; exit 1; }

printf '.TH ANIMESH 1 "" "animesh %s" "User Commands"\n' "$version"
printf '.SH NAME\nanimesh \\- get rigged creatures into OpenSim and Second Life as animesh\n'
printf '.SH SYNOPSIS\n.nf\n'
"$bin" --help | sed -n '1,/^$/p' | sed 's/^usage: //; s/^       //' | sed '/^$/d' | roff
printf '.fi\n.SH DESCRIPTION\n.nf\n'
"$bin" --help | sed '1,/^$/d' | roff
printf '.fi\n.SH COMMANDS\n'
for cmd in $commands; do
    section "animesh $cmd" "$cmd"
    subs=$("$bin" "$cmd" --help | grep -o "$cmd [a-z][a-z-]* --help" | awk '{ print $2 }' | sort -u)
    for sub in $subs; do
        section "animesh $cmd $sub" "$cmd" "$sub"
    done
done
printf '.SH EXIT STATUS\n0 ok, 1 invalid input or a failed check, 2 usage error, 3 I/O error.\n'
printf '.SH ENVIRONMENT\n.TP\n.B ANIMESH_SKELETON\nthe viewer'"'"'s avatar_skeleton.xml\n'
printf '.TP\n.B ANIMESH_VIEWER_DIR\na viewer folder holding character/avatar_skeleton.xml\n'
printf '.SH SEE ALSO\nThe manual: docs/README.md in the source tree.\n'
