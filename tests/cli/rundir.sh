#!/bin/sh
# SPDX-License-Identifier: MIT
# The files a config names and the run directory that records them:
# - every path key is relative to the config's directory ([mesh] a, poses_file, [bodies] meshes,
#   [scene] file), whatever the working directory; a file next to the working directory only is
#   not found;
# - a run directory is self-sufficient: meta.ini [inputs] records each file's resolved path and
#   SHA-256, `cdlab snapshot RUN_DIR` works from any directory and refuses a file changed since,
#   and `--resume` refuses to continue with a changed file;
# - `cdlab merge` refuses a shard whose CSVs are not what its run wrote (meta.ini [files]): a
#   point's frames gone, 2 of 3 frames, half a row, a changed value, no record.
# usage: rundir.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/cfg" "$tmp/work" "$tmp/far/away"
cd "$tmp/work" || exit 1

# ---------------------------------------------------------------------------------------------
# Config-relative paths, run from another directory.
printf 'OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n' >"$tmp/cfg/tet.off"
"$cdlab" poses --poses 3 "$tmp/cfg/poses.csv" >/dev/null || fail "cdlab poses"
cat >"$tmp/cfg/scene.csv" <<'CSV'
# world=10
id,cx,cy,cz,qw,qx,qy,qz,hx,hy,hz
0,1,1,1,1,0,0,0,0.5,0.5,0.5
1,1.5,1,1,1,0,0,0,0.5,0.5,0.5
2,5,5,5,1,0,0,0,0.5,0.5,0.5
CSV
common='[run]
counters =
pin = off
cpu = -1'
printf '[experiment]\nname = mesh_rel\nkind = mesh\nwarmup = 0\nframes = 1\nrepeats = 1\n[mesh]\na = tet.off\nb = icosphere:80\nposes_file = poses.csv\n%s\n' "$common" >"$tmp/cfg/mesh.ini"
printf '[experiment]\nname = bodies_rel\nkind = bodies\nwarmup = 0\nframes = 2\nrepeats = 1\n[scene]\nbodies = 20\n[bodies]\nmeshes = tet.off, box\n%s\n' "$common" >"$tmp/cfg/bodies.ini"
printf '[experiment]\nname = scene_rel\nwarmup = 0\nframes = 2\nrepeats = 1\n[scene]\nfile = scene.csv\n%s\n' "$common" >"$tmp/cfg/scene.ini"
for k in mesh bodies scene; do
    "$cdlab" run --quiet --output out --run-id r "../cfg/$k.ini" >/dev/null 2>err.txt ||
        fail "$k: a config-relative file, run from another directory: $(cat err.txt)"
    d=out/${k}_rel/r
    [ -f "$d/meta.ini" ] || fail "$k: no complete run"
    grep -q "^count = [1-9]" "$d/meta.ini" || fail "$k: meta.ini [inputs] records no file"
done
for f in tet.off poses.csv; do
    sha=$(sha256sum "$tmp/cfg/$f" | cut -d' ' -f1)
    grep -q "^i[0-9]*_sha256 = $sha$" out/mesh_rel/r/meta.ini || fail "mesh: [inputs] lacks $f's SHA-256 $sha"
    grep -q "^i[0-9]*_path = $(cd "$tmp/cfg" && pwd -P)/$f$" out/mesh_rel/r/meta.ini || fail "mesh: [inputs] lacks $f's path"
done
echo "ok: [mesh] a, poses_file, [bodies] meshes, [scene] file resolve against the config's directory; meta.ini [inputs] records them"
# A file beside the working directory only is not the config's.
cp "$tmp/cfg/tet.off" here.off
printf '[experiment]\nname = cwd\nkind = mesh\n[mesh]\na = here.off\n' >"$tmp/cfg/cwd.ini"
"$cdlab" run --quiet --output out "../cfg/cwd.ini" >/dev/null 2>err.txt
rc=$?
[ "$rc" -eq 2 ] && grep -q "cwd.ini:5: mesh a: \.\./cfg/here\.off: cannot open" err.txt && [ ! -e out/cwd ] ||
    fail "a mesh beside the working directory: exit $rc: $(cat err.txt)"
echo "ok: a mesh file beside the working directory is not found: $(cat err.txt)"

# ---------------------------------------------------------------------------------------------
# The run directory on its own: snapshot from elsewhere, a changed input refused.
run=$tmp/work/out/scene_rel/r
if command -v gnuplot >/dev/null 2>&1; then
    (cd "$tmp/far/away" && "$cdlab" snapshot "$run" -o snap >/dev/null 2>"$tmp/snap.err") ||
        fail "snapshot RUN_DIR from another directory: $(cat "$tmp/snap.err")"
    [ -s "$tmp/far/away/snap.png" ] || fail "snapshot: no picture"
    echo "ok: cdlab snapshot RUN_DIR from another directory reads the scene file the run read"
