#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab compare` on runs whose times are set by the test, not measured (no assertion on a clock):
# a run against its own copy (ratio exactly 1, an interval around it: no change, exit 0), against a copy with every frame
# time doubled (slower, exit 1) or halved (faster, exit 0), with one frame's pair count changed
# (correctness alarm, exit 3), with a point removed (listed as in one run only) and with another
# CPU in meta.ini (a warning); CSV output; and bad input (exit 2).
# usage: compare.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cdlab" run --quiet --output "$tmp" --run-id base "$fix/tiny.ini" >/dev/null
base=$tmp/tiny/base
# The base's frame times set too (0.100 to 0.108 ms, by row): measured ones can spread over modes
# (a sanitizer build's pauses) so far that even doubled times would not be told from them.
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "frame_ms") c = i; print; next }
    { $c = 0.1 * (1 + (NR % 5) / 50); print }' "$base/frames.csv" >"$tmp/frames.csv"
mv "$tmp/frames.csv" "$base/frames.csv"
# The edits stand in for runs: each edited run's meta.ini [files] gets the new sizes and SHA-256,
# which every reader of a run directory checks (an edit left unsealed is refused, below).
reseal() {
    for f in frames summary; do
        b=$(wc -c <"$1/$f.csv" | tr -d ' ') h=$(sha256sum "$1/$f.csv" | cut -d' ' -f1)
        sed -i -e "s/^${f}_bytes = .*/${f}_bytes = $b/" -e "s/^${f}_sha256 = .*/${f}_sha256 = $h/" "$1/meta.ini"
    done
}
reseal "$base"

# A copy of the base run whose frames.csv column COL is rewritten by the awk expression EXPR.
variant() {
    rm -rf "$tmp/$1"
    cp -r "$base" "$tmp/$1"
    awk -F, -v OFS=, -v col="$2" "NR == 1 { for (i = 1; i <= NF; i++) if (\$i == col) c = i; print; next }
        { $3; print }" "$base/frames.csv" >"$tmp/$1/frames.csv"
    reseal "$tmp/$1"
}
expect() {  # expect RC NAME ARGS...: run compare, check its exit status
    want=$1 name=$2
    shift 2
    set +e
    "$cdlab" compare "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    set -e
    [ "$rc" -eq "$want" ] || { echo "FAIL: $name: exit $rc, expected $want"; cat "$tmp/$name.out" "$tmp/$name.err"; exit 1; }
}

variant same frame_ms '$c = $c'
expect 0 same "$base" "$tmp/same"
grep -q '| cubes=30 | .* | 1.000 | 0\.[0-9]* – 1\.[0-9]* | no significant change |' "$tmp/same.out" || {
    echo "FAIL: a run against its copy is not a ratio of 1"; cat "$tmp/same.out"; exit 1; }
grep -q '^None: same host' "$tmp/same.out" || { echo "FAIL: warnings for identical runs"; exit 1; }

variant slow frame_ms '$c = $c * 2'
expect 1 slow "$base" "$tmp/slow"
[ "$(grep -c '| \*\*slower\*\* |' "$tmp/slow.out")" -eq 2 ] || { echo "FAIL: doubled times not slower"; cat "$tmp/slow.out"; exit 1; }
grep -q '| 2.000 |' "$tmp/slow.out" || { echo "FAIL: the ratio of doubled times is not 2"; exit 1; }
# A threshold above the change: no point is slower beyond it.
expect 0 slow_threshold --threshold 150% "$base" "$tmp/slow"
grep -q 'changed, within threshold' "$tmp/slow_threshold.out" || { echo "FAIL: threshold ignored"; exit 1; }

variant fast frame_ms '$c = $c / 2'
expect 0 fast "$base" "$tmp/fast"
[ "$(grep -c '| faster |' "$tmp/fast.out")" -eq 2 ] || { echo "FAIL: halved times not faster"; exit 1; }

