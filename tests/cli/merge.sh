#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab merge` refuses, with exit 2 and writing nothing, shards it cannot merge as one run:
# - a shard file that is no regular file or over its limit (frames.csv a FIFO or /dev/zero,
#   config.ini /dev/zero, files over 1 GiB and 1 MiB), refused before a byte is read (each merge
#   under `timeout`, so a hang or an endless read fails the test instead of stalling it);
# - a shard whose config.ini is not the config its meta.ini [config] sha256 records (edited since);
# - shards whose meta.ini [inputs] list one path with different SHA-256 (a poses file rewritten
#   between them, a derived trace), or whose [plugins] differ;
# - a damaged [shard] points range, plan_points or count, refused before merge allocates by it
#   (under ulimit -v where the build allows it);
# - shards run on different SIMD paths (meta.ini [machine] simd), as --resume refuses them.
# Shards of one build whose checkouts differed ([cdlab] git_commit, git_dirty) merge, as --resume
# continues them, with each shard's commit in [merge].
# And when RUN_DIR cannot be made or written (a name too long; a full disk, where a tmpfs can be
# mounted), the parent directories merge made go again. An interrupted merge (SIGINT, SIGTERM)
# leaves nothing; a killed one (SIGKILL) leaves a marker that says to merge again, not to resume.
# usage: merge.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
bg=""
trap '[ -z "$bg" ] || kill -9 "$bg" 2>/dev/null; cli_cleanup' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >t.ini <<'INI'
[experiment]
name = t
seed = 42
warmup = 1
frames = 5
repeats = 1
[scene]
cubes = 100, 200
[method]
method = naive, grid
[run]
pin = off
cpu = -1
counters =
INI
for i in 0 1; do
    "$cdlab" run --quiet --output res --shard $i/2 --run-id s$i t.ini >/dev/null 2>err.txt || fail "shard $i: $(cat err.txt)"
done
s0=res/t/s0 s1=res/t/s1
timeout 60 "$cdlab" merge --quiet $s0 $s1 -o whole >/dev/null 2>err.txt || fail "merge of the whole shards: $(cat err.txt)"

# An address-space limit for the refusals, where the program starts under one (a sanitizer build
# does not): a merge that would allocate by a damaged number fails at once instead of swapping.
vlim=unlimited
for l in 524288 1048576 2097152; do
    sh -c "ulimit -v $l && \"\$0\" version" "$cdlab" >/dev/null 2>&1 && { vlim=$l; break; }
done
# refuse NAME EXPECTED SHARD...: merge exits 2 (within the timeout), says EXPECTED and writes
# nothing.
refuse() {
    name=$1 expect=$2
    shift 2
    rm -rf bad
    # at most ~100 MB written: a merge that copies /dev/zero dies of SIGXFSZ, not of a full disk
    (ulimit -f 200000 && ulimit -v $vlim && timeout 20 "$cdlab" merge "$@" -o bad >/dev/null 2>err.txt)
    rc=$?
    [ $rc -ne 124 ] || fail "$name: merge still running after 20 s (a hang or an endless read)"
    [ $rc -eq 2 ] || fail "$name: merge exited $rc, expected 2: $(cat err.txt)"
    grep -qF -- "$expect" err.txt || fail "$name: message lacks '$expect': $(cat err.txt)"
    [ ! -e bad ] || fail "$name: merge left bad/ behind: $(ls -A bad)"
    echo "ok: refuses $name: $(cat err.txt)"
}
# copy NAME FROM: a fresh copy of shard FROM at NAME.
copy() {
    rm -rf "$1"
    cp -r "$2" "$1"
}

