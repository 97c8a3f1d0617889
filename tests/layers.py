#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The module layering, checked on the build itself. Each module under src/ compiles with the
# public include directories (src/<module>/include) of the modules it declared in meson, and no
# others, so an undeclared include does not compile; this test keeps those declarations within
# the layers below (a module may see only the modules above it in LAYERS), and checks the naming
# that makes a private header private: quote includes are plain file names (no "../" detours),
# public headers live in include/ and start with cd_, private ones do not.
# usage: layers.py COMPILE_COMMANDS_JSON SOURCE_ROOT
import json
import os
import re
import shlex
import sys

# What each module may see (besides itself), as in docs/design: core knows nothing, narrow
# knows shapes, broad the scene and narrow tests, the registry joins broad, peers and bvh's
# variants, the plugin loader adds to the registry, kinds sit
# on the generic harness and everything they measure (simulate bakes scenes with Bullet into
# traces, below kinds), cli on top.
LAYERS = {
    "core": set(),
    "shape": {"core"},
    "narrow": {"core", "shape"},
    "scene": {"core", "shape"},
    "broad": {"core", "shape", "narrow", "scene"},
    "peers": {"core", "shape", "narrow", "scene", "broad"},
    "simulate": {"core", "shape", "scene"},
    "mesh": {"core"},
    "bvh": {"core", "shape", "narrow", "mesh"},
    "verify": {"core", "shape", "narrow", "scene", "simulate", "broad", "mesh", "bvh"},
    "registry": {"core", "shape", "narrow", "scene", "broad", "peers", "mesh", "bvh"},
    "bodies": {"core", "shape", "narrow", "scene", "broad", "mesh", "bvh"},
    "harness": {"core"},
    "plugin": {"core", "shape", "narrow", "scene", "broad", "mesh", "bvh", "registry", "harness"},
    "kinds": {"core", "shape", "narrow", "scene", "simulate", "broad", "registry", "mesh", "bvh", "bodies", "harness",
              "plugin"},
    "cli": {"core", "shape", "narrow", "scene", "simulate", "broad", "registry", "mesh", "bvh", "bodies", "harness", "plugin",
            "kinds", "verify"},
}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def module_of(path):
    parts = os.path.normpath(path).split(os.sep)
    return parts[parts.index("src") + 1] if "src" in parts else None


def main():
    with open(sys.argv[1]) as f:
        entries = json.load(f)
    root = sys.argv[2]
    seen = set()
    for e in entries:
        path = os.path.normpath(os.path.join(e["directory"], e["file"]))
        module = module_of(path)
        if module is None:
            continue  # tests and benchmarks open what they name
        if module not in LAYERS:
            fail(f"{path}: module '{module}' is not in the layer table")
            continue
        words = shlex.split(e["command"]) if "command" in e else e["arguments"]
        visible = set()
        for i, w in enumerate(words):
            d = w[2:] if w.startswith("-I") else (words[i + 1] if w in ("-I", "-isystem") else None)
            m = re.search(r"(?:^|/)src/(\w+)/include$", os.path.normpath(d)) if d else None
            if m and m.group(1) != module:
                visible.add(m.group(1))
        extra = visible - LAYERS[module]
        if extra:
            fail(f"{path}: module {module} compiles with the public headers of {sorted(extra)}, "
                 f"which its layer may not see")
        seen.add(module)
    for module in LAYERS:
        if module not in seen and module != "peers":  # peers are optional
            fail(f"no compile command of module {module}: is the table out of date?")

    include = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        rel = os.path.relpath(dirpath, root)
        public_dir = os.path.basename(dirpath) == "include"
        for name in files:
            path = os.path.join(rel, name)
            if name.endswith((".h", ".hpp")) and not name.endswith(".h.in"):
                if public_dir and not name.startswith("cd_"):
                    fail(f"{path}: a public header's name starts with cd_")
                if not public_dir and name.startswith("cd_"):
                    fail(f"{path}: a private header's name must not start with cd_ (or move it to include/)")
            if not name.endswith((".c", ".h", ".cpp", ".hpp")):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = include.match(line)
                    if m and "/" in m.group(1):
                        fail(f"{path}:{n}: #include \"{m.group(1)}\": a quote include names a file, not a path "
                             f"(declare the module in meson instead)")
    if failures:
        print(f"{len(failures)} layering problem(s)")
        return 1
    print(f"ok: {len(seen)} modules within their layers; include names and header placement as required")
    return 0


if __name__ == "__main__":
    sys.exit(main())