# Deterministic columns: one frame's pairs differ.
variant alarm pairs 'if (NR == 4) $c = $c + 1'
expect 3 alarm "$base" "$tmp/alarm"
grep -q 'correctness alarm.*frames.csv pairs' "$tmp/alarm.out" || { echo "FAIL: no alarm for pairs"; cat "$tmp/alarm.out"; exit 1; }
# A summary mean that differs is an alarm too; --ignore skips the column.
variant alarm2 frame_ms '$c = $c'
col=pairs_mean
k=$(head -n 1 "$base/summary.csv" | tr , '\n' | grep -nx "$col" | cut -d: -f1)
sed "2s/^\(\([^,]*,\)\{$((k - 1))\}\)[^,]*/\19999/" "$base/summary.csv" >"$tmp/alarm2/summary.csv"
reseal "$tmp/alarm2"
expect 3 alarm2 "$base" "$tmp/alarm2"
grep -q "summary $col: .* vs 9999" "$tmp/alarm2.out" || { echo "FAIL: no alarm for summary $col"; cat "$tmp/alarm2.out"; exit 1; }
expect 0 alarm2_ignored --ignore "$col" "$base" "$tmp/alarm2"

# A point in one run only, and a different CPU: listed and warned, the rest still compared.
variant one frame_ms '$c = $c'
sed -i '3d' "$tmp/one/summary.csv"
reseal "$tmp/one"
sed -i 's/^cpu_model = .*/cpu_model = Another CPU/' "$tmp/one/meta.ini"
expect 0 one "$base" "$tmp/one"
grep -q '| cubes=120 | yes |  | | | only in BASE |' "$tmp/one.out" || { echo "FAIL: point of one run not listed"; cat "$tmp/one.out"; exit 1; }
grep -q 'CPU differs.*Another CPU' "$tmp/one.out" || { echo "FAIL: no warning for another CPU"; exit 1; }

# CSV: one row per point with its parameters; the tally on stderr.
expect 1 csv --format csv "$base" "$tmp/slow"
[ "$(head -n 1 "$tmp/csv.out")" = "cubes,base_median,new_median,ratio,ci_low,ci_high,verdict,alarm" ] || {
    echo "FAIL: CSV header"; cat "$tmp/csv.out"; exit 1; }
grep -q '^120,.*,2.0000,.*,slower,0$' "$tmp/csv.out" || { echo "FAIL: CSV row"; cat "$tmp/csv.out"; exit 1; }
grep -q '2 slower' "$tmp/csv.err" || { echo "FAIL: CSV tally"; exit 1; }

# A run's CSV edited after the run (here a negative time, unsealed) is refused, not compared.
variant edited frame_ms 'if (NR == 2) $c = -$c'
sed -i 's/^frames_sha256 = .*/frames_sha256 = 0000/' "$tmp/edited/meta.ini"
expect 2 edited "$base" "$tmp/edited"
grep -q "edited/frames.csv: SHA-256 [0-9a-f]*, but its run wrote 0000 (meta.ini \[files\]): changed since" "$tmp/edited.err" || { echo "FAIL: edited"; cat "$tmp/edited.err"; exit 1; }

# Runs that share no point (another seed): exit 2, and no report printed before the refusal.
mkdir -p "$tmp/seed"
sed 's/^seed = .*/seed = 99/' "$fix/tiny.ini" >"$tmp/seed/tiny.ini"
grep -q '^seed = 99' "$tmp/seed/tiny.ini" || printf '[experiment]\nseed = 99\n' >>"$tmp/seed/tiny.ini"
"$cdlab" run --quiet --output "$tmp/seed" --run-id s "$tmp/seed/tiny.ini" >/dev/null
expect 2 nocommon "$base" "$tmp/seed/tiny/s"
grep -q 'share no point: no value in common for seed (BASE [0-9]*; NEW 99)$' "$tmp/nocommon.err" &&
    [ ! -s "$tmp/nocommon.out" ] || { echo "FAIL: no common point"; cat "$tmp/nocommon.out" "$tmp/nocommon.err"; exit 1; }

# A shard given none of the points (three shards of two points): its run has no points, said so.
for i in 0 1 2; do
    "$cdlab" run --quiet --output "$tmp/shards" --run-id "s$i" --shard "$i/3" "$fix/tiny.ini" >/dev/null
    [ "$(wc -l <"$tmp/shards/tiny/s$i/summary.csv")" -eq 1 ] && empty=$tmp/shards/tiny/s$i
