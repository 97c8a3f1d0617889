#!/bin/sh
# SPDX-License-Identifier: MIT
# The NA path: an event that cannot be counted (here: one that does not exist) becomes NA in every
# row with its reason in meta.ini, and the run still succeeds. Runs on every machine.
# usage: counters_na.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^counters = .*/counters = PAPI_TOT_CYC, NOT_A_REAL_EVENT/' "$fix/tiny.ini" >"$tmp/na.ini"
"$cdlab" run --quiet --output "$tmp" --run-id n "$tmp/na.ini" >/dev/null
d="$tmp/tiny/n"
grep -q '^NOT_A_REAL_EVENT = NA: unknown event' "$d/meta.ini" || { echo "FAIL: meta.ini lacks the NA reason"; cat "$d/meta.ini"; exit 1; }
grep -q '^PAPI_TOT_CYC = ' "$d/meta.ini" || { echo "FAIL: meta.ini lacks PAPI_TOT_CYC status"; exit 1; }
grep -q '^complete = true' "$d/meta.ini" || { echo "FAIL: run not complete"; exit 1; }
for f in frames.csv summary.csv; do
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "NOT_A_REAL_EVENT") c = i; next }
             $c != "NA" { bad++ } END { if (!c || bad || NR < 2) exit 1 }' "$d/$f" ||
        { echo "FAIL: $f: NOT_A_REAL_EVENT column missing or not NA"; exit 1; }
done
echo "ok: NOT_A_REAL_EVENT is NA in frames.csv and summary.csv with its reason in meta.ini"
