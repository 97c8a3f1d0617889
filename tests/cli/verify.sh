#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab verify` on plugins: the example's grid passes; its twin that drops pairs at cell borders
# fails (exit 1) with a reproducer that `cdlab run` measures beside naive with fewer pairs; a
# plugin's hierarchy variant passes against brute force; bad usage exits 2. The verdict names the
# scene its reproducer holds; a method that breaks only the candidate contract (the pair set stays
# naive's) fails with a reproducer that says so instead of promising different pair counts. Methods
# whose candidates name objects the scene has not fail as bad candidates, never read.
# A plugin's method sees every scene whatever it says of itself (peer:, untested). What the check
# needs from the machine ($TMPDIR, --out) is checked before any scene runs (exit 2); --out is made
# with its parents; naive alone is nothing to verify (exit 2). A plugin whose path is no config word
# (a comma, a space, a #) gets a reproducer cdlab run accepts. SIGINT or SIGTERM leaves no directory
# for the traces under $TMPDIR, but the traces verify kept and named stay.
# The contract is checked on the path frames take (candidates_part), a coherent frame's move list
# too (and cdlab run refuses a bad one); a reproducer holds the parameter values verify ran with and
# says what its failure was; a method that crashes fails alone, with the signal and its scene.
# usage: verify.sh CDLAB GOOD.so BORDER_BUG.so VARIANT.so WRONG_ABI.so NARROW_CANDIDATES.so BAD_IDS.so
#        PARAM_KEY_NAME.so PEER_UNTESTED.so BAD_CONTRACT.so
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
cdlab=$(abs "$1") good=$(abs "$2") bug=$(abs "$3") variant=$(abs "$4") abi=$(abs "$5") narrow=$(abs "$6") bad_ids=$(abs "$7") param_name=$(abs "$8") peer=$(abs "$9")
contract=$(abs "${10}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export TMPDIR="$tmp"  # the traces a failing run keeps
fail=0

"$cdlab" verify --plugin "$good" --scenes 300 >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 0 ] && grep -q '^ok    example_grid ' out && grep -q '^verify: scene 300/300 (100%)' err; } ||
    { echo "FAIL good: exit $rc: $(cat out err)"; fail=1; }

"$cdlab" verify --plugin "$bug" --scenes 300 --out repro/made/here >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 1 ] && grep -q '^FAIL  example_grid_border_bug .* pairs missed' out &&
  [ -s repro/made/here/example_grid_border_bug/scene.csv ] &&
  [ -s repro/made/here/example_grid_border_bug/repro.ini ]; } ||
    { echo "FAIL border bug: exit $rc, expected 1 and a reproducer: $(cat out err)"; fail=1; }
if "$cdlab" run --quiet --output res --run-id r repro/made/here/example_grid_border_bug/repro.ini >/dev/null 2>err; then
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next } { print $col["method"], $col["pairs_mean"] }' \
        res/verify_example_grid_border_bug/r/summary.csv > pairs
    cat pairs
    naive=$(awk '$1 == "naive" { print $2 }' pairs)
    broken=$(awk '$1 == "example_grid_border_bug" { print $2 }' pairs)
    awk -v a="$naive" -v b="$broken" 'BEGIN { exit !(a > b) }' ||
        { echo "FAIL reproducer: naive $naive pairs, the broken grid $broken: expected fewer"; fail=1; }
else
    echo "FAIL reproducer: cdlab run failed: $(cat err)"; fail=1
fi

