#!/bin/sh
# SPDX-License-Identifier: MIT
# `[measure] budget_ms` skips every point the dry run says it skips, however many series go over
# it, and every warning is kept: 300 series (seeds 1..300) of 8 and 16 cubes under a budget every
# frame exceeds, so each series notes its 8-cube point and skips its 16-cube one (300 notes, 300
# warnings; the runner once kept 256 notes and 64 warnings, and measured the rest without a word).
# Checked: the dry run, a run with its points in child processes (the notes and warnings come back
# over a pipe) and one without, two shards merged ([warnings] of the merged run), and a run killed
# (SIGKILL) after more than 256 series noted, whose progress.part journal holds every note and
# warning, resumed: all 300 points of its larger cube count skipped, [warnings] count = 300.
# usage: budget_notes.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
bg=""
trap '[ -z "$bg" ] || kill -9 "$bg" 2>/dev/null; cli_cleanup' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >many.ini <<'INI'
[experiment]
name = many
seed = 1..300
warmup = 0
frames = 1
repeats = 1
[scene]
cubes = 8, 16
[method]
method = naive
[measure]
budget_ms = 0.000001
[run]
pin = off
cpu = -1
counters =
isolate = process
INI
sed -e 's/^isolate = .*/isolate = none/' -e 's/^name = many/name = none/' many.ini >none.ini

n=$(timeout 60 "$cdlab" run --dry-run many.ini | grep -c 'cubes=16 .*skipped by budget_ms')
[ "$n" -eq 300 ] || fail "the dry run skips $n points at 16 cubes, expected 300"

# check DIR WHAT [SMALL LARGE]: every point at LARGE cubes (16) skipped (repeats NA), none at
# SMALL (8); meta.ini [warnings] count = 300, the last for point 599.
check() {
    a=${3:-8} b=${4:-16}
    s=$(awk -F, -v a="$a" -v b="$b" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { n[$c["cubes"] "," ($c["repeats"] == "NA" ? "skipped" : "measured")]++ }
        END { printf "%d %d %d %d", n[a ",measured"], n[a ",skipped"], n[b ",measured"], n[b ",skipped"] }' "$1/summary.csv")
    [ "$s" = "300 0 0 300" ] ||
        fail "$2: $a cubes measured/skipped, $b cubes measured/skipped: $s, expected 300 0 0 300"
    grep -q '^count = 300$' "$1/meta.ini" || fail "$2: meta.ini [warnings]: $(grep -A1 '^\[warnings\]' "$1/meta.ini")"
    grep -q "^w300 = .*point 599 skipped: naive took .* at $a cubes, over budget_ms 1e-06\$" "$1/meta.ini" ||
        fail "$2: meta.ini lacks w300 for point 599"
    echo "ok: $2: 300 points at $b cubes skipped, 300 warnings in meta.ini"
}
for cfg in many none; do
    timeout 60 "$cdlab" run --quiet --output out --run-id one $cfg.ini >/dev/null 2>err.txt || fail "$cfg: $(cat err.txt)"
    check out/$cfg/one "isolate = $(sed -n 's/^isolate = //p' $cfg.ini)"
done

for i in 0 1; do
    timeout 60 "$cdlab" run --quiet --output out --shard $i/2 --run-id s$i many.ini >/dev/null 2>err.txt ||
        fail "shard $i: $(cat err.txt)"
done
timeout 60 "$cdlab" merge --quiet out/many/s0 out/many/s1 -o merged >/dev/null 2>err.txt || fail "merge: $(cat err.txt)"
check merged "2 shards merged"

# Killed after more than 256 series noted, then resumed: 200 and 400 cubes with 60 warm-up frames,
# about 7 ms a point on a 2020 laptop, so that the run still has 40 points to go then.
sed -e 's/^warmup = .*/warmup = 60/' -e 's/^cubes = .*/cubes = 200, 400/' -e 's/^name = many/name = slow/' \
    many.ini >slow.ini
"$cdlab" run --quiet --output out --run-id k slow.ini >/dev/null 2>&1 &
bg=$!
# notes: the note lines of the journal so far (0 before it is there).
notes() {
    c=$(grep -c '^note ' out/slow/k/progress.part 2>/dev/null)
    echo "${c:-0}"
}
k=0
until [ "$(notes)" -ge 258 ] || [ $k -ge 2000 ] ||
    ! kill -0 "$bg" 2>/dev/null; do
    sleep 0.01
    k=$((k + 1))
done
kill -9 "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
bg=""
wait_abandoned out/slow/k
[ -e out/slow/k/INCOMPLETE ] ||
    fail "the run finished before 258 series were noted in its progress.part (it had $(notes))"
notes=$(grep -c '^note ' out/slow/k/progress.part) warns=$(grep -c '^warn ' out/slow/k/progress.part)
even=$(awk '$1 == "done" && $2 % 2 == 0' out/slow/k/progress.part | wc -l)
odd=$(awk '$1 == "done" && $2 % 2 == 1' out/slow/k/progress.part | wc -l)
[ "$notes" -eq "$even" ] && [ "$warns" -eq "$odd" ] ||
    fail "progress.part: $notes notes for $even 200-cube points done, $warns warnings for $odd skipped"
echo "ok: killed; progress.part holds a note for each of $even 200-cube points and a warning for each of $odd skipped"
# As if killed right after a 200-cube point (past the 256th series): the journal up to its last
# done 200-cube point, so the resume decides that series' 400-cube point from the note it reloads.
last=$(awk '$1 == "done" && $2 % 2 == 0 { n = NR } END { print n }' out/slow/k/progress.part)
head -n "$last" out/slow/k/progress.part >journal && cp journal out/slow/k/progress.part
[ "$(tail -n 1 out/slow/k/progress.part | cut -d' ' -f2)" -ge 514 ] || fail "the journal ends before point 514"
timeout 60 "$cdlab" run --quiet --resume --output out --run-id k slow.ini >/dev/null 2>err.txt || fail "resume: $(cat err.txt)"
grep -q '^points_resumed = [1-9]' out/slow/k/meta.ini || fail "the resume kept no point"
check out/slow/k "resumed after a kill" 200 400
exit 0
