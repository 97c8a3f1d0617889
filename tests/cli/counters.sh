#!/bin/sh
# SPDX-License-Identifier: MIT
# The live counter path, on every Linux machine rather than only where a PMU is exposed:
#  1. where PAPI_TOT_CYC can be read, every measured frame of tiny.ini carries a positive count;
#  2. counters.ini reads Linux's software events (perf::TASK-CLOCK, perf::PAGE-FAULTS,
#     perf::CONTEXT-SWITCHES) — through PAPI, or through perf_event_open where PAPI cannot — and
#     meta.ini reports each ok, every frame has integer counts, the task clock is positive and
#     agrees with the frame's own CPU time (frame_ms on [measure] clock = cpu), grows with the work
#     (800 cubes against 400), and summary.csv holds the per-point means of frames.csv;
#  3. a preset that is NA here next to perf::TASK-CLOCK: NA in every row beside a live column.
# Exit 77 (skip) only when the kernel refuses perf_event_open itself (its errno is printed).
# usage: counters.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. Hardware cycles, where PAPI can read them.
if "$cdlab" info | grep -q '^PAPI_TOT_CYC = ok'; then
    "$cdlab" run --quiet --output "$tmp" --run-id c "$fix/tiny.ini" >/dev/null
    grep -q '^PAPI_TOT_CYC = ok' "$tmp/tiny/c/meta.ini" || fail "meta.ini does not report PAPI_TOT_CYC ok"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "PAPI_TOT_CYC") c = i; next }
             !($c > 0) { bad++ } END { if (!c || bad) { print "FAIL: " bad " rows without cycles"; exit 1 } }' \
        "$tmp/tiny/c/frames.csv"
    echo "ok: every frame has a positive PAPI_TOT_CYC"
else
    echo "note: PAPI_TOT_CYC is not readable here, so only the software events are checked:"
    "$cdlab" info | grep '^PAPI_TOT_CYC\|^status' || true
fi

# 2. Software events.
"$cdlab" run --quiet --output "$tmp" --run-id s "$fix/counters.ini" >/dev/null
d="$tmp/counters/s"
for e in perf::TASK-CLOCK perf::PAGE-FAULTS perf::CONTEXT-SWITCHES; do
    line=$(grep "^$e = " "$d/meta.ini") || fail "meta.ini has no line for $e"
    case $line in
        "$e = ok"*) echo "$line" ;;
        "$e = NA: perf_event_open: opened but"*) fail "meta.ini: $line" ;;
        "$e = NA: perf_event_open: "*"(errno "*)
            echo "skip: PAPI cannot read $e here and the kernel refuses perf_event_open:"
            echo "$line"
            exit 77 ;;
        *) fail "meta.ini: $line" ;;
    esac
done
grep -q '^complete = true' "$d/meta.ini" || fail "run not complete"
head -n 3 "$d/frames.csv" | cut -d, -f1-3,5,8,23-
# Per frame: integer counts, task clock > 0 and at least half the frame's CPU time (the counters
# enclose the timed frame); over the run: at most twice the CPU time plus 100 µs a frame; per
# point: the task clock of 800 cubes (4x the pair tests of 400) exceeds 1.5x that of 400.
awk -F, '
    NR == 1 {
        for (i = 1; i <= NF; i++) col[$i] = i
        if (!col["point"] || !col["frame_ms"] || !col["perf::TASK-CLOCK"] || !col["perf::PAGE-FAULTS"] ||
            !col["perf::CONTEXT-SWITCHES"]) { print "FAIL: frames.csv lacks a column: " $0; bad = 1; exit 1 }
        next
    }
    {
        p = $col["point"]; tc = $col["perf::TASK-CLOCK"]; pf = $col["perf::PAGE-FAULTS"]
        cs = $col["perf::CONTEXT-SWITCHES"]; ns = $col["frame_ms"] * 1e6
        if (tc !~ /^[0-9]+$/ || pf !~ /^[0-9]+$/ || cs !~ /^[0-9]+$/) { print "FAIL: row " NR ": counts " tc ", " pf ", " cs; bad = 1; exit 1 }
        if (!(tc > 0) || tc < 0.5 * ns) { print "FAIL: row " NR ": task clock " tc " ns against a frame of " ns " ns of CPU"; bad = 1; exit 1 }
        sum_tc += tc; sum_ns += ns; frames++; tcp[p] += tc
    }
    END {
        if (bad) exit 1
        if (frames != 40) { print "FAIL: " frames " frames, expected 40"; exit 1 }
        if (sum_tc < 0.5 * sum_ns || sum_tc > 2 * sum_ns + frames * 1e5) {
            print "FAIL: task clock " sum_tc " ns over the run against " sum_ns " ns of frame CPU time"; exit 1
        }
        if (!(tcp[1] > 1.5 * tcp[0])) { print "FAIL: task clock " tcp[1] " ns at 800 cubes, " tcp[0] " ns at 400"; exit 1 }
        printf "ok: %d frames: task clock %.0f ns against %.0f ns of frame CPU time (%.3f); 400 cubes %.0f ns, 800 cubes %.0f ns\n",
            frames, sum_tc, sum_ns, sum_tc / sum_ns, tcp[0], tcp[1]
    }' "$d/frames.csv"