done
expect 2 emptyshard "$base" "$empty"
grep -q "^cdlab compare: $empty has no points (a summary.csv of no rows, as a shard given none)" "$tmp/emptyshard.err" ||
    { echo "FAIL: empty shard"; cat "$tmp/emptyshard.err"; exit 1; }

# --metric takes a cost, lower being faster: fps (higher is faster) doubled would read as slower,
# so it is refused; a time column other than the default is taken. A counter the runs did not
# read (NA) is refused, naming why.
expect 2 fps --metric fps "$base" "$tmp/slow"
grep -q "metric fps: expected a time (a column ending in _ms, _us or _ns) or a counter" "$tmp/fps.err" ||
    { echo "FAIL: --metric fps"; cat "$tmp/fps.err"; exit 1; }
expect 0 broad --metric broad_ms "$base" "$tmp/same"
rm -rf "$tmp/na" && cp -r "$base" "$tmp/na"
awk -F, -v OFS=, 'NR == 1 { print $0, "PAPI_TOT_CYC"; next } { print $0, "NA" }' "$base/frames.csv" >"$tmp/na/frames.csv"
sed -i -e 's/^frames_varying = \(.*\)/frames_varying = \1, PAPI_TOT_CYC/' \
    -e 's/^\[counters\]$/[counters]\nPAPI_TOT_CYC = NA: cannot be added: Event does not exist/' "$tmp/na/meta.ini"
grep -q '^\[counters\]' "$tmp/na/meta.ini" || printf '[counters]\nPAPI_TOT_CYC = NA: cannot be added: Event does not exist\n' >>"$tmp/na/meta.ini"
reseal "$tmp/na"
expect 2 na --metric PAPI_TOT_CYC "$tmp/na" "$tmp/na"
grep -q "counter PAPI_TOT_CYC was not read in this run (meta.ini \[counters\]: NA: cannot be added" "$tmp/na.err" ||
    { echo "FAIL: --metric of an NA counter"; cat "$tmp/na.err"; exit 1; }
# A counter cdlab opened itself ([counters] "ok (perf_event_open; ...)") was read: it is taken.
rm -rf "$tmp/pe" && cp -r "$tmp/na" "$tmp/pe"
awk -F, -v OFS=, 'NR == 1 { print; next } { $NF = 1000 + NR % 7; print }' "$tmp/na/frames.csv" >"$tmp/pe/frames.csv"
sed -i 's/^PAPI_TOT_CYC = NA: .*/PAPI_TOT_CYC = ok (perf_event_open; PAPI: cannot be added)/' "$tmp/pe/meta.ini"
reseal "$tmp/pe"
expect 0 pe --metric PAPI_TOT_CYC "$tmp/pe" "$tmp/pe"
# --ignore names deterministic columns: a misspelt one is refused, a real one taken.
expect 2 typo --ignore pairs_maen "$base" "$tmp/same"
grep -q "ignore pairs_maen: no deterministic column of that name" "$tmp/typo.err" ||
    { echo "FAIL: --ignore typo"; cat "$tmp/typo.err"; exit 1; }
expect 0 ignored --ignore pairs_mean,bytes_mean "$base" "$tmp/same"

# Bad input: exit 2 with a message.
expect 2 notrun "$base" "$tmp"
expect 2 threshold --threshold five "$base" "$tmp/same"
expect 2 format --format xml "$base" "$tmp/same"
expect 2 metric --metric pairs "$base" "$tmp/same"
expect 2 onedir "$base"
"$cdlab" run --quiet --output "$tmp" --run-id tt "$fix/tri_tri.ini" >/dev/null
expect 2 kinds "$base" "$tmp/tri_tri_cli/tt"
grep -q 'expected two runs of one kind' "$tmp/kinds.err" || { echo "FAIL: kinds message"; exit 1; }
echo "ok: same, slower, faster, threshold, alarms, one-run points, warnings, CSV, an edited run, bad input"
