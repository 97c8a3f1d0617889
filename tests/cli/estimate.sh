#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab run --dry-run` estimates each point's time and peak memory from its method's model (fit
# to the committed reference runs: scripts/estimate-model.sh), prints the total, and warns about a
# point whose peak memory exceeds this machine's; --shard balances by the same estimate, so a
# method's cost is its own (naive's quadratic time weighs more than grid's at the same size).
# No assertion on a clock: only the estimates' order and the presence of their lines.
# usage: estimate.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
cat >e.ini <<'INI'
[experiment]
name = e
frames = 10
[scene]
cubes = 100000
[method]
method = grid, naive
[run]
pin = off
INI
"$cdlab" run --dry-run e.ini >out 2>err || fail "dry-run: $(cat err)"
grep -q '^  point 0: method=grid  (~[0-9.e+-]* s, [0-9.]* MiB)$' out || fail "no estimate for grid: $(cat out)"
grep -q '^  estimate: .* for 2 point(s) (time in all, largest peak memory); model: .* broad_scaling' out ||
    fail "no total: $(cat out)"
# Seconds of each point as printed; naive at 10^5 cubes takes minutes, grid a fraction of a second.
secs() { sed -n "s/^  point $1: .*(~\([0-9.e+-]*\) \([a-z]*\).*/\1 \2/p" out |
    awk '{ print $1 * ($2 == "min" ? 60 : $2 == "h" ? 3600 : $2 == "days" ? 86400 : 1) }'; }
g=$(secs 0) n=$(secs 1)
awk -v g="$g" -v n="$n" 'BEGIN { exit !(n > 100 * g && g > 0) }' || fail "naive ($n s) not far above grid ($g s)"
echo "ok: grid ~$g s, naive ~$n s at 10^5 cubes"
# The shard split weighs the same estimates: one shard holds the naive point alone.
"$cdlab" run --dry-run --shard 0/2 e.ini >s0 || fail "shard dry-run"
"$cdlab" run --dry-run --shard 1/2 e.ini >s1 || fail "shard dry-run"
grep -l 'method=naive' s0 s1 | xargs grep -c '^  point' | grep -q '^1$' || fail "naive shares its shard: $(cat s0 s1)"
grep -q '^shard 0/2: estimated [0-9.e+]* s of [0-9.e+]* s' s0 || fail "no shard estimate: $(head -n 1 s0)"
echo "ok: $(head -n 1 s0); $(head -n 1 s1)"
# A point that cannot fit: fcl_interval_tree's model at 10^8 cubes needs some 250 GiB.
if "$cdlab" methods | grep -q '^ *fcl_interval_tree'; then
    sed 's/^cubes = .*/cubes = 100000000/; s/^method = .*/method = fcl_interval_tree/' e.ini >big.ini
    mem=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
    "$cdlab" run --dry-run big.ini >out 2>err || fail "dry-run big: $(cat err)"
    if awk -v m="$mem" 'BEGIN { exit !(m < 2e11) }'; then
        grep -q "big.ini point 0: estimated peak memory .* GiB exceeds this machine's" err ||
            fail "no memory warning: $(cat err)"
        echo "ok: $(cat err)"
    fi
fi
exit 0
