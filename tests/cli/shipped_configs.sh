#!/bin/sh
# SPDX-License-Identifier: MIT
# Every config shipped in configs/ passes `cdlab run --dry-run` (checked and planned, nothing run):
# a config edited past the line limit or naming an unknown key fails here, not in a user's run.
# Configs naming optional peer methods are skipped when this build lacks them.
# usage: shipped_configs.sh CDLAB CONFIG_DIR
set -u
cdlab=$1
dir=$2
# The peers this build has: FCL and Bullet together, CGAL and ODE each when found.
methods=$("$cdlab" methods 2>/dev/null)
have_peers=0
echo "$methods" | grep -q '^fcl_dynamic_tree' && have_peers=1
have_cgal=0
echo "$methods" | grep -q '^cgal_box_intersection' && have_cgal=1
have_ode=0
echo "$methods" | grep -q '^ode_hash' && have_ode=1
fail=0
count=0
for f in "$dir"/*.ini; do
    if { [ "$have_peers" -eq 0 ] && grep -q -e 'fcl_' -e 'bullet_' "$f"; } ||
        { [ "$have_cgal" -eq 0 ] && grep -q -E '(^|[ ,=])cgal_' "$f"; } ||
        { [ "$have_ode" -eq 0 ] && grep -q -E '(^|[ ,=])ode_' "$f"; }; then
        echo "skip $f (names peer methods this build does not have)"
        continue
    fi
    count=$((count + 1))
    if out=$("$cdlab" run --dry-run "$f" 2>&1); then
        echo "ok $f ($(echo "$out" | grep -c 'point '))"
    else
        echo "FAIL $f: $out"
        fail=1
    fi
done
[ "$count" -gt 0 ] || { echo "FAIL: no configs checked in $dir"; exit 1; }
exit $fail