# ---------------------------------------------------------------------------------------------
# Files that are no regular file, or too large: refused before a byte is read.
copy fifo $s1 && rm fifo/frames.csv && mkfifo fifo/frames.csv
refuse "frames.csv a FIFO" "fifo/frames.csv: not a regular file (a pipe)" $s0 fifo
copy zero $s1 && ln -sf /dev/zero zero/frames.csv
refuse "frames.csv /dev/zero" "zero/frames.csv: not a regular file (a character device)" $s0 zero
copy zero $s1 && ln -sf /dev/zero zero/summary.csv
refuse "summary.csv /dev/zero" "zero/summary.csv: not a regular file (a character device)" $s0 zero
copy zero $s0 && ln -sf /dev/zero zero/config.ini
refuse "config.ini /dev/zero" "zero/config.ini: not a regular file (a character device)" zero $s1
copy fifo $s0 && rm fifo/config.ini && mkfifo fifo/config.ini
refuse "config.ini a FIFO" "fifo/config.ini: not a regular file (a pipe)" fifo $s1
# Sparse files: over the limits without writing them.
copy huge $s1 && truncate -s 1025M huge/frames.csv || { echo "skip: no sparse files"; exit 77; }
refuse "frames.csv over 1 GiB" "huge/frames.csv: 1074790400 bytes, larger than the 1 GiB limit" $s0 huge
copy huge $s0 && truncate -s 2M huge/config.ini
refuse "config.ini over 1 MiB" "huge/config.ini: 2097152 bytes, larger than the 1 MiB limit" huge $s1

# ---------------------------------------------------------------------------------------------
# config.ini is the config its run measured: the SHA-256 meta.ini [config] records, in every shard
# (the merged run's config.ini is shard 0's). An edit of another shard's copy is refused too.
copy edited $s0 && sed -i 's/^repeats = 1/repeats = 9/; s/^method = naive, grid/method = sap/' edited/config.ini
refuse "shard 0's config.ini edited" "edited/config.ini: SHA-256 $(sha256sum edited/config.ini | cut -d' ' -f1), but its meta.ini [config] sha256 is $(sed -n 's/^sha256 = //p' $s0/meta.ini)" edited $s1
copy edited $s1 && echo '; a comment' >>edited/config.ini
refuse "shard 1's config.ini edited" "edited/config.ini: SHA-256" $s0 edited
cmp -s whole/config.ini t.ini && [ "$(sed -n 's/^sha256 = //p' whole/meta.ini)" = "$(sha256sum <whole/config.ini | cut -d' ' -f1)" ] ||
    fail "the merged config.ini is not the config its meta.ini records"
echo "ok: the merged config.ini is the config, as its meta.ini [config] sha256 says"

# ---------------------------------------------------------------------------------------------
# The shards read the same input files: the same path with another SHA-256 in two shards (a poses
# file rewritten between them, a derived trace, a plugin) is refused, naming the file, both
# digests and both shards.
cat >mp.ini <<'INI'
[experiment]
name = mp
kind = mesh
seed = 1
warmup = 1
repeats = 1
[method]
hierarchy = obb, aabb, sphere
mode = all_pairs
[mesh]
a = icosphere:80
b = torus:64
poses_file = poses.csv
[run]
pin = off
cpu = -1
counters =
INI
"$cdlab" poses --seed 1 --poses 5 --distance 0.5 poses.csv >/dev/null || fail "poses 1"
sha_a=$(sha256sum poses.csv | cut -c1-12)
"$cdlab" run --quiet --output res --shard 0/2 --run-id s0 mp.ini >/dev/null 2>err.txt || fail "mp shard 0: $(cat err.txt)"
"$cdlab" poses --seed 2 --poses 5 --distance 3 poses.csv >/dev/null || fail "poses 2"
sha_b=$(sha256sum poses.csv | cut -c1-12)
"$cdlab" run --quiet --output res --shard 1/2 --run-id s1 mp.ini >/dev/null 2>err.txt || fail "mp shard 1: $(cat err.txt)"
refuse "a poses file changed between the shards" \
    "different input files: $(pwd -P)/poses.csv has SHA-256 $sha_a... in res/mp/s0, $sha_b... in res/mp/s1" res/mp/s0 res/mp/s1
