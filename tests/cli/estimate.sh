#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab run --dry-run` estimates each point's time and peak memory from its method's model (fit
# to the committed reference runs: scripts/estimate-model.sh), prints the total, and warns about a
# point whose peak memory exceeds this machine's; --shard balances by the same estimate, so a
# method's cost is its own (naive's quadratic time weighs more than grid's at the same size).
# With [measure] budget_ms, a point whose estimate is over the budget ends its series: the larger
# cube counts after it are marked skipped, and neither the total, the largest peak, the memory
# warning nor the shard balance counts them (they would be hours and gigabytes that never run).
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

# A budget far below any model's frame time at 1000 cubes (a microsecond): the series goes over
# it at its first point, so the later, larger counts are skipped, as the run will skip them.
cat >b.ini <<'INI'
[experiment]
name = b
warmup = 0
frames = 10
repeats = 3
[measure]
budget_ms = 0.001
[scene]
cubes = 1000, 10000, 100000000
[method]
method = dtree
[run]
pin = off
INI
"$cdlab" run --dry-run b.ini >out 2>err || fail "dry-run with a budget: $(cat err)"
grep -q '^  point 0: cubes=1000  (~[0-9.e+-]* s, [0-9.]* MiB, ~[0-9.e+-]* ms per frame, over budget_ms 0.001: its series skips larger cubes after it)$' out ||
    fail "point 0 not over budget: $(cat out)"
for i in 1 2; do
    grep -q "^  point $i: cubes=[0-9]*  (skipped by budget_ms, estimated: its series is over it at 1000 cubes)$" out ||
        fail "point $i not skipped: $(cat out)"
done
# The total is point 0's alone: seconds (not the hours of 10^8 cubes), MiB (not its ~46 GiB).
grep -q '^  estimate: [0-9.e+-]* s, [0-9.]* MiB for 1 point(s) (time in all, largest peak memory); model: .*; 2 point(s) skipped by budget_ms (estimated), not counted$' out ||
    fail "the total counts skipped points: $(grep estimate: out)"
grep -q 'exceeds this machine' err && fail "a memory warning for a skipped point: $(cat err)"
echo "ok: $(grep estimate: out)"
# Without the budget the point at 10^8 cubes counts, and warns where it cannot fit.
sed '/^budget_ms/d' b.ini >nob.ini
"$cdlab" run --dry-run nob.ini >out 2>err || fail "dry-run without the budget: $(cat err)"
grep -q '^  estimate: .* GiB for 3 point(s)' out || fail "no budget, yet not 3 points in GiB: $(grep estimate: out)"
mem=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
if awk -v m="$mem" 'BEGIN { exit !(m < 4e10) }'; then
    grep -q "nob.ini point 2 (cubes=100000000): estimated peak memory" err || fail "no memory warning: $(cat err)"
fi
# The point over budget runs whole with order = points (the budget is checked after its repeats),
# one round with order = rounds: its estimate is a third (as printed, to two digits).
sed 's/^repeats = 3/repeats = 3\norder = rounds/' b.ini >rounds.ini
"$cdlab" run --dry-run b.ini >out && "$cdlab" run --dry-run rounds.ini >rout || fail "dry-run in rounds"
p=$(sed -n 's/^  point 0: .*(~\([0-9.e+-]*\) s,.*/\1/p' out)
r=$(sed -n 's/^  point 0: .*(~\([0-9.e+-]*\) s,.*/\1/p' rout)
awk -v p="$p" -v r="$r" 'BEGIN { exit !(r > 0 && p / r > 2.5 && p / r < 3.5) }' ||
    fail "over budget: order = points ~$p s, rounds ~$r s, expected 3:1"
echo "ok: the point over budget ~$p s in order = points, ~$r s in rounds"

