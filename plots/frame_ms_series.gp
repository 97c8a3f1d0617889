# SPDX-License-Identifier: MIT
# Frame time over the measured frames of repeat 0, one line per point (method and cube count), the
# seed report's first test. Reads RUN_DIR/frames.csv; writes OUTPUT_STEM.png and .pdf.
# usage: gnuplot -c plots/frame_ms_series.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c frame_ms_series.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
dir = ARG1
stem = (ARGC >= 2 && ARG2 ne "") ? ARG2 : dir."/frame_ms_series"
file = dir."/frames.csv"

set datafile separator comma
set datafile columnheaders
# One word per point, in order: the point number, its method and its cube count (by header name).
awk = "awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i;next}!s[$h[\"point\"]]++{printf \"%s \",$h[\"".""
pts = system(awk."point\"]}' '".file."'")
mth = system(awk."method\"]}' '".file."'")
cbs = system(awk."cubes\"]}' '".file."'")

set title "Frame time over frames (repeat 0): motion + broad + narrow"
set xlabel "frame"
set ylabel "frame ms"
set logscale y 10
set grid xtics ytics mytics lc rgb "#dddddd"
set key outside right top
set mytics 10

set terminal pngcairo size 1100,600 font ",11" enhanced
set output stem.".png"
plot for [i=1:words(pts)] file \
        using (column("point") == word(pts, i) + 0 && column("repeat") == 0 ? column("frame") : NaN):"frame_ms" \
        with lines lw 1.5 title sprintf("%s, %s cubes", word(mth, i), word(cbs, i))

set terminal pdfcairo size 9in,5in font ",10" enhanced
set output stem.".pdf"
replot
unset output
