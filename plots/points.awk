# SPDX-License-Identifier: MIT
# Helper of the gnuplot scripts: the points of a cdlab frames.csv or summary.csv, in file order,
# found by header name. Prints one word per point (or per distinct cube count) on one line.
# usage: awk -F, -v want=point|cubes|label|method|cubeset|methodset -f plots/points.awk FILE.csv
#   label = method, or method/d<depth>/k<looseness>/<update> when several points share method
#   and cube count (e.g. a depth sweep).
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    p = $h["point"]
    if (p in seen) next
    seen[p] = 1
    order[++n] = p
    c[p] = $h["cubes"]
    m[p] = $h["method"]
    d[p] = ("depth" in h) ? $h["depth"] : ""
    k[p] = ("looseness" in h) ? $h["looseness"] : ""
    u[p] = ("update" in h) ? $h["update"] : ""
    cnt[m[p] SUBSEP c[p]]++
}
END {
    for (i = 1; i <= n; i++) {
        p = order[i]
        if (want == "point") printf "%s ", p
        else if (want == "cubes") printf "%s ", c[p]
        else if (want == "method") printf "%s ", m[p]
        else if (want == "label") {
            l = m[p]
            if (cnt[m[p] SUBSEP c[p]] > 1) l = l "/d" d[p] "/k" k[p] "/" u[p]
            printf "%s ", l
        } else if (want == "cubeset" && !(c[p] in cs)) { cs[c[p]] = 1; printf "%s ", c[p] }
        else if (want == "methodset" && !(m[p] in ms)) { ms[m[p]] = 1; printf "%s ", m[p] }
    }
}
