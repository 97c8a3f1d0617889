#!/bin/sh
# SPDX-License-Identifier: MIT
# [experiment] order = rounds for the bodies and the mesh kinds: repeat 1 of every point, then
# repeat 2, ...; every point gets its summary row with the repeats it measured, and the
# deterministic columns equal those of the same config in order = points (one point's rounds
# interleaved with the others' change no counted value).
# usage: rounds.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Columns by name: prints "point col..." for the named columns of FILE.
cols() {
    file=$1
    shift
    awk -F, -v want="$*" 'NR == 1 { n = split(want, w, " "); for (i = 1; i <= NF; i++) c[$i] = i; next }
        { line = $c["point"]; for (j = 1; j <= n; j++) line = line " " $c[w[j]]; print line }' "$file"
}

check() {  # name columns...: order = points and order = rounds agree on the columns; rounds ran every repeat
    name=$1
    shift
    for order in points rounds; do
        sed "s/^order = .*/order = $order/" "$tmp/$name.ini" >"$tmp/$name-$order.ini"
        "$cdlab" run --quiet --output "$tmp" --run-id r "$tmp/$name-$order.ini" >/dev/null 2>"$tmp/err" ||
            fail "$name, order = $order: $(cat "$tmp/err")"
    done
    p=$tmp/$name-points/r r=$tmp/$name-rounds/r
    [ "$(cols "$p/summary.csv" "$@")" = "$(cols "$r/summary.csv" "$@")" ] ||
        fail "$name: rounds and points differ: $(cols "$r/summary.csv" "$@") / $(cols "$p/summary.csv" "$@")"
    cols "$r/summary.csv" repeats | awk '$2 != 2 { bad = 1 } END { exit bad || NR != 2 }' ||
        fail "$name: repeats measured: $(cols "$r/summary.csv" repeats)"
    [ "$(wc -l <"$p/frames.csv")" -eq "$(wc -l <"$r/frames.csv")" ] || fail "$name: frame rows differ"
    grep -q '^order = rounds' "$r/meta.ini" || grep -q 'order = rounds' "$r/config.ini" || fail "$name: not in rounds"
    echo "ok: $name in rounds: 2 points x 2 repeats, same $* as in points: $(cols "$r/summary.csv" "$@" | tr '\n' ';')"
}

cat >"$tmp/bodies.ini" <<'INI'
[experiment]
kind = bodies
order = rounds
warmup = 1
frames = 3
repeats = 2
[scene]
bodies = 20, 40
[bodies]
meshes = icosphere:80, torus:96
[method]
method = grid
[run]
counters =
isolate = none
INI
check bodies pairs_mean tri_pairs_mean bv_tests_mean

cat >"$tmp/mesh.ini" <<'INI'
[experiment]
kind = mesh
order = rounds
warmup = 1
repeats = 2
[mesh]
a = icosphere:200
b = torus:200
poses = 8
[method]
hierarchy = obb, hybrid
[run]
counters =
isolate = none
INI
check mesh pairs_mean bv_tests_mean tri_tests_mean
