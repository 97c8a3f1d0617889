#!/bin/sh
# SPDX-License-Identifier: MIT
# Plugins through the cdlab program: a good plugin's method runs beside cdlab's own (same pairs as
# naive) and meta.ini records the file's path, size and SHA-256; every bad plugin is refused with
# exit 2, the config's file:line and the plugin's path, and nothing written; `cdlab methods
# --plugin` lists what a plugin adds and refuses a bad one the same way. A method whose candidates
# name objects the scene has not fails its point (exit 1) naming the method, plugin and pair, in
# every kind that runs broad phases, serial and in parts.
# usage: plugins.sh CDLAB GOOD.so NAIVE_COPY.so NO_ENTRY.so WRONG_ABI.so CLASH.so NULL_CALLBACK.so
#        BAD_IDS.so PARAM_KEY_NAME.so PLAN_BAD_END.so PLAN_GAP.so
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
cdlab=$(abs "$1") good=$(abs "$2") naive=$(abs "$3") no_entry=$(abs "$4") abi=$(abs "$5") clash=$(abs "$6")
null_cb=$(abs "$7") bad_ids=$(abs "$8") param_name=$(abs "$9") plan_end=$(abs "${10}")
plan_gap=$(abs "${11}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -p "$tmp/cfg" "$tmp/lib" "$tmp/out"
cp "$naive" "$tmp/lib/libnaive_a.so"
cp "$naive" "$tmp/lib/libnaive_b.so"
echo "not a shared object" > "$tmp/lib/libtext.so"

config() {  # name plugin-line methods: a tiny cubes config in $tmp/cfg; [method] plugin on line 9
    cat > "$tmp/cfg/$1.ini" <<INI
[experiment]
seed = 7
warmup = 1
frames = 3
repeats = 1
[scene]
cubes = 40, 300
[method]
plugin = $2
method = $3
[run]
counters =
isolate = none
INI
}

refused() {  # name plugin phrase: cdlab run refuses the config naming the plugin
    config "$1" "$2" naive
    "$cdlab" run --output "$tmp/out" "$tmp/cfg/$1.ini" >"$tmp/stdout" 2>"$tmp/err"
    rc=$?
    msg=$(cat "$tmp/err")
    if [ "$rc" -ne 2 ]; then
        echo "FAIL $1: exit $rc, expected 2 ($msg)"; fail=1
    elif ! grep -qF -- "$tmp/cfg/$1.ini:9: [method] plugin:" "$tmp/err"; then
        echo "FAIL $1: message lacks the config's file:line: $msg"; fail=1
    elif ! grep -qF -- "$4" "$tmp/err"; then
        echo "FAIL $1: message lacks the plugin path '$4': $msg"; fail=1
    elif ! grep -qF -- "$3" "$tmp/err"; then
        echo "FAIL $1: message lacks '$3': $msg"; fail=1
    elif [ -n "$(ls -A "$tmp/out")" ]; then
        echo "FAIL $1: wrote $(ls -A "$tmp/out")"; fail=1
    else
        echo "ok $1 -> $msg"
    fi
}

refused missing ../lib/libnone.so "No such file" "$tmp/cfg/../lib/libnone.so"
refused not_elf ../lib/libtext.so "cannot load" "$tmp/cfg/../lib/libtext.so"
refused no_entry "$no_entry" "no entry point cdlab_plugin_v1" "$no_entry"
# bad_plugin.c declares ABI 2, the one before methods declared their parameters.
abi_now=$(sed -n 's/^#define CD_PLUGIN_ABI \([0-9]*\).*/\1/p' "$(dirname "$0")/../../src/plugin/include/cd_plugin.h")
refused abi "$abi" "plugin ABI 2 (every method read the fixed struct cd_broad_params), this cdlab's is $abi_now" "$abi"
refused clash_builtin "$clash" "method 'grid' clashes with the built-in method of that name" "$clash"
refused clash_plugin "../lib/libnaive_a.so, ../lib/libnaive_b.so" \
    "method 'plugin_naive' clashes with the method of that name of a plugin loaded before" "$tmp/cfg/../lib/libnaive_b.so"
refused null_callback "$null_cb" "method 'plugin_naive' has a NULL candidates" "$null_cb"
# A parameter named like a config key (here [method] threads): a second key and key column of that
# name, refused at load rather than at the run's first CSV header.
refused param_key_name "$param_name" \
    "method 'plugin_naive': parameter 'threads' has the name of the key [method] threads of kind cubes" "$param_name"
# A variant's plan is checked at load at the defaults and the ends of each parameter's range
# (sphere_layers = 32 gives kind 9 here).
refused plan_end "$plan_end" \
    "hierarchy variant 'plugin_sphere_obb': its plan at sphere_layers = 32: segment 0 has kind 9" "$plan_end"


# A good plugin, by a path relative to the config's directory, run beside naive.
cp "$good" "$tmp/lib/libgood.so"
config good ../lib/libgood.so "naive, example_grid"
if ! "$cdlab" run --quiet --output "$tmp/out" --run-id r "$tmp/cfg/good.ini" >"$tmp/stdout" 2>"$tmp/err"; then
    echo "FAIL good: cdlab run failed: $(cat "$tmp/err")"; fail=1
else
    dir=$tmp/out/good/r
    real=$(cd "$tmp/lib" && pwd -P)/libgood.so
    sed -n '/^\[plugins\]/,/^\[/p' "$dir/meta.ini"
    for want in "p1_path = $real" "p1_size = $(wc -c < "$real" | tr -d ' ')" \
                "p1_sha256 = $(sha256sum "$real" | cut -d' ' -f1)" "p1_provides = example_grid"; do
        grep -qxF -- "$want" "$dir/meta.ini" || { echo "FAIL good: meta.ini lacks '$want'"; fail=1; }
    done
    # pairs_mean of each cube count: the plugin's equals naive's.
    pairs=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
                     { print $col["cubes"], $col["method"], $col["pairs_mean"] }' "$dir/summary.csv")
    echo "$pairs"
    n=$(echo "$pairs" | awk '{ p[$1 " " $2] = $3 } END { for (k in p) { split(k, a, " ");
        if (a[2] == "example_grid" && p[a[1] " naive"] == p[k] && p[k] > 0) ok++ } print ok + 0 }')
    [ "$n" -eq 2 ] || { echo "FAIL good: example_grid's pairs differ from naive's at some cube count"; fail=1; }
