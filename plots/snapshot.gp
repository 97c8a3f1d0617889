# SPDX-License-Identifier: MIT
# The scene of a cubes or bodies point at one frame (`cdlab snapshot`): the boxes' edges (grey),
# the boxes of overlapping pairs (red), and the broad phase's cells (octree nodes, grid rows) coloured by level,
# in 3-D with equal axes over [LO, HI] on every axis (the world cube and whatever reaches beyond
# it: gnuplot would drop a line that leaves the range). Writes OUTPUT_STEM.png (pngcairo) and .svg.
# Data: DATA_DIR/boxes.dat, pairs.dat, cells.dat: polylines of box edges, one per block (x y z tag;
# blocks apart by two blank lines); tag = level + 1 in cells.dat.
# NOUN names the boxes in the key (cubes, or bodies: their meshes' boxes).
# usage: gnuplot -c plots/snapshot.gp DATA_DIR OUTPUT_STEM TITLE LO HI [NOUN]
if (ARGC < 5) { print "usage: gnuplot -c snapshot.gp DATA_DIR OUTPUT_STEM TITLE LO HI [NOUN]"; exit status 2 }
# This script's directory (ARG0 up to its last '/', found without a shell), then paths.gp beside
# it: path(), sh() and run(), by which paths reach gnuplot and the shell as data only.
here = ""; s_ = ARG0
while (strstrt(s_, "/")) { here = here.s_[1:strstrt(s_, "/")]; s_ = s_[strstrt(s_, "/") + 1:] }
load (here[1:1] eq "/" ? here : "./".here)."paths.gp"
dir = path(ARG1)
stem = path(ARG2)
lo = real(ARG4)
hi = real(ARG5)
noun = ARGC >= 6 ? ARG6 : "cubes"
has(f) = run("test -s ".sh(dir."/".f)." && echo 1 || echo 0") eq "1"
set view 62, 28
set view equal xyz
set xyplane at 0
set xrange [lo:hi]
set yrange [lo:hi]
set zrange [lo:hi]
set xlabel "x"
set ylabel "y"
set zlabel "z"
set tics scale 0.5
set border 4095 lc rgb "#999999"
set key top left opaque box
set title ARG3 noenhanced
# Levels 0..8 in distinct colours (blue at the root, warmer deeper).
set linetype 1 lc rgb "#1f3b99" lw 1.6
set linetype 2 lc rgb "#2a7fd4" lw 1.2
set linetype 3 lc rgb "#20a39e" lw 1.0
set linetype 4 lc rgb "#5aae3a" lw 0.9
set linetype 5 lc rgb "#d49a1f" lw 0.8
set linetype 6 lc rgb "#d4601f" lw 0.7
set linetype 7 lc rgb "#a8327f" lw 0.7
set linetype 8 lc rgb "#6b3fa0" lw 0.6
set linetype 9 lc rgb "#444444" lw 0.6
cells = dir."/cells.dat"
boxes = dir."/boxes.dat"
pairs = dir."/pairs.dat"
# Only the files that hold edges are plotted (gnuplot stops on an empty data file).
# The splot names the files and the key's words by their variables, never by their text: eval
# parses its string as a command, where a quote in a path would end the file name.
cmd = ""
if (has("cells.dat")) { cmd = cmd."cells using 1:2:3:4 with lines lc variable title 'cells (colour: level)', " }
if (has("boxes.dat")) { cmd = cmd."boxes using 1:2:3 with lines lw 0.35 lc rgb '#9aa5b1' title noun, " }
if (has("pairs.dat")) { cmd = cmd."pairs using 1:2:3 with lines lw 1.3 lc rgb '#d01010' title noun.' in overlapping pairs', " }
if (sh_failed ne "") { print sh_failed; exit status 1 }
if (cmd eq "") { print "snapshot.gp: nothing to draw in ".dir; exit status 1 }
cmd = cmd[1:strlen(cmd) - 2]
do for [t in "png svg"] {
    if (t eq "png") { set terminal pngcairo size 1400,1200 font ",10" noenhanced }
    else { set terminal svg size 1400,1200 font "sans,10" noenhanced }
    set output stem.".".t
    eval "splot ".cmd
    unset output
}
