# SPDX-License-Identifier: MIT
# Helper of the figures, over a cdlab CSV whose columns are found by header name.
#   awk -F, -v cols=method,cubes -f plots/octree_groups.awk FILE.csv
#       the distinct values of those columns joined by "/" (e.g. "loose_octree/20000"), in file
#       order, on one line;
#   awk -F, -v cols=method,cubes -v key=loose_octree/20000 -v x=depth -v y=fps_median -f ... FILE.csv
#       the rows of that group as "x y" lines, sorted by x (gnuplot draws one line per group).
# A column of cols that the file lacks is left out (a parameter no listed method declares). With
# -v varying=1 only the columns of cols whose value differs between rows make the groups (cols:
# the run's key columns, from meta.ini), so two points that differ in any key never share a line.
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; n0 = split(cols, c0, ","); ny = split(y, ys, ","); next }
{ row[++nr] = $0 }
function group(line,    f, k, j) {
    split(line, f, FS)
    k = ""
    for (j = 1; j <= n; j++) k = k (j > 1 ? "/" : "") f[h[c[j]]]
    return n ? k : "all"
}
END {
    n = 0
    for (j = 1; j <= n0; j++) {
        if (!(c0[j] in h)) continue
        if (varying) {
            differs = 0
            for (i = 2; i <= nr && !differs; i++) {
                split(row[1], a, FS); split(row[i], b, FS)
                differs = a[h[c0[j]]] != b[h[c0[j]]]
            }
            if (!differs) continue
        }
        c[++n] = c0[j]
    }
    if (key == "") {
        for (i = 1; i <= nr; i++) { k = group(row[i]); if (!(k in seen)) { seen[k] = 1; printf "%s ", k } }
        print ""
        exit
    }
    m = 0
    for (i = 1; i <= nr; i++) {
        if (group(row[i]) != key) continue
        split(row[i], f, FS)
        line = f[h[x]]
        for (j = 1; j <= ny; j++) line = line " " f[h[ys[j]]]
        rows[++m] = line
        xs[m] = f[h[x]] + 0
    }
    for (i = 2; i <= m; i++)  # insertion sort by x: a few dozen rows
        for (j = i; j > 1 && xs[j - 1] > xs[j]; j--) {
            t = xs[j]; xs[j] = xs[j - 1]; xs[j - 1] = t
            t = rows[j]; rows[j] = rows[j - 1]; rows[j - 1] = t
        }
    for (i = 1; i <= m; i++) print rows[i]
}
