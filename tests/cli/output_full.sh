#!/bin/sh
# SPDX-License-Identifier: MIT
# A file output that fails part way (a full disk: a small tmpfs) leaves no half-written file. For
# every command that writes a file the user names (query --out, poses, trace export -o, report -o),
# with the target absent and with the target holding "old": exit 1, "PATH: write error: No space
# left on device", the target as it was (absent, or still "old") and nothing else left beside it
# (no temporary file). Needs mount (root); skipped (exit 77) where a tmpfs cannot be mounted.
# usage: output_full.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
mkdir mnt
if ! mount -t tmpfs -o size=64k tmpfs mnt 2>mount.err; then
    echo "skip: cannot mount a 64 KiB tmpfs here: $(head -n 1 mount.err)"
    exit 77
fi
mnt=$tmp/mnt
# 32 KiB taken: every output below (over 64 KiB each) runs out of room part way.
head -c 32768 /dev/zero >"$mnt/filler"
fail=0

# Inputs, outside the mount.
yes 0,0,0,1,2,0,0,1 | head -n 20000 >q.csv
"$cdlab" trace record "$fix/tiny.ini" --point 1 -o t.trace >/dev/null 2>err || { echo "FAIL setup trace: $(cat err)"; exit 1; }
gp=0
if command -v gnuplot >/dev/null 2>&1; then
    "$cdlab" run --quiet --output "$tmp/runs" --run-id a "$fix/tiny.ini" >/dev/null 2>&1 || { echo "FAIL setup run"; exit 1; }
    gp=1
fi

full() {  # full NAME CMD...: the command writes $mnt/a.csv
    name=$1
    shift
    for before in absent old; do
        rm -f "$mnt/a.csv"
        [ "$before" = old ] && echo old >"$mnt/a.csv"
        "$@" >out 2>err
        rc=$?
        left=$(cd "$mnt" && ls -A | grep -v '^filler$' | tr '\n' ' ')
        if [ "$before" = old ]; then
            want="a.csv " state=$(head -c 40 "$mnt/a.csv" 2>/dev/null)
        else
            want="" state=absent
            [ -e "$mnt/a.csv" ] && state="a file of $(wc -c <"$mnt/a.csv") bytes"
        fi
        if [ "$rc" -ne 1 ] || ! grep -qF "$mnt/a.csv: write error: No space left on device" err; then
            echo "FAIL $name, target $before: exit $rc, $(head -c 300 err)"; fail=1
        elif [ "$state" != "$before" ] || [ "$left" != "$want" ]; then
            echo "FAIL $name, target $before: target now $state, files left: $left"; fail=1
        else
            echo "ok $name, target $before: exit 1, target $before, $(cat err)"
        fi
    done
}
full "query --out" "$cdlab" query sphere-sphere q.csv --out "$mnt/a.csv"
full poses "$cdlab" poses --poses 100000 "$mnt/a.csv"
full "trace export" "$cdlab" trace export t.trace -o "$mnt/a.csv"
if [ "$gp" = 1 ]; then
    full "report -o" "$cdlab" report -o "$mnt/a.csv" runs/tiny/a
else
    echo "skip report -o: no gnuplot"
fi

# With room, the same commands write the whole file.
rm -f "$mnt/filler"
head -n 1000 q.csv >q1k.csv
"$cdlab" query sphere-sphere q1k.csv --out "$mnt/a.csv" 2>err && [ "$(wc -l <"$mnt/a.csv")" -eq 1001 ] ||
    { echo "FAIL query --out with room: $(cat err)"; fail=1; }
"$cdlab" poses --poses 10 "$mnt/a.csv" 2>err && [ "$(wc -l <"$mnt/a.csv")" -eq 11 ] ||
    { echo "FAIL poses with room: $(cat err)"; fail=1; }
[ "$(ls -A "$mnt")" = a.csv ] || { echo "FAIL files left with room: $(ls -A "$mnt")"; fail=1; }
exit $fail
