#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's main job: install what is missing, configure and build `build` (the cdlab binary
# only, so the job stays short), run every config of a suite and render each run's figures.
# Usage: scripts/reproduce.sh [SUITE]     (default experiments/default.suite)
# Output: results/<experiment>/<run-id>/{frames.csv,summary.csv,meta.ini,config.ini,*.png,*.pdf},
# then results/report.html: every run of the suite on one self-contained page (cdlab report).
set -eu
cd "$(dirname "$0")/.."
suite=${1:-experiments/default.suite}
[ -f "$suite" ] || { echo "reproduce: $suite: no such suite" >&2; exit 2; }
sh scripts/install-deps.sh
builddir=build
if [ ! -f "$builddir/build.ninja" ]; then
    meson setup "$builddir"
fi
meson compile -C "$builddir" src/cli/cdlab:executable
cdlab="$builddir/src/cli/cdlab"
start=$(date +%s)
runs=""
# Check every config before running any, so a typo in the last one does not waste the first.
configs=$(grep -v '^[[:space:]]*#' "$suite" | grep -v '^[[:space:]]*$')
# shellcheck disable=SC2086
"$cdlab" run --dry-run $configs >/dev/null
for cfg in $configs; do
    echo "reproduce: running $cfg" >&2
    out=$("$cdlab" run "$cfg")   # set -e stops here when the run fails or is interrupted
    dir=$(printf '%s\n' "$out" | tail -n 1)
    "$cdlab" plot "$dir" >/dev/null
    runs="$runs $dir"
done
echo "reproduce: done in $(( $(date +%s) - start )) s; results and figures in:"
for d in $runs; do
    echo "  $d"
    ls "$d"/*.png "$d"/*.pdf | sed 's/^/    /'
done
# shellcheck disable=SC2086
report=$("$cdlab" report -o results/report.html $runs)
echo "reproduce: the report of the suite: $report"
