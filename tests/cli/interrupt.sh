#!/bin/sh
# SPDX-License-Identifier: MIT
# Ctrl-C (SIGINT) stops after the current point: exit 130, the finished points are in complete
# files (no .part left), and meta.ini says the run is incomplete. With order = rounds it stops
# after the current repeat, and every point measured in a finished round keeps its summary row,
# with the repeats it ran.
# usage: interrupt.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Run NAME.ini as run id ID in the background, interrupt it once `ready` (a function of the run
# directory) says so, and check what every interrupted run must show: exit 130, no .part file,
# meta.ini status = interrupted.
interrupt_when() {
    name=$1 id=$2 ready=$3
    "$cdlab" run --quiet --output "$tmp" --run-id "$id" "$tmp/$name.ini" >/dev/null 2>&1 &
    pid=$!
    d="$tmp/$name/$id"
    n=0
    while [ "$n" -lt 600 ]; do
        if "$ready" "$d"; then break; fi
        sleep 0.1
        n=$((n + 1))
    done
    kill -INT "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -eq 130 ] || { echo "FAIL: $name: exit $rc, expected 130"; exit 1; }
    [ -z "$(ls "$d" | grep '\.part$')" ] || { echo "FAIL: $name: .part files left: $(ls "$d")"; exit 1; }
    grep -q '^complete = false' "$d/meta.ini" || { echo "FAIL: $name: meta.ini does not say incomplete"; exit 1; }
    grep -q '^status = interrupted' "$d/meta.ini" || { echo "FAIL: $name: status not interrupted"; exit 1; }
}

# The first point has landed in summary.csv.part.
first_point_done() { [ -f "$1/summary.csv.part" ] && [ "$(wc -l <"$1/summary.csv.part")" -ge 2 ]; }
# frames.csv rows start point,repeat: a row of repeat 1 (round 2) is there.
second_round_started() { [ -f "$1/frames.csv.part" ] && grep -q '^[0-9]*,1,' "$1/frames.csv.part"; }

cat >"$tmp/long.ini" <<'INI'
[experiment]
name = long
warmup = 0
frames = 20
repeats = 1
[scene]
cubes = 200..400000 *2
[run]
counters =
pin = off
cpu = -1
INI
interrupt_when long i first_point_done
done_points=$(sed -n 's/^points_done = //p' "$d/meta.ini")
rows=$(($(wc -l <"$d/summary.csv") - 1))
[ "$rows" -eq "$done_points" ] && [ "$rows" -ge 1 ] || { echo "FAIL: $rows summary rows, $done_points points done"; exit 1; }
echo "ok: interrupted after $done_points of 12 points, files complete"

# order = rounds, stopped in round 2 or later.
cat >"$tmp/rounds.ini" <<'INI'
[experiment]
name = rounds
warmup = 0
frames = 20
repeats = 50
order = rounds
[scene]
cubes = 200, 400, 800
[run]
counters =
pin = off
cpu = -1
INI
interrupt_when rounds r second_round_started
rows=$(($(wc -l <"$d/summary.csv") - 1))
[ "$rows" -eq 3 ] || { echo "FAIL: rounds: $rows summary rows, expected all 3 points"; exit 1; }
# The repeats column (7th) holds what each point ran: at least 1, fewer than 50 for some.
awk -F, 'NR > 1 && ($7 < 1 || $7 > 50) { bad = 1 } NR > 1 && $7 < 50 { short = 1 } END { exit bad || !short }' \
    "$d/summary.csv" || { echo "FAIL: rounds: repeats column wrong: $(cut -d, -f1-7 "$d/summary.csv")"; exit 1; }
frames=$(($(wc -l <"$d/frames.csv") - 1))
want=$(awk -F, 'NR > 1 { s += $7 * 20 } END { print s }' "$d/summary.csv")
[ "$frames" -eq "$want" ] || { echo "FAIL: rounds: $frames frame rows, summary says $want"; exit 1; }
grep -q 'repeats measured (run stopped)' "$d/meta.ini" || { echo "FAIL: rounds: no warning about short points"; exit 1; }
echo "ok: rounds interrupted, 3 summary rows with the repeats they ran, frames match"