# summary.csv: one mean per counter and point, equal to the mean of the point's frames.
awk -F, '
    BEGIN { name[1] = "perf::TASK-CLOCK"; name[2] = "perf::PAGE-FAULTS"; name[3] = "perf::CONTEXT-SWITCHES" }
    FNR == 1 { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i; next }
    FILENAME == ARGV[1] {
        for (e = 1; e <= 3; e++) { s[$col[FILENAME, "point"], e] += $col[FILENAME, name[e]] }
        n[$col[FILENAME, "point"]]++
        next
    }
    {
        p = $col[FILENAME, "point"]
        for (e = 1; e <= 3; e++) {
            c = col[FILENAME, name[e]]
            if (!c) { print "FAIL: summary.csv lacks " name[e]; exit 1 }
            m = s[p, e] / n[p]
            if ($c == "NA" || $c < 0 || (m - $c > 1e-6 * m + 1e-6) || ($c - m > 1e-6 * m + 1e-6)) {
                print "FAIL: summary.csv point " p ": " name[e] " mean " $c ", frames give " m; exit 1
            }
            if (e == 1 && !($c > 0)) { print "FAIL: summary.csv point " p ": task clock mean " $c; exit 1 }
        }
        rows++
    }
    END { if (rows != 2) { print "FAIL: " rows " summary rows, expected 2"; exit 1 } }
' "$d/frames.csv" "$d/summary.csv"
echo "ok: summary.csv holds the per-point means of the three software events"

# 3. A preset that is NA here (one of `cdlab info`'s, else of --all's; an unknown name on a machine
#    that reads every preset) beside perf::TASK-CLOCK.
na=$("$cdlab" info | sed -n 's/^\(PAPI_[A-Z0-9_]*\) = NA: .*/\1/p' | head -n 1)
[ -n "$na" ] || na=$("$cdlab" info --all | awk '$1 ~ /^PAPI_/ && $2 == "NA" { print $1; exit }')
[ -n "$na" ] || na=NOT_A_REAL_EVENT
sed "s/^counters = .*/counters = $na, perf::TASK-CLOCK/" "$fix/counters.ini" >"$tmp/mixed.ini"
"$cdlab" run --quiet --output "$tmp" --run-id m "$tmp/mixed.ini" >/dev/null
d="$tmp/counters/m"
grep "^$na = NA: " "$d/meta.ini" || fail "meta.ini does not report $na NA"
grep "^perf::TASK-CLOCK = ok" "$d/meta.ini" || fail "meta.ini does not report perf::TASK-CLOCK ok"
for f in frames.csv summary.csv; do
    awk -F, -v na="$na" '
        NR == 1 { for (i = 1; i <= NF; i++) { if ($i == na) a = i; if ($i == "perf::TASK-CLOCK") t = i }; next }
        $a != "NA" || !($t > 0) { bad++ }
        END { if (!a || !t || bad || NR < 3) exit 1 }' "$d/$f" ||
        fail "$f: $na is not NA in every row, or perf::TASK-CLOCK is not positive in every row"
done
echo "ok: $na is NA in every row of frames.csv and summary.csv, perf::TASK-CLOCK live beside it"
