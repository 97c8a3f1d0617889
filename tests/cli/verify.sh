#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab verify` on plugins: the example's grid passes; its twin that drops pairs at cell borders
# fails (exit 1) with a reproducer that `cdlab run` measures beside naive with fewer pairs; a
# plugin's hierarchy variant passes against brute force; bad usage exits 2.
# usage: verify.sh CDLAB GOOD.so BORDER_BUG.so VARIANT.so WRONG_ABI.so
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
cdlab=$(abs "$1") good=$(abs "$2") bug=$(abs "$3") variant=$(abs "$4") abi=$(abs "$5")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0

"$cdlab" verify --plugin "$good" --scenes 300 >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 0 ] && grep -q '^ok    example_grid ' out && grep -q '^verify: scene 300/300 (100%)' err; } ||
    { echo "FAIL good: exit $rc: $(cat out err)"; fail=1; }

"$cdlab" verify --plugin "$bug" --scenes 300 --out repro >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 1 ] && grep -q '^FAIL  example_grid_border_bug .* pairs missed' out &&
  [ -s repro/example_grid_border_bug/scene.csv ] && [ -s repro/example_grid_border_bug/repro.ini ]; } ||
    { echo "FAIL border bug: exit $rc, expected 1 and a reproducer: $(cat out err)"; fail=1; }
if "$cdlab" run --quiet --output res --run-id r repro/example_grid_border_bug/repro.ini >/dev/null 2>err; then
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next } { print $col["method"], $col["pairs_mean"] }' \
        res/verify_example_grid_border_bug/r/summary.csv > pairs
    cat pairs
    naive=$(awk '$1 == "naive" { print $2 }' pairs)
    broken=$(awk '$1 == "example_grid_border_bug" { print $2 }' pairs)
    awk -v a="$naive" -v b="$broken" 'BEGIN { exit !(a > b) }' ||
        { echo "FAIL reproducer: naive $naive pairs, the broken grid $broken: expected fewer"; fail=1; }
else
    echo "FAIL reproducer: cdlab run failed: $(cat err)"; fail=1
fi

# A plugin with a broad phase and a hierarchy variant: both verified (the variant against brute force).
"$cdlab" verify --plugin "$variant" --scenes 100 --poses 8 >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 0 ] && grep -q '^ok    plugin_naive ' out && grep -q '^ok    plugin_sphere_obb .* triangle pairs' out; } ||
    { echo "FAIL variant plugin: exit $rc: $(cat out err)"; fail=1; }

for args in "--method no_such_method" "--scenes many" "--threads 0" "--plugin $abi"; do
    # shellcheck disable=SC2086
    "$cdlab" verify $args >out 2>err
    rc=$?
    [ "$rc" -eq 2 ] || { echo "FAIL '$args': exit $rc, expected 2: $(cat out err)"; fail=1; }
done
grep -q "plugin ABI 2" err ||  # the last one: the bad plugin { echo "FAIL: a bad --plugin without its reason: $(cat err)"; fail=1; }
[ -z "$(ls -A repro | grep -v example_grid_border_bug)" ] || { echo "FAIL: stray reproducers: $(ls repro)"; fail=1; }
[ "$fail" -eq 0 ] && echo "ok: verify passes the grid, fails its broken twin with a reproducer, checks a variant"
exit "$fail"
