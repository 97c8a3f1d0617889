#!/bin/sh
# SPDX-License-Identifier: MIT
# Print a run's CSV without the columns that vary from run to run (times, memory, counters, and
# for a merged run the shard and host), as meta.ini [columns] lists them: what is left must be
# identical for every run of the same config, on every machine, sharded or not.
# Usage: scripts/deterministic-columns.sh RUN_DIR [frames.csv|summary.csv]   (default summary.csv)
#   diff <(sh scripts/deterministic-columns.sh A) <(sh scripts/deterministic-columns.sh B)
set -eu
dir=${1:?usage: deterministic-columns.sh RUN_DIR [frames.csv|summary.csv]}
file=${2:-summary.csv}
case $file in
frames.csv) key=frames_varying ;;
summary.csv) key=summary_varying ;;
*) echo "deterministic-columns: $file: expected frames.csv or summary.csv" >&2; exit 2 ;;
esac
[ -f "$dir/meta.ini" ] && [ -f "$dir/$file" ] || { echo "deterministic-columns: $dir: no meta.ini or $file" >&2; exit 2; }
# The value of KEY in meta.ini, joining indented continuation lines.
list=$(awk -v key="$key" '
    $1 == key && $2 == "=" { on = 1; sub(/^[^=]*= */, ""); printf "%s", $0; next }
    on && /^[ \t]/ { sub(/^[ \t]+/, " "); printf "%s", $0; next }
    { on = 0 }' "$dir/meta.ini")
[ -n "$list" ] || { echo "deterministic-columns: $dir/meta.ini has no [columns] $key" >&2; exit 2; }
awk -F, -v drop="$list" '
    BEGIN { n = split(drop, d, /, */); for (i = 1; i <= n; i++) skip[d[i]] = 1 }
    NR == 1 { for (i = 1; i <= NF; i++) keep[i] = !($i in skip) }
    { out = ""; for (i = 1; i <= NF; i++) if (keep[i]) out = out (out == "" ? "" : ",") $i; print out }' "$dir/$file"