fi

# A plugin's own parameters: example_grid declares cell_size and cell_factor. The plan crosses it,
# not naive, with cell_factor (1 + 2 points per cube count), summary.csv has the column (NA for
# naive), meta.ini records the plugin's build, and every setting finds naive's pairs.
config own ../lib/libgood.so "naive, example_grid"
sed -i 's/^method = naive, example_grid$/method = naive, example_grid\ncell_factor = 1, 2.5/' "$tmp/cfg/own.ini"
points=$("$cdlab" run --dry-run "$tmp/cfg/own.ini" 2>/dev/null | sed -n 's/.* \([0-9]*\) point(s), sha256.*/\1/p')
if [ "$points" != 6 ]; then
    echo "FAIL own: $points points, expected 6 (2 cube counts x (naive + example_grid x 2 cell_factor))"; fail=1
elif ! "$cdlab" run --quiet --output "$tmp/out" --run-id r "$tmp/cfg/own.ini" >"$tmp/stdout" 2>"$tmp/err"; then
    echo "FAIL own: cdlab run failed: $(cat "$tmp/err")"; fail=1
else
    dir=$tmp/out/own/r
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
             { print $col["cubes"], $col["method"], $col["cell_factor"], $col["pairs_mean"] }' "$dir/summary.csv" >"$tmp/own"
    cat "$tmp/own"
    awk '$2 == "naive" { n[$1] = $4; if ($3 != "NA") bad = 1 } $2 == "example_grid" { g[$1 " " $3] = $4 }
         END { for (k in g) { split(k, a, " "); if (g[k] != n[a[1]]) bad = 1; m++ } exit bad || m != 4 }' "$tmp/own" ||
        { echo "FAIL own: cell_factor column or pairs wrong"; fail=1; }
    grep -q '^p1_build = .*optimi' "$dir/meta.ini" || { echo "FAIL own: meta.ini lacks p1_build"; fail=1; }
