#!/bin/sh
# SPDX-License-Identifier: MIT
# The tri_tri experiment kind: two runs of tests/cli/tri_tri.ini give identical deterministic columns
# (hits, operation counts, branch counts); at a/H = 1e-6 every random pair is rejected by the first
# plane test, costing exactly 39 operations in plain float (seed 003) and 42 filtered-exact; the
# exact algorithms report the same hits as each other on every workload.
# usage: tri_tri_kind.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
fix=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for id in one two; do
    "$cdlab" run -q --output "$tmp" --run-id "$id" "$fix/tri_tri.ini" >/dev/null 2>"$tmp/err.$id" ||
        { echo "FAIL run $id: $(cat "$tmp/err.$id")"; exit 1; }
done
s1=$tmp/tri_tri_cli/one/summary.csv
s2=$tmp/tri_tri_cli/two/summary.csv
# Deterministic columns: everything but the timing ones.
det() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i !~ /mtests|ns_per|pass_ms|ratio_to|peak_rss|PAPI/) keep[i] = 1 }
             { line = ""; for (i = 1; i <= NF; i++) if (i in keep) line = line $i ","; print line }' "$1"
}
det "$s1" >"$tmp/d1"
det "$s2" >"$tmp/d2"
if cmp -s "$tmp/d1" "$tmp/d2"; then echo "ok deterministic columns identical"; else echo "FAIL runs differ"; diff "$tmp/d1" "$tmp/d2"; fail=1; fi
col() {  # file workload algorithm column
    awk -F, -v w="$2" -v a="$3" -v c="$4" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $h["workload"] == w && $h["algorithm"] == a { print $h[c] }' "$1"
}
v=$(col "$s1" random float ops_mean); [ "$v" = 39 ] && echo "ok float random ops_mean 39" || { echo "FAIL float ops_mean $v, expected 39"; fail=1; }
v=$(col "$s1" random exact ops_mean); [ "$v" = 42 ] && echo "ok exact random ops_mean 42" || { echo "FAIL exact ops_mean $v, expected 42"; fail=1; }
v=$(col "$s1" random exact plane_a_n); [ "$v" = 3000 ] && echo "ok all random pairs decided by plane_a" || { echo "FAIL plane_a_n $v"; fail=1; }
for w in random near coplanar; do
    e=$(col "$s1" $w exact hits) g=$(col "$s1" $w gd hits)
    if [ -n "$e" ] && [ "$e" = "$g" ]; then echo "ok $w: exact and gd agree ($e hits)"; else echo "FAIL $w: exact $e gd $g"; fail=1; fi
done
# near and coplanar workloads really hold both answers.
for w in near coplanar; do
    h=$(col "$s1" $w exact hits)
    if [ "$h" -gt 0 ] && [ "$h" -lt 3000 ]; then echo "ok $w has $h of 3000 intersecting"; else echo "FAIL $w hits $h"; fail=1; fi
done
exit $fail
