# SPDX-License-Identifier: MIT
# The paper's table from a mesh-kind summary.csv: for every (mode, faces, distance) the median
# query µs of each hierarchy, and the speed ratio of each hybrid to the obb (RAPID) tree
# (ratio > 1: hybrid faster), with the Nv and Np terms behind it. Markdown on stdout.
# usage: awk -F, -f plots/mesh_ratio.awk RUN_DIR/summary.csv
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    k = $h["mode"] SUBSEP $h["faces_a"] SUBSEP $h["distance"]
    if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
    v = $h["hierarchy"]
    if (v == "hybrid") v = v "/x" $h["hybrid_x"] "y" $h["hybrid_y"]
    if (!(v in seenv)) { seenv[v] = 1; vars[++nv] = v }
    us[k, v] = $h["query_us_median"]; bv[k, v] = $h["bv_tests_mean"]; tri[k, v] = $h["tri_tests_mean"]
    cv[k, v] = $h["cv_ns"]; cp[k, v] = $h["cp_ns"]; bms[k, v] = $h["build_ms"]
}
END {
    printf "| mode | faces | d | variant | build ms | query µs | Nv | Np | Cv ns | Cp ns | obb µs / variant µs |\n"
    printf "|---|---|---|---|---|---|---|---|---|---|---|\n"
    for (i = 1; i <= nk; i++) {
        split(keys[i], p, SUBSEP)
        for (j = 1; j <= nv; j++) {
            v = vars[j]
            if (!((keys[i], v) in us)) continue
            o = (keys[i], "obb") in us ? us[keys[i], "obb"] : ""
            ratio = (o != "" && us[keys[i], v] > 0) ? sprintf("%.2f", o / us[keys[i], v]) : "NA"
            printf "| %s | %s | %s | %s | %.1f | %.1f | %.0f | %.0f | %.1f | %.1f | %s |\n", p[1], p[2], p[3], v,
                   bms[keys[i], v], us[keys[i], v], bv[keys[i], v], tri[keys[i], v], cv[keys[i], v], cp[keys[i], v], ratio
        }
    }
}