fi
"$cdlab" methods --plugin "$good" 2>/dev/null | grep -q '^    cell_factor  *number in \[0.5, 64\], default 1: ' ||
    { echo "FAIL own: cdlab methods --plugin does not list cell_factor"; fail=1; }

# A plugin's hierarchy variant in a mesh config, beside a built-in one: the same triangle pairs.
cat > "$tmp/cfg/mesh.ini" <<INI
[experiment]
kind = mesh
seed = 3
warmup = 0
frames = 1
repeats = 1
[mesh]
a = icosphere:200
b = torus:200
poses = 20
[method]
plugin = $naive
hierarchy = obb, plugin_sphere_obb
[run]
counters =
isolate = none
INI
if ! "$cdlab" run --quiet --output "$tmp/out" --run-id r "$tmp/cfg/mesh.ini" >"$tmp/stdout" 2>"$tmp/err"; then
    echo "FAIL mesh: cdlab run failed: $(cat "$tmp/err")"; fail=1
else
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
             { print $col["hierarchy"], $col["pairs_mean"] }' "$tmp/out/mesh/r/summary.csv" > "$tmp/pairs"
    cat "$tmp/pairs"
    [ "$(cut -d' ' -f2 "$tmp/pairs" | sort -u | wc -l)" -eq 1 ] && grep -q "^plugin_sphere_obb [1-9]" "$tmp/pairs" ||
        { echo "FAIL mesh: the plugin's variant found other triangle pairs than obb"; fail=1; }
fi

# A variant's plan wrong only at sphere_layers = 7 loads; a mesh or bodies config that asks for 7
# is refused at its [method] hierarchy line (--dry-run too), nothing written.
plan_config() {  # name kind-lines: a config with the gap plugin's variant at sphere_layers = 2, 7
    printf '[experiment]\nwarmup = 0\nframes = 1\nrepeats = 1\n%s\n[method]\nplugin = %s\n' "$2" "$plan_gap" \
        > "$tmp/cfg/$1.ini"
    printf 'hierarchy = obb, plugin_sphere_obb\nsphere_layers = 2, 7\n[run]\ncounters =\n' >> "$tmp/cfg/$1.ini"
}
plan_config plan_mesh "$(printf 'kind = mesh\n[mesh]\na = icosphere:80\nb = torus:100\nposes = 4')"
plan_config plan_bodies "$(printf 'kind = bodies\n[scene]\nbodies = 20\n[bodies]\nmeshes = icosphere:80')"
for c in plan_mesh plan_bodies; do
    line=$(grep -n '^hierarchy' "$tmp/cfg/$c.ini" | cut -d: -f1)
    want="$tmp/cfg/$c.ini:$line: [method] hierarchy: hierarchy variant plugin_sphere_obb (plugin $plan_gap) at sphere_layers = 7: its plan: segment 0 has kind 7"
    for dry in --dry-run ""; do
        # shellcheck disable=SC2086
        "$cdlab" run $dry --quiet --output "$tmp/out" "$tmp/cfg/$c.ini" >/dev/null 2>"$tmp/err"
        rc=$?
        if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" "$tmp/err" || [ -d "$tmp/out/$c" ]; then
            echo "FAIL $c $dry: exit $rc, expected 2 and '$want', nothing written: $(cat "$tmp/err")"; fail=1
        else
            echo "ok $c $dry -> $(cat "$tmp/err")"
        fi
    done
done
sed -i 's/^sphere_layers = 2, 7$/sphere_layers = 0, 2, 32/' "$tmp/cfg/plan_mesh.ini"
"$cdlab" run --quiet --output "$tmp/out" --run-id r "$tmp/cfg/plan_mesh.ini" >/dev/null 2>"$tmp/err" ||
    { echo "FAIL plan_mesh: the plan's good values refused: $(cat "$tmp/err")"; fail=1; }