# derive FROM TO SHA: shard FROM (a cubes run: no input files) copied to TO, its meta.ini
# listing a simulated trace with SHA-256 SHA.
derive() {
    copy "$2" "$1"
    awk -v sha="$3" '/^\[/ { inputs = ($0 == "[inputs]") }
        inputs && $0 == "count = 0" { print "count = 1"; print "i1_path = /cache/simulate-x.trace"; print "i1_bytes = 10";
            print "i1_sha256 = " sha; print "i1_derived = simulate"; next } { print }' "$2/meta.ini" >m && mv m "$2/meta.ini"
}
derive $s0 d0 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
derive $s1 d1 bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
grep -q '^i1_derived = simulate$' d1/meta.ini || fail "the test's derived input is not in d1/meta.ini"
refuse "a derived trace that differs between the shards" \
    "different input files: /cache/simulate-x.trace has SHA-256 aaaaaaaaaaaa... in d0, bbbbbbbbbbbb... in d1 (derived: simulate)" d0 d1
# plugin DIR SHA: a [plugins] section in DIR/meta.ini, the plugin's SHA-256 SHA.
plugin() {
    printf '\n[plugins]\np1_path = /lib/p.so\np1_size = 10\np1_sha256 = %s\np1_name = p\n' "$2" >>"$1/meta.ini"
}
copy p0 $s0 && plugin p0 aaaa
copy p1 $s1 && plugin p1 bbbb
refuse "plugins that differ" "different plugins: p0 has [plugins] p1_sha256 = aaaa, p1 has bbbb" p0 p1
refuse "a plugin in one shard only" "different plugins: p0 has [plugins] p1_path = /lib/p.so, $s1 has (none)" p0 $s1
copy p1 $s1 && plugin p1 aaaa
timeout 20 "$cdlab" merge --quiet p0 p1 -o same >/dev/null 2>err.txt || fail "shards of one plugin: $(cat err.txt)"
derive $s1 d1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
timeout 20 "$cdlab" merge --quiet d0 d1 -o same_trace >/dev/null 2>err.txt || fail "shards of one trace: $(cat err.txt)"
[ "$(grep -c '^i[0-9]*_path = /cache/simulate-x.trace$' same_trace/meta.ini)" = 1 ] ||
    fail "the merged [inputs] does not list the shared trace once: $(sed -n '/^\[inputs\]/,/^$/p' same_trace/meta.ini)"
echo "ok: shards of one plugin and one trace merge; [inputs] lists the trace once"
# [inputs] is read by its iK_path keys: a damaged count is no loop of 10^11 steps.
copy counted $s0 && sed -i '/^\[inputs\]/,/^\[/s/^count = 0$/count = 99999999999/' counted/meta.ini
grep -q '^count = 99999999999$' counted/meta.ini || fail "the test did not damage [inputs] count"
timeout 20 "$cdlab" merge --quiet counted $s1 -o counted_m >/dev/null 2>err.txt
rc=$?
[ $rc -eq 0 ] && [ "$(sed -n '/^\[inputs\]/,/^$/s/^count = //p' counted_m/meta.ini)" = 0 ] ||
    fail "a damaged [inputs] count: exit $rc (124: still running after 20 s): $(cat err.txt)"
echo "ok: a damaged [inputs] count is not followed"

# ---------------------------------------------------------------------------------------------
# The [shard] numbers that size merge's memory are checked before they do: a damaged points line
# (0-99999999999), plan_points or count in every shard (so that they agree) is refused naming
# meta.ini, not an allocation of 800 GB and an abort.
copy dmg $s0 && sed -i 's/^points = .*/points = 0-99999999999/' dmg/meta.ini
refuse "a damaged [shard] points range" "dmg/meta.ini: [shard] points: point 99999999999 is beyond the plan's 4 points" dmg $s1
# damage KEY VALUE: copies d0 and d1 of the shards with [shard] KEY = VALUE.
damage() {
    for i in 0 1; do
        copy d$i res/t/s$i && sed -i "/^\[shard\]/,/^\[/s/^$1 = .*/$1 = $2/" d$i/meta.ini
        grep -q "^$1 = $2\$" d$i/meta.ini || fail "the test did not set $1 = $2"
    done
}
damage plan_points 99999999999
refuse "a damaged [shard] plan_points" "d0/meta.ini: [shard] plan_points: expected a number of points from 1 to 1000000, got '99999999999'" d0 d1
damage count 4000000000
refuse "a damaged [shard] count" "d0/meta.ini: [shard] count: expected a number of shards from 1 to 100000, got '4000000000'" d0 d1
damage index 7
refuse "a [shard] index not below count" "d0/meta.ini: [shard] index: expected a number from 0 to 1 (below count), got '7'" d0 d1

