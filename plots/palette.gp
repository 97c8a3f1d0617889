# SPDX-License-Identifier: MIT
# Twenty-four distinct line colours for the plots that draw a series per method or group (`lc i`):
# gnuplot's own cycle repeats after eight, so a run of every broad phase and peer (fourteen to
# twenty-two series) drew octree and dtree, grid and btDbvt, in the same colour. Ten strong
# colours, their light tints, then four dark ones; the peers' dashes and the point types still
# tell the series apart where two colours come close. Loaded by every script that draws several
# series (their own colours where they name none), not a figure.
array palette[24] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", \
                     "#17becf", "#7f7f7f", "#bcbd22", "#000000", "#aec7e8", "#98df8a", "#ff9896", \
                     "#c5b0d5", "#c49c94", "#f7b6d2", "#9edae5", "#ffbb78", "#dbdb8d", "#393b79", \
                     "#637939", "#843c39", "#7b4173"]
do for [k = 1:24] { set linetype k lc rgb palette[k] }
set linetype cycle 24