# Candidates that name no pair of the scene's objects (bad_ids.c): the point fails with the
# method, its plugin and the first bad pair, exit 1, before anything reads the scene at those ids.
bad_ids_run() {  # name method pair noun kind-lines: one point of the kind, refused
    printf '[experiment]\nwarmup = 0\nframes = 2\nrepeats = 1\n%s\n[run]\ncounters =\n' "$5" |
        sed "s|^plugin = .*|plugin = $bad_ids\nmethod = $2|" > "$tmp/cfg/$1.ini"
    "$cdlab" run --quiet --output "$tmp/out" --run-id r "$tmp/cfg/$1.ini" >/dev/null 2>"$tmp/err"
    rc=$?
    want="point 0: method $2 (plugin $bad_ids) reported"
    if [ "$rc" -ne 1 ] || ! grep -qF -- "$want" "$tmp/err" || ! grep -qF -- "$4, the first $3: expected" "$tmp/err"; then
        echo "FAIL $1: exit $rc, expected 1 and '$want ... $4, the first $3': $(cat "$tmp/err")"; fail=1
    else
        echo "ok $1 -> $(cat "$tmp/err")"
    fi
}
bad_ids_run bad_ids_cubes plugin_bad_ids "(0, 4294967280)" "40 cubes" \
    "$(printf '[scene]\ncubes = 40\n[method]\nplugin = ')"
bad_ids_run bad_ids_parts plugin_bad_ids_parts "(0, 40)" "40 cubes" \
    "$(printf '[scene]\ncubes = 40\n[method]\nplugin = \nthreads = 2')"
bad_ids_run bad_ids_bodies plugin_bad_ids "(0, 4294967280)" "30 bodies" \
    "$(printf 'kind = bodies\n[scene]\nbodies = 30\n[bodies]\nmeshes = icosphere:80\n[method]\nplugin = \nhierarchy = obb')"
bad_ids_run bad_ids_max_fps plugin_bad_ids_parts "(0, 50)" "50 cubes" \
    "$(printf 'kind = max_fps\n[search]\nstart = 50\nlimit = 200\n[method]\nplugin = ')"
# cdlab snapshot of such a point fails it the same way (exit 1, no picture), at frame 0 and later.
if command -v gnuplot >/dev/null 2>&1; then
    for frame in 0 2; do
        "$cdlab" snapshot --frame $frame -o "$tmp/bad_snap" "$tmp/cfg/bad_ids_cubes.ini" >/dev/null 2>"$tmp/err"
        rc=$?
        if [ "$rc" -ne 1 ] || ! grep -qF "point 0: method plugin_bad_ids (plugin $bad_ids) reported" "$tmp/err" ||
            [ -e "$tmp/bad_snap.png" ]; then
            echo "FAIL snapshot --frame $frame of bad_ids_cubes: exit $rc: $(cat "$tmp/err")"; fail=1
        else
            echo "ok snapshot --frame $frame of bad_ids_cubes -> $(cat "$tmp/err")"
        fi
    done
fi

# cdlab methods --plugin
"$cdlab" methods --plugin "$good" > "$tmp/methods" 2>&1
grep -q "^example_grid .*(plugin $(cd "$(dirname "$good")" && pwd -P)/" "$tmp/methods" ||
    { echo "FAIL methods --plugin: $(cat "$tmp/methods")"; fail=1; }
"$cdlab" methods --plugin "$abi" > "$tmp/methods" 2>&1
rc=$?
{ [ "$rc" -eq 2 ] && grep -qF "$abi: plugin ABI" "$tmp/methods"; } ||
    { echo "FAIL methods --plugin bad: exit $rc: $(cat "$tmp/methods")"; fail=1; }
"$cdlab" methods --plugin "$param_name" > "$tmp/methods" 2>&1
rc=$?
{ [ "$rc" -eq 2 ] && grep -qF "parameter 'threads' has the name of the key" "$tmp/methods"; } ||
    { echo "FAIL methods --plugin param_key_name: exit $rc: $(cat "$tmp/methods")"; fail=1; }
[ "$fail" -eq 0 ] && echo "ok: 9 bad plugins refused, a good one run and recorded, bad candidates refused"
exit "$fail"