# The verdict's scene is the reproducer's: "reproducer: scene S frame F" when it is not the first
# failure, else the first failure's.
pairs_means() {  # SUMMARY: how many different pairs_mean its rows hold
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next } { print $col["pairs_mean"] }' "$1" | sort -u | wc -l
}
same_scene() {  # OUT METHOD
    verdict=$(grep "^FAIL  $2 " "$1" | sed -n 's/.*first failure: \(scene [0-9]* frame [0-9]*\)\(; reproducer: \(scene [0-9]* frame [0-9]*\)\)\{0,1\}$/\1|\3/p')
    named=${verdict#*|}
    [ -n "$named" ] || named=${verdict%|*}
    repro=$(sed -n 's/.*reproduce: .*(\(scene [0-9]* frame [0-9]*\),.*/\1/p' "$1")
    [ -n "$named" ] && [ "$named" = "$repro" ] ||
        { echo "FAIL $2: the verdict names '$named', the reproducer '$repro'"; fail=1; }
}
same_scene out example_grid_border_bug

# Only the candidate contract broken: the pairs are naive's, and the reproducer says so.
"$cdlab" verify --plugin "$narrow" --scenes 100 --out repro2 >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 1 ] && grep -q '^FAIL  plugin_narrow_candidates .* 0 of [0-9]* pairs missed, 0 extra' out &&
  grep -q 'naive and plugin_narrow_candidates both find [0-9]* pairs: a candidate-contract failure' out &&
  grep -q '^; Both find the same' repro2/plugin_narrow_candidates/repro.ini &&
  ! grep -q 'differ' repro2/plugin_narrow_candidates/repro.ini; } ||
    { echo "FAIL candidate contract: exit $rc: $(cat out err repro2/plugin_narrow_candidates/repro.ini)"; fail=1; }
same_scene out plugin_narrow_candidates
if "$cdlab" run --quiet --output res --run-id n repro2/plugin_narrow_candidates/repro.ini >/dev/null 2>err; then
    n=$(pairs_means res/verify_plugin_narrow_candidates/n/summary.csv)
    [ "$n" = 1 ] || { echo "FAIL candidate contract: cdlab run of the reproducer gave different pairs_mean"; fail=1; }
else
    echo "FAIL candidate-contract reproducer: cdlab run failed: $(cat err)"; fail=1
fi

# Candidates naming no pair of the scene's cubes ((0, 0xFFFFFFF0) serially; (0, n) and (1, 1) in
# parts): dropped before the narrow step reads the scene, counted as bad candidates, not as extra
# pairs read from past the arrays; the reproducer says cdlab run refuses the point.
"$cdlab" verify --plugin "$bad_ids" --scenes 30 --out repro3 >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 1 ] &&
  grep -q '^FAIL  plugin_bad_ids  .* 0 of [0-9]* pairs missed, 0 extra, 0 duplicated candidates, [1-9][0-9]* bad' out &&
  grep -q '^FAIL  plugin_bad_ids_parts .* 0 of [0-9]* pairs missed, 0 extra, 0 duplicated candidates, [1-9][0-9]* bad' out &&
  grep -q 'plugin_bad_ids reports candidates naming no pair of the scene.s cubes, the first (0, 4294967280): cdlab run refuses the point' out; } ||
    { echo "FAIL bad ids: exit $rc: $(cat out err)"; fail=1; }

# bad_contract.c: one method per broken part of the contract, and one that crashes (no core file).
ulimit -c 0
mkdir crash_tmp
TMPDIR="$tmp/crash_tmp" "$cdlab" verify --plugin "$contract" --scenes 40 --out repro5 >out 2>err
rc=$?
cat out
# The parts' duplicates, though candidates() is naive's.
{ [ "$rc" -eq 1 ] &&
  grep -q '^FAIL  plugin_parts_dups .* 0 of [0-9]* pairs missed, 0 extra, [1-9][0-9]* duplicated candidates' out; } ||
    { echo "FAIL candidates_part unchecked: exit $rc: $(cat out err)"; fail=1; }
# Coherent frames whose move list names no slots of the scene: failures, not a crash.
for m in plugin_moves_unfilled plugin_moves_range; do
    grep -q "^FAIL  $m .* [1-9][0-9]* coherent frames with a move list naming no slots of the scene" out ||
        { echo "FAIL $m: no bad move list in: $(cat out err)"; fail=1; }
done
# Extra pairs that only the frames before show: the reproducer says so, not "candidate contract".
{ grep -q '^FAIL  plugin_coherent_extra .* 0 of [0-9]* pairs missed, [1-9][0-9]* extra' out &&
  grep -q 'naive and plugin_coherent_extra both find [0-9]* pairs on this frame alone: the [0-9]* extra pair(s) needed the frames before it' out &&
  grep -q '^; equal pairs_mean: [0-9]* extra pair(s)\. What shows it:' repro5/plugin_coherent_extra/repro.ini &&
  ! grep -q 'candidate.contract' repro5/plugin_coherent_extra/repro.ini; } ||
    { echo "FAIL coherent extra pairs: $(cat out repro5/plugin_coherent_extra/repro.ini)"; fail=1; }
