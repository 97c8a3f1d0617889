#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/config.md is the output of `cdlab run --keys --markdown`: the config reference is generated
# from the key and column tables in the code, and this test fails when the committed page is stale.
# Regenerate with: build/src/cli/cdlab run --keys --markdown > docs/config.md
# usage: docs_config.sh CDLAB DOCS_DIR
set -eu
cdlab=$1
page=$2/config.md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$cdlab" run --keys --markdown >"$tmp"
[ -s "$tmp" ] || { echo "FAIL: cdlab run --keys --markdown printed nothing"; exit 1; }
if cmp -s "$tmp" "$page"; then
    echo "ok $page equals cdlab run --keys --markdown ($(wc -l <"$tmp") lines)"
else
    echo "FAIL: $page differs from cdlab run --keys --markdown (regenerate it):"
    diff "$page" "$tmp" | head -n 40
    exit 1
fi
