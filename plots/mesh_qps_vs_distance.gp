# SPDX-License-Identifier: MIT
# Mesh pairs from deep overlap to near miss: median query µs vs centre distance, one panel per
# query mode, one line per hierarchy and face count. Reads RUN_DIR/summary.csv; writes
# OUTPUT_STEM.png (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/mesh_qps_vs_distance.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c mesh_qps_vs_distance.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/mesh_qps_vs_distance"
file = dir."/summary.csv"
curves(what) = run("awk -F, -v want=".what." -v by=faces -f ".sh(here."/mesh_curves.awk")." ".sh(file))
modes = curves("modes")
labels = curves("labels")
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(labels) == 0) { print "mesh_qps_vs_distance.gp: no points in ".file; exit status 1 }

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
        plot for [l in labels] sprintf("< awk -F, -v want=curve -v by=faces -v m=%s -v l=%s -v xcol=distance -v ycol=query_us_median -f %s %s | sort -g", sh(m), sh(l), sh(here."/mesh_curves.awk"), sh(file)) \
                using 1:2 with linespoints lw 2 pt 7 ps 0.8 title l noenhanced
    }
    unset multiplot
    unset output
}
