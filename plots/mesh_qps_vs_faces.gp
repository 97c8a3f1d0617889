# SPDX-License-Identifier: MIT
# Mesh pairs: queries per second (1e6 / median query µs over poses) vs faces per mesh, log–log,
# one panel per query mode, one line per hierarchy (and per distance / hybrid layers when a run
# sweeps them). The paper's comparison is the hybrid line against the obb (RAPID) line.
# Reads RUN_DIR/summary.csv; writes OUTPUT_STEM.png (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/mesh_qps_vs_faces.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c mesh_qps_vs_faces.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
dir = ARG1
stem = (ARGC >= 2 && ARG2 ne "") ? ARG2 : dir."/mesh_qps_vs_faces"
file = dir."/summary.csv"
here = system("dirname '".ARG0."'")
curves(what) = system("awk -F, -v want=".what." -v by=distance -f '".here."/mesh_curves.awk' '".file."'")
modes = curves("modes")
labels = curves("labels")

load here."/palette.gp"  # distinct colours for every series
set logscale x 10
set logscale y 10
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key top right opaque box
set xlabel "faces per mesh"
set ylabel "queries per second"
set format x "10^{%T}"

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size (words(modes) > 1 ? 1400 : 900),560 font ",10" enhanced }
    else { set terminal pdfcairo size (words(modes) > 1 ? 11 : 7)in,4.6in font ",9" enhanced }
    set output stem.".".t
    set multiplot layout 1, words(modes) title "Mesh pair queries per second vs face count (median over poses)" noenhanced
    do for [m in modes] {
        set title "mode ".m noenhanced
        plot for [l in labels] sprintf("< awk -F, -v want=curve -v by=distance -v m=%s -v l=%s -v xcol=faces_a -v ycol=qps_median -f '%s/mesh_curves.awk' '%s' | sort -g", m, l, here, file) \
                using 1:2 with linespoints lw 2 pt 7 ps 0.8 title l noenhanced
    }
    unset multiplot
    unset output
}