fi
cp "$tmp/cfg/scene.csv" scene.bak
echo '3,8,8,8,1,0,0,0,0.5,0.5,0.5' >>"$tmp/cfg/scene.csv"
(cd "$tmp/far/away" && "$cdlab" snapshot "$run" -o snap2 >/dev/null 2>"$tmp/snap.err")
rc=$?
[ "$rc" -eq 2 ] && grep -q "scene.csv changed since the run" "$tmp/snap.err" && [ ! -e "$tmp/far/away/snap2.png" ] ||
    fail "snapshot with a changed scene file: exit $rc: $(cat "$tmp/snap.err")"
echo "ok: snapshot RUN_DIR refuses a changed input: $(cat "$tmp/snap.err")"
cp scene.bak "$tmp/cfg/scene.csv"

# --resume with a changed input: an incomplete run (its point timed out), the scene changed.
printf '[experiment]\nname = slow\nwarmup = 0\nframes = 10000000\nrepeats = 1\n[scene]\nfile = scene.csv\n%s\npoint_timeout = 0.3\n' "$common" >"$tmp/cfg/slow.ini"
"$cdlab" run --quiet --output out --run-id s ../cfg/slow.ini >/dev/null 2>err.txt
[ $? -eq 1 ] && [ -f out/slow/s/INCOMPLETE ] || fail "slow: expected an incomplete run: $(cat err.txt)"
grep -q "^input $(sha256sum "$tmp/cfg/scene.csv" | cut -d' ' -f1) " out/slow/s/progress.part || fail "progress.part: no input line"
echo '3,8,8,8,1,0,0,0,0.5,0.5,0.5' >>"$tmp/cfg/scene.csv"
"$cdlab" run --quiet --resume --output out --run-id s ../cfg/slow.ini >/dev/null 2>err.txt
rc=$?
[ "$rc" -eq 2 ] && grep -q "cannot continue this run: .*scene.csv changed since the run started" err.txt ||
    fail "--resume with a changed scene file: exit $rc: $(cat err.txt)"
echo "ok: --resume refuses a changed input: $(cat err.txt)"
cp scene.bak "$tmp/cfg/scene.csv"
"$cdlab" run --quiet --resume --output out --run-id s ../cfg/slow.ini >/dev/null 2>err.txt
rc=$?
[ "$rc" -eq 1 ] && grep -q "point 0: it ran past \[run\] point_timeout" err.txt ||
    fail "--resume with the scene restored: exit $rc: $(cat err.txt)"
echo "ok: --resume with the same input continues (and times out again)"
# A config whose path holds the marker's "shard: " text: the marker's own shard line decides.
mkdir -p "$tmp/shard: 0/2"
sed 's/^file = scene.csv/file = ..\/..\/cfg\/scene.csv/' "$tmp/cfg/slow.ini" >"$tmp/shard: 0/2/c.ini"
"$cdlab" run --quiet --output out --run-id odd "$tmp/shard: 0/2/c.ini" >/dev/null 2>err.txt
[ $? -eq 1 ] && [ -f out/slow/odd/INCOMPLETE ] || fail "odd path: expected an incomplete run: $(cat err.txt)"
"$cdlab" run --quiet --resume --output out --run-id odd "$tmp/shard: 0/2/c.ini" >/dev/null 2>err.txt
rc=$?
[ "$rc" -eq 1 ] && grep -q "point 0: it ran past \[run\] point_timeout" err.txt ||
    fail "--resume of a config under 'shard: 0/2/': exit $rc: $(cat err.txt)"
echo "ok: --resume of a config whose path holds 'shard: ' continues"

# A resumed run keeps the earlier attempt's warnings (each once), and refuses other SIMD paths: a
# small point done with a warning (cv_warn 1e-9), then a large one that times out.
printf '[experiment]\nname = two\nwarmup = 0\nframes = 20000\nrepeats = 1\n[scene]\ncubes = 10, 400000\n%s\npoint_timeout = 1\ncv_warn = 1e-9\n' "$common" >two.ini
"$cdlab" run --quiet --output out --run-id two two.ini >/dev/null 2>err.txt
[ $? -eq 1 ] && grep -q "^done 0 " out/two/two/progress.part && grep -q "^warn point 0 (cubes=10)" out/two/two/progress.part ||
    fail "two: expected point 0 done with a warning: $(cat err.txt)"
# The build as compiled in, not the source checkout's state, which a commit changes under a
# requeued job with the binary unchanged.
grep -q '^same build_commit ' out/two/two/progress.part && ! grep -q '^same git_' out/two/two/progress.part ||
    fail "progress.part's same lines: $(grep '^same' out/two/two/progress.part)"
