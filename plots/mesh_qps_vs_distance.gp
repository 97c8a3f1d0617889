# SPDX-License-Identifier: MIT
# Mesh pairs from deep overlap to near miss: median query µs vs centre distance, one panel per
# query mode, one line per hierarchy and face count. Reads RUN_DIR/summary.csv; writes
# OUTPUT_STEM.png (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/mesh_qps_vs_distance.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c mesh_qps_vs_distance.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
dir = ARG1
stem = (ARGC >= 2 && ARG2 ne "") ? ARG2 : dir."/mesh_qps_vs_distance"
file = dir."/summary.csv"
here = system("dirname '".ARG0."'")
curves(what) = system("awk -F, -v want=".what." -v by=faces -f '".here."/mesh_curves.awk' '".file."'")
modes = curves("modes")
labels = curves("labels")

load here."/palette.gp"  # distinct colours for every series
set logscale y 10
set grid xtics ytics mytics lc rgb "#dddddd"
set key top right opaque box
set xlabel "centre distance of B (meshes in [-1,1]^3)"
set ylabel "median query µs"

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size (words(modes) > 1 ? 1400 : 900),560 font ",10" enhanced }
    else { set terminal pdfcairo size (words(modes) > 1 ? 11 : 7)in,4.6in font ",9" enhanced }
    set output stem.".".t
    set multiplot layout 1, words(modes) title "Mesh pair query time vs distance (median over poses)" noenhanced
    do for [m in modes] {
        set title "mode ".m noenhanced
        plot for [l in labels] sprintf("< awk -F, -v want=curve -v by=faces -v m=%s -v l=%s -v xcol=distance -v ycol=query_us_median -f '%s/mesh_curves.awk' '%s' | sort -g", m, l, here, file) \
                using 1:2 with linespoints lw 2 pt 7 ps 0.8 title l noenhanced
    }
    unset multiplot
    unset output
}
