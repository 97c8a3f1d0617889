# SPDX-License-Identifier: MIT
# Helper of the octree figures, over a cdlab CSV whose columns are found by header name.
#   awk -F, -v cols=method,cubes -f plots/octree_groups.awk FILE.csv
#       the distinct values of those columns joined by "/" (e.g. "loose_octree/20000"), in file
#       order, on one line;
#   awk -F, -v cols=method,cubes -v key=loose_octree/20000 -v x=depth -v y=fps_median -f ... FILE.csv
#       the rows of that group as "x y" lines, sorted by x (gnuplot draws one line per group).
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; n = split(cols, c, ","); ny = split(y, ys, ","); next }
{
    k = ""
    for (j = 1; j <= n; j++) k = k (j > 1 ? "/" : "") $h[c[j]]
    if (key == "") { if (!(k in seen)) { seen[k] = 1; printf "%s ", k }; next }
    if (k != key) next
    line = $h[x]
    for (j = 1; j <= ny; j++) line = line " " $h[ys[j]]
    rows[++m] = line
    xs[m] = $h[x] + 0
}
END {
    if (key == "") { print ""; exit }
    for (i = 2; i <= m; i++)  # insertion sort by x: a few dozen rows
        for (j = i; j > 1 && xs[j - 1] > xs[j]; j--) {
            t = xs[j]; xs[j] = xs[j - 1]; xs[j - 1] = t
            t = rows[j]; rows[j] = rows[j - 1]; rows[j - 1] = t
        }
    for (i = 1; i <= m; i++) print rows[i]
}
