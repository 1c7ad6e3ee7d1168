#!/bin/sh
# ctest `example_retarget_gltf`: runs examples/retarget_gltf on the real Ready Player Me avatar
# (glTF) and Mixamo's Walking.fbx (motion only) into a temporary folder, checks that it printed
# and wrote NAME_PART.llmesh (one per skinned mesh) and Walking.anim and that they decode
# (`animesh mesh decode`, `animesh anim check`), then removes the folder. Exit 77 (skipped)
# without the shared files.
#   usage: retarget_gltf.sh EXAMPLE ANIMESH SHARED_DIR
set -eu
example=$1 animesh=$2 shared=$3
skeleton=$shared/viewer/avatar_skeleton.xml
model=$shared/data/realdata/rpm_avatar.glb
motion=$shared/data/realdata/Walking.fbx
for f in "$skeleton" "$model" "$motion"; do
    [ -r "$f" ] || { echo "skipped: no $f"; exit 77; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/animesh-example.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
fail() { echo "example_retarget_gltf: $*" >&2; exit 1; }

"$example" > "$work/usage.txt" 2>&1 && fail "no arguments was not refused"
"$example" "$skeleton" "$work/missing.glb" "$motion" "$work/none" > /dev/null 2> "$work/err.txt" &&
    fail "a missing model was not refused"
grep -q 'missing.glb' "$work/err.txt" || fail "the error does not name the missing model: $(cat "$work/err.txt")"
[ ! -e "$work/none" ] || [ -z "$(ls -A "$work/none")" ] || fail "a failed run left files in its folder"

out=$work/out
"$example" "$skeleton" "$model" "$motion" "$out" > "$work/stdout.txt" || fail "the example failed"
cat "$work/stdout.txt"
anim=$out/Walking.anim
[ -s "$anim" ] || fail "did not write $anim"
grep -qxF "wrote $anim" "$work/stdout.txt" || fail "did not print 'wrote $anim'"
export ANIMESH_SKELETON="$skeleton"
"$animesh" anim check "$anim" > "$work/check.txt" || fail "$anim does not pass anim check"
# One mesh asset per skinned mesh of the model (zeroed options: no merge), each decoding.
meshes=0
for mesh in $(sed -n 's/^wrote \(.*\.llmesh\)$/\1/p' "$work/stdout.txt"); do
    case $mesh in "$out"/rpm_avatar*) ;; *) fail "wrote $mesh outside $out or not named after the model" ;; esac
    [ -s "$mesh" ] || fail "printed $mesh but did not write it"
    "$animesh" mesh decode "$mesh" > "$work/decode.txt" || fail "$mesh does not decode"
    meshes=$((meshes + 1))
done
[ "$meshes" -ge 1 ] || fail "wrote no .llmesh"
[ "$meshes" = "$(ls "$out"/*.llmesh | wc -l)" ] || fail "the .llmesh files written are not those it printed"
echo "wrote and decoded $meshes .llmesh and Walking.anim ($(wc -c < "$anim") bytes)"
