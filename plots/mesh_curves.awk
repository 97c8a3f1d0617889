# SPDX-License-Identifier: MIT
# Helper of the mesh figures, reading a mesh-kind summary.csv by header name.
#   want=modes   the distinct modes, on one line
#   want=labels  the distinct curve labels, on one line; by `by`:
#                  distance (default): hierarchy[/x<X>y<Y> for hybrids]@d<distance>
#                  faces:              hierarchy[/x<X>y<Y>]@<faces_a>f
#                  layers:             y<hybrid_y>@d<distance>
#   want=curve   "x y" lines of the rows with mode m and label l (columns xcol, ycol); the plan
#                interleaves the rows of different curves, so the scripts sort these by x.
# usage: awk -F, -v want=modes|labels|curve [-v by=...] [-v m=MODE -v l=LABEL -v xcol=C -v ycol=C]
#            -f plots/mesh_curves.awk summary.csv
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    v = $h["hierarchy"]
    if (v == "hybrid") v = v "/x" $h["hybrid_x"] "y" $h["hybrid_y"]
    if (by == "faces") lab = v "@" $h["faces_a"] "f"
    else if (by == "layers") lab = "y" $h["hybrid_y"] "@d" $h["distance"]
    else lab = v "@d" $h["distance"]
    if (want == "curve") {
        if ($h["mode"] == m && lab == l) print $h[xcol], $h[ycol]
        next
    }
    if (!(lab in seenl)) { seenl[lab] = 1; labels = labels lab " " }
    md = $h["mode"]
    if (!(md in seenm)) { seenm[md] = 1; modes = modes md " " }
}
END { if (want == "modes") print modes; else if (want == "labels") print labels }
