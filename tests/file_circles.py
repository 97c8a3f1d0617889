#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# No file circles: among the object files of src/, file A calling (or reading) a symbol that file
# B defines is an edge A -> B, and no two files may reach each other along such edges. A circle
# means neither file can be read, tested or replaced without the other; the fix is to move what
# both need into a file below them (as scene/pose.c and bvh/result.c are). The edges come from
# the symbol tables of the build itself (nm), so a call through a header's declaration counts
# as well as an include. A file built twice (bvh/traverse.c, once per instruction set) is two
# nodes.
# usage: file_circles.py BUILD_ROOT
import glob
import os
import subprocess
import sys
from collections import defaultdict


def source_of(obj, build):
    rel = os.path.relpath(obj, build)
    parts = rel.split(os.sep)
    lib = parts[-2][:-2] if parts[-2].endswith(".p") else ""
    return f"{os.sep.join(parts[:-2])}/{parts[-1][:-2]} ({lib})"


def main():
    build = sys.argv[1]
    objs = sorted(o for o in glob.glob(os.path.join(build, "src", "**", "*.o"), recursive=True)
                  if "libcdlab" not in o)  # the shared library repeats the modules' objects
    if not objs:
        print(f"FAIL no object files under {build}/src")
        return 1
    defined = defaultdict(set)
    wanted = {o: set() for o in objs}
    out = subprocess.run(["nm", "-A"] + objs, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        o, _, rest = line.partition(":")  # -A: each line starts with its object's name
        f = rest.split()
        if len(f) == 2 and f[0] == "U":
            wanted[o].add(f[1])
        elif len(f) == 3 and f[1] in "TDBRW":
            defined[f[2]].add(o)
    edges = defaultdict(set)
    for o, syms in wanted.items():
        for s in syms:
            for d in defined.get(s, ()):
                if d != o:
                    edges[o].add((d, s))
    # Tarjan's strongly connected components, iteratively.
    index, low, on, stack, comps, n = {}, {}, set(), [], [], 0
    for root in objs:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                w = nxt[0]
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(comp)
    circles = [c for c in comps if len(c) > 1]
    for c in circles:
        print("FAIL file circle: " + " <-> ".join(source_of(o, build) for o in sorted(c)))
        for a in sorted(c):
            for b, s in sorted(edges[a]):
                if b in c:
                    print(f"    {source_of(a, build)} uses {s} of {source_of(b, build)}")
    print(f"{len(circles)} file circle(s) among {len(objs)} object files")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
