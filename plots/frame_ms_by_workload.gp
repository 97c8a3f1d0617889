# SPDX-License-Identifier: MIT
# Milliseconds per frame (motion + broad + narrow) per workload of a run, log y: one column of
# points per workload (a point's scene: layout, sizes, moving fraction, sleep, threads, cubes; see
# plots/workloads.awk), the median with p5–p95 bars of every method, cdlab's methods solid, the
# peers' open. Reads RUN_DIR/summary.csv; writes OUTPUT_STEM.png and .pdf.
# usage: gnuplot -c plots/frame_ms_by_workload.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c frame_ms_by_workload.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/frame_ms_by_workload"
file = dir."/summary.csv"
awk = "awk -F, -f ".sh(here."/workloads.awk")
rows = "< ".awk." ".sh(file)
methods = run("awk -F, -v want=methodset -f ".sh(here."/workloads.awk")." ".sh(file))
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(methods) == 0) { print "frame_ms_by_workload.gp: no points in ".file; exit status 1 }
nw = run(awk." ".sh(file)." | cut -f1 | sort -n | tail -n 1") + 1

is_peer(m) = strstrt(m, "fcl_") == 1 || strstrt(m, "bullet_") == 1 || strstrt(m, "cgal_") == 1 || strstrt(m, "ode_") == 1
# Each method's points shifted a little within its workload's column, so the bars do not overlap.
nm = words(methods)
shift(i) = (i - (nm + 1) / 2.0) * 0.6 / nm

load here."/palette.gp"  # distinct colours for every series
set datafile separator "\t"
set title "Milliseconds per frame per workload (median, p5–p95 over frames)"
set xlabel "workload"
set ylabel "ms per frame (motion + broad + narrow)"
set logscale y 10
set grid ytics mytics lc rgb "#dddddd"
set key outside right top box opaque
set xrange [-0.5:nw - 0.5]
# Each workload's name as its tic: a string, not text for eval.
set xtics () rotate by -20
do for [w = 0:nw - 1] {
    set xtics add (run(awk." ".sh(file)." | awk -F'\t' -v w=".w." '$1 == w { print $2; exit }'") w)
}
if (sh_failed ne "") { print sh_failed; exit status 1 }

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1400,750 font ",11" noenhanced }
    else { set terminal pdfcairo size 10.5in,5.8in font ",10" noenhanced }
    set output stem.".".t
    plot for [i = 1:nm] rows using ($1 + shift(i)):(strcol(3) eq word(methods, i) ? $4 : NaN):5:6 \
            with yerrorbars lc i pt (is_peer(word(methods, i)) ? 6 : 7) ps 1.0 title word(methods, i), \
         1000.0 / 60 with lines dt 2 lw 1.5 lc rgb "#c00000" title "60 FPS (16.7 ms)"
    unset output
}