# ---------------------------------------------------------------------------------------------
# One set of SIMD paths, as --resume requires: a shard run with CDLAB_NO_AVX2 beside one without
# is refused (meta.ini [machine] simd says "(CDLAB_NO_AVX2 set)" on every machine).
CDLAB_NO_AVX2=1 "$cdlab" run --quiet --output res --shard 0/2 --run-id sse t.ini >/dev/null 2>err.txt ||
    fail "shard 0 with CDLAB_NO_AVX2: $(cat err.txt)"
refuse "shards on different SIMD paths" "different SIMD paths: res/t/sse has [machine] simd = " res/t/sse $s1
grep -qF "(CDLAB_NO_AVX2 set)" err.txt || fail "the SIMD refusal does not say which paths: $(cat err.txt)"

# ---------------------------------------------------------------------------------------------
# Shards whose checkouts differed when they started (a commit or an edit between a job array's
# tasks, the binary the same: [cdlab] git_commit and git_dirty, which --resume does not compare)
# merge; the merged [cdlab] says they differ and [merge] names each shard's commit.
dirty0=$(sed -n 's/^git_dirty = //p' $s0/meta.ini)
[ "$dirty0" = true ] && dirty1=false || dirty1=true
copy gitmoved $s1 && sed -i -e 's/^git_commit = .*/git_commit = 0123456789abcdef0123456789abcdef01234567/' \
    -e "s/^git_dirty = .*/git_dirty = $dirty1/" gitmoved/meta.ini
rm -rf gitmerged
timeout 60 "$cdlab" merge --quiet $s0 gitmoved -o gitmerged >/dev/null 2>err.txt ||
    fail "shards that differ only in their checkouts' git state: $(cat err.txt)"
[ "$dirty1" = true ] && mark1=" dirty" mark0="" || mark1="" mark0=" dirty"
# meta.ini's long values go on over indented lines: joined here
sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    //g' gitmerged/meta.ini >joined.ini
grep -qx "git_commit = differs between shards (see \[merge\])" joined.ini &&
    grep -qx "git_dirty = differs between shards (see \[merge\])" joined.ini &&
    grep -q "^shard1 = gitmoved | .* | git 0123456789abcdef0123456789abcdef01234567$mark1 | " joined.ini &&
    grep -q "^shard0 = $s0 | .* | git $(sed -n 's/^git_commit = //p' $s0/meta.ini)$mark0 | " joined.ini ||
    fail "the merged meta.ini does not say each shard's git state: $(grep -e '^git_' -e '^shard[01] = ' joined.ini)"
echo "ok: shards of one build from different checkouts merge, each shard's commit in [merge]"
# Its readers say the run has several commits, not the marker's first characters as a commit.
"$cdlab" compare whole gitmerged >cmp.txt 2>err.txt
grep -q "^- NEW: \`gitmerged\` (t, kind cubes, commits of its shards in meta.ini \[merge\], some shards dirty, " cmp.txt ||
    fail "compare of the merged run: $(grep '^- NEW' cmp.txt) $(cat err.txt)"
"$cdlab" report -o page.html gitmerged >/dev/null 2>err.txt || fail "report of the merged run: $(cat err.txt)"
grep -q "merge: shard1" page.html && grep -q "git 0123456789abcdef0123456789abcdef01234567" page.html ||
    fail "the report of the merged run does not show its shards' commits"
