# SPDX-License-Identifier: MIT
# Paths and shell commands of the figure scripts: loaded by each (not a figure) once it has set
# `here` to its own directory as ARG0 spells it, up to and with the last '/' ("" for none), by a
# loop that hands ARG0 to no shell. Whatever a path holds (quotes, $(...), backquotes, spaces, a
# newline, bytes that are not UTF-8, a leading '-', '<' or '|', an '='), gnuplot and the shell get
# it as data, never as code:
#
# - path(p) is p where it starts with '/', else "./".p. gnuplot reads a data file named "<cmd" and
#   writes an output named "|cmd" through the shell, and takes "", "-", "+", "++" and "$name" for
#   other things than files; awk takes an operand "x=y" for an assignment and the tools take "-x"
#   for an option. A path that starts with '/' or "./" is none of these and names the same file.
# - sh(s) is s single-quoted for sh, each ' written '\'' (the shell takes everything else between
#   single quotes as it is). The shell commands of the scripts are fixed text and sh() of every
#   path or value pasted in; a script never pastes a path into a string that gnuplot evaluates
#   (eval, macros). sq_ halves the string, so its depth is about log2 of the length: gnuplot's
#   stack holds a few hundred calls, which a path of many quotes would pass a quote at a time.
# - run(cmd) is system(cmd) that remembers the first command that failed (exit status not 0) in
#   sh_failed: a script exits 1 with it (sh_check) rather than draw an empty figure from a missing
#   output. The data pipes ("< cmd") read the files that run() read before, through the same
#   helpers, and gnuplot sees no exit status of a pipe.
path(p) = p[1:1] eq "/" ? p : "./".p
sq_(s) = !strstrt(s, "'") ? s : s eq "'" ? "'\\''" : sq_(s[1:strlen(s) / 2]).sq_(s[strlen(s) / 2 + 1:])
sh(s) = "'".sq_(s)."'"
sh_failed = ""
run(cmd) = (sh_out_ = system(cmd), \
            (GPVAL_SYSTEM_ERRNO != 0 && sh_failed eq "") ? \
                (sh_failed = sprintf("a shell command failed (exit %d): %s", GPVAL_SYSTEM_ERRNO, cmd)) : "", \
            sh_out_)
# here without its last '/', as a path: "." for none, "/" for the root.
here = here eq "" ? "." : (here eq "/" ? "/" : path(here[1:strlen(here) - 1]))
