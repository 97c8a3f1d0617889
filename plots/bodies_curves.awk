# SPDX-License-Identifier: MIT
# Helper of the bodies figures, reading a bodies-kind summary.csv by header name.
#   want=modes   the distinct modes, on one line
#   want=labels  the distinct curve labels (hierarchy, with method, density and the count not on
#                the x axis: bodies, or [bodies] faces), on one line
#   want=curve   "x y" lines of the rows with mode m and label l; x is faces per body
#                (x=faces) or bodies (x=bodies), y is column ycol
# usage: awk -F, -v want=modes|labels|curve -v x=faces|bodies [-v m=MODE -v l=LABEL -v ycol=C]
#            -f plots/bodies_curves.awk summary.csv
NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
{
    if ($h["fps_median"] == "NA") next
    lab = $h["hierarchy"] "@" $h["method"] "@d" $h["density"]
    if (x == "faces") lab = lab "@" $h["bodies"] "b"
    else lab = lab "@" ($h["faces"] > 0 ? $h["faces"] "f" : "specs")
    if (want == "curve") {
        if ($h["mode"] == m && lab == l)
            print (x == "faces" ? $h["scene_triangles"] / ($h["bodies"] > 0 ? $h["bodies"] : 1) : $h["bodies"]), $h[ycol]
        next
    }
    if (!(lab in seenl)) { seenl[lab] = 1; labels = labels lab " " }
    md = $h["mode"]
    if (!(md in seenm)) { seenm[md] = 1; modes = modes md " " }
}
END { if (want == "modes") print modes; else if (want == "labels") print labels }
