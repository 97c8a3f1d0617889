#!/bin/sh
# SPDX-License-Identifier: MIT
# Same config twice: frames.csv and summary.csv must be identical except in the columns meta.ini
# lists as varying (wall-clock times, memory, hardware counters); meta.ini names the flags the
# build compiled with.
# usage: determinism.sh CDLAB FIXTURE_DIR
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cdlab" run --quiet --output "$tmp" --run-id a "$fix/tiny.ini" >/dev/null
# The second run puts its options after the config (both orders are accepted).
"$cdlab" run "$fix/tiny.ini" --quiet --output "$tmp" --run-id b >/dev/null
# The value of KEY in meta.ini, joining indented continuation lines.
meta_list() {
    awk -v key="$2" '
        $1 == key && $2 == "=" { on = 1; sub(/^[^=]*= */, ""); printf "%s", $0; next }
        on && /^[ \t]/ { sub(/^[ \t]+/, " "); printf "%s", $0; next }
        { on = 0 }' "$1"
}
# Print FILE without the columns named in LIST (comma separated).
strip() {
    awk -F, -v drop="$2" '
        BEGIN { n = split(drop, d, /, */); for (i = 1; i <= n; i++) skip[d[i]] = 1 }
        NR == 1 { for (i = 1; i <= NF; i++) keep[i] = !($i in skip) }
        { out = ""; for (i = 1; i <= NF; i++) if (keep[i]) out = out $i ","; print out }' "$1"
}
status=0
for pair in frames.csv:frames_varying summary.csv:summary_varying; do
    file=${pair%%:*}
    key=${pair#*:}
    list=$(meta_list "$tmp/tiny/a/meta.ini" "$key")
    [ -n "$list" ] || { echo "FAIL: meta.ini has no $key"; exit 1; }
    echo "$file: ignoring varying columns: $list"
    strip "$tmp/tiny/a/$file" "$list" >"$tmp/a.txt"
    strip "$tmp/tiny/b/$file" "$list" >"$tmp/b.txt"
    rows=$(wc -l <"$tmp/a.txt")
    [ "$rows" -gt 1 ] || { echo "FAIL: $file has no rows"; exit 1; }
    if cmp -s "$tmp/a.txt" "$tmp/b.txt"; then
        echo "ok $file: $rows rows identical outside the varying columns"
    else
        echo "FAIL $file differs:"; diff "$tmp/a.txt" "$tmp/b.txt" | head -n 20; status=1
    fi
done
# The deterministic columns really are there (pairs found, tests made), and times really vary
# in the raw files only in the listed columns.
head -n 1 "$tmp/tiny/a/frames.csv" | grep -q "pairs" || { echo "FAIL: no pairs column"; status=1; }
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pairs") c = i; next }
         c && $c > 0 { found = 1 } END { exit !found }' "$tmp/tiny/a/frames.csv" ||
    { echo "FAIL: no frame found a pair (the scene is dense: it should)"; status=1; }
# Provenance: the flags that decide the results are those the build used, module extras included.
flags=$(meta_list "$tmp/tiny/a/meta.ini" c_flags)
extra=$(meta_list "$tmp/tiny/a/meta.ini" c_flags_extra)
for f in -ffp-contract=off -fno-math-errno -std=c17; do
    case " $flags " in *" $f "*) ;; *) echo "FAIL: meta.ini c_flags lacks $f: $flags"; status=1 ;; esac
done
case "$extra" in *"scene: "*-fno-trapping-math*) echo "ok meta.ini records the scene's -fno-trapping-math" ;;
    *) echo "FAIL: meta.ini c_flags_extra lacks the scene's -fno-trapping-math: $extra"; status=1 ;; esac
exit $status
