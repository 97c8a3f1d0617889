#!/bin/sh
# SPDX-License-Identifier: MIT
# The live counter path: when this machine can count PAPI_TOT_CYC, every measured frame must carry
# a positive cycle count. Exit 77 (skip) when no counter is readable (e.g. a VM without a PMU).
# usage: counters.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
if ! "$cdlab" info | grep -q '^PAPI_TOT_CYC = ok'; then
    echo "skip: PAPI_TOT_CYC is not readable here:"
    "$cdlab" info | grep '^PAPI_TOT_CYC\|^status' || true
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cdlab" run --quiet --output "$tmp" --run-id c "$fix/tiny.ini" >/dev/null
grep -q '^PAPI_TOT_CYC = ok' "$tmp/tiny/c/meta.ini" || { echo "FAIL: meta.ini does not report PAPI_TOT_CYC ok"; exit 1; }
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "PAPI_TOT_CYC") c = i; next }
         !($c > 0) { bad++ } END { if (!c || bad) { print "FAIL: " bad " rows without cycles"; exit 1 } }' \
    "$tmp/tiny/c/frames.csv"
echo "ok: every frame has a positive PAPI_TOT_CYC"
