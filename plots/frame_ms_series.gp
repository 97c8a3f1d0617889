# SPDX-License-Identifier: MIT
# Frame time over the measured frames of repeat 0 (the seed report's first test): one panel per cube
# count (at most 6, evenly chosen), one line per point in it (per method, or per method variant).
# Reads RUN_DIR/frames.csv; writes OUTPUT_STEM.png (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/frame_ms_series.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c frame_ms_series.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/frame_ms_series"
file = dir."/frames.csv"
points(what) = run("awk -F, -v want=".what." -f ".sh(here."/points.awk")." ".sh(file))
pts = points("point")
cbs = points("cubes")
lab = points("label")
cset = points("cubeset")
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(pts) == 0) { print "frame_ms_series.gp: no points in ".file; exit status 1 }
nc = words(cset)
panels = nc > 6 ? 6 : nc
cols = panels <= 1 ? 1 : (panels <= 4 ? 2 : 3)
rows = (panels + cols - 1) / cols

load here."/palette.gp"  # distinct colours for every series
set datafile separator comma
set datafile columnheaders
set logscale y 10
set grid xtics ytics mytics lc rgb "#dddddd"
set key top right opaque box
set xlabel "frame"
set ylabel "frame ms"

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size (cols > 1 ? 1400 : 1000),(rows * 420 + 60) font ",10" noenhanced }
    else { set terminal pdfcairo size (cols > 1 ? 11 : 8)in,(rows * 3.4 + 0.5)in font ",9" noenhanced }
    set output stem.".".t
    set multiplot layout rows, cols title "Frame time over frames (repeat 0): motion + broad + narrow"
    do for [j=1:panels] {
        idx = nc <= 6 ? j : 1 + int((j - 1) * (nc - 1) / (panels - 1))
        cval = word(cset, idx) + 0
        pp = ""
        ll = ""
        do for [i=1:words(pts)] {
            if (word(cbs, i) + 0 == cval) { pp = pp.word(pts, i)." "; ll = ll.word(lab, i)." " }
        }
        set title sprintf("%d cubes", cval)
        plot for [q=1:words(pp)] file \
                using (column("point") == word(pp, q) + 0 && column("repeat") == 0 ? column("frame") : NaN):"frame_ms" \
                with lines lw 1.5 title word(ll, q)
    }
    unset multiplot
    unset output
}
