# SPDX-License-Identifier: MIT
# A seed document's result (experiments/reference/<name>.csv) as bars: one group per row (the
# first column labels it), one bar per numeric column; title and y label from the file's
# `# title:` and `# ylabel:` lines. SVG (gnuplot's svg terminal), for `cdlab report` to inline.
# usage: gnuplot -c plots/reference.gp REFERENCE.csv OUTPUT.svg
if (ARGC < 2) { print "usage: gnuplot -c reference.gp REFERENCE.csv OUTPUT.svg"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
file = path(ARG1)
header(k) = run("sed -n 's/^# *".k.": *//p' ".sh(file)." | head -n 1")
ncols = int(run("grep -v '^#' ".sh(file)." | head -n 1 | awk -F, '{ print NF }'"))
if (sh_failed ne "") { print sh_failed; exit status 1 }
set datafile separator ","
set terminal svg size 640,400 font "sans,11" noenhanced
set output path(ARG2)
set title header("title")
set ylabel header("ylabel")
if (sh_failed ne "") { print sh_failed; exit status 1 }
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set boxwidth 0.9
set grid ytics lc rgb "#dddddd"
set yrange [0:*]
set xtics rotate by -20 scale 0
set key top left
plot for [i=2:ncols] file using i:xtic(1) title columnhead(i)
unset output
