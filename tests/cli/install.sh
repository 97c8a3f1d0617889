#!/bin/sh
# SPDX-License-Identifier: MIT
# cdlab as an outside user gets it: `meson install` into a temporary destdir, then, against the
# installed cdlab.pc only, build examples/plugin_broad (a plugin) and examples/embed (a program
# linked with libcdlab). The installed cdlab must: pass the example grid in `cdlab verify`; fail
# its twin that drops pairs at cell borders with a reproducer that `cdlab run` shows; run the grid
# beside grid_multi and an FCL peer (when built) with the same pairs, record the plugin in
# meta.ini, and plot the run from its own share/cdlab/plots. Every installed header compiles alone.
# The examples are built from the installed share/cdlab/examples; docs/usage.md's sample line of
# examples/embed is what it prints (times aside); a program linked with plain cc against cdlab.pc
# runs with LD_LIBRARY_PATH set as usage.md says; examples/embed installed (meson install) runs without
# it, its install_rpath naming the installed libcdlab.so's directory.
# usage: install.sh BUILD_DIR SOURCE_DIR B_SANITIZE
set -u
build=$1 src=$2 sanitize=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
die() { echo "FAIL $*"; exit 1; }

meson install -C "$build" --no-rebuild --destdir "$tmp/dest" --quiet >"$tmp/log" 2>&1 || die "meson install: $(cat "$tmp/log")"
cdlab=$(find "$tmp/dest" -path '*/bin/cdlab' -type f | head -n 1)
pc=$(find "$tmp/dest" -name cdlab.pc | head -n 1)
[ -x "$cdlab" ] && [ -f "$pc" ] || die "no bin/cdlab or cdlab.pc installed: $(cd "$tmp/dest" && find . -type f | head -20)"
prefix=$(dirname "$(dirname "$cdlab")")
for f in include/cdlab/cd_plugin.h share/cdlab/plots/fps_vs_cubes.gp share/cdlab/configs/quick.ini \
         share/cdlab/experiments/default.suite share/cdlab/examples/embed/meson.build \
         share/cdlab/examples/plugin_broad/meson.build share/cdlab/examples/plugin_broad/example_grid.c; do
    [ -f "$prefix/$f" ] || { echo "FAIL not installed: $f"; fail=1; }
done
ls "$(dirname "$(dirname "$pc")")"/libcdlab.so "$(dirname "$(dirname "$pc")")"/libcdlab.a >/dev/null ||
    { echo "FAIL libcdlab.so and libcdlab.a not next to pkgconfig/"; fail=1; }
# The .pc names the configured prefix; the destdir relocates it.
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/dest"

# Each public header on its own: the API needs no header that was not installed.
for h in "$prefix"/include/cdlab/*.h; do
    printf '#include <%s>\n' "$(basename "$h")" |
        cc -std=c17 -Wall -Wextra -Werror -fsyntax-only $(pkg-config --cflags cdlab) -x c - 2>"$tmp/log" ||
        { echo "FAIL $(basename "$h") does not compile alone: $(cat "$tmp/log")"; fail=1; }
done

# The examples, built as outside projects (sanitized like cdlab when it is, or libcdlab's ASan
# runtime would not load first).
opts=""
[ "$sanitize" != "none" ] && opts="-Db_sanitize=$sanitize"
for ex in plugin_broad embed; do
    # shellcheck disable=SC2086
    { meson setup "$tmp/$ex" "$prefix/share/cdlab/examples/$ex" $opts && meson compile -C "$tmp/$ex"; } >"$tmp/log" 2>&1 ||
        die "building the installed examples/$ex against the installed cdlab.pc: $(tail -30 "$tmp/log")"
done
"$tmp/embed/embed" 2000 5 >"$tmp/embed.out" 2>&1 || { echo "FAIL embed: $(cat "$tmp/embed.out")"; fail=1; }
# Installed, embed finds libcdlab.so through its install_rpath: no LD_LIBRARY_PATH.
meson install -C "$tmp/embed" --destdir "$tmp/embed_dest" --quiet >"$tmp/log" 2>&1 ||
    { echo "FAIL meson install of examples/embed: $(cat "$tmp/log")"; fail=1; }
embed_bin=$(find "$tmp/embed_dest" -path '*/bin/embed' -type f | head -n 1)
if [ -z "$embed_bin" ]; then
    echo "FAIL examples/embed installs no bin/embed"; fail=1
else
    env -u LD_LIBRARY_PATH "$embed_bin" 100 1 >/dev/null 2>"$tmp/log" ||
        { echo "FAIL the installed embed without LD_LIBRARY_PATH: $(cat "$tmp/log")"; fail=1; }
    ldd "$embed_bin" | grep -q "libcdlab.so.* => $tmp/dest/" ||
        { echo "FAIL the installed embed does not load the installed libcdlab.so: $(ldd "$embed_bin")"; fail=1; }
