# SPDX-License-Identifier: MIT
# Mesh pairs: queries per second (1e6 / median query µs over poses) vs faces per mesh, log–log,
# one panel per query mode, one line per hierarchy (and per distance / hybrid layers when a run
# sweeps them). The paper's comparison is the hybrid line against the obb (RAPID) line.
# Reads RUN_DIR/summary.csv; writes OUTPUT_STEM.png (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/mesh_qps_vs_faces.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c mesh_qps_vs_faces.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/mesh_qps_vs_faces"
file = dir."/summary.csv"
curves(what) = run("awk -F, -v want=".what." -v by=distance -f ".sh(here."/mesh_curves.awk")." ".sh(file))
modes = curves("modes")
labels = curves("labels")
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(labels) == 0) { print "mesh_qps_vs_faces.gp: no points in ".file; exit status 1 }

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
        plot for [l in labels] sprintf("< awk -F, -v want=curve -v by=distance -v m=%s -v l=%s -v xcol=faces_a -v ycol=qps_median -f %s %s | sort -g", sh(m), sh(l), sh(here."/mesh_curves.awk"), sh(file)) \
                using 1:2 with linespoints lw 2 pt 7 ps 0.8 title l noenhanced
    }
    unset multiplot
    unset output
}
