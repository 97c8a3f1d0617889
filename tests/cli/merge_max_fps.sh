#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab merge` of a max_fps sweep, whose points write one summary row per probe: three searches
# (naive, grid, sap) in two shards, merged, equal the unsharded run in every deterministic column
# of frames.csv and summary.csv (every probe passes a target of 0.001 FPS, so each search doubles
# from 64 to its limit of 512 cubes on every machine: four probes, the same rows everywhere), each
# point's rows together and in plan order. Refused (exit 2, nothing written): a shard whose rows of
# one point another point's row splits, its [files] record updated to match.
# usage: merge_max_fps.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
det="$(cd "$fix/../../scripts" && pwd)/deterministic-columns.sh"
fail() { echo "FAIL: $*"; exit 1; }

cat >mf.ini <<'INI'
[experiment]
name = mf
kind = max_fps
seed = 3
warmup = 0
frames = 2
repeats = 1
[search]
target_fps = 0.001
start = 64
limit = 512
[method]
method = naive, grid, sap
[run]
pin = off
cpu = -1
counters =
INI
timeout 60 "$cdlab" run --quiet --output out --run-id full mf.ini >/dev/null 2>err.txt || fail "unsharded run: $(cat err.txt)"
for i in 0 1; do
    timeout 60 "$cdlab" run --quiet --output out --shard $i/2 --run-id s$i mf.ini >/dev/null 2>err.txt ||
        fail "shard $i: $(cat err.txt)"
done
# The probes as the kind writes them: four rows per point, together.
[ "$(cut -d, -f1 out/mf/full/summary.csv | uniq -c | awk 'NR > 1 { printf "%s:%s ", $2, $1 }')" = "0:4 1:4 2:4 " ] ||
    fail "unsharded summary.csv: expected 4 probes of each of 3 points: $(cut -d, -f1 out/mf/full/summary.csv | uniq -c)"

timeout 60 "$cdlab" merge --quiet out/mf/s0 out/mf/s1 -o merged >/dev/null 2>err.txt
rc=$?
[ $rc -eq 0 ] || fail "merge of the max_fps shards exited $rc: $(cat err.txt)"
for f in frames.csv summary.csv; do
    sh "$det" out/mf/full $f >full.txt && sh "$det" merged $f >merged.txt || fail "$f: no deterministic columns"
    cmp -s full.txt merged.txt || { diff full.txt merged.txt | head; fail "merged $f differs from unsharded"; }
    echo "ok: merged $f = unsharded in every deterministic column ($(($(wc -l <full.txt) - 1)) rows)"
done
# The columns that say the structure, by name: point, cubes, probe, passes.
cols() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
        { print $c["point"] "," $c["cubes"] "," $c["probe"] "," $c["passes"] }' "$1"
}
cols merged/summary.csv >m.txt && cols out/mf/full/summary.csv >u.txt
cmp -s m.txt u.txt || { diff m.txt u.txt | head; fail "point, cubes, probe, passes differ"; }
grep -qx '2,512,3,1' m.txt || fail "no passing probe 3 at 512 cubes of point 2: $(cat m.txt)"
echo "ok: $(($(wc -l <m.txt) - 1)) probe rows of 3 points, plan order, as the unsharded run"
# Which probes a search makes follows the measured times: cubes, probe and passes are varying
# columns of a max_fps run, not deterministic ones a comparison would check.
for c in cubes probe passes max_cubes; do
    grep -q "^summary_varying = .*\b$c\b" out/mf/full/meta.ini || fail "$c not varying: $(grep summary_varying out/mf/full/meta.ini)"
done

# The shard with two points, its first row moved to its end: point A's rows split by point B's.
two=""
for i in 0 1; do
    [ "$(cut -d, -f1 out/mf/s$i/summary.csv | sed 1d | sort -u | wc -l)" -eq 2 ] && two=s$i
done
[ -n "$two" ] || fail "no shard holds two points"
cp -r out/mf/$two split
{ sed -n 1p out/mf/$two/summary.csv; sed '1,2d' out/mf/$two/summary.csv; sed -n 2p out/mf/$two/summary.csv; } \
    >split/summary.csv
cmp -s split/summary.csv out/mf/$two/summary.csv && fail "the split summary.csv is the shard's"
sed -i -e "s/^summary_bytes = .*/summary_bytes = $(wc -c <split/summary.csv | tr -d ' ')/" \
    -e "s/^summary_sha256 = .*/summary_sha256 = $(sha256sum split/summary.csv | cut -d' ' -f1)/" split/meta.ini
other=s0
[ $two = s0 ] && other=s1
timeout 60 "$cdlab" merge split out/mf/$other -o bad >/dev/null 2>err.txt
rc=$?
[ $rc -eq 2 ] || fail "a point's rows split: merge exited $rc, expected 2: $(cat err.txt)"
grep -q "expected each point's summary rows together" err.txt || fail "a point's rows split: $(cat err.txt)"
[ ! -e bad ] || fail "a refused merge left bad/ behind"
echo "ok: refuses $(cat err.txt)"
exit 0
