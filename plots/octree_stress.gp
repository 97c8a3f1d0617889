# SPDX-License-Identifier: MIT
# The report's figure 5: the stress test. Left: collision FPS (median, p5–p95) per configuration;
# right: memory held by the broad phase and the process's peak RSS, in MiB. One bar per point
# (method/depth/looseness/update). Reads RUN_DIR/summary.csv (kind cubes); writes OUTPUT_STEM.png
# and .pdf.
# usage: gnuplot -c plots/octree_stress.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c octree_stress.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/octree_stress"
file = dir."/summary.csv"
cubes = run("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { print $h[\"cubes\"]; exit }' ".sh(file))
clock = run("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { print (\"clock\" in h) ? $h[\"clock\"] : \"wall\"; exit }' ".sh(file))
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (cubes eq "") { print "octree_stress.gp: no points in ".file; exit status 1 }
label(dummy) = sprintf("%s/d%d/k%s/%s", strcol("method"), column("depth"), strcol("looseness"), strcol("update"))

set datafile separator comma
set datafile columnheaders
set style fill solid 0.6 border -1
set boxwidth 0.6
set grid ytics lc rgb "#dddddd"
set xtics rotate by -30 left noenhanced
set yrange [0:*]

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1500,650 font ",10" noenhanced }
    else { set terminal pdfcairo size 13in,5.6in font ",9" noenhanced }
    set output stem.".".t
    set boxwidth 0.6
    set multiplot layout 1, 2 title sprintf("Stress test: %s cubes (%s clock)", cubes, clock eq "cpu" ? "runner thread CPU" : "wall")
    set title "collision FPS (median, p5–p95)"
    set ylabel "FPS (collision only)"
    unset key
    plot file using 0:"fps_median":xtic(label(0)) with boxes lc rgb "#4477aa", \
         "" using 0:"fps_median":"fps_p05":"fps_p95" with yerrorbars lc rgb "#000000" pt 0
    set title "memory"
    set boxwidth 0.3
    set ylabel "MiB"
    set key top left box opaque
    plot file using ($0 - 0.15):(column("bytes_mean") / 1048576):xtic(label(0)) with boxes \
            lc rgb "#228833" title "broad phase (bytes)", \
         "" using ($0 + 0.15):(column("peak_rss_bytes") / 1048576) with boxes lc rgb "#ccbb44" \
            title "process peak RSS"
    unset multiplot
    unset output
}
