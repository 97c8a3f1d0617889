#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/results.md is generated from the committed runs under bench/results/ by scripts/results.sh;
# this test fails when the page is stale or was edited by hand.
# Regenerate with: sh scripts/results.sh > docs/results.md
# usage: docs_results.sh SOURCE_ROOT
set -eu
root=$1
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
sh "$root/scripts/results.sh" "$root/bench/results" >"$tmp"
grep -q '^## ' "$tmp" || { echo "FAIL: scripts/results.sh found no committed run under bench/results"; exit 1; }
if cmp -s "$tmp" "$root/docs/results.md"; then
    echo "ok docs/results.md equals scripts/results.sh's output ($(grep -c '^## ' "$tmp") runs)"
else
    echo "FAIL: docs/results.md differs from scripts/results.sh's output (regenerate it):"
    diff "$root/docs/results.md" "$tmp" | head -n 40
    exit 1
fi
