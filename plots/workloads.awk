# SPDX-License-Identifier: MIT
# Helper of plots/frame_ms_by_workload.gp: the points of a cubes summary.csv as tab-separated
# "workload number, workload, method, median, p5, p95" lines (NA times left out), where a workload
# is a point's scene: the scene columns that differ from the standard scene (layout, size_dist,
# moving, sleep), the thread count when above 1, and the cube count; numbered in order of
# appearance from 0. With want=methodset, the methods' names on one line instead.
# usage: awk -F, [-v want=methodset] -f plots/workloads.awk RUN_DIR/summary.csv
function col(name) { return (name in h) ? $h[name] : "" }
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    l = (col("layout") == "" ? "uniform" : col("layout"))
    if (col("size_dist") != "" && col("size_dist") != "uniform") l = l "," col("size_dist") "1-" col("size_ratio") + 0
    if (col("moving") != "" && col("moving") + 0 < 1) l = l ",moving" col("moving") + 0
    if (col("sleep") != "" && col("sleep") + 0 > 0) l = l ",sleep" col("sleep") + 0
    if (col("threads") != "" && col("threads") != "NA" && col("threads") + 0 > 1) l = l "," col("threads") "threads"
    l = l " " col("cubes")
    if (!(l in num)) num[l] = n++
    m = $h["method"]
    if (want == "methodset") { if (!(m in ms)) { ms[m] = 1; printf "%s ", m }; next }
    t = $h["frame_ms_median"]
    if (t == "NA" || t == "") next
    printf "%d\t%s\t%s\t%s\t%s\t%s\n", num[l], l, m, t, $h["frame_ms_p05"], $h["frame_ms_p95"]
}
