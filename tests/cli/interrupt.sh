#!/bin/sh
# SPDX-License-Identifier: MIT
# Ctrl-C (SIGINT) stops after the current point: exit 130, the finished points are in complete
# files (no .part left), and meta.ini says the run is incomplete.
# usage: interrupt.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
"$cdlab" run --quiet --output "$tmp" --run-id i "$tmp/long.ini" >/dev/null 2>&1 &
pid=$!
# Wait until the first point has landed in summary.csv.part, then interrupt.
n=0
while [ "$n" -lt 600 ]; do
    if [ -f "$tmp/long/i/summary.csv.part" ] && [ "$(wc -l <"$tmp/long/i/summary.csv.part")" -ge 2 ]; then break; fi
    sleep 0.1
    n=$((n + 1))
done
kill -INT "$pid"
wait "$pid"
rc=$?
d="$tmp/long/i"
[ "$rc" -eq 130 ] || { echo "FAIL: exit $rc, expected 130"; exit 1; }
[ -z "$(ls "$d" | grep '\.part$')" ] || { echo "FAIL: .part files left: $(ls "$d")"; exit 1; }
grep -q '^complete = false' "$d/meta.ini" || { echo "FAIL: meta.ini does not say incomplete"; exit 1; }
grep -q '^status = interrupted' "$d/meta.ini" || { echo "FAIL: status not interrupted"; exit 1; }
done_points=$(sed -n 's/^points_done = //p' "$d/meta.ini")
rows=$(($(wc -l <"$d/summary.csv") - 1))
[ "$rows" -eq "$done_points" ] && [ "$rows" -ge 1 ] || { echo "FAIL: $rows summary rows, $done_points points done"; exit 1; }
echo "ok: interrupted after $done_points of 12 points, files complete"
