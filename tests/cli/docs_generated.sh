#!/bin/sh
# SPDX-License-Identifier: MIT
# A generated page of the docs equals what generates it: docs/config.md is the output of
# `cdlab run --keys --markdown` (the key and column tables in the code), docs/results.md that of
# scripts/results.sh (the runs committed under bench/results/). Fails when the committed page is
# stale or was edited by hand, and says how to regenerate it.
# usage: docs_generated.sh PAGE COMMAND [ARG...]
set -eu
page=$1
shift
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$@" >"$tmp"
[ -s "$tmp" ] || { echo "FAIL: $* printed nothing"; exit 1; }
if cmp -s "$tmp" "$page"; then
    echo "ok $page equals the output of $* ($(wc -l <"$tmp") lines)"
else
    echo "FAIL: $page differs from the output of $*; regenerate it: $* > $page"
    diff "$page" "$tmp" | head -n 40
    exit 1
fi
