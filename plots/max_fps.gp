# SPDX-License-Identifier: MIT
# Kind max_fps (the report's figure 2): collision FPS vs cube count for every probe of each max_fps search (median,
# p5–p95 bars; log–log; CPU-clock searches dashed; p05-judged searches drawn at FPS p95), the 60 FPS line, and each search's answer
# (max_cubes) in its key entry.
# Reads RUN_DIR/summary.csv of kind max_fps; writes OUTPUT_STEM.png and .pdf.
# usage: gnuplot -c plots/max_fps.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c max_fps.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/max_fps"
file = dir."/summary.csv"
# One curve per search: the rows grouped by every key column (meta.ini [columns] keys) whose value
# differs between rows, so searches that differ in any key (threads, cell_size, ...) never merge.
keys = run("sed -n 's/^keys = //p' ".sh(dir."/meta.ini")." | tr -d ' '")
awk = "awk -F, -v varying=1 -v cols=".sh(keys)." -f ".sh(here."/octree_groups.awk")
groups = run(awk." ".sh(file))
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(groups) == 0) { print "max_fps.gp: no searches in ".file; exit status 1 }
rows(g, y) = "< ".awk." -v key=".sh(g)." -v x=cubes -v y=".y." ".sh(file)
first(g, col) = run(awk." -v key=".sh(g)." -v x=".col." ".sh(file)." | head -n 1 | cut -d' ' -f1")
# Key: the varying key values joined by "/" (e.g. "grid/2/4" for method, threads, cell_size).
title(g) = sprintf("%s: max %s cubes", g, first(g, "max_cubes"))
dash(g) = first(g, "clock") eq "cpu" ? 2 : 1
# A search judged on frame_ms p05 is drawn at FPS p95 (the same frames), without bars.
ycols(g) = first(g, "statistic") eq "p05" ? "fps_p95,fps_p95,fps_p95" : "fps_median,fps_p05,fps_p95"

load here."/palette.gp"  # distinct colours for every series
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set xlabel "cubes"
set ylabel "FPS (collision only)"
set logscale x 10
set logscale y 10
set key outside right top box opaque

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size 1500,650 font ",10" noenhanced }
    else { set terminal pdfcairo size 13in,5.6in font ",9" noenhanced }
    set output stem.".".t
    set title "Largest cube count at 60 FPS: every probe of the doubling + bisection search\n(median FPS with p5–p95; dashed: thread CPU clock; searches judged on p05 drawn at FPS p95)"
    plot for [i=1:words(groups)] rows(word(groups, i), ycols(word(groups, i))) using 1:2:3:4 \
            with yerrorlines lw 2 pt 7 ps 0.6 lc i dt dash(word(groups, i)) \
            title title(word(groups, i)), \
         60 with lines dt 3 lw 2 lc rgb "#c00000" title "60 FPS"
    unset output
}
if (sh_failed ne "") { print sh_failed; exit status 1 }
