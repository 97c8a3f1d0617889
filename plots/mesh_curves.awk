# SPDX-License-Identifier: MIT
# Helper of the mesh figures: from a mesh-kind summary.csv, found by header name, print on one
# line the distinct modes (want=modes) or curve labels (want=labels). Labels, by `by`:
#   distance (default): hierarchy[/x<X>y<Y> for hybrids]@d<distance>
#   faces:              hierarchy[/x<X>y<Y>]@<faces_a>f
#   layers:             y<hybrid_y>@d<distance>
# The gnuplot scripts build the same strings per row to pick the rows of each curve.
# usage: awk -F, -v want=modes|labels [-v by=distance|faces|layers] -f plots/mesh_curves.awk summary.csv
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    v = $h["hierarchy"]
    if (v == "hybrid") v = v "/x" $h["hybrid_x"] "y" $h["hybrid_y"]
    if (by == "faces") l = v "@" $h["faces_a"] "f"
    else if (by == "layers") l = "y" $h["hybrid_y"] "@d" $h["distance"]
    else l = v "@d" $h["distance"]
    if (!(l in seenl)) { seenl[l] = 1; labels = labels l " " }
    m = $h["mode"]
    if (!(m in seenm)) { seenm[m] = 1; modes = modes m " " }
}
END { print (want == "modes" ? modes : labels) }