# The crash: a verdict naming the signal and the scene, in its place among the others.
{ grep -q '^FAIL  plugin_crash  *crashed: SIGABRT (.*) on scene [0-9][0-9]*$' out &&
  [ "$(grep -E '^(ok|FAIL)  ' out | awk '{ print $2 }' | tr '\n' ' ')" = \
    "plugin_parts_dups plugin_depth plugin_moves_unfilled plugin_moves_range plugin_coherent_extra plugin_crash " ]; } ||
    { echo "FAIL crash: exit $rc: $(cat out err)"; fail=1; }
# A parameter named like a scene setting, narrower (depth 0..2): the reproducer holds the depth
# verify ran it with (its default where the scene's was out of range), and cdlab run shows the
# lost pair.
if "$cdlab" run --quiet --output res --run-id depth repro5/plugin_depth/repro.ini >/dev/null 2>err; then
    n=$(pairs_means res/verify_plugin_depth/depth/summary.csv)
    [ "$n" = 2 ] || { echo "FAIL plugin_depth reproducer: equal pairs_mean: $(cat res/verify_plugin_depth/depth/summary.csv)"; fail=1; }
else
    echo "FAIL plugin_depth reproducer: cdlab run refused it: $(cat err repro5/plugin_depth/repro.ini)"; fail=1
fi
# The crash alone: exit 1, on several workers too, and nothing left under $TMPDIR.
for threads in 1 2; do
    TMPDIR="$tmp/crash_tmp" "$cdlab" verify --plugin "$contract" --method plugin_crash --scenes 40 \
        --threads $threads --out repro6 >out 2>err
    rc=$?
    { [ "$rc" -eq 1 ] && grep -q '^FAIL  plugin_crash  *crashed: SIGABRT (.*) on \(one of \)\{0,1\}scenes\{0,1\} [0-9]' out &&
      grep -q '^cdlab verify: FAILED' out && [ "$(ls -A crash_tmp | grep -v '^cdlab-verify-.*' | wc -l)" = 0 ] &&
      [ "$(ls -A crash_tmp | wc -l)" = 1 ]; } ||
        { echo "FAIL crash alone, --threads $threads: exit $rc: $(cat out err; ls -A crash_tmp)"; fail=1; }
done
# cdlab run refuses a point whose coherent frame's move list is bad, with what was wrong.
for case in "plugin_moves_unfilled|left its move list unfilled" "plugin_moves_range|named slot 40 in its move list"; do
    m=${case%%|*} want=${case#*|}
    printf '[experiment]\nwarmup = 0\nframes = 3\nrepeats = 1\n[scene]\ncubes = 40\n[method]\nplugin = %s\nmethod = %s\n[run]\ncounters =\n' \
        "$contract" "$m" > "$m.ini"
    "$cdlab" run --quiet --output res --run-id "$m" "$m.ini" >/dev/null 2>err
    rc=$?
    { [ "$rc" -eq 1 ] && grep -qF "method $m (plugin $contract) reported a coherent frame (update_coherent returned 1) but $want" err; } ||
        { echo "FAIL cdlab run $m: exit $rc, expected 1 and '$want': $(cat err)"; fail=1; }
done

# A plugin with a broad phase and a hierarchy variant: both verified (the variant against brute force,
# at its default sphere_layers = 2 and the ends of its range, 0 and 32: 3 x 128 queries).
"$cdlab" verify --plugin "$variant" --scenes 100 --poses 8 >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 0 ] && grep -q '^ok    plugin_naive ' out && grep -q '^ok    plugin_sphere_obb  *384 queries at 3 parameter setting(s), .* triangle pairs' out; } ||
    { echo "FAIL variant plugin: exit $rc: $(cat out err)"; fail=1; }

for args in "--method no_such_method" "--scenes many" "--threads 0" "--plugin $param_name" "--plugin $abi"; do
    # shellcheck disable=SC2086
    "$cdlab" verify $args >out 2>err
    rc=$?
    [ "$rc" -eq 2 ] || { echo "FAIL '$args': exit $rc, expected 2: $(cat out err)"; fail=1; }