# Shards weigh the same: b.ini and a config of its point 0 alone cost the same, so two shards
# split them half and half (counted whole, b.ini's skipped points would be nearly all of it).
sed 's/^cubes = .*/cubes = 1000/; s/^name = b/name = one/' b.ini >one.ini
for i in 0 1; do
    "$cdlab" run --dry-run --shard $i/2 b.ini one.ini >s$i 2>err || fail "shard $i/2: $(cat err)"
    grep -q "^shard $i/2: estimated [0-9.e+-]* s of [0-9.e+-]* s (50.0 %)$" s$i ||
        fail "shard $i/2 not half: $(head -n 1 s$i)"
done
echo "ok: $(head -n 1 s0); $(head -n 1 s1)"

# A kind without a model that knows its data's size says it (tri_tri: two triangles a pair).
printf '[experiment]\nname = tt\nkind = tri_tri\n[tri_tri]\npairs = 8192, 100000000\n' >tt.ini
"$cdlab" run --dry-run tt.ini >out 2>err || fail "tri_tri dry run: $(cat err)"
grep -q '^  point 1: pairs=100000000  (no time estimate: no model for tri_tri points; its data 13.4 GiB)$' out &&
    grep -q '^  estimate: none of time; largest data 13.4 GiB; 2 point(s) without a model' out ||
    fail "tri_tri's data: $(cat out)"
echo "ok: $(sed -n 3p out)"

# A max_fps search is estimated probe by probe from its method's model (the probes the search
# makes), not as one unit a frame; a tighter target stops the doubling earlier, so it costs less.
printf '[experiment]\nname = mf\nkind = max_fps\nwarmup = 2\nframes = 20\nrepeats = 3\n[search]\ntarget_fps = %s\n[method]\nmethod = grid\n' \
    60 >mf60.ini
sed 's/^target_fps = .*/target_fps = 2000/; s/^name = mf/name = mf2000/' mf60.ini >mf2000.ini
for f in mf60 mf2000; do
    "$cdlab" run --dry-run $f.ini >$f.out 2>err || fail "$f dry run: $(cat err)"
    grep -q '^  point 0: (no sweep)  (~[0-9.]* [a-z]*, [0-9.]* [KMG]iB[,)]' $f.out || fail "$f not modelled: $(cat $f.out)"
done
# In seconds: the search for 60 FPS climbs to larger counts than the one for 2 000.
secs() { sed -n 's/^  point 0: (no sweep)  (~\([0-9.]*\) \([a-z]*\),.*/\1 \2/p' "$1" |
    awk '{ print $1 * ($2 == "min" ? 60 : $2 == "h" ? 3600 : 1) }'; }
awk -v a="$(secs mf60.out)" -v b="$(secs mf2000.out)" 'BEGIN { exit !(a > b && b > 0) }' ||
    fail "target 60 FPS not longer than 2000: $(secs mf60.out) s against $(secs mf2000.out) s"
echo "ok: max_fps searches modelled: ~$(secs mf60.out) s for 60 FPS, ~$(secs mf2000.out) s for 2000 FPS"

# A mesh point's cost is its queries: [experiment] frames, which the kind does not read, changes
# nothing (it multiplied the estimate before).
printf '[experiment]\nname = m1\nkind = mesh\nwarmup = 1\nframes = 1\nrepeats = 2\n[mesh]\na = icosphere:80\nb = torus:100\nposes = 10\n' >m1.ini
sed 's/^frames = 1/frames = 1000000/; s/^name = m1/name = m2/' m1.ini >m2.ini
for i in 0 1; do
    "$cdlab" run --dry-run --shard $i/2 m1.ini m2.ini >s$i 2>err || fail "mesh shard $i/2: $(cat err)"
    grep -q "^shard $i/2: estimated [0-9.e+-]* s of [0-9.e+-]* s (50.0 %)$" s$i || fail "mesh shard $i/2: $(head -n 1 s$i)"
done
echo "ok: mesh frames = 1 and 10^6 weigh the same: $(head -n 1 s0)"
exit 0
