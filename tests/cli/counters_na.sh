#!/bin/sh
# SPDX-License-Identifier: MIT
# The NA path: events that cannot be counted (here: ones that do not exist, one of them under the
# perf:: prefix of the software events cdlab can open itself) become NA in every row with their
# reason in meta.ini, and the run still succeeds. Runs on every machine.
# usage: counters_na.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^counters = .*/counters = PAPI_TOT_CYC, NOT_A_REAL_EVENT, perf::NOT-A-REAL-EVENT/' "$fix/tiny.ini" >"$tmp/na.ini"
"$cdlab" run --quiet --output "$tmp" --run-id n "$tmp/na.ini" >/dev/null
d="$tmp/tiny/n"
for e in NOT_A_REAL_EVENT perf::NOT-A-REAL-EVENT; do
    grep -q "^$e = NA: unknown event" "$d/meta.ini" || { echo "FAIL: meta.ini lacks the NA reason of $e"; cat "$d/meta.ini"; exit 1; }
    for f in frames.csv summary.csv; do
        awk -F, -v e="$e" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == e) c = i; next }
                 $c != "NA" { bad++ } END { if (!c || bad || NR < 2) exit 1 }' "$d/$f" ||
            { echo "FAIL: $f: $e column missing or not NA"; exit 1; }
    done
done
grep -q '^PAPI_TOT_CYC = ' "$d/meta.ini" || { echo "FAIL: meta.ini lacks PAPI_TOT_CYC status"; exit 1; }
grep -q '^complete = true' "$d/meta.ini" || { echo "FAIL: run not complete"; exit 1; }
echo "ok: NOT_A_REAL_EVENT and perf::NOT-A-REAL-EVENT are NA in frames.csv and summary.csv with their reasons in meta.ini"