done
# The last one, the bad plugin, says why.
grep -q "plugin ABI 2" err || { echo "FAIL: a bad --plugin without its reason: $(cat err)"; fail=1; }
[ -z "$(ls -A repro/made/here | grep -v example_grid_border_bug)" ] &&
    [ "$(ls -A repro)" = made ] || { echo "FAIL: stray reproducers: $(ls -R repro)"; fail=1; }

# A plugin's method that calls itself a peer and untested: every scene, threaded ones too.
"$cdlab" verify --plugin "$peer" --method plugin_naive --scenes 24 >out 2>err
rc=$?
cat out
{ [ "$rc" -eq 0 ] && grep -q '^ok    plugin_naive  *24 scenes, ' out; } ||
    { echo "FAIL peer-described plugin: exit $rc, expected all 24 scenes: $(cat out err)"; fail=1; }

# Before any scene runs: no directory for the traces under $TMPDIR, an --out under a file, naive
# alone; each exits 2 and checks nothing.
touch afile
for case in "TMPDIR=$tmp/none|--plugin $good|cannot create a directory for the traces" \
            "|--plugin $good --out afile/x|--out afile/x: afile: not a directory" \
            "|--method naive|nothing to verify"; do
    envs=${case%%|*} rest=${case#*|}
    args=${rest%%|*} want=${rest#*|}
    # shellcheck disable=SC2086
    env $envs "$cdlab" verify $args --scenes 3 >out 2>err
    rc=$?
    { [ "$rc" -eq 2 ] && grep -qF -- "$want" err && ! grep -q '^verify: scene' err && ! grep -q '^ok' out; } ||
        { echo "FAIL '$envs $args': exit $rc, expected 2 with '$want' before any scene: $(cat out err)"; fail=1; }
done
# A plugin under a directory whose name has a comma, a space and a # (no config word: a comma
# splits values, the others are no word): the reproducer names it through a link beside repro.ini,
# which cdlab run accepts and loads, in the reproducer's directory and from elsewhere.
mkdir 'odd, dir #1'
cp "$bug" 'odd, dir #1/'
"$cdlab" verify --plugin "odd, dir #1/$(basename "$bug")" --scenes 30 --out 'odd out' >out 2>err
rc=$?
ini='odd out/example_grid_border_bug/repro.ini'
{ [ "$rc" -eq 1 ] && [ -s "$ini" ]; } || { echo "FAIL odd plugin path: exit $rc, expected 1 and a reproducer: $(cat out err)"; fail=1; }
(cd 'odd out/example_grid_border_bug' && "$cdlab" run --dry-run repro.ini >/dev/null 2>../../err) ||
    { echo "FAIL odd plugin path: cdlab run --dry-run refuses the reproducer: $(cat err "$ini")"; fail=1; }
if ! "$cdlab" run --quiet --output res --run-id odd "$ini" >/dev/null 2>err ||
    ! grep -qxF "p1_path = $(pwd -P)/odd, dir #1/$(basename "$bug")" res/verify_example_grid_border_bug/odd/meta.ini; then
    echo "FAIL odd plugin path: cdlab run of the reproducer: $(cat err "$ini")"; fail=1
fi

# A terminating signal leaves no directory for the traces under $TMPDIR: SIGINT while verify checks
# scenes (the directory still empty), SIGTERM in the traces, once the recorded clusters and
# Broadmark files are there, while verify waits for the lock of a simulation's trace, held here as
# a process baking it would hold it (the simulations' keys those of the traces kept above; verify
# stopped (SIGSTOP) while the locks are taken; built without Bullet, where no trace waits: while it
# checks scenes). An interrupted verify makes no --out.
keys=$(for f in "$tmp"/cdlab-verify-*/simulate-*.trace; do [ -f "$f" ] && basename "$f" .trace; done |
    sed 's/^simulate-//' | sort -u)
mkdir sig
# stop_verify SIGNAL SCENES [KEY...]: start verify of the good grid on SCENES scenes, wait until
# its directory is there (with KEYs: stop it, take the KEYs' locks, let it go on and wait until its
# first traces are there), and send SIGNAL; verify must end by it, and leave nothing under $TMPDIR.
# 0, or 1 after saying why.
stop_verify() {
    sig=$1 scenes=$2
    shift 2
    # A background job of a shell without job control starts with SIGINT ignored: reset it.
    TMPDIR="$tmp/sig" env --default-signal=INT "$cdlab" verify --plugin "$good" --scenes "$scenes" \
        --out sig_out >/dev/null 2>err &
    pid=$!
    n=0
    until [ -n "$(ls -A sig)" ] || [ $n -ge 200 ]; do sleep 0.05; n=$((n + 1)); done
    dir=$(ls -d sig/cdlab-verify-* 2>/dev/null)
    [ -d "$dir" ] || { kill -9 $pid; echo "FAIL SIG$sig: verify made no directory under \$TMPDIR: $(cat err)"; return 1; }
    what="while it checks scenes"
    locker=""
    if [ $# -gt 0 ]; then
        kill -s STOP $pid
        for k in "$@"; do set -- "$@" flock "$dir/simulate-$k.trace.lock"; shift; done
        rm -f locked release
        "$@" sh -c 'touch locked; while [ ! -e release ]; do sleep 0.05; done' &
        locker=$!
        until [ -e locked ] || [ $n -ge 400 ]; do sleep 0.05; n=$((n + 1)); done
        # Held before verify reached the traces, else it may have baked them already.
        if [ ! -e locked ] || grep -q "replaying traces" err; then
            kill -9 $pid; touch release; wait $locker
            echo "FAIL SIG$sig: the traces' locks not held before verify replayed them: $(cat err)"; return 1
        fi
        kill -s CONT $pid
        until { [ -s "$dir/clusters.trace" ] && [ -s "$dir/ground.aabbs" ]; } || [ $n -ge 1200 ]; do
            sleep 0.05
            n=$((n + 1))
        done
        what="in its traces ($(cd "$dir" && echo *))"
    fi
    kill -s "$sig" $pid
    wait $pid
    rc=$?
    [ -z "$locker" ] || { touch release; wait $locker; }
    case $sig in INT) want=130 ;; TERM) want=143 ;; esac
    [ "$rc" -eq "$want" ] || { echo "FAIL SIG$sig $what: exit $rc, expected $want: $(cat err)"; return 1; }
    [ -z "$(ls -A sig)" ] || { echo "FAIL SIG$sig $what: left under \$TMPDIR: $(ls -AR sig)"; return 1; }
    echo "ok: verify stopped by SIG$sig $what leaves nothing under \$TMPDIR"
}
stop_verify INT 100000000 || fail=1
rm -rf sig/*
if command -v flock >/dev/null 2>&1 && [ -n "$keys" ]; then
    # shellcheck disable=SC2086
    stop_verify TERM 500 $keys || fail=1
else
    stop_verify TERM 100000000 || fail=1
fi
[ ! -e sig_out ] || { echo "FAIL: an interrupted verify made its --out: $(ls -AR sig_out)"; fail=1; }

# The traces verify keeps and names when a method fails are kept: a signal in the hierarchy check
# after the verdict (on stdout by then) leaves them, and the reproducer.
rm -rf sig/*
TMPDIR="$tmp/sig" env --default-signal=INT "$cdlab" verify --plugin "$bug" --method example_grid_border_bug \
    --method obb --scenes 30 --poses 100000 --out sig_out >out 2>err &
pid=$!
n=0
until grep -q "the traces are kept in" out || [ $n -ge 400 ]; do sleep 0.05; n=$((n + 1)); done
kill -s INT $pid
wait $pid
rc=$?
kept=$(sed -n 's/^ *the traces are kept in //p' out)
{ [ "$rc" -eq 130 ] && [ -n "$kept" ] && [ -s "$kept/clusters.trace" ] &&
  [ -s sig_out/example_grid_border_bug/repro.ini ]; } ||
    { echo "FAIL: SIGINT after verify kept its traces: exit $rc, expected 130, the traces '$kept' and the reproducer kept: $(cat out err; ls -AR sig sig_out)"; fail=1; }

[ "$fail" -eq 0 ] && echo "ok: verify passes the grid, fails its broken twin with a reproducer, checks a variant"
exit "$fail"
