#!/bin/sh
# SPDX-License-Identifier: MIT
# A resume keeps a point that progress.part lists as done only when its rows are in the .part
# files as it wrote them: as many frame rows and summary rows as its done line says. The earlier
# attempt stops at its fourth point (a file size limit: EFBIG while writing frames.csv.part, every
# time the same) with points 0-2 done; rows are then cut from the .part files as a machine that
# went down, or an edit, leaves them. The first damaged point and every point done after it run
# again (the rows kept stay in the order they were written), with a warning that names the point
# and the file, and the complete run's frames.csv agrees with its summary.csv: 5, 6 and 7 frame
# rows and one summary row for the small points, 2000 and one for the last, the summary in plan
# order. Undamaged,
# all three are kept; order = rounds and isolate = none count the rows the same.
# usage: resume_rows.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
# meta.ini FILE's lines, a long value's continuation lines joined to it
joined() { awk '/^[ \t]/ { sub(/^[ \t]+/, ""); printf "%s", $0; next } NR > 1 { print "" } { printf "%s", $0 } END { print "" }' "$1"; }

cat >rs.ini <<'INI'
[experiment]
name = rs
warmup = 0
frames = 5, 6, 7, 2000
repeats = 1
[scene]
cubes = 50
[method]
method = naive
[run]
pin = off
cpu = -1
counters =
INI
# order = rounds: points 0-2 (1, 2 and 3 repeats: the points of a list differ) done after round 3,
# point 3 stopped (SIGINT) in its rounds 4-100 (some 30 ms each).
sed -e 's/^frames = .*/frames = 5/' -e 's/^repeats = 1/repeats = 1, 2, 3, 100\norder = rounds/' rs.ini >rounds.ini
sed 's/^counters =/counters =\nisolate = none/' rs.ini >none.ini

# started ID CONFIG: the earlier attempt, stopped by EFBIG in point 3 (frames.csv.part over 40
# blocks: 20 or 40 KiB, by the shell; points 0-2 write some 2 KiB, point 3 some 300 kB).
started() {
    sh -c 'ulimit -f 40; exec "$0" run --quiet --output out --run-id "$1" "$2"' "$cdlab" "$1" "$2" >/dev/null 2>err.txt
    rc=$?
    [ $rc -eq 1 ] || fail "$1: the run under ulimit -f exited $rc, expected 1: $(cat err.txt)"
    [ "$(grep -c '^done ' out/rs/$1/progress.part)" -eq 3 ] || fail "$1: progress.part: $(cat out/rs/$1/progress.part)"
}

# interrupted ID: rounds.ini, interrupted once a frame row of repeat 3 (round 4) is there.
interrupted() {
    "$cdlab" run --quiet --output out --run-id "$1" rounds.ini >/dev/null 2>err.txt &
    pid=$!
    n=0
    until [ -f out/rs/$1/frames.csv.part ] && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "repeat") c = i; next }
            c && $c == 3 { f = 1; exit } END { exit !f }' out/rs/$1/frames.csv.part || [ $n -ge 600 ]; do
        sleep 0.05
        n=$((n + 1))
    done
    kill -INT $pid
    wait $pid
    rc=$?
    [ $rc -eq 130 ] || fail "$1: the interrupted run exited $rc, expected 130: $(cat err.txt)"
    [ "$(grep -c '^done ' out/rs/$1/progress.part)" -eq 3 ] || fail "$1: progress.part: $(cat out/rs/$1/progress.part)"
}

# resumed ID CONFIG KEPT [POINT FILE]: resume; KEPT points kept; a warning naming POINT and FILE
# (none when POINT is not given); the complete run's rows whole, its summary in plan order.
resumed() {
    timeout 60 "$cdlab" run --quiet --resume --output out --run-id "$1" "$2" >/dev/null 2>err.txt ||
        fail "$1: resume: $(cat err.txt)"
    d=out/rs/$1
    grep -q "^points_resumed = $3\$" $d/meta.ini || fail "$1: $(grep '^points_resumed' $d/meta.ini), expected $3"
    if [ $# -ge 4 ]; then
        joined $d/meta.ini | grep -q "^w[0-9]* = --resume: $d: point $4, done by an earlier attempt: $5 holds" ||
            fail "$1: meta.ini [warnings]: $(sed -n '/^\[warnings\]/,/^$/p' $d/meta.ini)"
    else
        ! grep -q -- "--resume:" $d/meta.ini || fail "$1: a warning of an undamaged resume: $(grep -- --resume: $d/meta.ini)"
    fi
    # Each point's frame rows, whole (in rounds, a round's rows of each point in turn: counted, not
    # grouped).
    rows="5 6 7 2000"
    [ "$2" = rounds.ini ] && rows="5 10 15 500"
    counted=$(awk -F, 'NR > 1 { c[$1]++ } END { printf "%d %d %d %d", c[0], c[1], c[2], c[3] }' $d/frames.csv)
    [ "$counted" = "$rows" ] || fail "$1: frames.csv rows per point: $counted, expected $rows"
    [ "$(cut -d, -f1 $d/summary.csv | tr '\n' ' ')" = "point 0 1 2 3 " ] ||
        fail "$1: summary.csv points: $(cut -d, -f1 $d/summary.csv | tr '\n' ' ')"
    echo "ok: $1: $3 points kept"
}

# A finished point's frame rows gone: points 1-3 run again.
started gone rs.ini
awk -F, '$1 != 1' out/rs/gone/frames.csv.part >t && mv t out/rs/gone/frames.csv.part
resumed gone rs.ini 1 1 frames.csv.part
joined out/rs/gone/meta.ini |
    grep -q "frames.csv.part holds 0 rows of it, progress.part says it wrote 6; it and the 1 point done after it run again" ||
    fail "gone: the warning: $(grep -- --resume: out/rs/gone/meta.ini)"

# A file cut in a row of point 2 (the failed point's rows gone first): half a row is no row.
started cut rs.ini
awk -F, '$1 != 3' out/rs/cut/frames.csv.part >t && head -c -30 t >out/rs/cut/frames.csv.part
resumed cut rs.ini 2 2 frames.csv.part

# A summary row gone: nothing is kept.
started summary rs.ini
awk -F, '$1 != 0' out/rs/summary/summary.csv.part >t && mv t out/rs/summary/summary.csv.part
resumed summary rs.ini 0 0 summary.csv.part

# A row of point 1 repeated: more rows than it wrote.
started twice rs.ini
awk -F, '{ print } $1 == 1 && !seen++ { print }' out/rs/twice/frames.csv.part >t && mv t out/rs/twice/frames.csv.part
resumed twice rs.ini 1 1 frames.csv.part

# Undamaged: all three kept, in each order and isolation.
started whole rs.ini
resumed whole rs.ini 3
interrupted rounds
resumed rounds rounds.ini 3
started none none.ini
resumed none none.ini 3
interrupted rounds_gone
awk -F, '$1 != 2' out/rs/rounds_gone/frames.csv.part >t && mv t out/rs/rounds_gone/frames.csv.part
resumed rounds_gone rounds.ini 2 2 frames.csv.part
exit 0
