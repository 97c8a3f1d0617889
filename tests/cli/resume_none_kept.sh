#!/bin/sh
# SPDX-License-Identifier: MIT
# A resume that keeps no finished point still says it resumed: meta.ini [run] has
# points_resumed = 0 and resumed_from (the earlier attempt's INCOMPLETE line), and cdlab merge
# warns of the resumed shard. The earlier attempt stops in its first point in two ways: a file
# size limit (RLIMIT_FSIZE: EFBIG while writing frames.csv.part, every time the same), and SIGKILL
# once the run directory is there (the point takes about a second; should the kill come after
# it, points_resumed must count the points progress.part lists). A run that is not resumed, also
# one that --resume starts afresh, has neither key.
# usage: resume_none_kept.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
bg=""
trap '[ -z "$bg" ] || kill -9 "$bg" 2>/dev/null; cli_cleanup' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >r.ini <<'INI'
[experiment]
name = r
warmup = 0
frames = 200
repeats = 1
[scene]
cubes = 50, 60
[method]
method = naive
[run]
pin = off
cpu = -1
counters =
INI

# Not resumed: a plain run, and one that --resume starts because there is none to continue.
timeout 60 "$cdlab" run --quiet --output out --run-id plain r.ini >/dev/null 2>err.txt || fail "plain run: $(cat err.txt)"
timeout 60 "$cdlab" run --quiet --resume --output out --run-id fresh r.ini >/dev/null 2>err.txt ||
    fail "--resume with nothing to continue: $(cat err.txt)"
for id in plain fresh; do
    ! grep -q '^points_resumed\|^resumed_from' out/r/$id/meta.ini || fail "$id: a run not resumed says points_resumed"
done
echo "ok: runs not resumed have no points_resumed"

# 1. A shard whose first point could not be written: frames.csv.part over the file size limit (4
# blocks: 2 or 4 KiB, by the shell; the point writes some 30 kB of frames, the files before it
# less than 2 KiB).
sh -c 'ulimit -f 4; exec "$0" run --quiet --shard 0/1 --output out --run-id s0 "$1"' "$cdlab" r.ini >/dev/null 2>err.txt
rc=$?
[ $rc -eq 1 ] || fail "the run under ulimit -f exited $rc, expected 1: $(cat err.txt)"
grep -q '0 of 2 points done' out/r/s0/INCOMPLETE || fail "INCOMPLETE: $(cat out/r/s0/INCOMPLETE)"
! grep -q '^done ' out/r/s0/progress.part || fail "progress.part lists a point done"
timeout 60 "$cdlab" run --resume --shard 0/1 --output out --run-id s0 r.ini >/dev/null 2>err.txt ||
    fail "resume: $(cat err.txt)"
grep -q 'resuming out/r/s0: 0 of 2 points done already (point 0: writing frames.csv.part: File too large)' err.txt ||
    fail "resume says: $(cat err.txt)"
grep -q '^points_resumed = 0$' out/r/s0/meta.ini || fail "meta.ini lacks points_resumed = 0: $(sed -n '/^\[run\]/,/^$/p' out/r/s0/meta.ini)"
grep -q '^resumed_from = point 0: writing frames.csv.part: File too large$' out/r/s0/meta.ini ||
    fail "meta.ini lacks resumed_from: $(sed -n '/^\[run\]/,/^$/p' out/r/s0/meta.ini)"
echo "ok: a resume after a failed first point says points_resumed = 0 and resumed_from"
timeout 60 "$cdlab" merge out/r/s0 -o merged >/dev/null 2>err.txt || fail "merge: $(cat err.txt)"
want="shard 0 was resumed: 0 of its points were measured by an earlier attempt (point 0: writing frames.csv.part"
grep -qF "cdlab merge: warning: $want" err.txt || fail "merge does not warn of the resumed shard: $(cat err.txt)"
grep -qF "$want" merged/meta.ini || fail "merged meta.ini [warnings] lacks the resumed shard"
# [merge] shard0, its continuation lines joined
line=$(sed -n '/^\[merge\]/,/^$/p' merged/meta.ini | awk '/^shard0 = / { on = 1 } on && !/^shard0/ && !/^[ \t]/ { on = 0 }
    on { sub(/^[ \t]+/, " "); printf "%s", $0 }')
case $line in *" | 2 points | resumed 0") ;; *) fail "merged meta.ini [merge] shard0 = $line" ;; esac
echo "ok: merge warns of the shard resumed with 0 points kept"

# 2. Killed (SIGKILL) in its first point: 3000 cubes, 50 frames.
sed -e 's/^name = r/name = k/' -e 's/^cubes = .*/cubes = 3000, 10/' -e 's/^frames = .*/frames = 50/' r.ini >k.ini
"$cdlab" run --quiet --output out --run-id k k.ini >/dev/null 2>&1 &
bg=$!
n=0
until [ -s out/k/k/progress.part ] || [ $n -ge 1000 ]; do
    sleep 0.01
    n=$((n + 1))
done
kill -9 "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
bg=""
[ -e out/k/k/INCOMPLETE ] || fail "the run finished before the kill"
wait_abandoned out/k/k
done=$(grep -c '^done ' out/k/k/progress.part)
timeout 60 "$cdlab" run --quiet --resume --output out --run-id k k.ini >/dev/null 2>err.txt || fail "resume: $(cat err.txt)"
grep -q "^points_resumed = $done\$" out/k/k/meta.ini ||
    fail "meta.ini lacks points_resumed = $done: $(sed -n '/^\[run\]/,/^$/p' out/k/k/meta.ini)"
grep -q '^resumed_from = abandoned: run started ' out/k/k/meta.ini ||
    fail "meta.ini lacks resumed_from = abandoned: ...: $(sed -n '/^\[run\]/,/^$/p' out/k/k/meta.ini)"
echo "ok: a resume after SIGKILL ($done points done then) says points_resumed = $done and resumed_from = abandoned: ..."
exit 0