mkdir -p rr/m && cp -r gitmerged rr/m/t
sh "$(dirname "$0")/../../scripts/results.sh" rr >results.md 2>err.txt || fail "results.sh: $(cat err.txt)"
grep -q "cdlab [^ ]* at the commits of its shards (its meta.ini \[merge\])" results.md ||
    fail "results.sh on the merged run: $(grep -m1 '^Machine' results.md)"
echo "ok: compare, report and results.sh say a merged run has its shards' commits"

# ---------------------------------------------------------------------------------------------
# "nothing written" is true when the output cannot be made: the parent directories merge made
# for RUN_DIR go again (a final name too long, a parent's name too long), those that were there
# stay.
long=$(printf 'x%.0s' $(seq 300))
mkdir kept
for out in "new/parent/$long" "new/$long/run" "kept/new/$long"; do
    rm -rf new
    timeout 20 "$cdlab" merge --quiet $s0 $s1 -o "$out" >/dev/null 2>err.txt
    rc=$?
    [ $rc -eq 1 ] && grep -q "File name too long; nothing written" err.txt ||
        fail "merge -o ${out%%xxxx*}...: exit $rc: $(cut -c1-200 err.txt)"
    [ ! -e new ] && [ -z "$(ls -A kept)" ] ||
        fail "merge -o ${out%%xxxx*}... said nothing written, but left: $(find new kept | cut -c1-80)"
done
[ -d kept ] || fail "merge removed a directory it had not made"
echo "ok: a RUN_DIR that cannot be made leaves no parent directory behind"
# A disk that fills part way (a small tmpfs, where mount is allowed): the same.
mkdir small
if mount -t tmpfs -o size=64k tmpfs small 2>mount.err; then
    mnt=$tmp/small
    head -c 57344 /dev/zero >small/filler  # 56 of 64 KiB: the merged files do not fit
    timeout 20 "$cdlab" merge --quiet $s0 $s1 -o small/new/parent/run >/dev/null 2>err.txt
    rc=$?
    [ $rc -eq 1 ] && grep -q "No space left on device; nothing written" err.txt ||
        fail "merge onto a full disk: exit $rc: $(cat err.txt)"
    [ "$(ls -A small)" = filler ] || fail "merge onto a full disk said nothing written, but left: $(find small)"
    echo "ok: a merge that fills the disk leaves nothing behind: $(cat err.txt)"
else
    echo "skip (full disk): cannot mount a tmpfs here: $(head -n 1 mount.err)"
fi

