# SPDX-License-Identifier: MIT
# The range of hybrid's median FPS over obb's, over the points of summary.csv in mode m that match
# on faces, density, bodies and broad phase: "lo-hi", or "n/a" when no point has both. For the
# paper's comparison beside the figure (bodies_fps.gp).
# usage: awk -F, -v m=MODE -f bodies_ratio.awk summary.csv
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
$h["mode"] == m {
    k = $h["method"] "/" $h["faces"] "/" $h["density"] "/" $h["bodies"]
    if ($h["hierarchy"] == "hybrid") hy[k] = $h["fps_median"]
    if ($h["hierarchy"] == "obb") ob[k] = $h["fps_median"]
}
END {
    lo = 1e300; hi = 0
    for (k in hy) if ((k in ob) && ob[k] > 0) { r = hy[k] / ob[k]; if (r < lo) lo = r; if (r > hi) hi = r }
    if (hi > 0) printf "%.2f-%.2f", lo, hi; else printf "n/a"
}
