# SPDX-License-Identifier: MIT
# Milliseconds per frame (motion + broad + narrow) per workload of a run, log y: one column of
# points per workload (a point's scene: layout, sizes, moving fraction, sleep, threads, cubes; see
# plots/workloads.awk), the median with p5–p95 bars of every method, cdlab's methods solid, the
# peers' open. Reads RUN_DIR/summary.csv; writes OUTPUT_STEM.png and .pdf.
# usage: gnuplot -c plots/frame_ms_by_workload.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c frame_ms_by_workload.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
dir = ARG1
stem = (ARGC >= 2 && ARG2 ne "") ? ARG2 : dir."/frame_ms_by_workload"
file = dir."/summary.csv"
here = system("dirname '".ARG0."'")
rows = "< awk -F, -f '".here."/workloads.awk' '".file."'"
methods = system("awk -F, -v want=methodset -f '".here."/workloads.awk' '".file."'")
nw = system("awk -F, -f '".here."/workloads.awk' '".file."' | cut -f1 | sort -n | tail -n 1") + 1
tics = system("awk -F, -f '".here."/workloads.awk' '".file."' | awk -F'\t' '!($1 in s) { s[$1] = 1; printf \"%s\\\"%s\\\" %s\", (n++ ? \", \" : \"(\"), $2, $1 } END { print \")\" }'")

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
eval "set xtics ".tics." rotate by -20"

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1400,750 font ",11" noenhanced }
    else { set terminal pdfcairo size 10.5in,5.8in font ",10" noenhanced }
    set output stem.".".t
    plot for [i = 1:nm] rows using ($1 + shift(i)):(strcol(3) eq word(methods, i) ? $4 : NaN):5:6 \
            with yerrorbars lc i pt (is_peer(word(methods, i)) ? 6 : 7) ps 1.0 title word(methods, i), \
         1000.0 / 60 with lines dt 2 lw 1.5 lc rgb "#c00000" title "60 FPS (16.7 ms)"
    unset output
}