# ---------------------------------------------------------------------------------------------
# An interrupted merge (SIGINT; SIGTERM, as a batch system stops a job) removes what it wrote:
# exit 128 + the signal, "nothing written", no RUN_DIR. One killed (SIGKILL) leaves its marker,
# which readers, a second merge and --resume call a merge's: remove it and merge again, not
# "cdlab run --resume continues it" (no run to resume).
# inflate FROM TO K: shard FROM copied to TO with its frames repeated 2^K times (its [files]
# record to match): about 100 MB for merge to write, so that it is still writing when signalled.
inflate() {
    copy "$2" "$1"
    head -n 1 "$2/frames.csv" >h && tail -n +2 "$2/frames.csv" >r
    i=0
    while [ $i -lt "$3" ]; do cat r r >r2 && mv r2 r; i=$((i + 1)); done
    cat h r >"$2/frames.csv" && rm -f h r
    sed -i -e "s/^frames_bytes = .*/frames_bytes = $(wc -c <"$2/frames.csv" | tr -d ' ')/" \
        -e "s/^frames_sha256 = .*/frames_sha256 = $(sha256sum "$2/frames.csv" | cut -d' ' -f1)/" "$2/meta.ini"
}
inflate $s0 b0 15
inflate $s1 b1 15
# start_merge: merge b0 b1 into res/t/m in the background ($bg), back once its marker is there
# (it has read the shards and writes).
start_merge() {
    rm -rf res/t/m
    "$cdlab" merge --quiet b0 b1 -o res/t/m >/dev/null 2>err.txt &
    bg=$!
    k=0
    until [ -e res/t/m/INCOMPLETE ] || ! kill -0 $bg 2>/dev/null || [ $k -ge 12000 ]; do
        sleep 0.01
        k=$((k + 1))
    done
    [ -e res/t/m/INCOMPLETE ] || fail "the merge ended before it could be signalled: $(cat err.txt)"
}
for sig in INT:2 TERM:15; do
    want=$((128 + ${sig#*:})) sig=${sig%:*}
    start_merge
    kill -$sig $bg
    wait $bg
    rc=$?
    bg=""
    [ $rc -eq $want ] && grep -q "res/t/m: interrupted (SIG$sig) while writing .*; nothing written" err.txt ||
        fail "SIG$sig: merge exited $rc (expected $want) saying: $(cat err.txt)"
    [ ! -e res/t/m ] || fail "SIG$sig: the interrupted merge left: $(ls -A res/t/m)"
    echo "ok: SIG$sig: exit $rc, nothing left: $(cat err.txt)"
done
start_merge
kill -KILL $bg
wait $bg 2>/dev/null
bg=""
[ -e res/t/m/INCOMPLETE ] || fail "SIGKILL: no marker left"
abandoned="abandoned: run started .* by pid [0-9]* on .*: cdlab merge of 2 shards; no process holds the run's lock: the merge was killed or crashed (remove the directory and merge again)"
"$cdlab" merge res/t/m -o x >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -q "res/t/m: incomplete run ($abandoned)" err.txt && ! grep -q -- "--resume" err.txt ||
    fail "SIGKILL: a reader says of the killed merge: $(cat err.txt)"
echo "ok: SIGKILL: readers say: $(cat err.txt)"
"$cdlab" merge --quiet b0 b1 -o res/t/m >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -q "res/t/m: exists ($abandoned): expected a new run directory" err.txt ||
    fail "SIGKILL: merging again says: $(cat err.txt)"
echo "ok: SIGKILL: merging again says: $(cat err.txt)"
[ -e res/t/m/config.ini.part ] || cp t.ini res/t/m/config.ini.part  # as a merge killed later leaves it
"$cdlab" run --quiet --resume --output res --run-id m t.ini >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -qF "res/t/m: cannot continue this run: a directory that cdlab merge left, not a run (remove it and merge again)" err.txt ||
    fail "SIGKILL: --resume of the killed merge's directory: $(cat err.txt)"
echo "ok: SIGKILL: --resume refuses: $(cat err.txt)"
# Killed right after its marker appeared: the marker already names the merge. strace holds the
# merge for two seconds in its first flock (the marker's): a marker created empty and written
# after the lock was visible empty then, and readers said "--resume continues it" of a merge.
if command -v strace >/dev/null 2>&1; then
    rm -rf res/t/m
    strace -f -o /dev/null -e trace=flock -e inject=flock:delay_enter=2000000:when=1 \
        "$cdlab" merge --quiet b0 b1 -o res/t/m >/dev/null 2>err.txt &
    bg=$!
    k=0
    until [ -d res/t/m ] || [ $k -ge 1000 ]; do sleep 0.01; k=$((k + 1)); done
    sleep 0.5  # inside the two seconds of the delayed flock
    [ -e res/t/m/INCOMPLETE ] && [ ! -s res/t/m/INCOMPLETE ] && fail "the merge's marker was visible empty"
    # The merge (strace's child) first: killed, strace would let it go on at once.
    merge_pid=$(pgrep -P $bg) || fail "no merge under strace"
    kill -KILL $merge_pid
    wait $bg 2>/dev/null
    bg=""
    "$cdlab" merge res/t/m -o x >/dev/null 2>err.txt
    grep -qE "not a run directory|cdlab merge of 2 shards" err.txt && ! grep -q -- "--resume" err.txt || fail "a merge killed as its marker appeared: a reader says: $(cat err.txt)"
    echo "ok: a merge killed as its marker appeared: no marker taken for a run's: $(cat err.txt)"
else
    echo "skipped: strace is missing (scripts/install-deps.sh installs it)"
fi
exit 0