CDLAB_NO_AVX2=1 "$cdlab" run --quiet --resume --output out --run-id two two.ini >/dev/null 2>err.txt
rc=$?
[ "$rc" -eq 2 ] && grep -q "cannot continue this run: its simd was .* this cdlab's is sse2 (CDLAB_NO_AVX2 set)" err.txt ||
    fail "--resume on other SIMD paths: exit $rc: $(cat err.txt)"
echo "ok: --resume refuses other SIMD paths: $(cat err.txt)"
"$cdlab" run --quiet --resume --output out --run-id two two.ini >/dev/null 2>err.txt
rc=$?
[ "$rc" -eq 1 ] && [ "$(grep -c '^w[0-9]* = point 0 (cubes=10): frame_ms CV' out/two/two/meta.ini.part)" = 1 ] ||
    fail "--resume: the first attempt's warning is not in meta.ini.part once: exit $rc: $(cat out/two/two/meta.ini.part)"
echo "ok: --resume keeps the first attempt's warnings, once"
# A warning that names a path with a line break (--cpu on a pin = off config under such a
# directory) is one journal line: the resume neither splits nor repeats it.
nl='
'
mkdir "odd${nl}dir" && cp two.ini "odd${nl}dir/two.ini"
"$cdlab" run --quiet --output out --run-id nl --cpu 0 "odd${nl}dir/two.ini" >/dev/null 2>err.txt
"$cdlab" run --quiet --resume --output out --run-id nl --cpu 0 "odd${nl}dir/two.ini" >/dev/null 2>err.txt
[ "$(grep -c '^w[0-9]* = --cpu ignored' out/two/nl/meta.ini.part)" = 1 ] &&
    grep -q '^w[0-9]* = --cpu ignored: odd dir/two.ini has' out/two/nl/meta.ini.part &&
    [ "$(sed -n '/^\[warnings\]/,/^$/p' out/two/nl/meta.ini.part | grep -vc '^\(\[warnings\]\|count = .*\|w[0-9]* = .*\|\)$')" = 0 ] ||
    fail "a warning with a line break after --resume: $(sed -n '/^\[warnings\]/,/^$/p' out/two/nl/meta.ini.part)"
echo "ok: a warning naming a path with a line break stays one line through --resume"

# ---------------------------------------------------------------------------------------------
# merge: a shard's CSVs as its run wrote them, or a refusal.
printf '[experiment]\nname = sw\nwarmup = 0\nframes = 3\nrepeats = 1\n[scene]\ncubes = 50, 60, 70, 80\n%s\n' "$common" >sw.ini
for i in 0 1; do
    "$cdlab" run --quiet --output out --run-id "s$i" --shard "$i/2" sw.ini >/dev/null 2>err.txt || fail "shard $i: $(cat err.txt)"
done
"$cdlab" merge --quiet out/sw/s0 out/sw/s1 -o merged >/dev/null 2>err.txt || fail "merge: $(cat err.txt)"
grep -q "^frames_sha256 = $(sha256sum merged/frames.csv | cut -d' ' -f1)$" merged/meta.ini || fail "merged [files]"
echo "ok: merge of two whole shards; the merged meta.ini [files] has its own digests"
# bad NAME EXPECTED EDIT: shard 0 copied and edited by EDIT (a shell command run in the copy),
# merge exits 2 saying EXPECTED and writes nothing.
bad() {
    rm -rf bad_shard out_bad
    cp -r out/sw/s0 bad_shard
    (cd bad_shard && eval "$3")
    "$cdlab" merge bad_shard out/sw/s1 -o out_bad >/dev/null 2>err.txt
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "$2" err.txt && [ ! -e out_bad ] || fail "$1: exit $rc: $(cat err.txt)"
    echo "ok: merge refuses $1: $(cat err.txt)"
}
p=$(sed -n '2s/,.*//p' out/sw/s0/frames.csv)
bad "a point without its frames" "frames.csv: [0-9]* bytes, but its run wrote" "grep -v '^$p,' frames.csv >f && mv f frames.csv"
bad "2 of 3 frames" "frames.csv: [0-9]* bytes, but its run wrote" "sed -i '\$d' frames.csv"
bad "half a row" "frames.csv: [0-9]* bytes, but its run wrote" "head -c -9 frames.csv >f && mv f frames.csv"
bad "a changed value (same size)" "summary.csv: SHA-256 .*, but its run wrote .*changed since" \
    "sed -i '2s/naive/naivf/' summary.csv"
bad "a shard without [files]" "meta.ini: no \[files\]" "sed -i '/^\[files\]/,\$d' meta.ini"
