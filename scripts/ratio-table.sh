#!/bin/sh
# SPDX-License-Identifier: MIT
# The ratio table of a cubes run (e.g. configs/broad_scaling.ini): for each cube count, cdlab's
# fastest method by median ms per frame, and every peer's median divided by it (how many times
# faster cdlab's best is). Peers are the methods named fcl_*, bullet_*, cgal_* and ode_*. Markdown on stdout.
# usage: sh scripts/ratio-table.sh RUN_DIR
set -eu
if [ $# -ne 1 ] || [ ! -f "$1/summary.csv" ]; then
    echo "usage: sh scripts/ratio-table.sh RUN_DIR   (RUN_DIR/summary.csv from a cubes run)" >&2
    exit 2
fi
awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i
          if (!("method" in h) || !("cubes" in h) || !("frame_ms_median" in h)) {
              print "summary.csv has no method, cubes and frame_ms_median columns" > "/dev/stderr"; exit 2 }
          next }
{
    m = $h["method"]; n = $h["cubes"] + 0; t = $h["frame_ms_median"]
    if (!(n in seen)) { seen[n] = 1; ns[++nn] = n }
    if (t == "NA" || t == "") next
    t += 0
    if (m ~ /^(fcl|bullet|cgal|ode)_/) { if (!(m in isp)) { isp[m] = 1; peers[++np] = m }; peer[m, n] = t }
    else if (!((n) in best) || t < best[n]) { best[n] = t; bestm[n] = m }
}
END {
    for (i = 1; i <= nn; i++) for (j = i + 1; j <= nn; j++) if (ns[j] < ns[i]) { x = ns[i]; ns[i] = ns[j]; ns[j] = x }
    printf "| cubes | cdlab best | ms/frame |"
    for (p = 1; p <= np; p++) printf " %s |", peers[p]
    printf "\n|---|---|---|"
    for (p = 1; p <= np; p++) printf "---|"
    printf "\n"
    for (i = 1; i <= nn; i++) {
        n = ns[i]
        if (!(n in best)) continue
        printf "| %d | %s | %.3f |", n, bestm[n], best[n]
        for (p = 1; p <= np; p++) {
            k = peers[p] SUBSEP n
            if (k in peer) printf " %.3f ms (%.2f×) |", peer[k], peer[k] / best[n]
            else printf " skipped |"
        }
        printf "\n"
    }
}' "$1/summary.csv"