fi
cat "$tmp/embed.out"
[ "$(grep -c 'naive agrees$' "$tmp/embed.out")" -eq 5 ] || { echo "FAIL embed: 5 agreeing frames expected"; fail=1; }
# usage.md's sample line of `embed 2000 5` (times masked on both sides).
mask() { sed 's/[0-9.]* ms)/T ms)/'; }
doc=$(sed -n 's/^  # \(frame 0: 2000 cubes.*\)$/\1/p' "$src/docs/usage.md" | mask)
got=$(head -n 1 "$tmp/embed.out" | mask)
[ -n "$doc" ] && [ "$doc" = "$got" ] ||
    { echo "FAIL docs/usage.md shows '$doc' for embed 2000 5, the program prints '$got'"; fail=1; }
# A program linked by hand: it finds libcdlab.so with LD_LIBRARY_PATH, as usage.md says.
if [ "$sanitize" = "none" ]; then
    libdir=$(dirname "$(dirname "$pc")")
    # shellcheck disable=SC2046
    cc -std=c17 -O2 -o "$tmp/embed_cc" "$prefix/share/cdlab/examples/embed/embed.c" $(pkg-config --cflags --libs cdlab) \
        >"$tmp/log" 2>&1 || { echo "FAIL embed.c with cc and pkg-config: $(cat "$tmp/log")"; fail=1; }
    LD_LIBRARY_PATH="$libdir" "$tmp/embed_cc" 100 1 >/dev/null 2>"$tmp/log" ||
        { echo "FAIL embed_cc with LD_LIBRARY_PATH=$libdir: $(cat "$tmp/log")"; fail=1; }
fi

cd "$tmp" || exit 1
grid=$tmp/plugin_broad/libexample_grid.so
broken=$tmp/plugin_broad/libexample_grid_border_bug.so
"$cdlab" verify --plugin "$grid" --scenes 300 >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 0 ] && grep -q '^ok    example_grid ' out; } || { echo "FAIL verify grid: exit $rc: $(cat out err)"; fail=1; }
"$cdlab" verify --plugin "$broken" --scenes 300 --out repro >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 1 ] && grep -q '^FAIL  example_grid_border_bug ' out && [ -f repro/example_grid_border_bug/repro.ini ]; } ||
    { echo "FAIL verify broken grid: exit $rc, expected 1 and a reproducer: $(cat out err)"; fail=1; }
if "$cdlab" run --quiet --output res --run-id repro repro/example_grid_border_bug/repro.ini >/dev/null 2>err; then
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next } { print $col["method"], $col["pairs_mean"] }' \
        res/verify_example_grid_border_bug/repro/summary.csv > pairs
    awk '$1 == "naive" { n = $2 } $1 == "example_grid_border_bug" { b = $2 } END { exit !(n > b) }' pairs ||
        { echo "FAIL reproducer: expected fewer pairs than naive: $(cat pairs)"; fail=1; }
else
    echo "FAIL reproducer: $(cat err)"; fail=1
fi

# A short run: the plugin beside cdlab's fastest method and FCL's tree.
methods="example_grid, grid_multi"
"$cdlab" methods | grep -q '^fcl_dynamic_tree ' && methods="$methods, fcl_dynamic_tree"
cat > short.ini <<INI
[experiment]
name = plugin_short
frames = 20
repeats = 2
warmup = 3
[scene]
cubes = 1000, 4000
[method]
plugin = $grid
method = $methods
[run]
counters =
INI
if "$cdlab" run --quiet --output res --run-id short short.ini >/dev/null 2>err; then
    dir=res/plugin_short/short
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; print "method cubes frame_ms_median broad_ms_median pairs_mean"; next }
             { print $col["method"], $col["cubes"], $col["frame_ms_median"], $col["broad_ms_median"], $col["pairs_mean"] }' \
        "$dir/summary.csv" > rows
    cat rows
    [ "$(awk 'NR > 1 { print $2, $5 }' rows | sort -u | wc -l)" -eq 2 ] ||
        { echo "FAIL short run: the methods' pairs differ at a cube count"; fail=1; }
    grep -q "^p1_sha256 = $(sha256sum "$grid" | cut -d' ' -f1)$" "$dir/meta.ini" ||
        { echo "FAIL short run: meta.ini lacks the plugin's SHA-256"; fail=1; }
    # Plotted with the installed scripts, found from the program's own prefix.
    "$cdlab" plot "$dir" >/dev/null 2>err && [ -s "$dir/fps_vs_cubes.png" ] ||
        { echo "FAIL cdlab plot with the installed scripts: $(cat err)"; fail=1; }
else
    echo "FAIL short run: $(cat err)"; fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: installed, examples built against cdlab.pc, verify and run with the plugin"
exit "$fail"
