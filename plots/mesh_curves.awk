# SPDX-License-Identifier: MIT
# Helper of the mesh figures: from a mesh-kind summary.csv, found by header name, print on one
# line the distinct modes (want=modes) or curve labels (want=labels): hierarchy, with /x<X>y<Y>
# for hybrids, and @d<distance>.
# usage: awk -F, -v want=modes|labels -f plots/mesh_curves.awk summary.csv
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    l = $h["hierarchy"]
    if (l == "hybrid") l = l "/x" $h["hybrid_x"] "y" $h["hybrid_y"]
    l = l "@d" $h["distance"]
    if (!(l in seenl)) { seenl[l] = 1; labels = labels l " " }
    m = $h["mode"]
    if (!(m in seenm)) { seenm[m] = 1; modes = modes m " " }
}
END { print (want == "modes" ? modes : labels) }
