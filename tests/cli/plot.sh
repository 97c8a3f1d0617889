#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab plot` renders the figures meta.ini lists as non-empty PNG and PDF files.
# Skips (77) when gnuplot is not installed.
# usage: plot.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
command -v gnuplot >/dev/null 2>&1 || { echo "skip: no gnuplot"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cdlab" run --quiet --output "$tmp" --run-id p "$fix/tiny.ini" >/dev/null
"$cdlab" plot "$tmp/tiny/latest"
for fig in fps_vs_cubes frame_ms_series; do
    for ext in png pdf; do
        [ -s "$tmp/tiny/p/$fig.$ext" ] || { echo "FAIL: $fig.$ext missing"; exit 1; }
    done
done
head -c 4 "$tmp/tiny/p/fps_vs_cubes.pdf" | grep -q '%PDF' || { echo "FAIL: not a PDF"; exit 1; }
# A directory that is not a run is a usage error.
if "$cdlab" plot "$tmp" 2>/dev/null; then echo "FAIL: plot of a non-run directory succeeded"; exit 1; fi
echo "ok: both figures as PNG and PDF"
