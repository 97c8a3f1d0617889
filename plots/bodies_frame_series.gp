# SPDX-License-Identifier: MIT
# Body scenes: frame time over the measured frames of repeat 0 (the paper's time-series figure),
# one line per point (hierarchy, mode, broad phase, bodies), log y.
# Reads RUN_DIR/frames.csv and summary.csv; writes OUTPUT_STEM.png (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/bodies_frame_series.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c bodies_frame_series.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/bodies_frame_series"
frames = dir."/frames.csv"
summary = dir."/summary.csv"
head = "NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } "
pts = run("awk -F, '".head."{ printf \"%s \", $h[\"point\"] }' ".sh(summary))
labs = run("awk -F, '".head."{ printf \"%s/%s@%s@%sb \", $h[\"hierarchy\"], $h[\"mode\"], $h[\"method\"], $h[\"bodies\"] }' ".sh(summary))
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(pts) == 0) { print "bodies_frame_series.gp: no points in ".summary; exit status 1 }

load here."/palette.gp"  # distinct colours for every series
set datafile separator whitespace
set logscale y 10
set grid xtics ytics mytics lc rgb "#dddddd"
set key outside right top
set xlabel "frame"
set ylabel "frame ms (motion + broad + narrow)"

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1300,560 font ",10" noenhanced }
    else { set terminal pdfcairo size 10in,4.4in font ",9" noenhanced }
    set output stem.".".t
    set title "Moving mesh bodies: frame time over frames (repeat 0)"
    plot for [i=1:words(pts)] sprintf("< awk -F, -v p=%s '%s $h[\"point\"] == p && $h[\"repeat\"] == 0 { print $h[\"frame\"], $h[\"frame_ms\"] }' %s", sh(word(pts, i)), head, sh(frames)) \
            using 1:2 with lines lw 1.5 title word(labs, i)
    unset output
}
