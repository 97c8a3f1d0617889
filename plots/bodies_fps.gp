# SPDX-License-Identifier: MIT
# Body scenes: median FPS vs faces per body (or vs bodies, when the run sweeps the body count and
# not the meshes), log–log, one panel per query mode, one line per hierarchy (with broad phase,
# density and the other count in the label). The paper's comparison is hybrid against obb: each
# panel's title gives the range of hybrid / obb here beside the paper's 1.8-2.9.
# Reads RUN_DIR/summary.csv; writes OUTPUT_STEM.png (pngcairo) and .pdf (pdfcairo).
# usage: gnuplot -c plots/bodies_fps.gp RUN_DIR [OUTPUT_STEM]     (or: cdlab plot RUN_DIR)
if (ARGC < 1) { print "usage: gnuplot -c bodies_fps.gp RUN_DIR [OUTPUT_STEM]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = (ARGC >= 2 && ARG2 ne "") ? path(ARG2) : dir."/bodies_fps"
file = dir."/summary.csv"
# x = faces per body when the run sweeps the meshes ([bodies] faces or meshes), else bodies
nmeshes = run("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { s[$h[\"meshes\"]] = 1 } END { n = 0; for (k in s) n++; print n }' ".sh(file)) + 0
xaxis = nmeshes > 1 ? "faces" : "bodies"
curves(what) = run("awk -F, -v want=".what." -v x=".xaxis." -f ".sh(here."/bodies_curves.awk")." ".sh(file))
modes = curves("modes")
ratio(m) = run("awk -F, -v m=".sh(m)." -f ".sh(here."/bodies_ratio.awk")." ".sh(file))
labels = curves("labels")
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (words(labels) == 0) { print "bodies_fps.gp: no points in ".file; exit status 1 }

load here."/palette.gp"  # distinct colours for every series
set logscale x 10
set logscale y 10
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key below
set xlabel (xaxis eq "faces" ? "faces per body" : "bodies")
set ylabel "FPS (median frame: motion + broad + narrow)"

do for [t in "png pdf"] {
    if (t eq "png") { set terminal pngcairo size (words(modes) > 1 ? 1400 : 900),720 font ",10" noenhanced }
    else { set terminal pdfcairo size (words(modes) > 1 ? 11 : 7)in,6in font ",9" noenhanced }
    set output stem.".".t
    set multiplot layout 1, words(modes) title "Moving mesh bodies: FPS per hierarchy"
    do for [m in modes] {
        set title "mode ".m."  (hybrid / obb FPS here: ".ratio(m)."; Zhu et al. 2008: 1.8-2.9)"
        plot for [l in labels] sprintf("< awk -F, -v want=curve -v x=%s -v m=%s -v l=%s -v ycol=fps_median -f %s %s | sort -g", xaxis, sh(m), sh(l), sh(here."/bodies_curves.awk"), sh(file)) \
                using 1:2 with linespoints lw 2 pt 7 ps 0.8 title l
    }
    unset multiplot
    unset output
}
if (sh_failed ne "") { print sh_failed; exit status 1 }
