#!/bin/sh
# SPDX-License-Identifier: MIT
# A sweep in shards, merged, is the unsharded run: 12 points as 3 shards (`run --shard I/3`), one
# of them killed (SIGKILL) after its first point and finished with --resume, then `cdlab merge`;
# every deterministic column of frames.csv and summary.csv (all but those meta.ini lists as
# varying) equals the unsharded run's, byte for byte. Also: the assignment is the same on every
# call and covers the plan once; shards leave `latest` alone; merge refuses a missing shard, a
# shard given twice, a shard of another config, another build, an incomplete shard and a run that
# is no shard, writing nothing; it warns when the CPU models differ.
# usage: shard.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
det="$(cd "$2/../../scripts" && pwd)/deterministic-columns.sh"
tmp=$(mktemp -d)
bg=""
cleanup() {
    [ -z "$bg" ] || kill -9 "$bg" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1

# 12 points: 3 methods × 4 cube counts; the naive points dominate the estimated cost.
cat >sweep.ini <<'INI'
[experiment]
name = sweep
seed = 11
warmup = 1
frames = 4
repeats = 2
[scene]
cubes = 40, 80, 160, 320
density = 0.2
[method]
method = naive, grid_multi, sap
[run]
pin = off
cpu = -1
counters =
INI

# The assignment: a pure function of the config and N, every point in exactly one shard.
for i in 0 1 2; do
    "$cdlab" run --dry-run --shard $i/3 sweep.ini >dry$i.txt || fail "dry-run of shard $i/3 failed"
    "$cdlab" run --dry-run --shard $i/3 sweep.ini | cmp -s - dry$i.txt || fail "shard $i/3: a second dry-run differs"
done
sed -n 's/^  point \([0-9]*\):.*/\1/p' dry0.txt dry1.txt dry2.txt | sort -n | tr '\n' ' ' >points.txt
[ "$(cat points.txt)" = "0 1 2 3 4 5 6 7 8 9 10 11 " ] || fail "the shards' points are not the plan once: $(cat points.txt)"
echo "ok: 3 shards cover the 12 points once; $(head -n 1 dry0.txt)"
# With a budget, a series (one method's cube counts) decides its skips from its smaller counts:
# each series stays in one shard.
sed 's/^\[run\]/[measure]\nbudget_ms = 5\n[run]/' sweep.ini >budget.ini
for i in 0 1 2; do
    n=$("$cdlab" run --dry-run --shard $i/3 budget.ini | sed -n 's/^  point [0-9]*: method=\([a-z_]*\) .*/\1/p' | sort -u | wc -l)
    [ "$n" -eq 1 ] || fail "budget: shard $i/3 holds $n series, expected whole series: $("$cdlab" run --dry-run --shard $i/3 budget.ini)"
done
echo "ok: with budget_ms each shard holds whole series"
"$cdlab" run --shard 3/3 sweep.ini 2>err.txt
[ $? -eq 2 ] && grep -q "expected I/N with 0 <= I < N" err.txt || fail "--shard 3/3 not refused: $(cat err.txt)"

"$cdlab" run --quiet --output out --run-id full sweep.ini >/dev/null || fail "unsharded run failed"
for i in 0 1 2; do
    "$cdlab" run --quiet --shard $i/3 --output out --run-id shard$i sweep.ini >/dev/null || fail "shard $i failed"
done
grep -q '^index = 2$' out/sweep/shard2/meta.ini && grep -q '^count = 3$' out/sweep/shard2/meta.ini ||
    fail "meta.ini [shard] lacks index/count"
[ "$(readlink out/sweep/latest)" = full ] || fail "a shard moved latest to $(readlink out/sweep/latest)"
[ ! -e out/sweep/shard1/progress.part ] || fail "a complete run kept progress.part"

shards="out/sweep/shard0 out/sweep/shard1 out/sweep/shard2"
# shellcheck disable=SC2086
"$cdlab" merge $shards -o merged >/dev/null 2>err.txt || fail "merge failed: $(cat err.txt)"
grep -q '^complete = true$' merged/meta.ini || fail "merged meta.ini is not complete"
head -n 1 merged/summary.csv | grep -q ',shard,host$' || fail "merged summary.csv lacks shard,host"
for sec in cdlab config values; do  # whole, long values too
    [ "$(sed -n "/^\[$sec\]/,/^\$/p" merged/meta.ini)" = "$(sed -n "/^\[$sec\]/,/^\$/p" out/sweep/full/meta.ini)" ] ||
        fail "merged meta.ini [$sec] differs from the unsharded run's"
done
for f in frames.csv summary.csv; do
    sh "$det" out/sweep/full $f >full.txt && sh "$det" merged $f >merged.txt || fail "$f: no deterministic columns"
    [ "$(wc -l <full.txt)" -gt 8 ] || fail "$f: too few rows"
    cmp -s full.txt merged.txt || { diff full.txt merged.txt | head; fail "$f: merged differs from unsharded"; }
    echo "ok: merged $f = unsharded in every deterministic column ($(head -n 1 full.txt | tr ',' '\n' | wc -l) columns, $(($(wc -l <full.txt) - 1)) rows)"
done

# refuse CASE EXPECTED DIR...: merge exits 2, says EXPECTED and writes nothing.
refuse() {
    what=$1 expect=$2
    shift 2
    "$cdlab" merge "$@" -o bad >/dev/null 2>err.txt
    rc=$?
    [ $rc -eq 2 ] || fail "$what: merge exited $rc, expected 2: $(cat err.txt)"
    grep -qF "$expect" err.txt || fail "$what: message lacks '$expect': $(cat err.txt)"
    [ ! -e bad ] || fail "$what: merge left bad/ behind"
    echo "ok: refuses $what: $(cat err.txt)"
}
# shellcheck disable=SC2086
"$cdlab" merge $shards -o slash/ >/dev/null 2>err.txt || fail "merge -o DIR/: $(cat err.txt)"
grep -q '^id = slash$' slash/meta.ini && cmp -s slash/summary.csv merged/summary.csv || fail "merge -o DIR/ differs"
refuse "a missing shard" "missing" out/sweep/shard0 out/sweep/shard2
refuse "a shard twice" "duplicate shard 0/3" out/sweep/shard0 out/sweep/shard0 out/sweep/shard1 out/sweep/shard2
sed 's/^seed = 11/seed = 12/' sweep.ini >other.ini
"$cdlab" run --quiet --shard 1/3 --output out --run-id other other.ini >/dev/null || fail "other config's shard failed"
refuse "another config" "different configs" out/sweep/shard0 out/sweep/other out/sweep/shard2
cp -r out/sweep/shard1 rebuilt
sed -i 's/^build_commit = .*/build_commit = 0000000000000000000000000000000000000000/' rebuilt/meta.ini
refuse "another build" "different builds" out/sweep/shard0 rebuilt out/sweep/shard2
cp -r out/sweep/shard1 cut
mv cut/summary.csv cut/summary.csv.part
refuse "a half-written shard" "cut: incomplete run" out/sweep/shard0 cut out/sweep/shard2
refuse "a run that is no shard" "not a shard" out/sweep/full
# A point's summary row again after another point's, its [files] record updated to match: a run
# writes each point's rows together.
cp -r out/sweep/shard1 twice
sed -n 2p twice/summary.csv >>twice/summary.csv
sed -i -e "s/^summary_bytes = .*/summary_bytes = $(wc -c <twice/summary.csv | tr -d ' ')/" \
    -e "s/^summary_sha256 = .*/summary_sha256 = $(sha256sum twice/summary.csv | cut -d' ' -f1)/" twice/meta.ini
refuse "a point's summary row after another point's" "expected each point's summary rows together" \
    out/sweep/shard0 twice out/sweep/shard2
mkdir bad
# shellcheck disable=SC2086
"$cdlab" merge $shards -o bad >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -q "bad: exists" err.txt && [ -z "$(ls bad)" ] || fail "an existing output: $(cat err.txt)"
rmdir bad
cp -r out/sweep/shard1 elsewhere
sed -i 's/^cpu_model = .*/cpu_model = Some Other CPU/' elsewhere/meta.ini
"$cdlab" merge out/sweep/shard0 elsewhere out/sweep/shard2 -o mixed >/dev/null 2>err.txt || fail "mixed CPUs refused"
grep -q "different CPU models" err.txt && grep -q "different CPU models" mixed/meta.ini ||
    fail "no warning for different CPU models: $(cat err.txt)"
echo "ok: merges shards of different CPU models with a warning"

# A one-shard sweep killed (SIGKILL, as a batch system's second signal) after its first point:
# --resume keeps that point, measures the other, and the merge equals the unsharded run.
cat >slow.ini <<'INI'
[experiment]
name = slow
seed = 5
warmup = 0
frames = 30
repeats = 1
[scene]
cubes = 300, 3000
[method]
method = naive
[run]
pin = off
cpu = -1
counters =
INI
"$cdlab" run --quiet --output out --run-id full slow.ini >/dev/null || fail "unsharded slow run failed"
"$cdlab" run --quiet --shard 0/1 --output out --run-id s0 slow.ini >/dev/null 2>&1 &
bg=$!
k=0
until grep -q '^done 0 ' out/slow/s0/progress.part 2>/dev/null || [ $k -ge 1000 ]; do
    sleep 0.01
    k=$((k + 1))
done
kill -9 "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
bg=""
[ -e out/slow/s0/INCOMPLETE ] || fail "the shard finished before the kill (point 1, 3000 cubes, should take longer)"
"$cdlab" merge out/slow/s0 -o bad 2>err.txt
[ $? -eq 2 ] && grep -q "s0: incomplete run" err.txt && [ ! -e bad ] || fail "merge of a killed shard: $(cat err.txt)"
echo "ok: merge refuses the killed shard: $(cat err.txt)"
# The killed runner's point process ends a moment later (PR_SET_PDEATHSIG) and holds the run's lock
# until then, so a resume at once may find the run in progress: wait until it is abandoned.
k=0
until "$cdlab" plot out/slow/s0 2>&1 | grep -q 'incomplete run (abandoned: ' || [ $k -ge 500 ]; do
    sleep 0.01
    k=$((k + 1))
done
"$cdlab" run --resume --shard 0/1 --output out slow.ini >/dev/null 2>err.txt || fail "resume failed: $(cat err.txt)"
grep -q "resuming out/slow/s0: 1 of 2 points done already" err.txt || fail "resume did not keep point 0: $(cat err.txt)"
grep -q '^points_resumed = 1$' out/slow/s0/meta.ini || fail "meta.ini lacks points_resumed = 1"
echo "ok: $(grep resuming err.txt)"
"$cdlab" run --resume --shard 0/1 --output out --run-id s0 slow.ini >/dev/null 2>err.txt || fail "resume of a complete run"
grep -q "is complete; nothing to resume" err.txt || fail "resume of a complete run says: $(cat err.txt)"
"$cdlab" run --resume --shard 0/2 --output out --run-id s0 slow.ini >/dev/null 2>err.txt
[ $? -eq 2 ] || fail "resume of another shard's run not refused"
"$cdlab" merge --quiet out/slow/s0 -o slow-merged >/dev/null || fail "merge of the resumed shard failed"
for f in frames.csv summary.csv; do
    sh "$det" out/slow/full $f >full.txt && sh "$det" slow-merged $f >merged.txt || fail "$f: no columns"
    cmp -s full.txt merged.txt || { diff full.txt merged.txt | head; fail "resumed $f differs from unsharded"; }
done
echo "ok: the resumed shard, merged, equals the unsharded run in every deterministic column"
exit 0
